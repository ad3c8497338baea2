#include "modules/sliding_window.h"

namespace attn {

Tensor sliding_window_mask(int64_t T, int64_t W) {
  Tensor mask = Tensor::zeros({T, T});
  for (int64_t i = 0; i < T; ++i)
    for (int64_t j = 0; j < T; ++j) {
      const int64_t diff = i - j;  // how many tokens back key j lies from query i
      if (diff < 0 || diff >= W) mask(i, j) = 1.0f;
    }
  return mask;
}

MultiHeadAttention sliding_window_attention(TorchGenerator& gen, int64_t d_in, int64_t d_out,
                                            int64_t T, int64_t num_heads, bool qkv_bias,
                                            int64_t W) {
  // The reference creates W_query, W_key, W_value, out_proj: the chapter's draws.
  MultiHeadAttention m(gen, d_in, d_out, T, 0.0, num_heads, qkv_bias, DropoutKernel::Default);
  m.mask = sliding_window_mask(T, W);
  return m;
}

}  // namespace attn
