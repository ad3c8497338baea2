// A walk request: what to walk (the stage), on what (the input), with which knobs, and what
// the caller will show of it. The command line (src/cli/), the page (src/web/) and `attn-walk
// check` each fill one (its fields: walk_request.h) and hand it to make_walks(); nothing below
// them reads a flag.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/config.h"
#include "core/walk.h"
#include "input/embeddings.h"
#include "render/render.h"
#include "request/walk_request.h"
#include "text/text_options.h"

namespace attn {

// What the command line's format asks of the walk: JSON, HTML and heatmaps read every value,
// and a page carries every explanation.
void set_document(Options& o);

// The embeddings the request asks for (--text, --random-input, --input file or stdin, the
// page's table, or the chapter's six), with the name messages and the JSON give them. Checks
// that the walk fits in memory (InputError) and parses --random-input (UsageError).
struct LoadedInput {
  Embeddings emb;
  std::string name;
  std::optional<text::TextEmbeddings> text;  // --text: its pieces, ids and chapter 2's steps
};
LoadedInput load_input(const WalkRequest& r);

// The walk's Config, whole: the input, every knob, and the checks that need the input (the
// query against the token count) or several options together (each selected stage's misuse
// rule). Throws UsageError.
Config make_config(const WalkRequest& r, LoadedInput in);

// The walks of r.stage on the request's input, localized, and --only applied. Fills `ro`
// (language, explain, heatmap; colour is left to the caller). Throws UsageError for option
// combinations that need the input (--query, --heads) and for unknown --only names.
std::vector<Walk> make_walks(const WalkRequest& r, RenderOptions* ro);

// "1024x768" -> {1024, 768}; UsageError naming --random-input otherwise.
std::pair<int64_t, int64_t> parse_size(const std::string& s);

// Throws UsageError if the request cannot walk c's input with c's knobs: the query past the
// last token, or a selected stage's misuse rule (StageInfo::misuse). Reads c's sizes only.
void check_walk_options(const WalkRequest& r, const Config& c);

// Throws InputError if the walk's tensors cannot fit in memory (`what` names the input).
void check_walk_fits(const WalkRequest& r, int64_t T, int64_t d_in, const std::string& what);

}  // namespace attn
