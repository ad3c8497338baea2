// Shared helpers for the golden tests: reading JSON test data and comparing tensors.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/config.h"
#include "input/embeddings.h"
#include "core/float_bits.h"
#include "render/render.h"
#include "core/tensor.h"
#include "core/walk.h"

namespace attn::test {

// A file's bytes ("" if it cannot be read).
inline std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline nlohmann::json load_json(const std::string& path) {
  if (!std::ifstream(path)) throw std::runtime_error("cannot open " + path);
  return nlohmann::json::parse(read_all(path));
}

// A scratch directory (readable by others, for tests that drop privileges), removed at the
// end of the test.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    namespace fs = std::filesystem;
    std::string tmpl = (fs::temp_directory_path() / "attn-walk-test-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
    fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = file(name);
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
};

inline std::string tests_dir() { return ATTN_WALK_TESTS_DIR; }

// The names (without ".json") of the JSON files in a folder, sorted (none if it is missing).
inline std::vector<std::string> json_files_in(const std::string& dir) {
  std::vector<std::string> names;
  if (!std::filesystem::is_directory(dir)) return names;  // e.g. no goldens generated yet
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A JSON value from PyTorch's tolist(): a number or "inf"/"-inf"/"nan".
inline float json_float(const nlohmann::json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") return NAN;
    return s == "inf" ? INFINITY : -INFINITY;
  }
  return static_cast<float>(v.get<double>());
}

inline void flatten_into(const nlohmann::json& v, std::vector<float>& out) {
  if (v.is_array()) {
    for (const auto& x : v) flatten_into(x, out);
  } else {
    out.push_back(json_float(v));
  }
}

inline std::vector<float> flatten(const nlohmann::json& v) {
  std::vector<float> out;
  flatten_into(v, out);
  return out;
}

inline uint32_t bits(float f) { return attn::float_to_bits(f); }
inline float float_from_bits(uint32_t u) { return attn::bits_to_float(u); }

// The same float32, bit for bit, or both NaN (any NaN equals any NaN).
inline bool same_float(float a, float b) { return (std::isnan(a) && std::isnan(b)) || bits(a) == bits(b); }

// FNV-1a 64 of the values' float32 bytes, little-endian, as the golden generators' fnv1a64
// digest a tensor too large to store value by value.
inline std::string fnv1a64(const std::vector<float>& values) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (float v : values) {
    const uint32_t b = bits(v);
    for (int byte = 0; byte < 4; ++byte) h = (h ^ ((b >> (8 * byte)) & 0xFF)) * 0x100000001b3ULL;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

// A step against a golden step written by the golden generators ({"shape", "digest", and "bits":
// its float32 bits as hex, for tensors small enough to store}): the shape, the digest, and each
// stored value's bits.
inline void expect_step_is_golden(const attn::Step& step, const nlohmann::json& want) {
  EXPECT_EQ(step.value.shape, want["shape"].get<attn::Shape>());
  EXPECT_EQ(fnv1a64(step.value.data), want["digest"].get<std::string>());
  if (!want.contains("bits")) return;
  const auto stored = want["bits"].get<std::vector<std::string>>();
  ASSERT_EQ(stored.size(), step.value.data.size());
  int64_t differ = 0;
  for (size_t i = 0; i < stored.size(); ++i)
    differ += bits(step.value.data[i]) != static_cast<uint32_t>(std::stoul(stored[i], nullptr, 16));
  EXPECT_EQ(differ, 0);
}

// Same float32, bit for bit (any NaN equals any NaN). Returns the number of differences
// and the largest absolute difference through *max_diff.
inline int64_t count_bit_differences(const std::vector<float>& got, const std::vector<float>& want,
                                     double* max_diff) {
  int64_t n = 0;
  *max_diff = 0.0;
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    if (std::isnan(got[i]) && std::isnan(want[i])) continue;
    if (bits(got[i]) == bits(want[i])) continue;
    ++n;
    *max_diff = std::max(*max_diff, std::fabs(static_cast<double>(got[i]) - want[i]));
  }
  return n;
}

// A golden's "tokens" and "embeddings" as a Config's input (the knobs left at their defaults).
inline Config inputs_from_golden(const nlohmann::json& doc) {
  Config c;
  c.tokens = doc["tokens"].get<std::vector<std::string>>();
  const auto& emb = doc["embeddings"];
  std::vector<float> data;
  for (const auto& row : emb)
    for (const auto& v : row) data.push_back(static_cast<float>(v.get<double>()));
  c.inputs = Tensor({static_cast<int64_t>(emb.size()), static_cast<int64_t>(emb[0].size())}, data);
  return c;
}

// A Config from a golden's "options", "tokens" and "embeddings" (named as the CLI flags).
inline Config config_from_golden(const nlohmann::json& doc) {
  Config c = inputs_from_golden(doc);
  const auto& o = doc["options"];
  c.query = o["query"].get<int64_t>();
  if (!o["seed"].is_null()) c.seed1 = c.seed2 = o["seed"].get<uint64_t>();
  c.d_out = o["d_out"].get<int64_t>();
  c.heads = o["heads"].get<int64_t>();
  c.dropout = o["dropout"].get<double>();
  c.attn_dropout = o["attn_dropout"].get<double>();
  c.batch = o["batch"].get<int64_t>();
  c.qkv_bias = o["qkv_bias"].get<bool>();
  c.init = o["init"].get<std::string>() == "randn" ? InitKind::Randn : InitKind::Rand;
  if (o.contains("softmax_dim")) c.causal_softmax.dim = o["softmax_dim"].get<int64_t>();
  if (o.contains("torch_threads")) c.causal_softmax.torch_threads = o["torch_threads"].get<int64_t>();
  return c;
}

// A bonus golden's Config (tests/golden/bonus_walks/*.json): the chapter's options, and the
// bonus sizes and knobs, which the golden always gives as flags (--d-out, --heads, ...).
inline Config bonus_config_from_golden(const nlohmann::json& doc) {
  Config c = config_from_golden(doc);
  const auto& o = doc["options"];
  c.bonus.d_out = c.d_out;
  c.bonus.heads = c.heads;
  c.bonus.kv_groups = o["kv_groups"].get<int64_t>();
  c.bonus.window = o["window"].get<int64_t>();
  c.bonus.rope_base = o["rope_base"].get<double>();
  c.bonus.block = o["block"].get<int64_t>();
  c.bonus.latent_dim = o["latent_dim"].get<int64_t>();
  return c;
}

// A walk against PyTorch's steps of the same stage (a golden's "stages"[stage]): the same
// step names in the same order, the same shapes, the same float32 bits and the same
// printed text, verbatim. A step stored as a digest (a large one) is compared by its fnv1a64.
inline void expect_walk_equals_golden(const Walk& walk, const nlohmann::json& expected) {
  std::vector<std::string> got_names, want_names;
  for (const auto& s : walk.steps) got_names.push_back(s.name);
  for (const auto& s : expected) want_names.push_back(s["name"].get<std::string>());
  ASSERT_EQ(got_names, want_names);
  for (size_t i = 0; i < walk.steps.size(); ++i) {
    const Step& step = walk.steps[i];
    const auto& want = expected[i];
    SCOPED_TRACE("step " + step.name);
    EXPECT_EQ(step.value.shape, want["shape"].get<Shape>());
    if (want.contains("digest")) {
      EXPECT_EQ(fnv1a64(step.value.data), want["digest"].get<std::string>());
    } else {
      double max_diff = 0;
      const auto n = count_bit_differences(step.value.data, flatten(want["data"]), &max_diff);
      EXPECT_EQ(n, 0) << n << " values are not PyTorch's float32 (largest difference " << max_diff << ")";
    }
    EXPECT_EQ(printed_step(step), want["printed"].get<std::string>());
    // Lines PyTorch computed to go under the tensor: strides, state_dict keys.
    if (want.contains("details"))
      EXPECT_EQ(step.details, want["details"].get<std::vector<std::string>>());
  }
}

// The chapter's default configuration: "Your journey starts with one step", the book's seeds.
inline Config book_config() {
  Config c;
  const Embeddings e = builtin_journey();
  c.tokens = e.tokens;
  c.inputs = e.inputs;
  return c;
}

inline const Step& step_named(const Walk& w, const std::string& name) {
  for (const auto& s : w.steps)
    if (s.name == name) return s;
  throw std::runtime_error("no step " + name);
}

// A step built by hand, for renderer tests.
inline Step make_step(std::string name, Tensor value, Role role = Role::Value) {
  Step s;
  s.name = std::move(name);
  s.title = "a title";
  s.value = std::move(value);
  s.role = role;
  return s;
}

// A (T, T) causal matrix: row i spreads 1 evenly over j <= i and holds `above` on j > i.
inline Tensor causal_matrix(int64_t T, float above) {
  Tensor t = Tensor::zeros({T, T});
  for (int64_t i = 0; i < T; ++i)
    for (int64_t j = 0; j < T; ++j) t(i, j) = j <= i ? 1.0f / static_cast<float>(i + 1) : above;
  return t;
}

}  // namespace attn::test
