#include "text/text_options.h"

#include <fstream>
#include <iostream>
#include <iterator>

#include "input/embeddings.h"

namespace attn {

std::string text_source(const TextOptions& t) {
  if (!t.text_file.empty()) return t.text_file;
  return t.text == "-" ? "<stdin>" : "--text";
}

std::optional<text::TextEmbeddings> load_text(const TextOptions& t, uint64_t seed) {
  if (!t.given) return std::nullopt;
  std::string content;
  if (!t.text_file.empty()) {
    std::ifstream in(t.text_file, std::ios::binary);
    if (!in) throw InputError(t.text_file + ": cannot read the file");
    try {
      content.assign(std::istreambuf_iterator<char>(in), {});
    } catch (const std::exception&) {  // e.g. a directory: the read itself fails
      in.setstate(std::ios::badbit);
    }
    if (in.bad()) throw InputError(t.text_file + ": cannot read the file (is it a directory?)");
  } else if (t.text == "-") {
    content.assign(std::istreambuf_iterator<char>(std::cin), {});
    if (!content.empty() && content.back() == '\n') content.pop_back();
    if (!content.empty() && content.back() == '\r') content.pop_back();
  } else {
    content = t.text;
  }
  return text::embed_text(std::move(content), text_source(t), t.embed_dim, seed, t.max_tokens);
}

}  // namespace attn
