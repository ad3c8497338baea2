// ch03/02_bonus_efficient-multihead-attention: MHAPyTorchClass, the notebook's wrapper of
// torch.nn.MultiheadAttention(embed_dim=d_out, num_heads, bias=qkv_bias, add_bias_kv=qkv_bias,
// batch_first=True) followed by its own proj, called with a causal boolean attn_mask and
// need_weights=True. With an attn_mask PyTorch 1.13 never takes the fast path
// (torch._native_multi_head_attention): F.multi_head_attention_forward runs, whose steps
// forward_traced() follows.
#pragma once

#include <optional>

#include "modules/chapter.h"
#include "core/tensor.h"
#include "torch/torch_random.h"

namespace attn {

// nn.MultiheadAttention with kdim == vdim == embed_dim.
struct TorchMultiheadAttention {
  int64_t embed_dim, num_heads, head_dim;
  // NonDynamicallyQuantizableLinear(E, E, bias): drawn first, as nn.Linear draws (weight, then
  // bias), in the constructor; _reset_parameters() then sets its bias to 0.
  Linear out_proj;
  Tensor in_proj_weight;                 // (3E, E): xavier_uniform_, drawn after out_proj
  std::optional<Tensor> in_proj_bias;    // (3E): 0
  std::optional<Tensor> bias_k, bias_v;  // (1, 1, E): xavier_normal_, with add_bias_kv
  TorchMultiheadAttention(TorchGenerator& gen, int64_t embed_dim, int64_t num_heads, bool bias, bool add_bias_kv);
};

struct MHAPyTorchClass {
  TorchMultiheadAttention multihead_attn;
  Linear proj;  // nn.Linear(d_out, d_out), drawn after the MultiheadAttention
  MHAPyTorchClass(TorchGenerator& gen, int64_t d_out, int64_t num_heads, bool qkv_bias);
  // The chapter module's function: in_proj = cat(W_query, W_key, W_value) (and their biases),
  // out_proj the identity (bias 0), proj the chapter's out_proj, and no bias_k / bias_v (the
  // chapter has no extra key and value).
  void copy_from(const MultiHeadAttention& m);

  struct Trace {
    Tensor attn_mask;     // (1, T, S): the boolean mask as F.multi_head_attention_forward's float mask
    Tensor q_scaled;      // (b*H, T, head_dim): q / sqrt(head_dim)
    Tensor scores;        // (b*H, T, S): baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
    Tensor attn_weights;  // (b*H, T, S)
    Tensor attn_output;   // (b, T, E): after out_proj, batch first again
    Tensor avg_weights;   // (b, T, S): need_weights=True, averaged over the heads
    Tensor context_vec;   // (b, T, E): proj(attn_output)
  };
  // x is (b, T, E); S = T, or T + 1 with bias_k (one extra key every query sees).
  Trace forward_traced(const Tensor& x) const;
};

}  // namespace attn
