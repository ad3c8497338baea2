// The tables tools/make_text_tables.cpp generates at build time (build/generated/text_tables.cpp):
// Unicode classes from Debian's unicode-data and GPT-2's vocabulary from data/gpt2/.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attn::text {

struct CodeRange {
  uint32_t first, last;  // inclusive, sorted, disjoint
};

extern const CodeRange kLetterRanges[];  // \p{L}: Lu Ll Lt Lm Lo
extern const size_t kLetterRanges_size;
extern const CodeRange kNumberRanges[];  // \p{N}: Nd Nl No
extern const size_t kNumberRanges_size;
extern const CodeRange kSpaceRanges[];  // \s: White_Space (PropList.txt)
extern const size_t kSpaceRanges_size;

// The vocabulary in its smallest form (the web page carries it): the offsets and the sorted
// index are built from it on first use (src/text/vocab.cpp).
extern const size_t kVocabSize;        // 50257, <|endoftext|> (the last id) included
extern const char kTokenBytes[];       // every token's bytes, by id, one after another
extern const uint8_t kTokenLengths[];  // the number of bytes of each token, by id

}  // namespace attn::text
