#include "weights/weights_errors.h"

#include <cerrno>

#include "core/weights_error_templates.h"

namespace attn {

std::string weights_error_english(const std::string& id, const WeightsErrorVars& vars) {
  const auto& templates = weights_error_templates();
  const auto it = templates.find(id);
  const std::string& text = it == templates.end() ? id : it->second;
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const size_t close = text[i] == '{' ? text.find('}', i) : std::string::npos;
    const auto var = close == std::string::npos ? vars.end() : vars.find(text.substr(i + 1, close - i - 1));
    if (var == vars.end()) {
      out += text[i++];
      continue;
    }
    out += var->second;
    i = close + 1;
  }
  return out;
}

std::string weights_errno_name(int err) {
  switch (err) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case ENOTDIR: return "ENOTDIR";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case ELOOP: return "ELOOP";
    case EIO: return "EIO";
    case ENOMEM: return "ENOMEM";
    case EMFILE: return "EMFILE";
    default: return "";
  }
}

}  // namespace attn
