// The fast kernels against their readable definitions, bit for bit: every instruction
// set the CPU has, many shapes (tails of every tile size), thread counts, the zero-tail
// hint, and special values.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/cpu.h"
#include "core/float_bits.h"
#include "kernels/attention.h"
#include "kernels/gemm.h"
#include "kernels/parallel.h"
#include "kernels/sgemm.h"
#include "kernels/softmax.h"
#include "kernels/softmax_detail.h"
#include "torch/fma32.h"
#include "torch/sgemm_order.h"
#include "torch/torch_kernels.h"
#include "torch/torch_random.h"

namespace attn::kernels {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

uint32_t bits(float x) { return float_to_bits(x); }

// Same bits, or both NaN (a NaN's payload is not part of what we reproduce).
::testing::AssertionResult same_floats(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "sizes differ";
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) && std::isnan(want[i])) continue;
    if (bits(got[i]) != bits(want[i]))
      return ::testing::AssertionFailure() << "element " << i << ": got " << got[i] << " (0x" << std::hex
                                           << bits(got[i]) << "), want " << want[i] << " (0x" << bits(want[i])
                                           << ")";
  }
  return ::testing::AssertionSuccess();
}

std::vector<float> random_values(std::mt19937& rng, size_t n, float scale = 1.0f) {
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// Every instruction set this CPU can run, each made active in turn; restores the best.
std::vector<Isa> isas() {
  std::vector<Isa> out{Isa::Scalar};
  if (set_active_isa(Isa::Avx2) == Isa::Avx2) out.push_back(Isa::Avx2);
  if (set_active_isa(Isa::Avx512) == Isa::Avx512) out.push_back(Isa::Avx512);
  if (set_active_isa(Isa::Neon) == Isa::Neon) out.push_back(Isa::Neon);
  set_active_isa(best_isa());
  return out;
}

struct IsaAndThreads {
  IsaAndThreads(Isa isa, int threads) {
    set_active_isa(isa);
    set_num_threads(threads);
  }
  ~IsaAndThreads() {
    set_active_isa(best_isa());
    set_num_threads(0);
  }
};

// ---- gemm_chains -------------------------------------------------------------------------

struct GemmCase {
  int64_t M, N, K;
  bool blocked, add_to_c, b_transposed;
  int64_t lda_extra = 0, ldc_extra = 0;
};

void check_gemm(const GemmCase& c, Isa isa, int threads, std::mt19937& rng) {
  const int64_t lda = c.K + c.lda_extra, ldc = c.N + c.ldc_extra;
  const int64_t ldb = c.b_transposed ? c.K : c.N;
  const auto A = random_values(rng, static_cast<size_t>(c.M * lda));
  const auto B = random_values(rng, static_cast<size_t>(c.K * c.N));
  const auto C0 = random_values(rng, static_cast<size_t>(c.M * ldc));
  ChainOrder order = c.blocked ? blocked_chain_order(c.K) : single_chain(c.K);
  order.add_to_c = c.add_to_c;
  std::vector<float> want = C0, got = C0;
  const ConstMat a{A.data(), lda, false}, b{B.data(), ldb, c.b_transposed};
  gemm_chains_reference(c.M, c.N, c.K, a, b, want.data(), ldc, order);
  {
    IsaAndThreads use(isa, threads);
    gemm_chains(c.M, c.N, c.K, a, b, got.data(), ldc, order);
  }
  EXPECT_TRUE(same_floats(got, want)) << isa_name(isa) << " threads " << threads << " M=" << c.M << " N=" << c.N
                                      << " K=" << c.K << " blocked=" << c.blocked << " add=" << c.add_to_c
                                      << " bT=" << c.b_transposed;
}

TEST(GemmChains, EqualsReferenceOnManyShapes) {
  std::mt19937 rng(1);
  const int64_t sizes[] = {1, 2, 3, 5, 6, 7, 8, 9, 13, 15, 16, 17, 31, 32, 33, 47, 64, 65, 97};
  for (Isa isa : isas()) {
    for (int64_t M : sizes)
      for (int64_t N : {int64_t{1}, int64_t{7}, int64_t{16}, int64_t{33}, int64_t{100}})
        for (int64_t K : {int64_t{1}, int64_t{5}, int64_t{32}, int64_t{77}})
          check_gemm({M, N, K, false, false, (M + N) % 2 == 1}, isa, 1, rng);
  }
}

TEST(GemmChains, BlockedOrderBiasStridesAndThreads) {
  std::mt19937 rng(2);
  const GemmCase cases[] = {
      {97, 300, 700, true, true, false, 3, 5},   // K-blocks 320 + 190 + 190, C starts as given
      {130, 257, 353, true, false, true, 0, 1},  // 177 + 176, transposed B
      {5, 1000, 641, true, true, true, 2, 0},    // 320 + 161 + 160
      {300, 40, 1024, true, true, false},        // 320 + 320 + 192 + 192
      {191, 95, 64, false, false, false, 1, 7},
  };
  for (Isa isa : isas())
    for (int threads : {1, 2, 3})
      for (const auto& c : cases) check_gemm(c, isa, threads, rng);
}

// A chain cut into pieces (gemm_chains_resume, one call a piece) is the whole chain: from C = 0
// it equals one block from 0, and from any C the definition written out; row-major and
// transposed A, edge tiles, on every path and thread count.
// transpose_rows moves every float, signed zeros and NaNs' bits included, on each vector unit:
// sizes that cut its register blocks (4, 8 or 16 wide) at both edges, and a source whose rows
// are longer than the part read.
TEST(GemmChains, TransposeRowsMovesEveryFloat) {
  std::mt19937 rng(5);
  for (Isa isa : isas())
    for (const auto& [K, M] : {std::array<int64_t, 2>{32, 1024}, {37, 19}, {1, 5}, {16, 16}, {5, 33}}) {
      IsaAndThreads use(isa, 1);
      const int64_t ld = M + 3;
      auto src = random_values(rng, static_cast<size_t>(K * ld));
      src[0] = -0.0f;
      src[static_cast<size_t>(K * ld - 4)] = std::numeric_limits<float>::quiet_NaN();
      std::vector<float> got(static_cast<size_t>(M * K), 1.0f);
      transpose_rows(src.data(), ld, K, M, got.data());
      size_t differ = 0;
      for (int64_t i = 0; i < M; ++i)
        for (int64_t k = 0; k < K; ++k)
          differ += bits(got[static_cast<size_t>(i * K + k)]) != bits(src[static_cast<size_t>(k * ld + i)]);
      EXPECT_EQ(differ, 0u) << isa_name(isa) << " K " << K << " M " << M;
    }
}

TEST(GemmChains, ResumedChainsAreTheWholeChain) {
  std::mt19937 rng(21);
  for (Isa isa : isas())
    for (int threads : {1, 2})
      for (const auto& [M, N, K] : {std::array<int64_t, 3>{37, 64, 100}, {8, 32, 7}, {130, 70, 333}, {5, 3, 1}})
        for (bool a_transposed : {false, true}) {
          IsaAndThreads use(isa, threads);
          const auto A = random_values(rng, static_cast<size_t>(M * K));
          const auto B = random_values(rng, static_cast<size_t>(K * N));
          const ConstMat a{A.data(), a_transposed ? M : K, a_transposed}, b{B.data(), N, false};
          std::vector<float> want(static_cast<size_t>(M * N), 0.0f), got(want.size(), 0.0f);
          gemm_chains_reference(M, N, K, a, b, want.data(), N, single_chain(K));
          const int64_t cuts[] = {0, K / 3, K / 3 + (K > 1 ? 1 : 0), K};
          for (int p = 0; p < 3; ++p)
            gemm_chains_resume(M, N, cuts[p + 1] - cuts[p], a.offset(0, cuts[p]),
                               b.offset(cuts[p], 0), got.data(), N);
          EXPECT_TRUE(same_floats(got, want)) << isa_name(isa) << " threads " << threads << " " << M << "x" << N << "x"
                                              << K << " aT " << a_transposed;
          // From other start values: each element's chain from its own C, as defined.
          auto start = random_values(rng, want.size());
          start[0] = -0.0f;
          std::vector<float> from(start);
          for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < N; ++j) {
              float acc = start[static_cast<size_t>(i * N + j)];
              for (int64_t k = 0; k < K; ++k) acc = std::fma(a.at(i, k), b.at(k, j), acc);
              want[static_cast<size_t>(i * N + j)] = acc;
            }
          gemm_chains_resume(M, N, K, a, b, from.data(), N);
          EXPECT_TRUE(same_floats(from, want)) << isa_name(isa) << " from C, " << M << "x" << N << "x" << K;
        }
}

// C's start values given as a row (c_init) instead of filled into C: the same bits, signs of
// zero included (+0 and -0 starts, products that cancel), with and without the zero-tail
// hint, whole and in parts (gemm_chains_packed_part), on every path.
TEST(GemmChains, StartRowEqualsFilledC) {
  std::mt19937 rng(12);
  const int64_t M = 37, N = 300, K = 700;
  auto A = random_values(rng, static_cast<size_t>(M * K));
  const auto B = random_values(rng, static_cast<size_t>(K * N));
  auto start = random_values(rng, static_cast<size_t>(N));
  for (int64_t j = 0; j < N; j += 3) start[static_cast<size_t>(j)] = j % 2 ? -0.0f : 0.0f;
  std::vector<int64_t> row_end(static_cast<size_t>(M));
  for (int64_t i = 0; i < M; ++i) {
    row_end[static_cast<size_t>(i)] = i * 19;  // rows ending in zeros, some all zero
    for (int64_t k = i * 19; k < K; ++k) A[static_cast<size_t>(i * K + k)] = i % 2 ? 0.0f : -0.0f;
  }
  const ChainOrder order = blocked_chain_order(K);
  const ConstMat a{A.data(), K, false}, b{B.data(), N, false};
  std::vector<float> want(static_cast<size_t>(M * N));
  for (int64_t i = 0; i < M; ++i) std::copy(start.begin(), start.end(), want.begin() + i * N);
  gemm_chains_reference(M, N, K, a, b, want.data(), N, order);
  for (Isa isa : isas())
    for (int threads : {1, 2}) {
      IsaAndThreads use(isa, threads);
      for (bool hint : {false, true}) {
        std::vector<float> got(want.size(), 1234.0f);
        gemm_chains(M, N, K, a, b, got.data(), N, order, hint ? row_end.data() : nullptr, start.data());
        EXPECT_TRUE(same_floats(got, want)) << isa_name(isa) << " threads " << threads << " hint " << hint;
      }
      PackedB packed;
      pack_b(K, N, b, order, packed);
      std::vector<int64_t> parts;
      gemm_tasks_packed(M, N, parts);
      std::vector<float> got(want.size(), 1234.0f);
      for (size_t p = 0; p < parts.size(); p += 4)
        gemm_chains_packed_part(parts[p], parts[p + 1], parts[p + 2], parts[p + 3], a, packed, got.data(), N,
                                start.data());
      EXPECT_TRUE(same_floats(got, want)) << isa_name(isa) << " in parts";
    }
}

TEST(GemmChains, BlockedOrderFollowsOpenBlas) {
  EXPECT_EQ(blocked_chain_order(100).k_bounds, (std::vector<int64_t>{0, 100}));
  EXPECT_EQ(blocked_chain_order(320).k_bounds, (std::vector<int64_t>{0, 320}));
  EXPECT_EQ(blocked_chain_order(330).k_bounds, (std::vector<int64_t>{0, 165, 330}));
  EXPECT_EQ(blocked_chain_order(353).k_bounds, (std::vector<int64_t>{0, 177, 353}));
  EXPECT_EQ(blocked_chain_order(768).k_bounds, (std::vector<int64_t>{0, 320, 544, 768}));
  EXPECT_EQ(blocked_chain_order(1024).k_bounds, (std::vector<int64_t>{0, 320, 640, 832, 1024}));
  EXPECT_TRUE(blocked_chain_order(768).add_to_c);
}

// A causal attention matrix: row i has i + 1 weights, then exact zeros.
std::vector<float> causal_weights(std::mt19937& rng, int64_t M, int64_t K, int64_t offset) {
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> w(static_cast<size_t>(M * K), 0.0f);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k <= std::min(K - 1, i + offset); ++k) w[static_cast<size_t>(i * K + k)] = dist(rng);
  return w;
}

// ---- Haswell's two chains ------------------------------------------------------------------

// The suite's order (Cooperlake, 2 threads: tests/test_sgemm_orders.cpp) back when a test ends.
struct HaswellOrder {
  explicit HaswellOrder(int threads) { set_blas_order(BlasOrder{BlasKernel::Haswell, threads}); }
  ~HaswellOrder() { set_blas_order(BlasOrder{BlasKernel::Cooperlake, 2}); }
};

// kernels::sgemm under Haswell's order against sgemm_reference, bit for bit: shapes whose
// two-chain rectangles start off the 8-column groups (OpenBLAS's threads split odd widths),
// several K-blocks (one thread and two round the last ones differently), transposed operands,
// a bias, and causal A (the zero-tail hint, whose skipped steps fall in either chain).
TEST(HaswellTwoChains, SgemmEqualsTheDefinition) {
  struct Shape {
    int64_t M, N, K;
    bool a_t, b_t, bias, causal;
  };
  // clang-format off
  const Shape shapes[] = {{77, 70, 333, false, false, false, true},  {300, 45, 700, false, true, true, false},
                          {50, 101, 1000, true, false, false, true}, {13, 37, 50, false, false, true, false},
                          {130, 150, 64, false, true, true, true},   {64, 300, 96, true, true, false, false},
                          {203, 64, 203, false, false, false, true}, {24, 768, 768, false, true, true, false}};
  // clang-format on
  std::mt19937 rng(44);
  for (int blas_threads : {1, 2}) {
    HaswellOrder order(blas_threads);
    for (const Shape& s : shapes) {
      const auto A = s.causal ? causal_weights(rng, s.M, s.K, 0) : random_values(rng, static_cast<size_t>(s.M * s.K));
      const auto B = random_values(rng, static_cast<size_t>(s.K * s.N));
      const auto bias = random_values(rng, static_cast<size_t>(s.N));
      SgemmCall g;
      g.M = s.M, g.N = s.N, g.K = s.K;
      g.A = A.data();  // causal rows read as (M, K); a transposed A reads the same floats as (K, M)
      g.lda = s.a_t ? s.M : s.K;
      g.a_transposed = s.a_t;
      g.B = ConstMat{B.data(), s.b_t ? s.K : s.N, s.b_t};
      g.ldc = s.N;
      g.bias = s.bias ? bias.data() : nullptr;
      std::vector<float> want(static_cast<size_t>(s.M * s.N)), got(want.size());
      g.C = want.data();
      sgemm_reference(g);
      ASSERT_FALSE(haswell_two_chain_rects(s.M, s.N, s.K, blas_threads).empty()) << s.M << "x" << s.N;
      for (Isa isa : isas()) {
        for (int threads : {1, 2}) {
          IsaAndThreads use(isa, threads);
          std::fill(got.begin(), got.end(), -1.0f);
          g.C = got.data();
          const int64_t tiles = two_chain_tiles_run();
          sgemm(g);
          EXPECT_TRUE(same_floats(got, want)) << isa_name(isa) << " " << s.M << "x" << s.K << " @ " << s.K << "x" << s.N
                                              << ", " << blas_threads << " OpenBLAS threads";
          EXPECT_GT(two_chain_tiles_run(), tiles) << isa_name(isa);
        }
      }
    }
  }
}

// The x86 tiles leave out the vectors whose outputs are all two-chain ones (the recomputation
// stores them): with C poisoned (NaN) before the product, an output left unwritten, or one read
// before it was written, shows. Shapes whose rectangles fall on and off the tiles' rows (a
// thread's half of OpenBLAS's columns starts 4 rows past a tile: 256 = 42 x 6 + 4), 4-row bands,
// causal A, transposed A, a bias; every instruction set, one and two threads, B packed anew
// (gemm_chains) and packed once (gemm_chains_packed, a weight), and a head's packed parts.
TEST(HaswellTwoChains, SkippedOutputsAreAllWritten) {
  struct Shape {
    int64_t M, N, K;
    bool a_t, bias, causal;
  };
  // clang-format off
  const Shape shapes[] = {{520, 64, 520, false, false, true}, {300, 200, 96, false, true, false},
                          {264, 776, 40, false, true, false}, {130, 96, 260, true, false, false},
                          {1030, 32, 70, false, false, false},
                          {700, 256, 40, false, true, false}};  // a 4-row band shifts the 6-row runs
  // clang-format on
  const float poison = std::numeric_limits<float>::quiet_NaN();
  std::mt19937 rng(4444);
  std::map<Isa, int64_t> skipped;
  int64_t moved_bounds = 0;  // parts whose rows moved to a two-chain rectangle's edge
  for (int blas_threads : {1, 2}) {
    HaswellOrder order(blas_threads);
    for (const Shape& s : shapes) {
      const auto A = s.causal ? causal_weights(rng, s.M, s.K, 0) : random_values(rng, static_cast<size_t>(s.M * s.K));
      const auto B = random_values(rng, static_cast<size_t>(s.K * s.N));
      const auto bias = random_values(rng, static_cast<size_t>(s.N));
      SgemmCall g;
      g.M = s.M, g.N = s.N, g.K = s.K;
      g.A = A.data();
      g.lda = s.a_t ? s.M : s.K;
      g.a_transposed = s.a_t;
      g.B = ConstMat{B.data(), s.N, false};
      g.ldc = s.N;
      g.bias = s.bias ? bias.data() : nullptr;
      std::vector<float> want(static_cast<size_t>(s.M * s.N)), got(want.size());
      g.C = want.data();
      sgemm_reference(g);
      const std::string what = std::to_string(s.M) + "x" + std::to_string(s.K) + " @ " + std::to_string(s.K) + "x" +
                               std::to_string(s.N) + ", " + std::to_string(blas_threads) + " OpenBLAS threads";
      for (Isa isa : isas()) {
        for (int threads : {1, 2}) {
          IsaAndThreads use(isa, threads);
          const int64_t before = two_chain_vectors_skipped();
          std::fill(got.begin(), got.end(), poison);
          g.C = got.data();
          sgemm(g);
          EXPECT_TRUE(same_floats(got, want)) << isa_name(isa) << " " << what;
          PackedWeights weights;
          for (int pass = 0; pass < 2; ++pass) {  // packs, then reuses the packed B
            std::fill(got.begin(), got.end(), poison);
            sgemm(g, &weights);
            EXPECT_TRUE(same_floats(got, want)) << isa_name(isa) << " " << what << ", packed weight, pass " << pass;
          }
          if (!s.a_t && !s.causal) {  // a head's products: packed once, then in parts
            const TwoChainOutputs two = two_chain_outputs(s.M, s.N, s.K);
            PackedB packed;
            pack_b(s.K, s.N, g.B, product_chain_order(s.M, s.N, s.K), packed);
            // The parts in items of 24 rows, and with the two-chain outputs given, whose runs of
            // rows they then do not cut (their bounds move to the rectangles' edges).
            for (bool aligned : {false, true}) {
              std::vector<int64_t> parts;
              gemm_tasks_packed(s.M, s.N, parts, aligned ? TwoChainView{&two, 0} : TwoChainView{});
              std::fill(got.begin(), got.end(), poison);
              const float* start = s.bias ? bias.data() : zero_row(s.N);
              for (size_t p = 0; p < parts.size(); p += 4) {
                gemm_chains_packed_part(parts[p], parts[p + 1], parts[p + 2], parts[p + 3],
                                        ConstMat{A.data(), s.K, false}, packed, got.data(), s.N, start,
                                        TwoChainView{&two, 0});
                if (aligned && parts[p + 1] % 24 != 0 && parts[p] + parts[p + 1] < s.M) ++moved_bounds;
              }
              EXPECT_TRUE(same_floats(got, want)) << isa_name(isa) << " " << what << ", in parts, aligned " << aligned;
            }
          }
          skipped[isa] += two_chain_vectors_skipped() - before;
        }
      }
    }
  }
  // The evidence that the x86 tiles did leave vectors out, and that some parts' bounds moved.
  for (Isa isa : isas()) {
    if (x86_vectors(isa)) {
      EXPECT_GT(skipped[isa], 0) << isa_name(isa);
    }
  }
  EXPECT_GT(moved_bounds, 0);
}

// The fused attention's blocks of query rows (two_chain_row_bounds over the context's two-chain
// outputs): from 0 to T, at most 6 rows longer than asked, and no bound inside a run of
// two-chain rows of the context or of the scores, where a 4-row band has shifted the runs off
// every 24th row (T = 1024 and 2048, 1 and 2 OpenBLAS threads); some bounds then move.
TEST(HaswellTwoChains, AttentionBlocksCutNoRun) {
  int64_t moved = 0;
  for (int blas_threads : {1, 2}) {
    HaswellOrder order(blas_threads);
    for (int64_t T : {1024, 2048}) {
      const TwoChainOutputs context = two_chain_outputs(T, 64, T), scores = two_chain_outputs(T, T, 64);
      ASSERT_FALSE(context.empty());
      const std::vector<int64_t> bounds = two_chain_row_bounds(T, 24, TwoChainView{&context, 0});
      ASSERT_GE(bounds.size(), 2u);
      EXPECT_EQ(bounds.front(), 0);
      EXPECT_EQ(bounds.back(), T);
      for (size_t b = 0; b + 1 < bounds.size(); ++b) {
        EXPECT_GT(bounds[b + 1], bounds[b]);
        EXPECT_LE(bounds[b + 1] - bounds[b], 24 + 2 * kTwoChainReach) << "T " << T << ", block " << b;
        if (bounds[b] % 24 != 0) ++moved;
        for (const TwoChainOutputs* two : {&context, &scores})
          for (const OutputRect& r : two->rects)
            EXPECT_FALSE(r.i0 < bounds[b] && bounds[b] < r.i1)
                << "T " << T << ", " << blas_threads << " threads: bound " << bounds[b] << " inside rows [" << r.i0
                << ", " << r.i1 << ")";
      }
    }
  }
  EXPECT_GT(moved, 0);
}

// A (M, K) @ B (K, N) + bias, all row-major, by the definition; sgemm must give the same bits
// on every instruction set (one thread). Returns the definition's C.
std::vector<float> sgemm_on_every_isa(int64_t M, int64_t N, int64_t K, const std::vector<float>& A,
                                      const std::vector<float>& B, const std::vector<float>& bias) {
  std::vector<float> want(static_cast<size_t>(M * N)), got(want.size());
  SgemmCall g;
  g.M = M, g.N = N, g.K = K;
  g.A = A.data();
  g.lda = K;
  g.B = ConstMat{B.data(), N, false};
  g.C = want.data();
  g.ldc = N;
  g.bias = bias.data();
  sgemm_reference(g);
  for (Isa isa : isas()) {
    IsaAndThreads use(isa, 1);
    g.C = got.data();
    sgemm(g);
    EXPECT_TRUE(same_floats(got, want)) << isa_name(isa);
  }
  return want;
}

// The zero-tail hint with two chains: a row's two first products underflow to -0 (one in each
// chain), the rest are zero weights. With a bias of -0, skipping the zeros would leave
// -0 + -0 = -0, where the full chains end at +0 and C at +0: recomputed exactly.
TEST(HaswellTwoChains, ZeroTailHintKeepsTheSignOfZero) {
  HaswellOrder order(2);
  const int64_t M = 8, N = 16, K = 64;
  std::vector<float> A(static_cast<size_t>(M * K), 0.0f), B(static_cast<size_t>(K * N), 1.0f),
      bias(static_cast<size_t>(N), -0.0f);
  for (int64_t i = 0; i < M; ++i) A[static_cast<size_t>(i * K)] = A[static_cast<size_t>(i * K + 1)] = 1e-30f;
  for (int64_t j = 0; j < N; ++j) B[static_cast<size_t>(j)] = B[static_cast<size_t>(N + j)] = -1e-30f;
  ASSERT_FALSE(haswell_two_chain_rects(M, N, K, 2).empty());
  const std::vector<float> want = sgemm_on_every_isa(M, N, K, A, B, bias);
  EXPECT_EQ(bits(want[0]), 0u);  // +0
}

// The same fix must recompute each output in its own chains: a two-chain output in two, its
// one-chain neighbours in one. Every row's products run 1, 2^-30, -1, -2^-30, then two that
// underflow to -0, then zero weights against positive B; the bias is -0. In two chains the
// even one runs 1, +0, -0 and the odd one 2^-30, +0, -0: with the bias, -0 where the hint
// stops, +0 over the whole row. One chain absorbs 2^-30 into 1 and ends at -2^-30. So a
// two-chain output recomputed in one chain is -2^-30, not +0. The shape's two-chain
// rectangles (rows 0-3 and 4-7) stop at column 16 of 20, so an answer taken from the next or
// the previous column is wrong at an edge.
TEST(HaswellTwoChains, ZeroTailHintRecomputesEachOutputInItsOwnChains) {
  HaswellOrder order(2);
  const int64_t M = 8, N = 20, K = 64;
  const float small = std::ldexp(1.0f, -30), tiny = 1e-30f;
  std::vector<float> A(static_cast<size_t>(M * K), 0.0f), B(static_cast<size_t>(K * N), 1.0f),
      bias(static_cast<size_t>(N), -0.0f);
  for (int64_t i = 0; i < M; ++i) {
    float* a = A.data() + i * K;
    a[0] = 1.0f, a[1] = small, a[2] = -1.0f, a[3] = -small, a[4] = a[5] = tiny;
  }
  for (int64_t j = 0; j < N; ++j) B[static_cast<size_t>(4 * N + j)] = B[static_cast<size_t>(5 * N + j)] = -tiny;
  const std::vector<uint8_t> two = haswell_two_chain_outputs(M, N, K, 2);
  int64_t two_chain = 0;
  for (uint8_t t : two) two_chain += t;
  ASSERT_GT(two_chain, 0);
  ASSERT_LT(two_chain, M * N);
  const std::vector<float> want = sgemm_on_every_isa(M, N, K, A, B, bias);
  for (size_t e = 0; e < want.size(); ++e)  // the definition's own answers, as worked out above
    ASSERT_EQ(bits(want[e]), two[e] ? 0u : bits(-small)) << "element " << e;
}

// Two chains continued piece by piece (gemm_two_chains_resume, as the fused backward's grad_keys
// and grad_values), pieces starting on odd and even steps, A read in place and transposed: the
// same even and odd chains as the whole block's, on every instruction set.
TEST(HaswellTwoChains, ResumedPiecesAreTheWholeBlock) {
  const int64_t M = 37, N = 29, K = 77, paired = K / 8 * 8;
  TwoChainOutputs all;  // every output a two-chain one
  all.rects = {OutputRect{0, M, 0, N}};
  all.max_height = M;
  std::mt19937 rng(45);
  const auto A = random_values(rng, static_cast<size_t>(M * K));
  const auto B = random_values(rng, static_cast<size_t>(K * N));
  const int64_t cuts[] = {0, 5, 12, 13, 40, 77};
  for (bool a_t : {false, true}) {
    const ConstMat a{A.data(), a_t ? M : K, a_t};
    std::vector<float> want(static_cast<size_t>(M * N));
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        float even = 0.0f, odd = 0.0f;
        for (int64_t k = 0; k < K; ++k) {
          float& acc = k < paired && k % 2 == 1 ? odd : even;
          acc = attn::fma32(a.at(i, k), B[static_cast<size_t>(k * N + j)], acc);
        }
        want[static_cast<size_t>(i * N + j)] = odd + even;
      }
    for (Isa isa : isas()) {
      IsaAndThreads use(isa, 1);
      std::vector<float> state(two_chain_state_size(all, N), 0.0f), got(want.size());
      for (size_t p = 0; p + 1 < std::size(cuts); ++p)
        gemm_two_chains_resume(M, N, cuts[p + 1] - cuts[p], a.offset(0, cuts[p]),
                               ConstMat{B.data(), N, false}.offset(cuts[p], 0), state.data(), cuts[p], K, all);
      two_chain_state_sums(all, state.data(), M, N, got.data(), N);
      EXPECT_TRUE(same_floats(got, want)) << isa_name(isa) << (a_t ? ", A transposed" : "");
    }
  }
}

// Packed panels start on a cache line, so that no 512-bit load of them straddles two (Intel
// cores split such loads); malloc alone gives 16 bytes past one for blocks of 128 KiB and more.
TEST(GemmChains, PackedOperandsStartOnACacheLine) {
  for (const auto& [K, N] : std::vector<std::pair<int64_t, int64_t>>{{64, 33}, {64, 1024}, {1024, 64}, {768, 768}}) {
    std::mt19937 rng(7);
    const std::vector<float> b = random_values(rng, static_cast<size_t>(K * N));
    PackedB packed;
    pack_b(K, N, ConstMat{b.data(), N, false}, single_chain(K), packed);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(packed.data.data()) % 64, 0u) << K << " x " << N;
  }
  for (size_t n : {size_t{1}, size_t{1000}, size_t{70000}, size_t{1} << 19}) {
    std::vector<float, CacheLineAllocator<float>> v(n, 1.0f);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % 64, 0u) << n;
    v.resize(2 * n, 2.0f);  // a new block, the old one handed back
    EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % 64, 0u) << n;
    EXPECT_EQ(v[n - 1], 1.0f);
    EXPECT_EQ(v[2 * n - 1], 2.0f);
  }
}

// The vendor that chooses a blocking order is cpuid's, as the kernel reports it.
TEST(Cpu, VendorIsTheCpusOwn) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, vendor;
  while (vendor.empty() && std::getline(cpuinfo, line))
    if (line.rfind("vendor_id", 0) == 0) vendor = line.substr(line.find(':') + 2);
  if (vendor.empty()) GTEST_SKIP() << "no vendor_id in /proc/cpuinfo";
#if !defined(__x86_64__)
  // Off x86 there is no cpuid and no x86 OpenBLAS order to choose (under qemu-user /proc/cpuinfo
  // is the x86 host's): the vendor is Other.
  EXPECT_EQ(cpu_vendor(), Vendor::Other) << vendor;
  return;
#endif
  const Vendor want = vendor == "GenuineIntel" ? Vendor::Intel : vendor == "AuthenticAMD" ? Vendor::Amd
                                                                                          : Vendor::Other;
  EXPECT_EQ(cpu_vendor(), want) << vendor;
}

TEST(GemmChains, ZeroTailHintIsExact) {
  std::mt19937 rng(3);
  for (Isa isa : isas()) {
    for (int threads : {1, 2}) {
      for (int64_t K : {int64_t{40}, int64_t{333}, int64_t{1024}})
        for (int64_t M : {int64_t{77}, int64_t{300}}) {  // 300: shared out in parts of whole rows
          const int64_t N = 70, offset = K / 3;
          const auto A = causal_weights(rng, M, K, offset);
          const auto B = random_values(rng, static_cast<size_t>(K * N));
          const auto ends = trailing_zero_bounds(M, K, ConstMat{A.data(), K, false});
          for (bool blocked : {false, true}) {
            ChainOrder order = blocked ? blocked_chain_order(K) : single_chain(K);
            std::vector<float> want(static_cast<size_t>(M * N), 0.0f), got = want, got_packed = want;
            gemm_chains_reference(M, N, K, ConstMat{A.data(), K, false}, ConstMat{B.data(), N, false}, want.data(), N, order);
            IsaAndThreads use(isa, threads);
            gemm_chains(M, N, K, ConstMat{A.data(), K, false}, ConstMat{B.data(), N, false}, got.data(), N, order,
                        ends.data());
            EXPECT_TRUE(same_floats(got, want)) << isa_name(isa) << " M=" << M << " K=" << K << " blocked=" << blocked;
            PackedB packed;
            pack_b(K, N, ConstMat{B.data(), N, false}, order, packed, /*check_finite=*/true);
            gemm_chains_packed(M, N, ConstMat{A.data(), K, false}, packed, got_packed.data(), N, ends.data());
            EXPECT_TRUE(same_floats(got_packed, want)) << isa_name(isa) << " packed K=" << K;
          }
        }
    }
  }
}

TEST(GemmChains, ZeroTailHintIgnoredWhenSkippedValuesAreNotFinite) {
  std::mt19937 rng(4);
  const int64_t M = 20, N = 40, K = 64;
  const auto A = causal_weights(rng, M, K, 0);
  auto B = random_values(rng, static_cast<size_t>(K * N));
  B[static_cast<size_t>(50 * N + 3)] = kInf;  // 0 * inf = NaN must show
  B[static_cast<size_t>(60 * N + 9)] = std::numeric_limits<float>::quiet_NaN();
  const auto ends = trailing_zero_bounds(M, K, ConstMat{A.data(), K, false});
  for (Isa isa : isas()) {
    std::vector<float> want(static_cast<size_t>(M * N)), got(want.size());
    gemm_chains_reference(M, N, K, ConstMat{A.data(), K, false}, ConstMat{B.data(), N, false}, want.data(), N,
                          single_chain(K));
    IsaAndThreads use(isa, 1);
    gemm_chains(M, N, K, ConstMat{A.data(), K, false}, ConstMat{B.data(), N, false}, got.data(), N, single_chain(K),
                ends.data());
    EXPECT_TRUE(same_floats(got, want)) << isa_name(isa);
    EXPECT_TRUE(std::isnan(got[3]));
    // The same through a packed B (an attention head's values), which finds B's last
    // non-finite row when it is packed.
    PackedB packed;
    pack_b(K, N, ConstMat{B.data(), N, false}, single_chain(K), packed, /*check_finite=*/true);
    EXPECT_EQ(packed.last_nonfinite_row, 60) << isa_name(isa);
    std::vector<float> got_packed(want.size());
    gemm_chains_packed(M, N, ConstMat{A.data(), K, false}, packed, got_packed.data(), N, ends.data());
    EXPECT_TRUE(same_floats(got_packed, want)) << isa_name(isa) << " packed";
  }
}

TEST(GemmChains, ZeroTailHintKeepsTheSignOfZero) {
  // Row 0: one product that underflows to -0, then a zero weight times a positive value.
  // The full chain adds +0 to -0 and ends at +0; skipping the zero would leave -0.
  const int64_t M = 1, N = 16, K = 2;
  const std::vector<float> A = {1e-30f, 0.0f};
  std::vector<float> B(static_cast<size_t>(K * N));
  for (int64_t j = 0; j < N; ++j) {
    B[static_cast<size_t>(j)] = -1e-30f;
    B[static_cast<size_t>(N + j)] = 1.0f;
  }
  const int64_t ends[] = {1};
  for (Isa isa : isas()) {
    std::vector<float> want(N), got(N);
    gemm_chains_reference(M, N, K, ConstMat{A.data(), K, false}, ConstMat{B.data(), N, false}, want.data(), N,
                          single_chain(K));
    IsaAndThreads use(isa, 1);
    gemm_chains(M, N, K, ConstMat{A.data(), K, false}, ConstMat{B.data(), N, false}, got.data(), N, single_chain(K),
                ends);
    EXPECT_EQ(bits(want[0]), 0u);  // +0
    EXPECT_TRUE(same_floats(got, want)) << isa_name(isa);
  }
}

TEST(GemmChains, ScoresWithTheirScaleAndRowMaximum) {
  // Attention scores as causal_attention computes them, (rows, 64) @ keys.T, against the
  // plain packed product times 2^-3 and each row's maximum. Row 3 meets keys so small that
  // its chains end at -0, which the plain product stores as +0 (acc + 0); a NaN in row 10
  // and a score that overflows in row 21 must mark their register tiles' rows unchecked.
  constexpr int64_t K = 64, D = 96, kN = 416;
  std::mt19937 rng(17);
  const bool have_avx512 = set_active_isa(Isa::Avx512) == Isa::Avx512;
  set_active_isa(best_isa());
  if (!have_avx512) GTEST_SKIP() << "the fused kernel is AVX-512 only";
  for (bool special : {false, true}) {
    for (int64_t M : {8, 32, 64}) {
      auto q = random_values(rng, static_cast<size_t>(M * D));
      auto k = random_values(rng, static_cast<size_t>(kN * D));  // keys (kN, D): keys.T is a transposed view
      if (special) {
        for (int64_t c = 0; c < K; ++c) q[static_cast<size_t>(3 * D + c)] = 1e-30f;
        for (int64_t c = 0; c < K; ++c) k[static_cast<size_t>(5 * D + c)] = -1e-30f;
        if (M > 21) {
          q[static_cast<size_t>(10 * D + 7)] = std::numeric_limits<float>::quiet_NaN();
          q[static_cast<size_t>(21 * D + 2)] = 1e30f;
          k[static_cast<size_t>(40 * D + 2)] = 1e30f;
        }
      }
      PackedB keys_t;
      pack_b(K, kN, ConstMat{k.data(), D, true}, blocked_chain_order(K), keys_t);
      const ConstMat a{q.data(), D, false};
      for (int64_t n : {32, 128, 160, 416}) {
        std::vector<float> want(static_cast<size_t>(M * kN), 7.0f), got = want;
        gemm_chains_packed(M, n, a, keys_t, want.data(), kN, nullptr, zero_row(n));
        std::vector<float> row_max(static_cast<size_t>(M)), want_max(static_cast<size_t>(M), -kInf);
        std::vector<char> nonfinite(static_cast<size_t>(M), 0);
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < n; ++j) {
            float& c = want[static_cast<size_t>(i * kN + j)];
            c = c / 8.0f;
            if (!std::isfinite(c)) nonfinite[static_cast<size_t>(i)] = 1;
            want_max[static_cast<size_t>(i)] = std::max(want_max[static_cast<size_t>(i)], c);
          }
        bool unchecked[64];
        ASSERT_TRUE(gemm_scores_scaled_max(M, n, a, keys_t, got.data(), kN, -3, row_max.data(), unchecked));
        EXPECT_TRUE(same_floats(got, want)) << "M=" << M << " n=" << n << " special=" << special;
        for (int64_t i = 0; i < M; ++i) {
          bool tile_nonfinite = false;  // any row of its 8-row register tile
          for (int64_t r = i / 8 * 8; r < i / 8 * 8 + 8; ++r) tile_nonfinite |= nonfinite[static_cast<size_t>(r)] != 0;
          EXPECT_EQ(unchecked[i], tile_nonfinite) << "row " << i << " M=" << M << " n=" << n;
          if (!tile_nonfinite)
            EXPECT_EQ(row_max[static_cast<size_t>(i)], want_max[static_cast<size_t>(i)]) << "row " << i;
        }
        if (special && M > 21) EXPECT_TRUE(unchecked[10] && unchecked[21] == (n > 40) && !unchecked[3]);
      }
      // Where no fused kernel applies, nothing is computed.
      float max_out[64];
      bool unchecked_out[64];
      std::vector<float> untouched(static_cast<size_t>(M * kN), 7.0f);
      EXPECT_FALSE(gemm_scores_scaled_max(M, 48, a, keys_t, untouched.data(), kN, -3, max_out, unchecked_out));
      EXPECT_FALSE(gemm_scores_scaled_max(M - 1, 32, a, keys_t, untouched.data(), kN, -3, max_out, unchecked_out));
      {
        IsaAndThreads use(Isa::Avx2, 1);
        EXPECT_FALSE(gemm_scores_scaled_max(M, 32, a, keys_t, untouched.data(), kN, -3, max_out, unchecked_out));
      }
      EXPECT_EQ(untouched, std::vector<float>(static_cast<size_t>(M * kN), 7.0f));
    }
  }
}

// ---- sgemm: which OpenBLAS kernel, and the fast path --------------------------------------

TEST(Sgemm, KernelChoiceFollowsOpenBlas) {
  EXPECT_EQ(sgemm_kernel(100, 100, 100, false), SgemmKernel::SmallNN);
  EXPECT_EQ(sgemm_kernel(101, 100, 100, false), SgemmKernel::Blocked);
  EXPECT_EQ(sgemm_kernel(16, 64, 64, true), SgemmKernel::SmallTN);  // M*N <= 1200, K >= 32
  EXPECT_EQ(sgemm_kernel(64, 96, 96, true), SgemmKernel::Blocked);  // M*N > 1200
  EXPECT_EQ(sgemm_kernel(10, 10, 31, true), SgemmKernel::Blocked);  // K < 32
  EXPECT_EQ(sgemm_kernel(10, 1, 40, true), SgemmKernel::SmallTN);   // x @ W.T with one output
  EXPECT_EQ(sgemm_kernel(10, 1, 40, false), SgemmKernel::SmallNN);  // a contiguous column
}

TEST(Sgemm, FastEqualsReference) {
  std::mt19937 rng(5);
  struct Case {
    int64_t M, N, K;
    bool b_transposed, bias;
  };
  // clang-format off
  const Case cases[] = {
      {6, 3, 3, false, false},     {41, 8, 41, false, false},   {30, 20, 40, false, true},  // small NN, dot-like tail
      {16, 64, 64, true, false},   {7, 13, 33, true, true},     {3, 5, 500, true, false},   // small TN
      {64, 96, 96, true, true},    {64, 768, 768, true, false}, {100, 101, 100, false, true},  // blocked
      {1, 768, 1024, false, false}, {200, 1, 400, false, false}, {130, 70, 700, true, true},
      {300, 1, 768, true, true},   {2000, 1, 768, true, false},                              // one output

  };
  // clang-format on
  for (Isa isa : isas()) {
    for (const auto& c : cases) {
      const auto A = random_values(rng, static_cast<size_t>(c.M * c.K));
      const auto B = random_values(rng, static_cast<size_t>(c.K * c.N));
      const auto bias = random_values(rng, static_cast<size_t>(c.N));
      std::vector<float> want(static_cast<size_t>(c.M * c.N)), got(want.size());
      SgemmCall call;
      call.M = c.M;
      call.N = c.N;
      call.K = c.K;
      call.A = A.data();
      call.lda = c.K;
      call.B = ConstMat{B.data(), c.b_transposed ? c.K : c.N, c.b_transposed};
      call.ldc = c.N;
      call.bias = c.bias ? bias.data() : nullptr;
      call.C = want.data();
      sgemm_reference(call);
      IsaAndThreads use(isa, 2);
      call.C = got.data();
      sgemm(call);
      EXPECT_TRUE(same_floats(got, want)) << isa_name(isa) << " M=" << c.M << " N=" << c.N << " K=" << c.K;
    }
  }
}

// ---- softmax -----------------------------------------------------------------------------

TEST(Softmax, ExpEqualsSleefOnEveryRange) {
  std::vector<float> x;
  for (float v = -110.0f; v <= 110.0f; v += 0.0137f) x.push_back(v);
  for (float v : {0.0f, -0.0f, kInf, -kInf, std::numeric_limits<float>::quiet_NaN(), -104.0f, -103.99f,
                  100.0f, 100.01f, 88.7f, 88.8f, -87.3f, -87.4f, 1e-30f, -1e-30f, 3e38f, -3e38f})
    x.push_back(v);
  std::vector<float> want(x.size());
  for (size_t i = 0; i < x.size(); ++i) want[i] = sleef_expf(x[i]);
  for (Isa isa : isas()) {
    std::vector<float> got(x.size());
    IsaAndThreads use(isa, 1);
    exp_values(x.data(), got.data(), static_cast<int64_t>(x.size()));
    EXPECT_TRUE(same_floats(got, want)) << isa_name(isa);
  }
}

std::vector<float> softmax_reference_rows(std::vector<float> x, int64_t n) {
  for (size_t r = 0; r * static_cast<size_t>(n) < x.size(); ++r) softmax_row_reference(x.data() + r * n, n);
  return x;
}

TEST(Softmax, RowsEqualReference) {
  std::mt19937 rng(6);
  for (int64_t n : {1, 2, 5, 7, 8, 9, 15, 16, 17, 31, 64, 100, 1023}) {
    for (float scale : {1.0f, 30.0f, 1e4f}) {
      auto x = random_values(rng, static_cast<size_t>(n * 9), scale);
      // Some masked entries, and one row each with +inf, NaN and all -inf.
      for (size_t i = 0; i < x.size(); i += 5) x[i] = -kInf;
      x[static_cast<size_t>(n) * 6] = kInf;
      x[static_cast<size_t>(n) * 7] = std::numeric_limits<float>::quiet_NaN();
      for (int64_t j = 0; j < n; ++j) x[static_cast<size_t>(n * 8 + j)] = -kInf;
      const auto want = softmax_reference_rows(x, n);
      for (Isa isa : isas()) {
        auto got = x;
        IsaAndThreads use(isa, 2);
        softmax_rows(got.data(), 9, n);
        EXPECT_TRUE(same_floats(got, want)) << isa_name(isa) << " n=" << n << " scale=" << scale;
      }
    }
  }
}

TEST(Softmax, MaskedRowEqualsMaskingThenReference) {
  std::mt19937 rng(7);
  // Divisors: sqrt(64), a power of two (divided by multiplying with its reciprocal), and
  // sqrt(48), which is not. Scales: 400 puts many shifted scores below -104 (exp is 0) and
  // in the range where exp is subnormal. Rows of 130 and 1000 cover the 64-value steps.
  for (int64_t full_n : {3, 8, 9, 64, 130, 1000}) {
    for (int64_t valid = 1; valid <= full_n; valid += std::max<int64_t>(1, full_n / 7)) {
      for (float scale : {1.0f, 50.0f, 400.0f})
        for (float divisor : {8.0f, static_cast<float>(std::sqrt(48.0))}) {
          auto scores = random_values(rng, static_cast<size_t>(full_n), scale);
          if (valid > 4) scores[static_cast<size_t>(valid / 2)] = -kInf;  // a kept -inf score: weight 0
          // The definition: masked_fill(-inf), / divisor, softmax over the whole row.
          std::vector<float> want = scores;
          for (int64_t i = 0; i < full_n; ++i) want[i] = i < valid ? want[i] / divisor : -kInf;
          softmax_row_reference(want.data(), full_n);
          for (Isa isa : isas()) {
            const int64_t n = std::min(full_n, valid + 3);  // store a few zeros past the kept scores
            std::vector<float> got(scores.begin(), scores.begin() + n);
            IsaAndThreads use(isa, 1);
            masked_softmax_row(got.data(), valid, n, full_n, divisor);
            EXPECT_TRUE(same_floats(got, std::vector<float>(want.begin(), want.begin() + n)))
                << isa_name(isa) << " full_n=" << full_n << " valid=" << valid << " scale=" << scale
                << " divisor=" << divisor;
          }
        }
    }
  }
}

TEST(Softmax, MaskedRowsEqualTheDefinitionRowByRow) {
  // A causal block: row r keeps first_valid + r scores. Some rows take the generic steps
  // (NaN, +inf, all kept scores -inf) in the same group of four as rows that do not.
  // Scale 400 puts shifted scores below -104 and into the subnormal range, in rows that go
  // through the exps four, three, two and one at a time (the sums of two rows share a register).
  std::mt19937 rng(9);
  for (float scale : {20.0f, 400.0f})
    for (int64_t full_n : {9, 130, 700}) {
      for (int64_t count : {1, 2, 3, 4, 11}) {
        const int64_t first_valid = std::max<int64_t>(1, full_n - count - 2), n = full_n;
        if (first_valid + count - 1 > full_n) continue;  // a row cannot keep more than full_n
        std::vector<float> block = random_values(rng, static_cast<size_t>(count * full_n), scale);
        auto at = [&](int64_t r, int64_t j) -> float& { return block[static_cast<size_t>(r * full_n + j)]; };
        if (count > 2) at(2, 1) = std::numeric_limits<float>::quiet_NaN();
        if (count > 5) at(5, 0) = kInf;
        if (count > 7)
          for (int64_t j = 0; j < first_valid + 7; ++j) at(7, j) = -kInf;
        std::vector<float> want = block;
        for (int64_t r = 0; r < count; ++r) {
          float* row = want.data() + r * full_n;
          for (int64_t j = 0; j < full_n; ++j) row[j] = j < first_valid + r ? row[j] / 8.0f : -kInf;
          softmax_row_reference(row, full_n);
        }
        for (Isa isa : isas()) {
          std::vector<float> got = block;
          IsaAndThreads use(isa, 1);
          masked_softmax_rows(got.data(), count, full_n, first_valid, n, full_n, 8.0f);
          EXPECT_TRUE(same_floats(got, want))
              << isa_name(isa) << " full_n=" << full_n << " count=" << count << " scale=" << scale;
        }
      }
    }
}

TEST(Softmax, MaskedRowsWithADividedPrefixEqualTheDefinition) {
  // The causal block after the fused scores: each row's first `cols` scores arrive divided,
  // with their maximum. Rows with a NaN or +inf there are marked unchecked (their maximum is
  // not used); a row whose larger score is in the rest, and one whose only +inf is in the
  // rest, check that both parts count.
  std::mt19937 rng(23);
  const int64_t full_n = 300, count = 11, first_valid = 200, cols = 192;
  std::vector<float> block = random_values(rng, static_cast<size_t>(count * full_n), 20.0f);
  auto at = [&](int64_t r, int64_t j) -> float& { return block[static_cast<size_t>(r * full_n + j)]; };
  at(2, 5) = std::numeric_limits<float>::quiet_NaN();
  at(4, 190) = kInf;
  at(6, 195) = 500.0f;  // larger than anything before it
  at(8, 197) = kInf;
  std::vector<float> want = block;
  for (int64_t r = 0; r < count; ++r) {
    float* row = want.data() + r * full_n;
    for (int64_t j = 0; j < full_n; ++j) row[j] = j < first_valid + r ? row[j] / 8.0f : -kInf;
    softmax_row_reference(row, full_n);
  }
  std::vector<float> got = block, pre_max(count, -kInf);
  bool unchecked[count];
  for (int64_t r = 0; r < count; ++r) {
    unchecked[r] = false;
    for (int64_t j = 0; j < cols; ++j) {
      float& x = got[static_cast<size_t>(r * full_n + j)];
      x = x / 8.0f;
      if (!std::isfinite(x)) unchecked[r] = true;
      pre_max[static_cast<size_t>(r)] = std::max(pre_max[static_cast<size_t>(r)], x);
    }
  }
  ASSERT_TRUE(unchecked[2] && unchecked[4] && !unchecked[6] && !unchecked[8]);
  const DividedPrefix divided{cols, pre_max.data(), unchecked};
  for (Isa isa : isas()) {
    std::vector<float> rows = got;
    IsaAndThreads use(isa, 1);
    masked_softmax_rows(rows.data(), count, full_n, first_valid, full_n, full_n, 8.0f, &divided);
    EXPECT_TRUE(same_floats(rows, want)) << isa_name(isa);
  }
}

TEST(Softmax, DivisionIsScalingOnlyForPowersOfTwo) {
  int e = 99;
  EXPECT_TRUE(division_is_scaling(8.0f, e));  // sqrt(64): GPT-2's heads
  EXPECT_EQ(e, -3);
  EXPECT_TRUE(division_is_scaling(1.0f, e));
  EXPECT_EQ(e, 0);
  EXPECT_TRUE(division_is_scaling(0.25f, e));
  EXPECT_EQ(e, 2);
  e = 99;
  EXPECT_FALSE(division_is_scaling(std::sqrt(48.0f), e));
  EXPECT_FALSE(division_is_scaling(6.0f, e));
  EXPECT_FALSE(division_is_scaling(0x1p127f, e));  // 2^-127 is not a normal float
  EXPECT_FALSE(division_is_scaling(kInf, e));
  EXPECT_EQ(e, 99);  // untouched when false
}

// The backward's scores' gradient, ((g - sum) * w) / divisor, on each vector unit: a power-of-two
// divisor goes by its reciprocal there, which must give the divide's floats, down to subnormal
// results, zeros' signs, infinities and NaNs, and be left alone where the reciprocal would not be
// a normal float (2^-130's is 2^130: infinity, and 0 * infinity is NaN where 0 / 2^-130 is 0).
TEST(SoftmaxBackward, CausalGradScaleEqualsTheDivision) {
  std::mt19937 rng(11);
  const int64_t n = 45;  // five 8-lane vectors, eleven 4-lane ones, and a tail
  auto g = random_values(rng, static_cast<size_t>(n)), w = random_values(rng, static_cast<size_t>(n));
  g[1] = -0.0f, w[2] = -0.0f, g[3] = kInf, w[4] = std::numeric_limits<float>::quiet_NaN();
  g[5] = 1e-30f, w[5] = 1e-9f;  // (1e-30 - sum) * 1e-9 divided: subnormal under large divisors
  w[44] = 0x1p-149f;            // the tail's smallest subnormal
  for (Isa isa : isas()) {
    if (isa == Isa::Scalar || isa == Isa::Avx512) continue;  // x86's vector units both run the AVX2 rows
    for (const float divisor : {8.0f, std::sqrt(48.0f), 1.0f, 0.25f, 0x1p100f, 0x1p-126f, 0x1p-130f, -8.0f, kInf})
      for (const float sum : {0.5f, 0.0f, 1e-30f}) {
        std::vector<float> want(static_cast<size_t>(n)), got(static_cast<size_t>(n), 7.0f);
        for (int64_t j = 0; j < n; ++j) want[static_cast<size_t>(j)] = ((g[j] - sum) * w[j]) / divisor;
        if (isa == Isa::Neon)
          detail::causal_grad_scale_neon(g.data(), w.data(), sum, divisor, got.data(), n);
        else
          detail::causal_grad_scale_avx2(g.data(), w.data(), sum, divisor, got.data(), n);
        EXPECT_TRUE(same_floats(got, want)) << isa_name(isa) << " divisor " << divisor << " sum " << sum;
      }
  }
}

TEST(Softmax, ShiftedScoresNearMinus104GetSleefsWeights) {
  // SLEEF's expf returns 0 below -104; just above, exp is a subnormal that rounds to 0 up to
  // about -103.97 and to the smallest subnormals from there. These rows (maximum 0, divisor 1)
  // step through [-104.3, -103.5] by 0.02, with a kept -inf score, one to four rows at a time.
  for (int64_t count : {1, 2, 3, 4}) {
    const int64_t n = 48;
    std::vector<float> block(static_cast<size_t>(count * n));
    for (int64_t r = 0; r < count; ++r)
      for (int64_t j = 0; j < n; ++j)
        block[static_cast<size_t>(r * n + j)] =
            j == r ? 0.0f : j == 20 + r ? -kInf
                                        : -104.3f + 0.02f * static_cast<float>((j + 7 * r) % 41);
    // A causal block: row r keeps its first first_valid + r scores.
    const int64_t first_valid = n - count + 1;
    std::vector<float> want = block;
    for (int64_t r = 0; r < count; ++r) {
      float* row = want.data() + r * n;
      for (int64_t j = first_valid + r; j < n; ++j) row[j] = -kInf;
      softmax_row_reference(row, n);
    }
    for (Isa isa : isas()) {
      std::vector<float> got = block;
      IsaAndThreads use(isa, 1);
      masked_softmax_rows(got.data(), count, n, first_valid, n, n, 1.0f);
      EXPECT_TRUE(same_floats(got, want)) << isa_name(isa) << " count=" << count;
    }
  }
}

// ---- the thread pool ---------------------------------------------------------------------

TEST(Parallel, RunsEveryIndexOnceAndRethrows) {
  for (int threads : {1, 2, 5}) {
    set_num_threads(threads);
    EXPECT_EQ(num_threads(), threads);
    std::vector<int> hits(1000, 0);
    parallel_for(1000, [&](int64_t i) {
      ++hits[static_cast<size_t>(i)];
      parallel_for(3, [](int64_t) {});  // nested: runs serially
    });
    for (int h : hits) EXPECT_EQ(h, 1);
    EXPECT_THROW(parallel_for(50, [](int64_t i) { if (i == 17) throw std::runtime_error("boom"); }),
                 std::runtime_error);
  }
  set_num_threads(0);
  EXPECT_GE(num_threads(), 1);
}

TEST(Parallel, SharesCoverEveryItemOnceInRuns) {
  for (int threads : {1, 2, 3, 5})
    for (int64_t n : {0, 1, 2, 7, 100, 1000})
      for (int64_t run : {1, 4}) {
        set_num_threads(threads);
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        std::mutex mutex;
        std::vector<std::pair<int64_t, int64_t>> runs;
        parallel_for_shares(n, run, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) ++hits[static_cast<size_t>(i)];
          std::lock_guard<std::mutex> lock(mutex);
          runs.emplace_back(begin, end);
        });
        const std::string where = "threads " + std::to_string(threads) + " n " + std::to_string(n);
        for (const auto& h : hits) EXPECT_EQ(h.load(), 1) << where;
        for (const auto& [begin, end] : runs) {
          EXPECT_LT(begin, end) << where;
          EXPECT_LE(end - begin, run) << where;
        }
        if (threads == 1) {  // one thread: the runs in order, each of `run` items but the last
          int64_t next = 0;
          for (const auto& [begin, end] : runs) {
            EXPECT_EQ(begin, next) << where;
            EXPECT_TRUE(end - begin == run || end == n) << where;
            next = end;
          }
        }
      }
  // A run that throws stops the others: the exception reaches the caller, and no share is
  // worked through after it. The other thread may finish the runs it takes while the exception
  // unwinds, which takes milliseconds under an emulator (qemu-user took 1.4 ms), so the bound is
  // loose: without the stop, that thread would run all 499 items left of its share, 1 ms each.
  set_num_threads(2);
  std::atomic<int> after{0};
  std::atomic<bool> thrown{false};
  EXPECT_THROW(parallel_for_shares(1000, 1,
                                   [&](int64_t begin, int64_t) {
                                     if (thrown) ++after;
                                     if (begin == 0) {
                                       thrown = true;
                                       throw std::runtime_error("boom");
                                     }
                                     std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                   }),
               std::runtime_error);
  EXPECT_LT(after.load(), 50);
  set_num_threads(0);
}

TEST(Parallel, ASlowThreadsLastItemsGoToTheOther) {
  // Two threads, shares [0, 4) and [4, 8). The thread that runs item 0 stalls until another
  // thread has run an item of its share: the other, done with its own share, takes them from
  // the back of the stalled share, the last item first.
  set_num_threads(2);
  std::vector<std::thread::id> ran(8);
  std::atomic<int64_t> first_helped{-1};
  parallel_for_shares(8, 1, [&](int64_t begin, int64_t) {
    ran[static_cast<size_t>(begin)] = std::this_thread::get_id();
    if (begin == 0) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (first_helped.load() < 0 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    } else if (begin < 4) {
      int64_t none = -1;
      first_helped.compare_exchange_strong(none, begin);
    }
  });
  EXPECT_EQ(first_helped.load(), 3);
  EXPECT_NE(ran[3], ran[0]);
  set_num_threads(0);
}

TEST(Parallel, ThreadedProductInsideATaskRunsInline) {
  // A product big enough to be shared out among the threads, started from inside a task
  // (as a head's products are), asks for the thread count while parallel_for holds the
  // pool: it must neither wait for the pool nor change its result.
  std::mt19937 rng(11);
  const int64_t M = 500, N = 64, K = 96;
  const auto A = random_values(rng, static_cast<size_t>(M * K)), B = random_values(rng, static_cast<size_t>(K * N));
  const ChainOrder order = blocked_chain_order(K);
  std::vector<float> want(static_cast<size_t>(M * N), 0.0f);
  gemm_chains_reference(M, N, K, ConstMat{A.data(), K, false}, ConstMat{B.data(), N, false}, want.data(), N, order);
  IsaAndThreads use(best_isa(), 2);
  std::vector<std::vector<float>> got(4, std::vector<float>(want.size(), 0.0f));
  parallel_for(4, [&](int64_t t) {
    EXPECT_EQ(num_threads(), 2);
    gemm_chains(M, N, K, ConstMat{A.data(), K, false}, ConstMat{B.data(), N, false}, got[static_cast<size_t>(t)].data(),
                N, order);
  });
  for (const auto& g : got) EXPECT_TRUE(same_floats(g, want));
}

}  // namespace
}  // namespace attn::kernels

// ---- rates (not a check; run on demand) ---------------------------------------------------
//   build-perf/tests/attn_walk_tests --gtest_also_run_disabled_tests --gtest_filter='*Rate*'
#include <chrono>
#include <cstdio>

namespace attn::kernels {
namespace {

TEST(GemmChains, DISABLED_Rate) {
  std::mt19937 rng(8);
  struct Shape {
    int64_t M, N, K;
    bool b_transposed;
    const char* what;
  };
  const Shape shapes[] = {{1024, 768, 768, true, "x @ W.T, the projections at T = 1024"},
                          {2048, 2048, 2048, false, "2048^3, as OpenBLAS is measured"}};
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    for (const auto& s : shapes) {
      const auto A = random_values(rng, static_cast<size_t>(s.M * s.K));
      const auto B = random_values(rng, static_cast<size_t>(s.K * s.N));
      std::vector<float> C(static_cast<size_t>(s.M * s.N));
      const ChainOrder order = blocked_chain_order(s.K);
      double best = 1e9;
      for (int r = 0; r < 6; ++r) {
        std::fill(C.begin(), C.end(), 0.0f);
        const auto t0 = std::chrono::steady_clock::now();
        gemm_chains(s.M, s.N, s.K, ConstMat{A.data(), s.K, false}, ConstMat{B.data(), s.b_transposed ? s.K : s.N, s.b_transposed},
                    C.data(), s.N, order);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      std::printf("%s, %d thread(s), %s: %.1f ms, %.0f GFLOP/s\n", isa_name(active_isa()), threads, s.what, best * 1e3,
                  2.0 * s.M * s.N * s.K / best / 1e9);
    }
  }
  set_num_threads(0);
}

// The bulk draws (Mt19937::fill, discard, fill_uniform_float on every path) against
// std::mt19937 and one uniform_float at a time.
TEST(RandomFill, BulkDrawsEqualOneAtATime) {
  std::mt19937 reference(1234);
  Mt19937 engine;
  engine.seed(1234);
  std::vector<uint32_t> bulk(2000);
  engine.fill(bulk.data(), 5);
  engine.discard(1300);
  engine.fill(bulk.data() + 5, 1995);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(bulk[static_cast<size_t>(i)], reference()) << i;
  reference.discard(1300);
  for (size_t i = 5; i < bulk.size(); ++i) ASSERT_EQ(bulk[i], reference()) << i;

  const Isa saved = active_isa();
  for (Isa isa : {Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Neon}) {
    if (set_active_isa(isa) != isa) continue;
    TorchGenerator one, many;
    one.manual_seed(77);
    many.manual_seed(77);
    std::vector<float> got(1500);
    many.fill_uniform_float(got.data(), 3, -0.25f, 0.5f);
    many.fill_uniform_float(got.data() + 3, 1497, -0.25f, 0.5f);
    for (size_t i = 0; i < got.size(); ++i) {
      const float want = one.uniform_float(-0.25f, 0.5f);
      ASSERT_EQ(std::memcmp(&got[i], &want, sizeof want), 0) << isa_name(isa) << " " << i;
    }
    EXPECT_EQ(one.random(), many.random());
  }
  set_active_isa(saved);
}

}  // namespace
}  // namespace attn::kernels
