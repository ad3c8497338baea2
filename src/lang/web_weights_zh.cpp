// 页面中权重文件的中文文字（src/render/page/weights.js）：文件选择与拖放区、从文件读到的模型、
// 无法读取的文件，以及逐块推进的进度。
#include "lang/lang.h"

namespace attn {

LangTable web_weights_zh() {
  LangTable t;
  t.code = "zh";
  t.ui = {
      {"web.stages.ch4", "第 4 章：训练好的 GPT"},
      {"web.stage.gpt", "用你的权重运行 GPTModel"},
      {"web.opt.weights", "你的 GPT-2 权重（文件）"},
      {"web.opt.layer", "展开的块"},
      {"web.opt.head", "单独显示的头"},
      {"web.opt.max-new-tokens", "生成的新词元数"},
      {"web.weights_drop",
       "选择文件，或把它拖到这里：书中的 .safetensors 或 .pth，或 Hugging Face 的 model.safetensors"
       "（有 config.json 的话一并选上）。文件只在这个浏览器里读取，不会离开你的电脑。"},
      {"web.weights_choose", "选择文件…"},
      {"web.weights_open", "已打开：{}"},
      {"web.weights_no_file", "尚未打开文件"},
      {"web.weights_reading", "正在读取 {}……"},
      {"web.weights_loaded", "{}：{} 个块，{} 个头，宽度 {}，词表 {}，上下文 {} 个词元。"},
      {"web.weights_bad", "{} 无法作为 GPT-2 模型读取。读取器的说明："},
      {"web.weights_heads", "{} 已读取，但注意力的头数需要你给出：请在下面填写（--heads）。"},
      {"web.weights_none", "只有 config.json：请同时选择权重文件（它应与 config.json 放在一起）。"},
      {"web.progress_read", "正在读取权重 {}；{} 秒"},
      {"web.progress_block", "正在计算……第 {} 块，共 {} 块，最近一步是 {}；{} 秒"},
  };
  return t;
}

}  // namespace attn
