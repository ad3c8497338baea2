// The heart of MultiHeadAttention's forward pass, fused, for when only its output is
// wanted (attn-walk bench): per head, the causal scores, the scaled softmax and the
// weighted sum of the values, one block of query rows at a time.
//
// It computes exactly what the step-by-step forward computes (modules/chapter.cpp, every
// intermediate materialised), in the same order of float operations, but
//   - reads the heads straight out of the (b, T, d_out) projections (the .view() and
//     .transpose(1, 2) of the chapter are only index arithmetic here),
//   - computes only the scores the causal mask keeps (j <= i), fuses mask, 1/sqrt(d) and
//     softmax (kernels/softmax.h: masked_softmax_rows, a few rows at a time, each in two
//     passes and a scaling), and skips the products with masked weights
//     (exactly 0) in attn_weights @ values,
//   - writes the context vectors straight into (b, T, num_heads, head_dim) order, which
//     is already the merged (b, T, d_out) layout,
//   - keeps one block of rows x T weights per thread instead of (b, H, T, T) tensors.
#pragma once

#include <cstdint>

namespace attn::kernels {

// Whether the fused pass reproduces the step-by-step forward for these sizes. It does when
// both per-head products reach OpenBLAS's blocked kernel (or the small kernel without its
// dot-like columns); otherwise use the step-by-step forward.
bool causal_attention_fusable(int64_t batch, int64_t T, int64_t head_dim);

// queries, keys, values: (batch, T, H * head_dim), row-major, head h in columns
// [h * head_dim, (h + 1) * head_dim). context: the same layout, written in full.
// Computes, per (b, h): softmax(masked(q_h @ k_h.T) / sqrt(head_dim)) @ v_h.
void causal_attention(const float* queries, const float* keys, const float* values, float* context,
                      int64_t batch, int64_t T, int64_t H, int64_t head_dim);

}  // namespace attn::kernels

namespace attn::kernels {

// The backward of causal_attention, as autograd computes it for the chapter's module
// (y.backward() through attn_weights @ values, the dropout-free softmax of the scaled,
// masked scores, and queries @ keys.T), given the forward's operands and grad_context, the
// gradient of `context` (same layout): grad_queries, grad_keys, grad_values (the same
// (batch, T, H * head_dim) layout, written in full). Per head:
//   attn_weights recomputed as the forward computes them (the same bits);
//   grad_weights = grad_context @ values.T           (only the causal half: j <= i)
//   grad_scores  = softmax_backward(grad_weights, attn_weights) / sqrt(head_dim), masked
//   grad_queries = grad_scores @ keys, grad_keys = grad_scores.T @ queries,
//   grad_values  = attn_weights.T @ grad_context,
// each product in OpenBLAS's blocked order, as bmm computes it.
// Returns false, computing nothing, where this does not reproduce autograd: sizes the fused
// forward does not handle, products below OpenBLAS's blocked kernel, no vector unit, an
// infinity or a NaN in the queries, values or grad_context (autograd's masked products turn it
// into NaN where the skipped ones here do not), or operands so large that a masked
// grad_weights entry (never computed here) could overflow.
bool causal_attention_backward(const float* queries, const float* keys, const float* values,
                               const float* grad_context, float* grad_queries, float* grad_keys, float* grad_values,
                               int64_t batch, int64_t T, int64_t H, int64_t head_dim);

}  // namespace attn::kernels
