#include "kernels/sgemm.h"

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "kernels/gemm.h"
#include "core/cpu.h"

namespace attn::kernels {

struct PackedWeights::Store {
  using Key = std::tuple<const float*, int64_t, bool, int64_t, int64_t, std::vector<int64_t>, bool, int>;
  std::mutex mutex;
  std::map<Key, std::unique_ptr<PackedB>> packs;
};

PackedWeights::PackedWeights() : store_(new Store) {}
PackedWeights::~PackedWeights() { delete store_; }

const PackedB& PackedWeights::packed(int64_t K, int64_t N, ConstMat B, const ChainOrder& order) {
  Store::Key key{B.data, B.ld, B.transposed, K, N, order.k_bounds, order.add_to_c, static_cast<int>(active_isa())};
  std::lock_guard<std::mutex> lock(store_->mutex);
  std::unique_ptr<PackedB>& slot = store_->packs[key];
  if (!slot) {
    auto p = std::make_unique<PackedB>();
    pack_b(K, N, B, order, *p, /*check_finite=*/true);
    slot = std::move(p);
  }
  return *slot;
}

int64_t PackedWeights::count() const {
  std::lock_guard<std::mutex> lock(store_->mutex);
  return static_cast<int64_t>(store_->packs.size());
}

void sgemm(const SgemmCall& g, PackedWeights* weights) {
  if (g.M <= 0 || g.N <= 0) return;
  const SgemmKernel kernel = sgemm_kernel(g.M, g.N, g.K, g.B.transposed, g.a_transposed);
  const bool blocked = kernel == SgemmKernel::Blocked || kernel == SgemmKernel::HaswellBlocked;
  const int64_t first_dot = first_dot_like_column(g, kernel);
  const ConstMat A{g.A, g.lda, g.a_transposed};

  // Causal attention weights end every row in zeros: let the kernel skip them.
  std::vector<int64_t> row_k_end;
  if (g.K >= 64 && first_dot >= 16) row_k_end = trailing_zero_bounds(g.M, g.K, A);
  const int64_t* hint = row_k_end.empty() ? nullptr : row_k_end.data();

  if (blocked) {
    // C starts as the bias or as zeros (beta = 0), given to the kernel rather than filled in.
    // Haswell's kernel sums some outputs in two chains: the tiles recompute those.
    std::vector<float> zeros;
    if (!g.bias) zeros.assign(static_cast<size_t>(g.N), 0.0f);
    const TwoChainOutputs two = two_chain_outputs(g.M, g.N, g.K);
    const ChainOrder order = product_chain_order(g.M, g.N, g.K);
    const float* c_init = g.bias ? g.bias : zeros.data();
    if (weights) {
      // The same tiles on B as packed before (gemm_chains packs it anew, then runs them).
      const PackedB& P = weights->packed(g.K, g.N, g.B, order);
      gemm_chains_packed(g.M, g.N, A, P, g.C, g.ldc, hint, c_init, TwoChainView{&two, 0});
      return;
    }
    gemm_chains(g.M, g.N, g.K, A, g.B, g.C, g.ldc, order, hint, c_init, TwoChainView{&two, 0});
    return;
  }
  // Small kernels: chains for the leading columns, dot-like for the rest, then the bias.
  if (first_dot > 0) gemm_chains(g.M, first_dot, g.K, A, g.B, g.C, g.ldc, single_chain(g.K), hint);
  for (int64_t i = 0; i < g.M; ++i)
    for (int64_t j = first_dot; j < g.N; ++j) g.C[i * g.ldc + j] = dot_like(g, i, j);
  if (g.bias)
    for (int64_t i = 0; i < g.M; ++i)
      for (int64_t j = 0; j < g.N; ++j) g.C[i * g.ldc + j] = g.C[i * g.ldc + j] + g.bias[j];
}

}  // namespace attn::kernels
