// The command line's options: their CLI11 binding (the walk, bench and check), parsing, and
// the checks that refuse misuse before anything is read or run.
#include "cli/cli.h"
#include "cli/cli_detail.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench.h"
#include "check/check.h"
#include "input/embeddings.h"
#include "lang/lang.h"
#include "input/size_limits.h"
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

std::vector<std::string> stage_choices() {
  std::vector<std::string> names;
  for (const auto& s : all_stages()) names.push_back(s.name);
  names.push_back("all");
  names.push_back("bonus");
  return names;
}

// The options that decide the walk's numbers, which `check` takes too.
void bind_walk_options(CLI::App& app, Options& o) {
  auto* input = app.add_option("-i,--input", o.input,
                               "Embeddings (.json or .npy); '-' reads JSON from stdin "
                               "(default: the chapter's six tokens)");
  auto* random_input = app.add_option("--random-input", o.random_input,
                 "TxD: use torch.randn(T, D) embeddings drawn after torch.manual_seed(seed)")
      ->excludes(input);
  bind_text_options(app, o.text, {input, random_input});
  app.add_option("-q,--query", o.query, "The query token x(N), 1-based (the chapter uses x(2))")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "Replace both seeds (123 and 789) with S");
  app.add_option("--d-out", o.d_out, "Output width of W_query/W_key/W_value (at least 1)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 16))
      ->capture_default_str();
  app.add_option("--heads", o.heads, "Number of attention heads (multi-head; must divide --d-out)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 16))
      ->capture_default_str();
  app.add_option("--dropout", o.dropout, "Dropout rate of the dropout demonstrations, in [0, 1]")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--attn-dropout", o.attn_dropout,
                 "Dropout rate inside CausalAttention and the multi-head modules, in [0, 1]")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--batch", o.batch, "How many copies of the inputs form the batch (at least 1)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 16))
      ->capture_default_str();
  app.add_flag("--qkv-bias", o.qkv_bias, "Give the nn.Linear W_query/W_key/W_value a bias");
  app.add_option("--init", o.init, "nn.Parameter(torch.rand(...)) or torch.randn(...)")
      ->check(CLI::IsMember({"rand", "randn"}))
      ->capture_default_str();
  app.add_option("--dropout-rng", o.dropout_rng,
                 "Which PyTorch dropout kernel to reproduce: default (the book) or mkl (Intel)")
      ->check(CLI::IsMember({"default", "mkl"}))
      ->capture_default_str();
  app.add_option("--softmax-dim", o.causal_softmax.dim,
                 "CausalAttention's softmax: -1 over the keys (the chapter) or 1 over the queries "
                 "(the first ch03.ipynb, as exercise 3.2's solution prints)")
      ->check(CLI::IsMember({int64_t{-1}, int64_t{1}}))
      ->capture_default_str();
  app.add_option("--torch-threads", o.causal_softmax.torch_threads,
                 "torch.get_num_threads() of the PyTorch run to match (only --softmax-dim 1 depends on it)")
      ->check(CLI::Range(int64_t{1}, int64_t{1024}))
      ->capture_default_str();
}

void bind(CLI::App& app, Options& o) {
  app.description("Walk through chapter 3 of 'Build a Large Language Model (From Scratch)': "
                  "every attention tensor, printed as PyTorch prints it.");
  app.footer(kExamples);
  app.set_version_flag("--version", std::string("attn-walk ") + ATTN_WALK_VERSION);

  app.add_option("-s,--stage", o.stage, fmt::format("Which part of the chapter to walk: {}", fmt::join(stage_choices(), ", ")))
      ->check(CLI::IsMember(stage_choices()))
      ->capture_default_str();
  app.add_option("-f,--format", o.format, "Output format: text, json or html")
      ->check(CLI::IsMember({"text", "json", "html"}))
      ->capture_default_str();
  app.add_option("-o,--output", o.output, "Write to FILE (whole or not at all); '-' is stdout")
      ->capture_default_str();
  app.add_flag("--list-stages", o.list_stages, "List the stages and exit");
  app.add_flag("--list-steps", o.list_steps, "List the step names of --stage, one per line, and exit");
  app.add_option("--only", o.only, "Keep only these steps (comma-separated names, see --list-steps)")
      ->delimiter(',');

  bind_walk_options(app, o);

  // The bonus stages (beyond chapter 3).
  app.add_option("--kv-groups", o.bonus.kv_groups,
                 "Key/value groups of GroupedQueryAttention (gqa; must divide --heads)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 16))
      ->capture_default_str();
  app.add_option("--window", o.bonus.window, "Sliding-window size in tokens (swa; at least 1)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20))
      ->capture_default_str();
  app.add_option("--rope-base", o.bonus.rope_base, "RoPE's theta_base (rope), in [1, 1e12]")
      ->check(CLI::Range(1.0, 1.0e12))
      ->capture_default_str();
  app.add_option("--block", o.bonus.block, "Keys per block of flash attention (flash; at least 1)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20))
      ->capture_default_str();
  app.add_option("--latent-dim", o.bonus.latent_dim,
                 "Latent size of MultiHeadLatentAttention (mla; at least 1)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 16))
      ->capture_default_str();

  // The backward stage's training loop.
  app.add_option("--steps", o.train.steps, "Training steps of the backward stage (at least 1)")
      ->check(CLI::Range(int64_t{1}, int64_t{100000}))
      ->capture_default_str();
  app.add_option("--lr", o.train.lr, "Learning rate of the backward stage's optimizer, in (0, 10]")
      ->check(CLI::Range(1e-12, 10.0))
      ->capture_default_str();
  app.add_option("--weight-decay", o.train.weight_decay, "AdamW's weight decay (backward), in [0, 10]")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  app.add_option("--optimizer", o.optimizer, "Optimizer of the backward stage: adamw or sgd")
      ->check(CLI::IsMember({"adamw", "sgd"}))
      ->capture_default_str();

  app.add_flag("--explain", o.explain, "Explain each step: what, why, and how shapes change");
  app.add_option("--lang", o.lang, fmt::format("Language of headings and explanations: {}", fmt::join(lang_codes(), ", ")))
      ->check(CLI::IsMember(lang_codes()))
      ->capture_default_str();
  app.add_flag("--heatmap", o.heatmap, "Draw attention matrices in the terminal");
  app.add_option("--heatmap-scale", o.heatmap_scale,
                 "Heatmap colours: fixed (weights and masks on 0 to 1, scores on the step's range) "
                 "or matrix (each matrix from its smallest to its largest value)")
      ->check(CLI::IsMember({"fixed", "matrix"}))
      ->capture_default_str();
  app.add_option("--color", o.color, "Colour: auto (terminal only, honours NO_COLOR), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  app.add_flag("--step", o.step, "Pause after each step until Enter ('q' quits); terminals only");
  app.add_flag("--stats", o.stats, "Report the time taken and the peak memory on stderr");
  app.add_option("--max-input-mb", o.max_input_mb, "Refuse input files and streams larger than N MiB")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 20))
      ->capture_default_str();
}

void bind_bench(CLI::App& bench, BenchOptions& b) {
  bench.description("Time the efficient MultiHeadAttention forward (causal, dropout 0) on "
                    "torch.randn(B, T, D) input, in PyTorch's order, and report the result's sums.");
  const auto positive = CLI::Range(int64_t{1}, int64_t{1} << 20);
  bench.add_option("--tokens", b.tokens, "T, the number of tokens")->check(positive)->capture_default_str();
  bench.add_option("--d-model", b.d_model, "D = d_in = d_out")->check(positive)->capture_default_str();
  bench.add_option("--heads", b.heads, "H (must divide D)")->check(positive)->capture_default_str();
  bench.add_option("--batch", b.batch, "B")->check(positive)->capture_default_str();
  bench.add_option("--repeat", b.repeat, "Timed forwards after one warm-up")->check(positive)->capture_default_str();
  bench.add_option("--threads", b.threads, "Threads (0: all cores)")
      ->check(CLI::Range(int64_t{0}, int64_t{1024}))
      ->capture_default_str();
  bench.add_option("--seed", b.seed, "torch.manual_seed before randn and the module")->capture_default_str();
  bench.add_option("--format", b.format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  bench.add_flag("!--no-probe", b.probe, "Skip the FMA probe that measures the machine's peak");
  bench.add_option("--save-output", b.save_output, "Write the output y to FILE as .npy (float32)");
}

void bind_check(CLI::App& check, CheckOptions& c, Options& o) {
  check.description("Grade your own tensors (a JSON dump {\"step_name\": [...], ...}) against the walk: "
                    "the first step that differs, and the known mistake that reproduces it. "
                    "Exit 0: all equal or close; 3: something differs.");
  check.add_option("dump", c.dump, "The dump (JSON; '-' reads stdin): see tools/attn_walk_dump.py")->required();
  std::vector<std::string> stages;
  for (const auto& s : all_stages()) stages.push_back(s.name);
  check.add_option("-s,--stage", c.stage, "The stage to grade (default: the one whose steps the dump names most)")
      ->check(CLI::Validator(
          [stages](std::string& v) {  // as for a misspelled step name: the closest stage
            if (std::find(stages.begin(), stages.end(), v) != stages.end()) return std::string();
            return fmt::format("{} is not a stage; did you mean {}? (attn-walk --list-stages lists them)", v,
                               closest_name(v, stages));
          },
          fmt::format("{{{}}}", fmt::join(stages, ","))));
  check.add_option("-f,--format", c.format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  check.add_option("-o,--output", o.output, "Write to FILE (whole or not at all); '-' is stdout")->capture_default_str();
  check.add_option("--lang", o.lang, fmt::format("Language of the report: {}", fmt::join(lang_codes(), ", ")))
      ->check(CLI::IsMember(lang_codes()))
      ->capture_default_str();
  check.add_option("--rtol", c.tol.rtol, "Relative tolerance of 'close'")->check(CLI::Range(0.0, 1e30))->capture_default_str();
  check.add_option("--atol", c.tol.atol, "Absolute tolerance of 'close'")->check(CLI::Range(0.0, 1e30))->capture_default_str();
  bind_walk_options(check, o);
}

}  // namespace

// "1024x768" -> {1024, 768}
std::pair<int64_t, int64_t> parse_size(const std::string& s) {
  const auto x = s.find('x');
  try {
    if (x == std::string::npos) throw std::invalid_argument("no x");
    size_t used1 = 0, used2 = 0;
    const long long t = std::stoll(s.substr(0, x), &used1);
    const long long d = std::stoll(s.substr(x + 1), &used2);
    if (used1 != x || used2 != s.size() - x - 1 || t < 1 || d < 1 || t > (1 << 20) || d > (1 << 20))
      throw std::invalid_argument("range");
    return {t, d};
  } catch (const std::exception&) {
    throw UsageError("--random-input: expected TxD with positive sizes, e.g. 1024x768, got '" + s + "'");
  }
}

// Checks that need the input (token count) or several options together.
void check_walk_options(const Options& o, int64_t T) {
  bool chapter = false;  // the bonus stages have no query token
  for (const auto& s : all_stages()) chapter |= stage_selected(s, o.stage) && s.group == StageGroup::Chapter;
  if (chapter && (o.query < 1 || o.query > T))
    throw UsageError(fmt::format("--query: must be between 1 and {} (the number of tokens), got {}",
                                 T, o.query));
  if ((o.stage == "multi-head" || o.stage == "all") && o.d_out % o.heads != 0)
    throw UsageError(fmt::format(
        "--heads: MultiHeadAttention needs --d-out divisible by --heads, got d_out {} and {} heads",
        o.d_out, o.heads));
}

// Refuses, before anything is allocated, a walk whose tensors cannot fit in memory (exit 1:
// the options are well formed, the machine is too small for them, as with a huge input).
void check_walk_fits(const Options& o, int64_t T, int64_t d_in, const std::string& what) {
  WalkSize w;
  w.stage = o.stage;
  w.format = o.format;
  w.tokens = static_cast<double>(T);
  w.d_in = static_cast<double>(d_in);
  w.d_out = static_cast<double>(o.d_out);
  w.heads = static_cast<double>(o.heads);
  w.batch = static_cast<double>(o.batch);
  check_fits(w, what);
}

void check_bench(const BenchOptions& b) {
  if (b.d_model % b.heads != 0)
    throw UsageError(fmt::format("--heads: must divide --d-model, got d_model {} and {} heads", b.d_model, b.heads));
  WalkSize w;
  w.stage = "bench";
  w.format = "text";
  w.tokens = static_cast<double>(b.tokens);
  w.d_in = w.d_out = static_cast<double>(b.d_model);
  w.heads = static_cast<double>(b.heads);
  w.batch = static_cast<double>(b.batch);
  check_fits(w, "bench");
}

// Parses argv. Returns an exit code when parsing finished the run (--help, --version),
// having printed it only with `print`; throws UsageError for misuse.
std::optional<int> parse_args(int argc, char** argv, ParsedArgs& p, bool print) {
  CLI::App app{"", "attn-walk"};
  bind(app, p.o);
  CLI::App* bench = app.add_subcommand("bench", "Benchmark GPT-2-sized MultiHeadAttention");
  bind_bench(*bench, p.bench);
  CLI::App* check = app.add_subcommand("check", "Grade your own tensors against the walk and name the mistake");
  bind_check(*check, p.check, p.o);
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
  p.is_bench = bench->parsed();
  p.is_check = check->parsed();
  // check takes the walk's options on its own command line.
  const CLI::App& walk_app = p.is_check ? *check : app;
  p.o.seed_given = walk_app.count("--seed") > 0;
  p.o.d_out_given = walk_app.count("--d-out") > 0;
  p.o.heads_given = walk_app.count("--heads") > 0;
  p.o.query_given = walk_app.count("--query") > 0;
  p.o.text.given = walk_app.count("--text") + walk_app.count("--text-file") > 0;
  return std::nullopt;
}

}  // namespace cli_detail

using namespace cli_detail;

namespace {

void throw_usage(const CLI::ParseError& e) { throw UsageError(e.what()); }

}  // namespace

Options parse_walk_options(const std::vector<std::string>& args) {
  CLI::App app{"", "attn-walk"};
  Options o;
  bind(app, o);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw_usage(e);
  }
  o.seed_given = app.count("--seed") > 0;
  o.d_out_given = app.count("--d-out") > 0;
  o.heads_given = app.count("--heads") > 0;
  o.query_given = app.count("--query") > 0;
  o.text.given = app.count("--text") + app.count("--text-file") > 0;
  return o;
}

std::string options_json() {
  CLI::App app{"", "attn-walk"};
  Options o;
  bind(app, o);
  nlohmann::json list = nlohmann::json::array();
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_lnames().empty()) continue;
    // CLI11 writes IsMember's choices into the type name: "TEXT:{rand,randn}".
    std::string type = opt->get_type_name();
    std::vector<std::string> choices;
    const auto brace = type.find(":{");
    if (brace != std::string::npos && type.back() == '}') {
      std::string inner = type.substr(brace + 2, type.size() - brace - 3);
      for (size_t p = 0; p <= inner.size();) {
        const size_t comma = std::min(inner.find(',', p), inner.size());
        choices.push_back(inner.substr(p, comma - p));
        p = comma + 1;
      }
      type = type.substr(0, brace);
    }
    list.push_back({{"name", opt->get_lnames().front()},
                    {"flag", opt->get_expected_min() == 0},
                    {"type", type},
                    {"choices", choices},
                    {"default", opt->get_default_str()},
                    {"help", opt->get_description()}});
  }
  return list.dump();
}

void check_cli(const std::vector<std::string>& args) {
  std::vector<std::string> strings{"attn-walk"};
  strings.insert(strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  ParsedArgs parsed;
  if (parse_args(static_cast<int>(strings.size()), argv.data(), parsed, /*print=*/false)) return;
  const Options& o = parsed.o;
  if (parsed.is_bench) return check_bench(parsed.bench);
  if (parsed.is_check || o.list_stages) return;
  if (!o.random_input.empty()) {
    const auto [T, D] = parse_size(o.random_input);
    check_walk_fits(o, T, D, "--random-input " + o.random_input);
    check_walk_options(o, T);
  } else if (o.input.empty()) {
    const Embeddings emb = builtin_journey();
    check_walk_fits(o, emb.inputs.size(0), emb.inputs.size(1), "<built-in>");
    check_walk_options(o, emb.inputs.size(0));
  }
}

}  // namespace attn
