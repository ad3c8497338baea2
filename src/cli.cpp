#include "cli.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <set>

#include "bench/bench.h"
#include "embeddings.h"
#include "input_stream.h"
#include "limits.h"
#include "lang/lang.h"
#include "output.h"
#include "render/render.h"
#include "stages/stages.h"
#include "torch_random.h"

namespace attn {

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

Input: {"tokens": [...], "embeddings": [[...], ...]}, a bare 2-D array of numbers, or .npy.
Exit codes: 0 success, 1 bad input data or unwritable output, 2 misuse of options.
Colour: --color auto uses it only on a terminal, and never when NO_COLOR is set.
)";

std::vector<std::string> stage_choices() {
  std::vector<std::string> names;
  for (const auto& s : all_stages()) names.push_back(s.name);
  names.push_back("all");
  return names;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

void bind(CLI::App& app, Options& o) {
  app.description("Walk through chapter 3 of 'Build a Large Language Model (From Scratch)': "
                  "every attention tensor, printed as PyTorch prints it.");
  app.footer(kExamples);
  app.set_version_flag("--version", std::string("attn-walk ") + ATTN_WALK_VERSION);

  app.add_option("-s,--stage", o.stage, "Which part of the chapter to walk: " + join(stage_choices(), ", "))
      ->check(CLI::IsMember(stage_choices()))
      ->capture_default_str();
  auto* input = app.add_option("-i,--input", o.input,
                               "Embeddings (.json or .npy); '-' reads JSON from stdin "
                               "(default: the chapter's six tokens)");
  app.add_option("--random-input", o.random_input,
                 "TxD: use torch.randn(T, D) embeddings drawn after torch.manual_seed(seed)")
      ->excludes(input);
  app.add_option("-f,--format", o.format, "Output format: text, json or html")
      ->check(CLI::IsMember({"text", "json", "html"}))
      ->capture_default_str();
  app.add_option("-o,--output", o.output, "Write to FILE (whole or not at all); '-' is stdout")
      ->capture_default_str();
  app.add_flag("--list-stages", o.list_stages, "List the stages and exit");
  app.add_flag("--list-steps", o.list_steps, "List the step names of --stage, one per line, and exit");
  app.add_option("--only", o.only, "Keep only these steps (comma-separated names, see --list-steps)")
      ->delimiter(',');

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

  app.add_flag("--explain", o.explain, "Explain each step: what, why, and how shapes change");
  app.add_option("--lang", o.lang, "Language of headings and explanations: " + join(lang_codes(), ", "))
      ->check(CLI::IsMember(lang_codes()))
      ->capture_default_str();
  app.add_flag("--heatmap", o.heatmap, "Draw attention matrices in the terminal");
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
}

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

Embeddings random_embeddings(int64_t T, int64_t D, uint64_t seed) {
  TorchGenerator gen(seed);
  Embeddings e;
  e.inputs = randn(gen, {T, D});
  for (int64_t i = 0; i < T; ++i) e.tokens.push_back("x" + std::to_string(i + 1));
  return e;
}

// Checks that need the input (token count) or several options together.
void check_walk_options(const Options& o, int64_t T) {
  if (o.query < 1 || o.query > T)
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

struct ParsedArgs {
  Options o;
  BenchOptions bench;
  bool is_bench = false;
};

// Parses argv. Returns an exit code when parsing finished the run (--help, --version),
// having printed it only with `print`; throws UsageError for misuse.
std::optional<int> parse_args(int argc, char** argv, ParsedArgs& p, bool print) {
  CLI::App app{"", "attn-walk"};
  bind(app, p.o);
  CLI::App* bench = app.add_subcommand("bench", "Benchmark GPT-2-sized MultiHeadAttention");
  bind_bench(*bench, p.bench);
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
  p.o.seed_given = app.count("--seed") > 0;
  p.is_bench = bench->parsed();
  return std::nullopt;
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
  c.query = o.query;
  if (o.seed_given) c.seed1 = c.seed2 = o.seed;
  c.d_out = o.d_out;
  c.heads = o.heads;
  c.dropout = o.dropout;
  c.attn_dropout = o.attn_dropout;
  c.batch = o.batch;
  c.qkv_bias = o.qkv_bias;
  c.init = o.init == "randn" ? InitKind::Randn : InitKind::Rand;
  c.dropout_rng = o.dropout_rng == "mkl" ? DropoutKernel::Mkl : DropoutKernel::Default;
  return c;
}

std::vector<Walk> run_walks(const Options& o, const Config& cfg) {
  std::vector<Walk> walks;
  for (const auto& s : all_stages())
    if (o.stage == "all" || o.stage == s.name) walks.push_back(s.run(cfg));
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
                       join(std::vector<std::string>(known.begin(), known.end()), ", "));
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
  const Options& o = parsed.o;

  if (parsed.is_bench) {
    check_bench(parsed.bench);
    write_output("-", run_bench(parsed.bench));
    return 0;
  }

  if (o.list_stages) {
    std::string out;
    for (const auto& s : all_stages())
      out += fmt::format("{:<12} {:<6} {}\n", s.name, s.section, s.summary);
    write_output(o.output, out);
    return 0;
  }

  Embeddings emb;
  if (!o.random_input.empty()) {
    const auto [T, D] = parse_size(o.random_input);
    check_walk_fits(o, T, D, "--random-input " + o.random_input);
    emb = random_embeddings(T, D, o.seed_given ? o.seed : 123);
  } else {
    emb = o.input.empty() ? builtin_journey() : load_embeddings(o.input, o.max_input_mb * kBytesPerMb);
    check_walk_fits(o, emb.inputs.size(0), emb.inputs.size(1), o.input.empty() ? "<built-in>" : o.input == "-" ? "<stdin>" : o.input);
  }
  const Config cfg = make_config(o, std::move(emb));
  std::vector<Walk> walks = run_walks(o, cfg);

  RenderOptions ro;
  parse_lang(o.lang, &ro.lang);
  ro.explain = o.explain;
  ro.heatmap = o.heatmap;
  ro.color = use_color(o);
  // HTML always carries the explanations; text and JSON only with --explain.
  for (auto& w : walks) localize(w, ro.lang, o.explain || o.format == "html");
  apply_only(walks, o.only);

  if (o.list_steps) {
    std::string out;
    for (const auto& w : walks)
      for (const auto& step : w.steps) out += step.name + "\n";
    write_output(o.output, out);
    return 0;
  }
  if (o.step && o.format == "text" && o.output == "-" && ::isatty(STDIN_FILENO))
    return run_stepwise(walks, ro);

  std::string doc;
  if (o.format == "json") {
    doc = render_json(walks);
  } else if (o.format == "html") {
    doc = render_html(walks, ro);
  } else {
    for (size_t i = 0; i < walks.size(); ++i) doc += (i ? "\n" : "") + render_text(walks[i], ro);
  }
  write_output(o.output, doc);
  if (o.stats) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::cerr << fmt::format("attn-walk: {} on {} tokens x {}: {:.2f} s, peak memory {:.0f} MiB\n",
                             o.stage, cfg.num_tokens(), cfg.d_in(), seconds, peak_rss_mib());
  }
  return 0;
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
  if (o.list_stages) return;
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
