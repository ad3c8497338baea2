// Helpers for the weights readers' tests: the test models under tests/data/gpt/ (made by
// tests/golden/make_gpt_models.py), and the means to make bad files from them: a safetensors
// file taken apart into its JSON header and data, and a stored zip writer (Zip64 on request).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lang/lang.h"
#include "lang/weights_errors.h"
#include "test_util.h"
#include "weights/gpt_weights.h"

namespace attn::test {

inline std::string gpt_data(const std::string& name) { return tests_dir() + "/data/gpt/" + name; }

// Every parameter of the model under the name GPTModel.named_parameters() gives it, in its order.
inline std::vector<std::pair<std::string, ParamView>> named_params(const GptParams& p) {
  std::vector<std::pair<std::string, ParamView>> out = {{"tok_emb.weight", p.tok_emb}, {"pos_emb.weight", p.pos_emb}};
  for (size_t b = 0; b < p.blocks.size(); ++b) {
    const GptBlockParams& k = p.blocks[b];
    const std::string n = "trf_blocks." + std::to_string(b) + ".";
    auto add = [&](const std::string& name, const ParamView& v) { out.emplace_back(n + name, v); };
    add("att.W_query.weight", k.W_query_w);
    if (k.W_query_b) add("att.W_query.bias", *k.W_query_b);
    add("att.W_key.weight", k.W_key_w);
    if (k.W_key_b) add("att.W_key.bias", *k.W_key_b);
    add("att.W_value.weight", k.W_value_w);
    if (k.W_value_b) add("att.W_value.bias", *k.W_value_b);
    add("att.out_proj.weight", k.out_proj_w);
    add("att.out_proj.bias", k.out_proj_b);
    add("ff.layers.0.weight", k.ff0_w);
    add("ff.layers.0.bias", k.ff0_b);
    add("ff.layers.2.weight", k.ff2_w);
    add("ff.layers.2.bias", k.ff2_b);
    add("norm1.scale", k.norm1_scale);
    add("norm1.shift", k.norm1_shift);
    add("norm2.scale", k.norm2_scale);
    add("norm2.shift", k.norm2_shift);
  }
  out.emplace_back("final_norm.scale", p.final_norm_scale);
  out.emplace_back("final_norm.shift", p.final_norm_shift);
  out.emplace_back("out_head.weight", p.out_head);
  return out;
}

// A safetensors file as its JSON header and its data, to edit and write back.
struct SafetensorsParts {
  nlohmann::ordered_json header;
  std::string data;

  static SafetensorsParts read(const std::string& path) {
    const std::string bytes = read_all(path);
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(bytes[static_cast<size_t>(i)]);
    SafetensorsParts parts;
    parts.header = nlohmann::ordered_json::parse(bytes.substr(8, n));
    parts.data = bytes.substr(8 + n);
    return parts;
  }
  // The file's bytes; `extra_pad` spaces more than safetensors' padding to 8 (data misaligned).
  std::string bytes(size_t extra_pad = 0) const {
    std::string h = header.dump();
    h += std::string((8 - h.size() % 8) % 8 + extra_pad, ' ');
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((uint64_t{h.size()} >> (8 * i)) & 0xFF);
    return out + h + data;
  }
  std::string write(const TempDir& dir, const std::string& name, size_t extra_pad = 0) const {
    return dir.write(name, bytes(extra_pad));
  }
};

inline uint32_t crc32_of(const std::string& s) {
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char ch : s) {
    c ^= ch;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  return c ^ 0xFFFFFFFFu;
}

// A zip archive of stored entries, as torch.save writes one; with zip64, every size and offset
// goes through the Zip64 extra fields and end records.
inline std::string stored_zip(const std::vector<std::pair<std::string, std::string>>& entries, bool zip64 = false) {
  std::string out, central;
  auto put = [](std::string& s, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
  };
  const uint32_t max32 = 0xFFFFFFFFu;
  for (const auto& [name, data] : entries) {
    const uint64_t offset = out.size();
    const uint32_t crc = crc32_of(data);
    std::string local_extra, central_extra;
    if (zip64) {
      put(local_extra, 1, 2), put(local_extra, 16, 2);
      put(local_extra, data.size(), 8), put(local_extra, data.size(), 8);
      put(central_extra, 1, 2), put(central_extra, 24, 2), put(central_extra, data.size(), 8);
      put(central_extra, data.size(), 8), put(central_extra, offset, 8);
    }
    put(out, 0x04034b50, 4), put(out, zip64 ? 45 : 20, 2), put(out, 0, 2), put(out, 0, 2);
    put(out, 0, 2), put(out, 0, 2), put(out, crc, 4);
    put(out, zip64 ? max32 : data.size(), 4), put(out, zip64 ? max32 : data.size(), 4);
    put(out, name.size(), 2), put(out, local_extra.size(), 2);
    out += name + local_extra + data;
    put(central, 0x02014b50, 4), put(central, zip64 ? 45 : 20, 2), put(central, zip64 ? 45 : 20, 2);
    put(central, 0, 2), put(central, 0, 2), put(central, 0, 2), put(central, 0, 2), put(central, crc, 4);
    put(central, zip64 ? max32 : data.size(), 4), put(central, zip64 ? max32 : data.size(), 4);
    put(central, name.size(), 2), put(central, central_extra.size(), 2), put(central, 0, 2);
    put(central, 0, 2), put(central, 0, 2), put(central, 0, 4), put(central, zip64 ? max32 : offset, 4);
    central += name + central_extra;
  }
  const uint64_t cd_offset = out.size();
  out += central;
  if (zip64) {
    const uint64_t z64 = out.size();
    put(out, 0x06064b50, 4), put(out, 44, 8), put(out, 45, 2), put(out, 45, 2), put(out, 0, 4), put(out, 0, 4);
    put(out, entries.size(), 8), put(out, entries.size(), 8), put(out, central.size(), 8), put(out, cd_offset, 8);
    put(out, 0x07064b50, 4), put(out, 0, 4), put(out, z64, 8), put(out, 1, 4);
  }
  put(out, 0x06054b50, 4), put(out, 0, 2), put(out, 0, 2);
  put(out, zip64 ? 0xFFFF : entries.size(), 2), put(out, zip64 ? 0xFFFF : entries.size(), 2);
  put(out, zip64 ? max32 : central.size(), 4), put(out, zip64 ? max32 : cd_offset, 4), put(out, 0, 2);
  return out;
}

// A weights reader's error has an id, and said in Chinese (as --lang zh and the zh page say it)
// it has no English word: its ASCII words are the file's, the key's or the entry's (its
// placeholders' values), or code the Chinese texts themselves hold (torch.save, safetensors).
inline void expect_said_in_chinese(const WeightsError& e) {
  ASSERT_FALSE(e.id.empty()) << "no message id: " << e.what();
  std::string zh = weights_error_text(Lang::Zh, e.id, e.vars, e.what());
  EXPECT_NE(zh, e.what());
  EXPECT_NE(zh.find(e.vars.at("path")), std::string::npos) << zh;  // the file is named
  std::vector<std::string> data;                                   // the data in it, as it is: the longest first ('F32' before '32')
  for (const auto& [name, value] : e.vars)
    if (!value.empty() && !e.vars.count(name + "_id")) data.push_back(value);  // not a word the language says
  std::sort(data.begin(), data.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const auto& value : data)
    for (size_t at = zh.find(value); at != std::string::npos; at = zh.find(value, at)) zh.replace(at, value.size(), " ");
  static const std::regex word(R"([A-Za-z_][A-Za-z0-9_.]*)");
  static const std::set<std::string> chinese_words = [] {
    std::set<std::string> w;
    for (const auto& [key, text] : lang_zh().ui)
      for (auto it = std::sregex_iterator(text.begin(), text.end(), word); it != std::sregex_iterator(); ++it)
        w.insert(it->str());
    return w;
  }();
  std::set<std::string> english;
  for (auto it = std::sregex_iterator(zh.begin(), zh.end(), word); it != std::sregex_iterator(); ++it)
    if (!chinese_words.count(it->str())) english.insert(it->str());
  EXPECT_TRUE(english.empty()) << "English words " << ::testing::PrintToString(english) << " in "
                               << weights_error_text(Lang::Zh, e.id, e.vars, e.what());
}

// load_gpt_weights must throw a WeightsError whose message holds every one of `parts`, and which
// is said in Chinese too.
inline void expect_weights_error(const std::string& path, std::optional<int64_t> heads,
                                 const std::vector<std::string>& parts, bool usage = false) {
  try {
    load_gpt_weights(path, heads);
    ADD_FAILURE() << path << ": loaded, but an error was expected";
  } catch (const WeightsError& e) {
    const std::string msg = e.what();
    for (const auto& part : parts) EXPECT_NE(msg.find(part), std::string::npos) << "'" << part << "' not in: " << msg;
    EXPECT_EQ(e.usage, usage) << msg;
    expect_said_in_chinese(e);
  }
}

}  // namespace attn::test
