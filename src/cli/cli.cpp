// Running the command line: the walks (made by src/request/) and what is written (text, JSON,
// HTML, --step, --list-steps), attn-walk check and bench; run_cli is main()'s one call.
#include "cli/cli.h"
#include "cli/cli_detail.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <set>

#include "bench/bench.h"
#include "check/check.h"
#include "render/check_notebook.h"
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
#include "weights/gpt_weights.h"

namespace attn {

using namespace cli_detail;

namespace {

// One renderer per format, for the walks, check's report and bench's.
struct WalkRenderer {
  Format format;
  std::string (*render)(const std::vector<Walk>& walks, RenderOptions& ro);
};
const WalkRenderer kWalkRenderers[] = {
    {Format::Text,
     [](const std::vector<Walk>& walks, RenderOptions& ro) {
       std::string doc;
       for (size_t i = 0; i < walks.size(); ++i) doc += (i ? "\n" : "") + render_text(walks[i], ro);
       return doc;
     }},
    {Format::Json, [](const std::vector<Walk>& walks, RenderOptions&) { return render_json(walks); }},
    {Format::JsonCompact, [](const std::vector<Walk>& walks, RenderOptions&) { return render_json(walks, true); }},
    {Format::Html,
     [](const std::vector<Walk>& walks, RenderOptions& ro) {
       ro.page_data = page_data_json(walks, ro, false);
       return render_html(walks, ro);
     }},
};

struct CheckRenderer {
  CheckFormat format;
  std::string (*render)(const CheckReport& report, Lang lang);
};
const CheckRenderer kCheckRenderers[] = {{CheckFormat::Text, render_check_text},
                                         {CheckFormat::Json,
                                          [](const CheckReport& r, Lang lang) {
                                            return render_check_json(r, lang, config_record(r.config));
                                          }},
                                         {CheckFormat::Html, render_check_html}};

struct BenchRenderer {
  ReportFormat format;
  std::string (*render)(const BenchReport& report);
};
const BenchRenderer kBenchRenderers[] = {{ReportFormat::Text, render_bench_text},
                                         {ReportFormat::Json, render_bench_json}};

// The renderer of `format` in one of the tables above (each names every format of its enum).
template <class Table, class F>
auto renderer_for(const Table& table, F format) {
  for (const auto& r : table)
    if (r.format == format) return r.render;
  return std::begin(table)->render;
}

// attn-walk check: the stage from --stage or the dump, then the report. Exit 3 if a tensor differs.
int run_check(ParsedArgs& p) {
  const Options& o = p.o;
  const CheckOptions& c = p.check;
  WalkRequest r = o.walk;
  if (c.dump == "-" && r.input == "-")
    throw UsageError("--input: the dump already reads stdin ('-'); give the embeddings as a file");
  const Dump dump = load_dump(c.dump);
  r.keep_all_values = true;  // each value is graded
  // --weights without --stage chooses gpt (multi-head takes a weights file too, when it is named).
  const bool by_weights = !c.stage_given && !r.gpt.weights_path.empty();
  if ((c.stage_given && c.stage == StageChoice::Gpt) || by_weights) r.stage = StageChoice::Gpt;  // load_input reads --stage gpt's own text by default
  LoadedInput in = load_input(r);
  std::string chosen_by = by_weights ? "weights" : "option";
  // check's --stage is one of the stages (cli_options.cpp); make_config checks --heads for multi-head.
  r.stage = by_weights ? StageChoice::Gpt : StageChoice::DotProduct;
  if (c.stage_given) r.stage = c.stage;
  Config cfg = make_config(r, in);
  const std::string source = c.dump == "-" ? "<stdin>" : c.dump;
  // A whole notebook's dump: every stage it reaches, each graded on its own tensors.
  NotebookStages whole;
  if (!c.stage_given && !by_weights) whole = notebook_stages(dump, cfg);
  std::vector<CheckReport> reports;
  for (size_t k = 0; k < whole.stages.size(); ++k) {
    r.stage = whole.stages[k];
    reports.push_back(check_dump(whole.dumps[k], make_config(r, in), enum_name(r.stage), "notebook", c.tol, source, &whole));
  }
  if (!c.stage_given && !by_weights && reports.empty()) {
    r.stage = choose_stage(dump, cfg, &chosen_by);
    cfg = make_config(r, std::move(in));
  }
  if (reports.empty()) reports.push_back(check_dump(dump, cfg, enum_name(r.stage), chosen_by, c.tol, source));
  CheckReport& report = reports[leading_report(reports)];
  // The command the report suggests keeps the learner's options (shell-quoted where needed).
  const auto shell_word = [](const std::string& a) {
    if (!a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,/+=:") == std::string::npos)
      return a;
    std::string quoted = "'";
    for (const char ch : a) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return quoted + "'";
  };
  for (const auto& [row, value] : p.check_walk_args) {
    report.walk_options += " --" + row->long_name();
    // A Config field's value as the walk spells it (CLI11 keeps an enum's number).
    const std::string v = !value.empty() && row->in_config() && row->from_config ? row->from_config(cfg) : value;
    if (!v.empty()) report.walk_options += " " + shell_word(v);
  }
  Lang lang;
  parse_lang(r.lang, &lang);
  for (CheckReport& each : reports) each.walk_options = report.walk_options;
  const auto render = renderer_for(kCheckRenderers, c.format);
  if (reports.size() == 1) {
    write_output(o.output, render(report, lang));
    return report.passed() ? 0 : 3;
  }
  const auto whole_document = c.format == CheckFormat::Json   ? notebook_check_json
                              : c.format == CheckFormat::Html ? notebook_check_html
                                                              : notebook_check_text;
  write_output(o.output, whole_document(reports, lang, render));
  return std::all_of(reports.begin(), reports.end(), [](const CheckReport& each) { return each.passed(); }) ? 0 : 3;
}

// attn-walk bench: the timings, as text or JSON on stdout.
int run_bench_command(ParsedArgs& p) {
  check_bench(p.bench);
  BenchReport report;
  try {
    report = run_bench(p.bench);
  } catch (const WeightsError& e) {  // --gpt's file, or --tokens past its context (usage)
    if (e.usage) throw UsageError(e.what());
    throw InputError(e.what());
  }
  write_output("-", renderer_for(kBenchRenderers, p.bench_format)(report));
  return 0;
}

bool use_color(const Options& o) {
  if (o.color == ColorMode::Always) return true;
  if (o.color == ColorMode::Never) return false;
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

// The walk: --list-stages, --list-steps, --step, or the walks in --format.
int run_walk(ParsedArgs& p) {
  const auto started = std::chrono::steady_clock::now();
  Options& o = p.o;
  Lang lang = Lang::En;
  parse_lang(o.walk.lang, &lang);
  for (const UnusedOption& u : p.unused)
    std::cerr << ui_text(lang, "cli.note")
              << fill_placeholders(ui_text(lang, "cli.unused_option"),
                                   {{"option", u.option}, {"stage", u.stage}, {"only", u.only}})
              << "\n";
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
  if (o.step && o.format == Format::Text && o.output == "-" && ::isatty(STDIN_FILENO))
    return run_stepwise(walks, ro);

  write_output(o.output, renderer_for(kWalkRenderers, o.format)(walks, ro));
  if (o.stats) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::cerr << fmt::format("attn-walk: {} on {} tokens x {}: {:.2f} s, peak memory {:.0f} MiB\n",
                             enum_name(o.walk.stage), walks.front().config.num_tokens(), walks.front().config.d_in(), seconds,
                             peak_rss_mib());
  }
  return 0;
}

}  // namespace

int run_cli(int argc, char** argv) {
  ParsedArgs parsed;
  const Commands commands{run_walk, run_bench_command, run_check};
  if (const auto code = parse_args(argc, argv, parsed, commands, /*print=*/true)) return *code;
  return parsed.command(parsed);
}

}  // namespace attn
