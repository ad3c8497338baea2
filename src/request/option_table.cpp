// The walk's options, one row each, in --help's order (src/request/option_table.h says what
// a row holds).
//
// Adding an option is one row here and its field in WalkRequest (src/request/walk_request.h):
//
//   row("--steps", FIELD(walk.steps), "Optimizer steps to take (at least 1)")
//       .shows("training steps", OptionGroup::Model, "backward")
//       .range(1, 1 << 16).check_too()
//       .sets([](const WalkRequest& r, Config& c) { c.steps = r.steps; },
//             [](const Config& c) { return std::to_string(c.steps); }),
//
// The binding, --help, the page's control, its URL fragment and state, and the Config (or,
// for how the walk is shown, the RenderOptions: .renders()) all follow from the row; tests/test_request.cpp then checks that the stages named change and
// the others do not (give it a sample value there).
#include "request/option_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "lang/lang.h"
#include "stages/stages.h"

namespace attn {

namespace {

// The request field a row fills, and whether it was given.
#define FIELD(member) [](Options& o) -> auto& { return o.member; }

OptionRow row(std::string names, OptionField field, std::string help) {
  OptionRow r;
  r.names = std::move(names);
  r.field = field;
  r.help = std::move(help);
  return r;
}

std::vector<std::string> stage_choices() {
  std::vector<std::string> names;
  for (const auto& s : all_stages()) names.push_back(s.name);
  names.push_back("all");
  names.push_back("bonus");
  return names;
}

// The stages each kind of knob reaches (tests/test_request.cpp walks them all to check).
const char* const kAllButTokens =
    "dot-product softmax trainable causal dropout multi-head efficient kv-cache gqa swa rope flash mla backward";
const char* const kWeights =
    "trainable causal dropout multi-head efficient kv-cache gqa swa rope flash mla backward";
const char* const kModules = "dropout multi-head efficient kv-cache gqa swa rope flash mla backward";
// --text: every stage.
const char* const kText =
    "dot-product softmax trainable causal dropout multi-head efficient kv-cache gqa swa rope flash mla backward "
    "tokens";
const char* const kBonus = "efficient kv-cache gqa swa rope flash mla";

std::vector<OptionRow> input_rows() {
  using G = OptionGroup;
  return {
      row("-i,--input", FIELD(walk.input),
          "Embeddings (.json or .npy); '-' reads JSON from stdin (default: the chapter's six tokens)")
          .shows("your embeddings (a file)", G::Input, kAllButTokens).no_default().not_on_page().check_too(),
      row("--random-input", FIELD(walk.random_input),
          "TxD: use torch.randn(T, D) embeddings drawn after torch.manual_seed(seed)")
          .shows("random embeddings, T x D", G::Input, kAllButTokens).no_default().not_on_page().check_too()
          .excluding({"input"}),
      row("--text", FIELD(walk.text.text),
          "Tokenize this text with GPT-2's BPE and embed it as chapter 2 does ('-' reads standard input)")
          .shows("your own text", G::Input, kText).no_default().check_too()
          .excluding({"input", "random-input", "text-file"}).counts(FIELD(walk.text.given))
          .reads([](const Config& c) { return c.text; }),  // as given, or read from --text-file or stdin
      row("--text-file", FIELD(walk.text.text_file), "The same for the text of a UTF-8 file")
          .shows("your own text, from a file", G::Input, kText).no_default().check_too()
          .excluding({"input", "random-input"}).counts(FIELD(walk.text.given))
          .not_in_state(),  // the page's state holds the file's text as --text
      row("--embed-dim", FIELD(walk.text.embed_dim), "Width D of the token and position embeddings of --text")
          .shows("embedding width of your text", G::Input, kText).range(1, 1024).check_too()
          .reads([](const Config& c) { return std::to_string(c.text.empty() ? TextOptions{}.embed_dim : c.d_in()); }),
      row("--max-tokens", FIELD(walk.text.max_tokens), "Longest --text accepted, in tokens (GPT-2's context length)")
          .shows("longest text, in tokens", G::More, "*").range(1, 1 << 20).check_too().not_in_state(),
      row("-q,--query", FIELD(walk.query), "The query token x(N), 1-based (the chapter uses x(2))")
          .shows("query token x(N)", G::Input, "dot-product softmax trainable").check_too().counts(FIELD(walk.query_given))
          .sets([](const WalkRequest& r, Config& c) {
                  c.query = std::clamp<int64_t>(r.query, 1, std::max<int64_t>(c.num_tokens(), 1));
                },
                [](const Config& c) { return std::to_string(c.query); }),
  };
}

std::vector<OptionRow> model_rows() {
  using G = OptionGroup;
  return {
      row("--seed", FIELD(walk.seed), "Replace both seeds (123 and 789) with S")
          .shows("random seed", G::Model, kWeights).no_default().check_too().counts(FIELD(walk.seed_given))
          .checked(seed_check)
          .sets([](const WalkRequest& r, Config& c) { if (r.seed_given) c.seed1 = c.seed2 = r.seed; },
                [](const Config& c) {
                  const Config d;
                  return c.seed1 == d.seed1 && c.seed2 == d.seed2 ? std::string() : std::to_string(c.seed1);
                }),
      row("--d-out", FIELD(walk.d_out), "Output width of W_query/W_key/W_value (at least 1)")
          .shows("width of queries, keys and values (d_out)", G::Model, kWeights).range(1, 1 << 16).check_too()
          .counts(FIELD(walk.d_out_given))
          .sets([](const WalkRequest& r, Config& c) { c.d_out = r.d_out; if (r.d_out_given) c.bonus.d_out = r.d_out; },
                [](const Config& c) { return std::to_string(c.d_out); }),
      row("--heads", FIELD(walk.heads), "Number of attention heads (multi-head; must divide --d-out)")
          .shows("attention heads", G::Model, "multi-head efficient kv-cache gqa swa rope flash mla backward")
          .range(1, 1 << 16).check_too().counts(FIELD(walk.heads_given))
          .sets([](const WalkRequest& r, Config& c) { c.heads = r.heads; if (r.heads_given) c.bonus.heads = r.heads; },
                [](const Config& c) { return std::to_string(c.heads); }),
      row("--dropout", FIELD(walk.dropout), "Dropout rate of the dropout demonstrations, in [0, 1]")
          .shows("dropout rate of the demonstrations", G::Model, "dropout").range(0.0, 1.0).check_too()
          .sets([](const WalkRequest& r, Config& c) { c.dropout = r.dropout; },
                [](const Config& c) { return fmt::format("{}", c.dropout); }),
      row("--attn-dropout", FIELD(walk.attn_dropout),
          "Dropout rate inside CausalAttention and the multi-head modules, in [0, 1]")
          .shows("dropout rate inside the modules", G::Model, "dropout multi-head backward").range(0.0, 1.0).check_too()
          .sets([](const WalkRequest& r, Config& c) { c.attn_dropout = r.attn_dropout; },
                [](const Config& c) { return fmt::format("{}", c.attn_dropout); }),
      row("--batch", FIELD(walk.batch), "How many copies of the inputs form the batch (at least 1)")
          .shows("batch size", G::Model, kModules).range(1, 1 << 16).check_too()
          .sets([](const WalkRequest& r, Config& c) { c.batch = r.batch; },
                [](const Config& c) { return std::to_string(c.batch); }),
      row("--qkv-bias", FIELD(walk.qkv_bias), "Give the nn.Linear W_query/W_key/W_value a bias")
          .shows("give the weights a bias", G::Model, kWeights).check_too()
          .sets([](const WalkRequest& r, Config& c) { c.qkv_bias = r.qkv_bias; },
                [](const Config& c) { return std::string(c.qkv_bias ? "1" : ""); }),
      row("--init", FIELD(walk.init), "nn.Parameter(torch.rand(...)) or torch.randn(...)")
          .shows("how the weights start", G::More, "trainable")
          .one_of([] { return std::vector<std::string>{"rand", "randn"}; }).check_too()
          .sets([](const WalkRequest& r, Config& c) { c.init = r.init == "randn" ? InitKind::Randn : InitKind::Rand; },
                [](const Config& c) { return std::string(to_string(c.init)); }),
      row("--dropout-rng", FIELD(walk.dropout_rng),
          "Which PyTorch dropout kernel to reproduce: default (the book) or mkl (Intel)")
          .shows("dropout's random numbers", G::More, "dropout multi-head backward")
          .one_of([] { return std::vector<std::string>{"default", "mkl"}; }).check_too()
          .sets([](const WalkRequest& r, Config& c) {
                  c.dropout_rng = r.dropout_rng == "mkl" ? DropoutKernel::Mkl : DropoutKernel::Default;
                },
                [](const Config& c) { return std::string(to_string(c.dropout_rng)); }),
      row("--blas-kernel", FIELD(walk.blas_kernel),
          "Whose OpenBLAS sgemm order to reproduce: cooperlake, skylakex or haswell (default: the "
          "one OpenBLAS picks on this machine, or OPENBLAS_CORETYPE's)")
          .shows("OpenBLAS's matrix-product kernel", G::More,
                 "dot-product softmax trainable causal dropout multi-head efficient kv-cache gqa swa rope flash mla backward")
          .no_default()
          .one_of([] { return std::vector<std::string>{"cooperlake", "skylakex", "haswell"}; }).check_too()
          .sets([](const WalkRequest& r, Config& c) { c.blas_kernel = r.blas_kernel; },
                [](const Config& c) { return c.blas_kernel; }),
      row("--softmax-dim", FIELD(walk.causal_softmax.dim),
          "CausalAttention's softmax: -1 over the keys (the chapter) or 1 over the queries "
          "(the first ch03.ipynb, as exercise 3.2's solution prints)")
          .shows("CausalAttention's softmax dimension", G::More, "dropout multi-head")
          .one_of([] { return std::vector<std::string>{"-1", "1"}; }).check_too()
          .sets([](const WalkRequest& r, Config& c) { c.causal_softmax.dim = r.causal_softmax.dim; },
                [](const Config& c) { return std::to_string(c.causal_softmax.dim); }),
      row("--torch-threads", FIELD(walk.causal_softmax.torch_threads),
          "torch.get_num_threads() of the PyTorch run to match (only --softmax-dim 1 depends on it)")
          .shows("PyTorch's thread count", G::More, "dropout multi-head").range(1, 1024).check_too()
          .sets([](const WalkRequest& r, Config& c) { c.causal_softmax.torch_threads = r.causal_softmax.torch_threads; },
                [](const Config& c) { return std::to_string(c.causal_softmax.torch_threads); }),
  };
}

// The bonus stages' knobs (their --d-out and --heads are the chapter's, above).
std::vector<OptionRow> bonus_rows() {
  using G = OptionGroup;
  return {
      row("--kv-groups", FIELD(walk.bonus.kv_groups), "Key/value groups of GroupedQueryAttention (gqa; must divide --heads)")
          .shows("key/value groups", G::Model, "gqa").range(1, 1 << 16)
          .sets([](const WalkRequest& r, Config& c) { c.bonus.kv_groups = r.bonus.kv_groups; },
                [](const Config& c) { return std::to_string(c.bonus.kv_groups); }),
      row("--window", FIELD(walk.bonus.window), "Sliding-window size in tokens (swa; at least 1)")
          .shows("window, in tokens", G::Model, "swa").range(1, 1 << 20)
          .sets([](const WalkRequest& r, Config& c) { c.bonus.window = r.bonus.window; },
                [](const Config& c) { return std::to_string(c.bonus.window); }),
      row("--rope-base", FIELD(walk.bonus.rope_base), "RoPE's theta_base (rope), in [1, 1e12]")
          .shows("RoPE's base", G::Model, "rope").range(1.0, 1.0e12)
          .sets([](const WalkRequest& r, Config& c) { c.bonus.rope_base = r.bonus.rope_base; },
                [](const Config& c) { return fmt::format("{}", c.bonus.rope_base); }),
      row("--block", FIELD(walk.bonus.block), "Keys per block of flash attention (flash; at least 1)")
          .shows("keys per block", G::Model, "flash").range(1, 1 << 20)
          .sets([](const WalkRequest& r, Config& c) { c.bonus.block = r.bonus.block; },
                [](const Config& c) { return std::to_string(c.bonus.block); }),
      row("--latent-dim", FIELD(walk.bonus.latent_dim), "Latent size of MultiHeadLatentAttention (mla; at least 1)")
          .shows("latent size", G::Model, "mla").range(1, 1 << 16)
          .sets([](const WalkRequest& r, Config& c) { c.bonus.latent_dim = r.bonus.latent_dim; },
                [](const Config& c) { return std::to_string(c.bonus.latent_dim); }),
  };
}

// The backward stage's training loop (chapter 5's optimizer around chapter 3's module).
std::vector<OptionRow> train_rows() {
  using G = OptionGroup;
  return {
      row("--steps", FIELD(walk.train.steps), "Training steps of the backward stage (at least 1)")
          .shows("training steps", G::Model, "backward").range(1, 100000).check_too()
          .sets([](const WalkRequest& r, Config& c) { c.train.steps = r.train.steps; },
                [](const Config& c) { return std::to_string(c.train.steps); }),
      row("--lr", FIELD(walk.train.lr), "Learning rate of the backward stage's optimizer, in (0, 10]")
          .shows("learning rate", G::Model, "backward").range(1e-12, 10.0).check_too()
          .sets([](const WalkRequest& r, Config& c) { c.train.lr = r.train.lr; },
                [](const Config& c) { return fmt::format("{}", c.train.lr); }),
      row("--weight-decay", FIELD(walk.train.weight_decay), "AdamW's weight decay (backward), in [0, 10]")
          .shows("weight decay", G::Model, "backward").range(0.0, 10.0).check_too()
          .sets([](const WalkRequest& r, Config& c) { c.train.weight_decay = r.train.weight_decay; },
                [](const Config& c) { return fmt::format("{}", c.train.weight_decay); }),
      row("--optimizer", FIELD(walk.optimizer), "Optimizer of the backward stage: adamw or sgd")
          .shows("optimizer", G::Model, "backward").check_too()
          .one_of([] { return std::vector<std::string>{"adamw", "sgd"}; })
          .sets([](const WalkRequest& r, Config& c) {
                  c.train.optimizer = r.optimizer == "sgd" ? OptimizerKind::SGD : OptimizerKind::AdamW;
                },
                [](const Config& c) { return std::string(c.train.optimizer == OptimizerKind::SGD ? "sgd" : "adamw"); }),
  };
}

// How the walk is written and shown (--format, --explain, --lang ...).
std::vector<OptionRow> output_rows_before() {
  using G = OptionGroup;
  return {
      row("-s,--stage", FIELD(walk.stage), fmt::format("Which part of the chapter to walk: {}", fmt::join(stage_choices(), ", ")))
          .shows("part of the chapter", G::Show, "*").one_of(stage_choices),
      row("-f,--format", FIELD(format), "Output format: text, json or html")
          .shows("output format", G::Show, "*").not_on_page()
          .one_of([] { return std::vector<std::string>{"text", "json", "html"}; }),
      row("-o,--output", FIELD(output), "Write to FILE (whole or not at all); '-' is stdout")
          .shows("output file", G::Show, "*").not_on_page(),
      row("--list-stages", FIELD(list_stages), "List the stages and exit").shows("list the stages", G::More, "*").not_on_page(),
      row("--list-steps", FIELD(list_steps), "List the step names of --stage, one per line, and exit")
          .shows("list the steps", G::More, "*").not_on_page(),
      row("--only", FIELD(walk.only), "Keep only these steps (comma-separated names, see --list-steps)")
          .shows("only these steps", G::Show, "*").not_on_page().no_default().list(','),
  };
}

std::vector<OptionRow> output_rows_after() {
  using G = OptionGroup;
  return {
      row("--explain", FIELD(walk.explain), "Explain each step: what, why, and how shapes change")
          .shows("explain each step", G::Show, "*").not_on_page()
          .renders([](const WalkRequest& r, RenderOptions& ro) { ro.explain = r.explain; }, nullptr),
      row("--lang", FIELD(walk.lang), fmt::format("Language of headings and explanations: {}", fmt::join(lang_codes(), ", ")))
          .shows("language", G::Show, "*").one_of(lang_codes)
          .renders([](const WalkRequest& r, RenderOptions& ro) { parse_lang(r.lang, &ro.lang); },
                   [](const RenderOptions& ro) { return lang_table(ro.lang).code; }),
      row("--heatmap", FIELD(walk.heatmap), "Draw attention matrices in the terminal")
          .shows("heatmaps in the terminal", G::Show, "*").not_on_page()
          .renders([](const WalkRequest& r, RenderOptions& ro) { ro.heatmap = r.heatmap; }, nullptr),
      row("--heatmap-scale", FIELD(walk.heatmap_scale),
          "Heatmap colours: fixed (weights and masks on 0 to 1, scores on the step's range) "
          "or matrix (each matrix from its smallest to its largest value)")
          .shows("heatmap colours", G::Show, "*")
          .one_of([] { return std::vector<std::string>{"fixed", "matrix"}; })
          .renders([](const WalkRequest& r, RenderOptions& ro) { ro.heatmap_per_matrix = r.heatmap_scale == "matrix"; },
                   [](const RenderOptions& ro) { return std::string(ro.heatmap_per_matrix ? "matrix" : "fixed"); }),
      row("--color", FIELD(color), "Colour: auto (terminal only, honours NO_COLOR), always, never")
          .shows("colour", G::More, "*").not_on_page()
          .one_of([] { return std::vector<std::string>{"auto", "always", "never"}; }),
      row("--step", FIELD(step), "Pause after each step until Enter ('q' quits); terminals only")
          .shows("one step at a time", G::More, "*").not_on_page(),
      row("--stats", FIELD(stats), "Report the time taken and the peak memory on stderr")
          .shows("time and memory", G::More, "*").not_on_page(),
      row("--max-input-mb", FIELD(walk.max_input_mb), "Refuse input files and streams larger than N MiB")
          .shows("largest input file, in MiB", G::More, kAllButTokens).range(1, 1 << 20).not_in_state(),
  };
}

#undef FIELD

}  // namespace

const std::vector<OptionRow>& option_table() {
  static const std::vector<OptionRow> table = [] {
    std::vector<OptionRow> t;
    for (auto part : {output_rows_before, input_rows, model_rows, bonus_rows, train_rows, output_rows_after})
      for (auto& r : part()) t.push_back(std::move(r));
    return t;
  }();
  return table;
}

const OptionRow* find_option(const std::string& long_name) {
  for (const auto& r : option_table())
    if (r.long_name() == long_name) return &r;
  return nullptr;
}

std::string OptionRow::long_name() const { return names.substr(names.rfind("--") + 2); }

const char* to_string(OptionGroup g) {
  switch (g) {
    case OptionGroup::Input: return "input";
    case OptionGroup::Model: return "model";
    case OptionGroup::Show: return "show";
    case OptionGroup::More: return "more";
  }
  return "";
}

void set_knobs(const WalkRequest& r, Config& c) {
  for (const auto& row : option_table())
    if (row.to_config) row.to_config(r, c);
}

void set_render_options(const WalkRequest& r, RenderOptions& ro) {
  for (const auto& row : option_table())
    if (row.to_render) row.to_render(r, ro);
}

}  // namespace attn
