// 中文：gpt 阶段（src/stages/gpt.cpp）的文字：第 4 章的 GPTModel 载入训练好的权重。
// 每个块的步骤共用一段文字（{block} 是块的序号）；解释里的数字都来自这次运行本身。
#include "lang/gpt.h"

namespace attn {

LangTable gpt_zh() {
  LangTable t;
  t.code = "zh";
  t.steps = {
      {"gpt/in_idx",
       {"in_idx = torch.tensor(tokenizer.encode(text)).unsqueeze(0)：词元 id，(1, {T})",
        "GPTModel.forward 接收的是词元 id 而不是嵌入：一个批次里一条由 GPT-2 分词器得到的 {T} 个 id。"
        "模型在自己训练好的 tok_emb 表里查每个 id。"}},
      {"gpt/tok_emb",
       {"tok_emb(in_idx)：每个 id 在 ({vocab_size}, {emb_dim}) 表中训练好的那一行，(1, {T}, {emb_dim})",
        "nn.Embedding 从权重文件里为每个词元 id 取一行：每个词元 {emb_dim} 个训练好的数，而不是第 2 章的随机数。"}},
      {"gpt/pos_emb",
       {"pos_emb(torch.arange({T}))：位置 0 到 T-1 训练好的行，({T}, {emb_dim})",
        "每个位置一行，最多 context_length = {context_length}：词元所在的位置，训练中学到，对任何文本都一样。"}},
      {"gpt/emb_sum",
       {"x = tok_embeds + pos_embeds：第一个块收到的输入，(1, {T}, {emb_dim})",
        "这个和不是任何模块的输出：GPTModel.forward 把两个嵌入相加（pos_embeds 在批次上广播）。"
        "eval() 模式下 drop_emb 不改变它。"}},
      {"gpt/final_norm",
       {"final_norm(x)：最后一个 LayerNorm，(1, {T}, {emb_dim})",
        "最后一个块之后还有一个 LayerNorm。在最后一个词元的那一行上：之前均值 {in_mean}、方差 {in_var}，"
        "经过缩放和平移之后均值 {out_mean}、方差 {out_var}。"}},
      {"gpt/out_head",
       {"logits = out_head(x)：每个位置对词表中每一项的分数，(1, {T}, {vocab_size})",
        "nn.Linear({emb_dim}, {vocab_size}, bias=False) 把每个位置的向量变成 {vocab_size} 个分数，每个词元 id 一个："
        "越大，这个词元越可能是下一个。"}},
      {"gpt/probas",
       {"probas = torch.softmax(logits[:, -1, :], dim=-1)：下一个词元的概率，(1, {vocab_size})",
        "只有最后一个位置预测文本后面是什么。softmax 把它的 {vocab_size} 个分数变成和为 1 的概率。"}},
      {"gpt/top5_ids",
       {"torch.topk(probas, 5).indices：最可能的五个下一个词元 id",
        "概率最大的 id，最可能的在前；generate_text_simple 取第一个（torch.argmax）。"}},
      {"gpt/top5_probas",
       {"torch.topk(probas, 5).values：它们的概率",
        "最可能的下一个词元是 '{next_token}'，概率 {next_proba}。"}},
      {"gpt/top5_tokens",
       {"逐个 tokenizer.decode：最可能的五个下一个词元",
        "每个 id 单独解码（空格显示为 ·），附上概率和 id。"}},
      {"gpt/generated_ids",
       {"generate_text_simple(model, in_idx, max_new_tokens={max_new_tokens}, context_size={context_length})",
        "贪心解码：重复 {max_new_tokens} 次，模型在最多最后 {context_length} 个 id 上运行，"
        "把最后一个位置 logits 的 argmax 接到后面。开头是提示的 id。"}},
      {"gpt/generated_text",
       {"tokenizer.decode(out.squeeze(0).tolist())：提示和它的续写",
        "上面的 id 还原成文本。"}},
  };
  const std::vector<std::pair<std::string, StepText>> block = {
      {"norm1",
       {"trf_blocks.{block}.norm1(x)：注意力之前的 LayerNorm，(1, {T}, {emb_dim})",
        "LayerNorm：沿每一行计算 (x - mean) / sqrt(var + 1e-5)，再做训练好的缩放和平移。"
        "在最后一个词元的那一行上，它把均值 {in_mean}、方差 {in_var} 变成了均值 {out_mean}、方差 {out_var}。"}},
      {"att",
       {"trf_blocks.{block}.att(x)：{n_heads} 个头的 MultiHeadAttention，(1, {T}, {emb_dim})",
        "第 3 章的 MultiHeadAttention，W_query、W_key、W_value 和 out_proj 都是训练好的，有因果掩码，"
        "eval() 下没有 dropout。--layer {block} 可以逐步打开它。"}},
      {"shortcut1",
       {"trf_blocks.{block}：x = att(norm1(x)) + shortcut，第一个捷径连接的和，(1, {T}, {emb_dim})",
        "这个和不是任何模块的输出。捷径（块的输入）的范数是 {shortcut_norm}，注意力输出的范数是 {branch_norm}："
        "两者之中捷径占 {shortcut_share}%；和的范数是 {sum_norm}。"}},
      {"norm2",
       {"trf_blocks.{block}.norm2(x)：前馈网络之前的 LayerNorm，(1, {T}, {emb_dim})",
        "在最后一个词元的那一行上，它把均值 {in_mean}、方差 {in_var} 变成了均值 {out_mean}、方差 {out_var}。"}},
      {"ff.layers.0",
       {"trf_blocks.{block}.ff.layers.0：nn.Linear({emb_dim}, 4 * {emb_dim})，扩展",
        "前馈网络在 GELU 之前把每个位置的向量扩展到四倍的维度。"}},
      {"ff.layers.1",
       {"trf_blocks.{block}.ff.layers.1：GELU，0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))",
        "GELU 让正的输入几乎保持不变，把负的输入压向 0：{count} 个输入中有 {negatives} 个是负的"
        "（最小 {most_negative}），输出落在 {gelu_lo} 到 {gelu_hi} 之间。"}},
      {"ff.layers.2",
       {"trf_blocks.{block}.ff.layers.2：nn.Linear(4 * {emb_dim}, {emb_dim})，收回原来的维度",
        "收缩回每个位置 {emb_dim} 个数。"}},
      {"ff.layers",
       {"trf_blocks.{block}.ff.layers：nn.Sequential 的输出（即它最后一层的输出）",
        "nn.Sequential 依次运行 Linear、GELU 和 Linear，返回最后一层的输出：与 ff.layers.2 的数相同。"}},
      {"ff",
       {"trf_blocks.{block}.ff(x)：FeedForward 的输出，(1, {T}, {emb_dim})", "FeedForward 返回 self.layers(x)。"}},
      {"",
       {"trf_blocks.{block}：x = ff(norm2(x)) + shortcut，块的输出，(1, {T}, {emb_dim})",
        "第二个捷径连接的和就是块的输出。捷径的范数是 {shortcut_norm}，前馈网络输出的范数是 {branch_norm}："
        "两者之中捷径占 {shortcut_share}%；和的范数是 {sum_norm}。"}},
      {"att.keys",
       {"trf_blocks.{block}.att：keys = W_key(x)，(1, {T}, {emb_dim})", "每个位置经训练好的键投影。"}},
      {"att.queries",
       {"trf_blocks.{block}.att：queries = W_query(x)，(1, {T}, {emb_dim})", "训练好的查询投影。"}},
      {"att.values",
       {"trf_blocks.{block}.att：values = W_value(x)，(1, {T}, {emb_dim})", "训练好的值投影。"}},
      {"att.attn_scores",
       {"trf_blocks.{block}.att：attn_scores = queries @ keys.transpose(2, 3)，(1, {n_heads}, {T}, {T})",
        "拆成 {n_heads} 个 {head_dim} 维的头，每个头里每个查询都和每个键相乘。"}},
      {"att.attn_scores_masked",
       {"trf_blocks.{block}.att：attn_scores.masked_fill_(mask_bool, -torch.inf)",
        "因果掩码：每个词元都看不到它后面的词元。"}},
      {"att.attn_weights",
       {"trf_blocks.{block}.att：attn_weights = torch.softmax(attn_scores / {head_dim}**0.5, dim=-1)",
        "每一行的和为 1。最后一个词元最关注的是（头：词元，权重）{head_focus}。"}},
      {"att.attn_weights_head",
       {"trf_blocks.{block}.att：attn_weights[0, {head}]，单看第 {head} 个头，({T}, {T})",
        "--head 选中的头（头：词元，权重）：最后一个词元最关注 {head_focus}。"}},
      {"att.context_vec",
       {"trf_blocks.{block}.att：context_vec = (attn_weights @ values).transpose(1, 2)，(1, {T}, {n_heads}, {head_dim})",
        "每个头对值的加权和；接下来合并成 (1, {T}, {emb_dim}) 并经过 out_proj。"}},
  };
  for (const auto& [rest, text] : block) t.steps.emplace(gpt_block_key(rest), text);
  t.ui = {
      {"stage.gpt", "第 4 章的 GPTModel 载入训练好的权重（--weights）：每个模块，以及下一个词元"},
      // 权重读取器做了什么（src/weights/gpt_weights.cpp），写在 --weights 走查的开头。
      {"note.weights.float16",
       "float16 参数已精确扩展为 float32（{float16_tensors} 个张量），与 load_state_dict 把它们复制进 float32 "
       "模型时相同"},
      {"note.weights.bfloat16",
       "bfloat16 参数已精确扩展为 float32（{bfloat16_tensors} 个张量），与 load_state_dict 把它们复制进 float32 "
       "模型时相同"},
      {"note.weights.misaligned",
       "{misaligned_tensors} 个 float32 张量在文件中的偏移不是 4 的倍数：已逐位复制"},
      {"note.weights.strided",
       "{strided_tensors} 个带步长的张量已按行优先顺序复制，与 load_state_dict 的复制方式相同"},
      {"note.weights.tied", "out_head 与 wte 共享权重，与本书的 load_weights_into_gpt 的赋值方式相同"},
      {"note.weights.heads_config", "n_heads {heads_found}，取自 {heads_config}"},
      {"note.weights.heads_gpt2", "n_heads {heads_found}：GPT-2 在宽度 {heads_width} 时的头数（未给 --heads，也没有 config.json）"},
  };
  return t;
}

}  // namespace attn
