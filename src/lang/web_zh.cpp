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
      {"web.notebook_section", "第 {chapter} 章笔记本的 {section} 节"},
      {"web.reference_code", "本书代码库中的参考代码：{file}"},
      // --heatmap-scale matrix (the terminal's and the page's heatmaps).
      {"heatmap.scale_matrix", "本矩阵的色标"},
  };
  return t;
}

}  // namespace attn
