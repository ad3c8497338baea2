// efficient 阶段（src/stages/efficient.cpp）的中文文字。
#include "lang/bonus.h"

namespace attn {

LangTable efficient_zh() {
  LangTable t;
  t.code = "zh";
  t.steps = {
      {"efficient/qkv.weight",
       {"qkv.weight：查询、键、值共用一个 Linear，({qkv_width}, {d_in})",
        "MultiHeadAttentionCombinedQKV 用一个 nn.Linear({d_in}, 3 * {d_out}) 代替 W_query、W_key 和 W_value，"
        "在 torch.manual_seed({seed1}) 之后立即抽取。前 {d_out} 行生成查询，接着 {d_out} 行生成键，最后 {d_out} 行生成值。"}},
      {"efficient/qkv",
       {"qkv = self.qkv(x)：查询、键、值并排",
        "一次矩阵乘法代替三次：({batch}, {T}, {d_in}) @ ({d_in}, {qkv_width}) 得到 ({batch}, {T}, {qkv_width})，"
        "每个词元的查询、键和值在同一行。"}},
      {"efficient/qkv_viewed",
       {"qkv.view(b, T, 3, heads, head_dim)",
        "最后一维展开为 (3, {heads}, {head_dim})：查询/键/值中的哪一个、哪个头、哪一维。"
        "形状为 ({batch}, {T}, 3, {heads}, {head_dim})；数值没有移动。"}},
      {"efficient/qkv_permuted",
       {"qkv.permute(2, 0, 3, 1, 4)：(3, b, heads, T, head_dim)",
        "permute 把查询/键/值的序号放到最前，把头放到词元之前；本章要对三个张量分别转置，这里一步完成："
        "({batch}, {T}, 3, {heads}, {head_dim}) -> (3, {batch}, {heads}, {T}, {head_dim})。"}},
      {"efficient/queries",
       {"queries, keys, values = qkv.unbind(0)：查询",
        "unbind(0) 沿第一维拆成三个 (b, heads, T, head_dim) 视图：({batch}, {heads}, {T}, {head_dim})，"
        "与本章 queries.transpose(1, 2) 的布局相同。"}},
      {"efficient/keys", {"键，qkv[1]", "形状为 ({batch}, {heads}, {T}, {head_dim})。"}},
      {"efficient/values", {"值，qkv[2]", "形状为 ({batch}, {heads}, {T}, {head_dim})。"}},
      {"efficient/attn_scores",
       {"queries @ keys.transpose(-2, -1)，未来位置用 -inf 遮住",
        "从这里开始，计算与本章相同：每个头的分数 ({batch}, {heads}, {T}, {T})，因果掩码在对角线以上填入 -inf。"}},
      {"efficient/attn_weights",
       {"softmax(attn_scores / √{head_dim})",
        "缩放后的 softmax：每行之和为 1，对角线以上为 0。"}},
      {"efficient/context_vec",
       {"context_vec：合并多头，再经 proj 投影",
        "(attn_weights @ values).transpose(1, 2) 视为 ({batch}, {T}, {d_out})，再经过模块的输出投影 proj。"}},
      {"efficient/mha_context_vecs",
       {"同一种子 {seed1} 之后的本章 MultiHeadAttention",
        "计算相同，数值不同：本章依次抽取 W_query 的权重和偏置、W_key 的、W_value 的；"
        "而 qkv 先抽取整个 ({qkv_width}, {d_in}) 权重，再抽取偏置，所以从第二块开始，每个权重拿到的是另一个随机数。"}},
      {"efficient/mha_context_vecs#same_draws",
       {"同一种子 {seed1} 之后的本章 MultiHeadAttention：输出相同",
        "种子相同，数值也相同：没有偏置时，qkv 的 ({qkv_width}, {d_in}) 权重与依次抽取的 W_query、W_key、W_value "
        "来自同一个随机数流，范围也相同（fan_in = {d_in}），所以它的各行正好就是这三个矩阵；proj 也在 out_proj 的位置抽取。"
        "试试 --qkv-bias：每个 W_* 会在权重之后立即抽取偏置，输出就不同了。"}},
      {"efficient/qkv.weight_copied",
       {"qkv.weight = torch.cat([W_query.weight, W_key.weight, W_value.weight])",
        "把本章模块的三个权重矩阵按行叠起来，并把 proj 设为它的 out_proj：现在两个模块计算同一个函数。"}},
      {"efficient/context_vec_copied",
       {"复制权重后的 MultiHeadAttentionCombinedQKV",
        "它的输出等于本章的 MultiHeadAttention：合并投影只改变计算的安排（一次矩阵乘法、一次 permute），不改变计算的内容。"}},
      {"efficient/sdpa_attn_bias",
       {"F.scaled_dot_product_attention 的计算：attn_bias，取 0 或 -inf",
        "F.scaled_dot_product_attention 在 PyTorch 1.13 之后才出现，所以这里把它的计算拆成步骤。"
        "is_causal=True 时它构造一个加性的 ({T}, {T}) 偏置：torch.ones(L, S).tril() 为 1 的位置是 0，对角线以上是 -inf。"}},
      {"efficient/sdpa_scores",
       {"queries @ keys.transpose(-2, -1) * scale_factor，scale_factor = 1 / √{head_dim}",
        "分数乘以 1 / √{head_dim}，而不是除以 √{head_dim}，所以最后一位可能与本章的 scores / √{head_dim} 不同。"
        "形状为 ({batch}, {heads}, {T}, {T})。"}},
      {"efficient/sdpa_attn_weight",
       {"torch.softmax(scores + attn_bias, dim=-1)",
        "加 0 不改变分数，加 -inf 把它遮住：与用 -inf 做 masked_fill 相同。"}},
      {"efficient/sdpa_output",
       {"attn_weight @ values：F.scaled_dot_product_attention 的返回值",
        "形状为 ({batch}, {heads}, {T}, {head_dim})，还没有合并多头；模块随后像上面一样转置、view 并经过 proj。"}},
      {"efficient/einsum.W_query",
       {"MHAEinsum 的 W_query：nn.Parameter(torch.randn({d_out}, {d_in}))，再 kaiming_uniform_",
        "MHAEinsum 不用 nn.Linear，而是直接保存参数矩阵。torch.manual_seed({seed1}) 之后，它先用 torch.randn 填充 "
        "W_query、W_key 和 W_value，再构建 out_proj（一个 nn.Linear，抽取自己的权重和偏置），最后 "
        "reset_parameters() 用 kaiming_uniform_(a=√5) 覆盖这三个矩阵：在 ±1/√{d_in} 内均匀分布，与 nn.Linear 的界相同。"
        "randn 的数被丢弃，但已经抽取过，所以后面的每个数都来自随机流更靠后的位置。"}},
      {"efficient/einsum_Q",
       {"Q = torch.einsum(\"{einsum_proj_eq}\", x, W_query)",
        "在 \"bnd,di->bni\" 中，下标 d 出现在两个输入中而不在输出中，所以对它求和："
        "Q[b, n, i] = Σ_d x[b, n, d] · W_query[d, i]，即 x @ W_query 本身（nn.Linear 计算 x @ W.T）。"
        "d 是 W_query 的第一维，长 {d_out}，所以笔记本的等式要求 d_in == d_out，笔记本正是如此。"
        "torch.einsum 把它交给一次 bmm：({batch}·{T}, {d_in}) @ ({d_in}, {d_out})。形状为 ({batch}, {T}, {d_out})。"}},
      {"efficient/einsum_Q#linear_eq",
       {"Q = torch.einsum(\"{einsum_proj_eq}\", x, W_query)",
        "笔记本写的是 \"bnd,di->bni\"，它把 x 的最后一维（{d_in}）与 W_query 的第一维（{d_out}）相加求和："
        "只有 d_in == d_out 时才能运行，笔记本正是如此。这里 d_in 为 {d_in}，d_out 为 {d_out}，所以本演示改为对 "
        "W_query 的第二维求和，\"bnd,id->bni\"：Q[b, n, i] = Σ_d x[b, n, d] · W_query[i, d]，即 x @ W_query.T，"
        "与 nn.Linear 用同一个 ({d_out}, {d_in}) 权重的计算相同。试试 --d-out {d_in}，即可看到笔记本的等式。"
        "形状为 ({batch}, {T}, {d_out})。"}},
      {"efficient/einsum_scores",
       {"torch.einsum(\"bhnd,bhmd->bhnm\", Q, K)：每个头的分数",
        "b 和 h 同时出现在两个输入和输出中：保留下来，构成 {batch}·{heads} 个矩阵的批。d 只出现在两个输入中：对它求和，"
        "scores[b, h, n, m] = Σ_d Q[b, h, n, d] · K[b, h, m, d]，即不必写出转置的 queries @ keys.T。"
        "torch.einsum 把 K 重排为 (b, h, d, m) 后调用 bmm，所以数值与本章的 attn_scores 相同。"
        "形状为 ({batch}, {heads}, {T}, {T})，尚未除以 √{head_dim}。"}},
      {"efficient/einsum_attn_weights",
       {"softmax(masked_fill(scores / √{head_dim}, mask, -inf))",
        "缩放后的分数，未来位置用 -inf 屏蔽，再对最后一维做 softmax。"}},
      {"efficient/einsum_context_vec",
       {"einsum(\"bhnm,bhmd->bhnd\", attn_weights, V)，合并各头，out_proj",
        "对键的位置 m 求和：每个查询得到值的加权和。各头合并为 ({batch}, {T}, {d_out}) 后经过 out_proj。"
        "它的权重与本章模块来自不同的抽取，所以输出也不同。"}},
      {"efficient/einsum.W_query_copied",
       {"W_query = MultiHeadAttention 的 W_query.weight.T",
        "笔记本的等式乘以 W_query 本身，而 nn.Linear 乘以其权重的转置：要计算同一个函数，本章的 ({d_out}, {d_in}) "
        "权重需转置后放入（W_key 和 W_value 也一样）；偏置和 out_proj 原样复制。"}},
      {"efficient/einsum.W_query_copied#linear_eq",
       {"W_query = MultiHeadAttention 的 W_query.weight",
        "用 \"bnd,id->bni\" 时，MHAEinsum 与 nn.Linear 一样乘以 W_query.T，所以本章的权重原样放入"
        "（W_key 和 W_value 也一样），再复制偏置和 out_proj。"}},
      {"efficient/einsum_context_vec_copied",
       {"复制权重后的 MHAEinsum",
        "与本章模块是同一个函数：einsum 等式只是给乘积命名，torch 把它们变成同样的 bmm 调用。"}},
      {"efficient/torch_mha.in_proj_weight",
       {"nn.MultiheadAttention 的 in_proj_weight：xavier_uniform_，({in_proj_width}, {d_out})",
        "笔记本的 MHAPyTorchClass 封装了 torch.nn.MultiheadAttention(embed_dim={d_out}, num_heads={heads}, "
        "bias=qkv_bias, add_bias_kv=qkv_bias, batch_first=True)，并加上自己的 proj。nn.MultiheadAttention 把 "
        "W_query、W_key 和 W_value 打包成一个 in_proj_weight，与上面的 qkv 相似，但用自己的方式初始化："
        "xavier_uniform_，在 ±√(6 / (fan_in + fan_out)) = ±{xavier_bound} 内均匀分布，在 out_proj 之后抽取。"
        "它的输入的最后一维必须是 embed_dim = {d_out}。"}},
      {"efficient/torch_mha.out_proj.weight",
       {"它的 out_proj.weight，最先抽取",
        "out_proj 在构造函数中作为 nn.Linear({d_out}, {d_out}) 创建，所以它先按 nn.Linear 的初始化抽取权重（和偏置），"
        "然后 _reset_parameters() 才抽取 in_proj_weight；_reset_parameters() 随后把 in_proj_bias 和 out_proj.bias 设为 0。"}},
      {"efficient/torch_mha.bias_k",
       {"bias_k：add_bias_kv 的额外键，xavier_normal_",
        "add_bias_kv=True 时，模块有一个可学习的键 bias_k 和值 bias_v，形状 (1, 1, {d_out})，在 in_proj_weight 之后"
        "由 xavier_normal_ 抽取。它们被追加到每个序列的键和值之后，成为每个查询都能关注的一个额外位置。"}},
      {"efficient/torch_mha_attn_mask",
       {"attn_mask：F.multi_head_attention_forward 把布尔因果掩码变成浮点数",
        "笔记本传入 torch.triu(ones, diagonal=1).bool()，查询不能看的位置为 True。PyTorch 把它变成全零张量，True 处为 -inf，"
        "再加到分数上。给了 attn_mask 时，PyTorch 1.13 从不走快速路径（torch._native_multi_head_attention），"
        "而是运行 F.multi_head_attention_forward，下面逐步展示。形状为 (1, {T}, {keys_seen})。"}},
      {"efficient/torch_mha_attn_mask#bias_kv",
       {"attn_mask：F.multi_head_attention_forward 把布尔因果掩码变成浮点数",
        "笔记本传入 torch.triu(ones, diagonal=1).bool()，查询不能看的位置为 True。PyTorch 把它变成全零张量，True 处为 -inf，"
        "再加到分数上。bias_k 在 {T} 个词元之后加了一个键，掩码也为它加了一列 0：每个查询都关注它。"
        "给了 attn_mask 时，PyTorch 1.13 从不走快速路径（torch._native_multi_head_attention），"
        "而是运行 F.multi_head_attention_forward，下面逐步展示。形状为 (1, {T}, {keys_seen})。"}},
      {"efficient/torch_mha_q_scaled",
       {"q_scaled = q / √{head_dim}，各头并入批维",
        "in_proj 分出 q、k、v，形状 ({T}, {batch}, {d_out})（batch_first 的输入先转置为序列在前），"
        "再 view 为 ({T}, {batch}·{heads}, {head_dim}) 并转置：{batch}·{heads} 个头构成一个批。"
        "查询在乘积之前除以 √{head_dim}，而不是之后除分数，所以最后几位与本章不同。"}},
      {"efficient/torch_mha_scores",
       {"torch.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))",
        "一次调用算出 attn_mask + q_scaled @ k.T：因果的 -inf 通过加法进入。形状为 ({batch}·{heads}, {T}, {keys_seen})。"}},
      {"efficient/torch_mha_attn_weights",
       {"softmax(scores, dim=-1)",
        "每行和为 1，掩码为 -inf 的位置为 0。"}},
      {"efficient/torch_mha_attn_output",
       {"attn_output：bmm(attn_weights, v)，合并各头，out_proj",
        "nn.MultiheadAttention 返回的第一个值，重新回到批在前：({batch}, {T}, {d_out})。"}},
      {"efficient/torch_mha_avg_weights",
       {"它返回的注意力权重：need_weights=True 时对各头取平均",
        "attn_weights.view({batch}, {heads}, {T}, {keys_seen}).sum(dim=1) / {heads}：每个序列一张图。"
        "笔记本把它丢弃了（attn_output, _ = ...）。"}},
      {"efficient/torch_mha_context_vec",
       {"MHAPyTorchClass 的输出：proj(attn_output)",
        "笔记本的封装在 out_proj 之后还有一个 Linear：proj。权重来自别的抽取：输出与本章模块不同。"}},
      {"efficient/torch_mha_context_vec_copied",
       {"复制权重后的 nn.MultiheadAttention",
        "in_proj_weight = torch.cat([W_query, W_key, W_value])。本章只有一个输出投影，MHAPyTorchClass 有两个，"
        "所以 out_proj 设为 torch.eye({d_out})，proj 设为本章的 out_proj。输出在 float32 舍入误差内等于本章的输出："
        "查询在乘积之前就缩放了。"}},
      {"efficient/torch_mha_context_vec_copied#bias_kv",
       {"复制权重后的 nn.MultiheadAttention",
        "in_proj_weight = torch.cat([W_query, W_key, W_value])，in_proj_bias 为它们的偏置。本章只有一个输出投影，"
        "MHAPyTorchClass 有两个，所以 out_proj 设为 torch.eye({d_out})（偏置为 0），proj 设为本章的 out_proj。"
        "本章模块没有 bias_k 和 bias_v：把它们设为 None，否则每个查询仍会多看到一个键。"
        "输出在 float32 舍入误差内等于本章的输出：查询在乘积之前就缩放了。"}},
  };
  t.checks = {
      {"efficient_outputs_differ_by_weights", "两个模块的输出不同：计算相同，随机权重不同"},
      {"efficient_same_draws", "没有偏置时 qkv.weight 与 torch.cat([W_query, W_key, W_value]) 逐位相同，输出也相等"},
      {"efficient_sdpa_equals_chapter_math", "scaled_dot_product_attention 的计算给出本章的 attn_weights @ values（只差 float32 舍入）"},
      {"efficient_einsum_differs_by_weights", "MHAEinsum 的输出与 MultiHeadAttention 不同：数学相同，随机权重不同"},
      {"efficient_einsum_copied_equal_mha", "复制本章模块的权重后，MHAEinsum 的输出等于 MultiHeadAttention 的输出"},
      {"efficient_torch_mha_differs_by_weights",
       "nn.MultiheadAttention 的输出与 MultiHeadAttention 不同：数学相同，权重和初始化不同"},
      {"efficient_torch_mha_copied_equal_mha",
       "复制本章模块的权重后，nn.MultiheadAttention 的输出等于 MultiHeadAttention 的输出"},
      {"efficient_all_copied_outputs_equal", "复制权重后，四个模块的输出都相同（在 float32 舍入误差内）"},
      {"efficient_copied_weights_equal_mha", "复制本章模块的权重后，输出等于 MultiHeadAttention 的输出"},
  };
  t.ui = {
      {"stage.efficient",
       "MultiHeadAttentionCombinedQKV、MHAEinsum 和 nn.MultiheadAttention：数学相同，权重不同；复制权重后输出相同"},
      {"note.efficient_torch_mha_needs_square",
       "未展示 nn.MultiheadAttention：它的输入的最后一维必须是 embed_dim = d_out，笔记本中 d_in == d_out。"
       "这里 d_in 为 {d_in}，d_out 为 {d_out}：试试 --d-out {d_in}（并让 --heads 整除它）。"},
  };
  return t;
}

}  // namespace attn
