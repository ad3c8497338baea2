// 简体中文：--text（第 2 章从文本到嵌入向量的步骤，键 "text/<step>"）与 tokens 阶段
// （第 2 章笔记本中的单元，键 "tokens/<step>"）的文字。
#include "lang/parts.h"

namespace attn {

LangTable text_zh() {
  LangTable t;
  t.code = "zh";
  t.steps = {
      {"text/text",
       {"输入的原始文本",
        "第 2 章从原始文本出发。在做任何注意力计算之前，文本先被切分成词元，每个词元再变成一个"
        "数字向量。"}},
      {"text/pieces",
       {"GPT-2 的字节对编码片段，每个词元一段",
        "tiktoken 的 GPT-2 编码器先把文本切成单词、数字、标点和空白，再按 GPT-2 学到合并规则的"
        "顺序，把每段的 UTF-8 字节两两合并，直到成为它 {vocab} 个词元的词表中的词元。单词带着它前面的空格，显示为 {space_mark}。"
        "这段文本共得到 {T} 个词元。"}},
      {"text/token_ids",
       {"词元 ID：torch.tensor(tokenizer.encode(text))",
        "每个片段换成它在 GPT-2 词表中的编号（0 到 50256，50256 是 <|endoftext|>）。"
        "模型看到的只有这 {T} 个整数，形状为 ({T},)。"}},
      {"text/token_embeddings",
       {"词元嵌入：nn.Embedding(50257, {d_in}) 按词元 ID 查表",
        "执行 torch.manual_seed({seed1}) 之后，nn.Embedding(50257, {d_in}) 为词表中的每一项存一个"
        " {d_in} 维的随机向量；查这 {T} 个 ID 就取出对应的行。同一个词元无论出现在哪里，"
        "得到的向量都相同，形状为 ({T}, {d_in})。"}},
      {"text/pos_embeddings",
       {"位置嵌入：nn.Embedding({T}, {d_in}) 按 torch.arange({T}) 查表",
        "第二张表紧接着从同一个生成器中抽取，每个位置 0..{T_minus_1} 各有一个向量。它告诉模型每个"
        "词元所在的位置，这是词元嵌入本身做不到的，形状为 ({T}, {d_in})。"}},
      {"text/input_embeddings",
       {"输入嵌入 = 词元嵌入 + 位置嵌入",
        "两者相加，每个词元得到一个 {d_in} 维向量，它既取决于词元本身，也取决于它的位置。这个 "
        "({T}, {d_in}) 的矩阵就是第 3 章的 inputs，下面的注意力步骤都从它开始。"}},

      {"tokens/embedding_layer.weight",
       {"torch.manual_seed(123) 之后 nn.Embedding(6, 3) 的权重",
        "嵌入层是一张表：每个词元 ID 一行，填的是正态分布的随机数，共 6 个 ID、每个 3 维。"
        "训练会调整这些行；这里是初始化时的值。"}},
      {"tokens/embedding_of_3",
       {"embedding_layer(torch.tensor([3]))：ID 3 对应的行",
        "查 ID 3 就返回权重的第 3 行（从 0 开始数）。嵌入查表只是索引：结果与独热向量乘以权重"
        "相同，但省去了乘法。形状为 (1, 3)。"}},
      {"tokens/embedding_of_input_ids",
       {"embedding_layer(torch.tensor([2, 3, 5, 1]))：四行",
        "四个 ID 按顺序取出四行：权重的第 2、3、5、1 行。形状为 (4, 3)。"}},
      {"tokens/integers",
       {"tokenizer.encode(text, allowed_special={\"<|endoftext|>\"})",
        "用 GPT-2 的字节对编码器处理书中的句子：常见的词是单个词元，someunknownPlace 这样的生僻词"
        "被拆成已知的片段，<|endoftext|> 变成 ID 50256。"}},
      {"tokens/integers#text",
       {"对你的文本执行 tokenizer.encode(text, allowed_special={\"<|endoftext|>\"})",
        "笔记本中的这一格，把书中的句子换成了你的文本：GPT-2 的字节对编码器给出这 {T} 个 ID，"
        "与上面的 token_ids 相同；常见的词是单个词元，生僻的词被拆成已知的片段。"}},
      {"tokens/strings#text",
       {"tokenizer.decode(integers)：还原出你的文本",
        "解码把各词元的字节拼接起来，因此即使一个词元只含某个字符的一部分字节，也能原样还原你的文本："
        "字节对编码不需要“未知词”词元。"}},
      {"tokens/strings",
       {"tokenizer.decode(integers)：还原出的文本",
        "解码把各词元的字节拼接起来，因此能原样还原文本：字节对编码不需要“未知词”词元。"}},
  };
  t.ui = {
      {"stage.tokens", "第 2 章：nn.Embedding 查表与 GPT-2 的字节对分词器"},
      {"word.pieces_legend", "（· 表示空格）"},
      {"word.pieces_legend_split",
       "（· 表示空格；GPT-2 会把一些字符的字节拆到几个词元中：这样的字符只在它的第一个词元上显示一次，"
       "↳ 表示接续它的词元。你的文本中："},
      {"word.pieces_legend_end", "）"},
      {"word.pieces_legend_more", " ……"},
  };
  return t;
}

}  // namespace attn
