// Every option of a walk, named once. One row per option says how it is spelled, what it
// fills, its help and its plain label, its range or choices, which stages it changes, and
// which Config field it sets. The rows drive the CLI11 binding (the command line, `check`
// and the page's arguments), the page's controls and state (src/web/page_data.cpp), and
// make_config(). src/request/option_table.cpp holds the table and says how to add a row.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/config.h"
#include "core/config_record.h"
#include "render/render.h"
#include "request/walk_request.h"

namespace attn {

// Where the page shows an option: the input, the model, what to show, or under "more".
enum class OptionGroup {
  Input,
  Model,
  Show,
  More
};
const char* to_string(OptionGroup g);  // "input", "model", "show", "more"

// The request field an option fills (through a captureless lambda).
template <class T>
using OptionFieldOf = T& (*)(Options&);
// A closed set is an enum, bound by its names (enum_names) with a CLI::CheckedTransformer, so a
// misspelling is refused where it is parsed.
using OptionField = std::variant<OptionFieldOf<bool>, OptionFieldOf<int64_t>, OptionFieldOf<uint64_t>,
                                 OptionFieldOf<double>, OptionFieldOf<std::string>,
                                 OptionFieldOf<std::vector<std::string>>, OptionFieldOf<InitKind>,
                                 OptionFieldOf<DropoutKernel>, OptionFieldOf<OptimizerKind>, OptionFieldOf<Format>,
                                 OptionFieldOf<HeatmapScale>, OptionFieldOf<ColorMode>, OptionFieldOf<StageChoice>,
                                 OptionFieldOf<BlasKernelChoice>>;

// --seed: what a seed is, when the text is not one.
CLI::Validator seed_check();

// A key of the JSON output's "config" and how it reads its value from the Config. Without a
// reader, the key records the row's own field: an enum by its name, and null while the field
// holds the default request's value if the row has no default (.no_default(): --layer).
struct RecordedKey {
  std::string key;  // nested objects' keys joined by dots: "bonus.latent_dim"
  RecordValue (*value)(const Config&) = nullptr;
  RecordedKey(const char* k) : key(k) {}  // NOLINT: a bare key reads as the row's field
  RecordedKey(std::string k, RecordValue (*v)(const Config&) = nullptr) : key(std::move(k)), value(v) {}
};

struct OptionRow {
  std::string names;  // CLI11's spelling: "-q,--query"
  OptionField field;
  std::string help;  // --help's line
  // The man page's and the README's (make docs): what the value is called ("FILE"; none for a
  // flag or a closed set, which show their choices), and the longer text when --help's line
  // is not enough (`code` is set in bold or as code).
  std::string metavar;
  std::string doc;
  std::string label;  // plain words for a learner (the page's control)
  OptionGroup group = OptionGroup::Model;
  // The stages whose output the option changes: "*" for every stage, else their names
  // separated by spaces (tests/test_request.cpp walks each stage to check it).
  std::string stages = "*";
  bool in_check = false;     // attn-walk check takes it too: it decides the walk's numbers
  bool on_page = true;       // false: it chooses how or where to write, or means nothing in a browser
  bool show_default = true;  // --help prints "[default]" (and the page's control starts there)
  bool has_range = false;
  double min = 0, max = 0;  // inclusive; max >= kNoUpperBound reads "a number >= min"
  std::vector<std::string> (*choices)() = nullptr;
  std::vector<std::string> excludes;        // long names of earlier rows it cannot be given with
  bool& (*given)(Options&) = nullptr;       // set when the option is on the command line
  char delimiter = 0;                       // a list: "a,b"
  CLI::Validator (*validator)() = nullptr;  // a check of its own (--seed's)
  // A field of the request's Config (the walk's numbers): the keys of the JSON output's
  // "config" that record it, which config_record() writes from the rows. None for an option
  // the Config does not hold.
  std::vector<RecordedKey> recorded_as;
  // What else of the Config follows from the option (make_config, after the input is in
  // place), or, for a value the request holds beside its Config, how it sets the Config.
  void (*to_config)(const WalkRequest&, Config&) = nullptr;
  // The Config field read back as the page's state writes it (the same text for a default
  // Config means "not set").
  std::string (*from_config)(const Config&) = nullptr;
  // The same for how the walk is shown: the RenderOptions field it sets (make_walks), read
  // back as the page's state writes it.
  void (*to_render)(const WalkRequest&, RenderOptions&) = nullptr;
  std::string (*from_render)(const RenderOptions&) = nullptr;
  // The page's state (src/web/page_data.cpp) records every option on the page by one of the
  // readers above (the stage by the walks themselves), except those that say where to read
  // the input from or how large it may be: the state holds the input itself.
  bool in_state = true;
  // It also draws the inputs that --random-input and --text make (--seed): with one of those,
  // it changes every stage, whatever its "stages" say of the chapter's own inputs.
  bool draws_inputs = false;

  // One builder a line, as a table (not clang-format).
  // clang-format off
  // Builders, so that a row reads as one statement.
  OptionRow& arg(std::string m) { metavar = std::move(m); return *this; }
  OptionRow& docs(std::string d) { doc = std::move(d); return *this; }
  OptionRow& shows(std::string l, OptionGroup g, std::string s) { label = std::move(l), group = g, stages = std::move(s); return *this; }
  OptionRow& range(double lo, double hi) { has_range = true, min = lo, max = hi; return *this; }
  OptionRow& one_of(std::vector<std::string> (*c)()) { choices = c; return *this; }
  OptionRow& check_too() { in_check = true; return *this; }
  OptionRow& not_on_page() { on_page = false; return *this; }
  OptionRow& no_default() { show_default = false; return *this; }
  OptionRow& excluding(std::vector<std::string> e) { excludes = std::move(e); return *this; }
  OptionRow& counts(bool& (*g)(Options&)) { given = g; return *this; }
  OptionRow& list(char d) { delimiter = d; return *this; }
  OptionRow& checked(CLI::Validator (*v)()) { validator = v; return *this; }
  OptionRow& records(std::vector<RecordedKey> keys, std::string (*from)(const Config&)) {
    recorded_as = std::move(keys), from_config = from;
    return *this;
  }
  OptionRow& then(void (*also)(const WalkRequest&, Config&)) { to_config = also; return *this; }
  OptionRow& sets(void (*to)(const WalkRequest&, Config&), std::string (*from)(const Config&)) {
    to_config = to, from_config = from;
    return *this;
  }
  OptionRow& reads(std::string (*from)(const Config&)) { from_config = from; return *this; }  // set by the input
  OptionRow& renders(void (*to)(const WalkRequest&, RenderOptions&), std::string (*from)(const RenderOptions&)) {
    to_render = to, from_render = from;
    return *this;
  }
  OptionRow& not_in_state() { in_state = false; return *this; }
  OptionRow& also_draws_inputs() { draws_inputs = true; return *this; }
  // clang-format on

  std::string long_name() const;                                        // "query"
  bool in_config() const { return !recorded_as.empty() || to_config; }  // it decides the walk's numbers
};

constexpr double kNoUpperBound = 1e30;

// The rows, in --help's order.
const std::vector<OptionRow>& option_table();
const OptionRow* find_option(const std::string& long_name);

// Which rows an app binds: every walk option (the command line and the page), or only those
// that decide the walk's numbers (attn-walk check, which has its own --stage and --lang).
enum class OptionScope {
  Walk,
  Check
};
void bind_options(CLI::App& app, Options& o, OptionScope scope);
// After parsing: marks the options given on the command line (Options' *_given fields).
void mark_given(const CLI::App& app, Options& o);

// A closed set's check: the enum's names to its values (CLI::CheckedTransformer); refuses
// any other text with the message CLI11's IsMember gives ("zeros not in {rand,randn}").
template <class E>
CLI::Validator enum_check() {
  std::vector<std::pair<std::string, E>> map;
  std::string set;
  for (const auto& n : enum_names(E{})) {
    map.emplace_back(n.name, n.value);
    set += std::string(set.empty() ? "" : ",") + n.name;
  }
  set = "{" + set + "}";
  CLI::CheckedTransformer to_value(map);
  return CLI::Validator(
      [to_value, set](std::string& input) {
        const std::string given = input;
        if (to_value(input).empty()) return std::string();
        return given + " not in " + set;
      },
      set);
}
// The names of a closed set, in order ("rand", "randn").
template <class E>
std::vector<std::string> enum_choices() {
  std::vector<std::string> names;
  for (const auto& n : enum_names(E{})) names.emplace_back(n.name);
  return names;
}

// An option given on the command line that changes no stage --stage selects, for a note on
// stderr in the learner's language: "--lr does not change --stage causal (only backward)".
struct UnusedOption {
  std::string option;  // its long name: "lr"
  std::string stage;   // --stage's value: "causal"
  std::string only;    // the stages it changes (its row's "stages"): "backward", or "swa, rope"
};

// The options given on `app`'s command line that change no stage `stage` selects. Not misuse:
// --stage all takes knobs that only some of its stages use.
std::vector<UnusedOption> unused_by_stage(const CLI::App& app, StageChoice stage);

// A range check whose message reads as a person writes the range ("--dropout: must be a
// number from 0 to 1, got 1.5"); its description (--help) is CLI11's own Range's.
template <class T>
CLI::Validator range_check(T min, T max);

// The values an option takes when it has a closed set of them (its type's "{a,b}"), else none.
std::vector<std::string> option_choices(const CLI::Option& opt);

// Makes `c`, a Config holding an input (tokens, inputs, input_name, text, token_ids), the
// request's Config on that input: every knob of `r`, and what the options given imply beyond
// their own fields (each row's to_config): --seed is both seeds, --d-out and --heads replace
// the bonus stages' own, SGD's weight decay is 0 unless given, the query stays within the tokens.
void set_knobs(const WalkRequest& r, Config& c);
// The keys of the JSON output's "config" that the rows record (OptionRow::recorded_as).
std::vector<std::string> recorded_config_keys();
// The keys no option sets: the input's name and size, and OpenBLAS's thread count.
const std::vector<RecordedKey>& input_config_keys();
// The JSON output's "config" of `c`: input_config_keys(), then each row's recorded keys, in
// the table's order. make_walks sets it on every walk (Walk::config_record).
ConfigRecord config_record(const Config& c, const std::vector<OptionRow>& rows = option_table());
// Sets how `r` asks its walks to be shown in `ro` (each row's to_render).
void set_render_options(const WalkRequest& r, RenderOptions& ro);

// The walk options alone (no bench, no output or terminal options needed), parsed with the
// same CLI11 binding and checks as the command line: the page (src/web/) passes the same
// arguments. `args` excludes the program name. Throws UsageError.
Options parse_walk_options(const std::vector<std::string>& args);

// Every option of the binding, machine-readable, for the page's controls: a JSON array of
// {"name": "d-out", "flag": bool, "type": "INT", "choices": [...], "default": "2", "help": "...",
//  "label": "...", "group": "model", "stages": "...", "on_page": bool} (the last four for the
// table's rows; help and version have none).
std::string options_json();

}  // namespace attn
