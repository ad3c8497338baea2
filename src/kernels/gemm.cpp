#include "kernels/gemm.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

#include "core/cpu.h"
#include "core/float_bits.h"
#include "kernels/gemm_detail.h"
#include "kernels/parallel.h"
#include "torch/fma32.h"

namespace attn::kernels {

namespace {

// One output element, exactly as the definition says.
float chain_element(int64_t i, int64_t j, ConstMat A, ConstMat B, float c, const ChainOrder& order) {
  for (size_t b = 0; b + 1 < order.k_bounds.size(); ++b) {
    float acc = 0.0f;
    for (int64_t k = order.k_bounds[b]; k < order.k_bounds[b + 1]; ++k)
      acc = fma32(A.at(i, k), B.at(k, j), acc);
    c = (b == 0 && !order.add_to_c) ? acc : acc + c;
  }
  return c;
}

bool is_negative_zero(float x) { return float_to_bits(x) == 0x80000000u; }

void check_order(int64_t K, const ChainOrder& order) {
  const auto& kb = order.k_bounds;
  bool ok = kb.size() >= 2 && kb.front() == 0 && kb.back() == K;
  for (size_t b = 0; ok && b + 1 < kb.size(); ++b) ok = kb[b] <= kb[b + 1];
  if (!ok) throw std::logic_error("gemm_chains: k_bounds must run from 0 to K");
}

// True when B(k, j) is finite for every k in [k_from, K) and every column j.
bool finite_rows(ConstMat B, int64_t k_from, int64_t K, int64_t N) {
  for (int64_t k = k_from; k < K; ++k)
    for (int64_t j = 0; j < N; ++j)
      if (!std::isfinite(B.at(k, j))) return false;
  return true;
}

constexpr int64_t kTaskRows = 96;  // a multiple of every kernel's MR (8 and 6)
// Threaded products share rows out in items of kItemRows, item_run() of them (kTaskRows rows,
// or four times that on Intel) at a time until near the end of a thread's share
// (parallel_for_shares).
constexpr int64_t kItemRows = 24, kItemRun = kTaskRows / kItemRows;
static_assert(kItemRows % 8 == 0 && kItemRows % 6 == 0 && kTaskRows % kItemRows == 0, "items of whole tiles");
// On Intel cores a call takes four times as many rows (384), and run_tiles goes through its
// tasks one column strip at a time (strip_major below): a strip of the packed B (768 KiB of a
// 768-deep weight) then stays in the core's L2 while every row task of the call passes over
// it, where with 96 rows per call and the strips in turn the whole 2.3 MiB weight came from
// L3 again for every 96 rows. Measured on a Sapphire Rapids-class Xeon, one thread, T = 1024:
// the forward 145.2 -> 149.3 GFLOP/s (means of 6 interleaved runs' medians; faster in all 6).
// Not measured on AMD, which keeps the order its figures were measured with.
int64_t item_run() { return cpu_vendor() == Vendor::Intel ? 4 * kItemRun : kItemRun; }
bool strip_major() { return cpu_vendor() == Vendor::Intel; }
constexpr int64_t kTaskCols = detail::kTileCols;
constexpr int64_t kFewRows = 240;  // up to 240 rows (a multiple of 8 and 6): one row task
static_assert(kTaskCols / 2 % detail::kPanelAvx512 == 0 && kTaskCols / 2 % detail::kPanelAvx2 == 0, "strips");

}  // namespace

void gemm_chains_reference(int64_t M, int64_t N, int64_t K, ConstMat A, ConstMat B, float* C,
                           int64_t ldc, const ChainOrder& order) {
  check_order(K, order);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = chain_element(i, j, A, B, C[i * ldc + j], order);
}

std::vector<int64_t> trailing_zero_bounds(int64_t M, int64_t K, ConstMat A) {
  std::vector<int64_t> end(static_cast<size_t>(M), 0);
  for (int64_t i = 0; i < M; ++i) {
    int64_t k = K;
    while (k > 0 && A.at(i, k - 1) == 0.0f) --k;
    end[static_cast<size_t>(i)] = k;
  }
  return end;
}

namespace {

int64_t panel_width(Isa isa) {
  return isa == Isa::Avx512 ? detail::kPanelAvx512 : isa == Isa::Avx2 ? detail::kPanelAvx2
                                                    : isa == Isa::Neon ? detail::kPanelNeon
                                                    : kSimd128    ? detail::kPanelSimd128
                                                                  : 1;
}

// Packs columns [j0, j1) for rows below k_limit (the scalar path keeps B row-major).
void pack_columns(const PackedB& P, ConstMat B, int64_t k_limit, int64_t j0, int64_t j1, float* out) {
  const int n_bounds = static_cast<int>(P.order.k_bounds.size());
  switch (static_cast<Isa>(P.isa)) {
    case Isa::Avx512:
      detail::pack_b_avx512(B, P.N, P.order.k_bounds.data(), n_bounds, k_limit, j0, j1, P.n_padded, out);
      break;
    case Isa::Avx2:
      detail::pack_b_avx2(B, P.N, P.order.k_bounds.data(), n_bounds, k_limit, j0, j1, P.n_padded, out);
      break;
    case Isa::Neon:
      detail::pack_b_neon(B, P.N, P.order.k_bounds.data(), n_bounds, k_limit, j0, j1, P.n_padded, out);
      break;
    default:
      if (kSimd128) {
        detail::pack_b_simd128(B, P.N, P.order.k_bounds.data(), n_bounds, k_limit, j0, j1, P.n_padded, out);
        break;
      }
      for (int64_t k = 0; k < k_limit; ++k)
        for (int64_t j = j0; j < j1; ++j) out[k * P.N + j] = B.at(k, j);
  }
}

int64_t last_nonfinite_row(int64_t K, int64_t N, ConstMat B) {
  if (B.transposed) {
    int64_t last = -1;  // rows of B are columns of the storage
    for (int64_t j = 0; j < N; ++j)
      for (int64_t k = K - 1; k > last; --k)
        if (!std::isfinite(B.data[j * B.ld + k])) last = k;
    return last;
  }
  for (int64_t k = K - 1; k >= 0; --k)
    if (any_nonfinite(B.data + k * B.ld, N)) return k;
  return -1;
}

// The tiles: rows in blocks of kTaskRows x columns in blocks of kTaskCols, computed on the
// calling thread (on Intel the row blocks within each column block, elsewhere the column
// blocks within each row block); or, `threaded`, blocks of whole rows shared out among the
// threads (parallel_for_shares).
// Columns [j_begin, j_begin + n) of C (j_begin a multiple of every NR).
// `resume` (one K-block, no c_init): the chains start from C's values and are stored as they end.
void run_tiles(int64_t M, int64_t n, ConstMat A, const PackedB& P, float* C, int64_t ldc,
               const int64_t* row_k_end, bool threaded, const float* c_init, int64_t j_begin = 0,
               bool resume = false) {
  if (!P.order.add_to_c) c_init = nullptr;  // the first block is stored: no start values
  if (threaded && M > kFewRows) {
    // Whole rows: a thread then reuses its rows of A across all the columns.
    parallel_for_shares((M + kItemRows - 1) / kItemRows, item_run(), [&](int64_t begin, int64_t end) {
      const int64_t i0 = begin * kItemRows, rows = std::min(M, end * kItemRows) - i0;
      run_tiles(rows, n, A.offset(i0, 0), P, C + i0 * ldc, ldc, row_k_end ? row_k_end + i0 : nullptr, false, c_init,
                j_begin, resume);
    });
    return;
  }
  const Isa isa = static_cast<Isa>(P.isa);
  const int64_t K = P.K;
  // Few rows (a short sequence): every row in one task and narrower column strips, so that
  // each part of the packed B is read from memory once, not once per row task.
  const bool few_rows = M <= kFewRows;
  const int64_t task_rows = few_rows ? M : kTaskRows, task_cols = few_rows ? kTaskCols / 2 : kTaskCols;
  const int64_t col_tasks = (n + task_cols - 1) / task_cols;
  const int64_t tasks = ((M + task_rows - 1) / task_rows) * col_tasks;
  int64_t max_block = 0;
  for (size_t b = 0; b + 1 < P.order.k_bounds.size(); ++b)
    max_block = std::max(max_block, P.order.k_bounds[b + 1] - P.order.k_bounds[b]);
  const int64_t row_tasks = tasks / col_tasks;
  const bool by_strip = strip_major();
  auto task = [&](int64_t t) {
    // Row tasks one after the other within a column strip, or strips within a row task.
    const int64_t i0 = (by_strip ? t % row_tasks : t / col_tasks) * task_rows;
    const int64_t j = (by_strip ? t / row_tasks : t % col_tasks) * task_cols;
    const int64_t m = std::min(task_rows, M - i0), cols = std::min(task_cols, n - j), j0 = j_begin + j;
    if (isa == Isa::Scalar && !kSimd128) {
      if (c_init)
        for (int64_t i = i0; i < i0 + m; ++i) std::copy_n(c_init + j0, cols, C + i * ldc + j0);
      gemm_chains_reference(m, cols, K, A.offset(i0, 0), ConstMat{P.data.data() + j0, P.N, false},
                            C + i0 * ldc + j0, ldc, P.order);
      return;
    }
    thread_local std::vector<float, CacheLineAllocator<float>> scratch;  // for a transposed A
    const size_t need = static_cast<size_t>(max_block * detail::kScratchRowsA);
    if (A.transposed && scratch.size() < need) scratch.resize(need);
    detail::Region r;
    r.m = m;
    r.n = cols;
    r.j0 = j0;
    r.A = A.offset(i0, 0);
    r.packed_b = P.data.data();
    r.n_padded = P.n_padded;
    r.C = C + i0 * ldc + j0;
    r.ldc = ldc;
    r.k_bounds = P.order.k_bounds.data();
    r.n_bounds = static_cast<int>(P.order.k_bounds.size());
    r.add_to_c = P.order.add_to_c;
    r.c_init = c_init ? c_init + j0 : nullptr;
    r.row_k_end = row_k_end ? row_k_end + i0 : nullptr;
    r.scratch_a = scratch.data();
    r.resume = resume;
    if (isa == Isa::Avx512) detail::gemm_region_avx512(r);
    else if (isa == Isa::Avx2) detail::gemm_region_avx2(r);
    else if (isa == Isa::Neon) detail::gemm_region_neon(r);
    else detail::gemm_region_simd128(r);
  };
  if (threaded && tasks > 1) parallel_for(tasks, task);
  else for (int64_t t = 0; t < tasks; ++t) task(t);
}

// A skipped suffix of zero products can only have changed the sign of a zero result
// (-0 where the full chain gives +0): recompute exactly those elements in full.
void fix_negative_zeros(int64_t M, int64_t n, ConstMat A, ConstMat B, float* C, int64_t ldc,
                        const ChainOrder& order, const int64_t* row_k_end) {
  for (int64_t i = 0; i < M; ++i) {
    if (row_k_end[i] >= order.k_bounds.back()) continue;
    float* row = C + i * ldc;
    uint32_t any = 0;  // a branch-free integer scan first (it vectorises): -0 results are rare
    for (int64_t j = 0; j < n; ++j) any |= static_cast<uint32_t>(is_negative_zero(row[j]));
    if (!any) continue;
    for (int64_t j = 0; j < n; ++j) {
      if (!is_negative_zero(row[j])) continue;
      // A sum is -0 only if both terms were -0, so with add_to_c the start value was -0
      // too, and c still holds it; without add_to_c the start value is not used.
      row[j] = chain_element(i, j, A, B, order.add_to_c ? row[j] : 0.0f, order);
    }
  }
}

// Whether the zero-tail hint can be used: some row stops early, and every row of B a
// skipped product would read is finite.
bool use_hint(int64_t M, int64_t K, const int64_t* row_k_end, int64_t last_nonfinite) {
  if (!row_k_end || M == 0) return false;
  const int64_t first_skip = *std::min_element(row_k_end, row_k_end + M);
  return first_skip < K && last_nonfinite < std::max<int64_t>(first_skip, 0);
}

}  // namespace

// Sizes a PackedB for B (K, N) on the active instruction set; the caller fills its panels.
static void prepare_packed(PackedB& out, int64_t K, int64_t N, ConstMat B, const ChainOrder& order) {
  out.K = K;
  out.N = N;
  out.order = order;
  out.isa = static_cast<int>(active_isa());
  const int64_t nr = panel_width(active_isa());
  out.n_padded = (N + nr - 1) / nr * nr;
  out.source = B;
  const size_t size = static_cast<size_t>(K * out.n_padded);
  if (out.data.size() < size) out.data.resize(size);
}

void pack_b(int64_t K, int64_t N, ConstMat B, const ChainOrder& order, PackedB& out, bool check_finite) {
  check_order(K, order);
  prepare_packed(out, K, N, B, order);
  pack_columns(out, B, K, 0, N, out.data.data());
  out.last_nonfinite_row = check_finite ? last_nonfinite_row(K, N, B) : K;
}

int64_t gemm_tasks_packed(int64_t M, int64_t N, std::vector<int64_t>& tasks) {
  const bool few_rows = M <= kFewRows;
  const int64_t task_rows = few_rows ? M : kItemRows, task_cols = few_rows ? kTaskCols / 2 : N;
  tasks.clear();
  for (int64_t i0 = 0; i0 < M; i0 += task_rows)
    for (int64_t j0 = 0; j0 < N; j0 += task_cols)
      for (int64_t v : {i0, std::min(task_rows, M - i0), j0, std::min(task_cols, N - j0)}) tasks.push_back(v);
  return few_rows ? 1 : item_run();
}

void gemm_chains_packed_part(int64_t i0, int64_t m, int64_t j0, int64_t n, ConstMat A, const PackedB& B, float* C,
                             int64_t ldc, const float* c_init) {
  if (m <= 0 || n <= 0) return;
  if (j0 + n > B.N) throw std::logic_error("gemm_chains_packed_part: more columns than B has");
  run_tiles(m, n, A.offset(i0, 0), B, C + i0 * ldc, ldc, nullptr, false, c_init, j0);
}

bool gemm_scores_scaled_max(int64_t M, int64_t n, ConstMat A, const PackedB& B, float* C, int64_t ldc, int scale_exp,
                            float* row_max, bool* row_unchecked) {
  constexpr int64_t kSteps = 64, MR = detail::kTileRowsAvx512, NR = detail::kPanelAvx512;
  const bool applies = active_isa() == Isa::Avx512 && static_cast<Isa>(B.isa) == Isa::Avx512 && B.K == kSteps &&
                       B.order.add_to_c && B.order.k_bounds == std::vector<int64_t>{0, kSteps} && !A.transposed &&
                       M > 0 && M % MR == 0 && M <= detail::kScoresMaxRows && n > 0 && n % NR == 0 && n <= B.N;
  if (!applies) return false;
  detail::ScoresRegion g;
  g.m = M;
  g.n = n;
  g.A = A.data;
  g.lda = A.ld;
  g.packed_b = B.data.data();
  g.C = C;
  g.ldc = ldc;
  g.scale_exp = scale_exp;
  g.row_max = row_max;
  g.row_unchecked = row_unchecked;
  detail::scores_scaled_max_avx512(g);
  return true;
}

int64_t gemm_tile_rows() {
  const Isa isa = active_isa();
  return isa == Isa::Avx512 ? detail::kTileRowsAvx512 : isa == Isa::Avx2 ? detail::kTileRowsAvx2
                                                    : isa == Isa::Neon ? detail::kTileRowsNeon
                                                    : kSimd128    ? detail::simd128_tile_rows()
                                                                  : 1;
}

const char* gemm_kernel_name() { return kSimd128 ? detail::simd128_kernel_name() : isa_name(active_isa()); }

const float* zero_row(int64_t n) {
  thread_local std::vector<float, CacheLineAllocator<float>> zeros;
  if (zeros.size() < static_cast<size_t>(n)) zeros.assign(static_cast<size_t>(n), 0.0f);
  return zeros.data();
}

void gemm_chains_packed(int64_t M, int64_t n, ConstMat A, const PackedB& B, float* C, int64_t ldc,
                        const int64_t* row_k_end, const float* c_init) {
  if (M <= 0 || n <= 0) return;
  if (n > B.N) throw std::logic_error("gemm_chains_packed: more columns than B has");
  if (!use_hint(M, B.K, row_k_end, B.last_nonfinite_row)) row_k_end = nullptr;
  run_tiles(M, n, A, B, C, ldc, row_k_end, M * n * B.K >= (int64_t{1} << 16), c_init);
  if (row_k_end) fix_negative_zeros(M, n, A, B.source, C, ldc, B.order, row_k_end);
}

void gemm_chains_resume(int64_t M, int64_t N, int64_t K, ConstMat A, ConstMat B, float* C, int64_t ldc) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  const Isa isa = active_isa();
  if (isa == Isa::Scalar) {  // the definition (and the page, whose tiles do not resume)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        float acc = C[i * ldc + j];
        for (int64_t k = 0; k < K; ++k) acc = fma32(A.at(i, k), B.at(k, j), acc);
        C[i * ldc + j] = acc;
      }
    return;
  }
  thread_local PackedB packed;
  prepare_packed(packed, K, N, B, ChainOrder{{0, K}, false});
  pack_columns(packed, B, K, 0, N, packed.data.data());
  run_tiles(M, N, A, packed, C, ldc, nullptr, M * N * K >= (int64_t{1} << 16), nullptr, 0, /*resume=*/true);
}

void gemm_chains(int64_t M, int64_t N, int64_t K, ConstMat A, ConstMat B, float* C, int64_t ldc,
                 const ChainOrder& order, const int64_t* row_k_end, const float* c_init) {
  check_order(K, order);
  if (M <= 0 || N <= 0) return;
  const bool threaded = M * N * K >= (int64_t{1} << 16);

  // The zero-tail hint needs B finite wherever a skipped product would have read it.
  if (row_k_end) {
    const int64_t first_skip = std::max<int64_t>(0, *std::min_element(row_k_end, row_k_end + M));
    if (first_skip >= K || !finite_rows(B, first_skip, K, N)) row_k_end = nullptr;
  }

  // 1. Pack all of B once (the rows a hint skips for every row are left out).
  thread_local PackedB packed;
  prepare_packed(packed, K, N, B, order);
  packed.last_nonfinite_row = -1;  // checked above where it matters
  // (The scalar path reads B in full, so it packs all of it.)
  const bool all_rows = !row_k_end || (static_cast<Isa>(packed.isa) == Isa::Scalar && !kSimd128);
  const int64_t k_limit = all_rows ? K : std::min(K, *std::max_element(row_k_end, row_k_end + M));
  const int64_t col_chunks = (N + kTaskCols - 1) / kTaskCols;
  PackedB& P = packed;  // thread_local: name it for the lambda
  auto pack_chunk = [&](int64_t t) {
    pack_columns(P, B, k_limit, t * kTaskCols, std::min(N, (t + 1) * kTaskCols), P.data.data());
  };
  if (threaded && col_chunks > 1 && static_cast<Isa>(P.isa) != Isa::Scalar) parallel_for(col_chunks, pack_chunk);
  else for (int64_t t = 0; t < col_chunks; ++t) pack_chunk(t);

  // 2. The tiles of C.
  run_tiles(M, N, A, P, C, ldc, row_k_end, threaded, c_init);
  if (row_k_end) fix_negative_zeros(M, N, A, B, C, ldc, order, row_k_end);
}

}  // namespace attn::kernels
