// Bad weights files: each is made here from a good test model (tests/data/gpt/), and each
// gives a WeightsError that names the file and the key, offset or global at fault. Never a
// crash, never a call into anything a pickle names.
#include <gtest/gtest.h>

#include "test_weights_util.h"
#include "weights/raw_tensor.h"
#include "weights/unpickler.h"
#include "weights/zip_reader.h"

namespace attn::test {
namespace {

using namespace std::string_literals;

SafetensorsParts book_parts() { return SafetensorsParts::read(gpt_data("book.safetensors")); }

TEST(WeightsErrors, NotAWeightsFile) {
  TempDir dir;
  expect_weights_error(gpt_data("hf"), 2, {"hf", "is a directory"});
  expect_weights_error(dir.write("empty.safetensors", ""), 2, {"empty.safetensors", "is empty"});
  expect_weights_error(dir.write("text.pth", "hello, I am not a model\n"), 2,
                       {"text.pth", "neither safetensors", "torch.save"});
  expect_weights_error(dir.file("missing.safetensors"), 2, {"missing.safetensors", "cannot open"});
  expect_weights_error(dir.write("legacy.pth", "\x80\x02\x8a\x0a"s + std::string(20, 'x')), 2,
                       {"legacy.pth", "legacy torch.save format"});
}

TEST(WeightsErrors, TruncatedSafetensors) {
  TempDir dir;
  const std::string good = read_all(gpt_data("book.safetensors"));
  // Cut inside the header: its length runs past the end.
  expect_weights_error(dir.write("a.safetensors", good.substr(0, 100)), 2,
                       {"a.safetensors", "header length", "runs past the end"});
  // Cut inside the data: a tensor's offsets point outside it (named).
  expect_weights_error(dir.write("b.safetensors", good.substr(0, good.size() - 1000)), 2,
                       {"b.safetensors", "tensor '", "point outside the data"});
  // Fewer than 8 bytes.
  expect_weights_error(dir.write("c.safetensors", good.substr(0, 5)), 2, {"c.safetensors"});
}

TEST(WeightsErrors, HeaderLengthPastTheEnd) {
  TempDir dir;
  std::string bytes = read_all(gpt_data("book.safetensors"));
  bytes[5] = '\x01';  // the 64-bit length becomes ~2^40
  expect_weights_error(dir.write("long.safetensors", bytes), 2, {"long.safetensors", "header length 1099", "runs past the end"});
  SafetensorsParts parts = book_parts();
  std::string text = parts.bytes();
  text[9] = '!';  // a JSON header that is not JSON
  expect_weights_error(dir.write("bad.safetensors", text), 2, {"bad.safetensors", "not a JSON object"});
}

TEST(WeightsErrors, OffsetsOverlapOrPointOutside) {
  TempDir dir;
  SafetensorsParts parts = book_parts();
  parts.header["trf_blocks.1.norm1.shift"]["data_offsets"] = parts.header["trf_blocks.1.norm1.scale"]["data_offsets"];
  expect_weights_error(parts.write(dir, "overlap.safetensors"), 2,
                       {"overlap.safetensors", "trf_blocks.1.norm1.s", "overlaps tensor 'trf_blocks.1.norm1.s"});
  parts = book_parts();
  const uint64_t size = parts.data.size();
  parts.header["final_norm.shift"]["data_offsets"] = {size - 16, size + 16};
  expect_weights_error(parts.write(dir, "outside.safetensors"), 2,
                       {"outside.safetensors", "'final_norm.shift'", "point outside the data"});
  parts = book_parts();
  parts.header["final_norm.shift"]["data_offsets"] = {40, 8};
  expect_weights_error(parts.write(dir, "backwards.safetensors"), 2, {"'final_norm.shift'", "end before they begin"});
  parts = book_parts();
  parts.header["final_norm.shift"]["shape"] = {9};  // 36 bytes, but its offsets hold 32
  expect_weights_error(parts.write(dir, "bytes.safetensors"), 2, {"'final_norm.shift'", "hold 32 bytes", "need 36"});
}

TEST(WeightsErrors, MissingKeyIsNamed) {
  TempDir dir;
  for (const std::string key : {"trf_blocks.1.norm2.shift", "out_head.weight", "trf_blocks.0.att.W_key.bias",
                                "pos_emb.weight"}) {
    SafetensorsParts parts = book_parts();
    parts.header.erase(key);
    expect_weights_error(parts.write(dir, "m.safetensors"), 2, {"m.safetensors", "'" + key + "' is missing"});
  }
  // Hugging Face's: the prefix is part of the name.
  SafetensorsParts hf = SafetensorsParts::read(gpt_data("hf-prefixed-bf16.safetensors"));
  hf.header.erase("transformer.h.1.mlp.c_fc.bias");
  expect_weights_error(hf.write(dir, "hf.safetensors"), 2, {"'transformer.h.1.mlp.c_fc.bias' is missing"});
  // Neither model's keys at all.
  SafetensorsParts other = book_parts();
  other.header.erase("tok_emb.weight");
  expect_weights_error(other.write(dir, "o.safetensors"), 2, {"'tok_emb.weight' is missing", "Hugging Face"});
}

TEST(WeightsErrors, ShapeThatDisagreesNamesBoth) {
  TempDir dir;
  SafetensorsParts parts = book_parts();
  parts.header["trf_blocks.1.att.W_key.weight"]["shape"] = {4, 16};  // the same 256 bytes
  expect_weights_error(parts.write(dir, "s.safetensors"), 2,
                       {"'trf_blocks.1.att.W_key.weight' has shape (4, 16)", "(8, 8)", "emb_dim 8"});
  parts = book_parts();
  parts.header["trf_blocks.0.ff.layers.0.weight"]["shape"] = {8, 32};  // transposed
  expect_weights_error(parts.write(dir, "t.safetensors"), 2, {"'trf_blocks.0.ff.layers.0.weight' has shape (8, 32)", "(32, 8)"});
  parts = book_parts();
  parts.header["pos_emb.weight"]["shape"] = {32, 4};
  expect_weights_error(parts.write(dir, "p.safetensors"), 2, {"'pos_emb.weight' has shape (32, 4)", "(context_length, 8)"});
  // An unexpected key: load_state_dict(strict=True) refuses it.
  parts = book_parts();
  parts.header["trf_blocks.0.att.W_extra.weight"] = parts.header["trf_blocks.0.att.mask"];
  parts.header.erase("trf_blocks.0.att.mask");
  expect_weights_error(parts.write(dir, "u.safetensors"), 2, {"'trf_blocks.0.att.W_extra.weight' is not a key"});
}

TEST(WeightsErrors, DtypeThatCannotBeWidened) {
  TempDir dir;
  SafetensorsParts parts = book_parts();
  parts.header["trf_blocks.0.norm2.scale"]["dtype"] = "I32";  // the same 32 bytes
  expect_weights_error(parts.write(dir, "i.safetensors"), 2, {"'trf_blocks.0.norm2.scale'", "dtype I32", "cannot be widened"});
  parts = book_parts();
  parts.header["trf_blocks.0.norm2.scale"]["dtype"] = "F64";
  parts.header["trf_blocks.0.norm2.scale"]["shape"] = {4};
  expect_weights_error(parts.write(dir, "d.safetensors"), 2, {"'trf_blocks.0.norm2.scale'"});
  parts = book_parts();
  parts.header["trf_blocks.0.norm2.scale"]["dtype"] = "Q4";
  expect_weights_error(parts.write(dir, "q.safetensors"), 2, {"'trf_blocks.0.norm2.scale'", "unknown dtype 'Q4'"});
}

TEST(WeightsErrors, MaskMustBeTheCausalOne) {
  TempDir dir;
  SafetensorsParts parts = book_parts();
  const size_t begin = parts.header["trf_blocks.1.att.mask"]["data_offsets"][0].get<size_t>();
  parts.data[begin + (2 * 16 + 1) * 4 + 3] = '\x3f';  // element (2, 1): 0 becomes 0.5 (0x3f000000)
  expect_weights_error(parts.write(dir, "mask.safetensors"), 2,
                       {"'trf_blocks.1.att.mask' is not the causal mask", "diagonal=1", "element (2, 1)"});
  SafetensorsParts hf = SafetensorsParts::read(gpt_data("hf/model.safetensors"));
  const size_t hb = hf.header["h.0.attn.bias"]["data_offsets"][0].get<size_t>();
  hf.data[hb + 3 * 4 + 3] = '\x3f';  // element (0, 3) above the diagonal: 0 becomes 0.5
  expect_weights_error(hf.write(dir, "hfmask.safetensors"), 2, {"'h.0.attn.bias' is not the causal mask", "tril", "(0, 3)"});
}

// The pieces of book.pth, to put back together changed.
std::vector<std::pair<std::string, std::string>> pth_entries() {
  static const std::string bytes = read_all(gpt_data("book.pth"));
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : weights::read_zip({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, "book.pth"))
    out.emplace_back(e.name, std::string(reinterpret_cast<const char*>(e.data.data), e.data.size));
  return out;
}

void set_le(std::string& s, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s[at + static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

TEST(WeightsErrors, ZipEntryCompressedOrLyingAboutItsSize) {
  TempDir dir;
  const auto entries = pth_entries();
  const std::string good = stored_zip(entries);
  const size_t central = good.rfind("PK\x01\x02"s);  // the last entry's central directory record
  ASSERT_NE(central, std::string::npos);
  // The last entry (book/version) marked deflate, in both headers.
  std::string deflated = good;
  set_le(deflated, central + 10, 8, 2);
  const size_t local = static_cast<size_t>(weights::le32(reinterpret_cast<const uint8_t*>(good.data()) + central + 42));
  set_le(deflated, local + 8, 8, 2);
  expect_weights_error(dir.write("deflate.pth", deflated), 2, {"deflate.pth", "entry 'book/version'", "is compressed (method 8"});
  // Its local header says one byte more than the central directory.
  std::string lying = good;
  set_le(lying, local + 22, weights::le32(reinterpret_cast<const uint8_t*>(good.data()) + local + 22) + 1, 4);
  expect_weights_error(dir.write("lying.pth", lying), 2, {"lying.pth", "'book/version'", "lies about its size"});
  // Compressed and uncompressed sizes that differ.
  std::string sizes = good;
  set_le(sizes, central + 20, 1, 4);
  expect_weights_error(dir.write("sizes.pth", sizes), 2, {"'book/version'", "lies about its size"});
  // A record's first byte changed under its CRC-32 (book/data/3 comes before data/30 in the archive).
  std::string damaged = good;
  const size_t rec = good.find("book/data/3");
  damaged[rec + 11] = static_cast<char>(damaged[rec + 11] ^ 1);  // the name, then (no extra) the data
  expect_weights_error(dir.write("crc.pth", damaged), 2, {"crc.pth", "'book/data/3'", "CRC-32"});
  // A CRC-32 recorded as 0 was not computed (torch.save's compute_crc32=False): read, as
  // torch.load reads it.
  const size_t central_name = damaged.find("book/data/3", damaged.find("PK\x01\x02"s));
  set_le(damaged, central_name - 46 + 16, 0, 4);
  set_le(damaged, rec - 30 + 14, 0, 4);
  EXPECT_EQ(load_gpt_weights(dir.write("nocrc.pth", damaged), 2).cfg.n_layers, 2);
}

TEST(WeightsErrors, TruncatedPth) {
  TempDir dir;
  const std::string good = read_all(gpt_data("book.pth"));
  for (size_t keep : {good.size() / 2, good.size() - 10, size_t{30}})
    expect_weights_error(dir.write("cut.pth", good.substr(0, keep)), 2, {"cut.pth", "(zip)"});
  // A record missing from the archive.
  auto entries = pth_entries();
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].first == "book/data/5") entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(i));
  expect_weights_error(dir.write("norec.pth", stored_zip(entries)), 2, {"norec.pth", "'book/data/5' is missing"});
}

// A pickle naming a global torch.load(weights_only=True) refuses: refused at its GLOBAL, by
// name, and nothing runs (the command would create a file).
TEST(WeightsErrors, PickleWithADisallowedGlobal) {
  TempDir dir;
  const std::string marker = dir.file("ran");
  const std::string command = "touch " + marker;
  std::string arg = "X"s;
  for (int i = 0; i < 4; ++i) arg += static_cast<char>((command.size() >> (8 * i)) & 0xFF);
  arg += command;
  const std::vector<std::pair<std::string, std::string>> evil = {
      // clang-format off
      {"cos\nsystem\n", "os.system"}, {"cbuiltins\neval\n", "builtins.eval"},
      {"c__main__\nGPTModel\n", "__main__.GPTModel"}, {"ctorch\nload\n", "torch.load"}};
  // clang-format on
  for (const auto& [global, name] : evil) {
    const std::string pkl = "\x80\x02"s + global + "q\x00" + arg + "\x85R.";
    auto entries = pth_entries();
    for (auto& [n, data] : entries)
      if (n == "book/data.pkl") data = pkl;
    expect_weights_error(dir.write("evil.pth", stored_zip(entries)), 2,
                         {"evil.pth", "book/data.pkl", "at offset 2", "the global " + name, "weights_only=True"});
  }
  EXPECT_FALSE(std::filesystem::exists(marker));
}

// The unpickler alone: every refusal names the offset.
std::string unpickle_error(const std::string& pkl) {
  try {
    weights::unpickle_state_dict({reinterpret_cast<const uint8_t*>(pkl.data()), pkl.size()}, "p.pkl");
  } catch (const WeightsError& e) {
    expect_said_in_chinese(e);
    return e.what();
  }
  return "";
}

std::string pk_str(const std::string& s) {  // BINUNICODE
  std::string o = "X";
  for (int i = 0; i < 4; ++i) o += static_cast<char>((s.size() >> (8 * i)) & 0xFF);
  return o + s;
}
std::string pk_int(int v) { return "K"s + static_cast<char>(v); }  // BININT1

// {'a': _rebuild_tensor_v2(FloatStorage '0' of `numel`, 0, (size,), (1,), False, OrderedDict())}
std::string one_tensor_pickle(int numel, int size) {
  return "\x80\x02}("s + pk_str("a") + "ctorch._utils\n_rebuild_tensor_v2\n((" + pk_str("storage") +
         "ctorch\nFloatStorage\n" + pk_str("0") + pk_str("cpu") + pk_int(numel) + "tQ" + pk_int(0) +
         pk_int(size) + "\x85" + pk_int(1) + "\x85\x89" + "ccollections\nOrderedDict\n)RtRu.";
}

TEST(WeightsErrors, UnpicklerRefusals) {
  EXPECT_NE(unpickle_error("\x80\x02}q\x00"s).find("truncated"), std::string::npos);
  EXPECT_NE(unpickle_error("\x80\x02}\x94."s).find("at offset 3: unsupported pickle opcode 0x94"),
            std::string::npos);  // MEMOIZE
  EXPECT_NE(unpickle_error("\x80\x02h\x05."s).find("memo 5, never put"), std::string::npos);
  EXPECT_NE(unpickle_error("\x80\x02."s).find("empty stack"), std::string::npos);
  EXPECT_NE(unpickle_error("\x80\x02]q\x00."s).find("a list, not a state dict"), std::string::npos);
  EXPECT_NE(unpickle_error("\x80\x02}("s + pk_str("a") + pk_int(1) + "u.").find("'a' is an int, not a tensor"),
            std::string::npos);
  // A tensor whose view runs past its storage: 10 elements from offset 0 in a storage of 4.
  const std::string past = unpickle_error(one_tensor_pickle(4, 10));
  EXPECT_NE(past.find("run past its storage data/0 (4 elements)"), std::string::npos) << past;
  EXPECT_EQ(unpickle_error(one_tensor_pickle(4, 4)), "");  // the same within bounds reads
  // An allowed function a state dict does not use: refused, not called.
  EXPECT_NE(unpickle_error("\x80\x02"
                           "ctorch._utils\n_rebuild_sparse_tensor\n)R."s)
                .find("_rebuild_sparse_tensor"),
            std::string::npos);
  // NEWOBJ of anything but Parameter.
  EXPECT_NE(unpickle_error("\x80\x02"
                           "ccollections\nOrderedDict\n)\x81."s)
                .find("only torch.nn.Parameter"),
            std::string::npos);
}

TEST(WeightsErrors, UnpicklerReadsWhatTorchSaveWrites) {
  const std::string pkl = one_tensor_pickle(6, 5);
  const auto tensors = weights::unpickle_state_dict({reinterpret_cast<const uint8_t*>(pkl.data()), pkl.size()}, "p");
  ASSERT_EQ(tensors.size(), 1u);
  EXPECT_EQ(tensors[0].name, "a");
  EXPECT_EQ(tensors[0].storage_key, "0");
  EXPECT_EQ(tensors[0].storage_numel, 6);
  EXPECT_EQ(tensors[0].shape, (Shape{5}));
  EXPECT_EQ(tensors[0].dtype, weights::DType::F32);
}

// torch.save(OrderedDict(a=torch.nn.Parameter(torch.zeros(3)))): the data.pkl PyTorch 1.13
// writes for a Parameter (torch._utils._rebuild_parameter around _rebuild_tensor_v2).
TEST(WeightsErrors, UnpicklerReadsAParameter) {
  const std::string hex =
      "800263636f6c6c656374696f6e730a4f726465726564446963740a710029527101580100000061710263746f7263682e5f7574"
      "696c730a5f72656275696c645f706172616d657465720a710363746f7263682e5f7574696c730a5f72656275696c645f7465"
      "6e736f725f76320a71042828580700000073746f72616765710563746f7263680a466c6f617453746f726167650a71065801"
      "000000307107580300000063707571084b03747109514b004b0385710a4b0185710b8968002952710c74710d52710e886800"
      "2952710f877110527111732e";
  std::string pkl;
  for (size_t i = 0; i < hex.size(); i += 2) pkl += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  const auto tensors = weights::unpickle_state_dict({reinterpret_cast<const uint8_t*>(pkl.data()), pkl.size()}, "p");
  ASSERT_EQ(tensors.size(), 1u);
  EXPECT_EQ(tensors[0].name, "a");
  EXPECT_EQ(tensors[0].shape, (Shape{3}));
  EXPECT_EQ(tensors[0].storage_numel, 3);
}

// Memory stays linear in the pickle: one big tuple shared 100000 times through the memo and
// torch.Size is never copied; a pickle over the limit is refused before it is read.
TEST(WeightsErrors, UnpicklerMemoryIsBounded) {
  std::string pkl = "\x80\x02(" + std::string(100000, 'N') + "tq\x00"s;
  for (int i = 0; i < 100000; ++i) pkl += "ctorch\nSize\nh\x00\x85R"s;
  pkl += "0";  // POP: not among 1.13's opcodes, so refused there
  EXPECT_NE(unpickle_error(pkl).find("unsupported pickle opcode 0x30"), std::string::npos);
  EXPECT_NE(unpickle_error(std::string(5u << 20, 'N')).find("4 MiB"), std::string::npos);
}

TEST(WeightsErrors, HalfAndBfloat16AreExact) {
  // Every float16 value widens to the float32 of the same value (checked against the
  // arithmetic definition), and a bfloat16 is its bits on top.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = weights::half_to_float(static_cast<uint16_t>(h));
    const uint32_t e = (h >> 10) & 31, m = h & 1023;
    const float sign = (h & 0x8000) ? -1.0f : 1.0f;
    if (e == 31) {
      if (m == 0) EXPECT_EQ(f, sign * INFINITY);
      else EXPECT_TRUE(std::isnan(f) && (float_to_bits(f) & 0x400000u)) << h;  // quiet, as PyTorch's copy
      continue;
    }
    const float want = e == 0 ? sign * std::ldexp(static_cast<float>(m), -24)
                              : sign * std::ldexp(static_cast<float>(m + 1024), static_cast<int>(e) - 25);
    ASSERT_EQ(float_to_bits(f), float_to_bits(want)) << h;
  }
  EXPECT_EQ(float_to_bits(weights::bfloat16_to_float(0x3f80)), 0x3f800000u);
  EXPECT_EQ(float_to_bits(weights::bfloat16_to_float(0x8000)), 0x80000000u);  // -0
}

}  // namespace
}  // namespace attn::test
