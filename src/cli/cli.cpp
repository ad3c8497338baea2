// Running the command line: the walks (made by src/request/) and what is written (text, JSON,
// HTML, --step, --list-steps), attn-walk check and bench; run_cli is main()'s one call.
#include "cli/cli.h"
#include "cli/cli_detail.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <set>

#include "bench/bench.h"
#include "check/check.h"
#include "core/output.h"
#include "input/input_stream.h"
#include "lang/lang.h"
#include "render/bench.h"
#include "render/check.h"
#include "render/check_html.h"
#include "render/render.h"
#include "request/request.h"
#include "stages/stages.h"
#include "web/page_data.h"

namespace attn {

using namespace cli_detail;

namespace {

// attn-walk check: the stage from --stage or the dump, then the report. Exit 3 if a tensor differs.
int run_check(const Options& o, const CheckOptions& c) {
  WalkRequest r = o.walk;
  if (c.dump == "-" && r.input == "-")
    throw UsageError("--input: the dump already reads stdin ('-'); give the embeddings as a file");
  const Dump dump = load_dump(c.dump);
  r.keep_all_values = true;  // each value is graded
  LoadedInput in = load_input(r);
  std::string chosen_by = "option";
  r.stage = c.stage.empty() ? "dot-product" : c.stage;  // make_config checks --heads for multi-head
  Config cfg = make_config(r, in);
  if (c.stage.empty()) {
    r.stage = choose_stage(dump, cfg, &chosen_by);
    cfg = make_config(r, std::move(in));
  }
  const CheckReport report = check_dump(dump, cfg, r.stage, chosen_by, c.tol, c.dump == "-" ? "<stdin>" : c.dump);
  Lang lang;
  parse_lang(r.lang, &lang);
  write_output(o.output, c.format == "json"   ? render_check_json(report, lang)
                         : c.format == "html" ? render_check_html(report, lang)
                                              : render_check_text(report, lang));
  return report.passed() ? 0 : 3;
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

  set_document(o);
  RenderOptions ro;
  std::vector<Walk> walks = make_walks(o.walk, &ro);
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
  if (o.format == "json" || o.format == "json-compact") {
    doc = render_json(walks, o.format == "json-compact");
  } else if (o.format == "html") {
    ro.page_data = page_data_json(walks, ro, false);
    doc = render_html(walks, ro);
  } else {
    for (size_t i = 0; i < walks.size(); ++i) doc += (i ? "\n" : "") + render_text(walks[i], ro);
  }
  write_output(o.output, doc);
  if (o.stats) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::cerr << fmt::format("attn-walk: {} on {} tokens x {}: {:.2f} s, peak memory {:.0f} MiB\n",
                             o.walk.stage, walks.front().config.num_tokens(), walks.front().config.d_in(), seconds,
                             peak_rss_mib());
  }
  return 0;
}

}  // namespace attn
