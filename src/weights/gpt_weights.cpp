// load_gpt_weights: a weights file's tensors (safetensors, or PyTorch's zip) mapped onto chapter
// 4's GPTModel, by the book's own keys or by Hugging Face's as the book's load_weights_into_gpt
// assigns them. Shapes come from the tensors; every key is checked against them.
#include "weights/gpt_weights.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "weights/mapped_file.h"
#include "weights/safetensors.h"
#include "weights/torch_zip.h"
#include "weights/zip_reader.h"

namespace attn {

using weights::DType;
using weights::RawTensor;

Tensor ParamView::copy() const {
  Tensor t = Tensor::zeros(shape);
  if (transposed) {
    for (int64_t i = 0; i < shape[0]; ++i)
      for (int64_t j = 0; j < shape[1]; ++j) t.data[static_cast<size_t>(i * shape[1] + j)] = at(i, j);
  } else {
    std::copy(data, data + numel(), t.data.begin());
  }
  return t;
}

namespace {

// What GptParams::storage keeps alive: the mapping and the buffers of widened or copied values.
struct GptWeightsStorage {
  std::unique_ptr<weights::MappedFile> file;
  std::deque<std::vector<float>> buffers;
};

std::string gpt_weights_shape_text(const Shape& s) { return shape_str(s); }

// GPT-2's head counts by width (the four sizes OpenAI released).
std::optional<int64_t> gpt2_heads_for_width(int64_t emb_dim) {
  switch (emb_dim) {
    case 768: return 12;
    case 1024: return 16;
    case 1280: return 20;
    case 1600: return 25;
    default: return std::nullopt;
  }
}

class GptWeightsReader {
 public:
  GptWeightsReader(std::string path, std::vector<RawTensor> tensors, GptWeightsStorage& store)
      : path_(std::move(path)), tensors_(std::move(tensors)), store_(store) {
    for (const auto& t : tensors_) by_name_.emplace(t.name, &t);
  }

  bool has(const std::string& key) const { return by_name_.count(key) != 0; }
  const std::vector<RawTensor>& tensors() const { return tensors_; }

  const RawTensor& need(const std::string& key) const {
    const auto it = by_name_.find(key);
    if (it == by_name_.end())
      throw WeightsError("key_missing", {{"path", path_}, {"key", key}});
    return *it->second;
  }

  // `why`: what fixes the shape, an id of weights_errors.cpp's ("shape_from_width": the width
  // read from `from`, the embeddings; "shape_from_context": the context length; ...).
  void expect_shape(const RawTensor& t, const Shape& want, const std::string& why, const std::string& from = "") const {
    if (t.shape != want)
      throw WeightsError(why, {{"path", path_},
                               {"key", t.name},
                               {"shape", gpt_weights_shape_text(t.shape)},
                               {"want", gpt_weights_shape_text(want)},
                               {"width", std::to_string(width_)},
                               {"from", from}});
  }
  void set_width(int64_t width) { width_ = width; }  // emb_dim, as the embeddings give it

  // The tensor's values as float32 in row-major order: a view into the mapping where the file
  // holds them so (float32, aligned, contiguous), else a buffer (widened, or copied).
  const float* floats(const RawTensor& t) {
    const auto cached = floats_.find(&t);
    if (cached != floats_.end()) return cached->second;
    if (t.dtype != DType::F32 && t.dtype != DType::F16 && t.dtype != DType::BF16)
      throw WeightsError("dtype_not_float", {{"path", path_}, {"key", t.name}, {"dtype", t.dtype_name}});
    const float* out;
    const bool aligned = reinterpret_cast<uintptr_t>(t.data) % alignof(float) == 0;
    if (t.dtype == DType::F32 && aligned && t.row_major()) {
      out = reinterpret_cast<const float*>(t.data);
    } else {
      const size_t n = static_cast<size_t>(numel_of(t.shape));
      std::vector<float>& buf = store_.buffers.emplace_back(n);
      if (!t.row_major()) {
        for (size_t i = 0; i < n; ++i) buf[i] = t.element(static_cast<int64_t>(i));
      } else if (t.dtype == DType::F32) {  // misaligned: the same bytes, moved
        std::memcpy(buf.data(), t.data, n * sizeof(float));
      } else if (t.dtype == DType::F16) {
        for (size_t i = 0; i < n; ++i) buf[i] = weights::half_to_float(weights::le16(t.data + 2 * i));
      } else {
        for (size_t i = 0; i < n; ++i) buf[i] = weights::bfloat16_to_float(weights::le16(t.data + 2 * i));
      }
      out = buf.data();
      if (t.dtype == DType::F16) ++widened_f16_;
      else if (t.dtype == DType::BF16) ++widened_bf16_;
      else if (!aligned) ++misaligned_;
      else ++strided_;
    }
    floats_.emplace(&t, out);
    return out;
  }

  ParamView row_major(const std::string& key, const Shape& want, const std::string& why, const std::string& from = "") {
    const RawTensor& t = need(key);
    expect_shape(t, want, why, from);
    return ParamView{floats(t), want, false};
  }

  // A causal-mask buffer, if the file has one: `above` says whether its ones lie above the
  // diagonal (the book's triu(..., diagonal=1)) or on and below it (Hugging Face's tril).
  // `what`: the mask's code ("torch.triu(torch.ones(C, C), diagonal=1)"); `hf`: GPT-2's.
  void check_mask(const std::string& key, const Shape& want, int64_t n, bool above, const std::string& what, bool hf) {
    if (!has(key)) return;
    const RawTensor& t = need(key);
    expect_shape(t, want, "shape_from_context");
    if (t.dtype == DType::Other)
      throw WeightsError("mask_dtype", {{"path", path_}, {"key", key}, {"dtype", t.dtype_name}});
    if (float32_mask_is_causal(t, n, above)) return;  // the usual case, row by row; else find the element
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const float want_v = (above ? j > i : j <= i) ? 1.0f : 0.0f;
        const float v = t.element(i * n + j);
        if (!(v == want_v))
          throw WeightsError(hf ? "mask_not_causal_hf" : "mask_not_causal",
                             {{"path", path_},
                              {"key", key},
                              {"mask", what},
                              {"i", std::to_string(i)},
                              {"j", std::to_string(j)},
                              {"value", v == v ? std::to_string(v) : std::string("nan")},
                              {"want", want_v == 1.0f ? "1" : "0"}});
      }
  }

  // A row-major float32 (n, n) mask compared row by row with memcmp against the bytes of 0.0f and
  // 1.0f (GPT-2 small's twelve 1024 x 1024 masks are 48 MB, most of a short walk's reading);
  // false for any other mask, or one that differs somewhere (the caller then finds the element).
  static bool float32_mask_is_causal(const RawTensor& t, int64_t n, bool above) {
    if (t.dtype != DType::F32 || !t.row_major()) return false;
    static const uint8_t kOne[4] = {0x00, 0x00, 0x80, 0x3f};  // 1.0f, little-endian
    std::vector<uint8_t> zeros(static_cast<size_t>(n) * 4, 0), ones(static_cast<size_t>(n) * 4);
    for (size_t k = 0; k < ones.size(); ++k) ones[k] = kOne[k % 4];
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t* row = t.data + static_cast<size_t>(i * n) * 4;
      // above (triu, diagonal=1): row i is 0 up to column i, then 1; else (tril): 1 up to i, then 0.
      const size_t first = static_cast<size_t>(i + 1) * 4, rest = static_cast<size_t>(n - i - 1) * 4;
      const uint8_t* head = above ? zeros.data() : ones.data();
      const uint8_t* tail = above ? ones.data() : zeros.data();
      if (std::memcmp(row, head, first) != 0 || std::memcmp(row + first, tail, rest) != 0) return false;
    }
    return true;
  }

  std::vector<WeightsNote> notes() const {  // texts: src/lang/gpt_*.cpp, "note.weights.*"
    std::vector<WeightsNote> n;
    if (widened_f16_)
      // clang-format off
      n.push_back({"note.weights.float16", {{"float16_tensors", std::to_string(widened_f16_)}},
                   "float16 parameters widened to float32 exactly (" + std::to_string(widened_f16_) + " tensors)"});
    // clang-format on
    if (widened_bf16_)
      // clang-format off
      n.push_back({"note.weights.bfloat16", {{"bfloat16_tensors", std::to_string(widened_bf16_)}},
                   "bfloat16 parameters widened to float32 exactly (" + std::to_string(widened_bf16_) + " tensors)"});
    // clang-format on
    if (misaligned_)
      // clang-format off
      n.push_back({"note.weights.misaligned", {{"misaligned_tensors", std::to_string(misaligned_)}},
                   std::to_string(misaligned_) + " float32 tensors lie at file offsets that are not a multiple of 4: "
                   "copied, bit for bit"});
    // clang-format on
    if (strided_)
      // clang-format off
      n.push_back({"note.weights.strided", {{"strided_tensors", std::to_string(strided_)}},
                   std::to_string(strided_) + " strided tensors copied into row-major order, as load_state_dict copies them"});
    // clang-format on
    return n;
  }

  std::vector<float>& buffer(size_t n) { return store_.buffers.emplace_back(n); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int64_t width_ = 0;
  std::vector<RawTensor> tensors_;
  GptWeightsStorage& store_;
  std::unordered_map<std::string, const RawTensor*> by_name_;
  std::unordered_map<const RawTensor*, const float*> floats_;
  int widened_f16_ = 0, widened_bf16_ = 0, misaligned_ = 0, strided_ = 0;
};

// The number after `prefix` in "prefix<N>.rest", or -1 (at most 6 digits, no leading zero).
int64_t block_index(const std::string& key, const std::string& prefix) {
  if (key.compare(0, prefix.size(), prefix) != 0) return -1;
  size_t p = prefix.size(), q = p;
  while (q < key.size() && q - p <= 6 && key[q] >= '0' && key[q] <= '9') ++q;
  if (q == p || q - p > 6 || q >= key.size() || key[q] != '.' || (key[p] == '0' && q - p > 1)) return -1;
  return std::stoll(key.substr(p, q - p));
}

// Blocks 0 .. N-1, N one more than the largest index any key names under `prefix`.
int64_t count_blocks(const std::vector<RawTensor>& tensors, const std::string& prefix) {
  int64_t n = 0;
  for (const auto& t : tensors) n = std::max(n, block_index(t.name, prefix) + 1);
  return n;
}

// The embeddings fix the width, the vocabulary and the context length; every other shape
// follows from them.
void read_embedding_shapes(GptWeightsReader& r, const std::string& tok, const std::string& pos, GptConfig& cfg) {
  const RawTensor& t = r.need(tok);
  if (t.shape.size() != 2 || t.shape[0] <= 0 || t.shape[1] <= 0)
    throw WeightsError("not_embedding_table", {{"path", r.path()}, {"key", tok}, {"shape", gpt_weights_shape_text(t.shape)}});
  cfg.vocab_size = t.shape[0];
  cfg.emb_dim = t.shape[1];
  const RawTensor& p = r.need(pos);
  if (p.shape.size() != 2 || p.shape[0] <= 0 || p.shape[1] != cfg.emb_dim)
    throw WeightsError("pos_emb_shape", {{"path", r.path()},
                                         {"key", pos},
                                         {"shape", gpt_weights_shape_text(p.shape)},
                                         {"width", std::to_string(cfg.emb_dim)},
                                         {"tok", tok},
                                         {"tok_shape", gpt_weights_shape_text(t.shape)}});
  cfg.context_length = p.shape[0];
}

// The book's state dict (GPTModel.state_dict(), saved by safetensors or torch.save), loaded as
// model.load_state_dict does: every parameter a contiguous row-major float32 tensor.
void map_book(GptWeightsReader& r, GptParams& out) {
  GptConfig& cfg = out.cfg;
  read_embedding_shapes(r, "tok_emb.weight", "pos_emb.weight", cfg);
  const int64_t E = cfg.emb_dim, V = cfg.vocab_size, C = cfg.context_length;
  const std::string why_e = "shape_from_emb_dim", from_e = "tok_emb.weight";  // emb_dim E (from tok_emb.weight)
  r.set_width(E);
  cfg.n_layers = count_blocks(r.tensors(), "trf_blocks.");
  if (cfg.n_layers == 0)
    throw WeightsError("no_blocks", {{"path", r.path()}, {"key", "trf_blocks.0.norm1.scale"}});
  cfg.qkv_bias = r.has("trf_blocks.0.att.W_query.bias");
  out.tok_emb = r.row_major("tok_emb.weight", {V, E}, "shape_own");
  out.pos_emb = r.row_major("pos_emb.weight", {C, E}, "shape_own");
  for (int64_t b = 0; b < cfg.n_layers; ++b) {
    const std::string k = "trf_blocks." + std::to_string(b) + ".";
    GptBlockParams blk;
    blk.W_query_w = r.row_major(k + "att.W_query.weight", {E, E}, why_e, from_e);
    blk.W_key_w = r.row_major(k + "att.W_key.weight", {E, E}, why_e, from_e);
    blk.W_value_w = r.row_major(k + "att.W_value.weight", {E, E}, why_e, from_e);
    if (cfg.qkv_bias) {
      blk.W_query_b = r.row_major(k + "att.W_query.bias", {E}, why_e, from_e);
      blk.W_key_b = r.row_major(k + "att.W_key.bias", {E}, why_e, from_e);
      blk.W_value_b = r.row_major(k + "att.W_value.bias", {E}, why_e, from_e);
    }
    blk.out_proj_w = r.row_major(k + "att.out_proj.weight", {E, E}, why_e, from_e);
    blk.out_proj_b = r.row_major(k + "att.out_proj.bias", {E}, why_e, from_e);
    blk.ff0_w = r.row_major(k + "ff.layers.0.weight", {4 * E, E}, why_e, from_e);
    blk.ff0_b = r.row_major(k + "ff.layers.0.bias", {4 * E}, why_e, from_e);
    blk.ff2_w = r.row_major(k + "ff.layers.2.weight", {E, 4 * E}, why_e, from_e);
    blk.ff2_b = r.row_major(k + "ff.layers.2.bias", {E}, why_e, from_e);
    blk.norm1_scale = r.row_major(k + "norm1.scale", {E}, why_e, from_e);
    blk.norm1_shift = r.row_major(k + "norm1.shift", {E}, why_e, from_e);
    blk.norm2_scale = r.row_major(k + "norm2.scale", {E}, why_e, from_e);
    blk.norm2_shift = r.row_major(k + "norm2.shift", {E}, why_e, from_e);
    // clang-format off
    r.check_mask(k + "att.mask", {C, C}, C, true, "torch.triu(torch.ones(" + std::to_string(C) + ", " +
                 std::to_string(C) + "), diagonal=1)", false);
    // clang-format on
    out.blocks.push_back(std::move(blk));
  }
  out.final_norm_scale = r.row_major("final_norm.scale", {E}, why_e, from_e);
  out.final_norm_shift = r.row_major("final_norm.shift", {E}, why_e, from_e);
  out.out_head = r.row_major("out_head.weight", {V, E}, "shape_from_tok_emb");
  // load_state_dict(strict=True) refuses a key the model does not have; so does attn-walk.
  for (const auto& t : r.tensors()) {
    const int64_t b = block_index(t.name, "trf_blocks.");
    const std::string rest = b >= 0 ? t.name.substr(t.name.find('.', 11) + 1) : t.name;
    static const char* const block_keys[] = {
        "att.W_query.weight", "att.W_key.weight", "att.W_value.weight", "att.W_query.bias", "att.W_key.bias",
        "att.W_value.bias", "att.out_proj.weight", "att.out_proj.bias", "att.mask", "ff.layers.0.weight",
        "ff.layers.0.bias", "ff.layers.2.weight", "ff.layers.2.bias", "norm1.scale", "norm1.shift",
        "norm2.scale", "norm2.shift"};
    static const char* const model_keys[] = {"tok_emb.weight", "pos_emb.weight", "final_norm.scale",
                                             "final_norm.shift", "out_head.weight"};
    bool known = false;
    for (const char* k : b >= 0 ? std::vector<const char*>(std::begin(block_keys), std::end(block_keys))
                                : std::vector<const char*>(std::begin(model_keys), std::end(model_keys)))
      known = known || rest == k;
    if (b >= 0 && !cfg.qkv_bias && rest.size() > 5 && rest.compare(rest.size() - 5, 5, ".bias") == 0 &&
        rest.compare(0, 6, "att.W_") == 0)
      known = false;  // a bias on some blocks' W_query but not on block 0's
    if (!known)
      throw WeightsError(b >= 0 && !cfg.qkv_bias ? "unexpected_key_no_bias" : "unexpected_key",
                         {{"path", r.path()}, {"key", t.name}});
  }
}

// Hugging Face's GPT-2 (GPT2Model's keys, with or without `transformer.`), assigned as the
// book's load_weights_into_gpt does: c_attn split in three along its last axis, the Conv1D
// weights (in, out) taken as their transposes (out, in), out_head tied to wte.
void map_hf(GptWeightsReader& r, const std::string& prefix, GptParams& out) {
  GptConfig& cfg = out.cfg;
  read_embedding_shapes(r, prefix + "wte.weight", prefix + "wpe.weight", cfg);
  const int64_t E = cfg.emb_dim, V = cfg.vocab_size, C = cfg.context_length;
  const std::string why_e = "shape_from_n_embd", from_e = prefix + "wte.weight";  // n_embd E (from wte.weight)
  r.set_width(E);
  cfg.n_layers = count_blocks(r.tensors(), prefix + "h.");
  if (cfg.n_layers == 0)
    throw WeightsError("no_blocks", {{"path", r.path()}, {"key", prefix + "h.0.ln_1.weight"}});
  cfg.qkv_bias = true;  // Conv1D always has a bias
  out.tok_emb = r.row_major(prefix + "wte.weight", {V, E}, "shape_own");
  out.pos_emb = r.row_major(prefix + "wpe.weight", {C, E}, "shape_own");
  auto transposed = [&](const std::string& key, const Shape& stored) {  // Conv1D's (in, out) as (out, in)
    return ParamView{r.row_major(key, stored, why_e, from_e).data, {stored[1], stored[0]}, true};
  };
  for (int64_t b = 0; b < cfg.n_layers; ++b) {
    const std::string k = prefix + "h." + std::to_string(b) + ".";
    GptBlockParams blk;
    // q_w, k_w, v_w = torch.chunk(c_attn.weight, 3, axis=-1); W_query.weight = q_w.T. PyTorch's
    // q_w.T is a view into the (in, 3 * out) matrix, column-major (out, in) with column stride
    // 3 * emb_dim; so is each ParamView, no copy.
    const float* c_attn = r.row_major(k + "attn.c_attn.weight", {E, 3 * E}, why_e, from_e).data;
    ParamView* qkv[3] = {&blk.W_query_w, &blk.W_key_w, &blk.W_value_w};
    for (int64_t part = 0; part < 3; ++part) *qkv[part] = ParamView{c_attn + part * E, {E, E}, true, 3 * E};
    const float* c_attn_b = r.row_major(k + "attn.c_attn.bias", {3 * E}, why_e, from_e).data;
    blk.W_query_b = ParamView{c_attn_b, {E}, false};
    blk.W_key_b = ParamView{c_attn_b + E, {E}, false};
    blk.W_value_b = ParamView{c_attn_b + 2 * E, {E}, false};
    blk.out_proj_w = transposed(k + "attn.c_proj.weight", {E, E});
    blk.out_proj_b = r.row_major(k + "attn.c_proj.bias", {E}, why_e, from_e);
    blk.ff0_w = transposed(k + "mlp.c_fc.weight", {E, 4 * E});
    blk.ff0_b = r.row_major(k + "mlp.c_fc.bias", {4 * E}, why_e, from_e);
    blk.ff2_w = transposed(k + "mlp.c_proj.weight", {4 * E, E});
    blk.ff2_b = r.row_major(k + "mlp.c_proj.bias", {E}, why_e, from_e);
    blk.norm1_scale = r.row_major(k + "ln_1.weight", {E}, why_e, from_e);
    blk.norm1_shift = r.row_major(k + "ln_1.bias", {E}, why_e, from_e);
    blk.norm2_scale = r.row_major(k + "ln_2.weight", {E}, why_e, from_e);
    blk.norm2_shift = r.row_major(k + "ln_2.bias", {E}, why_e, from_e);
    // clang-format off
    r.check_mask(k + "attn.bias", {1, 1, C, C}, C, false, "torch.tril(torch.ones(" + std::to_string(C) + ", " +
                 std::to_string(C) + "))", true);
    // clang-format on
    out.blocks.push_back(std::move(blk));
  }
  out.final_norm_scale = r.row_major(prefix + "ln_f.weight", {E}, why_e, from_e);
  out.final_norm_shift = r.row_major(prefix + "ln_f.bias", {E}, why_e, from_e);
  out.out_head = out.tok_emb;  // gpt.out_head.weight = assign(..., params["wte.weight"])
  out.notes.push_back({"note.weights.tied", {}, "out_head tied to wte, as the book's load_weights_into_gpt assigns it"});
}

// The head count: --heads, else config.json beside the file, else GPT-2's for the width.
int64_t choose_heads(const std::string& path, const GptConfig& cfg, std::optional<int64_t> heads,
                     std::vector<WeightsNote>& notes) {
  const std::string width = std::to_string(cfg.emb_dim);
  if (heads) {
    if (*heads < 1 || cfg.emb_dim % *heads != 0)
      throw WeightsError("heads_not_divisor", {{"path", path}, {"heads", std::to_string(*heads)}, {"width", width}}, true);
    return *heads;
  }
  const size_t slash = path.rfind('/');
  const std::string config = (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) + "config.json";
  std::ifstream in(config, std::ios::binary);
  if (in) {
    // A Hugging Face config is about 1 KB; read no more than 1 MiB of whatever is there.
    std::string s(size_t{1} << 20, '\0');
    in.read(&s[0], static_cast<std::streamsize>(s.size()));
    s.resize(static_cast<size_t>(in.gcount()));
    if (in.gcount() == static_cast<std::streamsize>(size_t{1} << 20))
      throw WeightsError("config_too_large", {{"path", path}, {"config", config}});
    const nlohmann::json j = nlohmann::json::parse(s, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      throw WeightsError("config_not_object", {{"path", path}, {"config", config}});
    if (j.contains("n_embd") && !(j["n_embd"].is_number_integer() && j["n_embd"].get<int64_t>() == cfg.emb_dim))
      throw WeightsError("config_width", {{"path", path}, {"config", config}, {"n_embd", j["n_embd"].dump()}, {"width", width}});
    if (j.contains("n_head")) {
      if (!j["n_head"].is_number_integer() || j["n_head"].get<int64_t>() < 1 ||
          cfg.emb_dim % j["n_head"].get<int64_t>() != 0)
        throw WeightsError("config_heads", {{"path", path}, {"config", config}, {"n_head", j["n_head"].dump()}, {"width", width}});
      // clang-format off
      notes.push_back({"note.weights.heads_config", {{"heads_found", j["n_head"].dump()}, {"heads_config", config}},
                       "n_heads " + j["n_head"].dump() + " from " + config});
      // clang-format on
      return j["n_head"].get<int64_t>();
    }
  }
  if (const auto h = gpt2_heads_for_width(cfg.emb_dim)) {
    // clang-format off
    notes.push_back({"note.weights.heads_gpt2", {{"heads_found", std::to_string(*h)}, {"heads_width", width}},
                     "n_heads " + std::to_string(*h) + ": GPT-2's for width " + width + " (no --heads, no config.json)"});
    // clang-format on
    return *h;
  }
  throw WeightsError("heads_unknown", {{"path", path}, {"width", width}}, true);
}

}  // namespace

GptParams load_gpt_weights(const std::string& path, std::optional<int64_t> heads) {
  auto store = std::make_shared<GptWeightsStorage>();
  store->file = std::make_unique<weights::MappedFile>(path);
  const weights::Bytes bytes = store->file->bytes();

  GptParams out;
  std::vector<RawTensor> tensors;
  bool pth = false;
  if (weights::looks_like_zip(bytes)) {
    tensors = weights::read_torch_zip(bytes, path);
    pth = true;
  } else if (weights::looks_like_safetensors(bytes)) {
    tensors = weights::read_safetensors(bytes, path);
  } else if (weights::looks_like_legacy_torch_save(bytes)) {
    throw WeightsError("legacy_torch_save", {{"path", path}});
  } else {
    throw WeightsError("not_weights_file", {{"path", path}});
  }

  GptWeightsReader reader(path, std::move(tensors), *store);
  if (reader.has("tok_emb.weight")) {
    out.format = pth ? WeightsFormat::BookPth : WeightsFormat::BookSafetensors;
    map_book(reader, out);
  } else if (reader.has("wte.weight") || reader.has("transformer.wte.weight")) {
    out.format = pth ? WeightsFormat::HfPth : WeightsFormat::HfSafetensors;
    map_hf(reader, reader.has("wte.weight") ? "" : "transformer.", out);
  } else {
    throw WeightsError("not_gpt_state_dict", {{"path", path}, {"key", "tok_emb.weight"}});
  }
  for (auto& n : reader.notes()) out.notes.push_back(std::move(n));
  out.cfg.n_heads = choose_heads(path, out.cfg, heads, out.notes);
  out.storage = store;
  return out;
}

}  // namespace attn
