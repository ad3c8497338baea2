// English: the bonus stages swa (sliding-window attention), rope (rotary position
// embeddings) and flash (flash attention's online softmax).
#include "lang/bonus_b.h"

namespace attn {

LangTable bonus_b_en() {
  LangTable t;
  t.code = "en";
  t.steps = {
      // ---- swa ----
      {"swa/mask",
       {"mask_bool = (diff < 0) | (diff >= W), diff = q_position - k_position (1 = hidden)",
        "The banded mask for a window of W = {window}: query i hides the future (j > i), as the "
        "chapter's causal mask does, and also every key {window} or more tokens back "
        "(i - j >= {window}). Shown as 0/1 floats; shape ({T}, {T})."}},
      {"swa/attn_scores_masked",
       {"attn_scores.masked_fill_(mask_bool, -torch.inf)",
        "queries @ keys.transpose(2, 3) for every head, then -inf outside each query's window, "
        "before the softmax; shape ({batch}, {heads}, {T}, {T})."}},
      {"swa/attn_weights",
       {"softmax(attn_scores / sqrt(head_dim), dim=-1): weights inside the window only",
        "Each row spreads its weight over at most {window} keys: the token itself and the "
        "{window} - 1 before it. The first {window_rows} rows still reach the first token and "
        "equal the chapter's causal weights; later rows forget the oldest tokens, which is why "
        "a KV cache for this layer keeps only {window} keys and values."}},
      {"swa/context_vecs",
       {"MultiHeadAttentionWithSWA(..., sliding_window_size={window}) output",
        "The heads merged and projected by out_proj, as in the chapter's MultiHeadAttention; "
        "shape ({batch}, {T}, {d_out})."}},

      // ---- rope ----
      {"rope/inv_freq",
       {"inv_freq = 1.0 / (theta_base ** (torch.arange(0, head_dim, 2) / head_dim))",
        "One frequency per pair of dimensions: {half} of them for head_dim {head_dim}, from 1 "
        "down towards 1/{rope_base} (theta_base = {rope_base}, set by --rope-base). Early pairs "
        "turn fast with position, late pairs slowly."}},
      {"rope/positions",
       {"positions = torch.arange(context_length)", "The position of each token: 0 to {last_position}."}},
      {"rope/angles",
       {"angles = positions[:, None] * inv_freq[None, :], then torch.cat([angles, angles], dim=1)",
        "Row t: how far position t turns each pair. The angles appear twice because apply_rope "
        "pairs dimension k with dimension k + {half}; shape ({T}, {head_dim})."}},
      {"rope/cos", {"cos = torch.cos(angles)", "The cosine of every angle; shape ({T}, {head_dim})."}},
      {"rope/sin", {"sin = torch.sin(angles)", "The sine of every angle; shape ({T}, {head_dim})."}},
      {"rope/keys_transposed",
       {"keys after .view(b, num_tokens, num_heads, head_dim).transpose(1, 2)",
        "The chapter's MultiHeadAttention keys, split into {heads} heads of {head_dim}: shape "
        "({batch}, {heads}, {T}, {head_dim}). RoPE works on each head's vectors."}},
      {"rope/queries_transposed",
       {"queries, split into heads the same way", "Shape ({batch}, {heads}, {T}, {head_dim})."}},
      {"rope/keys_rotated",
       {"apply_rope(keys, cos, sin) = keys * cos + cat(-x2, x1) * sin",
        "Each key is turned by its own position: pair (x1[k], x2[k]) becomes "
        "(x1 cos - x2 sin, x2 cos + x1 sin) at angle position * inv_freq[k]. Rotations keep "
        "lengths, so only directions change; shape ({batch}, {heads}, {T}, {head_dim})."}},
      {"rope/queries_rotated",
       {"apply_rope(queries, cos, sin)",
        "The queries, turned the same way. Values are not rotated: position enters through the "
        "scores only."}},
      {"rope/attn_scores_masked",
       {"rotated queries @ rotated keys.transpose(2, 3), causal mask applied",
        "A rotated query at position i against a rotated key at position j: the dot product "
        "depends on the angle between them, that is on i - j, not on i and j themselves. Shape "
        "({batch}, {heads}, {T}, {T})."}},
      {"rope/attn_weights",
       {"softmax(attn_scores / sqrt(head_dim), dim=-1)",
        "The chapter's scaled causal softmax, now over position-aware scores."}},
      {"rope/context_vecs",
       {"the module's output with RoPE",
        "Weights times the (unrotated) values, heads merged, out_proj; shape ({batch}, {T}, {d_out})."}},
      {"rope/attn_scores_shifted",
       {"the same tokens at positions {shift} to {shift_last}: scores again",
        "compute_rope_params for 2 x {T} positions, and apply_rope with rows {shift} onwards: "
        "every token moved {shift} positions later. Each i - j is unchanged, so the scores "
        "equal those above up to float rounding (the angles themselves differ)."}},

      // ---- flash ----
      {"flash/scores#first",
       {"block {j}, keys {key_first}-{key_last}: s = queries @ k_blk.T, masked, / sqrt(head_dim)",
        "Only this tile of scores exists: every query against the keys of block {j}, shape "
        "({batch}, {heads}, {T}, keys in the block). Future keys are -inf, as in the causal mask."}},
      {"flash/scores",
       {"block {j}, keys {key_first}-{key_last}: the next tile of scores",
        "queries @ k_blk.T for keys {key_first} to {key_last}, masked and divided by "
        "sqrt(head_dim). The previous tile is gone; m, l and acc carry what it contributed."}},
      {"flash/m#first",
       {"m = torch.maximum(m, s.amax(dim=-1, keepdim=True)) after block {j}",
        "The running maximum of each query's scores, which starts at -inf. Subtracting it "
        "before exp keeps exp from overflowing, as softmax subtracts the row maximum."}},
      {"flash/m",
       {"m after block {j}: the running maximum",
        "Where a row's maximum grew, everything summed so far was computed against a smaller "
        "maximum and is rescaled by alpha = exp(m_old - m_new) below."}},
      {"flash/l#first",
       {"l = alpha * l + exp(s - m).sum(dim=-1, keepdim=True) after block {j}",
        "The running softmax denominator: the sum of exp(score - m) over the keys seen so far. "
        "Before block 1, m = -inf, so alpha = exp(-inf) = 0."}},
      {"flash/l",
       {"l after block {j}: the running sum, rescaled by alpha",
        "The old sum times alpha = exp(m_old - m_new), plus this block's exp(s - m_new)."}},
      {"flash/acc#first",
       {"acc = alpha * acc + exp(s - m) @ v_blk after block {j}",
        "The running numerator: the values weighted by exp(score - m), not yet divided by l; "
        "shape ({batch}, {heads}, {T}, {head_dim})."}},
      {"flash/acc",
       {"acc after block {j}: rescaled by alpha, plus this block's values",
        "Once the last block is in, acc / l is the softmax-weighted sum of all values."}},
      {"flash/flash_context_vec",
       {"acc / l: the output of the online softmax",
        "Divided once, at the end. {num_blocks} tiles of shape {tile_shape} ({tile_floats} "
        "floats) never needed the whole score matrix {full_shape} ({full_floats} floats): "
        "memory O(T x block) instead of O(T^2). The sums are added in another order than "
        "softmax adds them, so the last bits may differ from the ordinary module."}},
      {"flash/context_vecs",
       {"the module's output: heads merged, out_proj",
        "As MultiHeadAttention finishes: transpose(1, 2), view to ({batch}, {T}, {d_out}), out_proj."}},
  };
  t.checks = {
      {"swa_rows_attend_to_window",
       "every row attends to min(i + 1, {window}) tokens: never more than the window W = {window}"},
      {"swa_first_rows_equal_causal",
       "the first {window_rows} rows equal the chapter's causal weights (same seed, same weights)"},
      {"rope_scores_depend_on_distance",
       "shifting every position by {shift} leaves the scores unchanged: they depend on i - j only "
       "(up to float rounding)"},
      {"flash_equals_attention",
       "block by block equals the ordinary softmax(QK^T / sqrt(d)) V, up to float rounding"},
      {"flash_output_equals_module", "the output equals MultiHeadAttention's, up to float rounding"},
  };
  t.ui = {
      {"heatmap.swa.mask", "mask_bool = (diff < 0) | (diff >= W): a 1 marks what is hidden, a future key or one W or more tokens back"},
      {"stage.swa", "sliding-window attention: the banded mask, at most W tokens per query"},
      {"stage.rope", "rotary position embeddings: cos/sin tables, rotated queries and keys"},
      {"stage.flash", "flash attention: online softmax over blocks of keys (running m, l, acc)"},
      {"note.rope_long_angles",
       "angles of 125 radians or more (positions beyond about 125) reach SLEEF's other range "
       "reduction, which attn-walk does not reproduce: cos and sin there may differ from "
       "PyTorch's in the last bit (docs/fidelity.md)"},
  };
  return t;
}

}  // namespace attn
