// The .npy format (numpy/lib/format.py): the magic "\x93NUMPY", a major and a minor version
// byte, the header length (2 bytes little-endian in version 1, 4 bytes in versions 2 and 3),
// then the header, a Python dict literal such as
//     {'descr': '<f4', 'fortran_order': False, 'shape': (1024, 768), }
// padded with spaces to a multiple of 64 bytes, then the raw values.
#include "input/npy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

namespace attn {

namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the .npy reader copies little-endian floats as they are");

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr const char* kSaveHint = "save a 2-D float32 array with np.save(path, a.astype(np.float32))";

using input_detail::fail;

std::string shape_text(const std::vector<uint64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// The header's dict literal: string keys; values are strings, True/False, or tuples of
// non-negative integers (Python 2 wrote them with an L suffix).
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& source) : s_(text), source_(source) {}

  struct Header {
    std::optional<std::string> descr;
    std::optional<bool> fortran_order;
    std::optional<std::vector<uint64_t>> shape;
  };

  Header parse() {
    Header h;
    expect('{', "the header must be a Python dict, starting with '{'");
    comma_separated('}', "expected ',' or '}' after a value", [&] {
      const std::string key = string_literal("a key in quotes");
      expect(':', fmt::format("':' after the key '{}'", key));
      if (key == "descr") {
        h.descr = string_literal("the dtype string, e.g. '<f4'");
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
      } else if (key == "shape") {
        h.shape = tuple();
      } else {
        malformed(fmt::format("unexpected key '{}' (expected 'descr', 'fortran_order' and 'shape')", key));
      }
    });
    skip_space();
    if (i_ != s_.size()) malformed("unexpected text after the closing '}'");
    if (!h.descr || !h.fortran_order || !h.shape)
      malformed(fmt::format("missing key '{}'", !h.descr ? "descr" : !h.fortran_order ? "fortran_order"
                                                                                      : "shape"));
    return h;
  }

 private:
  [[noreturn]] void malformed(const std::string& what) {
    std::string text = s_;
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    for (char& c : text) {
      const auto u = static_cast<unsigned char>(c);
      if (c == '\n' || c == '\r' || c == '\t') c = ' ';
      else if (u < 0x20 || u >= 0x7f) c = '?';  // binary damage: keep the message one printable line
    }
    const bool cut = text.size() > 80;
    fail(source_, fmt::format("malformed .npy header: {} (header: {}{})", what, text.substr(0, 80), cut ? "..." : ""));
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip_space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void expect(char c, const std::string& what) {
    skip_space();
    if (peek() != c) malformed("expected " + what);
    ++i_;
  }
  std::string string_literal(const std::string& what) {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') malformed("expected " + what);
    const size_t end = s_.find(quote, i_ + 1);
    if (end == std::string::npos) malformed("unterminated string");
    std::string out = s_.substr(i_ + 1, end - i_ - 1);
    i_ = end + 1;
    return out;
  }
  // Items up to `close` (then past it), separated by commas, with an optional trailing comma,
  // as Python writes a dict or a tuple: the header's entries and the shape's dimensions.
  template <class Item>
  void comma_separated(char close, const char* misplaced, Item item) {
    skip_space();
    while (peek() != close) {
      item();
      skip_space();
      if (peek() == ',') {
        ++i_;
        skip_space();
      } else if (peek() != close) {
        malformed(misplaced);
      }
    }
    ++i_;
  }
  bool boolean() {
    skip_space();
    if (s_.compare(i_, 4, "True") == 0) {
      i_ += 4;
      return true;
    }
    if (s_.compare(i_, 5, "False") == 0) {
      i_ += 5;
      return false;
    }
    malformed("'fortran_order' must be True or False");
  }
  std::vector<uint64_t> tuple() {
    expect('(', "the shape as a tuple, e.g. (1024, 768)");
    std::vector<uint64_t> dims;
    comma_separated(')', "expected ',' or ')' in the shape", [&] {
      if (!std::isdigit(static_cast<unsigned char>(peek()))) malformed("the shape must hold non-negative integers");
      uint64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        const uint64_t digit = static_cast<uint64_t>(peek() - '0');
        if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10) malformed("a dimension is too large");
        v = v * 10 + digit;
        ++i_;
      }
      if (peek() == 'L') ++i_;
      dims.push_back(v);
    });
    return dims;
  }

  const std::string& s_;
  const std::string& source_;
  size_t i_ = 0;
};

// The element type from the dtype string; throws for anything but little-endian f4/f8.
size_t element_size(const std::string& descr, const std::string& source) {
  if (descr == "<f4") return 4;
  if (descr == "<f8") return 8;
  if (descr == ">f4" || descr == ">f8")
    fail(source, fmt::format("dtype '{}' is big-endian; expected little-endian float32 ('<f4') or float64 ('<f8'); "
                             "convert with a.astype('<f4')",
                             descr));
  std::string name;
  if (descr.size() >= 3) {
    const char kind = descr[1];
    // The width in bits, named only for a byte count NumPy could write (1 to 3 digits): a
    // header edited to '<f4444444444' is just an unknown dtype, not an int that overflows.
    const std::string bytes = descr.substr(2);
    const bool width_ok = bytes.size() <= 3 && std::all_of(bytes.begin(), bytes.end(), [](char c) {
                            return std::isdigit(static_cast<unsigned char>(c));
                          });
    if (kind == 'b') name = "bool";
    else if (kind == 'U' || kind == 'S') name = "strings";
    else if (kind == 'O') name = "Python objects";
    else if (width_ok) {
      const std::string bits = std::to_string(std::stoi(bytes) * 8);
      if (kind == 'f') name = "float" + bits;
      else if (kind == 'i') name = "int" + bits;
      else if (kind == 'u') name = "uint" + bits;
      else if (kind == 'c') name = "complex" + bits;
    }
  }
  if (!descr.empty() && descr[0] == '[') name = "a structured type";
  fail(source, fmt::format("dtype '{}'{} is not supported; expected float32 ('<f4') or float64 ('<f8'); "
                           "convert with a.astype(np.float32)",
                           descr, name.empty() ? "" : " (" + name + ")"));
}

uint32_t read_le(const std::string& b, size_t at, size_t bytes) {
  uint32_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v |= static_cast<uint32_t>(static_cast<unsigned char>(b[at + i])) << (8 * i);
  return v;
}

std::string describe_value(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{}", v);
}

}  // namespace

bool starts_with_npy_magic(const std::string& bytes) {
  return bytes.size() >= kMagicSize && std::memcmp(bytes.data(), kMagic, kMagicSize) == 0;
}

size_t npy_header_end(const std::string& bytes, const std::string& source) {
  if (!starts_with_npy_magic(bytes))
    fail(source, bytes.empty() ? "empty file; expected a NumPy .npy file"
                               : "not a NumPy .npy file (it does not start with \\x93NUMPY); " + std::string(kSaveHint));
  if (bytes.size() < kMagicSize + 2) fail(source, "truncated .npy file: it ends inside the format version");
  const int major = static_cast<unsigned char>(bytes[6]), minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3)
    fail(source, fmt::format(".npy format version {}.{} is not supported (expected 1.0, 2.0 or 3.0)", major, minor));
  const size_t len_size = major == 1 ? 2 : 4;
  const size_t header_start = kMagicSize + 2 + len_size;
  if (bytes.size() < header_start) fail(source, "truncated .npy file: it ends inside the header length");
  return header_start + read_le(bytes, kMagicSize + 2, len_size);
}

NpyLayout parse_npy_header(const std::string& bytes, const std::string& source) {
  const size_t header_end = npy_header_end(bytes, source);
  const size_t header_start = static_cast<unsigned char>(bytes[6]) == 1 ? kMagicSize + 4 : kMagicSize + 6;
  const size_t header_len = header_end - header_start;
  if (bytes.size() < header_end)
    fail(source, fmt::format("truncated .npy file: the header needs {} bytes, the file has {} after the preamble",
                             header_len, bytes.size() - header_start));
  const std::string header = bytes.substr(header_start, header_len);
  const auto h = HeaderParser(header, source).parse();

  const size_t item = element_size(*h.descr, source);
  if (*h.fortran_order)
    fail(source, "the array is stored in Fortran (column-major) order; save it in C order with "
                 "np.save(path, np.ascontiguousarray(a))");
  const auto& shape = *h.shape;
  if (shape.size() != 2) {
    const std::string got = shape.empty() ? "a 0-D array (a single number)"
                                          : fmt::format("shape {} ({}-D)", shape_text(shape), shape.size());
    const char* hint = shape.size() == 1 ? "; for one token use a.reshape(1, -1)" : "";
    fail(source, fmt::format("expected a 2-D array (tokens x embedding width), got {}{}", got, hint));
  }
  const uint64_t rows = shape[0], cols = shape[1];
  if (rows == 0) fail(source, fmt::format("the array has no rows (shape {}); give at least one token", shape_text(shape)));
  if (cols == 0)
    fail(source, fmt::format("the rows are empty (shape {}); every token needs at least one number", shape_text(shape)));
  constexpr uint64_t kMaxElements = uint64_t{1} << 36;
  if (rows > kMaxElements / cols) fail(source, fmt::format("shape {} is too large", shape_text(shape)));
  return NpyLayout{header_end, rows, cols, item};
}

Embeddings npy_values(const NpyLayout& layout, const std::string& bytes, const std::string& source) {
  const uint64_t rows = layout.rows, cols = layout.cols;
  const size_t item = layout.item, data_start = layout.data_start;
  const std::vector<uint64_t> shape{rows, cols};
  const char* type_name = item == 4 ? "float32" : "float64";
  const uint64_t need = layout.data_bytes(), have = bytes.size() - data_start;
  if (have < need)
    fail(source, fmt::format("truncated .npy file: shape {} {} needs {} bytes of data, the file has {}",
                             shape_text(shape), type_name, need, have));
  if (have > need)
    fail(source, fmt::format("{} unexpected bytes after the data of shape {} {}; the file may be damaged",
                             have - need, shape_text(shape), type_name));

  Embeddings e;
  const int64_t T = static_cast<int64_t>(rows), D = static_cast<int64_t>(cols);
  e.inputs = Tensor::zeros({T, D});
  float* out = e.inputs.data.data();
  const char* data = bytes.data() + data_start;
  const size_t n = static_cast<size_t>(rows * cols);
  auto bad_value = [&](size_t i, double v, bool overflow) {
    const std::string where = fmt::format("row {}, column {}", i / cols + 1, i % cols + 1);
    if (overflow)
      fail(source, fmt::format("{} is {}, which overflows float32 (at most about 3.4028235e+38)", where,
                               describe_value(v)));
    fail(source, fmt::format("{} is {}; embeddings must be finite numbers", where, describe_value(v)));
  };
  if (item == 4) {
    std::memcpy(out, data, n * sizeof(float));  // little-endian hosts only (x86-64, ARM64)
    for (size_t i = 0; i < n; ++i)
      if (!std::isfinite(out[i])) bad_value(i, out[i], false);
  } else {
    for (size_t i = 0; i < n; ++i) {
      double v;
      std::memcpy(&v, data + i * 8, sizeof v);
      const float f = static_cast<float>(v);  // round to nearest, as tensor.float()
      if (!std::isfinite(f)) bad_value(i, v, std::isfinite(v));
      out[i] = f;
    }
  }
  e.tokens.reserve(static_cast<size_t>(T));
  for (int64_t i = 0; i < T; ++i) e.tokens.push_back("x" + std::to_string(i + 1));
  return e;
}

Embeddings parse_npy(const std::string& bytes, const std::string& source) {
  return npy_values(parse_npy_header(bytes, source), bytes, source);
}

}  // namespace attn
