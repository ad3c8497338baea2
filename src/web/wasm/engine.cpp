// The page's engine: the CLI's own option binding (src/request/), stages and renderers, compiled to
// WebAssembly (`make web`). The page's script calls these functions (from its Web Worker, so the
// page stays responsive while a walk runs); it computes nothing itself.
#include <emscripten/emscripten.h>

#include <exception>
#include <new>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "input/embeddings.h"
#include "render/bench.h"
#include "render/render.h"
#include "request/option_table.h"
#include "request/request.h"
#include "web/page_data.h"

namespace {

using nlohmann::json;

std::string result;  // what the last call returned; the page copies it before the next call

// How far the walk has come, for the page to show while it waits: "step" with the name of the
// step just recorded and how many are done; "part" with the step being computed and `part` of
// its `parts` done (a long step's pieces); then "render" when the walk's HTML is being written.
// The page's worker sets Module.onProgress (and posts it to the page); nobody else listens.
EM_JS(void, attn_walk_progress, (const char* phase, const char* step, int done, int part, int parts), {
  if (Module["onProgress"]) Module["onProgress"](UTF8ToString(phase), UTF8ToString(step), done, part, parts);
});

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
  r.input_json = input;  // empty: the chapter's six tokens
  r.document = attn::Format::Html;   // every step with its explanation and every value, as on the CLI's page
  r.keep_all_values = true;
  r.explain = true;
  int done = 0;
  r.on_step = [&done](const std::string&, const std::string& step) {
    attn_walk_progress("step", step.c_str(), ++done, 0, 0);
  };
  r.on_part = [&done](const std::string&, const std::string& step, int64_t part, int64_t parts) {
    attn_walk_progress("part", step.c_str(), done, static_cast<int>(part), static_cast<int>(parts));
  };
  attn::RenderOptions ro;
  const auto walks = attn::make_walks(r, &ro);
  attn_walk_progress("render", "", done, 0, 0);
  json out = {{"ok", true},
              {"title", attn::html_title(walks, ro.lang)},
              {"lang", ro.lang == attn::Lang::Zh ? "zh-CN" : "en"}};
  *html = attn::render_html_body(walks, ro);
  if (with_json) out["json"] = attn::render_json(walks);
  return out;
}

json failure(const char* kind, const std::string& message) {
  return {{"ok", false}, {"kind", kind}, {"message", message}};
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

// The controls' data (src/web/page_data.h), for a page that has none yet.
EMSCRIPTEN_KEEPALIVE const char* attn_walk_data() {
  result = attn::page_data_json({}, attn::RenderOptions{}, true);
  return result.c_str();
}

}
