// Build-time generator of the tokenizer's tables (run by CMake, never shipped):
//
//   make_text_tables UnicodeData.txt PropList.txt encoder.json vocab.bpe out.cpp
//
// writes one C++ file with
//   - the code point ranges of \p{L} (Lu Ll Lt Lm Lo), \p{N} (Nd Nl No) from UnicodeData.txt
//     and of \s (White_Space) from PropList.txt, as the regex engine behind tiktoken
//     (Rust's regex crate) defines these classes;
//   - GPT-2's 50257 tokens as bytes, by id, and each token's length: the smallest form
//     (the web page carries it), from which src/text/vocab.cpp builds its lookup tables
//     the first time --text needs them. Nothing is parsed.
// It checks what tiktoken checks when it loads GPT-2: that the merges of vocab.bpe, ranked
// after the 256 single bytes, give exactly the ids of encoder.json.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using Ranges = std::vector<std::pair<uint32_t, uint32_t>>;  // inclusive [first, last]

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : line) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

void add(Ranges& r, uint32_t first, uint32_t last) {
  if (!r.empty() && r.back().second + 1 == first) r.back().second = last;
  else r.emplace_back(first, last);
}

// General categories from UnicodeData.txt; "<..., First>"/"<..., Last>" pairs are ranges.
void general_categories(const std::string& path, Ranges& letters, Ranges& numbers) {
  std::istringstream in(read_file(path));
  std::string line;
  uint32_t range_first = 0;
  while (std::getline(in, line)) {
    const auto f = split(line, ';');
    if (f.size() < 3) continue;
    const uint32_t cp = static_cast<uint32_t>(std::stoul(f[0], nullptr, 16));
    if (f[1].find(", First>") != std::string::npos) {
      range_first = cp;
      continue;
    }
    const uint32_t first = f[1].find(", Last>") != std::string::npos ? range_first : cp;
    const std::string& gc = f[2];
    if (gc == "Lu" || gc == "Ll" || gc == "Lt" || gc == "Lm" || gc == "Lo") add(letters, first, cp);
    if (gc == "Nd" || gc == "Nl" || gc == "No") add(numbers, first, cp);
  }
}

// "0009..000D    ; White_Space # ..." lines of PropList.txt.
Ranges white_space(const std::string& path) {
  std::istringstream in(read_file(path));
  std::string line;
  Ranges r;
  while (std::getline(in, line)) {
    const auto semi = line.find(';');
    if (semi == std::string::npos || line.find("; White_Space ") == std::string::npos) continue;
    const std::string cps = line.substr(0, line.find(' '));
    const auto dots = cps.find("..");
    const uint32_t first = static_cast<uint32_t>(std::stoul(cps.substr(0, dots), nullptr, 16));
    const uint32_t last =
        dots == std::string::npos ? first : static_cast<uint32_t>(std::stoul(cps.substr(dots + 2), nullptr, 16));
    add(r, first, last);
  }
  std::sort(r.begin(), r.end());
  return r;
}

// GPT-2's byte-to-unicode map, inverted: the printable bytes stand for themselves, the
// other 68 bytes became U+0100, U+0101, ... in byte order.
std::map<uint32_t, uint8_t> unicode_to_byte() {
  std::map<uint32_t, uint8_t> m;
  int n = 0;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    m[printable ? static_cast<uint32_t>(b) : static_cast<uint32_t>(256 + n++)] = static_cast<uint8_t>(b);
  }
  return m;
}

// encoder.json's keys are UTF-8 strings of those stand-in characters.
std::string to_bytes(const std::string& s, const std::map<uint32_t, uint8_t>& u2b) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    uint32_t cp;
    int len;
    if (c < 0x80) cp = c, len = 1;
    else if ((c >> 5) == 6) cp = c & 0x1F, len = 2;
    else cp = c & 0x0F, len = 3;
    for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    i += len;
    const auto it = u2b.find(cp);
    if (it == u2b.end()) throw std::runtime_error("encoder.json: unexpected character in '" + s + "'");
    out += static_cast<char>(it->second);
  }
  return out;
}

void write_ranges(std::ostream& out, const char* name, const Ranges& r) {
  out << "extern const CodeRange " << name << "[] = {\n";
  for (const auto& [a, b] : r) out << "  {0x" << std::hex << a << ", 0x" << b << std::dec << "},\n";
  out << "};\nextern const size_t " << name << "_size = " << r.size() << ";\n\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::cerr << "usage: make_text_tables UnicodeData.txt PropList.txt encoder.json vocab.bpe out.cpp\n";
    return 2;
  }
  try {
    Ranges letters, numbers;
    general_categories(argv[1], letters, numbers);
    const Ranges spaces = white_space(argv[2]);

    const auto u2b = unicode_to_byte();
    const auto encoder = nlohmann::json::parse(read_file(argv[3]));
    std::vector<std::string> tokens(encoder.size());
    for (const auto& [key, id] : encoder.items()) {
      const auto i = id.get<size_t>();
      if (i >= tokens.size() || !tokens[i].empty()) throw std::runtime_error("encoder.json: bad id " + key);
      tokens[i] = key == "<|endoftext|>" ? key : to_bytes(key, u2b);
    }
    const size_t n_ranked = tokens.size() - 1;  // every id but <|endoftext|>, the last one
    if (tokens.back() != "<|endoftext|>") throw std::runtime_error("encoder.json: <|endoftext|> is not last");

    // tiktoken's check: ranks 0..255 are the single bytes, then each merge's result in order.
    std::map<std::string, size_t> id_of;
    for (size_t i = 0; i < n_ranked; ++i) id_of[tokens[i]] = i;
    std::istringstream merges(read_file(argv[4]));
    std::string line;
    std::getline(merges, line);  // "#version: 0.2"
    size_t rank = 256;
    while (std::getline(merges, line)) {
      if (line.empty()) continue;
      const auto parts = split(line, ' ');
      if (parts.size() != 2) throw std::runtime_error("vocab.bpe: bad line '" + line + "'");
      const std::string merged = to_bytes(parts[0], u2b) + to_bytes(parts[1], u2b);
      const auto it = id_of.find(merged);
      if (it == id_of.end() || it->second != rank)
        throw std::runtime_error("vocab.bpe: merge '" + line + "' is not id " + std::to_string(rank));
      ++rank;
    }
    if (rank != n_ranked) throw std::runtime_error("vocab.bpe: " + std::to_string(rank) + " ranks");
    for (size_t i = 0; i < 256; ++i)
      if (tokens[i].size() != 1) throw std::runtime_error("encoder.json: id < 256 is not one byte");

    std::ofstream out(argv[5], std::ios::binary);
    out << "// Generated by tools/make_text_tables.cpp from Debian's unicode-data and GPT-2's\n"
           "// encoder.json and vocab.bpe (data/gpt2/). Do not edit.\n"
           "#include \"text/tables.h\"\n\nnamespace attn::text {\n\n";
    write_ranges(out, "kLetterRanges", letters);
    write_ranges(out, "kNumberRanges", numbers);
    write_ranges(out, "kSpaceRanges", spaces);
    // The bytes of every token, by id, as one string literal in octal escapes, then their lengths.
    out << "extern const char kTokenBytes[] =\n\"";
    size_t column = 0;
    for (const auto& t : tokens) {
      if (t.size() > 255) throw std::runtime_error("encoder.json: a token longer than 255 bytes");
      for (unsigned char c : t) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\%03o", c);
        out << buf;
        if (++column == 32) {
          out << "\"\n\"";
          column = 0;
        }
      }
    }
    out << "\";\n\nextern const uint8_t kTokenLengths[] = {";
    for (size_t i = 0; i < tokens.size(); ++i) out << (i % 32 ? " " : "\n  ") << tokens[i].size() << ",";
    out << "\n};\n\nextern const size_t kVocabSize = " << tokens.size() << ";\n\n}  // namespace attn::text\n";
    if (!out) throw std::runtime_error(std::string("cannot write ") + argv[5]);
  } catch (const std::exception& e) {
    std::cerr << "make_text_tables: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
