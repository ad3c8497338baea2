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
extern const CodeRange kSpaceRanges[];   // \s: White_Space (PropList.txt)
extern const size_t kSpaceRanges_size;

extern const size_t kVocabSize;          // 50257, <|endoftext|> (the last id) included
extern const char kTokenBytes[];         // every token's bytes, by id, one after another
extern const uint32_t kTokenOffsets[];   // token i is kTokenBytes[off[i], off[i + 1])
extern const uint32_t kIdsByBytes[];     // the ids but <|endoftext|>, sorted by their bytes

}  // namespace attn::text
