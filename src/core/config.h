// Everything that decides the numbers of a walk: each knob declared here once, with its
// default. A walk request is one (src/request/walk_request.h), the option table binds the
// command line and the page to its fields, make_config() adds the input; recorded in the JSON
// output, and read by every stage.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace attn {

// --init: Parameter(torch.rand/randn(d_in, d_out))
enum class InitKind {
  Rand,
  Randn
};
// --dropout-rng: which PyTorch bernoulli kernel
enum class DropoutKernel {
  Default,
  Mkl
};
// --blas-kernel: whose OpenBLAS sgemm order the products follow (torch/sgemm_order.h's kernels),
// or, unnamed, the one OpenBLAS picks on this machine (or OPENBLAS_CORETYPE's).
enum class BlasKernelChoice {
  Machine,
  Cooperlake,
  SkylakeX,
  Haswell
};

// The knobs of the bonus stages (beyond chapter 3). Their width and heads are their own:
// the chapter's default d_out 2 with 2 heads leaves one dimension per head, too few for
// RoPE's rotated pairs or for grouped keys to show. --d-out and --heads replace them.
// Defaults make each idea visible on the chapter's six tokens: 4 heads of 2 dimensions,
// 2 key/value groups (so repeat and repeat_interleave differ), a window of 3 < 6 tokens,
// blocks of 2 keys (3 blocks), a latent of 4 (what MLA caches per token, against 16 for keys
// and values).
struct BonusConfig {
  int64_t d_out = 8;           // --d-out
  int64_t heads = 4;           // --heads
  int64_t kv_groups = 2;       // --kv-groups: key/value groups of GroupedQueryAttention
  int64_t window = 3;          // --window: sliding-window size (tokens a query may see)
  double rope_base = 10000.0;  // --rope-base: RoPE's theta_base
  int64_t block = 2;           // --block: keys per block of flash attention
  int64_t latent_dim = 4;      // --latent-dim: MultiHeadLatentAttention's latent (4 < 2 * d_out)

  int64_t head_dim() const { return heads > 0 ? d_out / heads : 0; }
};

// --softmax-dim, --torch-threads: the dimension CausalAttention normalises its (b, T, T) scores
// over. -1 (the keys: each row sums to 1) is the chapter's code. 1 (the queries: each column
// sums to 1) is what the first ch03.ipynb did, copying dim=1 from the 2-D code, where dim 1
// was the last: exercise 3.2's solution prints those numbers. PyTorch runs that softmax
// with a kernel whose vectorised and scalar columns depend on torch.get_num_threads().
struct CausalSoftmax {
  int64_t dim = -1;           // --softmax-dim: -1 or 1
  int64_t torch_threads = 2;  // --torch-threads: the PyTorch run's torch.get_num_threads()
};

// --stage backward: chapter 5's training loop around chapter 3's MultiHeadAttention
// (src/stages/backward.cpp). The defaults make the chapter's six tokens' loss fall visibly:
// 1.78 to 1.10 in 30 AdamW steps of lr 0.05 (docs/backward.md).
enum class OptimizerKind {
  AdamW,
  SGD
};
struct TrainConfig {
  // clang-format off
  int64_t steps = 30;          // --steps: zero_grad, loss, backward, step; at least 1
  double lr = 0.05;            // --lr
  double weight_decay = 0.1;   // --weight-decay: AdamW's, as chapter 5 trains with it (SGD: 0 unless given)
  OptimizerKind optimizer = OptimizerKind::AdamW;  // --optimizer adamw|sgd
  int64_t grad_step = 1;       // --grad-step: the step (1..steps) whose forward pass and .grad the walk shows
  // clang-format on
};

// --stage gpt: chapter 4's GPTModel on trained weights (src/stages/gpt.cpp). The parameters
// are read by the request layer (weights/gpt_weights.h; declared here only, so that the core
// does not depend on the readers).
struct GptParams;
struct GptRun {
  std::string weights_path;                 // --weights
  std::shared_ptr<const GptParams> params;  // the file's parameters, read once
  int64_t layer = -1;                       // --layer: the block whose attention is opened; -1: none
  int64_t head = -1;                        // --head: the head in focus; -1: every head
  int64_t max_new_tokens = 0;               // --max-new-tokens: generate_text_simple's new ids
  bool all_steps = false;                   // every module's step even in text (--only asks for some)
};

struct Config {
  std::vector<std::string> tokens;        // one per row of inputs
  Tensor inputs;                          // (T, d_in) embeddings
  std::string input_name = "<built-in>";  // file name, for messages and JSON
  // --text: the text as given and its GPT-2 token ids; tokens are then its BPE pieces.
  std::string text;
  std::vector<int64_t> token_ids;

  int64_t query = 2;     // --query N, 1-based: x(N) is the query
  uint64_t seed1 = 123;  // torch.manual_seed before W_*, v1, dropout demos, CA, MHA
  uint64_t seed2 = 789;  // torch.manual_seed before SelfAttention_v2
  int64_t d_out = 2;
  int64_t heads = 2;
  double dropout = 0.5;       // --dropout: the nn.Dropout demonstrations
  double attn_dropout = 0.0;  // --attn-dropout: dropout inside the attention modules
  int64_t batch = 2;          // copies of inputs stacked into a batch
  bool qkv_bias = false;
  InitKind init = InitKind::Rand;
  DropoutKernel dropout_rng = DropoutKernel::Default;
  // --blas-kernel: whose sgemm order every matrix product follows, as given (Machine: the one
  // OpenBLAS picks on this machine), and the order make_config set for the process: the
  // kernel (cooperlake, skylakex, haswell) and OpenBLAS's thread count (torch/sgemm_order.h).
  BlasKernelChoice blas_kernel = BlasKernelChoice::Machine;
  std::string blas_kernel_used = "cooperlake";
  int64_t blas_threads = 2;
  BonusConfig bonus;             // the bonus stages' own sizes and knobs
  CausalSoftmax causal_softmax;  // CausalAttention's softmax dim (exercise 3.2's solution)
  TrainConfig train;             // --stage backward's training loop
  GptRun gpt;                    // --stage gpt's weights and what to open

  // Not a number but what the output needs: only text is rendered (no JSON, HTML or
  // heatmaps), so walks may keep only what print() shows of large tensors (Walk::summaries_only).
  bool summaries_only = false;
  // Nor is this: told of each step as a walk records it (the walk's stage, the step's name),
  // for a caller that shows how far a long walk has come (the page's engine). Empty: nobody.
  std::function<void(const std::string& stage, const std::string& step)> on_step;
  // And of the parts of a long step before it is recorded (Walk::part_done): `part` of `parts`
  // done of step `step` (the multi-head wrapper's heads, one by one). Empty: nobody.
  std::function<void(const std::string& stage, const std::string& step, int64_t part, int64_t parts)> on_part;

  int64_t num_tokens() const { return inputs.size(0); }  // T, the context length
  int64_t d_in() const { return inputs.size(1); }
};

// The names of each closed set, in the order --help lists them: the command line binds them
// (src/request/option_table.cpp), the JSON config and the page's state write them.
template <class E>
struct EnumName {
  const char* name;
  E value;
};
const std::vector<EnumName<InitKind>>& enum_names(InitKind);
const std::vector<EnumName<DropoutKernel>>& enum_names(DropoutKernel);
const std::vector<EnumName<OptimizerKind>>& enum_names(OptimizerKind);
const std::vector<EnumName<BlasKernelChoice>>& enum_names(BlasKernelChoice);  // Machine has no name

// The name of a value of a closed set ("" for a value that has none).
template <class E>
const char* enum_name(E value) {
  for (const auto& n : enum_names(E{}))
    if (n.value == value) return n.name;
  return "";
}

const char* to_string(InitKind k);
const char* to_string(DropoutKernel k);
const char* to_string(OptimizerKind k);

}  // namespace attn
