// 中文：backward 阶段（src/stages/backward.cpp）的文字：第 5 章的损失包在第 3 章的
// MultiHeadAttention 外面，每个梯度及其规则，以及训练步骤。
#include "lang/backward.h"

namespace attn {

LangTable backward_zh() {
  LangTable t;
  t.code = "zh";
  t.steps = {
      {"backward/batch", {"batch：前 {T} 个词元，{batch} 份（输入）", "第 5 章的数据加载器把文本错开一个词元：输入是第 1..{T} 个词元，目标是第 2..{T}+1 个。形状 ({batch}, {T}, {d_in})。"}},
      {"backward/targets", {"targets：每个输入的下一个词元的 id", "输入中每个不同的标签按首次出现的顺序得到一个 id（共 {V} 个）。位置 t 的目标是词元 t + 1 的 id。"}},
      {"backward/batch#text", {"batch = tok_emb(ids) + pos_emb(arange({T}))：前 {T} 个词元，{batch} 份", "第 5 章的数据加载器把文本错开一个词元：输入是第 1..{T} 个词元，目标是第 2..{T}+1 个。tok_emb 和 pos_emb 是 --text 抽取输入嵌入所用的表，这里它们也是参数：损失通过这个和到达它们。形状 ({batch}, {T}, {d_in})。"}},
      {"backward/targets#text", {"targets：每个输入的下一个词元，GPT-2 的 id", "id 来自分词器：out_head 对 GPT-2 词表的全部 {V} 个词元打分，与 GPTModel 的相同。位置 t 的目标是词元 t + 1 的 id。"}},
      {"backward/keys", {"keys = W_key(batch)", "MultiHeadAttention 的前向计算与 3.6.2 节相同。"}},
      {"backward/queries", {"queries = W_query(batch)", "查询：(b, T, d_out)。"}},
      {"backward/values", {"values = W_value(batch)", "值：(b, T, d_out)。"}},
      {"backward/keys_viewed", {"keys.view(b, T, {heads}, {head_dim})", "最后一维拆成多个头。"}},
      {"backward/queries_viewed", {"queries.view(b, T, {heads}, {head_dim})", "查询同样拆分。"}},
      {"backward/values_viewed", {"values.view(b, T, {heads}, {head_dim})", "值同样拆分。"}},
      {"backward/keys_transposed", {"keys.transpose(1, 2)", "头成为批次维度：(b, {heads}, T, {head_dim})。"}},
      {"backward/queries_transposed", {"queries.transpose(1, 2)", "查询按头排列：(b, {heads}, T, {head_dim})。"}},
      {"backward/values_transposed", {"values.transpose(1, 2)", "值按头排列：(b, {heads}, T, {head_dim})。"}},
      {"backward/attn_scores", {"attn_scores = queries @ keys.transpose(2, 3)", "每个头的分数：(b, {heads}, T, T)。"}},
      {"backward/attn_scores_masked", {"对角线以上用 -inf 遮蔽的 attn_scores", "softmax 之前先遮住未来。"}},
      {"backward/attn_weights", {"attn_weights = softmax(attn_scores / √{head_dim})，然后 dropout", "使用 --attn-dropout 时模型处于训练模式：掩码此时抽取，反向传播乘以同一个掩码。"}},
      {"backward/context_vec", {"context_vec = (attn_weights @ values).transpose(1, 2)", "各头的上下文向量：(b, T, {heads}, {head_dim})。"}},
      {"backward/context_vec_merged", {"context_vec.contiguous().view(b, T, {d_out})", "各头重新合并。"}},
      {"backward/context_vecs", {"context_vecs = out_proj(context_vec_merged)", "mha 的输出：(b, T, {d_out})。"}},
      {"backward/logits", {"logits = out_head(context_vecs)：每个标签一个分数", "out_head = nn.Linear({d_out}, {V}, bias=False)，紧接着 mha 从同一随机流抽取，与 GPTModel 的 out_head 相同：(b, T, {V})。"}},
      {"backward/logits#text", {"logits = out_head(context_vecs)：每个 GPT-2 词元一个分数", "out_head = nn.Linear({d_out}, {V}, bias=False)，紧接着 mha 从同一随机流抽取，与 GPTModel 的 out_head 相同：(b, T, {V})。"}},
      {"backward/loss#text", {"loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())（第 {grad_step} 步）", "第 5 章的 calc_loss_batch：对全部 {V} 个词元做 log_softmax，再对 {N} 个位置的 -log p（目标）取平均。这里是 {loss}；均匀猜测会得到 ln {V} = 10.82。"}},
      {"backward/loss", {"loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())（第 {grad_step} 步）", "第 5 章的 calc_loss_batch：对 {V} 个标签做 log_softmax，再对 {N} 个位置的负对数概率 -log p（目标）取平均。这里是 {loss}；均匀猜测会得到 ln {V}。"}},
      {"backward/logits.grad", {"logits.grad = (softmax(logits) - one_hot(targets)) / {N}（第 {grad_step} 步）", "对 N = {N} 个位置取平均带来 1/N，-log softmax 的导数是 p - one_hot。位置 1：目标 {target0} 的 p = {p_target0}，所以梯度是 ({p_target0} - 1) / {N} = {logits_grad_target0}；标签 {other0} 的 p = {p_other0}，所以是 {p_other0} / {N} = {logits_grad_other0}。每行之和为 0。这些梯度及其上方的前向计算属于 {steps} 个训练步中的第 {grad_step} 步（--grad-step）：循环结束后打印的 .grad 是最后一步的。"}},
      {"backward/logits.grad#nonfinite", {"logits.grad = (softmax(logits) - one_hot(targets)) / {N}（第 {grad_step} 步）", "对 N = {N} 个位置取平均带来 1/N，-log softmax 的导数是 p - one_hot。这里的 logits 并非全是有限数：前向传播中有 float32 溢出，softmax 给出 NaN（位置 1：目标 {target0} 的 p = {p_target0}），它传到的每个梯度也是如此。这些是 {steps} 个训练步中第 {grad_step} 步的梯度（--grad-step）。"}},
      {"backward/out_head.weight.grad", {"out_head.weight.grad = logits.grad.T @ context_vecs，对批次和词元求和（第 {grad_step} 步）", "对 y = x @ W.T，dW = grad_yᵀ · x：每个位置加上其梯度与输入的外积。形状 ({V}, {d_out})，与权重相同。"}},
      {"backward/context_vecs.grad", {"context_vecs.grad = logits.grad @ out_head.weight（第 {grad_step} 步）", "对 y = x @ W.T，dx = grad_y · W：梯度沿同一组权重流回。"}},
      {"backward/out_proj.weight.grad", {"out_proj.weight.grad = context_vecs.grad.T @ context_vec_merged（第 {grad_step} 步）", "Linear 的 weight.grad 是 grad_outᵀ · input，对批次和词元求和。"}},
      {"backward/out_proj.bias.grad", {"out_proj.bias.grad = context_vecs.grad 对批次和词元求和（第 {grad_step} 步）", "偏置加到每个位置上，所以它的梯度是这些位置梯度之和。"}},
      {"backward/context_vec_merged.grad", {"context_vec_merged.grad = context_vecs.grad @ out_proj.weight（第 {grad_step} 步）", "穿过 out_proj 反向；view 和 transpose 只把这些数移到 (b, {heads}, T, {head_dim})。"}},
      {"backward/attn_weights.grad", {"attn_weights.grad = context_vec.grad @ values.T（第 {grad_step} 步）", "context = attn_weights @ values，所以 d attn_weights = grad · valuesᵀ：权重 (i, j) 得到查询 i 的梯度与值 j 的点积。被遮蔽的权重也有梯度：它们是 0，但改变它们会改变输出。"}},
      {"backward/attn_scores.grad", {"attn_scores.grad：softmax 的反向，除以 √{head_dim}，遮蔽处为 ±0（第 {grad_step} 步）", "softmax 的反向是 w ⊙ (g − Σ g⊙w)：每个权重的梯度减去该行梯度的加权平均，再乘以权重。所以每行之和为 0（同一行所有分数同时加一个数不改变任何东西），被遮蔽的分数得到 0：它们被 -inf 覆盖，权重 w 为 0，损失不依赖它们。然后是缩放带来的 1/√{head_dim}。书中原地遮蔽（attn_scores.masked_fill_），所以这是遮蔽后张量的梯度，0 保留乘积的符号：+0 × (g − Σ g⊙w) 在差为负处打印为 -0.0000e+00（这里 {masked_entries} 个被遮蔽元素中有 {masked_negative_zeros} 个）。masked_fill 的反向再把 +0 传给查询和键。"}},
      {"backward/values.grad", {"values.grad = attn_weights.T @ context_vec.grad，各头合并（第 {grad_step} 步）", "值 j 的梯度是关注它的各查询的上下文梯度按注意力加权之和：最后一个词元的值只得到它自己的。"}},
      {"backward/W_value.weight.grad", {"W_value.weight.grad = values.grad.T @ batch（第 {grad_step} 步）", "grad_outᵀ · input，对批次和词元求和：({d_out}, {d_in})。"}},
      {"backward/W_value.bias.grad", {"W_value.bias.grad：values.grad 对批次和词元求和（第 {grad_step} 步）", "使用 qkv_bias=True 时：偏置加到每个位置上，梯度是这些位置的梯度之和。"}},
      {"backward/queries.grad", {"queries.grad = attn_scores.grad @ keys，各头合并（第 {grad_step} 步）", "scores = q · kᵀ，所以 dq = grad · k。第一个查询只看到第一个键，其权重总是 1：梯度为 0。"}},
      {"backward/queries.grad#nonfinite", {"queries.grad = attn_scores.grad @ keys，各头合并（第 {grad_step} 步）", "scores = q · kᵀ，所以 dq = grad · k。这里分数的梯度不是有限数，所以这个梯度也不是。数值有限时，第一个查询的梯度为 0：它只看到第一个键，其权重总是 1。"}},
      {"backward/W_query.weight.grad", {"W_query.weight.grad = queries.grad.T @ batch（第 {grad_step} 步）", "grad_outᵀ · input，对批次和词元求和。"}},
      {"backward/W_query.bias.grad", {"W_query.bias.grad：queries.grad 求和（第 {grad_step} 步）", "使用 qkv_bias=True 时：偏置加到每个位置上，梯度是这些位置的梯度之和。"}},
      {"backward/keys.grad", {"keys.grad = attn_scores.grad.T @ queries，各头合并（第 {grad_step} 步）", "scores = q · kᵀ，所以 dk = gradᵀ · q。"}},
      {"backward/W_key.weight.grad", {"W_key.weight.grad = keys.grad.T @ batch（第 {grad_step} 步）", "grad_outᵀ · input，对批次和词元求和。"}},
      {"backward/W_key.bias.grad", {"W_key.bias.grad：keys.grad 求和（第 {grad_step} 步）", "使用 qkv_bias=True 时：偏置加到每个位置上，梯度是这些位置的梯度之和。"}},
      {"backward/pos_emb.weight.grad", {"pos_emb.weight.grad：batch.grad 对 {batch} 份求和，每个位置一行（第 {grad_step} 步）", "batch = tok_emb(ids) + pos_emb(positions)：加法把梯度传给两者。位置表 (T, D) 被广播到各份上，所以它的梯度是 batch.grad 对各份之和；nn.Embedding 的反向把第 t 行放在位置 t。最后一行为 0：第 {T}+1 个词元只作目标，从不作输入。"}},
      {"backward/tok_emb.weight.grad", {"tok_emb.weight.grad：每个输入位置的梯度加到其词元的行上（第 {grad_step} 步）", "nn.Embedding 的反向按顺序把每个位置的 batch.grad 加到该位置 id 的行上：重复的词元，其行得到它各位置梯度之和。这里第 {tok_id} 行（'{tok_piece}'，在输入中出现 {tok_count} 次，连同各份共 {tok_positions} 个位置）是 batch.grad 的 {tok_positions} 行之和。只有输入 id 的 {tok_rows} 行可能非零；其余 {zero_rows} 行恰好为 0。所以这里 print() 的是这 {tok_rows} 行，即 tok_emb.weight.grad[[ids]]，如标签所示：整张表的 print() 只会显示前 3 行和后 3 行，全是 0。"}},
      {"backward/step1.exp_avg", {"AdamW 第 1 步，W_query.weight：exp_avg = 0.9·0 + 0.1·grad", "一阶矩：梯度的滑动平均（β₁ = 0.9）。"}},
      {"backward/step1.exp_avg_sq", {"exp_avg_sq = 0.999·0 + 0.001·grad²", "二阶矩：梯度平方的滑动平均（β₂ = 0.999）。"}},
      {"backward/step1.update", {"第 1 步中 W_query.weight 的更新（之后 − 之前）", "param·(1 − lr·wd) − lr/(1 − β₁) · exp_avg / (√(exp_avg_sq/(1 − β₂)) + ε)：偏差校正之后，第 1 步把每个权重移动约 −lr·sign(grad) = ∓{lr}，与梯度大小无关，另加衰减 lr·wd·param。"}},
      {"backward/step1.update#nonfinite", {"第 1 步中 W_query.weight 的更新（之后 − 之前）", "param·(1 − lr·wd) − lr/(1 − β₁) · exp_avg / (√(exp_avg_sq/(1 − β₂)) + ε)。梯度不是有限数的地方，更新也不是。有限的梯度在第 1 步把它的权重移动约 −lr·sign(grad) = ∓{lr}，另加衰减 lr·wd·param。"}},
      {"backward/step1.update#sgd", {"第 1 步中 W_query.weight 的更新（之后 − 之前）", "SGD：−lr · (grad + wd·param) = −{lr} · (grad + {weight_decay}·param)。torch.optim.SGD 把 weight_decay 加进梯度（L2），默认为 0：此时更新就是 −lr · grad。"}},
      {"backward/step1.W_query.weight", {"第 1 步之后的 W_query.weight", "之前 + 更新。"}},
      {"backward/losses", {"losses：{steps} 次更新前各自的损失", "{optimizer}，lr {lr}：train_model_simple 的循环（zero_grad、loss、backward、step）。"}},
      {"backward/tok_emb.weight", {"{steps} 步之后的 tok_emb.weight", "训练后的表。AdamW 的衰减每步把每一行乘以 (1 − lr·wd)，文本中没有的词元的行也一样，尽管它们的梯度为 0。"}},
      {"backward/pos_emb.weight", {"{steps} 步之后的 pos_emb.weight", "训练后的位置表。"}},
      {"backward/W_query.weight", {"{steps} 步之后的 W_query.weight", "训练后的参数。"}},
      {"backward/W_query.bias", {"{steps} 步之后的 W_query.bias", "训练后的参数。"}},
      {"backward/W_key.weight", {"{steps} 步之后的 W_key.weight", "训练后的参数。"}},
      {"backward/W_key.bias", {"{steps} 步之后的 W_key.bias", "训练后的参数。"}},
      {"backward/W_value.weight", {"{steps} 步之后的 W_value.weight", "训练后的参数。"}},
      {"backward/W_value.bias", {"{steps} 步之后的 W_value.bias", "训练后的参数。"}},
      {"backward/out_proj.weight", {"{steps} 步之后的 out_proj.weight", "训练后的参数。"}},
      {"backward/out_proj.bias", {"{steps} 步之后的 out_proj.bias", "训练后的参数。"}},
      {"backward/out_head.weight", {"{steps} 步之后的 out_head.weight", "训练后的参数。"}},
      {"backward/attn_weights_untrained", {"训练前的注意力权重（eval 模式，第一个序列）", "mha.eval()：没有 dropout。"}},
      {"backward/attn_weights_trained", {"{steps} 步之后的注意力权重（eval 模式，第一个序列）", "与未训练的比较：训练把注意力移向有助于预测下一个词元的词元。"}},
      {"backward/attn_weights_trained#nonfinite", {"{steps} 步之后的注意力权重（eval 模式，第一个序列）", "这些权重并非全是有限数：途中有 float32 溢出，这里没有可与未训练的相比较的模式。"}},
  };
  t.checks = {
      {"scores_grad_rows_sum_to_zero", "attn_scores.grad 的每一行之和为 0"},
      {"masked_scores_grad_exactly_zero", "attn_scores.grad 中被遮蔽的元素恰好为 0（+0 或 -0）"},
      {"grad_matches_finite_difference", "W_query.weight.grad[0, 0] 与损失的 float64 中心差分（h = 1e-3）一致：误差不超过 1e-6 + 1e-3 × |差分|"},
  };
  t.ui = {
      {"stage.backward", "注意力如何学习：损失、每个梯度和训练步骤"},
      {"list.training", "训练（只按名称运行）："},
      {"training_section", "第 5 章的损失包在第 3 章的模块外（{section}）"},
  };
  return t;
}

}  // namespace attn
