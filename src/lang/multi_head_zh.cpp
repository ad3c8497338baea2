// Chinese texts of the multi-head stage (src/stages/multi_head.cpp):
// 3.6 节，多头注意力
#include "lang/chapter.h"

#include <map>
#include <string>

namespace attn {

namespace {

// 3.6.1: the wrapper; then the batched product on the fixed tensor a.
std::map<std::string, StepText> wrapper_texts_zh() {
  return {
      {"multi-head/batch",
       {"torch.stack((inputs,) * {batch})：由 {batch} 份副本组成的批次",
        "3.5.3 节的批次，形状为 ({batch}, {T}, {d_in})。"}},
      {"multi-head/wrapper_context_vecs",
       {"MultiHeadAttentionWrapper({d_in}, {d_out}, {T}, {attn_p}, num_heads={heads}{bias_arg})"
        "(batch)，随机种子 {seed1}：{heads} 个头 × d_out {d_out}",
        "先用最简单的方式实现多头注意力：{heads} 个相互独立的 CausalAttention 头，各有各的权重，"
        "作用在同一个输入上；torch.cat(..., dim=-1) 把它们的输出并排拼接。形状为 "
        "({batch}, {T}, {heads} × {d_out} = {wrapper_width})。"}},
      {"multi-head/a",
       {"形状为 (b=1, num_heads=2, num_tokens=3, head_dim=4) 的张量",
        "本章用来演示批量矩阵乘法的小例子：1 个批次样本、2 个头、3 个词元，每个头的每个词元"
        "有 4 个数。"}},
      {"multi-head/a_at_a_T",
       {"a @ a.transpose(2, 3)：每个头各做一次矩阵乘法",
        "对 4 维张量，@ 只对最后两维做矩阵乘法，前面的维度（批次、头）都当作批次处理。"
        "a.transpose(2, 3) 交换 num_tokens 和 head_dim，于是每个头各自做一次 (3, 4) @ (4, 3) "
        "的乘法：形状为 (1, 2, 3, 3)。"}},
      {"multi-head/first_res",
       {"first_head @ first_head.T，与上面的第一块相同",
        "单独取出第一个头 a[0, 0, :, :]，形状为 (3, 4)：得到的 (3, 3) 矩阵与 a_at_a_T 的"
        "第一块相同。"}},
      {"multi-head/second_res",
       {"second_head @ second_head.T，与第二块相同",
        "再看第二个头 a[0, 1, :, :]：与第二块相同。MultiHeadAttention 正是靠这一点，用一次"
        "乘法算出所有的头。"}},
  };
}

// --weights：训练好的 GPT 第 {layer} 块的 MultiHeadAttention（src/stages/multi_head_weights.cpp）。
std::map<std::string, StepText> weights_texts_zh() {
  return {
      {"multi-head/in_idx",
       {"torch.tensor(tokenizer.encode(text)).unsqueeze(0)：{T} 个词元 ID",
        "文本的 GPT-2 词元 ID，一个序列组成的批次，和第 4 章送入 GPTModel 的方式相同。"}},
      {"multi-head/batch#weights",
       {"model.trf_blocks[{layer}].norm1(x)：第 {layer} 块的真实输入，即 MultiHeadAttention 看到的输入",
        "对这段文本，模型交给第 {layer} 块注意力的输入：词元 ID 经 tok_emb + pos_emb 嵌入，依次通过第 0 "
        "到第 {layer} - 1 块，再经过该块的 LayerNorm norm1。一个序列（批次大小 1），形状为 (1, {T}, {d_in})。"}},
      {"multi-head/keys#weights",
       {"trf_blocks[{layer}].att 的 W_key(x)，即用文件中权重的 MultiHeadAttention({d_in}, {d_out}, "
        "{context_length}, 0.0, num_heads={heads}{bias_arg})",
        "训练好的模型自己的投影：W_query、W_key、W_value 各是一个 nn.Linear({d_in}, {d_out})，权重取自文件中"
        "第 {layer} 块。这是键，形状为 (1, {T}, {d_out})。"}},
      {"multi-head/out_proj.weight#weights",
       {"trf_blocks[{layer}].att 的 out_proj.weight，训练所得",
        "把各头输出混合起来的输出投影，形状为 ({d_out}, {d_out})，取自文件。"}},
      {"multi-head/out_proj.bias#weights",
       {"out_proj.bias，训练所得", "它的偏置，形状为 ({d_out},)，取自文件。"}},
      {"multi-head/mha_context_vecs#weights",
       {"out_proj(context_vec_merged)：模块的输出，即 trf_blocks[{layer}].att(x)",
        "第 {layer} 块注意力的输出，形状为 (1, {T}, {d_out})：模型把它加到该块的输入上（第一条快捷连接）。"
        "--stage gpt --layer {layer} 把它显示为 trf_blocks.{layer}.att。"}},
  };
}

// 3.6.2: MultiHeadAttention's intermediates; exercises 3.2 and 3.3.
std::map<std::string, StepText> mha_texts_zh() {
  return {
      {"multi-head/keys",
       {"MultiHeadAttention({d_in}, {d_out}, {T}, {attn_p}, num_heads={heads}{bias_arg}) 的 "
        "W_key(x)，随机种子 {seed1}",
        "MultiHeadAttention 只用一组投影就完成所有头的工作：W_query、W_key、W_value 各是一个 "
        "nn.Linear({d_in}, {d_out})。这是整个批次的键，形状为 ({batch}, {T}, {d_out})。"}},
      {"multi-head/queries", {"W_query(x)", "查询，形状为 ({batch}, {T}, {d_out})。"}},
      {"multi-head/values", {"W_value(x)", "值，形状为 ({batch}, {T}, {d_out})。"}},
      {"multi-head/keys_viewed",
       {"keys.view(b, num_tokens, {heads}, {head_dim})：把 d_out 拆成 {heads} 个 {head_dim} "
        "维的头",
        "view 把最后一维 d_out = {d_out} 看作 num_heads × head_dim = {heads} × {head_dim}，"
        "不移动任何数据：({batch}, {T}, {d_out}) 变为 ({batch}, {T}, {heads}, {head_dim})。"
        "每个头分到其中的 {head_dim} 个数。"}},
      {"multi-head/queries_viewed",
       {"queries.view(b, num_tokens, {heads}, {head_dim})：把 d_out 拆成 {heads} 个 "
        "{head_dim} 维的头",
        "查询也照此拆分：({batch}, {T}, {heads}, {head_dim})。"}},
      {"multi-head/values_viewed",
       {"values.view(b, num_tokens, {heads}, {head_dim})：把 d_out 拆成 {heads} 个 "
        "{head_dim} 维的头",
        "值也一样：({batch}, {T}, {heads}, {head_dim})。"}},
      {"multi-head/keys_transposed",
       {"keys.transpose(1, 2)：头成为批次维度 (b, num_heads, num_tokens, head_dim)",
        "transpose(1, 2) 交换 num_tokens 和 num_heads：({batch}, {T}, {heads}, {head_dim}) "
        "变为 ({batch}, {heads}, {T}, {head_dim})。现在最后两维是单个头的（词元，特征），"
        "@ 就能像 a_at_a_T 那样同时处理所有的头。"}},
      {"multi-head/queries_transposed",
       {"queries.transpose(1, 2)：头成为批次维度 (b, num_heads, num_tokens, head_dim)",
        "查询也一样：({batch}, {heads}, {T}, {head_dim})。"}},
      {"multi-head/values_transposed",
       {"values.transpose(1, 2)：头成为批次维度 (b, num_heads, num_tokens, head_dim)",
        "值也一样：({batch}, {heads}, {T}, {head_dim})。"}},
      {"multi-head/attn_scores",
       {"queries @ keys.transpose(2, 3)：每个头的注意力分数",
        "每个头的 ({T}, {head_dim}) 查询乘以它的 ({head_dim}, {T}) 键：形状为 ({batch}, "
        "{heads}, {T}, {T})，批次中每个样本的每个头各有一个分数矩阵。"}},
      {"multi-head/attn_scores_masked",
       {"attn_scores.masked_fill_(mask_bool, -torch.inf)",
        "因果掩码原地（末尾的下划线表示原地操作）作用于每个头，而且是在 softmax 之前：未来"
        "位置变为 -inf。掩码缓冲区的形状是 (context_length, context_length)，输入较短时截取 "
        "[:num_tokens, :num_tokens]。"}},
      {"multi-head/attn_weights",
       {"softmax(attn_scores / sqrt(head_dim), dim=-1)",
        "对每个头做缩放 softmax。这里 d_k = head_dim = {head_dim}，所以分数除以 "
        "sqrt({head_dim}) = {sqrt_d_k}。每个头的每一行之和都为 1；形状为 ({batch}, {heads}, "
        "{T}, {T})。"}},
      {"multi-head/attn_weights#dropout",
       {"dropout(softmax(attn_scores / sqrt(head_dim)))",
        "对每个头做缩放 softmax（d_k = head_dim = {head_dim}，除以 sqrt({head_dim}) = "
        "{sqrt_d_k}），再做 p = {attn_p} 的 dropout：保留的权重乘以 1/(1-p)，所以每行之和"
        "不再是 1。形状为 ({batch}, {heads}, {T}, {T})。"}},
      {"multi-head/context_vec",
       {"(attn_weights @ values).transpose(1, 2)：回到 (b, num_tokens, num_heads, head_dim)",
        "每个头对自己的值向量加权求和，得到 ({batch}, {heads}, {T}, {head_dim})；"
        "transpose(1, 2) 再把头的维度移回词元之后：({batch}, {T}, {heads}, {head_dim})。"}},
      {"multi-head/context_vec_merged",
       {"context_vec.contiguous().view(b, num_tokens, d_out)：各头并排",
        "transpose 之后，数据在内存中不再按行连续存放，而 view 要求连续存放，所以要先调用 "
        ".contiguous()（复制一份）。然后 view 把各头合并：({batch}, {T}, {heads}, {head_dim}) "
        "变为 ({batch}, {T}, {d_out})，各头的输出并排放在一起，效果和包装类中的 torch.cat "
        "一样。"}},
      {"multi-head/out_proj.weight",
       {"out_proj：nn.Linear(d_out, d_out)，总是带偏置",
        "最后一个线性层把各头的输出混合起来，这是包装类做不到的。它的权重形状为 "
        "({d_out}, {d_out})，在 W_query、W_key、W_value 之后抽取。"}},
      {"multi-head/out_proj.bias",
       {"out_proj.bias",
        "它的偏置，形状为 ({d_out},)：无论 qkv_bias 取什么值，out_proj 都保留 nn.Linear "
        "默认的 bias=True。"}},
      {"multi-head/mha_context_vecs",
       {"out_proj(context_vec_merged)：模块的输出",
        "MultiHeadAttention 的上下文向量，形状为 ({batch}, {T}, {d_out})。在包装类中，每个头"
        "输出 d_out = {d_out} 个数，合计 {wrapper_width} 个；这里的 d_out 则是总维度，"
        "被拆分成 {heads} 个 {head_dim} 维的头。"}},
      {"multi-head/exercise_3_2_context_vecs",
       {"练习 3.2：MultiHeadAttentionWrapper({d_in}, 1, {T}, {attn_p}, num_heads=2{bias_arg})"
        "(batch)，随机种子 {seed1}",
        "练习 3.2：要用 2 个头得到 2 维的上下文向量，只需让每个头的 d_out = 1；torch.cat 把"
        "两个 1 维的输出拼接起来。形状为 ({batch}, {T}, 2)。"}},
      {"multi-head/exercise_3_3_num_params",
       {"练习 3.3：GPT-2 规模的 MultiHeadAttention({ex_d}, {ex_d}, {ex_context}, 0.0, "
        "num_heads={ex_heads}) 的参数量",
        "练习 3.3：最小的 GPT-2 模型使用 {ex_d} 维的嵌入向量、{ex_heads} 个头，上下文长度为 "
        "{ex_context} 个词元。sum(p.numel() for p in mha.parameters()) 得到 {ex_total}："
        "四个 {ex_d} × {ex_d} 的矩阵，加上 out_proj 的偏置。上下文长度只决定掩码的大小，"
        "而掩码是缓冲区（buffer），不是参数。"}},
  };
}

}  // namespace

LangTable multi_head_zh() {
  LangTable t;
  t.code = "zh";
  t.steps = wrapper_texts_zh();
  t.steps.merge(mha_texts_zh());
  t.steps.merge(weights_texts_zh());
  t.ui = {
      {"note.multi_head_weights",
       "--weights：{weights} 的第 {layer} 块（共 {n_layers} 块），只走 MultiHeadAttention（3.6.2 节），输入是这段"
       "文本的真实输入，在 eval() 模式下（没有 dropout）并在 torch.no_grad() 之下运行。d_out、头数和 qkv_bias "
       "由模型决定；--d-out、--batch、--qkv-bias、--attn-dropout 和 --seed 不起作用。包装类、批量矩阵乘法的演示"
       "和练习用不到训练好的权重：不加 --weights 即可查看。"},
      {"stage.multi-head",
       "MultiHeadAttentionWrapper 与 MultiHeadAttention 的每个中间结果；练习 3.2 和 3.3"},
      {"word.total", "合计"},
  };
  return t;
}

}  // namespace attn
