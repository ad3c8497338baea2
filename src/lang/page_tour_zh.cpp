// 给第一次打开网页的学习者的中文文本（issue 42）：页面是什么、先试什么，按本章小节和通俗名称列出的
// 阶段，语言名称，选项标签，不是单一数值的默认值，引擎报错的中文说法（src/web/page_errors.cpp），
// 停止计算，以及提示。
#include "lang/lang.h"

namespace attn {

LangTable page_tour_zh() {
  LangTable t;
  t.code = "zh";
  t.ui = {
      {"web.intro.what",
       "《从零构建大语言模型》（Build a Large Language Model (From Scratch)）第 3 章“编码注意力机制”的逐步演示："
       "本章计算的每一个张量，数值与 PyTorch 打印的完全相同。"},
      {"web.intro.try",
       "先试试：在下面的“设置”里选一个阶段（本章从 3.3 开始），或在“输入”里写一句你自己的话。每次修改都会重新计算下方的演示。"},
      {"web.lang_name", "中文"},
      {"web.group.stage", "从这里开始：本章的哪一部分"},
      {"web.stages.ch2", "第 2 章"},
      {"web.stages.ch3", "第 3 章：注意力"},
      {"web.stages.bonus", "第 3 章之外（附加内容）"},
      {"web.stages.training", "第 5 章：注意力如何学习"},
      {"web.stage.tokens", "词元与嵌入向量"},
      {"web.stage.dot-product", "用点积计算注意力分数"},
      {"web.stage.softmax", "用 softmax 归一化"},
      {"web.stage.trainable", "可训练的权重 W_query、W_key、W_value"},
      {"web.stage.causal", "因果注意力：遮住后面的词元"},
      {"web.stage.dropout", "dropout 与 CausalAttention 类"},
      {"web.stage.multi-head", "多头注意力"},
      {"web.stage.all", "整章，所有阶段"},
      {"web.stage.efficient", "高效的多头注意力"},
      {"web.stage.kv-cache", "KV 缓存：一次一个词元"},
      {"web.stage.gqa", "分组查询注意力"},
      {"web.stage.swa", "滑动窗口注意力"},
      {"web.stage.rope", "RoPE：旋转位置编码"},
      {"web.stage.flash", "Flash 注意力：逐块计算 softmax"},
      {"web.stage.mla", "多头潜在注意力"},
      {"web.stage.bonus", "所有附加阶段"},
      {"web.stage.backward", "梯度与训练步骤"},
      {"web.opt.steps", "训练步数"},
      {"web.opt.lr", "学习率"},
      {"web.opt.weight-decay", "权重衰减"},
      {"web.opt.optimizer", "优化器"},
      {"web.opt.grad-step", "显示梯度的训练步"},
      {"web.default.layer", "不填：每个块一行摘要"},
      {"web.default.head", "不填：所有的头"},
      {"web.default.seed", "本章的种子：123 和 789"},
      {"web.choice.heatmap-scale.fixed", "固定：0 到 1"},
      {"web.choice.heatmap-scale.matrix", "每个矩阵各自的色标"},
      {"web.choice.optimizer.adamw", "AdamW（第 5 章）"},
      {"web.choice.optimizer.sgd", "SGD"},
      {"web.choice.init.rand", "rand：torch.rand（本章）"},
      {"web.choice.init.randn", "randn：torch.randn"},
      {"web.choice.dropout-rng.default", "default：书中的掩码"},
      {"web.choice.dropout-rng.mkl", "mkl：Intel 上的 pip/conda 版本"},
      {"web.choice.softmax-dim.-1", "-1：对键（本章）"},
      {"web.choice.softmax-dim.1", "1：对查询"},
      {"web.stopped_link", "计算尚未完成就已停止：链接中的设置都保留着。修改任一设置，或重新计算。"},
      {"web.walk_again", "重新计算"},
      {"web.progress_of", "正在计算……第 {} 步，共 {} 步，最近一步是 {}；{} 秒"},
      {"web.progress_part_of", "正在计算……第 {} 步，共 {} 步，正在计算 {}（{}/{}）；{} 秒"},
      {"web.scale_hint", "有 {} 个词元时，注意力权重都很小、彼此接近：给每个矩阵各自的色标能看得更清楚。"},
      {"web.scale_use", "使用每个矩阵各自的色标"},
      {"web.table_scrolls", "表格比屏幕宽：左右滑动表格即可看到所有维度。"},
      {"web.cell_name", "第 {} 行（{}），第 {} 列"},
      {"web.err.option", "--{opt}：这个设置无法使用：{detail}"},
      {"web.err.range", "--{opt}：必须是{range}，{got} 不行"},
      {"web.err.whole_range", " {min} 到 {max} 之间的整数"},
      {"web.err.number_range", " {min} 到 {max} 之间的数"},
      {"web.err.whole_at_least", "不小于 {min} 的整数"},
      {"web.err.number_at_least", "不小于 {min} 的数"},
      {"web.err.not_number", "--{opt}：'{got}' 不是数字"},
      {"web.err.not_choice", "--{opt}：'{got}' 不是可选值 {choices} 之一"},
      {"web.err.divisible",
       "--{opt}：头数必须能整除宽度 d_out：d_out {d_out} 无法平均分成 {heads} 个头。请选择能整除 {d_out} 的头数，"
       "或能被 {heads} 整除的 d_out。"},
      {"web.err.query", "--query：查询词元必须在 1 到 {n}（词元个数）之间，{got} 不行"},
      {"web.err.json_at", "嵌入向量：第 {line} 行第 {column} 列：{detail}"},
      {"web.err.json_literal", "JSON 读不懂这里以 '{token}' 开头的内容：值必须是数字（如 0.5）、双引号中的文本，或 true、false、null"},
      {"web.err.json_end", "JSON 提前结束了：有方括号 ] 或花括号 } 没有闭合"},
      {"web.err.json_unexpected", "这里不应出现 '{token}'：请检查是否少了或多了逗号、括号或引号"},
      {"web.err.json_other", "这不是有效的 JSON：{detail}"},
      {"web.err.input_other", "内容有误（原文）：{detail}"},
      {"web.err.other", "这个设置无法使用（原文）：{detail}"},
      {"web.err.gpt_blocks", "--{opt}：模型有 {n} 个块，编号 0 到 {max}，没有 {got}"},
      {"web.err.gpt_heads", "--{opt}：模型有 {n} 个头，编号 0 到 {max}，没有 {got}"},
      {"web.err.head_needs_layer", "--head：请先选一个块（--layer）：显示的是那个块的头"},
      {"web.err.gpt_context", "--{opt}：{n} 个词元，超过了模型的上下文长度 {max}：请缩短文本"},
      {"web.err.text_empty", "你的文本是空的：请输入一句要分词的话"},
  };
  return t;
}

}  // namespace attn
