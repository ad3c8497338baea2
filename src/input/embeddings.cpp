// Reading a learner's embeddings: a JSON or .npy file (or stdin), told apart by the magic
// bytes or the name, and the chapter's built-in six tokens.
#include "input/embeddings.h"
#include "input/embeddings_detail.h"
#include "input/input_stream.h"
#include "input/npy.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace attn {

using namespace embeddings_detail;

namespace {

// ---------------------------------------------------------------------------
// Reading

// JSON text, checked chunk by chunk as it arrives, so a binary stream stops at its first
// chunk instead of filling memory up to the size limit.
std::string read_json_text(InputStream& in) {
  size_t checked = 0;
  while (in.read_chunk()) {
    if (checked == 0) check_not_utf16(in.bytes(), in.source());
    checked = check_encoding(in.bytes(), checked, /*more_to_come=*/true, in.source());
  }
  return in.take();
}

// A .npy file: the header is read and checked before any of the data.
Embeddings read_npy(InputStream& in) {
  in.fill(12);  // the magic, the version and either size of the header length
  in.fill(npy_header_end(in.bytes(), in.source()));
  const NpyLayout layout = parse_npy_header(in.bytes(), in.source());
  const uint64_t total = layout.data_start + layout.data_bytes();
  if (total > in.max_bytes()) in.too_large(total);
  in.fill(total + 1);  // one byte more shows trailing data
  return npy_values(layout, in.bytes(), in.source());
}

}  // namespace

Embeddings builtin_journey() {
  // Doubles rounded to float, exactly as torch.tensor([[0.43, 0.15, 0.89], ...]) stores them.
  static const double rows[6][3] = {
      {0.43, 0.15, 0.89},  // Your     (x^1)
      {0.55, 0.87, 0.66},  // journey  (x^2)
      {0.57, 0.85, 0.64},  // starts   (x^3)
      {0.22, 0.58, 0.33},  // with     (x^4)
      {0.77, 0.25, 0.10},  // one      (x^5)
      {0.05, 0.80, 0.55},  // step     (x^6)
  };
  Embeddings e;
  e.tokens = {"Your", "journey", "starts", "with", "one", "step"};
  std::vector<float> data;
  data.reserve(18);
  for (const auto& row : rows)
    for (double v : row) data.push_back(static_cast<float>(v));
  e.inputs = Tensor({6, 3}, std::move(data));
  return e;
}

Embeddings load_embeddings(const std::string& path, uint64_t max_bytes) {
  InputStream in(path, max_bytes);
  in.fill(6);
  // NumPy's .npy: by its magic bytes, or by name (then a wrong file gets the .npy message).
  const bool npy_name = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0;
  if (starts_with_npy_magic(in.bytes()) || npy_name) return read_npy(in);
  return parse_embeddings(read_json_text(in), in.source());
}

}  // namespace attn
