// The command line's options: their CLI11 binding (the walk, bench and check), parsing, and
// the checks that refuse misuse before anything is read or run. The walk's own options are
// the table's (src/request/option_table.cpp).
#include "cli/cli.h"
#include "cli/cli_detail.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "check/check.h"
#include "input/size_limits.h"
#include "lang/lang.h"
#include "request/option_table.h"
#include "stages/stages.h"

namespace attn {

namespace cli_detail {

namespace {

const char* kExamples = R"(
Examples:
  attn-walk                                    the dot-product walk on "Your journey starts with one step"
  attn-walk --stage causal --input data/journey.json
  attn-walk --stage softmax --query 3 --explain    x(3) "starts" as the query, with explanations
  attn-walk --stage causal --heatmap --lang zh     heatmaps, explained in Chinese
  attn-walk --stage dropout --dropout-rng mkl      the masks learners on Intel machines see
  attn-walk --stage multi-head --d-out 4 --heads 2 --qkv-bias
  attn-walk --stage all --format html --output walk.html
  attn-walk --stage trainable --format json --only W_query,sa_v1_output
  echo '[[1, 0], [0, 1], [1, 1]]' | attn-walk --input - --stage causal
  attn-walk --stage multi-head --random-input 1024x768 --d-out 768 --heads 12
  attn-walk bench --tokens 1024 --d-model 768 --heads 12 --threads 2
  attn-walk check mine.json --stage causal         grade your own tensors, name the mistake

Input: {"tokens": [...], "embeddings": [[...], ...]}, a bare 2-D array of numbers, or .npy.
Exit codes: 0 success, 1 bad input data or unwritable output, 2 misuse of options;
check: 3 when one of your tensors differs.
Colour: --color auto uses it only on a terminal, and never when NO_COLOR is set.
)";

// check's and bench's --format, bound to their enums: "text or json" (check: "text, json or html").
template <class F>
void add_report_format(CLI::App& app, const std::string& names, F& format) {
  std::string choices;
  const auto& all = enum_names(F{});
  for (size_t i = 0; i < all.size(); ++i)
    choices += (i == 0 ? "" : i + 1 == all.size() ? " or "
                                                  : ", ") +
               std::string(all[i].name);
  app.add_option(names, format, choices)
      ->transform(enum_check<F>())
      ->type_name("TEXT")
      ->default_str(enum_name(format));
}

void bind(CLI::App& app, Options& o) {
  app.description("Walk through chapter 3 of 'Build a Large Language Model (From Scratch)': "
                  "every attention tensor, printed as PyTorch prints it.");
  app.footer(kExamples);
  app.set_version_flag("--version", std::string("attn-walk ") + ATTN_WALK_VERSION);
  bind_options(app, o, OptionScope::Walk);  // src/request/option_table.cpp
}

// bench's and check's own options' value names for the man page, README and completions
// (the walk's are the table's OptionRow::metavar).
const std::map<std::string, std::string>& bench_metavars() {
  // clang-format off
  static const std::map<std::string, std::string> m = {{"tokens", "T"},   {"d-model", "D"},  {"heads", "H"},
                                                       {"batch", "B"},    {"repeat", "R"},   {"threads", "N"},
                                                       {"seed", "S"},     {"save-output", "FILE"},
                                                       {"weights", "FILE"}};
  // clang-format on
  return m;
}
const std::map<std::string, std::string>& check_metavars() {
  static const std::map<std::string, std::string> m = {
      {"dump", "DUMP"}, {"stage", "STAGE"}, {"output", "FILE"}, {"rtol", "R"}, {"atol", "A"}};
  return m;
}

void bind_bench(CLI::App& bench, BenchOptions& b, ReportFormat& format) {
  bench.description("Time the efficient MultiHeadAttention forward (causal, dropout 0) on "
                    "torch.randn(B, T, D) input, in PyTorch's order, and report the result's sums.");
  const auto positive = range_check<int64_t>(1, int64_t{1} << 20);
  bench.add_option("--tokens", b.tokens, "T, the number of tokens")->check(positive)->capture_default_str();
  bench.add_option("--d-model", b.d_model, "D = d_in = d_out")->check(positive)->capture_default_str();
  bench.add_option("--heads", b.heads, "H (must divide D)")->check(positive)->capture_default_str();
  bench.add_option("--batch", b.batch, "B")->check(positive)->capture_default_str();
  bench.add_option("--repeat", b.repeat, "Timed forwards after one warm-up")->check(positive)->capture_default_str();
  bench.add_option("--threads", b.threads, "Threads (0: all cores)")
      ->check(range_check<int64_t>(0, 1024))
      ->capture_default_str();
  bench.add_option("--seed", b.seed, "torch.manual_seed before randn and the module")
      ->check(seed_check())
      ->capture_default_str();
  add_report_format(bench, "--format", format);
  bench.add_flag("!--no-probe", b.probe, "Skip the FMA probe that measures the machine's peak");
  bench.add_option("--save-output", b.save_output, "Write the output y to FILE as .npy (float32)");
  bench.add_flag("--gpt", b.gpt,
                 "Time chapter 4's whole GPTModel forward (every block, final_norm, out_head) on --weights, "
                 "bit for bit the --stage gpt walk's logits; --heads is the model's head count");
  bench.add_option("--weights", b.weights, "The GPT-2 weights file --gpt runs (the formats of --stage gpt)");
  bench.add_flag("--backward", b.backward,
                 "Time the forward plus y.backward(grad_y), grad_y = torch.randn_like(y): the gradients of x, "
                 "W_query, W_key, W_value and out_proj, each reported by digest (and with --save-output, each "
                 "saved beside y as FILE.<name>.npy)");
}

void bind_check(CLI::App& check, CheckOptions& c, Options& o) {
  check.description("Grade your own tensors (a JSON dump {\"step_name\": [...], ...}) against the walk: "
                    "the first step that differs, and the known mistake that reproduces it. "
                    "Exit 0: all equal or close; 3: something differs.");
  check.add_option("dump", c.dump, "The dump (JSON; '-' reads stdin): see tools/attn_walk_dump.py")->required();
  std::vector<std::string> stages;  // one stage: check grades no group (all, bonus)
  for (const auto& s : all_stages()) stages.push_back(s.name);
  // Bound as the walk's --stage is (a StageChoice by its name), refusing a group or a
  // misspelling as a misspelled step name is: with the closest stage.
  check.add_option("-s,--stage", c.stage, "The stage to grade (default: the one whose steps the dump names most)")
      ->transform(CLI::Validator(
          [stages](std::string& v) {
            StageChoice choice = StageChoice::DotProduct;
            if (std::find(stages.begin(), stages.end(), v) != stages.end() && parse_stage_choice(v, &choice)) {
              v = std::to_string(static_cast<int>(choice));  // CLI11 reads the enum as its number
              return std::string();
            }
            return fmt::format("{} is not a stage; did you mean {}? (attn-walk --list-stages lists them)", v,
                               closest_name(v, stages));
          },
          fmt::format("{{{}}}", fmt::join(stages, ","))))
      ->type_name("TEXT");
  add_report_format(check, "-f,--format", c.format);
  check.add_option("-o,--output", o.output, "Write to FILE (whole or not at all); '-' is stdout")->capture_default_str();
  check.add_option("--lang", o.walk.lang, fmt::format("Language of the report: {}", fmt::join(lang_codes(), ", ")))
      ->check(CLI::IsMember(lang_codes()))
      ->capture_default_str();
  check.add_option("--rtol", c.tol.rtol, "Relative tolerance of 'close'")->check(range_check(0.0, kNoUpperBound))->capture_default_str();
  check.add_option("--atol", c.tol.atol, "Absolute tolerance of 'close'")->check(range_check(0.0, kNoUpperBound))->capture_default_str();
  bind_options(check, o, OptionScope::Check);
}

}  // namespace

void check_bench(const BenchOptions& b) {
  if (b.gpt && b.weights.empty()) throw UsageError("--gpt: needs --weights FILE (a GPT-2 model, as --stage gpt reads)");
  if (!b.gpt && !b.weights.empty()) throw UsageError("--weights: bench reads a weights file only with --gpt");
  if (b.gpt && b.backward) throw UsageError("--backward: not with --gpt (the GPT bench times the forward)");
  if (b.gpt) return;  // the sizes are the file's: run_gpt_bench checks --tokens against its context
  if (b.d_model % b.heads != 0)
    throw UsageError(fmt::format("--heads: must divide --d-model, got d_model {} and {} heads", b.d_model, b.heads));
  WalkSize w;
  w.name = "bench";
  w.walks = {CostedWalk::Bench};  // and its text report
  w.tokens = static_cast<double>(b.tokens);
  w.d_in = w.d_out = static_cast<double>(b.d_model);
  w.heads = static_cast<double>(b.heads);
  w.batch = static_cast<double>(b.batch);
  check_fits(w, "bench");
}

void bind_all(CLI::App& app, ParsedArgs& p, const Commands& commands) {
  bind(app, p.o);
  p.command = commands.walk;
  CLI::App* bench = app.add_subcommand("bench", "Benchmark GPT-2-sized MultiHeadAttention");
  bind_bench(*bench, p.bench, p.bench_format);
  bench->callback([&p, commands] { p.command = commands.bench; });
  CLI::App* check = app.add_subcommand("check", "Grade your own tensors against the walk and name the mistake");
  bind_check(*check, p.check, p.o);
  // check takes the walk's options on its own command line.
  check->callback([&p, check, commands] {
    mark_given(*check, p.o);
    p.check.stage_given = check->count("--stage") > 0;
    p.command = commands.check;
  });
  // After the subcommands' callbacks (CLI11 runs the main app's last).
  app.callback([&p, &app] {
    mark_given(app, p.o);
    p.unused = unused_by_stage(app, p.o.walk.stage);
  });
}

std::string own_metavar(const std::string& command, const std::string& long_name) {
  const auto& m = command == "bench" ? bench_metavars() : check_metavars();
  const auto it = m.find(long_name);
  return it == m.end() ? std::string() : it->second;
}

// Parses argv. Returns an exit code when parsing finished the run (--help, --version),
// having printed it only with `print`; throws UsageError for misuse.
std::optional<int> parse_args(int argc, char** argv, ParsedArgs& p, const Commands& commands, bool print) {
  CLI::App app{"", "attn-walk"};
  bind_all(app, p, commands);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return print ? app.exit(e) : 0;
  } catch (const CLI::CallForAllHelp& e) {
    return print ? app.exit(e) : 0;
  } catch (const CLI::CallForVersion& e) {
    return print ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  // attn-walk check: the walk's options given, as given, for the command the report suggests.
  const CLI::App* check = nullptr;
  for (const CLI::App* sub : app.get_subcommands())  // those parsed
    if (sub->get_name() == "check") check = sub;
  if (check)
    for (const auto& row : option_table()) {
      const CLI::Option* opt = row.in_check ? check->get_option_no_throw("--" + row.long_name()) : nullptr;
      if (!opt || opt->count() == 0) continue;
      std::string value;  // none for a flag
      if (opt->get_expected_max() != 0)
        for (const auto& v : opt->results()) value += (value.empty() ? "" : std::string(1, row.delimiter ? row.delimiter : ' ')) + v;
      p.check_walk_args.emplace_back(&row, value);
    }
  return std::nullopt;
}

}  // namespace cli_detail

using namespace cli_detail;

namespace {

// check_cli's commands: what run_cli checks before it reads a file or runs anything.
int check_walk_command(ParsedArgs& p) {
  Options o = p.o;
  set_document(o);
  // --input and --text are read only when the walk runs.
  const WalkRequest& r = o.walk;
  if (o.list_stages || r.text.given || !r.input.empty()) return 0;
  if (r.random_input.empty()) {
    make_config(r, load_input(r));  // the chapter's six tokens
    return 0;
  }
  const auto [T, D] = parse_size(r.random_input);
  check_walk_fits(r, T, D, "--random-input " + r.random_input);
  Config c;
  c.inputs.shape = {T, D};  // the sizes alone: nothing is drawn
  set_knobs(r, c);
  check_walk_options(r, c);
  return 0;
}

int check_bench_command(ParsedArgs& p) {
  check_bench(p.bench);
  return 0;
}

int check_check_command(ParsedArgs&) { return 0; }  // the dump is read only when check runs

}  // namespace

void check_cli(const std::vector<std::string>& args) {
  std::vector<std::string> strings{"attn-walk"};
  strings.insert(strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  ParsedArgs parsed;
  const Commands checks{check_walk_command, check_bench_command, check_check_command};
  if (parse_args(static_cast<int>(strings.size()), argv.data(), parsed, checks, /*print=*/false)) return;
  parsed.command(parsed);
}

const std::vector<EnumName<ReportFormat>>& enum_names(ReportFormat) {
  static const std::vector<EnumName<ReportFormat>> names = {{"text", ReportFormat::Text},
                                                            {"json", ReportFormat::Json}};
  return names;
}

const std::vector<EnumName<CheckFormat>>& enum_names(CheckFormat) {
  static const std::vector<EnumName<CheckFormat>> names = {
      {"text", CheckFormat::Text}, {"json", CheckFormat::Json}, {"html", CheckFormat::Html}};
  return names;
}

}  // namespace attn
