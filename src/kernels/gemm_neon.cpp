// The chain kernel with aarch64's Advanced SIMD (NEON): tiles of 6 rows x 16 columns
// (24 accumulators of the 32 vector registers, four for the panel's columns and one for the
// broadcast from the sliver). vfmaq_f32 is a fused multiply-add, one rounding, so every lane
// runs exactly gemm_chains_reference's chain: the same bits as the x86 tiles and the scalar
// definition, in whichever order OpenBLAS's kernel (torch/sgemm_order) sets.
// NEON is part of every aarch64 core: no run-time check, and the file is built only there.
#include "kernels/gemm_tile.h"

#if defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#else
#include <cstdlib>
#endif

namespace attn::kernels::detail {

#if defined(__aarch64__) && defined(__ARM_NEON)

namespace {

struct Neon {
  using vec = float32x4_t;
  static constexpr int width = 4;
  static vec zero() { return vdupq_n_f32(0.0f); }
  static vec load(const float* p) { return vld1q_f32(p); }
  static void store(float* p, vec v) { vst1q_f32(p, v); }
  static vec broadcast(const float* p) { return vld1q_dup_f32(p); }
  static vec fma(vec a, vec b, vec c) { return vfmaq_f32(c, a, b); }  // c + a * b, one rounding
  static vec add(vec a, vec b) { return vaddq_f32(a, b); }
  // The first `count` (>= 1) lanes; a full vector from 4 on. Lanes past them are not touched.
  static vec load_first(const float* p, int count) {
    if (count >= width) return load(p);
    float lanes[width] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < count; ++i) lanes[i] = p[i];
    return vld1q_f32(lanes);
  }
  static void store_first(float* p, vec v, int count) {
    if (count >= width) return store(p, v);
    float lanes[width];
    vst1q_f32(lanes, v);
    for (int i = 0; i < count; ++i) p[i] = lanes[i];
  }
  // dst[r * dst_ld + c] = src[c * src_ld + r] for a 4 x 4 block (moves only, no arithmetic).
  static void transpose(const float* src, int64_t src_ld, float* dst, int64_t dst_ld) {
    const float32x4x4_t rows = {{vld1q_f32(src), vld1q_f32(src + src_ld), vld1q_f32(src + 2 * src_ld),
                                 vld1q_f32(src + 3 * src_ld)}};
    const float32x4x2_t t01 = vtrnq_f32(rows.val[0], rows.val[1]), t23 = vtrnq_f32(rows.val[2], rows.val[3]);
    vst1q_f32(dst, vcombine_f32(vget_low_f32(t01.val[0]), vget_low_f32(t23.val[0])));
    vst1q_f32(dst + dst_ld, vcombine_f32(vget_low_f32(t01.val[1]), vget_low_f32(t23.val[1])));
    vst1q_f32(dst + 2 * dst_ld, vcombine_f32(vget_high_f32(t01.val[0]), vget_high_f32(t23.val[0])));
    vst1q_f32(dst + 3 * dst_ld, vcombine_f32(vget_high_f32(t01.val[1]), vget_high_f32(t23.val[1])));
  }
};

}  // namespace

using Kernel = TileKernel<Neon, kTileRowsNeon, kPanelNeon / Neon::width>;
static_assert(Kernel::NR == kPanelNeon && kTileCols % Kernel::NR == 0, "panel width");

void pack_b_neon(const ConstMat& B, int64_t N, const int64_t* k_bounds, int n_bounds, int64_t k_limit,
                 int64_t j_begin, int64_t j_end, int64_t n_padded, float* out) {
  Kernel::pack_b(B, N, k_bounds, n_bounds, k_limit, j_begin, j_end, n_padded, out);
}

void gemm_region_neon(const Region& r) { Kernel::region(r); }

void two_chain_steps_neon(const TwoChainSteps& t) { TwoChainKernel<Neon>::run(t); }
void transpose_rows_neon(const float* src, int64_t ld, int64_t K, int64_t M, float* dst) {
  Kernel::transpose_rows(src, ld, K, M, dst);
}

#else

// Not built for this instruction set (another architecture): never selected at run time.
void pack_b_neon(const ConstMat&, int64_t, const int64_t*, int, int64_t, int64_t, int64_t, int64_t, float*) { std::abort(); }
void gemm_region_neon(const Region&) { std::abort(); }
void two_chain_steps_neon(const TwoChainSteps&) { std::abort(); }
void transpose_rows_neon(const float*, int64_t, int64_t, int64_t, float*) { std::abort(); }

#endif

}  // namespace attn::kernels::detail
