// Presenting a CheckReport (src/check/check.h): text for a learner, JSON for scripts.
#pragma once

#include <string>
#include <vector>

#include "check/check.h"
#include "core/config_record.h"
#include "lang/lang.h"

namespace attn {

// A ✓ / ≈ / ✗ line per step, the first difference with the rows around it from both
// tensors, then the diagnoses with what to change in the code.
std::string render_check_text(const CheckReport& r, Lang lang);

// {"tool", "version", "command": "check", "stage", "config", "results", "first_difference",
//  "diagnoses"}: docs/json-schema.md. "config" writes `config`, the record of r.config
// (request/option_table.h's config_record; empty: {}).
std::string render_check_json(const CheckReport& r, Lang lang, const ConfigRecord& config = {});

// The training setup the report grades against (--stage backward): chapter 5's loop's
// optimizer, lr, weight decay, steps, batch, seed and the step whose gradients the walk
// shows, in `lang`; "" for the other stages.
std::string training_setup(const CheckReport& r, Lang lang);

// The walk's options for the command the report suggests: the learner's, and --grad-step
// when their gradients were another step's.
std::string suggested_options(const CheckReport& r);

// An index as the reports write it: "[2, 1]"; "[]" for a 0-dim tensor.
std::string report_index(const std::vector<int64_t>& idx);
// A value as the reports write it: the shortest decimal that reads back as the same float32,
// as repr(tensor.item()) shows it to the digits that matter ("1.0", "nan", "-inf").
std::string report_value(float v);

// The rows a report shows around the largest difference of `t` at `idx`: the matrix row
// holding it and one row either side, a window of 9 columns around it when rows are longer
// than 10. Each with its label ("[0, 2, 3:12]"; "[:]" for a vector; "" for a 0-dim tensor) and
// the flat indices of its cells.
struct ShownRow {
  std::string label;
  std::vector<size_t> cells;
};
std::vector<ShownRow> rows_around_difference(const Tensor& t, const std::vector<int64_t>& idx);

// A diagnosis's message in `lang`: what the mistake is and what to change.
// The message of r.diagnoses[i], with its evidence.
std::string mistake_message(const CheckReport& r, size_t i, Lang lang);

}  // namespace attn
