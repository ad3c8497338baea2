// The weights readers against PyTorch: every parameter of every test model, read from each of
// its files, equals bit for bit what the book's own loading code holds in PyTorch
// (tests/data/gpt/params.json, written by tests/golden/make_gpt_models.py): load_state_dict
// for the book's state dicts, load_weights_into_gpt for Hugging Face's. Also where the values
// lie: views into the mapped file, Hugging Face's Conv1D weights as transposed views.
#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "ops/ops_gpt.h"
#include "test_weights_util.h"
#include "weights/torch_zip.h"
#include "weights/zip_reader.h"

namespace attn::test {
namespace {

using namespace std::string_literals;

const nlohmann::ordered_json& params_golden() {  // in named_parameters() order
  static const nlohmann::ordered_json golden = nlohmann::ordered_json::parse(read_all(gpt_data("params.json")));
  return golden;
}

// The file's parameters against the golden: names in named_parameters() order, shapes, the
// FNV-1a of the float32 values in logical row-major order, and the layout: PyTorch's
// non-contiguous parameters are exactly the (column-major) transposed views.
void expect_params_match_pytorch(const std::string& file, const GptParams& p) {
  SCOPED_TRACE(file);
  const nlohmann::ordered_json& want = params_golden()["files"][file];
  const auto got = named_params(p);
  ASSERT_EQ(got.size(), want.size());
  size_t i = 0;
  for (const auto& [name, w] : want.items()) {
    const auto& [got_name, view] = got[i++];
    SCOPED_TRACE(name);
    ASSERT_EQ(got_name, name);
    EXPECT_EQ(view.shape, w["shape"].get<Shape>());
    EXPECT_EQ(fnv1a64(view.copy().data), w["fnv1a64"].get<std::string>());
    EXPECT_EQ(view.transposed, !w["contiguous"].get<bool>());
    if (view.transposed) {  // column-major in PyTorch too, with the same column stride (c_attn's: 3 * emb)
      EXPECT_EQ(w["stride"][0].get<int64_t>(), 1);
      EXPECT_EQ(w["stride"][1].get<int64_t>(), view.ld ? view.ld : view.shape[0]);
    }
    // The first values by their bits (signed zeros included), a check on the hash's reading.
    EXPECT_EQ(float_to_bits(view.transposed ? view.at(0, 0) : view.data[0]),
              float_to_bits(w["first"][0].get<float>()));
  }
}

const nlohmann::ordered_json& config_golden() { return params_golden()["config"]; }

void expect_config(const GptParams& p) {
  const auto& c = config_golden();
  EXPECT_EQ(p.cfg.vocab_size, c["vocab_size"].get<int64_t>());
  EXPECT_EQ(p.cfg.context_length, c["context_length"].get<int64_t>());
  EXPECT_EQ(p.cfg.emb_dim, c["emb_dim"].get<int64_t>());
  EXPECT_EQ(p.cfg.n_heads, c["n_heads"].get<int64_t>());
  EXPECT_EQ(p.cfg.n_layers, c["n_layers"].get<int64_t>());
  EXPECT_EQ(p.cfg.qkv_bias, c["qkv_bias"].get<bool>());
}

// The reader's note `key` is there, quoting `var` as `value` ("" when it quotes nothing).
bool has_note(const GptParams& p, const std::string& key, const std::string& var = "", const std::string& value = "") {
  for (const auto& n : p.notes)
    if (n.key == key && (var.empty() || (n.vars.count(var) && n.vars.at(var) == value))) return true;
  return false;
}

TEST(Weights, BookSafetensorsEqualsLoadStateDict) {
  const GptParams p = load_gpt_weights(gpt_data("book.safetensors"), 2);
  EXPECT_EQ(p.format, WeightsFormat::BookSafetensors);
  expect_config(p);
  expect_params_match_pytorch("book.safetensors", p);
  EXPECT_TRUE(p.notes.empty()) << p.notes.front().key;  // float32, aligned: nothing copied
}

TEST(Weights, BookPthEqualsTorchLoadWeightsOnly) {
  const GptParams p = load_gpt_weights(gpt_data("book.pth"), 2);
  EXPECT_EQ(p.format, WeightsFormat::BookPth);
  expect_config(p);
  expect_params_match_pytorch("book.pth", p);
  EXPECT_TRUE(p.notes.empty());
}

TEST(Weights, Float16IsWidenedExactly) {
  const GptParams p = load_gpt_weights(gpt_data("book-f16.safetensors"), 2);
  expect_config(p);
  expect_params_match_pytorch("book-f16.safetensors", p);
  EXPECT_TRUE(has_note(p, "note.weights.float16", "float16_tensors", std::to_string(p.blocks.size() * 16 + 5)));
}

TEST(Weights, HuggingFaceAsLoadWeightsIntoGpt) {
  const GptParams p = load_gpt_weights(gpt_data("hf/model.safetensors"), std::nullopt);
  EXPECT_EQ(p.format, WeightsFormat::HfSafetensors);
  expect_config(p);  // n_heads from hf/config.json
  expect_params_match_pytorch("hf/model.safetensors", p);
  EXPECT_TRUE(has_note(p, "note.weights.heads_config", "heads_found", "2"));
  EXPECT_TRUE(has_note(p, "note.weights.tied"));
  EXPECT_EQ(p.out_head.data, p.tok_emb.data);  // tied, not copied
  // c_proj.T: a view into the file's (in, out) matrix, which is (out, in) column-major.
  EXPECT_TRUE(p.blocks[0].out_proj_w.transposed);
  EXPECT_TRUE(p.blocks[1].ff0_w.transposed && p.blocks[1].ff2_w.transposed);
  EXPECT_EQ(p.blocks[0].ff0_w.shape, (Shape{32, 8}));
}

// Whether `p` lies in a mapping of the file `path` (/proc/self/maps): a view into the mapped
// file, not a copy.
bool inside_mapping_of(const void* p, const std::string& path) {
  char real[PATH_MAX];
  if (!::realpath(path.c_str(), real)) return false;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  const auto at = reinterpret_cast<uintptr_t>(p);
  while (std::getline(maps, line)) {
    std::istringstream fields(line);
    std::string range, perms, offset, dev, inode, file;
    fields >> range >> perms >> offset >> dev >> inode >> file;
    if (file != real) continue;
    const uintptr_t begin = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
    const uintptr_t end = std::stoull(range.substr(range.find('-') + 1), nullptr, 16);
    if (at >= begin && at < end) return true;
  }
  return false;
}

// c_attn split in three as load_weights_into_gpt's torch.chunk does: views into the mapped file
// (not copies: 85 MB saved on GPT-2 small), each q_w.T with column stride 3 * emb_dim, the three
// side by side in each row of c_attn. Fails if the split copies again.
TEST(Weights, HuggingFaceQkvAreStridedViewsIntoTheMappedFile) {
  const std::string path = gpt_data("hf/model.safetensors");
  const GptParams p = load_gpt_weights(path, std::nullopt);
  const int64_t E = p.cfg.emb_dim;
  for (const GptBlockParams& b : p.blocks) {
    for (const ParamView* w : {&b.W_query_w, &b.W_key_w, &b.W_value_w}) {
      EXPECT_TRUE(inside_mapping_of(w->data, path));
      EXPECT_TRUE(w->transposed);
      EXPECT_EQ(w->ld, 3 * E);
    }
    EXPECT_EQ(b.W_key_w.data, b.W_query_w.data + E);
    EXPECT_EQ(b.W_value_w.data, b.W_key_w.data + E);
  }
  EXPECT_TRUE(inside_mapping_of(p.tok_emb.data, path));  // and the other views too
}

// Every reader of a strided parameter honours its stride: ParamView::at and copy, MatView::at,
// and F.linear and nn.Embedding on a MatView give, bit for bit, what they give on the same
// matrix packed. A reader that ignored `ld` would read other values here.
TEST(Weights, ReadersHonourAStridedView) {
  // A (3, 2) matrix W, stored as its transpose (column-major) with 5 floats between columns,
  // and as a (3, 2) row-major matrix with 4 floats between rows; the gaps hold nan.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> W = {0.5f, -1.25f, 2.0f, 0.375f, -3.0f, 1.5f};  // row-major (3, 2)
  std::vector<float> cols(10, nan), rows(12, nan);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      cols[static_cast<size_t>(j * 5 + i)] = W[static_cast<size_t>(i * 2 + j)];
      rows[static_cast<size_t>(i * 4 + j)] = W[static_cast<size_t>(i * 2 + j)];
    }
  const ParamView pv{cols.data(), {3, 2}, true, 5};
  EXPECT_EQ(pv.copy().data, W);
  MatView packed;
  packed.data = W.data();
  packed.rows = 3;
  packed.cols = 2;
  MatView by_cols = packed, by_rows = packed;
  by_cols.data = cols.data();
  by_cols.transposed = true;
  by_cols.ld = 5;
  by_rows.data = rows.data();
  by_rows.ld = 4;
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      EXPECT_EQ(by_cols.at(i, j), packed.at(i, j));
      EXPECT_EQ(by_rows.at(i, j), packed.at(i, j));
    }
  Tensor x = Tensor::zeros({4, 2});
  for (int64_t k = 0; k < x.numel(); ++k) x.data[static_cast<size_t>(k)] = 0.25f * static_cast<float>(k) - 0.7f;
  const Tensor want = linear(x, packed, nullptr);
  EXPECT_EQ(linear(x, by_rows, nullptr).data, want.data);
  // The transposed view against the same transposed layout packed (the same sgemm flags).
  std::vector<float> packed_cols(6);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 2; ++j) packed_cols[static_cast<size_t>(j * 3 + i)] = W[static_cast<size_t>(i * 2 + j)];
  MatView cols_packed = by_cols;
  cols_packed.data = packed_cols.data();
  cols_packed.ld = 0;
  EXPECT_EQ(linear(x, by_cols, nullptr).data, linear(x, cols_packed, nullptr).data);
  EXPECT_EQ(embedding(by_cols, {2, 0}).data, embedding(packed, {2, 0}).data);
  EXPECT_EQ(embedding(by_rows, {1, 2}).data, embedding(packed, {1, 2}).data);
}

TEST(Weights, HuggingFacePrefixedBfloat16TakesHeadsFromTheOption) {
  const GptParams p = load_gpt_weights(gpt_data("hf-prefixed-bf16.safetensors"), 2);
  expect_config(p);
  expect_params_match_pytorch("hf-prefixed-bf16.safetensors", p);
  EXPECT_TRUE(has_note(p, "note.weights.bfloat16"));
}

TEST(Weights, ParamsOutliveNothingButTheirStorage) {
  GptParams p = load_gpt_weights(gpt_data("book.safetensors"), 2);
  const std::string before = fnv1a64(p.blocks[1].ff2_w.copy().data);
  GptParams moved = std::move(p);
  EXPECT_EQ(fnv1a64(moved.blocks[1].ff2_w.copy().data), before);
}

// safetensors does not promise 4-byte alignment: a header one space longer shifts every
// tensor off it; the values are then copied, with the same bits and a note.
TEST(Weights, MisalignedFloat32IsCopiedBitForBit) {
  TempDir dir;
  const std::string path = SafetensorsParts::read(gpt_data("book.safetensors")).write(dir, "odd.safetensors", 1);
  const GptParams p = load_gpt_weights(path, 2);
  expect_params_match_pytorch("book.safetensors", p);
  EXPECT_TRUE(has_note(p, "note.weights.misaligned"));
}

// The same state dict in a Zip64 archive (every size in the Zip64 fields) reads the same.
TEST(Weights, Zip64ArchiveReadsTheSame) {
  TempDir dir;
  const std::string bytes = read_all(gpt_data("book.pth"));
  const weights::Bytes b{reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& e : weights::read_zip(b, "book.pth"))
    entries.emplace_back(e.name, std::string(reinterpret_cast<const char*>(e.data.data), e.data.size));
  const std::string path = dir.write("zip64.pth", stored_zip(entries, true));
  const GptParams p = load_gpt_weights(path, 2);
  expect_params_match_pytorch("book.pth", p);
  // And the plain writer's archive too (a check on the writer the bad-file tests use).
  expect_params_match_pytorch("book.pth", load_gpt_weights(dir.write("plain.pth", stored_zip(entries)), 2));
}

// A torch.save zip holding a safetensors file's tensors, each its own float32 storage record,
// pickled as torch.save pickles a state dict. With `transpose`, every 2-D tensor's record holds
// its transpose and the pickle views it with strides (1, rows), as a state dict saved after the
// book's load_weights_into_gpt holds the .T views.
std::string pth_from_safetensors(const SafetensorsParts& st, bool transpose) {
  auto binunicode = [](const std::string& s) {
    std::string o = "X";
    for (int i = 0; i < 4; ++i) o += static_cast<char>((s.size() >> (8 * i)) & 0xFF);
    return o + s;
  };
  auto binint = [](int64_t v) {
    std::string o = "J";
    for (int i = 0; i < 4; ++i) o += static_cast<char>((v >> (8 * i)) & 0xFF);
    return o;
  };
  std::string pkl = "\x80\x02"
                    "ccollections\nOrderedDict\nq\x00)R("s;
  std::vector<std::pair<std::string, std::string>> entries;
  int key = 0;
  for (const auto& [name, info] : st.header.items()) {
    if (name == "__metadata__") continue;
    const auto offs = info["data_offsets"];
    std::string data = st.data.substr(offs[0].get<size_t>(), offs[1].get<size_t>() - offs[0].get<size_t>());
    const Shape shape = info["shape"].get<Shape>();
    std::vector<int64_t> strides(shape.size());
    int64_t numel = 1;
    for (size_t d = shape.size(); d-- > 0;) strides[d] = numel, numel *= shape[d];
    if (transpose && shape.size() == 2) {
      const std::string row_major = data;
      for (int64_t i = 0; i < shape[0]; ++i)
        for (int64_t j = 0; j < shape[1]; ++j)
          std::memcpy(&data[static_cast<size_t>((j * shape[0] + i) * 4)],
                      &row_major[static_cast<size_t>((i * shape[1] + j) * 4)], 4);
      strides = {1, shape[0]};
    }
    std::string size = "(", stride = "(";
    for (size_t d = 0; d < shape.size(); ++d) size += binint(shape[d]), stride += binint(strides[d]);
    pkl += binunicode(name) + "ctorch._utils\n_rebuild_tensor_v2\n((" + binunicode("storage") +
           "ctorch\nFloatStorage\n" + binunicode(std::to_string(key)) + binunicode("cpu") + binint(numel) + "tQ" +
           binint(0) + size + "t" + stride + "t\x89h\x00)Rtq\x01R"s;
    entries.emplace_back("model/data/" + std::to_string(key++), data);
  }
  pkl += "u.";
  entries.insert(entries.begin(), {"model/data.pkl", pkl});
  return stored_zip(entries);
}

// Hugging Face's keys in PyTorch's zip (pytorch_model.bin) map as the safetensors file does.
TEST(Weights, HuggingFaceKeysInAPthFile) {
  TempDir dir;
  const SafetensorsParts hf = SafetensorsParts::read(gpt_data("hf/model.safetensors"));
  const std::string path = dir.write("pytorch_model.bin", pth_from_safetensors(hf, false));
  const GptParams p = load_gpt_weights(path, 2);
  EXPECT_EQ(p.format, WeightsFormat::HfPth);
  expect_params_match_pytorch("hf/model.safetensors", p);
}

// A state dict whose tensors are column-major views (saved after load_weights_into_gpt):
// load_state_dict copies them into the model's contiguous parameters, and so does attn-walk.
TEST(Weights, StridedTensorsInAPthAreCopiedRowMajor) {
  TempDir dir;
  const std::string path =
      dir.write("strided.pth", pth_from_safetensors(SafetensorsParts::read(gpt_data("book.safetensors")), true));
  const GptParams p = load_gpt_weights(path, 2);
  expect_params_match_pytorch("book.safetensors", p);
  EXPECT_TRUE(has_note(p, "note.weights.strided"));
}

// The fuzzers' seeds (fuzz/corpus/, from make_gpt_models.py) read, so that fuzzing starts from
// inputs that reach the mapping: Python's zipfile archives, one with Zip64 local headers.
TEST(Weights, FuzzSeedsRead) {
  const std::string corpus = tests_dir() + "/../fuzz/corpus/";
  EXPECT_EQ(load_gpt_weights(corpus + "safetensors/tiny-book.safetensors", 1).cfg.emb_dim, 2);
  const GptParams hf = load_gpt_weights(corpus + "safetensors/tiny-hf-bf16.safetensors", 1);
  EXPECT_EQ(hf.cfg.n_layers, 1);
  for (const char* name : {"zip/tiny-part.pth", "zip/tiny-part-zip64.pth"}) {
    const std::string bytes = read_all(corpus + name);
    const auto tensors = weights::read_torch_zip({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, name);
    ASSERT_EQ(tensors.size(), 3u) << name;
    EXPECT_EQ(tensors[0].name, "pos_emb.weight");
    EXPECT_EQ(tensors[0].shape, (Shape{2, 2}));
  }
}

TEST(Weights, HeadsComeFromTheOptionConfigOrGpt2Sizes) {
  // No --heads and width 8: neither config.json nor GPT-2's sizes tell; a usage error.
  expect_weights_error(gpt_data("book.safetensors"), std::nullopt, {"book.safetensors", "--heads", "width 8"}, true);
  expect_weights_error(gpt_data("book.safetensors"), 3, {"--heads 3", "width 8"}, true);
  expect_weights_error(gpt_data("hf-prefixed-bf16.safetensors"), std::nullopt, {"--heads"}, true);
  // --heads wins over config.json.
  EXPECT_EQ(load_gpt_weights(gpt_data("hf/model.safetensors"), 4).cfg.n_heads, 4);
  // A config.json that disagrees, or is not JSON, is named.
  TempDir dir;
  const std::string st = read_all(gpt_data("hf/model.safetensors"));
  dir.write("model.safetensors", st);
  dir.write("config.json", "{\"n_head\": 3}");
  expect_weights_error(dir.file("model.safetensors"), std::nullopt, {"config.json", "n_head 3"});
  dir.write("config.json", "{\"n_head\": 2, \"n_embd\": 16}");
  expect_weights_error(dir.file("model.safetensors"), std::nullopt, {"config.json", "n_embd 16"});
  dir.write("config.json", "{n_head");
  expect_weights_error(dir.file("model.safetensors"), std::nullopt, {"config.json", "not a JSON object"});
  dir.write("config.json", "{\"n_head\": 8}");
  EXPECT_EQ(load_gpt_weights(dir.file("model.safetensors"), std::nullopt).cfg.n_heads, 8);
}

}  // namespace
}  // namespace attn::test
