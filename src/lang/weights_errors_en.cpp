// The weights readers' errors in English: "weights.err.<id>", the readers' own templates
// (core/weights_error_templates.h), and the words their placeholders are said with (the
// reasons the system gives, "weights.reason.<errno>", as strerror says them; kinds; parts).
#include "lang/weights_errors.h"

#include "core/weights_error_templates.h"

namespace attn {

LangTable weights_errors_en() {
  LangTable t;
  t.code = "en";
  // clang-format off
  t.ui = {
      {"weights.reason.ENOENT", "No such file or directory"},
      {"weights.reason.EACCES", "Permission denied"},
      {"weights.reason.ENOTDIR", "Not a directory"},
      {"weights.reason.ENAMETOOLONG", "File name too long"},
      {"weights.reason.ELOOP", "Too many levels of symbolic links"},
      {"weights.reason.EIO", "Input/output error"},
      {"weights.reason.ENOMEM", "Cannot allocate memory"},
      {"weights.reason.EMFILE", "Too many open files"},
      {"weights.kind.none", "None"},
      {"weights.kind.bool", "a bool"},
      {"weights.kind.int", "an int"},
      {"weights.kind.str", "a string"},
      {"weights.kind.tuple", "a tuple"},
      {"weights.kind.list", "a list"},
      {"weights.kind.dict", "a dict"},
      {"weights.kind.set", "a set"},
      {"weights.kind.global", "a global"},
      {"weights.kind.storage", "a storage"},
      {"weights.kind.tensor", "a tensor"},
      {"weights.kind.parameter", "a Parameter"},
      {"weights.what.storage_offset", "the storage offset"},
      {"weights.what.size", "the size"},
      {"weights.what.stride", "the stride"},
      {"weights.what.a_size", "a size"},
      {"weights.what.a_stride", "a stride"},
      {"weights.what.reduce_arguments", "REDUCE's arguments"},
      {"weights.what.size_argument", "torch.Size's argument"},
      {"weights.what.newobj_arguments", "NEWOBJ's arguments"},
      {"weights.what.persistent_id", "the persistent id"},
      {"weights.what.storage_numel", "the storage's numel"},
  };
  // clang-format on
  for (const auto& [id, text] : weights_error_templates()) t.ui["weights.err." + id] = text;
  return t;
}

}  // namespace attn
