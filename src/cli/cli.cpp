// Running the command line: the input, the walks and what is written (text, JSON, HTML, --step,
// --list-steps), attn-walk check and bench; run_cli is main()'s one call.
#include "cli/cli.h"
#include "cli/cli_detail.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <set>

#include "bench/bench.h"
#include "check/check.h"
#include "input/embeddings.h"
#include "input/input_stream.h"
#include "lang/lang.h"
#include "core/output.h"
#include "render/bench.h"
#include "render/check.h"
#include "render/render.h"
#include "stages/stages.h"
#include "stages/tokens.h"
#include "torch/torch_random.h"
#include "web/page_data.h"

namespace attn {

using namespace cli_detail;

namespace {

Embeddings random_embeddings(int64_t T, int64_t D, uint64_t seed) {
  TorchGenerator gen(seed);
  Embeddings e;
  e.inputs = randn(gen, {T, D});
  for (int64_t i = 0; i < T; ++i) e.tokens.push_back("x" + std::to_string(i + 1));
  return e;
}

Config make_config(const Options& o, Embeddings emb) {
  Config c;
  c.tokens = std::move(emb.tokens);
  c.inputs = std::move(emb.inputs);
  c.input_name = !o.random_input.empty() ? "torch.randn(" + o.random_input + ")"
                 : o.input.empty()       ? "<built-in>"
                 : o.input == "-"        ? "<stdin>"
                                         : o.input;
  check_walk_options(o, c.num_tokens());
  c.query = std::clamp<int64_t>(o.query, 1, std::max<int64_t>(c.num_tokens(), 1));
  if (o.seed_given) c.seed1 = c.seed2 = o.seed;
  c.d_out = o.d_out;
  c.heads = o.heads;
  c.dropout = o.dropout;
  c.attn_dropout = o.attn_dropout;
  c.batch = o.batch;
  c.qkv_bias = o.qkv_bias;
  c.init = o.init == "randn" ? InitKind::Randn : InitKind::Rand;
  c.dropout_rng = o.dropout_rng == "mkl" ? DropoutKernel::Mkl : DropoutKernel::Default;
  c.causal_softmax = o.causal_softmax;
  // CLI::Range lets nan through.
  if (std::isnan(o.dropout)) throw UsageError("--dropout: must be a number in [0, 1], got nan");
  if (std::isnan(o.attn_dropout)) throw UsageError("--attn-dropout: must be a number in [0, 1], got nan");
  c.bonus = o.bonus;
  c.train = o.train;
  c.train.optimizer = o.optimizer == "sgd" ? OptimizerKind::SGD : OptimizerKind::AdamW;
  if (!(o.train.lr > 0.0 && o.train.lr <= 10.0) || !(o.train.weight_decay >= 0.0 && o.train.weight_decay <= 10.0))
    throw UsageError("--lr, --weight-decay: must be numbers in (0, 10] and [0, 10]");
  if (!(o.bonus.rope_base >= 1.0 && o.bonus.rope_base <= 1.0e12))  // CLI::Range lets nan through
    throw UsageError(fmt::format("--rope-base: must be a number in [1, 1e12], got {}", o.bonus.rope_base));
  if (o.d_out_given) c.bonus.d_out = o.d_out;
  if (o.heads_given) c.bonus.heads = o.heads;
  for (const auto& s : all_stages())
    if (stage_selected(s, o.stage) && s.misuse)
      if (const std::string why = s.misuse(c); !why.empty()) throw UsageError(why);
  // Text prints large tensors summarised; JSON, HTML and heatmaps read every value.
  c.summaries_only = o.format == "text" && !o.heatmap;
  return c;
}

// attn-walk check: the stage from --stage or the dump, then the report. Exit 3 if a tensor differs.
int run_check(Options& o, const CheckOptions& c) {
  if (c.dump == "-" && o.input == "-")
    throw UsageError("--input: the dump already reads stdin ('-'); give the embeddings as a file");
  const Dump dump = load_dump(c.dump);
  Embeddings emb = load_input(o);
  std::string chosen_by = "option";
  o.stage = c.stage.empty() ? "dot-product" : c.stage;  // make_config checks --heads for multi-head
  o.format = "json";  // the walk keeps every value: each one is graded
  Config cfg = make_config(o, emb);
  if (c.stage.empty()) {
    o.stage = choose_stage(dump, cfg, &chosen_by);
    cfg = make_config(o, std::move(emb));
  }
  const CheckReport report = check_dump(dump, cfg, o.stage, chosen_by, c.tol, c.dump == "-" ? "<stdin>" : c.dump);
  Lang lang;
  parse_lang(o.lang, &lang);
  write_output(o.output, c.format == "json" ? render_check_json(report, lang) : render_check_text(report, lang));
  return report.passed() ? 0 : 3;
}

std::vector<Walk> run_walks(const Options& o, const Config& cfg) {
  std::vector<Walk> walks;
  for (const auto& s : all_stages())
    if (stage_selected(s, o.stage)) {
      walks.push_back(s.run(cfg));
      summarize(walks.back());  // text only: keep what print() shows
    }
  if (walks.empty()) throw UsageError("--stage: no stage belongs to '" + o.stage + "'");
  return walks;
}

void apply_only(std::vector<Walk>& walks, const std::vector<std::string>& only) {
  if (only.empty()) return;
  std::set<std::string> known;
  for (const auto& w : walks)
    for (const auto& s : w.steps) known.insert(s.name);
  for (const auto& name : only)
    if (!known.count(name))
      throw UsageError("--only: no step named '" + name + "' in this walk; the steps are: " +
                       fmt::format("{}", fmt::join(known, ", ")));
  const std::set<std::string> keep(only.begin(), only.end());
  for (auto& w : walks) keep_only(w, keep);
}

bool use_color(const Options& o) {
  if (o.color == "always") return true;
  if (o.color == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  return o.output == "-" && ::isatty(STDOUT_FILENO);
}

// The terminal's columns when the text goes to one (headings and checks wrap at words
// there rather than where the terminal cuts them), else 0: files and pipes get whole lines.
int terminal_width(const Options& o) {
  if (o.output != "-" || !::isatty(STDOUT_FILENO)) return 0;
  struct winsize ws {};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

// --list-stages: the chapter's stages, then the bonus stages, then training, each under its heading.
std::string list_stages() {
  std::string out;
  for (const StageGroup group : {StageGroup::Chapter, StageGroup::Bonus, StageGroup::Training}) {
    const char* heading = group == StageGroup::Chapter ? "list.chapter"
                          : group == StageGroup::Bonus ? "list.bonus"
                                                       : "list.training";
    out += fmt::format("{}{}\n", group == StageGroup::Chapter ? "" : "\n", lang_en().ui.at(heading));
    for (const auto& s : all_stages())
      if (s.group == group) out += fmt::format("  {:<12} {:<17} {}\n", s.name, s.section, s.summary);
  }
  return out;
}

// --step: print the header and then one step at a time, waiting for Enter; q quits.
int run_stepwise(const std::vector<Walk>& walks, const RenderOptions& ro) {
  const std::string prompt = ui_text(ro.lang, "step_prompt");
  for (const auto& w : walks) {
    write_output("-", render_text_header(w, ro));
    for (size_t i = 0; i < w.steps.size(); ++i) {
      write_output("-", render_text_step(w, i, ro));
      std::cerr << prompt << std::flush;
      std::string line;
      if (!std::getline(std::cin, line) || line == "q" || line == "Q") {
        std::cerr << "\n";
        return 0;
      }
    }
  }
  return 0;
}
}  // namespace

Embeddings load_input(const Options& o) {
  if (const auto text = load_text(o.text, o.seed_given ? o.seed : 123)) return {text->pieces, text->input_embeddings};
  if (!o.random_input.empty()) {
    const auto [T, D] = parse_size(o.random_input);
    check_walk_fits(o, T, D, "--random-input " + o.random_input);
    return random_embeddings(T, D, o.seed_given ? o.seed : 123);
  }
  Embeddings emb = o.input.empty() ? builtin_journey() : load_embeddings(o.input, o.max_input_mb * kBytesPerMb);
  check_walk_fits(o, emb.inputs.size(0), emb.inputs.size(1),
                  o.input.empty() ? "<built-in>" : o.input == "-" ? "<stdin>" : o.input);
  return emb;
}

std::vector<Walk> make_walks(Options o, Embeddings emb, RenderOptions* ro) {
  // --text: chapter 2's embeddings of the learner's own text replace `emb`.
  const auto text = load_text(o.text, o.seed_given ? o.seed : 123);
  if (text) {
    emb = {text->pieces, text->input_embeddings};
    // A one-token text has no x(2): the default query becomes x(1).
    if (!o.query_given) o.query = std::min<int64_t>(o.query, static_cast<int64_t>(text->ids.size()));
  }
  Config cfg = make_config(o, std::move(emb));
  if (text) {
    cfg.input_name = text_source(o.text);
    cfg.text = text->text;
    cfg.token_ids = text->ids;
  }
  std::vector<Walk> walks = run_walks(o, cfg);
  parse_lang(o.lang, &ro->lang);
  ro->explain = o.explain;
  ro->heatmap = o.heatmap;
  ro->heatmap_per_matrix = o.heatmap_scale == "matrix";
  // HTML always carries the explanations; text and JSON only with --explain.
  const bool explain = o.explain || o.format == "html";
  for (auto& w : walks) localize(w, ro->lang, explain);
  if (text) {  // chapter 2's steps from the text to its embeddings come first
    Walk steps = run_text_steps(*text, cfg);
    localize(steps, ro->lang, explain);
    prepend_steps(walks.front(), std::move(steps));
  }
  apply_only(walks, o.only);
  return walks;
}

int run_cli(int argc, char** argv) {
  const auto started = std::chrono::steady_clock::now();
  ParsedArgs parsed;
  if (const auto code = parse_args(argc, argv, parsed, /*print=*/true)) return *code;
  Options& o = parsed.o;

  if (parsed.is_check) return run_check(o, parsed.check);
  if (parsed.is_bench) {
    check_bench(parsed.bench);
    const BenchReport report = run_bench(parsed.bench);
    write_output("-", parsed.bench.format == "json" ? render_bench_json(report) : render_bench_text(report));
    return 0;
  }

  if (o.list_stages) {
    write_output(o.output, list_stages());
    return 0;
  }

  // --text: make_walks tokenizes and embeds it, in place of these embeddings.
  Embeddings emb = o.text.given ? Embeddings{} : load_input(o);
  RenderOptions ro;
  std::vector<Walk> walks = make_walks(o, std::move(emb), &ro);
  ro.color = use_color(o);
  ro.width = terminal_width(o);

  if (o.list_steps) {
    // Each name once, in the order of its first step: stages that repeat steps (kv-cache per
    // generated token, flash per block of keys, all) would otherwise list names many times,
    // and --only keeps every step of a name anyway.
    std::string out;
    std::set<std::string> listed;
    for (const auto& w : walks)
      for (const auto& step : w.steps)
        if (listed.insert(step.name).second) out += step.name + "\n";
    write_output(o.output, out);
    return 0;
  }
  if (o.step && o.format == "text" && o.output == "-" && ::isatty(STDIN_FILENO))
    return run_stepwise(walks, ro);

  std::string doc;
  if (o.format == "json") {
    doc = render_json(walks);
  } else if (o.format == "html") {
    ro.page_data = page_data_json(walks, ro.lang, false);
    doc = render_html(walks, ro);
  } else {
    for (size_t i = 0; i < walks.size(); ++i) doc += (i ? "\n" : "") + render_text(walks[i], ro);
  }
  write_output(o.output, doc);
  if (o.stats) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::cerr << fmt::format("attn-walk: {} on {} tokens x {}: {:.2f} s, peak memory {:.0f} MiB\n",
                             o.stage, walks.front().config.num_tokens(), walks.front().config.d_in(), seconds,
                             peak_rss_mib());
  }
  return 0;
}

}  // namespace attn
