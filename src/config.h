// Everything that decides the numbers of a walk. Filled from the command line
// (src/cli.cpp), recorded in the JSON output, and read by every stage.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor.h"

namespace attn {

enum class InitKind { Rand, Randn };           // --init: Parameter(torch.rand/randn(d_in, d_out))
enum class DropoutKernel { Default, Mkl };     // --dropout-rng: which PyTorch bernoulli kernel

struct Config {
  std::vector<std::string> tokens;  // one per row of inputs
  Tensor inputs;                    // (T, d_in) embeddings
  std::string input_name = "<built-in>";  // file name, for messages and JSON
  // --text: the text as given and its GPT-2 token ids; tokens are then its BPE pieces.
  std::string text;
  std::vector<int64_t> token_ids;

  int64_t query = 2;                // --query N, 1-based: x(N) is the query
  uint64_t seed1 = 123;             // torch.manual_seed before W_*, v1, dropout demos, CA, MHA
  uint64_t seed2 = 789;             // torch.manual_seed before SelfAttention_v2
  int64_t d_out = 2;
  int64_t heads = 2;
  double dropout = 0.5;             // --dropout: the nn.Dropout demonstrations
  double attn_dropout = 0.0;        // --attn-dropout: dropout inside the attention modules
  int64_t batch = 2;                // copies of inputs stacked into a batch
  bool qkv_bias = false;
  InitKind init = InitKind::Rand;
  DropoutKernel dropout_rng = DropoutKernel::Default;

  int64_t num_tokens() const { return inputs.size(0); }  // T, the context length
  int64_t d_in() const { return inputs.size(1); }
};

const char* to_string(InitKind k);
const char* to_string(DropoutKernel k);

}  // namespace attn
