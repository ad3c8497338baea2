// English texts of --text (chapter 2's steps before a stage, "text/<step>") and of the
// tokens stage (chapter 2's own cells, "tokens/<step>").
#include "lang/parts.h"

namespace attn {

LangTable text_en() {
  LangTable t;
  t.code = "en";
  t.steps = {
      {"text/text",
       {"the text as given",
        "Chapter 2 starts from raw text. Before any attention, the text is cut into tokens and "
        "each token becomes a vector of numbers."}},
      {"text/pieces",
       {"GPT-2's byte-pair pieces, one per token",
        "tiktoken's GPT-2 encoder first splits the text into words, numbers, punctuation and "
        "spaces, then merges the UTF-8 bytes of each, pair by pair in the order GPT-2 learned "
        "its merges, into tokens of its {vocab}-token vocabulary. A word keeps the space before it, shown as {space_mark}. This "
        "text gives {T} tokens."}},
      {"text/token_ids",
       {"token ids: torch.tensor(tokenizer.encode(text))",
        "Each piece is replaced by its number in GPT-2's vocabulary (0 to 50256; 50256 is "
        "<|endoftext|>). These {T} integers are all the model sees of the text; shape ({T},)."}},
      {"text/token_embeddings",
       {"token embeddings: nn.Embedding(50257, {d_in}) at the token ids",
        "After torch.manual_seed({seed1}), nn.Embedding(50257, {d_in}) holds one random vector "
        "of {d_in} numbers per vocabulary entry; looking up the {T} ids picks their rows. The "
        "same token always gets the same vector, wherever it stands: shape ({T}, {d_in})."}},
      {"text/pos_embeddings",
       {"position embeddings: nn.Embedding({T}, {d_in}) at torch.arange({T})",
        "A second table, drawn next from the same generator, has one vector per position "
        "0..{T_minus_1}. It tells the model where each token stands, which the token "
        "embeddings alone cannot: shape ({T}, {d_in})."}},
      {"text/input_embeddings",
       {"input embeddings = token embeddings + position embeddings",
        "Adding the two gives one {d_in}-dimensional vector per token, which depends on both "
        "the token and its place. This ({T}, {d_in}) matrix is what chapter 3 calls inputs, "
        "and what the attention steps below start from."}},

      {"tokens/embedding_layer.weight",
       {"nn.Embedding(6, 3).weight after torch.manual_seed(123)",
        "An embedding layer is a table with one row per token id, filled with random numbers "
        "from a normal distribution: 6 ids x 3 dimensions. Training would tune these rows; "
        "here they are as initialised."}},
      {"tokens/embedding_of_3",
       {"embedding_layer(torch.tensor([3])): the row of id 3",
        "Looking up id 3 returns row 3 of the weight (counting from 0). An embedding lookup "
        "is just indexing: the same as multiplying a one-hot vector by the weight, without the "
        "multiplications. Shape (1, 3)."}},
      {"tokens/embedding_of_input_ids",
       {"embedding_layer(torch.tensor([2, 3, 5, 1])): four rows",
        "Four ids give four rows, in the order of the ids: rows 2, 3, 5 and 1 of the weight. "
        "Shape (4, 3)."}},
      {"tokens/integers",
       {"tokenizer.encode(text, allowed_special={\"<|endoftext|>\"})",
        "GPT-2's byte-pair encoder on the book's sentence: common words are single tokens, "
        "rare ones such as someunknownPlace are split into known pieces, and <|endoftext|> "
        "becomes id 50256."}},
      {"tokens/integers#text",
       {"tokenizer.encode(text, allowed_special={\"<|endoftext|>\"}) on your text",
        "The notebook's cell with your text in place of the book's sentence: GPT-2's byte-pair "
        "encoder gives these {T} ids, the same as token_ids above; common words are single "
        "tokens, rare ones are split into known pieces."}},
      {"tokens/strings#text",
       {"tokenizer.decode(integers): your text again",
        "Decoding joins the bytes of the tokens, so it gives back your text exactly, even where a "
        "token holds only part of a character: byte-pair encoding needs no unknown-word token."}},
      {"tokens/strings",
       {"tokenizer.decode(integers): the text again",
        "Decoding joins the bytes of the tokens, so it gives back the text exactly: byte-pair "
        "encoding needs no unknown-word token."}},
  };
  t.ui = {
      {"stage.tokens", "chapter 2: nn.Embedding lookups and GPT-2's byte-pair tokenizer"},
      {"word.pieces_legend", "(· is a space)"},
      // Followed by a character of the learner's own text, " = ", its pieces, and the end.
      {"word.pieces_legend_split",
       "(· is a space; GPT-2 splits some characters' bytes over several tokens: each such character "
       "is shown once, on its first token, and ↳ marks a token that continues it. In your text: "},
      {"word.pieces_legend_end", ")"},
      {"word.pieces_legend_more", " …"},
  };
  return t;
}

}  // namespace attn
