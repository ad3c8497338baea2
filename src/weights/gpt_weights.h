// A GPT-2-shaped model's parameters as chapter 4's GPTModel names them, read from a weights
// file (the book's .safetensors or .pth state dict, or Hugging Face's model.safetensors)
// without copying: every parameter is a float32 view into the mapped file, or, for a float16
// or bfloat16 file, into a buffer it was widened into exactly (as load_state_dict copies into
// the float32 model).
//
// Hugging Face's Conv1D weights are stored (in, out); the book's load_weights_into_gpt assigns
// their .T, a transposed view, and F.linear on that view calls sgemm with other transpose
// flags than on a contiguous (out, in) weight. So a view keeps its strides: a weight whose
// `transposed` is set is the (out, in) matrix stored column-major, exactly what PyTorch holds.
//
// Copies, where a view cannot be: float16/bfloat16 (widened), float32 at an offset that is not
// a multiple of 4 (safetensors does not promise alignment), and strided tensors of a .pth (copied
// row-major, as load_state_dict copies them). c_attn's three chunks are views too: PyTorch's q_w.T
// has column stride 3 * emb_dim, and so has the ParamView (`ld`); every reader of a ParamView
// (at(), copy(), modules/gpt.cpp's MatView, check's parameter tensors) honours it. docs/gpt.md.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/tensor.h"
#include "weights/weights_errors.h"

namespace attn {

// A weights file that cannot be read as a GPT-2 model (exit code 1). The message names the
// file, and the key, offset or pickle global at fault; complete and ready for stderr.
// Each message has an id and placeholders (weights/weights_errors.h), which the languages say
// in their words (src/lang/weights_errors_*.cpp); what() is the English.
struct WeightsError : std::runtime_error {
  // A message of a reader above the weights files (bench's --gpt): English only, no id.
  explicit WeightsError(const std::string& message, bool usage_ = false) : std::runtime_error(message), usage(usage_) {}
  WeightsError(const std::string& id_, WeightsErrorVars vars_, bool usage_ = false)
      : std::runtime_error(weights_error_english(id_, vars_)), usage(usage_), id(id_), vars(std::move(vars_)) {}
  bool usage;             // a misuse of options (exit 2): the head count cannot be told and --heads is missing
  std::string id;         // "key_missing": "weights.err.<id>" in src/lang/
  WeightsErrorVars vars;  // its placeholders
};

// A float32 parameter where it lies: shape as PyTorch's Parameter has it, row-major unless
// `transposed` (then a 2-D (rows, cols) matrix stored as its (cols, rows) transpose, i.e. the
// element (i, j) is at data[j * rows + i]).
struct ParamView {
  const float* data = nullptr;
  Shape shape;
  bool transposed = false;
  // A transposed view's column stride in floats: 0 for shape[0] (its columns packed), 3 * emb_dim
  // for a third of Hugging Face's c_attn (PyTorch's q_w.T: the same strides).
  int64_t ld = 0;
  int64_t numel() const { return numel_of(shape); }
  float at(int64_t i, int64_t j) const {  // 2-D element (i, j)
    return transposed ? data[j * (ld ? ld : shape[0]) + i] : data[i * shape[1] + j];
  }
  Tensor copy() const;  // a contiguous row-major copy (the same values)
};

struct GptConfig {  // GPT_CONFIG_124M's keys, from the tensors (heads from --heads/config.json)
  int64_t vocab_size = 0, context_length = 0, emb_dim = 0, n_heads = 0, n_layers = 0;
  bool qkv_bias = false;
};

struct GptBlockParams {                                          // trf_blocks.N
  ParamView W_query_w, W_key_w, W_value_w;                       // att.W_*.weight (emb, emb)
  std::optional<ParamView> W_query_b, W_key_b, W_value_b;        // att.W_*.bias when qkv_bias
  ParamView out_proj_w, out_proj_b;                              // att.out_proj
  ParamView ff0_w, ff0_b, ff2_w, ff2_b;                          // ff.layers.0 (4e, e), ff.layers.2 (e, 4e)
  ParamView norm1_scale, norm1_shift, norm2_scale, norm2_shift;  // norm1, norm2
};

// HfPth: Hugging Face's keys in PyTorch's zip format (pytorch_model.bin), mapped as HfSafetensors.
enum class WeightsFormat {
  BookSafetensors,
  BookPth,
  HfSafetensors,
  HfPth
};

// What the reader did that a learner should know (float16 widened, out_head tied, where the head
// count came from): the key of its text in src/lang/ ("note.weights.*", en and zh) and the values
// the text quotes, by placeholder name.
struct WeightsNote {
  std::string key;
  std::map<std::string, std::string> vars;
  std::string text;  // the same in English words, for a caller without src/lang/ (the page's file summary)
};
// A note in JSON is its English words (the page's engine lists them as strings).
inline void to_json(nlohmann::json& j, const WeightsNote& n) { j = n.text; }

struct GptParams {
  GptConfig cfg;
  WeightsFormat format = WeightsFormat::BookSafetensors;
  ParamView tok_emb, pos_emb;  // (vocab, emb), (context, emb)
  std::vector<GptBlockParams> blocks;
  ParamView final_norm_scale, final_norm_shift;
  ParamView out_head;                   // (vocab, emb); Hugging Face's: tied to wte
  std::vector<WeightsNote> notes;       // e.g. float16 widened to float32 exactly
  std::shared_ptr<const void> storage;  // keeps the mapping and any widened buffers alive
};

// Reads `path` (format told by its content, not its name). `heads`: --heads if given; else
// config.json beside the file (n_head); else GPT-2's sizes (768 -> 12, 1024 -> 16, 1280 -> 20,
// 1600 -> 25); else a WeightsError with `usage` set, asking for --heads.
GptParams load_gpt_weights(const std::string& path, std::optional<int64_t> heads);

}  // namespace attn
