#include "cli.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

#include "embeddings.h"
#include "output.h"
#include "render/render.h"
#include "stages/stages.h"

namespace attn {

namespace {

const char* kExamples = R"(
Examples:
  attn-walk                                    the dot-product walk on "Your journey starts with one step"
  attn-walk --stage causal --input data/journey.json
  attn-walk --stage softmax --query 3          x(3) "starts" as the query
  attn-walk --stage dropout --dropout-rng mkl  the masks learners on Intel machines see
  attn-walk --stage multi-head --d-out 4 --heads 2 --qkv-bias
  attn-walk --stage trainable --format json --output walk.json
  echo '[[1, 0], [0, 1], [1, 1]]' | attn-walk --input - --stage causal

Input: {"tokens": [...], "embeddings": [[...], ...]} or a bare 2-D array of numbers.
Exit codes: 0 success, 1 bad input data or unwritable output, 2 misuse of options.
)";

std::string stage_names() {
  std::string names;
  for (const auto& s : all_stages()) names += (names.empty() ? "" : ", ") + std::string(s.name);
  return names;
}

void bind(CLI::App& app, Options& o) {
  app.description("Walk through chapter 3 of 'Build a Large Language Model (From Scratch)': "
                  "every attention tensor, printed as PyTorch prints it.");
  app.footer(kExamples);
  app.set_version_flag("--version", std::string("attn-walk ") + ATTN_WALK_VERSION);

  std::vector<std::string> stages;
  for (const auto& s : all_stages()) stages.push_back(s.name);
  app.add_option("-s,--stage", o.stage, "Which part of the chapter to walk: " + stage_names())
      ->check(CLI::IsMember(stages))
      ->capture_default_str();
  app.add_option("-i,--input", o.input,
                 "Embeddings as JSON; '-' reads stdin (default: the chapter's six tokens)");
  app.add_option("-f,--format", o.format, "Output format: text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app.add_option("-o,--output", o.output, "Write to FILE (whole or not at all); '-' is stdout")
      ->capture_default_str();
  app.add_flag("--list-stages", o.list_stages, "List the stages and exit");
  app.add_flag("--list-steps", o.list_steps, "List the step names of --stage and exit");

  app.add_option("-q,--query", o.query, "The query token x(N), 1-based (the chapter uses x(2))")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "Replace both seeds (123 and 789) with S");
  app.add_option("--d-out", o.d_out, "Output width of W_query/W_key/W_value")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20))
      ->capture_default_str();
  app.add_option("--heads", o.heads, "Number of attention heads (multi-head)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20))
      ->capture_default_str();
  app.add_option("--dropout", o.dropout, "Dropout rate of the dropout demonstrations, in [0, 1]")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--attn-dropout", o.attn_dropout,
                 "Dropout rate inside CausalAttention and the multi-head modules, in [0, 1]")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--batch", o.batch, "How many copies of the inputs form the batch")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20))
      ->capture_default_str();
  app.add_flag("--qkv-bias", o.qkv_bias, "Give the nn.Linear W_query/W_key/W_value a bias");
  app.add_option("--init", o.init, "nn.Parameter(torch.rand(...)) or torch.randn(...)")
      ->check(CLI::IsMember({"rand", "randn"}))
      ->capture_default_str();
  app.add_option("--dropout-rng", o.dropout_rng,
                 "Which PyTorch dropout kernel to reproduce: default (the book) or mkl (Intel)")
      ->check(CLI::IsMember({"default", "mkl"}))
      ->capture_default_str();
}

// Checks that need the input (token count) or several options together.
Config make_config(const Options& o, Embeddings emb) {
  Config c;
  c.tokens = std::move(emb.tokens);
  c.inputs = std::move(emb.inputs);
  c.input_name = o.input.empty() ? "<built-in>" : (o.input == "-" ? "<stdin>" : o.input);
  const int64_t T = c.num_tokens();
  if (o.query < 1 || o.query > T)
    throw UsageError(fmt::format("--query: must be between 1 and {} (the number of tokens), got {}",
                                 T, o.query));
  c.query = o.query;
  if (o.seed_given) c.seed1 = c.seed2 = o.seed;
  c.d_out = o.d_out;
  c.heads = o.heads;
  if ((o.stage == "multi-head") && o.d_out % o.heads != 0)
    throw UsageError(fmt::format(
        "--heads: MultiHeadAttention needs --d-out divisible by --heads, got d_out {} and {} heads",
        o.d_out, o.heads));
  c.dropout = o.dropout;
  c.attn_dropout = o.attn_dropout;
  c.batch = o.batch;
  c.qkv_bias = o.qkv_bias;
  c.init = o.init == "randn" ? InitKind::Randn : InitKind::Rand;
  c.dropout_rng = o.dropout_rng == "mkl" ? DropoutKernel::Mkl : DropoutKernel::Default;
  return c;
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{"", "attn-walk"};
  Options o;
  bind(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  o.seed_given = app.count("--seed") > 0;

  if (o.list_stages) {
    std::string out;
    for (const auto& s : all_stages())
      out += fmt::format("{:<12} {:<6} {}\n", s.name, s.section, s.summary);
    write_output(o.output, out);
    return 0;
  }

  Embeddings emb = o.input.empty() ? builtin_journey() : load_embeddings(o.input);
  const Config cfg = make_config(o, std::move(emb));
  const Walk walk = find_stage(o.stage)->run(cfg);

  if (o.list_steps) {
    std::string out;
    for (const auto& step : walk.steps) out += step.name + "\n";
    write_output(o.output, out);
    return 0;
  }
  write_output(o.output, o.format == "json" ? render_json(walk) : render_text(walk));
  return 0;
}

}  // namespace attn
