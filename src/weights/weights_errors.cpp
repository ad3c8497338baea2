#include "weights/weights_errors.h"

#include <cerrno>

namespace attn {

const std::map<std::string, std::string>& weights_error_templates() {
  // clang-format off
  static const std::map<std::string, std::string> templates = {
      // The file itself (mapped_file.cpp).
      {"cannot_open", "{path}: cannot open the weights file: {reason}"},
      {"cannot_read", "{path}: cannot read the weights file: {reason}"},
      {"cannot_map", "{path}: cannot map the weights file: {reason}"},
      {"is_directory", "{path}: is a directory; give the weights file itself (model.safetensors, or the .pth that torch.save wrote)"},
      {"not_regular_file", "{path}: is not a regular file; attn-walk maps a weights file, so it reads neither pipes nor devices"},
      {"empty_file", "{path}: is empty, not a weights file"},
      {"no_memory", "{path}: cannot read the weights file: not enough memory for its {bytes} bytes"},
      // Its format (gpt_weights.cpp).
      {"legacy_torch_save", "{path}: the legacy torch.save format (before PyTorch 1.6, or _use_new_zipfile_serialization=False); save it again with torch.save's default zip format"},
      {"not_weights_file", "{path}: not a weights file attn-walk reads: neither safetensors (an 8-byte header length, then a JSON header) nor PyTorch's zip format (torch.save)"},
      // torch.save's zip (torch_zip.cpp).
      {"zip_empty", "{path}: an empty zip archive, not a torch.save file"},
      {"zip_no_folder", "{path}: (zip) entry '{entry}' is not in an archive folder: not a torch.save file"},
      {"zip_no_pickle", "{path}: (zip) no entry '{entry}': not a torch.save file"},
      {"storage_missing", "{path}: '{key}': its storage record '{record}' is missing"},
      {"storage_size", "{path}: '{key}': its storage '{record}' holds {bytes} bytes, but the pickle says {numel} elements of {storage}"},
      {"zip_crc", "{path}: (zip) entry '{entry}': its bytes do not match its CRC-32 ({recorded} recorded, {found} found): the file is damaged"},
      // A zip archive (zip_reader.cpp).
      {"zip_truncated", "{path}: (zip) truncated: no end of central directory record"},
      {"zip_no_end_record", "{path}: (zip) no end of central directory record: the archive is truncated or damaged"},
      {"zip64_end_record", "{path}: (zip) the Zip64 end of central directory record at offset {offset} is missing or damaged"},
      {"zip_directory_outside", "{path}: (zip) the central directory (offset {offset}, {length} bytes) lies outside the file ({bytes} bytes): truncated?"},
      {"zip_too_many_entries", "{path}: (zip) the central directory claims {entries} entries, more than its {length} bytes hold"},
      {"zip_not_directory_entry", "{path}: (zip) central directory entry {index} (offset {offset}): not a central directory entry"},
      {"zip_entry_past_directory", "{path}: (zip) central directory entry {index} (offset {offset}): its name and fields run past the central directory"},
      {"zip_extra_past_entry", "{path}: (zip) entry '{entry}': an extra field runs past its entry"},
      {"zip64_extra_short", "{path}: (zip) entry '{entry}': its Zip64 extra field is too short"},
      {"zip_compressed", "{path}: (zip) entry '{entry}': is compressed (method {method}); torch.save stores its records uncompressed, and attn-walk reads only stored entries"},
      {"zip_deflated", "{path}: (zip) entry '{entry}': is compressed (method {method}, deflate); torch.save stores its records uncompressed, and attn-walk reads only stored entries"},
      {"zip_encrypted", "{path}: (zip) entry '{entry}': is encrypted"},
      {"zip_stored_sizes", "{path}: (zip) entry '{entry}': lies about its size: stored, yet {compressed} bytes compressed and {uncompressed} uncompressed"},
      {"zip_local_missing", "{path}: (zip) entry '{entry}': its local header (offset {offset}) is missing"},
      {"zip_local_past_end", "{path}: (zip) entry '{entry}': its local header runs past the end of the file"},
      {"zip_local_disagrees", "{path}: (zip) entry '{entry}': its local header (offset {offset}) disagrees with the central directory"},
      {"zip_local_sizes", "{path}: (zip) entry '{entry}': lies about its size: the central directory says {uncompressed} bytes, its local header {local}"},
      {"zip_data_past_end", "{path}: (zip) entry '{entry}': its {length} bytes at offset {offset} run past the end of the file ({bytes} bytes): truncated?"},
      // The pickle of torch.save's data.pkl (unpickler.cpp), refused at an opcode's offset.
      {"pk_truncated", "{path}: at offset {offset}: the pickle is truncated (it ends before its STOP)"},
      {"pk_truncated_global", "{path}: at offset {offset}: the pickle is truncated inside a GLOBAL"},
      {"pk_pop_empty", "{path}: at offset {offset}: the pickle pops an empty stack"},
      {"pk_read_empty", "{path}: at offset {offset}: the pickle reads an empty stack"},
      {"pk_no_mark", "{path}: at offset {offset}: the pickle has no MARK to pop to"},
      {"pk_not_tuple", "{path}: at offset {offset}: {what} is {kind}, not a tuple"},
      {"pk_not_int", "{path}: at offset {offset}: {what} is {kind}, not an int"},
      {"pk_global_refused", "{path}: at offset {offset}: the pickle names the global {global}, which torch.load(..., weights_only=True) refuses; attn-walk reads only a state dict's tensors and runs nothing from a file (save the model's state_dict(), not the model)"},
      {"pk_arguments", "{path}: at offset {offset}: {fn} with {n} arguments"},
      {"pk_not_storage", "{path}: at offset {offset}: {fn}'s first argument is {kind}, not a storage"},
      {"pk_dims", "{path}: at offset {offset}: {fn}: a tensor of {n} dimensions"},
      {"pk_size_stride", "{path}: at offset {offset}: {fn}: size and stride of different lengths"},
      {"pk_past_storage", "{path}: at offset {offset}: {fn}: the tensor's elements run past its storage data/{key} ({numel} elements)"},
      {"pk_negative", "{path}: at offset {offset}: {fn}: a negative size or stride"},
      {"pk_reduce_not_global", "{path}: at offset {offset}: REDUCE calls {kind}, not an allowed function"},
      {"pk_ordered_dict_arguments", "{path}: at offset {offset}: collections.OrderedDict with arguments: a state dict's is built empty"},
      {"pk_without_tensor", "{path}: at offset {offset}: {fn} without a tensor"},
      {"pk_call_unused", "{path}: at offset {offset}: the pickle calls {global}, which torch.load(weights_only=True) allows but a GPT-2 state dict does not use; attn-walk reads dense tensors only"},
      {"pk_newobj", "{path}: at offset {offset}: NEWOBJ of {global}: only torch.nn.Parameter may be instantiated"},
      {"pk_build_tensor", "{path}: at offset {offset}: BUILD of a tensor (the legacy set_ protocol): not a state dict attn-walk reads"},
      {"pk_build", "{path}: at offset {offset}: Can only build Tensor, parameter or dict objects, but got {kind}"},
      {"pk_persistent_id", "{path}: at offset {offset}: Only persistent_load of storage is allowed: a persistent id ('storage', class, key, location, numel)"},
      {"pk_persistent_class", "{path}: at offset {offset}: the persistent id's storage class is {global}"},
      {"pk_persistent_strings", "{path}: at offset {offset}: the persistent id's key and location are not strings"},
      {"pk_storage_numel", "{path}: at offset {offset}: a storage of {n} elements"},
      {"pk_append", "{path}: at offset {offset}: Can only append to lists, but got {kind}"},
      {"pk_extend", "{path}: at offset {offset}: Can only extend lists, but got {kind}"},
      {"pk_setitem", "{path}: at offset {offset}: SETITEM on {kind}"},
      {"pk_setitems", "{path}: at offset {offset}: SETITEMS on {kind}"},
      {"pk_setitems_odd", "{path}: at offset {offset}: SETITEMS with an odd number of items"},
      {"pk_long_int", "{path}: at offset {offset}: an integer of {n} bytes"},
      {"pk_memo", "{path}: at offset {offset}: the pickle gets memo {n}, never put"},
      {"pk_not_state_dict", "{path}: at offset {offset}: the pickle holds {kind}, not a state dict"},
      {"pk_key_kind", "{path}: at offset {offset}: the state dict has a key that is {kind}"},
      {"pk_value_kind", "{path}: at offset {offset}: the state dict's '{key}' is {kind}, not a tensor"},
      {"pk_opcode", "{path}: at offset {offset}: unsupported pickle opcode {opcode} (torch.load(weights_only=True) refuses it too)"},
      {"pickle_too_large", "{path}: a pickle of {bytes} bytes; a state dict's is far smaller (attn-walk reads up to 4 MiB)"},
      // safetensors (safetensors.cpp).
      {"st_truncated", "{path}: truncated: {bytes} bytes, shorter than safetensors' 8-byte header length"},
      {"st_header_past_end", "{path}: the header length {length} (the first 8 bytes) runs past the end of the file ({bytes} bytes): truncated, or not safetensors"},
      {"st_header_too_long", "{path}: the header length {length} exceeds safetensors' limit of 100000000 bytes"},
      {"st_header_not_object", "{path}: the safetensors header (bytes 8 to {end}) is not a JSON object"},
      {"st_entry_fields", "{path}: tensor '{key}': its header entry needs \"dtype\", \"shape\" and \"data_offsets\": [begin, end]"},
      {"st_unknown_dtype", "{path}: tensor '{key}': unknown dtype '{dtype}'"},
      {"st_shape_not_sizes", "{path}: tensor '{key}': shape {shape} is not a list of sizes"},
      {"st_shape_dims", "{path}: tensor '{key}': shape {shape} has more than 8 dimensions"},
      {"st_offsets_not_numbers", "{path}: tensor '{key}': data_offsets {offsets} are not two byte offsets"},
      {"st_offsets_backwards", "{path}: tensor '{key}': data_offsets {offsets} end before they begin"},
      {"st_offsets_outside", "{path}: tensor '{key}': data_offsets {offsets} point outside the data ({bytes} bytes after the header): truncated file?"},
      {"st_offsets_size", "{path}: tensor '{key}': data_offsets {offsets} hold {bytes} bytes, but dtype {dtype} and shape {shape} need {need}"},
      {"st_offsets_size_overflow", "{path}: tensor '{key}': data_offsets {offsets} hold {bytes} bytes, but dtype {dtype} and shape {shape} need more than the file"},
      {"st_overlap", "{path}: tensor '{key}' (bytes {begin} to {end}) overlaps tensor '{other}' (bytes {other_begin} to {other_end})"},
      // The model in it (gpt_weights.cpp).
      {"not_gpt_state_dict", "{path}: the key '{key}' is missing: neither chapter 4's GPTModel state dict (tok_emb.weight, trf_blocks.0...) nor Hugging Face's GPT-2 (wte.weight, h.0...)"},
      {"key_missing", "{path}: the key '{key}' is missing"},
      {"no_blocks", "{path}: no transformer blocks: the key '{key}' is missing"},
      {"unexpected_key", "{path}: '{key}' is not a key of chapter 4's GPTModel (load_state_dict would refuse it as unexpected)"},
      {"unexpected_key_no_bias", "{path}: '{key}' is not a key of chapter 4's GPTModel without qkv_bias (block 0 has no att.W_query.bias) (load_state_dict would refuse it as unexpected)"},
      {"not_embedding_table", "{path}: '{key}' has shape {shape}, not an embedding table (vocab_size, emb_dim)"},
      {"pos_emb_shape", "{path}: '{key}' has shape {shape}, but (context_length, {width}) is what '{tok}' {tok_shape} gives it"},
      {"shape_own", "{path}: '{key}' has shape {shape}, but {want} is what its own gives it"},
      {"shape_from_context", "{path}: '{key}' has shape {shape}, but {want} is what the context length gives it"},
      {"shape_from_emb_dim", "{path}: '{key}' has shape {shape}, but {want} is what emb_dim {width} (from {from}) gives it"},
      {"shape_from_n_embd", "{path}: '{key}' has shape {shape}, but {want} is what n_embd {width} (from {from}) gives it"},
      {"shape_from_tok_emb", "{path}: '{key}' has shape {shape}, but {want} is what tok_emb.weight {want} gives it"},
      {"dtype_not_float", "{path}: '{key}' is of dtype {dtype}, which cannot be widened to float32 exactly (attn-walk reads float32, float16 and bfloat16 parameters)"},
      {"mask_dtype", "{path}: '{key}' is of dtype {dtype}, not a mask's"},
      {"mask_not_causal", "{path}: '{key}' is not the causal mask {mask}: element ({i}, {j}) is {value}, not {want}"},
      {"mask_not_causal_hf", "{path}: '{key}' is not the causal mask {mask} that GPT-2's attention registers: element ({i}, {j}) is {value}, not {want}"},
      // The head count (gpt_weights.cpp).
      {"heads_not_divisor", "--heads {heads} does not divide the width {width} of {path} (d_out must be divisible by num_heads)"},
      {"heads_unknown", "cannot tell the number of attention heads of {path} (width {width}, not one of GPT-2's, and no config.json with n_head beside it): give --heads"},
      {"config_too_large", "{config}: over 1 MiB, not the Hugging Face config beside {path}"},
      {"config_not_object", "{config}: not a JSON object (the Hugging Face config beside {path})"},
      {"config_width", "{config}: n_embd {n_embd} disagrees with the width {width} of {path}"},
      {"config_heads", "{config}: n_head {n_head} does not divide the width {width} of {path}"},
  };
  // clang-format on
  return templates;
}

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
