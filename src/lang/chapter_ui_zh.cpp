// Chinese words of the renderers (headings, notes, heatmaps, the page, --step's prompt) and the
// chapter's dropout-kernel notes.
#include "lang/chapter.h"

namespace attn {

LangTable chapter_ui_zh() {
  LangTable t;
  t.code = "zh";
  t.ui = {
      {"section", "第 {chapter} 章 {section} 节"},
      {"input", "输入"},
      {"note", "注"},
      {"blas_kernel", "矩阵乘法：按 OpenBLAS 的 {kernel} sgemm 内核以 {threads} 个线程求和的顺序（--blas-kernel）"},
      {"max_diff", "最大差值"},
      // The command line's own words around an error (src/cli/main.cpp).
      {"cli.error", "attn-walk：错误："},
      {"cli.note", "attn-walk：注意："},
      {"cli.unused_option", "--{option} 不影响 --stage {stage}（只影响 {only}）"},
      {"cli.internal_error", "attn-walk：内部错误："},
      {"cli.usage_hint", "运行 attn-walk --help 查看用法。"},
      {"cli.out_of_memory", "内存不足（输入或所选的尺寸太大）"},
      // Heatmap and HTML page words (src/render/heatmap_*.cpp, html.cpp).
      {"heatmap.title", "{} 的热力图：行是查询 (i)，列是键 (j)"},
      {"heatmap.scale", "色标"},
      {"heatmap.zero", "恰好为 0"},
      {"heatmap.masked", "-inf（已遮蔽）"},
      {"heatmap.invalid", "nan 或 +inf"},
      {"heatmap.batch", "批次 {}"},
      {"heatmap.batch_head", "批次 {}，头 {}"},
      {"heatmap.sampled", "{} 个词元：从第一个到最后一个词元，均匀地选出 {} 行和 {} 列来画；每个格子都是真实的元素"},
      {"heatmap.repeated_one", "批次 {} 与批次 0 完全相同：批次由相同输入的副本堆叠而成，所以只画一次"},
      {"heatmap.repeated_many", "批次 {} 与批次 0 完全相同：批次由相同输入的副本堆叠而成，所以只画一次"},
      {"heatmap.left_out", "另有 {} 个矩阵块未画出"},
      {"heatmap.colon", "："},
      {"heatmap.rows", "行：查询 (i)"},
      {"heatmap.cols", "列：键 (j)"},
      {"page.contents", "目录"},
      {"page.steps", "{} 个步骤"},
      {"page.all_stages", "全部阶段"},
      {"page.settings", "设置"},
      {"page.model", "模型"},
      {"page.chapter_n", "《从零构建大语言模型》第 {chapter} 章"},
      {"page.generated", "由 attn-walk {} 生成。张量按 PyTorch 的打印格式显示。"},
      {"page.chapter", "《从零构建大语言模型》第 3 章"},
      // The losses' line plot (render/series_svg.cpp): its axes' titles.
      {"series.losses.x", "训练步"},
      {"series.losses.y", "损失"},
      {"step_prompt", "-- 回车：下一步，q：退出 -- "},
      {"explain.nonfinite", "这里这些值并非全是有限数：上面就有限数所说的，对它们未必成立。"},
      {"note.nonfinite",
       "第 [{nonfinite_index}] 步 {nonfinite_step} 是第一个数值并非全是有限数的步骤（inf 或 nan，"
       "PyTorch 算出的也一样：float32 溢出了，或 0 被 0 除）。文字讲的是本章的算术对有限数做什么；"
       "检查（✗）标出这些数在哪里偏离了它"},
      {"note.dropout_kernel.default",
       "dropout 掩码：采用 PyTorch 默认的 CPU 实现，与书中打印的结果一致（macOS、ARM、AMD，"
       "PyTorch 2.7+）"},
      {"note.dropout_kernel.mkl",
       "dropout 掩码：采用 MKL 实现（Intel x86 上 PyTorch 1.13–2.6 的 pip/conda 版本），"
       "因此与书中的结果不同"},
  };
  return t;
}

}  // namespace attn
