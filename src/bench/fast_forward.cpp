#include "bench/fast_forward.h"

#include "kernels/attention.h"
#include "kernels/parallel.h"
#include "ops/ops.h"
#include "torch/sgemm_order.h"

namespace attn {

namespace {

// Whether the fused pass applies to x (b, T, d_in) at all.
bool fusable(const MultiHeadAttention& mha, const Tensor& x) {
  const int64_t b = x.dim() == 3 ? x.size(0) : 0, num_tokens = x.dim() == 3 ? x.size(1) : 0;
  return mha.dropout.p == 0.0 && x.dim() == 3 && num_tokens <= mha.mask.size(0) &&
         kernels::causal_attention_fusable(b, num_tokens, mha.head_dim);
}

// W (d_out, d_in) as B: its transpose (K = d_in, N = d_out) or itself (K = d_out, N = d_in).
kernels::ConstMat weight_as_b(const Tensor& w, bool transposed, int64_t& K, int64_t& N) {
  K = transposed ? w.size(1) : w.size(0);
  N = transposed ? w.size(0) : w.size(1);
  return kernels::ConstMat{w.data.data(), w.size(1), transposed};
}

}  // namespace

void pack_mha_weights(const MultiHeadAttention& mha, bool transposed, kernels::PackedB& query, kernels::PackedB& key,
                      kernels::PackedB& value, kernels::PackedB& out) {
  const Linear* linears[4] = {&mha.W_query, &mha.W_key, &mha.W_value, &mha.out_proj};
  kernels::PackedB* packed[4] = {&query, &key, &value, &out};
  kernels::parallel_for(4, [&](int64_t i) {
    int64_t K = 0, N = 0;
    const kernels::ConstMat B = weight_as_b(linears[i]->weight, transposed, K, N);
    kernels::pack_b(K, N, B, kernels::blocked_chain_order(K), *packed[i]);
  });
}

void repack_for_rows(const Tensor& w, bool transposed, kernels::PackedB& packed, int64_t rows) {
  int64_t K = 0, N = 0;
  const kernels::ConstMat B = weight_as_b(w, transposed, K, N);
  const kernels::ChainOrder order = kernels::product_chain_order(rows, N, K);
  if (order.k_bounds != packed.order.k_bounds) kernels::pack_b(K, N, B, order, packed);
}

Tensor multi_head_attention_output(const MultiHeadAttention& mha, TorchGenerator& gen, const Tensor& x) {
  if (!fusable(mha, x)) return mha.forward_traced(gen, x).context_vecs;
  PreparedMultiHeadAttention prepared(mha);
  Tensor y;
  prepared.forward(gen, x, y);
  return y;
}

PreparedMultiHeadAttention::PreparedMultiHeadAttention(const MultiHeadAttention& mha)
    : mha_(mha), d_in_(mha.W_query.weight.size(1)) {
  // x @ W.T with W (d_out, d_in) stored row-major: B = W.T, a transposed operand.
  pack_mha_weights(mha, /*transposed=*/true, query_, key_, value_, out_);
}

void PreparedMultiHeadAttention::project(const Linear& linear, const kernels::PackedB& packed, const float* x,
                                         int64_t rows, float* out) const {
  // addmm (with a bias) or mm: C starts as the bias or as zeros, then every K-block is added.
  const float* start = linear.bias ? linear.bias->data.data() : kernels::zero_row(packed.N);
  kernels::gemm_chains_packed(rows, packed.N, kernels::ConstMat{x, packed.K, false}, packed, out, packed.N, nullptr,
                              start, kernels::TwoChainView{&out_two_, 0});
}

void PreparedMultiHeadAttention::forward(TorchGenerator& gen, const Tensor& x, Tensor& y) {
  const MultiHeadAttention& mha = mha_;
  // The packed weights reproduce OpenBLAS's blocked kernel, which nn.Linear reaches for
  // every size the fused pass handles but the smallest: there, the step-by-step forward.
  const int64_t rows = x.dim() == 3 ? x.size(0) * x.size(1) : 0;
  const auto blocked = [](kernels::SgemmKernel k) {
    return k == kernels::SgemmKernel::Blocked || k == kernels::SgemmKernel::HaswellBlocked;
  };
  if (!fusable(mha, x) || x.size(2) != d_in_ || !blocked(kernels::sgemm_kernel(rows, mha.d_out, d_in_, true)) ||
      !blocked(kernels::sgemm_kernel(rows, mha.d_out, mha.d_out, true))) {
    y = mha.forward_traced(gen, x).context_vecs;
    fused_ = false;
    return;
  }
  fused_ = true;
  const int64_t b = x.size(0), num_tokens = x.size(1), d_out = mha.d_out;
  // The K-blocks follow the driver OpenBLAS runs each product on, which can depend on the
  // rows (one thread or several): repacked in the rare case they differ from the packing's.
  // Haswell's kernel sums some outputs in two chains, depending on the rows too.
  const Linear* all[4] = {&mha.W_query, &mha.W_key, &mha.W_value, &mha.out_proj};
  kernels::PackedB* all_packed[4] = {&query_, &key_, &value_, &out_};
  for (int p = 0; p < 4; ++p) repack_for_rows(all[p]->weight, /*transposed=*/true, *all_packed[p], rows);
  proj_two_ = kernels::two_chain_outputs(rows, d_out, d_in_);
  out_two_ = kernels::two_chain_outputs(rows, d_out, d_out);
  const size_t size = static_cast<size_t>(rows * d_out);
  for (auto* buffer : {&queries_, &keys_, &values_, &context_})
    if (buffer->size() != size) buffer->resize(size);

  // 1. Projections, as nn.Linear computes them: (b, T, d_in) -> (b, T, d_out); the three
  //    in one parallel job, each thread on its own run of parts.
  const Linear* linears[3] = {&mha.W_key, &mha.W_query, &mha.W_value};
  const kernels::PackedB* packed[3] = {&key_, &query_, &value_};
  float* outs[3] = {keys_.data(), queries_.data(), values_.data()};
  const float* starts[3];
  for (int p = 0; p < 3; ++p) starts[p] = linears[p]->bias ? linears[p]->bias->data.data() : kernels::zero_row(d_out);
  const int64_t run = kernels::gemm_tasks_packed(rows, d_out, parts_, kernels::TwoChainView{&proj_two_, 0});
  const int64_t per_product = static_cast<int64_t>(parts_.size() / 4);
  const kernels::ConstMat xs{x.data.data(), d_in_, false};
  kernels::parallel_for_shares(3 * per_product, run, [&](int64_t begin, int64_t end) {
    // A run's parts of one product are neighbours: computed together, as their bounding box.
    while (begin < end) {
      const int64_t p = begin / per_product, last = std::min(end, (p + 1) * per_product) - 1;
      const int64_t* first_part = parts_.data() + 4 * (begin % per_product);
      const int64_t* last_part = parts_.data() + 4 * (last % per_product);
      const int64_t i0 = first_part[0], j0 = first_part[2];
      kernels::gemm_chains_packed_part(i0, last_part[0] + last_part[1] - i0, j0, last_part[2] + last_part[3] - j0, xs,
                                       *packed[p], outs[p], d_out, starts[p], kernels::TwoChainView{&proj_two_, 0});
      begin = last + 1;
    }
  });
  // 2. Every head: causal scores, / sqrt(head_dim), softmax, @ values. The heads are read
  //    in place (view + transpose(1, 2)); the result comes out as (b, T, H, head_dim),
  //    which is the merged (b, T, d_out) already.
  kernels::causal_attention(queries_.data(), keys_.data(), values_.data(), context_.data(), b, num_tokens,
                            mha.num_heads, mha.head_dim);
  // 3. The output projection: (b, T, d_out) -> (b, T, d_out)
  if (y.data.size() != size) y = Tensor::zeros({b, num_tokens, d_out});
  y.shape = {b, num_tokens, d_out};
  project(mha.out_proj, out_, context_.data(), rows, y.data.data());
}

}  // namespace attn
