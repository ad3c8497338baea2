// The walk's options, one row each, in --help's order (src/request/option_table.h says what
// a row holds).
//
// Adding an option is one row here and its field: in core/config.h's Config when it decides
// the walk's numbers (the request is a Config, src/request/walk_request.h), else in WalkRequest.
//
//   row("--steps", FIELD(walk.train.steps), "Training steps of the backward stage (at least 1)")
//       .arg("N").docs("Stage backward: training steps (zero_grad, loss, backward, step), at least 1")
//       .shows("training steps", OptionGroup::Model, "backward")
//       .range(1, 100000).check_too()
//       .records({"train.steps"}, [](const Config& c) { return std::to_string(c.train.steps); }),
//
// .records() names the keys of the JSON output's "config" that record the field (nested ones
// joined by dots; a bare key records the row's field, RECORD(member) another field of the
// Config; config_record() builds the "config" from them, and src/render/json.cpp writes it)
// and reads the field back as the page's state writes it; .then() sets what else in the
// Config follows from the option (--seed is both seeds).
// The binding, --help, the page's control, its URL fragment and state, and the Config (or,
// for how the walk is shown, the RenderOptions: .renders()) all follow from the row;
// tests/test_request.cpp then checks that the stages named change and the others do not (give
// it a sample value there). So do the man page's, the README's and the completions' option
// lists, which `make docs` writes from the rows (.arg, .docs; tests/test_docs.cpp fails until
// they are rewritten).
#include "request/option_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "lang/lang.h"
#include "stages/stages.h"

namespace attn {

namespace {

// Laid out by hand (not clang-format): a row keeps its related builder calls on one line.
// clang-format off
// The request field a row fills, and whether it was given.
#define FIELD(member) [](Options& o) -> auto& { return o.member; }
// A key of the JSON output's "config" that records another field of the Config than the row's.
#define RECORD(member) [](const Config& c) -> RecordValue { return c.member; }

OptionRow row(std::string names, OptionField field, std::string help) {
  OptionRow r;
  r.names = std::move(names);
  r.field = field;
  r.help = std::move(help);
  return r;
}

// The stages each kind of knob reaches (tests/test_request.cpp walks them all to check).
const char* const kAllButTokens =
    "dot-product softmax trainable causal dropout multi-head efficient kv-cache gqa swa rope flash mla backward";
const char* const kWeights =
    "trainable causal dropout multi-head efficient kv-cache gqa swa rope flash mla backward";
const char* const kModules = "dropout multi-head efficient kv-cache gqa swa rope flash mla backward";
// --text: every stage; its embeddings' width, every stage but gpt (whose model embeds the ids).
const char* const kText =
    "dot-product softmax trainable causal dropout multi-head efficient kv-cache gqa swa rope flash mla backward "
    "tokens gpt";
const char* const kTextEmbeddings =
    "dot-product softmax trainable causal dropout multi-head efficient kv-cache gqa swa rope flash mla backward "
    "tokens";
const char* const kBonus = "efficient kv-cache gqa swa rope flash mla";

std::vector<OptionRow> input_rows() {
  using G = OptionGroup;
  return {
      row("-i,--input", FIELD(walk.input),
          "Embeddings (.json or .npy); '-' reads JSON from stdin (default: the chapter's six tokens)")
          .arg("FILE")
          .docs("Embeddings: JSON `{\"tokens\": [...], \"embeddings\": [[...], ...]}` or a bare 2-D array, or a "
                "NumPy `.npy` file; `-` reads JSON from standard input. Default: the chapter's six tokens")
          .shows("your embeddings (a file)", G::Input, kAllButTokens).no_default().not_on_page().check_too(),
      row("--random-input", FIELD(walk.random_input),
          "TxD: use torch.randn(T, D) embeddings drawn after torch.manual_seed(seed)")
          .arg("TxD").docs("Use `torch.randn(T, D)` embeddings drawn after `torch.manual_seed(seed)`")
          .shows("random embeddings, T x D", G::Input, kAllButTokens).no_default().not_on_page().check_too()
          .excluding({"input"}),
      row("--text", FIELD(walk.text.text),
          "Tokenize this text with GPT-2's BPE and embed it as chapter 2 does ('-' reads standard input)")
          .arg("TEXT")
          .docs("Tokenize TEXT with GPT-2's byte-pair encoder (tiktoken's `gpt2`, with `<|endoftext|>` allowed) "
                "and embed it as chapter 2 does: `torch.manual_seed(seed)`, `nn.Embedding(50257, D)` at the token "
                "ids plus `nn.Embedding(T, D)` at `torch.arange(T)`. The steps `text`, `pieces`, `token_ids`, "
                "`token_embeddings`, `pos_embeddings` and `input_embeddings` come first; the stage then walks the "
                "sum, labelled with the pieces. `-` reads standard input (less one trailing newline)")
          .shows("your own text", G::Input, kText).no_default().check_too()
          .excluding({"input", "random-input", "text-file"}).counts(FIELD(walk.text.given))
          .reads([](const Config& c) { return c.text; }),  // as given, or read from --text-file or stdin
      row("--text-file", FIELD(walk.text.text_file), "The same for the text of a UTF-8 file")
          .arg("FILE").docs("The same for the text of a UTF-8 file, taken as it is")
          .shows("your own text, from a file", G::Input, kText).no_default().check_too()
          .excluding({"input", "random-input"}).counts(FIELD(walk.text.given))
          .not_in_state(),  // the page's state holds the file's text as --text
      row("--embed-dim", FIELD(walk.text.embed_dim), "Width D of the token and position embeddings of --text")
          .arg("D").docs("Width of the token and position embeddings of `--text` (the chapter's 3; at most 1024)")
          .shows("embedding width of your text", G::Input, kTextEmbeddings).range(1, 1024).check_too()
          .reads([](const Config& c) { return std::to_string(c.text.empty() ? TextOptions{}.embed_dim : c.d_in()); }),
      row("--max-tokens", FIELD(walk.text.max_tokens), "Longest --text accepted, in tokens (GPT-2's context length)")
          .arg("N").shows("longest text, in tokens", G::More, "*").range(1, 1 << 20).check_too().not_in_state(),
      row("-q,--query", FIELD(walk.query), "The query token x(N), 1-based (the chapter uses x(2))")
          .arg("N")
          .shows("query token x(N)", G::Input, "dot-product softmax trainable").check_too().counts(FIELD(walk.query_given))
          .records({"query"}, [](const Config& c) { return std::to_string(c.query); })
          .then([](const WalkRequest&, Config& c) {  // within the tokens (make_config refuses it past them)
            c.query = std::clamp<int64_t>(c.query, 1, std::max<int64_t>(c.num_tokens(), 1));
          }),
  };
}

std::vector<OptionRow> model_rows() {
  using G = OptionGroup;
  return {
      row("--seed", FIELD(walk.seed1), "Replace both seeds (123 and 789) with S")
          .arg("S")
          .docs("Replaces both of the chapter's seeds: 123 (W_query/W_key/W_value, SelfAttention_v1, the dropout "
                "demonstrations, CausalAttention, the wrapper, MultiHeadAttention) and 789 (SelfAttention_v2, "
                "whose weights the causal and dropout stages reuse)")
          .shows("random seed", G::Model, kWeights).no_default().check_too().counts(FIELD(walk.seed_given))
          .checked(seed_check).also_draws_inputs()
          .records({{"seed1", RECORD(seed1)}, {"seed2", RECORD(seed2)}},  // the default is two seeds
                   [](const Config& c) {
                     const Config d;
                     return c.seed1 == d.seed1 && c.seed2 == d.seed2 ? std::string() : std::to_string(c.seed1);
                   })
          .then([](const WalkRequest& r, Config& c) { if (r.seed_given) c.seed2 = c.seed1; }),
      row("--d-out", FIELD(walk.d_out), "Output width of W_query/W_key/W_value (at least 1)")
          .arg("N")
          .docs("Output width of W_query/W_key/W_value (at least 1); the bonus stages use 8 unless it is given")
          .shows("width of queries, keys and values (d_out)", G::Model, kWeights).range(1, 1 << 16).check_too()
          .counts(FIELD(walk.d_out_given))
          .records({"d_out", {"bonus.d_out", RECORD(bonus.d_out)}}, [](const Config& c) { return std::to_string(c.d_out); })
          .then([](const WalkRequest& r, Config& c) { if (r.d_out_given) c.bonus.d_out = c.d_out; }),
      row("--heads", FIELD(walk.heads), "Number of attention heads (multi-head; must divide --d-out)")
          .arg("H")
          .docs("Number of attention heads; MultiHeadAttention needs `--d-out` divisible by it; the bonus stages "
                "use 4 unless it is given; stage gpt: the model's heads, which the book's weights files do not "
                "record (else config.json's n_head, else GPT-2's own sizes)")
          .shows("attention heads", G::Model, "multi-head efficient kv-cache gqa swa rope flash mla backward gpt")
          .range(1, 1 << 16).check_too().counts(FIELD(walk.heads_given))
          .records({"heads", {"bonus.heads", RECORD(bonus.heads)}}, [](const Config& c) { return std::to_string(c.heads); })
          .then([](const WalkRequest& r, Config& c) { if (r.heads_given) c.bonus.heads = c.heads; }),
      row("--dropout", FIELD(walk.dropout), "Dropout rate of the dropout demonstrations, in [0, 1]")
          .arg("P").docs("Rate of the `nn.Dropout` demonstrations, in [0, 1]")
          .shows("dropout rate of the demonstrations", G::Model, "dropout").range(0.0, 1.0).check_too()
          .records({"dropout"}, [](const Config& c) { return fmt::format("{}", c.dropout); }),
      row("--attn-dropout", FIELD(walk.attn_dropout),
          "Dropout rate inside CausalAttention and the multi-head modules, in [0, 1]")
          .arg("P").docs("Dropout rate inside CausalAttention and the multi-head modules (training mode), in [0, 1]")
          .shows("dropout rate inside the modules", G::Model, "dropout multi-head backward").range(0.0, 1.0).check_too()
          .records({"attn_dropout"}, [](const Config& c) { return fmt::format("{}", c.attn_dropout); }),
      row("--batch", FIELD(walk.batch), "How many copies of the inputs form the batch (at least 1)")
          .arg("B").shows("batch size", G::Model, kModules).range(1, 1 << 16).check_too()
          .records({"batch"}, [](const Config& c) { return std::to_string(c.batch); }),
      row("--qkv-bias", FIELD(walk.qkv_bias), "Give the nn.Linear W_query/W_key/W_value a bias")
          .docs("Give the `nn.Linear` W_query, W_key and W_value a bias")
          .shows("give the weights a bias", G::Model, kWeights).check_too()
          .records({"qkv_bias"}, [](const Config& c) { return std::string(c.qkv_bias ? "1" : ""); }),
      row("--init", FIELD(walk.init), "nn.Parameter(torch.rand(...)) or torch.randn(...)")
          .docs("How `nn.Parameter` weights are drawn: `torch.rand(d_in, d_out)` or `torch.randn(d_in, d_out)`")
          .shows("how the weights start", G::More, "trainable")
          .check_too()
          .records({"init"}, [](const Config& c) { return std::string(to_string(c.init)); }),
      row("--dropout-rng", FIELD(walk.dropout_rng),
          "Which PyTorch dropout kernel to reproduce: default (the book) or mkl (Intel)")
          .docs("Reproduce PyTorch's default dropout kernel (the book's masks; macOS, ARM, AMD, Debian's PyTorch, "
                "PyTorch 2.7 and later) or the MKL kernel of the pip/conda builds of PyTorch 1.13 to 2.6 on Intel "
                "x86 machines")
          .shows("dropout's random numbers", G::More, "dropout multi-head backward")
          .check_too()
          .records({"dropout_rng"}, [](const Config& c) { return std::string(to_string(c.dropout_rng)); }),
      row("--blas-kernel", FIELD(walk.blas_kernel),
          "Whose OpenBLAS sgemm order to reproduce: cooperlake, skylakex or haswell (default: the "
          "one OpenBLAS picks on this machine, or OPENBLAS_CORETYPE's)")
          .arg("KERNEL")
          .docs("Whose OpenBLAS 0.3.21 `sgemm` summation order the products follow: `cooperlake` (CPUs with "
                "avx512_bf16), `skylakex` (other AVX-512 CPUs) or `haswell` (AVX2). Default: the kernel OpenBLAS "
                "picks on this machine, or `OPENBLAS_CORETYPE`'s, so the numbers are this machine's PyTorch's")
          .shows("OpenBLAS's matrix-product kernel", G::More,
                 "dot-product softmax trainable causal dropout multi-head efficient kv-cache gqa swa rope flash mla backward")
          .no_default().check_too()
          .records({{"blas_kernel", RECORD(blas_kernel_used)}}, [](const Config& c) { return std::string(enum_name(c.blas_kernel)); }),
      row("--softmax-dim", FIELD(walk.causal_softmax.dim),
          "CausalAttention's softmax: -1 over the keys (the chapter) or 1 over the queries "
          "(the first ch03.ipynb, as exercise 3.2's solution prints)")
          .docs("CausalAttention's softmax: -1 over the keys, as the chapter, or 1 over the queries, as the first "
                "ch03.ipynb did; exercise 3.2's solution prints that version's numbers")
          .shows("CausalAttention's softmax dimension", G::More, "dropout multi-head")
          .one_of([] { return std::vector<std::string>{"-1", "1"}; }).check_too()
          .records({"softmax_dim"}, [](const Config& c) { return std::to_string(c.causal_softmax.dim); }),
      row("--torch-threads", FIELD(walk.causal_softmax.torch_threads),
          "torch.get_num_threads() of the PyTorch run to match (only --softmax-dim 1 depends on it)")
          .arg("N")
          .docs("`torch.get_num_threads()` of the PyTorch run to match. Only `--softmax-dim 1` depends on it: "
                "PyTorch picks a vectorised or a scalar exp for each column by thread ranges")
          .shows("PyTorch's thread count", G::More, "dropout multi-head").range(1, 1024).check_too()
          .records({"torch_threads"}, [](const Config& c) { return std::to_string(c.causal_softmax.torch_threads); }),
  };
}

// The bonus stages' knobs (their --d-out and --heads are the chapter's, above).
std::vector<OptionRow> bonus_rows() {
  using G = OptionGroup;
  return {
      row("--kv-groups", FIELD(walk.bonus.kv_groups), "Key/value groups of GroupedQueryAttention (gqa; must divide --heads)")
          .arg("G").docs("Bonus stage gqa: key/value groups of GroupedQueryAttention (must divide the heads)")
          .shows("key/value groups", G::Model, "gqa").range(1, 1 << 16)
          .records({"bonus.kv_groups"}, [](const Config& c) { return std::to_string(c.bonus.kv_groups); }),
      row("--window", FIELD(walk.bonus.window), "Sliding-window size in tokens (swa; at least 1)")
          .arg("W").docs("Bonus stage swa: the sliding window, the most tokens a query attends to")
          .shows("window, in tokens", G::Model, "swa").range(1, 1 << 20)
          .records({"bonus.window"}, [](const Config& c) { return std::to_string(c.bonus.window); }),
      row("--rope-base", FIELD(walk.bonus.rope_base), "RoPE's theta_base (rope), in [1, 1e12]")
          .arg("B").docs("Bonus stage rope: RoPE's `theta_base`, in [1, 1e12]")
          .shows("RoPE's base", G::Model, "rope").range(1.0, 1.0e12)
          .records({"bonus.rope_base"}, [](const Config& c) { return fmt::format("{}", c.bonus.rope_base); }),
      row("--block", FIELD(walk.bonus.block), "Keys per block of flash attention (flash; at least 1)")
          .arg("B")
          .docs("Bonus stage flash: keys per block of the online softmax; at most 64 blocks, since the walk shows "
                "each")
          .shows("keys per block", G::Model, "flash").range(1, 1 << 20)
          .records({"bonus.block"}, [](const Config& c) { return std::to_string(c.bonus.block); }),
      row("--latent-dim", FIELD(walk.bonus.latent_dim), "Latent size of MultiHeadLatentAttention (mla; at least 1)")
          .arg("L")
          .docs("Bonus stage mla: the latent size of MultiHeadLatentAttention, what its cache keeps per token")
          .shows("latent size", G::Model, "mla").range(1, 1 << 16)
          .records({"bonus.latent_dim"}, [](const Config& c) { return std::to_string(c.bonus.latent_dim); }),
  };
}

// The backward stage's training loop (chapter 5's optimizer around chapter 3's module).
std::vector<OptionRow> train_rows() {
  using G = OptionGroup;
  return {
      row("--steps", FIELD(walk.train.steps), "Training steps of the backward stage (at least 1)")
          .arg("N").docs("Stage backward: training steps (zero_grad, loss, backward, step), at least 1")
          .shows("training steps", G::Model, "backward").range(1, 100000).check_too()
          .records({"train.steps"}, [](const Config& c) { return std::to_string(c.train.steps); }),
      row("--lr", FIELD(walk.train.lr), "Learning rate of the backward stage's optimizer, in (0, 10]")
          .arg("LR").docs("Stage backward: the optimizer's learning rate, in (0, 10]")
          .shows("learning rate", G::Model, "backward").range(1e-12, 10.0).check_too()
          .records({"train.lr"}, [](const Config& c) { return fmt::format("{}", c.train.lr); }),
      row("--weight-decay", FIELD(walk.train.weight_decay),
          "Weight decay of the backward stage's optimizer, in [0, 10] (default: AdamW's 0.1, SGD's 0)")
          .arg("WD").docs("Stage backward: AdamW's decoupled weight decay, as chapter 5 trains, or SGD's L2 term "
                          "(`torch.optim.SGD(params, lr, weight_decay)`), in [0, 10]; default AdamW's 0.1, SGD's 0")
          .shows("weight decay", G::Model, "backward").range(0.0, 10.0).check_too().counts(FIELD(walk.weight_decay_given))
          .records({"train.weight_decay"}, [](const Config& c) { return fmt::format("{}", c.train.weight_decay); })
          .then([](const WalkRequest& r, Config& c) {
            if (c.train.optimizer == OptimizerKind::SGD && !r.weight_decay_given) c.train.weight_decay = 0.0;
          }),
      row("--grad-step", FIELD(walk.train.grad_step), "Which training step's gradients the backward stage shows (1..--steps)")
          .arg("N").docs("Stage backward: the training step (1 to --steps) whose forward pass, gradients and checks are shown")
          .shows("gradients of step", G::Model, "backward").range(1, 100000).check_too()
          .records({"train.grad_step"}, [](const Config& c) { return std::to_string(c.train.grad_step); }),
      row("--optimizer", FIELD(walk.train.optimizer), "Optimizer of the backward stage: adamw or sgd")
          .docs("Stage backward: `torch.optim.AdamW(params, lr, weight_decay)` or `SGD(params, lr, weight_decay)` without momentum")
          .shows("optimizer", G::Model, "backward").check_too()
          .records({"train.optimizer"}, [](const Config& c) { return std::string(to_string(c.train.optimizer)); }),
  };
}

// --stage gpt: chapter 4's GPTModel on a trained model's weights (read in request.cpp).
std::vector<OptionRow> gpt_rows() {
  using G = OptionGroup;
  return {
      row("--weights", FIELD(walk.gpt.weights_path),
          "GPT-2 weights for --stage gpt and multi-head: the book's .safetensors or .pth, or Hugging Face's "
          "model.safetensors")
          .arg("FILE").docs("Stages gpt and multi-head: a GPT-2 model's weights, read without Python: the book's state "
                            "dict as `.safetensors` or `.pth` (chapter 5), or Hugging Face's `model.safetensors` "
                            "(docs/gpt.md). Stage multi-head walks block --layer's attention on them; the other "
                            "stages refuse it")
          .shows("trained GPT-2 weights (a file)", G::Input, "gpt multi-head").no_default().check_too()
          .not_in_state()  // the page opens the file itself (its picker); a link cannot carry it
          .records({"gpt.weights"}, nullptr),
      row("--layer", FIELD(walk.gpt.layer),
          "The block whose attention --stage gpt opens (multi-head with --weights: walks; default 0), from 0")
          .arg("L")
          .shows("block to open", G::Model, "gpt multi-head").range(0, 1 << 16).no_default()
          .records({"gpt.layer"},
                   [](const Config& c) { return c.gpt.layer < 0 ? std::string() : std::to_string(c.gpt.layer); }),
      row("--head", FIELD(walk.gpt.head), "The head of --layer's block to show alone, from 0")
          .arg("H")
          .shows("head to show", G::Model, "gpt").range(0, 1 << 16).no_default()
          .records({"gpt.head"},
                   [](const Config& c) { return c.gpt.head < 0 ? std::string() : std::to_string(c.gpt.head); }),
      row("--max-new-tokens", FIELD(walk.gpt.max_new_tokens), "Token ids --stage gpt generates greedily (generate_text_simple)")
          .arg("N")
          .shows("new tokens to generate", G::Model, "gpt").range(0, 1 << 16)
          .records({"gpt.max_new_tokens"}, [](const Config& c) { return std::to_string(c.gpt.max_new_tokens); }),
  };
}

// How the walk is written and shown (--format, --explain, --lang ...).
std::vector<OptionRow> output_rows_before() {
  using G = OptionGroup;
  return {
      row("-s,--stage", FIELD(walk.stage), fmt::format("Which part of the chapter to walk: {}", fmt::join(enum_choices<StageChoice>(), ", ")))
          .arg("STAGE")
          .docs("Which part of the chapter to walk: one of the stages above, `all` (the chapter) or `bonus` (the "
                "bonus stages)")
          .shows("part of the chapter", G::Show, "*"),
      row("-f,--format", FIELD(format), "Output format: text, json, json-compact or html")
          .docs("Output format. `json`: docs/json-schema.md. `json-compact`: the same, with a --text walk's "
                "vocabulary-sized tables kept at the text's ids and the rest counted and digested. `html`: the page "
                "that `make web` builds (one self-contained file, nothing fetched), with this walk preloaded and its "
                "settings shown; only the page from `make web` recomputes when they change")
          .shows("output format", G::Show, "*").not_on_page(),
      row("-o,--output", FIELD(output), "Write to FILE (whole or not at all); '-' is stdout")
          .arg("FILE").docs("Write to FILE, whole or not at all; `-` is standard output")
          .shows("output file", G::Show, "*").not_on_page(),
      row("--list-stages", FIELD(list_stages), "List the stages and exit").shows("list the stages", G::More, "*").not_on_page(),
      row("--list-steps", FIELD(list_steps), "List the step names of --stage, one per line, and exit")
          .shows("list the steps", G::More, "*").not_on_page(),
      row("--only", FIELD(walk.only), "Keep only these steps (comma-separated names, see --list-steps)")
          .arg("NAME,...").shows("only these steps", G::Show, "*").not_on_page().no_default().list(','),
  };
}

std::vector<OptionRow> output_rows_after() {
  using G = OptionGroup;
  return {
      row("--explain", FIELD(walk.explain), "Explain each step: what, why, and how shapes change")
          .docs("Explain each step: what it computes, why, and how shapes change")
          .shows("explain each step", G::Show, "*").not_on_page()
          .renders([](const WalkRequest& r, RenderOptions& ro) { ro.explain = r.explain; }, nullptr),
      row("--lang", FIELD(walk.lang), fmt::format("Language of headings and explanations: {}", fmt::join(lang_codes(), ", ")))
          .docs("Language of headings and explanations (tensor names stay as in the code)")
          .shows("language", G::Show, "*").one_of(lang_codes)
          .renders([](const WalkRequest& r, RenderOptions& ro) { parse_lang(r.lang, &ro.lang); },
                   [](const RenderOptions& ro) { return lang_table(ro.lang).code; }),
      row("--heatmap", FIELD(walk.heatmap), "Draw attention matrices in the terminal")
          .docs("Draw attention matrices in the terminal (one per batch and head; the gqa stage draws its heads "
                "in their key/value groups)")
          .shows("heatmaps in the terminal", G::Show, "*").not_on_page()
          .renders([](const WalkRequest& r, RenderOptions& ro) { ro.heatmap = r.heatmap; }, nullptr),
      row("--heatmap-scale", FIELD(walk.heatmap_scale),
          "Heatmap colours: fixed (weights and masks on 0 to 1, scores on the step's range) "
          "or matrix (each matrix from its smallest to its largest value)")
          .docs("Heatmap colours, in the terminal and on the page: `fixed` puts weights and masks on 0 to 1 and a "
                "step's scores on their range; `matrix` gives each matrix its own scale, from its smallest to its "
                "largest value (exact zeros left out), with a legend under each")
          .shows("heatmap colours", G::Show, "*")
          .renders([](const WalkRequest& r, RenderOptions& ro) {
                     ro.heatmap_per_matrix = r.heatmap_scale == HeatmapScale::Matrix;
                   },
                   [](const RenderOptions& ro) { return std::string(ro.heatmap_per_matrix ? "matrix" : "fixed"); }),
      row("--color", FIELD(color), "Colour: auto (terminal only, honours NO_COLOR), always, never")
          .docs("Colour: `auto` only on a terminal, and not when `NO_COLOR` is set")
          .shows("colour", G::More, "*").not_on_page(),
      row("--step", FIELD(step), "Pause after each step until Enter ('q' quits); terminals only")
          .docs("Pause after each step until Enter; `q` quits. Only when standard input is a terminal")
          .shows("one step at a time", G::More, "*").not_on_page(),
      row("--stats", FIELD(stats), "Report the time taken and the peak memory on stderr")
          .docs("Report the time taken and the peak memory on standard error")
          .shows("time and memory", G::More, "*").not_on_page(),
      row("--max-input-mb", FIELD(walk.max_input_mb), "Refuse input files and streams larger than N MiB")
          .arg("N")
          .docs("Refuse an input file or stream larger than N MiB. Binary streams such as `/dev/zero` stop at "
                "their first chunk; a stream that keeps sending text stops at the limit")
          .shows("largest input file, in MiB", G::More, kAllButTokens).range(1, 1 << 20).not_in_state(),
  };
}

#undef FIELD
// clang-format on

}  // namespace

const std::vector<OptionRow>& option_table() {
  static const std::vector<OptionRow> table = [] {
    std::vector<OptionRow> t;
    for (auto part : {output_rows_before, input_rows, model_rows, bonus_rows, train_rows, gpt_rows, output_rows_after})
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
  Config input = std::move(c);
  c = r;  // every knob, as the request holds it
  c.tokens = std::move(input.tokens);
  c.inputs = std::move(input.inputs);
  c.input_name = std::move(input.input_name);
  c.text = std::move(input.text);
  c.token_ids = std::move(input.token_ids);
  for (const auto& row : option_table())
    if (row.to_config) row.to_config(r, c);
}

std::vector<std::string> recorded_config_keys() {
  std::vector<std::string> keys;
  for (const auto& row : option_table())
    for (const auto& k : row.recorded_as) keys.push_back(k.key);
  return keys;
}

const std::vector<RecordedKey>& input_config_keys() {
  static const std::vector<RecordedKey> keys = {
      {"input", RECORD(input_name)},
      {"num_tokens", RECORD(num_tokens())},
      {"d_in", RECORD(d_in())},
      {"blas_threads", RECORD(blas_threads)},  // make_config's, with the kernel it set
  };
  return keys;
}

namespace {

// A row's field as the JSON records it: an enum by its name.
struct FieldAsRecord {
  template <class T>
  RecordValue operator()(const T& v) const {
    if constexpr (std::is_enum_v<T>) return std::string(enum_name(v));
    else if constexpr (std::is_same_v<T, std::vector<std::string>>) return fmt::format("{}", fmt::join(v, ","));
    else return v;
  }
};

RecordValue read_field(const OptionRow& row, Options& o) {
  return std::visit([&o](auto field) { return FieldAsRecord{}(field(o)); }, row.field);
}

}  // namespace

ConfigRecord config_record(const Config& c, const std::vector<OptionRow>& rows) {
  ConfigRecord record;
  for (const auto& k : input_config_keys()) record.push_back({k.key, k.value(c)});
  // A bare key reads the row's field from a request holding c (its Config part), and from
  // the default request to tell an option without a default that was not given.
  Options holding, defaults;
  static_cast<Config&>(holding.walk) = c;
  for (const auto& row : rows)
    for (const auto& k : row.recorded_as) {
      if (k.value) {
        record.push_back({k.key, k.value(c)});
        continue;
      }
      RecordValue v = read_field(row, holding);
      if (!row.show_default && v == read_field(row, defaults)) v = nullptr;
      record.push_back({k.key, std::move(v)});
    }
  return record;
}

void set_render_options(const WalkRequest& r, RenderOptions& ro) {
  for (const auto& row : option_table())
    if (row.to_render) row.to_render(r, ro);
}

}  // namespace attn

#undef RECORD
