// 中文：附加阶段 swa（滑动窗口注意力）、rope（旋转位置编码）和 flash（flash attention 的在线 softmax）。
#include "lang/bonus_b.h"

namespace attn {

LangTable bonus_b_zh() {
  LangTable t;
  t.code = "zh";
  t.steps = {
      // ---- swa ----
      {"swa/mask",
       {"mask_bool = (diff < 0) | (diff >= W)，diff = q_position - k_position（1 = 遮住）",
        "窗口 W = {window} 的带状掩码：查询 i 像本章的因果掩码一样遮住未来（j > i），还遮住 "
        "{window} 个及更早以前的键（i - j >= {window}）。这里以 0/1 浮点数显示；形状为 ({T}, {T})。"}},
      {"swa/attn_scores_masked",
       {"attn_scores.masked_fill_(mask_bool, -torch.inf)",
        "对每个头计算 queries @ keys.transpose(2, 3)，在 softmax 之前把每个查询窗口之外的位置"
        "设为 -inf；形状为 ({batch}, {heads}, {T}, {T})。"}},
      {"swa/attn_weights",
       {"softmax(attn_scores / sqrt(head_dim), dim=-1)：只在窗口内有权重",
        "每一行的权重最多分给 {window} 个键：词元自己和它之前的 {window} - 1 个。前 {window_rows} "
        "行仍能看到第一个词元，与本章的因果权重相同；之后的行会忘掉最早的词元，所以这一层的 KV "
        "缓存只需保留 {window} 个键和值。"}},
      {"swa/context_vecs",
       {"MultiHeadAttentionWithSWA(..., sliding_window_size={window}) 的输出",
        "与本章的 MultiHeadAttention 一样合并各头并经过 out_proj；形状为 ({batch}, {T}, {d_out})。"}},

      // ---- rope ----
      {"rope/inv_freq",
       {"inv_freq = 1.0 / (theta_base ** (torch.arange(0, head_dim, 2) / head_dim))",
        "每一对维度一个频率：head_dim 为 {head_dim} 时共 {half} 个，从 1 逐渐降向 1/{rope_base}"
        "（theta_base = {rope_base}，用 --rope-base 设置）。靠前的维度对随位置转得快，靠后的转得慢。"}},
      {"rope/positions",
       {"positions = torch.arange(context_length)", "每个词元的位置：0 到 {last_position}。"}},
      {"rope/angles",
       {"angles = positions[:, None] * inv_freq[None, :]，再 torch.cat([angles, angles], dim=1)",
        "第 t 行：位置 t 让每一对维度转过的角度。角度出现两次，因为 apply_rope 把第 k 维与第 "
        "k + {half} 维配成一对；形状为 ({T}, {head_dim})。"}},
      {"rope/cos", {"cos = torch.cos(angles)", "每个角度的余弦；形状为 ({T}, {head_dim})。"}},
      {"rope/sin", {"sin = torch.sin(angles)", "每个角度的正弦；形状为 ({T}, {head_dim})。"}},
      {"rope/keys_transposed",
       {"keys 经 .view(b, num_tokens, num_heads, head_dim).transpose(1, 2) 之后",
        "本章 MultiHeadAttention 的键，分成 {heads} 个头，每个头 {head_dim} 维：形状为 "
        "({batch}, {heads}, {T}, {head_dim})。RoPE 作用在每个头的向量上。"}},
      {"rope/queries_transposed",
       {"queries，以同样方式分头", "形状为 ({batch}, {heads}, {T}, {head_dim})。"}},
      {"rope/keys_rotated",
       {"apply_rope(keys, cos, sin) = keys * cos + cat(-x2, x1) * sin",
        "每个键按自己的位置旋转：维度对 (x1[k], x2[k]) 以角度 position * inv_freq[k] 变为 "
        "(x1 cos - x2 sin, x2 cos + x1 sin)。旋转不改变长度，只改变方向；形状为 ({batch}, "
        "{heads}, {T}, {head_dim})。"}},
      {"rope/queries_rotated",
       {"apply_rope(queries, cos, sin)", "查询以同样方式旋转。值不旋转：位置只通过分数起作用。"}},
      {"rope/attn_scores_masked",
       {"旋转后的 queries @ 旋转后的 keys.transpose(2, 3)，再加因果掩码",
        "位置 i 的旋转查询与位置 j 的旋转键：点积取决于二者之间的夹角，也就是 i - j，而不是 i 和 "
        "j 本身。形状为 ({batch}, {heads}, {T}, {T})。"}},
      {"rope/attn_weights",
       {"softmax(attn_scores / sqrt(head_dim), dim=-1)", "本章的缩放因果 softmax，现在作用于带位置信息的分数。"}},
      {"rope/context_vecs",
       {"使用 RoPE 的模块输出", "权重乘以（未旋转的）值，合并各头，再经过 out_proj；形状为 ({batch}, {T}, {d_out})。"}},
      {"rope/attn_scores_shifted",
       {"同样的词元放在位置 {shift} 到 {shift_last}：再算一次分数",
        "为 2 × {T} 个位置计算 compute_rope_params，apply_rope 从第 {shift} 行开始取：每个词元"
        "都往后移了 {shift} 个位置。每个 i - j 不变，所以分数与上面的相同，只差浮点舍入（角度本身不同）。"}},

      // ---- flash ----
      {"flash/scores#first",
       {"第 {j} 块，键 {key_first}-{key_last}：s = queries @ k_blk.T，加掩码，/ sqrt(head_dim)",
        "此刻只存在这一小块分数：所有查询对第 {j} 块的键，形状为 ({batch}, {heads}, {T}, B)，B 为块中键的个数。"
        "未来的键为 -inf，与因果掩码相同。"}},
      {"flash/scores",
       {"第 {j} 块，键 {key_first}-{key_last}：下一块分数",
        "对键 {key_first} 到 {key_last} 计算 queries @ k_blk.T，加掩码并除以 sqrt(head_dim)。"
        "上一块分数已经丢弃；它的贡献保存在 m、l 和 acc 中。"}},
      {"flash/m#first",
       {"第 {j} 块之后 m = torch.maximum(m, s.amax(dim=-1, keepdim=True))",
        "每个查询分数的运行最大值，初值为 -inf。在 exp 之前减去它可以防止溢出，正如 softmax "
        "先减去每行的最大值。"}},
      {"flash/m",
       {"第 {j} 块之后的 m：运行最大值",
        "某一行的最大值变大时，之前累加的量都是相对较小的最大值算的，下面要乘以 "
        "alpha = exp(m_old - m_new) 重新缩放。"}},
      {"flash/l#first",
       {"第 {j} 块之后 l = alpha * l + exp(s - m).sum(dim=-1, keepdim=True)",
        "运行中的 softmax 分母：已见过的键的 exp(score - m) 之和。第 1 块之前 m = -inf，所以 "
        "alpha = exp(-inf) = 0。"}},
      {"flash/l",
       {"第 {j} 块之后的 l：乘以 alpha 缩放后的运行和",
        "旧的和乘以 alpha = exp(m_old - m_new)，再加上本块的 exp(s - m_new)。"}},
      {"flash/acc#first",
       {"第 {j} 块之后 acc = alpha * acc + exp(s - m) @ v_blk",
        "运行中的分子：以 exp(score - m) 加权的值，尚未除以 l；形状为 ({batch}, {heads}, {T}, {head_dim})。"}},
      {"flash/acc",
       {"第 {j} 块之后的 acc：乘以 alpha 缩放，再加上本块的值",
        "最后一块加入之后，acc / l 就是所有值按 softmax 加权的和。"}},
      {"flash/flash_context_vec",
       {"acc / l：在线 softmax 的输出",
        "最后只除一次。{num_blocks} 个形状为 {tile_shape} 的分数块（{tile_floats} 个浮点数）"
        "从不需要完整的分数矩阵 {full_shape}（{full_floats} 个浮点数）：内存是 O(T × block) 而不是 "
        "O(T^2)。求和的顺序与 softmax 不同，所以最后几位可能与普通模块不同。"}},
      {"flash/context_vecs",
       {"模块输出：合并各头，经过 out_proj",
        "与 MultiHeadAttention 的结尾相同：transpose(1, 2)，view 成 ({batch}, {T}, {d_out})，再经过 out_proj。"}},
  };
  t.checks = {
      {"swa_rows_attend_to_window", "每一行关注 min(i + 1, {window}) 个词元：从不超过窗口 W = {window}"},
      {"swa_first_rows_equal_causal", "前 {window_rows} 行与本章的因果权重相同（同一种子，同样的权重）"},
      {"rope_scores_depend_on_distance", "所有位置后移 {shift} 后分数不变：分数只取决于 i - j（只差浮点舍入）"},
      {"flash_equals_attention", "逐块计算的结果等于普通的 softmax(QK^T / sqrt(d)) V（只差浮点舍入）"},
      {"flash_output_equals_module", "输出等于 MultiHeadAttention 的输出（只差浮点舍入）"},
  };
  t.ui = {
      {"heatmap.swa.mask", "mask_bool = (diff < 0) | (diff >= W)：1 表示被遮住的键，即未来的键或往前 W 个及以上的键"},
      {"stage.swa", "滑动窗口注意力：带状掩码，每个查询最多关注 W 个词元"},
      {"stage.rope", "旋转位置编码：cos/sin 表，旋转后的查询和键"},
      {"stage.flash", "flash attention：按键分块的在线 softmax（运行中的 m、l、acc）"},
      {"note.rope_long_angles",
       "达到 125 弧度的角度（位置约超过 125）会进入 SLEEF 的另一种范围约简，attn-walk 没有复现它："
       "那里的 cos 和 sin 可能与 PyTorch 的最后一位不同（见 docs/fidelity.md）"},
  };
  return t;
}

}  // namespace attn
