// Chinese texts added by the learner review (issue 12): the words the renderers put around
// the chapter's texts (punctuation, section ranges, the mark of attn-walk's own additions),
// what a check's number measures, the heatmap legends' fixed scale and mask meanings, and
// the note on the exercise 3.2 solution.
#include "lang/lang.h"

namespace attn {

LangTable review_zh() {
  LangTable t;
  t.code = "zh";
  t.ui = {
      {"measure.dropout_rows_no_longer_sum_to_1",
       "最大的 |行和 − 1|"},
      {"colon",
       "："},
      {"parenthesized",
       "（{text}）"},
      {"sections",
       "第 3 章 {section} 节"},
      {"beyond_chapter",
       "【本章之外的补充】{title}"},
      {"note.exercise_3_2_solution",
       "练习 3.2：书中 exercise-solutions.ipynb 打印的是 [[-9.1476e-02, 3.4164e-02], …]，"
       "与本章代码的结果不同（用本章的输入和随机种子 123 得到 [[-0.5740, 0.2216], …]）。"
       "那份输出来自 CausalAttention 的第一个版本：它用 torch.softmax(..., dim=1) 沿查询而不是"
       "沿键（dim=-1）归一化；tests/golden/exercise_3_2_solution.py 用 PyTorch 复现了它，"
       "attn-walk --stage multi-head --softmax-dim 1 也能显示它"},
      {"note.exercise_3_2_solution#dim1",
       "练习 3.2：加上 --softmax-dim 1 后，这里就是书中 exercise-solutions.ipynb 打印的数值"
       "（用本章的输入和随机种子 123，得到 [[-9.1476e-02, 3.4164e-02], …]），"
       "来自第一个版本的 CausalAttention 沿 dim=1 的 softmax"},
      {"note.softmax_dim1",
       "--softmax-dim 1：CausalAttention 用 torch.softmax(attn_scores / d_k**0.5, dim=1) 归一化，"
       "和第一版 ch03.ipynb 一样。这个 dim=1 沿用自二维的代码，在那里第 1 维就是最后一维；"
       "批次维加在最前面之后，第 1 维变成了查询，于是每一列权重之和为 1，而不是每一行，"
       "一个查询混合值向量时用的权重之和也就不再是 1。PyTorch 计算这种 softmax 时，"
       "按 torch.get_num_threads() 让一部分列用向量化的 exp、另一部分用 C 库的 exp："
       "本次演示对应 {torch_threads} 个线程（--torch-threads）"},
      {"heatmap.scale_fixed",
       "色标（所有权重和掩码共用）"},
      {"heatmap.mask",
       "mask = torch.triu(..., diagonal=1)：1 标记被遮住的位置，即查询 i 之后的键 j（j > i）"},
      {"heatmap.mask_simple",
       "mask_simple = torch.tril(...)：1 标记保留的位置，即查询 i 及之前的键 j（j <= i）"},
  };

  t.steps = {
      {"dot-product/context_vec_2_previous",
       {"再次打印前面用循环算出的 context_vec_2",
        "笔记本把用循环算出的上下文向量再打印一次，方便和 all_context_vecs 的第 {query} 行对照："
        "一个是逐元素算出的，一个是矩阵乘法算出的。上面的检查对每一行都比较了两者。"}},

      // ---- dropout：本章之外，ch03/03_understanding-buffers ----
      {"dropout/buffer_mask",
       {"CausalAttention(..., context_length={context_length}).mask：缓冲区，比输入更大",
        "self.register_buffer(\"mask\", ...) 让掩码成为模块状态的一部分，但不是参数：优化器不会更新"
        "它，而 state_dict() 会保存它，.to(device) 也会把它和权重一起移动。它按最长的上下文一次建好，"
        "这里 {T} 个词元用的是 context_length = {context_length}。下面两行分别是这个模块和把掩码存成"
        "普通属性的模块的 state_dict 键：只有缓冲区会被保存。"}},
      {"dropout/buffer_mask_T",
       {"mask[:{T}, :{T}]：按输入截取的缓冲区",
        "forward 使用 self.mask[:num_tokens, :num_tokens]：左上角 ({T}, {T}) 的块，正好等于 "
        "torch.triu(torch.ones({T}, {T}), diagonal=1)。所以同一个缓冲区可以用于任何不超过 "
        "context_length 个词元的输入。"}},

      // ---- multi-head：本章之外，head_dim = 2 时的 view 与 transpose ----
      {"multi-head/hd2_keys",
       {"head_dim = 2 的键：torch.arange(12.).view(1, 3, 4)，2 个头 × 2 维",
        "本章默认的 head_dim = 1，view 和 transpose 移动的数据看不出来（而且 sqrt(1) = 1）。这里 "
        "b = 1、3 个词元、d_out = 4 = 2 个头 × head_dim 2，填入 0..11，让每个数说明自己的位置：词元 t "
        "存的是 4t..4t+3，头 h 应该拿到每个词元的第 2h 和 2h+1 个特征。张量下方是它的步长（沿每一维"
        "走一步在内存中跨过多远）以及它是否按行连续存储。"}},
      {"multi-head/hd2_keys_split",
       {"keys.view(1, 3, 2, 2).transpose(1, 2)：每个头拿到每个词元中属于自己的特征",
        "view 把最后一维拆成 (heads, head_dim)；transpose(1, 2) 再把头移到词元前面：头 0 拿到 "
        "[0, 1]、[4, 5]、[8, 9]，即词元 1、2、3 的前两个特征。数据没有移动，只是步长变了，所以张量"
        "不再连续。"}},
      {"multi-head/hd2_keys_wrong",
       {"不做 transpose 的 keys.view(1, 2, 3, 2)：词元被混进了错误的头",
        "一个形状相同 (b, heads, T, head_dim) 的捷径是错的：view 按内存顺序读取，所以“头 0”拿到的是 "
        "[0, 1]、[2, 3]、[4, 5]，即词元 1 的全部四个特征和词元 2 的一半。形状正确，也不会报错，"
        "这正是本章先 view 成 (b, T, heads, head_dim) 再转置的原因。"}},
      {"multi-head/hd2_heads_copy",
       {"一个新的 (b, heads, T, head_dim) 张量，就像 attn_weights @ values 得到的那样",
        "与 hd2_keys_split 相同的数，但存放在一个按这个顺序逐行存储的新张量里（矩阵乘法就是这样写出"
        "结果的）：又是连续的了。"}},
      {"multi-head/hd2_back",
       {".transpose(1, 2)：回到 (b, T, heads, head_dim)，不再连续",
        "转置回来后，每个词元的各个头又并排在一起，但这只是通过步长实现的：内存中的数仍然按头排列，"
        "所以这里调用 .view(1, 3, 4) 会报错。"}},
      {"multi-head/hd2_merged",
       {".contiguous().view(1, 3, 4)：合并各个头，等于 hd2_keys",
        ".contiguous() 把这些数复制成逐行的顺序；之后 view 才能把 (heads, head_dim) 合并成 "
        "d_out = 4：每个词元的一行又是 4t..4t+3，和最初的键相同。"}},
  };
  return t;
}

}  // namespace attn
