#include "check/dump.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "input/embeddings.h"
#include "input/python_json.h"

namespace attn {

namespace {

using json = nlohmann::json;

using input_detail::fail;

// "line L, column C" of a byte offset (1-based, columns count bytes).
std::string position(const std::string& text, size_t offset) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') ++line, column = 1;
    else ++column;
  }
  return fmt::format("line {}, column {}", line, column);
}

// "attn_weights"[2][1]: where a value sits, as Python would index it.
std::string where(const std::string& name, const std::vector<int64_t>& index) {
  std::string out = "\"" + name + "\"";
  for (int64_t i : index) out += fmt::format("[{}]", i);
  return out;
}

std::string brief(const json& v) {
  std::string s = v.dump();
  return s.size() > 30 ? s.substr(0, 27) + "..." : s;
}

// One JSON value (nested lists of numbers, or a number) to a tensor, checking that the
// lists are rectangular and every cell is a number.
class TensorReader {
 public:
  TensorReader(const std::string& source, const std::string& name) : source_(source), name_(name) {}

  Tensor read(const json& v) {
    shape_of(v);
    std::vector<int64_t> index;
    cells(v, 0, index);
    return Tensor(shape_, std::move(data_));
  }

 private:
  [[noreturn]] void bad(const std::vector<int64_t>& index, const std::string& why) {
    fail(source_, where(name_, index) + ": " + why);
  }

  // The shape follows the first element at every depth; cells() checks the rest.
  void shape_of(const json& v) {
    const json* p = &v;
    while (p->is_array()) {
      shape_.push_back(static_cast<int64_t>(p->size()));
      if (p->empty()) break;
      p = &(*p)[0];
    }
  }

  void cells(const json& v, size_t depth, std::vector<int64_t>& index) {
    if (depth == shape_.size()) {
      if (v.is_array()) bad(index, fmt::format("a list where a number belongs (the first entries make the shape {})", shape_str(shape_)));
      data_.push_back(number(v, index));
      return;
    }
    if (!v.is_array())
      bad(index, fmt::format("{} where a list belongs: the rows are not all the same length "
                             "(the first entries make the shape {})",
                             brief(v), shape_str(shape_)));
    if (static_cast<int64_t>(v.size()) != shape_[depth])
      bad(index, fmt::format("a list of {} where {} belong: the rows are not all the same length "
                             "(the first entries make the shape {})",
                             v.size(), shape_[depth], shape_str(shape_)));
    for (size_t i = 0; i < v.size(); ++i) {
      index.push_back(static_cast<int64_t>(i));
      cells(v[i], depth + 1, index);
      index.pop_back();
    }
  }

  float number(const json& v, const std::vector<int64_t>& index) {
    constexpr float inf = std::numeric_limits<float>::infinity();
    if (v.is_number()) return static_cast<float>(v.get<double>());  // as torch.tensor rounds
    if (v.is_boolean()) return v.get<bool>() ? 1.0f : 0.0f;         // torch.tensor([True]) -> 1.
    if (v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      if (s == "inf" || s == "Infinity") return inf;
      if (s == "-inf" || s == "-Infinity") return -inf;
      if (s == "nan" || s == "NaN") return std::numeric_limits<float>::quiet_NaN();
    }
    bad(index, brief(v) + " is not a number (write numbers, or \"inf\", \"-inf\", \"nan\")");
  }

  const std::string& source_;
  const std::string& name_;
  Shape shape_;
  std::vector<float> data_;
};

// The chapter's tensors have at most 4 dimensions. Deeper nesting is refused before the JSON
// is parsed, so a hostile file cannot exhaust the stack.
constexpr int kMaxDepth = 16;

void check_depth(const std::string& text, const std::string& source) {
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
    } else if ((c == '[' || c == '{') && ++depth > kMaxDepth) {
      fail(source, position(text, i) + fmt::format(": lists nest more than {} levels deep; "
                                                   "the chapter's tensors have at most 4 dimensions",
                                                   kMaxDepth));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

Tensor to_tensor(const json& v, const std::string& source, const std::string& name) {
  return TensorReader(source, name).read(v);
}

// attn-walk's own output: the "data" of every step.
Dump from_walk_output(const json& doc, const std::string& source) {
  Dump d;
  d.stage = doc.value("stage", "");
  const auto& steps = doc.at("steps");
  if (!steps.is_array()) fail(source, "\"steps\" is not a list: expected attn-walk's --format json output");
  for (size_t i = 0; i < steps.size(); ++i) {
    const json& s = steps[i];
    if (!s.is_object() || !s.contains("name") || !s["name"].is_string() || !s.contains("data"))
      fail(source, fmt::format("steps[{}] has no \"name\" and \"data\": expected attn-walk's --format json output", i));
    const std::string name = s["name"].get<std::string>();
    d.tensors.emplace_back(name, to_tensor(s["data"], source, name));
    d.stages.push_back(s.contains("stage") && s["stage"].is_string() ? s["stage"].get<std::string>() : d.stage);
  }
  return d;
}

}  // namespace

Dump parse_dump(const std::string& text, const std::string& source) {
  check_depth(text, source);
  // Python's json.dump writes NaN, Infinity and -Infinity; they are read as "nan", "inf"
  // and "-inf" are (TensorReader::number).
  const StrictJson strict = python_json_to_strict(text);
  json doc;
  try {
    doc = json::parse(strict.text);
  } catch (const json::parse_error& e) {
    std::string detail = e.what();
    if (const auto colon = detail.find(": "); detail.rfind("[json.exception.", 0) == 0 && colon != std::string::npos)
      detail = detail.substr(colon + 2);
    const size_t at = strict.original_offset(e.byte > 0 ? e.byte - 1 : 0);
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) fail(source, "empty: expected a JSON object {\"step_name\": [...], ...}");
    fail(source, position(text, at) + ": invalid JSON: " + detail);
  } catch (const json::exception& e) {  // e.g. a number beyond double's range
    std::string detail = e.what();
    if (const auto b = detail.find("] "); b != std::string::npos) detail = detail.substr(b + 2);
    fail(source, "invalid JSON: " + detail);
  }
  if (!doc.is_object())
    fail(source, "expected a JSON object {\"step_name\": [...], ...}, e.g. "
                 "{\"queries\": [[0.1, 0.2], ...]}; got " +
                     std::string(doc.type_name()));
  if (doc.empty()) fail(source, "the object is empty: it names no step (see attn-walk --stage S --list-steps)");
  if (doc.contains("tool") && doc["tool"] == "attn-walk" && doc.contains("steps")) return from_walk_output(doc, source);
  Dump d;
  for (const auto& [name, value] : doc.items()) {
    d.tensors.emplace_back(name, to_tensor(value, source, name));
    d.stages.emplace_back();
  }
  return d;
}

Dump load_dump(const std::string& path) {
  std::string text;
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
    return parse_dump(text, "<stdin>");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open: " + std::string(std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) fail(path, "cannot read: " + std::string(std::strerror(errno)));
  return parse_dump(ss.str(), path);
}

}  // namespace attn
