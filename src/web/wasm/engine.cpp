// The page's engine: the CLI's own option binding (src/request/), stages and renderers, compiled to
// WebAssembly (`make web`). The page's script calls these functions (from its Web Worker, so the
// page stays responsive while a walk runs); it computes nothing itself.
#include <emscripten/emscripten.h>
#include <emscripten/heap.h>
#include <malloc.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <numeric>
#include <optional>
#include <sstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "input/embeddings.h"
#include "lang/lang.h"
#include "lang/weights_errors.h"
#include "render/bench.h"
#include "render/render.h"
#include "request/option_table.h"
#include "request/request.h"
#include "web/page_data.h"
#include "web/page_errors.h"
#include "web/walk_values.h"
#include "weights/gpt_weights.h"

namespace {

using nlohmann::json;

std::string result;  // what the last call returned; the page copies it before the next call

// How far the walk has come, for the page to show while it waits: "step" with the name of the
// step just recorded and how many are done; "part" with the step being computed and `part` of
// its `parts` done (a long step's pieces); then "render" when the walk's HTML is being written;
// "read" with the weights file's name while --stage gpt reads it, before its first step.
// `block`: the GPT block (from 1) the step belongs to, 0 for none (block_of).
// The page's worker sets Module.onProgress (and posts it to the page); nobody else listens.
EM_JS(void, attn_walk_progress, (const char* phase, const char* step, int done, int part, int parts, int total, int block), {
  if (Module["onProgress"]) Module["onProgress"](UTF8ToString(phase), UTF8ToString(step), done, part, parts, total, block);
});

// The block of --stage gpt a step belongs to, from 1: its steps are named by module path as
// model.named_modules() names them ("trf_blocks.3.att.queries" is block 4); 0 for a step of no
// block. The page says "block 4 of 12" with the model's n_layers (attn_walk_weights).
int block_of(const std::string& step) {
  const std::string prefix = "trf_blocks.";
  if (step.rfind(prefix, 0) != 0) return 0;
  int n = 0;
  size_t i = prefix.size();
  if (i >= step.size() || step[i] < '0' || step[i] > '9') return 0;
  for (; i < step.size() && step[i] >= '0' && step[i] <= '9' && n < (1 << 20); ++i) n = n * 10 + (step[i] - '0');
  return n + 1;
}

// The page's JSON embeddings with the same tokens and every row `width` zeros wide, for a
// plan; "" if the text is not plain JSON of one of the two forms (the loader says why).
std::string narrowed_input(const json& in, int64_t width, int64_t* d_in) {
  const json& rows = in.is_object() ? in.value("embeddings", json()) : in;
  if (!rows.is_array() || rows.empty() || !rows[0].is_array()) return "";
  *d_in = static_cast<int64_t>(rows[0].size());
  json out = json::object();
  if (in.is_object() && in.contains("tokens")) out["tokens"] = in["tokens"];
  out["embeddings"] = json::array();
  for (size_t i = 0; i < rows.size(); ++i) out["embeddings"].push_back(std::vector<int>(static_cast<size_t>(width), 0));
  return out.dump();
}

// How many steps a walk will record, for the progress line's "step 3 of 12", or 0 if unknown:
// the same request at small widths (the same tokens, stage and knobs; d_out and d_in shrunk
// to two dimensions a head, equal where they were equal), walked first. Only where the walk
// itself may be long, a --text walk at large widths or large pasted embeddings: the small one
// takes milliseconds. The steps a stage records depend on its tokens, heads, blocks and on
// whether d_in equals d_out, never on the widths or the values otherwise
// (tests/browser/test_web_tour.js compares the two for every stage).
int planned_steps(const attn::WalkRequest& r) {
  const bool long_text = r.text.given && r.text.embed_dim * r.d_out >= 4096;
  const bool long_input = !r.text.given && r.input_json.size() >= 20000;
  if (!long_text && !long_input) return 0;
  json in;
  int64_t d_in = r.text.embed_dim;
  if (long_input) {
    in = json::parse(r.input_json, nullptr, false);
    if (in.is_discarded() || narrowed_input(in, 1, &d_in).empty()) return 0;
  }
  const int64_t bonus_heads = r.heads_given ? r.heads : attn::BonusConfig{}.heads;
  const int64_t small = 2 * std::lcm(r.heads, bonus_heads);
  attn::WalkRequest s = r;
  s.on_step = nullptr;
  s.on_part = nullptr;
  s.keep_all_values = false;
  if (r.d_out_given && r.d_out > small && r.d_out % r.heads == 0) s.d_out = small;
  // The chapter's d_out and the bonus stages' (their own 8 unless --d-out is given), before
  // and after; d_in keeps its equality with either, or its difference from both.
  const int64_t bonus_before = r.d_out_given ? r.d_out : attn::BonusConfig{}.d_out;
  const int64_t bonus_after = r.d_out_given ? s.d_out : attn::BonusConfig{}.d_out;
  int64_t width = d_in;
  if (d_in == r.d_out) width = s.d_out;
  else if (d_in == bonus_before) width = bonus_after;
  else
    for (int64_t d = 1; d < d_in; ++d)
      if (d != s.d_out && d != bonus_after) {
        width = d;
        break;
      }
  if (long_input) s.input_json = narrowed_input(in, width, &d_in);
  else s.text.embed_dim = width;
  try {
    attn::RenderOptions ro;
    size_t steps = 0;
    for (const auto& w : attn::make_walks(s, &ro)) steps += w.steps.size();
    return static_cast<int>(steps);
  } catch (const std::exception&) {
    return 0;
  }
}

// The model of the learner's open weights file, kept across walks: a GPT-2 small file takes a
// second or more to come from the browser's File (WORKERFS reads it into the engine's memory
// whole, src/weights/mapped_file.cpp), and every control's change walks again. Kept while the
// same files stay open (the worker names them by name, size and lastModified: attn_walk_files),
// one model at a time: the kept one is freed before another file is read, so the engine's memory
// holds one model whatever the number of walks.
struct KeptGptModel {
  std::string files;             // the open files' key when it was read
  std::string path;              // --weights
  std::optional<int64_t> heads;  // the --heads it was read with
  std::shared_ptr<const attn::GptParams> params;
};
KeptGptModel kept_gpt;
std::string open_files;  // the key of the files the worker has mounted now
int weights_reads = 0;   // how many times a weights file was read (the page's tests count them)

// The stages that take --weights (the option table's row: gpt, and multi-head on a trained block).
bool engine_takes_weights(attn::StageChoice stage) {
  std::istringstream names(attn::find_option("weights")->stages);
  for (std::string n; names >> n;)
    if (n == attn::enum_name(stage)) return true;
  return false;
}

attn::Lang page_lang = attn::Lang::En;  // the language of the request being answered

// The open file's model with `heads` (--heads if given): the kept one if it is that file's, else
// read (the reader's own message if it cannot be: exit 1's kind "input", or "usage" when the head
// count cannot be told). Another --heads on the same file is the kept parameters with that head
// count (the reader takes the count from --heads as it is, once it divides the width; a count
// that does not, or none, is left to the reader's own words and reads the file again).
// `reading` is told before a read.
std::shared_ptr<const attn::GptParams> gpt_model(const std::string& path, std::optional<int64_t> heads,
                                                 const std::function<void()>& reading) {
  if (kept_gpt.params && kept_gpt.files == open_files && kept_gpt.path == path) {
    if (kept_gpt.heads == heads) return kept_gpt.params;
    const int64_t width = kept_gpt.params->cfg.emb_dim;
    if (heads && *heads >= 1 && width % *heads == 0) {
      auto p = std::make_shared<attn::GptParams>(*kept_gpt.params);  // views into the same storage
      p->cfg.n_heads = *heads;
      // Where the count came from (config.json, GPT-2's sizes) no longer applies: --heads gave it.
      std::vector<attn::WeightsNote> notes;
      for (auto& n : p->notes)
        if (n.key.rfind("note.weights.heads_", 0) != 0) notes.push_back(n);
      p->notes = std::move(notes);
      return p;
    }
  }
  kept_gpt = KeptGptModel{};  // one model at a time: freed before the next is read
  if (reading) reading();
  ++weights_reads;
  std::shared_ptr<const attn::GptParams> p;
  try {
    p = std::make_shared<const attn::GptParams>(attn::load_gpt_weights(path, heads));
  } catch (const attn::WeightsError& e) {  // the reader's message in the page's language
    const std::string message = attn::weights_error_text(page_lang, e.id, e.vars, e.what());
    if (e.usage) throw attn::UsageError(message);
    throw attn::InputError(message);
  }
  kept_gpt = KeptGptModel{open_files, path, heads, p};
  return p;
}

// What the engine holds, for the page's tests: the reads so far, the memory's size and the
// bytes malloc has handed out (one model kept, not one per walk).
json engine_counts() {
  return {{"weights_reads", weights_reads},
          {"heap_bytes", static_cast<double>(emscripten_get_heap_size())},
          {"malloc_bytes", static_cast<double>(mallinfo().uordblks)}};
}

// One walk: the options as the CLI takes them, and the embeddings as JSON text (empty: the
// chapter's six tokens). Returns {"ok": true, "title", "lang"[, "json"]} and the walk's HTML
// in *html, or throws.
json run(const std::string& args_json, const std::string& input, bool with_json, std::string* html) {
  std::vector<std::string> args;
  try {
    args = json::parse(args_json).get<std::vector<std::string>>();
  } catch (const json::exception& e) {
    throw attn::UsageError(std::string("the page passed arguments that are not a JSON list of strings: ") + e.what());
  }
  attn::WalkRequest r = attn::parse_walk_options(args).walk;
  if (!r.input.empty() || !r.random_input.empty())
    throw attn::UsageError("--input and --random-input: the page takes its embeddings from its table");
  r.input_json = input;             // empty: the chapter's six tokens
  r.document = attn::Format::Html;  // every step with its explanation and every value, as on the CLI's page
  r.keep_all_values = true;
  r.explain = true;
  int done = 0;
  const int total = planned_steps(r);
  r.on_step = [&done, total](const std::string&, const std::string& step) {
    attn_walk_progress("step", step.c_str(), ++done, 0, 0, total, block_of(step));
  };
  r.on_part = [&done, total](const std::string&, const std::string& step, int64_t part, int64_t parts) {
    attn_walk_progress("part", step.c_str(), done, static_cast<int>(part), static_cast<int>(parts), total,
                       block_of(step));
  };
  attn::RenderOptions ro;
  // --stage gpt (and multi-head on a trained block) walks the open file's model: the kept one, or
  // read first, before any step (the page says so: a GPT-2 small file takes a second or more).
  if (!r.gpt.weights_path.empty() && (r.stage == attn::StageChoice::Gpt || engine_takes_weights(r.stage)))
    r.gpt.params = gpt_model(r.gpt.weights_path, r.heads_given ? std::optional<int64_t>(r.heads) : std::nullopt,
                             [&] { attn_walk_progress("read", r.gpt.weights_path.c_str(), 0, 0, 0, total, 0); });
  const auto walks = attn::make_walks(r, &ro);
  attn_walk_progress("render", "", done, 0, 0, total, 0);
  json out = {{"ok", true},
              {"title", attn::html_title(walks, ro.lang)},
              {"lang", ro.lang == attn::Lang::Zh ? "zh-CN" : "en"},
              {"planned", total}};
  out.update(engine_counts());
  // The values the walk used, for the page's boxes (src/web/walk_values.h).
  out.update(attn::walk_values(walks));
  *html = attn::render_html_body(walks, ro);
  if (with_json) out["json"] = attn::render_json(walks);
  return out;
}

// The CLI's message, and what the page shows: in the page's language and plain words, with the
// option it is about (src/web/page_errors.h).
json failure(const char* kind, const std::string& message) {
  const attn::PageError e = attn::page_error(message, page_lang);
  return {{"ok", false}, {"kind", kind}, {"message", message}, {"shown", e.text}, {"option", e.option}};
}

// The --lang of a request's arguments (English if none or unknown): its errors are said in it
// even when the arguments do not parse.
attn::Lang lang_of(const std::string& args_json) {
  attn::Lang lang = attn::Lang::En;
  const json args = json::parse(args_json, nullptr, false);
  if (args.is_array())
    for (size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == "--lang" && args[i + 1].is_string()) attn::parse_lang(args[i + 1].get<std::string>(), &lang);
  return lang;
}

// What a call returns: its result, or the failure, as JSON text.
template <class F>
const char* answer(F&& f) {
  json out;
  try {
    out = f();
  } catch (const attn::UsageError& e) {
    out = failure("usage", e.what());
  } catch (const attn::InputError& e) {
    out = failure("input", e.what());
  } catch (const std::bad_alloc&) {
    out = failure("input", "out of memory (the input or the sizes chosen are too large)");
  } catch (const std::exception& e) {
    out = failure("internal", e.what());
  }
  result = out.dump(-1, ' ', false, json::error_handler_t::replace);
  return result.c_str();
}

}  // namespace

extern "C" {

// The answer is {"ok": true, "title", "lang"[, "json"]}, a newline, and the walk's HTML as it
// is (a few hundred KB for stage all: not escaped into JSON and parsed back in the page); or
// {"ok": false, "kind": "usage" | "input" | "internal", "message"} alone. JSON text written
// by dump(-1) holds no raw newline.
EMSCRIPTEN_KEEPALIVE const char* attn_walk_run(const char* args_json, const char* input, int with_json) {
  std::string html;
  bool walked = false;
  page_lang = lang_of(args_json);
  answer([&] {
    json meta = run(args_json, input, with_json != 0, &html);
    walked = true;
    return meta;
  });
  if (walked) result.append("\n").append(html);
  return result.c_str();
}

// `attn-walk bench` in the page (docs/performance.md puts it beside the native one): the same
// forward, on one thread (a file:// page has no threads) with the portable kernels. Returns
// {"ok": true, "bench": the bench's JSON report}. Not used by the page itself.
EMSCRIPTEN_KEEPALIVE const char* attn_walk_bench(int tokens, int d_model, int heads, int repeat) {
  return answer([&] {
    attn::BenchOptions b;
    b.tokens = tokens;
    b.d_model = d_model;
    b.heads = heads;
    b.repeat = repeat;
    b.threads = 1;
    b.probe = false;  // the FMA probe measures native instruction sets
    if (tokens < 1 || d_model < 1 || heads < 1 || repeat < 1 || d_model % heads != 0)
      throw attn::UsageError("bench: sizes must be positive and heads must divide d_model");
    return json{{"ok", true}, {"bench", json(attn::bench_json(attn::run_bench(b)))}};
  });
}

// The weights file the learner opened (the worker has put it at the path --weights names, in
// emscripten's WORKERFS: src/render/page/worker.js), read as --stage gpt reads it, with the
// same --heads: {"ok": true, "file", "n_layers", "n_heads", "emb_dim", "vocab_size",
// "context_length", "qkv_bias", "notes"}, or the reader's own message (a failure of kind
// "input", or "usage" when the head count cannot be told without --heads). The model is kept
// for the walks that follow (gpt_model), until other files are opened.
EMSCRIPTEN_KEEPALIVE const char* attn_walk_weights(const char* args_json) {
  page_lang = lang_of(args_json);
  return answer([&] {
    std::vector<std::string> args;
    try {
      args = json::parse(args_json).get<std::vector<std::string>>();
    } catch (const json::exception& e) {
      throw attn::UsageError(std::string("the page passed arguments that are not a JSON list of strings: ") + e.what());
    }
    const attn::WalkRequest r = attn::parse_walk_options(args).walk;
    if (r.gpt.weights_path.empty()) throw attn::UsageError("--weights: the page opened no file");
    const auto p = gpt_model(r.gpt.weights_path, r.heads_given ? std::optional<int64_t>(r.heads) : std::nullopt, {});
    const attn::GptConfig& m = p->cfg;
    // The reader's notes in the page's language (src/lang/, note.weights.*), as the walk says them.
    json notes = json::array();
    for (const auto& n : p->notes) {
      const std::string t = attn::ui_text(page_lang, n.key);
      notes.push_back(t == n.key ? n.text : attn::fill_placeholders(t, n.vars));
    }
    // clang-format off
    json out = {{"ok", true},          {"file", r.gpt.weights_path},       {"n_layers", m.n_layers},
                {"n_heads", m.n_heads}, {"emb_dim", m.emb_dim},   {"vocab_size", m.vocab_size},
                {"context_length", m.context_length}, {"qkv_bias", m.qkv_bias}, {"notes", notes}};
    // clang-format on
    out.update(engine_counts());
    return out;
  });
}

// The worker has mounted other files (src/render/page/worker.js): `key` names them (each one's
// name, size and lastModified). The kept model is the open files' only while the key is the same.
EMSCRIPTEN_KEEPALIVE void attn_walk_files(const char* key) { open_files = key; }

// The controls' data (src/web/page_data.h), for a page that has none yet.
EMSCRIPTEN_KEEPALIVE const char* attn_walk_data() {
  result = attn::page_data_json({}, attn::RenderOptions{}, true);
  return result.c_str();
}
}
