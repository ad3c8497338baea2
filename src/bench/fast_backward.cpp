#include "bench/fast_backward.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "kernels/attention.h"
#include "kernels/parallel.h"
#include "kernels/gemm.h"
#include "kernels/sgemm.h"
#include "torch/torch_kernels.h"

namespace attn {

namespace {

using kernels::mm;  // one (M, K) @ (K, N) product as torch.mm hands it to sgemm

void ensure(Tensor& t, const Shape& shape) {
  if (t.shape != shape) t = Tensor::zeros(shape);
}

using Buffer = std::vector<float, kernels::CacheLineAllocator<float>>;

// Adds the time since the last lap to a part, if parts are wanted.
class Laps {
 public:
  explicit Laps(BackwardParts* parts) : parts_(parts), last_(std::chrono::steady_clock::now()) {}
  void to(double BackwardParts::*part) {
    if (!parts_) return;
    const auto now = std::chrono::steady_clock::now();
    parts_->*part += std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
  }

 private:
  BackwardParts* parts_;
  std::chrono::steady_clock::time_point last_;
};

// grad (rows, K) @ W (K, N) with W packed: torch.mm's blocked product (the zero-tail hint
// sgemm would add skips only exact zeros: the same floats).
// The weights are packed for the order of `rows` rows (repack_for_rows); Haswell's two-chain
// outputs are those of the product's shape.
void mm_packed(const float* grad, const kernels::PackedB& w, float* out, int64_t rows) {
  const kernels::TwoChainOutputs two = kernels::two_chain_outputs(rows, w.N, w.K);
  kernels::gemm_chains_packed(rows, w.N, kernels::ConstMat{grad, w.K, false}, w, out, w.N, nullptr,
                              kernels::zero_row(w.N), kernels::TwoChainView{&two, 0});
}

bool blocked_kernel(kernels::SgemmKernel k) {
  return k == kernels::SgemmKernel::Blocked || k == kernels::SgemmKernel::HaswellBlocked;
}

constexpr int64_t kColumnChunk = 128;  // columns of the bias's sum per task

}  // namespace

PreparedMhaBackward::PreparedMhaBackward(const MultiHeadAttention& mha) : mha_(mha) {
  // grad @ W with W (d_out, d_in) stored row-major: B = W as it is.
  pack_mha_weights(mha, /*transposed=*/false, query_, key_, value_, out_);
}

bool PreparedMhaBackward::backward(const PreparedMultiHeadAttention& forward, const Tensor& x, const Tensor& grad_y,
                                   MhaGradients& g, BackwardParts* parts) {
  if (parts) *parts = BackwardParts{};
  Laps laps(parts);
  const MultiHeadAttention& mha = mha_;
  if (!forward.fused() || x.dim() != 3) return false;
  const int64_t b = x.size(0), T = x.size(1), d_in = x.size(2), d_out = mha.d_out, rows = b * T;
  const size_t size = static_cast<size_t>(rows * d_out);
  thread_local Buffer grad_context, grad_q, grad_k, grad_v, part;
  for (Buffer* buffer : {&grad_context, &grad_q, &grad_k, &grad_v}) buffer->resize(size);
  part.resize(static_cast<size_t>(rows * d_in));

  // out_proj: y = context @ W.T + bias. W.grad = grad_y.T @ context (grad_y.T a transposed
  // view), bias.grad = grad_y summed over the rows, context.grad = grad_y @ W.
  const float* gy = grad_y.data.data();
  ensure(g.out_proj_weight, {d_out, d_out});
  ensure(g.out_proj_bias, {d_out});
  mm(gy, true, forward.context(), false, g.out_proj_weight.data.data(), d_out, rows, d_out);
  // bias.grad: every thread a run of whole columns, each summed as in the whole.
  const int64_t col_chunks = (d_out + kColumnChunk - 1) / kColumnChunk;
  kernels::parallel_for(col_chunks, [&](int64_t c) {
    kernels::column_sums(gy, rows, d_out, g.out_proj_bias.data.data(), c * kColumnChunk,
                         std::min(d_out, (c + 1) * kColumnChunk));
  });
  if (rows * d_out * d_out <= 1000000) return false;  // the small kernels' own orders: the reference
  repack_for_rows(mha.out_proj.weight, /*transposed=*/false, out_, rows);
  repack_for_rows(mha.W_query.weight, /*transposed=*/false, query_, rows);
  repack_for_rows(mha.W_key.weight, /*transposed=*/false, key_, rows);
  repack_for_rows(mha.W_value.weight, /*transposed=*/false, value_, rows);
  mm_packed(gy, out_, grad_context.data(), rows);
  laps.to(&BackwardParts::out_proj);

  // The heads: back through the weighted sum, the softmax and the scores.
  if (!kernels::causal_attention_backward(forward.queries(), forward.keys(), forward.values(), grad_context.data(),
                                          grad_q.data(), grad_k.data(), grad_v.data(), b, T, mha.num_heads,
                                          mha.head_dim))
    return false;
  laps.to(&BackwardParts::attention);

  // The three projections, in the order autograd reaches them: W.grad = grad.T @ x, and x's
  // gradient the sum of grad @ W as each arrives ((values + queries) + keys). The keys'
  // gradient reaches its Linear column-major for a batch of one: the same blocked products.
  ensure(g.x, x.shape);
  // x is B of all three weight gradients: packed once, where sgemm's blocked kernel takes them
  // (the same chains as mm's, which packs it at each call).
  const bool blocked = blocked_kernel(kernels::sgemm_kernel(d_out, d_in, rows, false, true));
  thread_local kernels::PackedB x_packed;
  const kernels::TwoChainOutputs weights_two = kernels::two_chain_outputs(d_out, d_in, rows);
  if (blocked)
    kernels::pack_b(rows, d_in, kernels::ConstMat{x.data.data(), d_in, false},
                    kernels::product_chain_order(d_out, d_in, rows), x_packed);
  const struct {
    const Buffer& grad;
    const kernels::PackedB& weight;
    Tensor& weight_grad;
  } projections[3] = {{grad_v, value_, g.W_value}, {grad_q, query_, g.W_query}, {grad_k, key_, g.W_key}};
  for (int p = 0; p < 3; ++p) {
    const auto& pr = projections[p];
    ensure(pr.weight_grad, {d_out, d_in});
    if (blocked)
      kernels::gemm_chains_packed(d_out, d_in, kernels::ConstMat{pr.grad.data(), d_out, true}, x_packed,
                                  pr.weight_grad.data.data(), d_in, nullptr, kernels::zero_row(d_in),
                                  kernels::TwoChainView{&weights_two, 0});
    else
      mm(pr.grad.data(), true, x.data.data(), false, pr.weight_grad.data.data(), d_out, rows, d_in);
    laps.to(&BackwardParts::weights);
    float* into = p == 0 ? g.x.data.data() : part.data();
    mm_packed(pr.grad.data(), pr.weight, into, rows);
    if (p > 0)
      for (size_t i = 0; i < part.size(); ++i) g.x.data[i] = g.x.data[i] + part[i];
    laps.to(&BackwardParts::inputs);
  }
  return true;
}

}  // namespace attn
