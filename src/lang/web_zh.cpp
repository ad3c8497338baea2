// 网页控件的中文文本（网页：src/render/page/ 和 src/web/）。
#include "lang/lang.h"

namespace attn {

LangTable web_zh() {
  LangTable t;
  t.code = "zh";
  t.ui = {
      {"web.controls", "设置"},
      {"web.embeddings", "嵌入向量：每个词元一行"},
      {"web.token", "词元"},
      {"web.add_token", "＋ 词元"},
      {"web.remove_token", "删除这个词元"},
      {"web.add_dim", "＋ 维度"},
      {"web.remove_dim", "－ 维度"},
      {"web.paste", "或者粘贴 JSON 格式的嵌入向量（{\"tokens\": [...], \"embeddings\": [[...], ...]} 或 [[...], ...]）："},
      {"web.apply", "使用这段 JSON"},
      {"web.reset", "恢复本章的六个词元"},
      {"web.kept", "下面仍是上一次成功计算的结果。"},
      {"web.static", "这个页面由 attn-walk --format html 生成，其中的计算结果是固定的。用 `make web` 生成的页面会在修改设置后重新计算。"},
      {"web.timing", "计算用时 {} 毫秒"},
      {"web.loading", "正在计算……"},
      {"web.progress_wait", "正在计算……{} 秒"},
      {"web.progress", "正在计算……已完成 {} 步，最近一步是 {}；{} 秒"},
      {"web.progress_render", "正在计算……{} 步全部完成，正在生成页面；{} 秒"},
      {"web.progress_part", "正在计算……已完成 {} 步，正在计算 {}（{}/{}）；{} 秒"},
      {"web.stop", "停止"},
      {"web.stopped", "计算尚未完成就已停止：设置已恢复为下方演示所用的设置。"},
      {"web.engine_failed", "计算引擎停止运行：{}"},
      {"web.notebook_section", "第 {chapter} 章笔记本的 {section} 节"},
      {"web.reference_code", "本书代码库中的参考代码：{file}"},
      // --heatmap-scale matrix (the terminal's and the page's heatmaps).
      {"heatmap.scale_matrix", "本矩阵的色标"},
      {"web.group.input", "输入"},
      {"web.group.model", "模型"},
      {"web.group.show", "显示"},
      {"web.more", "更多设置（不影响这个阶段）"},
      {"web.opt.stage", "阶段"},
      {"web.opt.text", "你自己的文本"},
      {"web.opt.embed-dim", "嵌入维度"},
      {"web.opt.max-tokens", "最多词元数"},
      {"web.opt.query", "查询词元"},
      {"web.opt.seed", "随机种子"},
      {"web.opt.d-out", "输出宽度"},
      {"web.opt.heads", "头数"},
      {"web.opt.qkv-bias", "W_query、W_key、W_value 带偏置"},
      {"web.opt.init", "初始权重"},
      {"web.opt.dropout", "dropout 比例"},
      {"web.opt.attn-dropout", "注意力权重的 dropout"},
      {"web.opt.batch", "批大小"},
      {"web.opt.dropout-rng", "dropout 内核"},
      {"web.opt.blas-kernel", "OpenBLAS 矩阵乘法内核"},
      {"web.opt.softmax-dim", "softmax 的维度"},
      {"web.opt.torch-threads", "PyTorch 线程数"},
      {"web.opt.kv-groups", "键/值组数"},
      {"web.opt.window", "窗口"},
      {"web.opt.rope-base", "RoPE 基数"},
      {"web.opt.block", "每块的键数"},
      {"web.opt.latent-dim", "潜在维度"},
      {"web.opt.lang", "语言"},
      {"web.opt.heatmap-scale", "热力图配色"},
      {"web.text_placeholder", "输入一句话：它会变成 GPT-2 的词元及其嵌入向量"},
      {"web.text_replaces", "你的文本取代了表格：下面是它的词元，即 GPT-2 的片段（↳ 表示接续前一个字符）。清空文本即可重新编辑表格。"},
      {"web.cell_not_number", "第 {} 行第 {} 列：'{}' 不是数字"},
  };
  return t;
}

}  // namespace attn
