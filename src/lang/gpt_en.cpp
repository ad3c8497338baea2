// English texts of the gpt stage (src/stages/gpt.cpp): chapter 4's GPTModel on trained weights.
// A block's steps have one text for every block, kept under trf_blocks.N (lang.h's
// step_text_name; {block} is the index); the numbers the
// explanations quote are the walk's own ({in_mean}, {shortcut_share}, {head_focus}, ...).
#include "lang/gpt.h"

namespace attn {

LangTable gpt_en() {
  LangTable t;
  t.code = "en";
  t.steps = {
      {"gpt/in_idx",
       {"in_idx = torch.tensor(tokenizer.encode(text)).unsqueeze(0): the token ids, (1, {T})",
        "GPTModel.forward takes token ids, not embeddings: a batch of one sequence of {T} ids from "
        "GPT-2's tokenizer. The model looks each id up in its own trained tok_emb table."}},
      {"gpt/tok_emb",
       {"tok_emb(in_idx): each id's trained row of the ({vocab_size}, {emb_dim}) table, (1, {T}, {emb_dim})",
        "nn.Embedding picks one row per token id from the weights file: {emb_dim} trained numbers per "
        "token instead of chapter 2's random ones."}},
      {"gpt/pos_emb",
       {"pos_emb(torch.arange({T})): the trained rows of positions 0 to T-1, ({T}, {emb_dim})",
        "One row per position, up to context_length = {context_length}: where a token stands, learned "
        "in training, the same for every text."}},
      {"gpt/emb_sum",
       {"x = tok_embeds + pos_embeds: what the first block receives, (1, {T}, {emb_dim})",
        "No module outputs this sum: GPTModel.forward adds the two embeddings (pos_embeds broadcast "
        "over the batch). drop_emb leaves it unchanged in eval() mode."}},
      {"gpt/final_norm",
       {"final_norm(x): the last LayerNorm, (1, {T}, {emb_dim})",
        "After the last block, one more LayerNorm. On the last token's row: mean {in_mean} and variance "
        "{in_var} before, mean {out_mean} and variance {out_var} after its scale and shift."}},
      {"gpt/out_head",
       {"logits = out_head(x): one score per vocabulary entry for every position, (1, {T}, {vocab_size})",
        "nn.Linear({emb_dim}, {vocab_size}, bias=False) turns each position's vector into {vocab_size} "
        "scores, one per token id: the larger, the likelier that token comes next."}},
      {"gpt/probas",
       {"probas = torch.softmax(logits[:, -1, :], dim=-1): the next token's probabilities, (1, {vocab_size})",
        "Only the last position predicts what follows the text. Softmax turns its {vocab_size} scores into "
        "probabilities that sum to 1."}},
      {"gpt/top5_ids",
       {"torch.topk(probas, 5).indices: the five likeliest next token ids",
        "The ids with the largest probabilities, likeliest first; generate_text_simple takes the first "
        "(torch.argmax)."}},
      {"gpt/top5_probas",
       {"torch.topk(probas, 5).values: their probabilities",
        "The likeliest next token is '{next_token}' with probability {next_proba}."}},
      {"gpt/top5_tokens",
       {"tokenizer.decode of each: the five likeliest next tokens",
        "Each id decoded on its own (a space shown as ·), with its probability and id."}},
      {"gpt/generated_ids",
       {"generate_text_simple(model, in_idx, max_new_tokens={max_new_tokens}, context_size={context_length})",
        "Greedy decoding: {max_new_tokens} times, the model runs on the last {context_length} ids at most "
        "and the argmax of the last position's logits is appended. The prompt's ids come first."}},
      {"gpt/generated_text",
       {"tokenizer.decode(out.squeeze(0).tolist()): the prompt and its continuation",
        "The ids above turned back into text."}},
  };
  // One text per block step, for every block (trf_blocks.N.<step>).
  const std::vector<std::pair<std::string, StepText>> block = {
      {"norm1",
       {"trf_blocks.{block}.norm1(x): LayerNorm before attention, (1, {T}, {emb_dim})",
        "LayerNorm: (x - mean) / sqrt(var + 1e-5) along each row, then scale and shift, both trained. "
        "On the last token's row it moved mean {in_mean} and variance {in_var} to mean {out_mean} and "
        "variance {out_var}."}},
      {"att",
       {"trf_blocks.{block}.att(x): MultiHeadAttention with {n_heads} heads, (1, {T}, {emb_dim})",
        "Chapter 3's MultiHeadAttention with trained W_query, W_key, W_value and out_proj, causal mask, "
        "no dropout in eval(). --layer {block} opens it step by step."}},
      {"shortcut1",
       {"trf_blocks.{block}: x = att(norm1(x)) + shortcut, the first shortcut's sum, (1, {T}, {emb_dim})",
        "No module outputs this sum. The shortcut (the block's input) has norm {shortcut_norm}, the "
        "attention's output {branch_norm}: the shortcut carried {shortcut_share}% of the two; the sum "
        "has norm {sum_norm}."}},
      {"norm2",
       {"trf_blocks.{block}.norm2(x): LayerNorm before the feed-forward, (1, {T}, {emb_dim})",
        "On the last token's row it moved mean {in_mean} and variance {in_var} to mean {out_mean} and "
        "variance {out_var}."}},
      {"ff.layers.0",
       {"trf_blocks.{block}.ff.layers.0: nn.Linear({emb_dim}, 4 * {emb_dim}), the expansion",
        "The feed-forward widens each position's vector fourfold before GELU."}},
      {"ff.layers.1",
       {"trf_blocks.{block}.ff.layers.1: GELU, 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))",
        "GELU keeps positive inputs nearly as they are and squashes negative ones towards 0: of the "
        "{count} inputs, {negatives} were negative (down to {most_negative}) and came out between "
        "{gelu_lo} and {gelu_hi}."}},
      {"ff.layers.2",
       {"trf_blocks.{block}.ff.layers.2: nn.Linear(4 * {emb_dim}, {emb_dim}), back to the width",
        "The contraction back to {emb_dim} numbers per position."}},
      {"ff.layers",
       {"trf_blocks.{block}.ff.layers: the nn.Sequential's output (its last layer's)",
        "nn.Sequential runs Linear, GELU and Linear in order and returns the last one's output: the "
        "same numbers as ff.layers.2."}},
      {"ff",
       {"trf_blocks.{block}.ff(x): FeedForward's output, (1, {T}, {emb_dim})", "FeedForward returns self.layers(x)."}},
      {"",
       {"trf_blocks.{block}: x = ff(norm2(x)) + shortcut, the block's output, (1, {T}, {emb_dim})",
        "The second shortcut's sum is the block's output. The shortcut has norm {shortcut_norm}, the "
        "feed-forward's output {branch_norm}: the shortcut carried {shortcut_share}% of the two; the sum "
        "has norm {sum_norm}."}},
      {"att.keys",
       {"trf_blocks.{block}.att: keys = W_key(x), (1, {T}, {emb_dim})", "The trained key projection of each position."}},
      {"att.queries",
       {"trf_blocks.{block}.att: queries = W_query(x), (1, {T}, {emb_dim})", "The trained query projection."}},
      {"att.values",
       {"trf_blocks.{block}.att: values = W_value(x), (1, {T}, {emb_dim})", "The trained value projection."}},
      {"att.attn_scores",
       {"trf_blocks.{block}.att: attn_scores = queries @ keys.transpose(2, 3), (1, {n_heads}, {T}, {T})",
        "Split into {n_heads} heads of {head_dim} dimensions, every query meets every key, head by head."}},
      {"att.attn_scores_masked",
       {"trf_blocks.{block}.att: attn_scores.masked_fill_(mask_bool, -torch.inf)",
        "The causal mask: no token sees the ones after it."}},
      {"att.attn_weights",
       {"trf_blocks.{block}.att: attn_weights = torch.softmax(attn_scores / {head_dim}**0.5, dim=-1)",
        "Each row sums to 1. The last token attends most to (head: token, weight) {head_focus}."}},
      {"att.attn_weights_head",
       {"trf_blocks.{block}.att: attn_weights[0, {head}], head {head} alone, ({T}, {T})",
        "The head --head chose (head: token, weight): the last token attends most to {head_focus}."}},
      {"att.context_vec",
       {"trf_blocks.{block}.att: context_vec = (attn_weights @ values).transpose(1, 2), (1, {T}, {n_heads}, {head_dim})",
        "Each head's weighted sum of values; merged to (1, {T}, {emb_dim}) and passed through out_proj next."}},
  };
  for (const auto& [rest, text] : block) t.steps.emplace(gpt_block_key(rest), text);
  t.ui = {
      {"stage.gpt", "chapter 4's GPTModel on trained weights (--weights): every module, the next token"},
      // What the weights reader did (src/weights/gpt_weights.cpp), for --weights walks' headers.
      {"note.weights.float16",
       "float16 parameters widened to float32 exactly ({float16_tensors} tensors), as load_state_dict copies them "
       "into the float32 model"},
      {"note.weights.bfloat16",
       "bfloat16 parameters widened to float32 exactly ({bfloat16_tensors} tensors), as load_state_dict copies them "
       "into the float32 model"},
      {"note.weights.misaligned",
       "{misaligned_tensors} float32 tensors lie at file offsets that are not a multiple of 4: copied, bit for bit"},
      {"note.weights.strided",
       "{strided_tensors} strided tensors copied into row-major order, as load_state_dict copies them"},
      {"note.weights.tied", "out_head tied to wte, as the book's load_weights_into_gpt assigns it"},
      {"note.weights.heads_config", "n_heads {heads_found} from {heads_config}"},
      {"note.weights.heads_gpt2", "n_heads {heads_found}: GPT-2's for width {heads_width} (no --heads, no config.json)"},
  };
  return t;
}

}  // namespace attn
