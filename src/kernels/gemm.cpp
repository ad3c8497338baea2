#include "kernels/gemm.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <unordered_map>
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
// A hash of a few integers (FNV-1a over their bytes), never 0.
uint64_t product_key(std::initializer_list<int64_t> values) {
  uint64_t h = 1469598103934665603u;
  for (int64_t v : values)
    for (int byte = 0; byte < 8; ++byte) h = (h ^ ((static_cast<uint64_t>(v) >> (8 * byte)) & 0xffu)) * 1099511628211u;
  return h | 1u;
}

// By first row, then by first column: the rectangles are disjoint, so those that start on one
// row are also in the order of their last columns (for_two_chain_rects searches them).
void sort_rects(std::vector<OutputRect>& rects) {
  std::sort(rects.begin(), rects.end(),
            [](const OutputRect& a, const OutputRect& b) { return a.i0 != b.i0 ? a.i0 < b.i0 : a.j0 < b.j0; });
}
}  // namespace

TwoChainOutputs two_chain_outputs(int64_t M, int64_t N, int64_t K) {
  TwoChainOutputs out;
  const BlasOrder o = blas_order();
  if (o.kernel != BlasKernel::Haswell || M <= 0 || N <= 0) return out;
  out.rects = haswell_two_chain_rects(M, N, K, o.threads);
  out.product = product_key({M, N, K, o.threads, 0});
  sort_rects(out.rects);
  for (const OutputRect& r : out.rects) out.max_height = std::max(out.max_height, r.i1 - r.i0);
  return out;
}

TwoChainOutputs two_chain_outputs_transposed(int64_t M, int64_t N, int64_t K) {
  TwoChainOutputs out = two_chain_outputs(N, M, K);
  if (!out.empty()) out.product = product_key({M, N, K, blas_order().threads, 1});
  for (OutputRect& r : out.rects) r = OutputRect{r.j0, r.j1, r.i0, r.i1};
  sort_rects(out.rects);
  out.max_height = 0;
  for (const OutputRect& r : out.rects) out.max_height = std::max(out.max_height, r.i1 - r.i0);
  return out;
}

namespace {
std::atomic<int64_t> two_chain_tile_count{0};
std::atomic<int64_t> two_chain_skip_count{0};
}  // namespace

int64_t two_chain_tiles_run() { return two_chain_tile_count.load(std::memory_order_relaxed); }
int64_t two_chain_vectors_skipped() { return two_chain_skip_count.load(std::memory_order_relaxed); }

ChainOrder product_chain_order(int64_t M, int64_t N, int64_t K) {
  const BlasOrder o = blas_order();
  return blocked_chain_order(K, o.kernel, openblas_threaded(M, N, K, o.threads));
}

namespace {

// Calls f(rect) for every two-chain rectangle meeting rows [lo, hi) of the view's call (its
// own rows, not the product's) and columns [j0, j1) (the product's), each clipped to those
// rows and shifted into them (its columns as they are). The rectangles that start on one row
// are in the order of their columns (sort_rects), so a row's first is found by binary search.
// (A product's column tasks each used to look at every rectangle of their rows: at T = 4096 a
// head's scores have 9576. fix_two_chains' own CPU samples in the forward at T = 4096, AVX2
// under Haswell's order, AMD EPYC Zen 5: 355 -> 216 of about 11 thousand.)
template <class F>
void for_two_chain_rects(const TwoChainView& two, int64_t lo, int64_t hi, int64_t j0, int64_t j1, F&& f) {
  if (!two.any() || lo >= hi || j0 >= j1) return;
  const std::vector<OutputRect>& rects = two.outputs->rects;
  const int64_t first = two.row0 + lo - two.outputs->max_height;
  auto it = std::lower_bound(rects.begin(), rects.end(), first,
                             [](const OutputRect& r, int64_t row) { return r.i0 < row; });
  while (it != rects.end() && it->i0 < two.row0 + hi) {
    const int64_t row = it->i0;
    // The run's end: a row's run is a few rectangles long, so look 1, 2, 4, ... past its start
    // before the binary search, rather than search the whole rest of the list (fix_two_chains'
    // samples in the AVX2 forward at T = 4096, Haswell's order: 1.6-1.7% -> 1.4%).
    auto in_run = it;  // in the run; the run ends within `step` past it
    ptrdiff_t step = 1;
    for (; rects.end() - in_run > step && in_run[step].i0 == row; step *= 2) in_run += step;
    const auto run_end = std::partition_point(in_run, in_run + std::min(rects.end() - in_run, step),
                                              [&](const OutputRect& r) { return r.i0 == row; });
    const int64_t i0 = std::max(row - two.row0, lo);
    for (auto r = std::partition_point(it, run_end, [&](const OutputRect& x) { return x.j1 <= j0; });
         r != run_end && r->j0 < j1; ++r) {
      const int64_t i1 = std::min(r->i1 - two.row0, hi);
      if (i0 < i1) f(OutputRect{i0, i1, r->j0, r->j1});
    }
    it = run_end;
  }
}

// The same for every column.
template <class F>
void for_two_chain_rects(const TwoChainView& two, int64_t lo, int64_t hi, F&& f) {
  for_two_chain_rects(two, lo, hi, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), f);
}

bool is_two_chain(const TwoChainView& two, int64_t i, int64_t j) {
  bool found = false;
  for_two_chain_rects(two, i, i + 1, j, j + 1, [&](const OutputRect&) { found = true; });
  return found;
}

}  // namespace

std::vector<int64_t> two_chain_row_bounds(int64_t M, int64_t step, const TwoChainView& two) {
  std::vector<int64_t> bounds{0};
  for (int64_t b = step; b < M; b += step) {
    int64_t best = b, distance = kTwoChainReach + 1;
    for_two_chain_rects(two, b - kTwoChainReach, b + kTwoChainReach + 1, [&](const OutputRect& r) {
      for (int64_t e : {r.i0, r.i1})  // only edges inside the window are the rectangle's own
        if (e > b - kTwoChainReach && e < b + kTwoChainReach + 1 && std::abs(e - b) < distance)
          best = e, distance = std::abs(e - b);
    });
    if (best > bounds.back() && best < M) bounds.push_back(best);
  }
  bounds.push_back(M);
  return bounds;
}

namespace {

// The row bounds of a threaded product's items: every kItemRows rows, moved to the two-chain
// rectangles' edges. Haswell's two-chain rows come in runs of 6 (one tile of AVX2) that a 4-row
// band shifts every 256 rows; an item cutting a run leaves a tile of 2 and one of 4 rows where one
// of 6 was (4% of a forward's CPU samples at T = 1024, AVX2 tiles).
std::vector<int64_t> item_bounds(int64_t M, const TwoChainView& two) {
  return two_chain_row_bounds(M, kItemRows, two);
}

// The definition's two chains of one output (sgemm_order.cpp's block_sum, every block).
float two_chain_element(int64_t i, int64_t j, ConstMat A, ConstMat B, float c, const ChainOrder& order) {
  for (size_t b = 0; b + 1 < order.k_bounds.size(); ++b) {
    const int64_t k0 = order.k_bounds[b], k1 = order.k_bounds[b + 1], paired = k0 + (k1 - k0) / 8 * 8;
    float even = 0.0f, odd = 0.0f;
    for (int64_t k = k0; k < k1; ++k) {
      float& acc = k < paired && (k - k0) % 2 == 1 ? odd : even;
      acc = fma32(A.at(i, k), B.at(k, j), acc);
    }
    const float sum = odd + even;
    c = (b == 0 && !order.add_to_c) ? sum : sum + c;
  }
  return c;
}

// The scalar path's two chains (and the page's), lane by lane with fma32.
void two_chain_steps_scalar(const detail::TwoChainSteps& t) {
  for (int r = 0; r < t.rows; ++r)
    for (int c = 0; c < t.cols; ++c) {
      float even = t.sums ? 0.0f : t.even[r * 8 + c], odd = t.sums ? 0.0f : t.odd[r * 8 + c];
      for (int64_t s = t.from; s < t.to; ++s) {
        float& acc = s < t.paired && s % 2 == 1 ? odd : even;
        acc = fma32(t.a[r][(s - t.from) * t.a_k], t.b[(s - t.from) * t.b_k + c], acc);
      }
      if (t.sums) {
        float& sum = t.sums[r * 8 + c];
        sum = t.store_sum ? odd + even : (odd + even) + sum;
        continue;
      }
      t.even[r * 8 + c] = even;
      t.odd[r * 8 + c] = odd;
    }
}

// `vectors`: B's 8 columns are readable in full (packed panels, zero-padded).
void two_chain_steps(const detail::TwoChainSteps& t, bool vectors) {
  const Isa isa = active_isa();
  if (vectors && isa == Isa::Avx512 && detail::two_chain_steps_avx512(t)) return;
  if (vectors && x86_vectors(isa)) detail::two_chain_steps_avx2(t);
  else if (vectors && isa == Isa::Neon) detail::two_chain_steps_neon(t);
  else two_chain_steps_scalar(t);
}

int64_t panel_width(Isa isa) {
  return isa == Isa::Avx512 ? detail::kPanelAvx512 : isa == Isa::Avx2 ? detail::kPanelAvx2
                                                 : isa == Isa::Neon   ? detail::kPanelNeon
                                                 : kSimd128           ? detail::kPanelSimd128
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

// Recomputes in two chains the two-chain outputs among rows [i0, i0 + m) x columns [j0, j1)
// of a call whose one-chain tiles are done: A and C at the call's row 0 (C and c_init indexed by
// the product's columns), every K-block of P's order from c_init, stored over the tiles'
// values (times `scale`, a power of two, where the scores' fused kernel scaled its own).
void fix_two_chains(const TwoChainView& two, int64_t i0, int64_t m, int64_t j0, int64_t j1, ConstMat A,
                    const PackedB& P, float* C, int64_t ldc, const float* c_init, const int64_t* row_k_end,
                    float scale = 1.0f) {
  const ChainOrder& order = P.order;
  if (order.add_to_c && !c_init) throw std::logic_error("gemm: two-chain outputs need C's start values");
  const Isa isa = static_cast<Isa>(P.isa);
  const bool panels = isa != Isa::Scalar || kSimd128;  // else B is kept row-major
  const int64_t nr = panel_width(isa);
  constexpr int R = detail::kTwoChainRows;
  int64_t tiles = 0;
  // The outputs' values so far, and the kernel's call: made once, not per group (zeroing them
  // per group took 28% of this function's own time, in `rep stos`, where a group's steps are few).
  // A group writes every value it stores before reading it; the rest of c keeps an earlier
  // group's values, which are never stored.
  float c[R * 8] = {};
  detail::TwoChainSteps t;
  for_two_chain_rects(two, i0, i0 + m, j0, j1, [&](const OutputRect& rect) {
    const int64_t c0 = std::max(rect.j0, j0), c1 = std::min(rect.j1, j1);
    for (int64_t r0 = rect.i0; r0 < rect.i1; r0 += R) {
      const int rows = static_cast<int>(std::min<int64_t>(R, rect.i1 - r0));
      for (int64_t g = c0 / 8 * 8; g < c1; g += 8) {
        const int64_t l0 = std::max(c0, g) - g, l1 = std::min(c1, g + 8) - g;
        // The outputs' values so far: C's start values, then every block added. A whole group
        // (the usual case) is copied in loops of 8, which the compiler makes vector moves.
        const bool whole = l0 == 0 && l1 == 8;
        if (order.add_to_c && whole)
          for (int r = 0; r < rows; ++r)
            for (int l = 0; l < 8; ++l) c[r * 8 + l] = c_init[g + l];
        else if (order.add_to_c)
          for (int r = 0; r < rows; ++r)
            for (int64_t l = l0; l < l1; ++l) c[r * 8 + l] = c_init[g + l];
        t.rows = rows;
        t.cols = static_cast<int>(std::min<int64_t>(8, P.N - g));
        t.a_k = A.transposed ? A.ld : 1;
        for (size_t b = 0; b + 1 < order.k_bounds.size(); ++b) {
          const int64_t k0 = order.k_bounds[b], k1 = order.k_bounds[b + 1], kc = k1 - k0;
          int64_t k_end = k1;  // with the zero-tail hint: after the rows' last nonzero
          if (row_k_end) {
            k_end = k0;
            for (int r = 0; r < rows; ++r) k_end = std::max(k_end, std::min(k1, row_k_end[r0 + r]));
          }
          for (int r = 0; r < rows; ++r) t.a[r] = &A.data[A.transposed ? k0 * A.ld + r0 + r : (r0 + r) * A.ld + k0];
          t.b = panels ? P.data.data() + k0 * P.n_padded + (g / nr) * kc * nr + g % nr : P.data.data() + k0 * P.N + g;
          t.b_k = panels ? nr : P.N;
          t.from = 0;
          t.to = k_end - k0;
          t.paired = kc / 8 * 8;
          t.sums = c;
          t.store_sum = b == 0 && !order.add_to_c;
          two_chain_steps(t, panels);
        }
        if (whole)
          for (int r = 0; r < rows; ++r)
            for (int l = 0; l < 8; ++l) C[(r0 + r) * ldc + g + l] = c[r * 8 + l] * scale;
        else
          for (int r = 0; r < rows; ++r)
            for (int64_t l = l0; l < l1; ++l) C[(r0 + r) * ldc + g + l] = c[r * 8 + l] * scale;
        ++tiles;
      }
    }
  });
  if (tiles) two_chain_tile_count.fetch_add(tiles, std::memory_order_relaxed);
}

// The one-chain tiles' plan for rows [i0, i0 + m) x columns [j0, j0 + cols) of a call with
// Haswell's two-chain outputs (detail::Region's tile_starts, tile_two): row tiles of at most
// MR rows, and per tile the 8-column groups (from j0, a multiple of 8) whose outputs are all
// two-chain ones, whose vectors the tiles then leave out (fix_two_chains computes them).
// The tiles' rows are chosen to cost least (by the model below), so that a rectangle's rows
// fill whole tiles where that pays. False, and no plan, where nothing would be left out.
struct TwoChainPlan {
  std::vector<int64_t> starts;  // tile bounds, relative to i0
  std::vector<uint64_t> two;    // per tile
};
bool make_two_chain_plan(const TwoChainView& two, int64_t i0, int64_t m, int64_t j0, int64_t cols, Isa isa,
                         TwoChainPlan& plan) {
  const int64_t mr = isa == Isa::Avx512 ? detail::kTileRowsAvx512 : detail::kTileRowsAvx2;
  const int64_t w = isa == Isa::Avx512 ? 16 : 8, nr = 2 * w;  // both tiles: 2 vectors per panel
  if (!two.any() || cols > 64 * 8 || j0 % 8 != 0) return false;
  // Per row of the call: bit g where the row's columns [j0 + 8g, j0 + 8g + 8) (those that
  // exist) lie inside one two-chain rectangle.
  thread_local std::vector<uint64_t> row_two;
  row_two.assign(static_cast<size_t>(m), 0);
  const int64_t groups = (cols + 7) / 8;
  bool any = false;
  for_two_chain_rects(two, i0, i0 + m, [&](const OutputRect& r) {
    uint64_t bits = 0;
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t c0 = j0 + 8 * g, c1 = std::min(c0 + 8, j0 + cols);
      if (r.j0 <= c0 && c1 <= r.j1) bits |= uint64_t{1} << g;
    }
    for (int64_t i = r.i0; i < r.i1 && bits; ++i) row_two[static_cast<size_t>(i - i0)] |= bits;
    any = any || bits;
  });
  if (!any) return false;
  // The cost of a tile of h rows, in whole tiles' time per panel: a whole tile 1, one of its two
  // vectors 0.55 (the vectors left are paired across panels, a little bookkeeping more), none 0;
  // a tile of fewer rows computes every vector unless all is left: as a whole tile (its edge code
  // a little slower) from 5 rows, in a tile of 4 or 2 rows up to 4.
  const int64_t panels = (cols + nr - 1) / nr;
  const int64_t whole_panels = cols / nr;
  const uint64_t pairs = 0x5555555555555555u;  // bit 2p: panel p's first vector
  const uint64_t whole_bits = whole_panels >= 32 ? ~uint64_t{0} : (uint64_t{1} << (2 * whole_panels)) - 1;
  const uint64_t past = groups >= 64 ? 0 : ~uint64_t{0} << groups;  // groups past the columns: nothing to do
  auto tile_cost = [&](int64_t h, uint64_t mask) {
    // Bit v of vm: vector v (of all panels, in order) left out, as the kernel decides.
    uint64_t vm = mask | past;
    if (w == 16) {  // a vector is two groups: both, then the even bits gathered
      vm &= vm >> 1;
      vm &= pairs;
      vm = (vm | vm >> 1) & 0x3333333333333333u;
      vm = (vm | vm >> 2) & 0x0F0F0F0F0F0F0F0Fu;
      vm = (vm | vm >> 4) & 0x00FF00FF00FF00FFu;
      vm = (vm | vm >> 8) & 0x0000FFFF0000FFFFu;
      vm = (vm | vm >> 16) & 0x00000000FFFFFFFFu;
    }
    const uint64_t both = vm & (vm >> 1) & pairs, one = (vm ^ (vm >> 1)) & pairs;
    const double all_left = __builtin_popcountll(both & (panels >= 32 ? ~uint64_t{0} : (uint64_t{1} << (2 * panels)) - 1));
    // Up to 4 rows run in a tile of 4 or 2 rows (TileKernel::micro): 8 or 4 accumulators, about
    // 4 cycles a step either way, against a whole AVX2 tile's 6 (AVX-512's 8).
    if (h != mr) return (h <= 4 ? (w == 16 ? 0.55 : 0.7) : 1.05) * (static_cast<double>(panels) - all_left);
    const double whole_left = __builtin_popcountll(both & whole_bits), half = __builtin_popcountll(one & whole_bits);
    return static_cast<double>(whole_panels) - whole_left - 0.45 * half +
           1.05 * (static_cast<double>(panels - whole_panels) - (all_left - whole_left));
  };
  // Two tilings, the cheaper kept: tiles of MR rows from the call's first row (as without
  // two-chain outputs), or each run of rows with the same groups in tiles of MR and the run's
  // remainder (a rectangle's rows then fill whole tiles, a 4-row band one tile of its own).
  auto tile = [&](int64_t i, int64_t h, std::vector<int64_t>* starts, std::vector<uint64_t>* masks) {
    uint64_t mask = ~uint64_t{0};
    for (int64_t r = i; r < i + h; ++r) mask &= row_two[static_cast<size_t>(r)];
    if (starts) {
      starts->push_back(i);
      masks->push_back(mask);
    }
    return tile_cost(h, mask);
  };
  auto by_runs = [&](std::vector<int64_t>* starts, std::vector<uint64_t>* masks) {
    double cost = 0;
    for (int64_t i = 0, end; i < m; i = end) {
      for (end = i + 1; end < m && row_two[static_cast<size_t>(end)] == row_two[static_cast<size_t>(i)];) ++end;
      for (int64_t t = i; t < end; t += mr) cost += tile(t, std::min(mr, end - t), starts, masks);
    }
    return cost;
  };
  auto plain = [&](std::vector<int64_t>* starts, std::vector<uint64_t>* masks) {
    double cost = 0;
    for (int64_t t = 0; t < m; t += mr) cost += tile(t, std::min(mr, m - t), starts, masks);
    return cost;
  };
  plan.starts.clear();
  plan.two.clear();
  if (by_runs(nullptr, nullptr) < plain(nullptr, nullptr)) by_runs(&plan.starts, &plan.two);
  else plain(&plan.starts, &plan.two);
  plan.starts.push_back(m);
  return true;
}

// The plans, kept per thread for the products that say which they are (the same tasks of the
// same products come again in every head and every forward): computing them took about 2% of
// a forward at T = 1024 (AMD EPYC Zen 5, AVX2 tiles, CPU samples). They are kept by rows (the
// product, its rows and the ISA), each with the plans of its column tasks in the order they were
// made: a row block's tasks come one after another, so that one hash lookup serves all of them
// (a lookup per task, its map's nodes long out of cache, had taken 1.5-2% of the forward at
// T = 2048 and 4096).
struct PlanRowKey {
  uint64_t product;
  int64_t row, m;
  int isa;
  bool operator==(const PlanRowKey& o) const {
    return product == o.product && row == o.row && m == o.m && isa == o.isa;
  }
};
struct PlanRowKeyHash {
  size_t operator()(const PlanRowKey& k) const {
    uint64_t h = k.product;  // a multiply-xorshift mix per field: cheap, and spreads the rows
    for (int64_t v : {k.row, k.m, static_cast<int64_t>(k.isa)}) {
      h = (h ^ static_cast<uint64_t>(v)) * 0x9E3779B97F4A7C15u;
      h ^= h >> 29;
    }
    return static_cast<size_t>(h);
  }
};
struct PlanRow {
  struct Entry {
    int64_t j0, cols;
    std::unique_ptr<TwoChainPlan> plan;  // null: nothing left out
  };
  std::vector<Entry> entries;
  size_t next = 0;  // where the next lookup starts: after the last one found
};
const TwoChainPlan* plan_two_chain_tiles(const TwoChainView& two, int64_t i0, int64_t m, int64_t j0, int64_t cols,
                                         Isa isa) {
  if (!two.any()) return nullptr;
  thread_local TwoChainPlan fresh;
  if (!two.outputs->product) return make_two_chain_plan(two, i0, m, j0, cols, isa, fresh) ? &fresh : nullptr;
  thread_local std::unordered_map<PlanRowKey, std::unique_ptr<PlanRow>, PlanRowKeyHash> kept(1024);
  thread_local int64_t plans = 0;
  thread_local PlanRowKey last_key{};
  thread_local PlanRow* last = nullptr;
  const PlanRowKey key{two.outputs->product, two.row0 + i0, m, static_cast<int>(isa)};
  if (!last || !(key == last_key)) {
    std::unique_ptr<PlanRow>& row = kept[key];
    if (!row) row = std::make_unique<PlanRow>();
    last = row.get();
    last_key = key;
  }
  PlanRow& row = *last;
  const size_t n = row.entries.size();
  for (size_t s = 0; s < n; ++s) {
    const size_t e = (row.next + s) % n;
    if (row.entries[e].j0 == j0 && row.entries[e].cols == cols) {
      row.next = e + 1;
      return row.entries[e].plan.get();
    }
  }
  if (plans >= 16384) {  // bounded: a few MiB at most
    kept.clear();
    plans = 0;
    last = nullptr;
    return make_two_chain_plan(two, i0, m, j0, cols, isa, fresh) ? &fresh : nullptr;
  }
  auto plan = std::make_unique<TwoChainPlan>();
  if (!make_two_chain_plan(two, i0, m, j0, cols, isa, *plan)) plan.reset();
  row.entries.push_back(PlanRow::Entry{j0, cols, std::move(plan)});
  row.next = row.entries.size();
  ++plans;
  return row.entries.back().plan.get();
}

// The tiles: rows in blocks of kTaskRows x columns in blocks of kTaskCols, computed on the
// calling thread (on Intel the row blocks within each column block, elsewhere the column
// blocks within each row block); or, `threaded`, blocks of whole rows shared out among the
// threads (parallel_for_shares).
// Columns [j_begin, j_begin + n) of C (j_begin a multiple of every NR).
// `resume` (one K-block, no c_init): the chains start from C's values and are stored as they end.
// `two`: the two-chain outputs among them (the call's row 0 is the view's row0).
void run_tiles(int64_t M, int64_t n, ConstMat A, const PackedB& P, float* C, int64_t ldc,
               const int64_t* row_k_end, bool threaded, const float* c_init, int64_t j_begin = 0,
               bool resume = false, TwoChainView two = {}) {
  if (!P.order.add_to_c) c_init = nullptr;  // the first block is stored: no start values
  if (threaded && M > kFewRows) {
    // Whole rows: a thread then reuses its rows of A across all the columns.
    const std::vector<int64_t> bounds = item_bounds(M, two);
    parallel_for_shares(static_cast<int64_t>(bounds.size()) - 1, item_run(), [&](int64_t begin, int64_t end) {
      const int64_t i0 = bounds[static_cast<size_t>(begin)], rows = bounds[static_cast<size_t>(end)] - i0;
      run_tiles(rows, n, A.offset(i0, 0), P, C + i0 * ldc, ldc, row_k_end ? row_k_end + i0 : nullptr, false, c_init,
                j_begin, resume, TwoChainView{two.outputs, two.row0 + i0});
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
      if (two.any()) fix_two_chains(two, i0, m, j0, j0 + cols, A, P, C, ldc, c_init, row_k_end);
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
    // Haswell's two-chain outputs: the x86 tiles skip the vectors fix_two_chains computes.
    int64_t skipped = 0;
    if (two.any() && !resume && x86_vectors(isa))
      if (const TwoChainPlan* plan = plan_two_chain_tiles(two, i0, m, j0, cols, isa)) {
        r.tile_starts = plan->starts.data();
        r.n_tiles = static_cast<int64_t>(plan->two.size());
        r.tile_two = plan->two.data();
        r.skipped = &skipped;
      }
    if (isa == Isa::Avx512) detail::gemm_region_avx512(r);
    else if (isa == Isa::Avx2) detail::gemm_region_avx2(r);
    else if (isa == Isa::Neon) detail::gemm_region_neon(r);
    else detail::gemm_region_simd128(r);
    if (skipped) two_chain_skip_count.fetch_add(skipped, std::memory_order_relaxed);
    if (two.any()) fix_two_chains(two, i0, m, j0, j0 + cols, A, P, C, ldc, c_init, row_k_end);
  };
  if (threaded && tasks > 1) parallel_for(tasks, task);
  else
    for (int64_t t = 0; t < tasks; ++t) task(t);
}

// A skipped suffix of zero products can only have changed the sign of a zero result
// (-0 where the full chain gives +0): recompute exactly those elements in full.
void fix_negative_zeros(int64_t M, int64_t n, ConstMat A, ConstMat B, float* C, int64_t ldc,
                        const ChainOrder& order, const int64_t* row_k_end, const TwoChainView& two) {
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
      const float start = order.add_to_c ? row[j] : 0.0f;
      row[j] = is_two_chain(two, i, j) ? two_chain_element(i, j, A, B, start, order)
                                       : chain_element(i, j, A, B, start, order);
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
  // The packed copy holds every value of B (and zeros past column N), one contiguous block
  // still in cache: where it is all finite, as nearly always, B's own rows (strided, read from
  // the end) need no scan. (At T = 4096 the scan of every head's values took 0.7 % of the forward.)
  out.last_nonfinite_row = K;
  if (check_finite)
    out.last_nonfinite_row = any_nonfinite(out.data.data(), K * out.n_padded) ? last_nonfinite_row(K, N, B) : -1;
}

int64_t gemm_tasks_packed(int64_t M, int64_t N, std::vector<int64_t>& tasks, TwoChainView two) {
  const bool few_rows = M <= kFewRows;
  const int64_t task_cols = few_rows ? kTaskCols / 2 : N;
  const std::vector<int64_t> bounds = few_rows ? std::vector<int64_t>{0, M} : item_bounds(M, two);
  tasks.clear();
  for (size_t t = 0; t + 1 < bounds.size(); ++t)
    for (int64_t j0 = 0; j0 < N; j0 += task_cols)
      for (int64_t v : {bounds[t], bounds[t + 1] - bounds[t], j0, std::min(task_cols, N - j0)}) tasks.push_back(v);
  return few_rows ? 1 : item_run();
}

void gemm_chains_packed_part(int64_t i0, int64_t m, int64_t j0, int64_t n, ConstMat A, const PackedB& B, float* C,
                             int64_t ldc, const float* c_init, TwoChainView two) {
  if (m <= 0 || n <= 0) return;
  if (j0 + n > B.N) throw std::logic_error("gemm_chains_packed_part: more columns than B has");
  run_tiles(m, n, A.offset(i0, 0), B, C + i0 * ldc, ldc, nullptr, false, c_init, j0, false,
            TwoChainView{two.outputs, two.row0 + i0});
}

bool gemm_scores_scaled_max(int64_t M, int64_t n, ConstMat A, const PackedB& B, float* C, int64_t ldc, int scale_exp,
                            float* row_max, bool* row_unchecked, TwoChainView two) {
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
  if (two.any()) {
    // Haswell's two-chain outputs: recomputed, scaled as the kernel scales (C = (acc + 0) *
    // 2^scale_exp, exact), and their rows' maxima left to the softmax.
    fix_two_chains(two, 0, M, 0, n, A, B, C, ldc, zero_row(n), nullptr, std::ldexp(1.0f, scale_exp));
    for_two_chain_rects(two, 0, M, [&](const OutputRect& r) {
      if (r.j0 < n && r.j1 > 0)
        for (int64_t i = r.i0; i < r.i1; ++i) row_unchecked[i] = true;
    });
  }
  return true;
}

int64_t gemm_tile_rows() {
  const Isa isa = active_isa();
  return isa == Isa::Avx512 ? detail::kTileRowsAvx512 : isa == Isa::Avx2 ? detail::kTileRowsAvx2
                                                    : isa == Isa::Neon   ? detail::kTileRowsNeon
                                                    : kSimd128           ? detail::simd128_tile_rows()
                                                                         : 1;
}

const char* gemm_kernel_name() { return kSimd128 ? detail::simd128_kernel_name() : isa_name(active_isa()); }

const float* zero_row(int64_t n) {
  thread_local std::vector<float, CacheLineAllocator<float>> zeros;
  if (zeros.size() < static_cast<size_t>(n)) zeros.assign(static_cast<size_t>(n), 0.0f);
  return zeros.data();
}

void gemm_chains_packed(int64_t M, int64_t n, ConstMat A, const PackedB& B, float* C, int64_t ldc,
                        const int64_t* row_k_end, const float* c_init, TwoChainView two) {
  if (M <= 0 || n <= 0) return;
  if (n > B.N) throw std::logic_error("gemm_chains_packed: more columns than B has");
  if (!use_hint(M, B.K, row_k_end, B.last_nonfinite_row)) row_k_end = nullptr;
  run_tiles(M, n, A, B, C, ldc, row_k_end, M * n * B.K >= (int64_t{1} << 16), c_init, 0, false, two);
  if (row_k_end) fix_negative_zeros(M, n, A, B.source, C, ldc, B.order, row_k_end, two);
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
                 const ChainOrder& order, const int64_t* row_k_end, const float* c_init, TwoChainView two) {
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
  else
    for (int64_t t = 0; t < col_chunks; ++t) pack_chunk(t);

  // 2. The tiles of C.
  run_tiles(M, N, A, P, C, ldc, row_k_end, threaded, c_init, 0, false, two);
  if (row_k_end) fix_negative_zeros(M, N, A, B, C, ldc, order, row_k_end, two);
}

namespace {

// The state of gemm_two_chains_resume: per rectangle, in the order of `rects`, its bands of R
// rows from its first row, each with its 8-column groups; per group one tile of R x 8 even
// chains, then R x 8 odd ones. The kernels read and write a tile in place, so no group is
// copied in and out; its lanes outside the rectangle are the kernels' own scratch.
constexpr int64_t kStateRows = detail::kTwoChainRows, kStateHalf = kStateRows * 8, kStateTile = 2 * kStateHalf;
int64_t state_bands(const OutputRect& r) { return (r.i1 - r.i0 + kStateRows - 1) / kStateRows; }
int64_t state_first_col(const OutputRect& r) { return std::max<int64_t>(r.j0, 0) / 8 * 8; }
int64_t state_groups(const OutputRect& r, int64_t N) {
  const int64_t c1 = std::min(r.j1, N);
  return c1 > std::max<int64_t>(r.j0, 0) ? (c1 - state_first_col(r) + 7) / 8 : 0;
}

// Calls f(rect, r0, rows, g, tile) for each group of each band that meets rows [0, M): rows
// [r0, r0 + rows) of the product (rows < R where the rectangle or M ends), columns [g, g + 8).
template <class Float, class F>
void for_state_tiles(const TwoChainOutputs& two, int64_t M, int64_t N, Float* state, F&& f) {
  for (const OutputRect& rect : two.rects) {
    if (rect.i0 >= M) break;  // sorted by first row
    const int64_t groups = state_groups(rect, N), bands = state_bands(rect), g0 = state_first_col(rect);
    for (int64_t b = 0; b < bands; ++b) {
      const int64_t r0 = rect.i0 + b * kStateRows, rows = std::min({kStateRows, rect.i1 - r0, M - r0});
      if (rows > 0)
        for (int64_t q = 0; q < groups; ++q) f(rect, r0, rows, g0 + 8 * q, state + (b * groups + q) * kStateTile);
    }
    state += bands * groups * kStateTile;
  }
}

}  // namespace

void transpose_rows(const float* src, int64_t ld, int64_t K, int64_t M, float* dst) {
  switch (active_isa()) {
    case Isa::Avx512:
      detail::transpose_rows_avx512(src, ld, K, M, dst);
      return;
    case Isa::Avx2:
      detail::transpose_rows_avx2(src, ld, K, M, dst);
      return;
    case Isa::Neon:
      detail::transpose_rows_neon(src, ld, K, M, dst);
      return;
    case Isa::Scalar:
      break;
  }
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k) dst[i * K + k] = src[k * ld + i];
}

size_t two_chain_state_size(const TwoChainOutputs& two, int64_t N) {
  int64_t size = 0;
  for (const OutputRect& rect : two.rects) size += state_bands(rect) * state_groups(rect, N) * kStateTile;
  return static_cast<size_t>(size);
}

void gemm_two_chains_resume(int64_t M, int64_t N, int64_t K, ConstMat A, ConstMat B, float* state, int64_t from,
                            int64_t block_len, const TwoChainOutputs& two) {
  if (M <= 0 || N <= 0 || K <= 0 || two.empty()) return;
  // B's K rows, 8 columns per group, zero-padded: every group's 8 lanes readable.
  const int64_t n8 = (N + 7) / 8 * 8;
  thread_local std::vector<float, CacheLineAllocator<float>> rows_b;
  rows_b.assign(static_cast<size_t>(K * n8), 0.0f);
  for (int64_t k = 0; k < K; ++k)
    for (int64_t j = 0; j < N; ++j) rows_b[static_cast<size_t>(k * n8 + j)] = B.at(k, j);
  // A transposed (the backward's weights and scores' gradient, a block of rows of a (T, T)
  // matrix) is copied to rows, (M, K), on x86: read in place, each row's steps k and k + 1 are
  // neighbours (TwoChainPairsAvx2: one FMA a pair of steps), where the transposed view put them
  // T floats apart. (On ARM, TwoChainKernel reads A through the view, as before: no NEON copy.)
  thread_local std::vector<float, CacheLineAllocator<float>> rows_a;
  if (A.transposed && x86_vectors(active_isa())) {
    rows_a.resize(static_cast<size_t>(M * K));
    transpose_rows(A.data, A.ld, K, M, rows_a.data());
    A = ConstMat{rows_a.data(), K, false};
  }
  detail::TwoChainSteps t;
  t.a_k = A.transposed ? A.ld : 1;
  t.b_k = n8;
  t.from = from;
  t.to = from + K;
  t.paired = block_len / 8 * 8;
  int64_t tiles = 0;
  for_state_tiles(two, M, N, state, [&](const OutputRect&, int64_t r0, int64_t rows, int64_t g, float* tile) {
    t.rows = static_cast<int>(rows);
    t.cols = static_cast<int>(std::min<int64_t>(8, N - g));
    for (int r = 0; r < rows; ++r) t.a[r] = &A.data[A.transposed ? r0 + r : (r0 + r) * A.ld];
    t.b = rows_b.data() + g;
    t.even = tile;
    t.odd = tile + kStateHalf;
    // A band that the rectangle or M cuts: the kernel runs its rows past them with a repeated
    // row. They are put back as they were (rows past M: chains a later, longer piece continues).
    float kept[2][kStateHalf];
    const int64_t past = rows * 8, left = kStateHalf - past;  // the cut band's rows, each half
    if (left > 0)
      for (int h = 0; h < 2; ++h) std::copy_n(tile + h * kStateHalf + past, left, kept[h]);
    two_chain_steps(t, true);
    if (left > 0)
      for (int h = 0; h < 2; ++h) std::copy_n(kept[h], left, tile + h * kStateHalf + past);
    ++tiles;
  });
  if (tiles) two_chain_tile_count.fetch_add(tiles, std::memory_order_relaxed);
}

void two_chain_state_sums(const TwoChainOutputs& two, const float* state, int64_t M, int64_t N, float* C,
                          int64_t ldc) {
  for_state_tiles(two, M, N, state,
                  [&](const OutputRect& rect, int64_t r0, int64_t rows, int64_t g, const float* tile) {
                    const int64_t l0 = std::max<int64_t>(rect.j0, g) - g, l1 = std::min({rect.j1, N, g + 8}) - g;
                    for (int64_t r = 0; r < rows; ++r)
                      for (int64_t l = l0; l < l1; ++l)
                        C[(r0 + r) * ldc + g + l] = tile[kStateHalf + r * 8 + l] + tile[r * 8 + l];
                  });
}

}  // namespace attn::kernels
