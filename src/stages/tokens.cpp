// Chapter 2, sections 2.5-2.8: from text to token ids to embedding vectors.
//   run_tokens:      the notebook's own cells (--stage tokens), printed as it prints them;
//   run_text_steps:  the same road for the learner's --text, before a chapter 3 stage.
// Texts: src/lang/text_*.cpp (keys "tokens/<step>" and "text/<step>").
#include "stages/tokens.h"

#include <fmt/format.h>

#include "ops/ops.h"
#include "stages/common.h"
#include "stages/stages.h"
#include "text/readable.h"
#include "text/tokenizer.h"
#include "text/vocab.h"
#include "torch/torch_random.h"

namespace attn {

namespace {

// Token ids as a tensor: int64 in PyTorch, exact in float32 (every id is below 2^24).
Tensor ids_tensor(const std::vector<int64_t>& ids) {
  std::vector<float> data(ids.begin(), ids.end());
  return Tensor({static_cast<int64_t>(ids.size())}, data);
}

// What the learner typed, with control characters (escape sequences) shown as \xNN so
// that they cannot act on a terminal; newlines and tabs stay.
std::string printable_text(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) out += fmt::format("\\x{:02x}", c);
    else out += ch;
  }
  return out;
}

// Python's repr of a str: single quotes unless the text has one and no double quote.
std::string python_repr(const std::string& s) {
  const bool dq = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
  const char q = dq ? '"' : '\'';
  std::string out(1, q);
  for (const char c : s) {
    if (c == q || c == '\\') out += '\\';
    out += c;
  }
  return out + q;
}

}  // namespace

std::string python_list_str(const std::vector<std::string>& words) {
  std::string out = "[";
  for (size_t i = 0; i < words.size(); ++i) out += (i ? ", " : "") + python_repr(words[i]);
  return out + "]";
}

Walk run_text_steps(const text::TextEmbeddings& e, const Config& cfg) {
  Walk walk("text", cfg);
  set_common_vars(walk, cfg);
  walk.vars["space_mark"] = text::kSpaceMark;
  walk.vars["vocab"] = std::to_string(text::vocab_size());
  walk.vars["T_minus_1"] = std::to_string(cfg.num_tokens() - 1);

  walk.section = "2.5";
  walk.add_words("text", {e.text}, printable_text(e.text));
  // Byte-level BPE pieces; a leading space belongs to the word after it ("·journey").
  walk.add_words("pieces", e.pieces, python_list_str(e.pieces));
  // The legend's example comes from the learner's own text: the first character GPT-2 split.
  std::vector<std::string> bytes;
  for (const int64_t id : e.ids) bytes.push_back(text::decode({id}));
  const auto split = text::split_characters(bytes);
  if (split.empty()) {
    walk.steps.back().details = {"{pieces_legend}"};
  } else {
    walk.vars["split_char"] = split[0].character;
    walk.vars["split_pieces"] = split[0].pieces;
    walk.steps.back().details = {std::string("{pieces_legend_split}{split_char} = {split_pieces}") +
                                 (split.size() > 1 ? "{pieces_legend_more}" : "") + "{pieces_legend_end}"};
  }
  walk.add("token_ids", ids_tensor(e.ids));  // (T,) = torch.tensor(ids)
  walk.steps.back().is_int64 = true;
  // torch.manual_seed(seed); nn.Embedding(50257, D) then nn.Embedding(T, D): N(0, 1) tables.
  walk.section = "2.7";
  walk.add("token_embeddings", e.token_embeddings, {"grad_fn=<EmbeddingBackward0>"});  // (T, D)
  walk.section = "2.8";
  walk.add("pos_embeddings", e.pos_embeddings, {"grad_fn=<EmbeddingBackward0>"});  // (T, D)
  // The sum is what chapter 3 calls `inputs`: one D-dimensional vector per token.
  walk.add("input_embeddings", e.input_embeddings, {"grad_fn=<AddBackward0>"});  // (T, D)
  return walk;
}

Walk run_tokens(const Config& cfg) {
  Walk walk("tokens", cfg);
  set_common_vars(walk, cfg);

  // Section 2.7: a toy embedding layer, 6 token ids x 3 dimensions.
  walk.section = "2.7";
  TorchGenerator gen(123);
  const Tensor& weight = walk.add_parameter("embedding_layer.weight", randn(gen, {6, 3}));  // (6, 3)
  // Looking up id 3 picks row 3 of the weight; a lookup is an indexing, not a product.
  walk.add("embedding_of_3", embedding(weight, {3}), {"grad_fn=<EmbeddingBackward0>"});  // (1, 3)
  walk.add("embedding_of_input_ids", embedding(weight, {2, 3, 5, 1}),
           {"grad_fn=<EmbeddingBackward0>"});  // (4, 3)

  // Section 2.5: GPT-2's byte-pair encoder on the book's sentence, <|endoftext|> allowed; on
  // the learner's text when there is one (--text), so that the walk shows what its header
  // says it reads.
  const std::string book_sentence =
      "Hello, do you like tea? <|endoftext|> In the sunlit terracesof someunknownPlace.";
  const std::string& sentence = cfg.text.empty() ? book_sentence : cfg.text;
  const char* variant = cfg.text.empty() ? "" : "text";
  walk.section = "2.5";
  const text::Encoding enc = text::encode(sentence, "tokens");
  walk.add("integers", ids_tensor(enc.ids));
  walk.last().variant = variant;
  walk.steps.back().is_int64 = true;
  std::string printed;
  for (const int64_t id : enc.ids) printed += (printed.empty() ? "[" : ", ") + std::to_string(id);
  walk.last().payload = PrintedTextPayload{printed + "]"};  // print(integers): a Python list
  const std::string strings = text::decode(enc.ids);
  walk.add_words("strings", {strings}, printable_text(strings));  // print(tokenizer.decode(integers))
  walk.last().variant = variant;
  return walk;
}

}  // namespace attn
