#include "text/text_embeddings.h"

#include <fmt/format.h>

#include "core/utf8.h"
#include "input/embeddings.h"
#include "ops/ops.h"
#include "text/readable.h"
#include "text/tokenizer.h"
#include "text/unicode_class.h"
#include "text/vocab.h"
#include "torch/torch_random.h"

namespace attn::text {

TextEmbeddings embed_text(std::string text, const std::string& source, int64_t embed_dim, uint64_t seed,
                          int64_t max_tokens) {
  TextEmbeddings e;
  const Encoding enc = encode(text, source);  // checks the UTF-8 first
  size_t bad = 0;
  const auto chars = decode_utf8(text, &bad);
  bool blank = true;
  for (const auto& c : *chars) blank = blank && is_space(c.value);
  if (text.empty()) throw InputError(source + ": the text is empty; give a sentence to tokenize");
  if (blank) throw InputError(source + ": the text is only whitespace; give a sentence to tokenize");
  const auto T = static_cast<int64_t>(enc.ids.size());
  if (T > max_tokens)
    throw InputError(fmt::format(
        "{}: the text is {} tokens, more than --max-tokens {} (GPT-2's context length is 1024); "
        "shorten the text or raise the limit with --max-tokens {}",
        source, T, max_tokens, T));

  e.text = std::move(text);
  e.ids = enc.ids;
  e.pieces = readable_pieces(enc.bytes);  // a character split over tokens shown once

  TorchGenerator gen(seed);
  // nn.Embedding(50257, D) at the ids: the whole table is drawn, only the rows used are kept.
  e.token_embeddings = randn_rows(gen, vocab_size(), embed_dim, e.ids);
  const Tensor pos_table = randn(gen, {T, embed_dim});  // nn.Embedding(T, D).weight
  std::vector<int64_t> positions(static_cast<size_t>(T));
  for (int64_t i = 0; i < T; ++i) positions[static_cast<size_t>(i)] = i;  // torch.arange(T)
  e.pos_embeddings = embedding(pos_table, positions);
  e.input_embeddings = add(e.token_embeddings, e.pos_embeddings);
  return e;
}

}  // namespace attn::text
