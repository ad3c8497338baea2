// MultiHeadAttention's forward pass when only its output is wanted: the numbers of
// MultiHeadAttention::forward_traced(gen, x).context_vecs, bit for bit, without
// materialising the (b, H, T, T) scores and weights (kernels/attention.h).
#pragma once

#include <vector>

#include "kernels/gemm.h"
#include "modules/chapter.h"

namespace attn {

// A MultiHeadAttention's weight W (d_out, d_in) as the B operand of the blocked kernel, packed:
// B = W.T for the forward's x @ W.T (`transposed`), or B = W for the backward's grad @ W.
// pack_mha_weights packs W_query, W_key, W_value and out_proj, one per task, for the blocked
// kernel's K-blocks; repack_for_rows packs one again where the K-blocks of a product with
// `rows` rows differ from its packing's (they follow the driver OpenBLAS runs it on).
void pack_mha_weights(const MultiHeadAttention& mha, bool transposed, kernels::PackedB& query, kernels::PackedB& key,
                      kernels::PackedB& value, kernels::PackedB& out);
void repack_for_rows(const Tensor& w, bool transposed, kernels::PackedB& packed, int64_t rows);

// Falls back to the step-by-step forward where the fused pass does not apply
// (attention dropout, or sizes small enough for OpenBLAS's small-matrix kernels).
Tensor multi_head_attention_output(const MultiHeadAttention& mha, TorchGenerator& gen, const Tensor& x);

// The same forward for repeated calls on one module, as an inference runtime prepares a
// model once (ONNX Runtime prepacks its constant weights when a session starts): the four
// weight matrices are packed for the matrix kernel once, here, and the projections' buffers
// are kept from one call to the next. `mha` must outlive this object and not change.
class PreparedMultiHeadAttention {
 public:
  explicit PreparedMultiHeadAttention(const MultiHeadAttention& mha);
  // y = mha(x), the same bits as multi_head_attention_output; y's storage is reused when
  // it already has the right size.
  void forward(TorchGenerator& gen, const Tensor& x, Tensor& y);

  // What the last forward kept, for the backward (bench/fast_backward.h): whether it took the
  // fused pass, and then its projections and merged context vectors, (b, T, d_out) each.
  bool fused() const { return fused_; }
  const float* queries() const { return queries_.data(); }
  const float* keys() const { return keys_.data(); }
  const float* values() const { return values_.data(); }
  const float* context() const { return context_.data(); }

 private:
  // out (rows, d_out) = x (rows, d_in) @ W.T (+ bias), as nn.Linear computes it.
  void project(const Linear& linear, const kernels::PackedB& packed, const float* x, int64_t rows, float* out) const;

  const MultiHeadAttention& mha_;
  int64_t d_in_;
  kernels::PackedB query_, key_, value_, out_;
  kernels::TwoChainOutputs proj_two_, out_two_;  // the last forward's, for Haswell's order
  // On cache-line boundaries, so that the kernels' vector loads and stores of them never split.
  std::vector<float, kernels::CacheLineAllocator<float>> queries_, keys_, values_, context_;
  std::vector<int64_t> parts_;
  bool fused_ = false;  // the projections' parts (kernels::gemm_tasks_packed)
};

}  // namespace attn
