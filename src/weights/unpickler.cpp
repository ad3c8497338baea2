#include "weights/unpickler.h"

#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "weights/gpt_weights.h"

namespace attn::weights {

namespace {

// A state dict's pickle is small (GPT-2 XL's: about 100 KB); this bounds the objects a hostile
// one can make (each object's node is at most ~64 bytes: at most ~256 MiB at this limit).
constexpr size_t kMaxPickleBytes = size_t{4} << 20;

// What an allowed global is, for REDUCE, NEWOBJ and persistent ids to dispatch on.
enum class PickleGlobal : int64_t {
  OrderedDict,
  Parameter,
  Size,
  RebuildTensorV2,
  RebuildTensor,
  RebuildParameter,
  Storage,
  OtherAllowed
};

struct StorageClass {
  DType dtype;
  size_t item;  // bytes per element
};

// torch/_weights_only_unpickler.py's _get_allowed_globals(), by name.
bool allowed_global(const std::string& name, PickleGlobal& kind, StorageClass& storage) {
  if (name == "collections.OrderedDict") return kind = PickleGlobal::OrderedDict, true;
  if (name == "torch.nn.parameter.Parameter") return kind = PickleGlobal::Parameter, true;
  if (name == "torch.Size") return kind = PickleGlobal::Size, true;
  if (name == "torch._utils._rebuild_tensor_v2") return kind = PickleGlobal::RebuildTensorV2, true;
  if (name == "torch._utils._rebuild_tensor") return kind = PickleGlobal::RebuildTensor, true;
  if (name == "torch._utils._rebuild_parameter") return kind = PickleGlobal::RebuildParameter, true;
  static const char* const other[] = {
      "torch.serialization._get_layout", "torch.Tensor", "torch._utils._rebuild_sparse_tensor",
      "torch._utils._rebuild_meta_tensor_no_storage", "torch._utils._rebuild_sparse_csr_tensor",
      "torch.complex32", "torch.complex64", "torch.complex128", "torch.float16", "torch.float32",
      "torch.float64", "torch.int8", "torch.int16", "torch.int32", "torch.int64",
      "torch.storage.TypedStorage"};
  for (const char* o : other)
    if (name == o) return kind = PickleGlobal::OtherAllowed, true;
  if (name == "torch.storage.UntypedStorage")
    return kind = PickleGlobal::Storage, storage = {DType::U8, 1}, true;
  static const std::pair<const char*, StorageClass> types[] = {
      // clang-format off
      {"Float", {DType::F32, 4}},   {"Double", {DType::F64, 8}},         {"Half", {DType::F16, 2}},
      {"BFloat16", {DType::BF16, 2}}, {"Long", {DType::I64, 8}},         {"Int", {DType::I32, 4}},
      {"Short", {DType::I16, 2}},   {"Char", {DType::I8, 1}},            {"Byte", {DType::U8, 1}},
      {"Bool", {DType::Bool, 1}},   {"ComplexFloat", {DType::Other, 8}}, {"ComplexDouble", {DType::Other, 16}},
      {"QInt32", {DType::Other, 4}}, {"QInt8", {DType::Other, 1}},       {"QUInt8", {DType::Other, 1}},
      {"QUInt4x2", {DType::Other, 1}}, {"QUInt2x4", {DType::Other, 1}}};
  // clang-format on
  for (const char* prefix : {"torch.", "torch.cuda."}) {
    const std::string p = prefix;
    if (name.compare(0, p.size(), p) != 0) continue;
    const std::string rest = name.substr(p.size());
    for (const auto& [type, cls] : types) {
      const bool quantized = type[0] == 'Q';
      if (rest == std::string(type) + "Storage" && !(quantized && p == "torch.cuda."))
        return kind = PickleGlobal::Storage, storage = cls, true;
      const bool no_tensor = quantized || std::string(type).rfind("Complex", 0) == 0;
      if (!no_tensor && rest == std::string(type) + "Tensor") return kind = PickleGlobal::OtherAllowed, true;
    }
  }
  for (const char* prefix : {"torch.sparse.", "torch.cuda.sparse."}) {
    const std::string p = prefix;
    if (name.compare(0, p.size(), p) != 0) continue;
    for (const char* type : {"Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte"})
      if (name.substr(p.size()) == std::string(type) + "Tensor") return kind = PickleGlobal::OtherAllowed, true;
  }
  return false;
}

enum class PK : uint8_t {
  None,
  Bool,
  Int,
  Str,
  Tuple,
  List,
  Dict,
  Set,
  Global,
  Storage,
  Tensor,
  Param
};

// The kind's id, for the languages' words ("weights.kind.<id>").
const char* pickle_kind_id(PK k) {
  switch (k) {
    case PK::None: return "none";
    case PK::Bool: return "bool";
    case PK::Int: return "int";
    case PK::Str: return "str";
    case PK::Tuple: return "tuple";
    case PK::List: return "list";
    case PK::Dict: return "dict";
    case PK::Set: return "set";
    case PK::Global: return "global";
    case PK::Storage: return "storage";
    case PK::Tensor: return "tensor";
    case PK::Param: return "parameter";
  }
  return "";
}

// What a refused tuple or int is, by its id: its English words ("weights.what.<id>" in the
// languages).
const char* pickle_what_text(const std::string& what) {
  static const std::map<std::string, const char*> words = {
      {"storage_offset", "the storage offset"}, {"size", "the size"}, {"stride", "the stride"}, {"a_size", "a size"}, {"a_stride", "a stride"}, {"reduce_arguments", "REDUCE's arguments"}, {"size_argument", "torch.Size's argument"}, {"newobj_arguments", "NEWOBJ's arguments"}, {"persistent_id", "the persistent id"}, {"storage_numel", "the storage's numel"}};
  const auto it = words.find(what);
  return it == words.end() ? "?" : it->second;
}

const char* pk_name(PK k) {
  switch (k) {
    case PK::None: return "None";
    case PK::Bool: return "a bool";
    case PK::Int: return "an int";
    case PK::Str: return "a string";
    case PK::Tuple: return "a tuple";
    case PK::List: return "a list";
    case PK::Dict: return "a dict";
    case PK::Set: return "a set";
    case PK::Global: return "a global";
    case PK::Storage: return "a storage";
    case PK::Tensor: return "a tensor";
    case PK::Param: return "a Parameter";
  }
  return "?";
}

// One object: ints and bools in v; a string or global's name as text[a, a + b); a container's
// items in containers[a] (a dict's as key, value pairs; v = 1 for an OrderedDict); a storage
// in storages[a], a tensor in tensors[a]; a Parameter's tensor is node a.
struct PNode {
  PK kind;
  int64_t v;
  uint32_t a, b;
};

struct PickleStorage {
  std::string key, cls;
  StorageClass type;
  int64_t numel;
};

class RestrictedUnpickler {
 public:
  RestrictedUnpickler(Bytes pickle, const std::string& where) : p_(pickle), where_(where) {}

  std::vector<PickledTensor> run();

 private:
  Bytes p_;
  std::string where_;
  size_t pos_ = 0, op_at_ = 0;
  std::vector<PNode> nodes_;
  std::string text_;
  std::vector<std::vector<uint32_t>> containers_;
  std::vector<PickleStorage> storages_;
  std::vector<PickledTensor> tensors_;
  std::vector<uint32_t> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint32_t, uint32_t> memo_;

  // Refuse the pickle at the current opcode: message `id` of weights_errors.cpp (the file and the
  // offset added to `vars`).
  [[noreturn]] void fail(const char* id, WeightsErrorVars vars = {}) const {
    vars["path"] = where_;
    vars["offset"] = std::to_string(op_at_);
    throw WeightsError(id, std::move(vars));
  }
  // The placeholders that say what kind of object a node is: {kind} ("a list") and {kind_id}
  // ("list"), which the languages say in their words ("weights.kind.list").
  static WeightsErrorVars kind_of(PK k, WeightsErrorVars vars = {}) {
    vars["kind"] = pk_name(k);
    vars["kind_id"] = pickle_kind_id(k);
    return vars;
  }
  const uint8_t* take(size_t n) {
    if (p_.size - pos_ < n) {
      op_at_ = pos_;
      fail("pk_truncated");
    }
    const uint8_t* at = p_.data + pos_;
    pos_ += n;
    return at;
  }
  std::string line() {  // GLOBAL's module and name, each up to a newline
    const size_t start = pos_;
    while (pos_ < p_.size && p_.data[pos_] != '\n') ++pos_;
    if (pos_ == p_.size) fail("pk_truncated_global");
    ++pos_;
    return std::string(reinterpret_cast<const char*>(p_.data + start), pos_ - 1 - start);
  }
  uint32_t push_node(PNode n) {
    nodes_.push_back(n);
    const auto id = static_cast<uint32_t>(nodes_.size() - 1);
    stack_.push_back(id);
    return id;
  }
  uint32_t push_text(PK kind, const std::string& s, int64_t v = 0) {
    const auto a = static_cast<uint32_t>(text_.size());
    text_ += s;
    return push_node({kind, v, a, static_cast<uint32_t>(s.size())});
  }
  uint32_t push_container(PK kind, std::vector<uint32_t> items, int64_t v = 0) {
    containers_.push_back(std::move(items));
    return push_node({kind, v, static_cast<uint32_t>(containers_.size() - 1), 0});
  }
  std::string text(const PNode& n) const { return text_.substr(n.a, n.b); }
  uint32_t pop() {
    if (stack_.empty() || (!marks_.empty() && stack_.size() == marks_.back())) fail("pk_pop_empty");
    const uint32_t id = stack_.back();
    stack_.pop_back();
    return id;
  }
  uint32_t top() {
    if (stack_.empty() || (!marks_.empty() && stack_.size() == marks_.back())) fail("pk_read_empty");
    return stack_.back();
  }
  std::vector<uint32_t> pop_mark() {
    if (marks_.empty()) fail("pk_no_mark");
    std::vector<uint32_t> items(stack_.begin() + static_cast<std::ptrdiff_t>(marks_.back()), stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return items;
  }
  const PNode& node(uint32_t id) const { return nodes_[id]; }
  // `what`: an id of pickle_what_text()'s, what the tuple is ("size": the size).
  const std::vector<uint32_t>& tuple_items(uint32_t id, const char* what) {
    if (node(id).kind != PK::Tuple)
      fail("pk_not_tuple", kind_of(node(id).kind, {{"what", pickle_what_text(what)}, {"what_id", what}}));
    return containers_[node(id).a];
  }
  int64_t int_of(uint32_t id, const char* what) {
    if (node(id).kind != PK::Int && node(id).kind != PK::Bool)
      fail("pk_not_int", kind_of(node(id).kind, {{"what", pickle_what_text(what)}, {"what_id", what}}));
    return node(id).v;
  }
  std::string global_name(uint32_t id) const {
    return node(id).kind == PK::Global ? text(node(id)) : std::string(pk_name(node(id).kind));
  }

  void op_global();
  void op_reduce();
  void op_newobj();
  void op_build();
  void op_persid();
  uint32_t rebuild_tensor(const std::vector<uint32_t>& args, const char* fn);
};

void RestrictedUnpickler::op_global() {
  const std::string module = line(), name = line();
  const std::string full = module + "." + name;
  PickleGlobal kind;
  StorageClass storage{DType::Other, 0};
  if (!allowed_global(full, kind, storage))
    fail("pk_global_refused", {{"global", full}});
  const uint32_t id = push_text(PK::Global, full, static_cast<int64_t>(kind));
  if (kind == PickleGlobal::Storage) {  // keep the element type beside the name
    storages_.push_back({"", full, storage, 0});
    nodes_[id].v = static_cast<int64_t>(kind) | (static_cast<int64_t>(storages_.size() - 1) << 8);
  }
}

uint32_t RestrictedUnpickler::rebuild_tensor(const std::vector<uint32_t>& args, const char* fn) {
  if (args.size() < 4) fail("pk_arguments", {{"fn", fn}, {"n", std::to_string(args.size())}});
  if (node(args[0]).kind != PK::Storage) fail("pk_not_storage", kind_of(node(args[0]).kind, {{"fn", fn}}));
  const PickleStorage& st = storages_[node(args[0]).a];
  PickledTensor t;
  t.storage_key = st.key;
  t.storage_class = st.cls;
  t.dtype = st.type.dtype;
  t.storage_numel = st.numel;
  t.storage_offset = int_of(args[1], "storage_offset");
  const auto& size = tuple_items(args[2], "size");
  const auto& stride = tuple_items(args[3], "stride");
  if (size.size() > 8) fail("pk_dims", {{"fn", fn}, {"n", std::to_string(size.size())}});
  if (size.size() != stride.size()) fail("pk_size_stride", {{"fn", fn}});
  for (size_t d = 0; d < size.size(); ++d) {
    t.shape.push_back(int_of(size[d], "a_size"));
    t.stride.push_back(int_of(stride[d], "a_stride"));
  }
  // Every element it views lies inside the storage (storage numels are at most 2^48, so no sum
  // below overflows: each term is checked against the storage before it is added).
  const WeightsErrorVars past = {{"fn", fn}, {"key", st.key}, {"numel", std::to_string(st.numel)}};
  if (t.storage_offset < 0 || t.storage_offset > t.storage_numel) fail("pk_past_storage", past);
  bool empty = false;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (t.shape[d] < 0 || t.stride[d] < 0) fail("pk_negative", {{"fn", fn}});
    if (t.shape[d] == 0) empty = true;
  }
  if (!empty) {
    int64_t last = t.storage_offset;
    for (size_t d = 0; d < t.shape.size(); ++d) {
      const int64_t reach = t.shape[d] - 1;
      if (reach > 0 && t.stride[d] > 0 && (reach > t.storage_numel || t.stride[d] > t.storage_numel / reach))
        fail("pk_past_storage", past);
      last += reach * t.stride[d];
      if (last >= t.storage_numel) fail("pk_past_storage", past);
    }
  }
  tensors_.push_back(std::move(t));
  nodes_.push_back({PK::Tensor, 0, static_cast<uint32_t>(tensors_.size() - 1), 0});
  return static_cast<uint32_t>(nodes_.size() - 1);
}

void RestrictedUnpickler::op_reduce() {
  const uint32_t args_id = pop();
  const uint32_t func = top();
  if (node(func).kind != PK::Global)
    fail("pk_reduce_not_global", kind_of(node(func).kind));
  const auto kind = static_cast<PickleGlobal>(node(func).v & 0xFF);
  const auto& args = tuple_items(args_id, "reduce_arguments");
  uint32_t result = 0;
  switch (kind) {
    case PickleGlobal::OrderedDict:
      if (!args.empty()) fail("pk_ordered_dict_arguments");
      containers_.emplace_back();
      nodes_.push_back({PK::Dict, 1, static_cast<uint32_t>(containers_.size() - 1), 0});
      result = static_cast<uint32_t>(nodes_.size() - 1);
      break;
    case PickleGlobal::Size:  // torch.Size(tuple): the same (immutable) tuple, shared
      if (args.size() != 1) fail("pk_arguments", {{"fn", "torch.Size"}, {"n", std::to_string(args.size())}});
      tuple_items(args[0], "size_argument");
      result = args[0];
      break;
    case PickleGlobal::RebuildTensorV2:
      if (args.size() != 6 && args.size() != 7)
        fail("pk_arguments", {{"fn", "torch._utils._rebuild_tensor_v2"}, {"n", std::to_string(args.size())}});
      result = rebuild_tensor(args, "torch._utils._rebuild_tensor_v2");
      break;
    case PickleGlobal::RebuildTensor:
      if (args.size() != 4)
        fail("pk_arguments", {{"fn", "torch._utils._rebuild_tensor"}, {"n", std::to_string(args.size())}});
      result = rebuild_tensor(args, "torch._utils._rebuild_tensor");
      break;
    case PickleGlobal::RebuildParameter:
      if (args.size() != 3 || node(args[0]).kind != PK::Tensor)
        fail("pk_without_tensor", {{"fn", "torch._utils._rebuild_parameter"}});
      nodes_.push_back({PK::Param, 0, args[0], 0});
      result = static_cast<uint32_t>(nodes_.size() - 1);
      break;
    default:
      fail("pk_call_unused", {{"global", global_name(func)}});
  }
  stack_.back() = result;
}

void RestrictedUnpickler::op_newobj() {
  const uint32_t args_id = pop();
  const uint32_t cls = pop();
  if (node(cls).kind != PK::Global || static_cast<PickleGlobal>(node(cls).v & 0xFF) != PickleGlobal::Parameter)
    fail("pk_newobj", {{"global", global_name(cls)}});
  const auto& args = tuple_items(args_id, "newobj_arguments");
  if (args.empty() || node(args[0]).kind != PK::Tensor) fail("pk_without_tensor", {{"fn", "torch.nn.Parameter"}});
  push_node({PK::Param, 0, args[0], 0});
}

void RestrictedUnpickler::op_build() {
  pop();  // the state: a Parameter's (requires_grad, hooks), an OrderedDict's _metadata
  const PNode& inst = node(top());
  if (inst.kind == PK::Param) return;
  if (inst.kind == PK::Dict && inst.v == 1) return;
  if (inst.kind == PK::Tensor) fail("pk_build_tensor");
  fail("pk_build", kind_of(inst.kind));
}

void RestrictedUnpickler::op_persid() {
  // torch.load's persistent_load: ('storage', storage class, key, location, numel).
  const uint32_t pid = pop();
  const auto& t = tuple_items(pid, "persistent_id");
  if (t.size() != 5 || node(t[0]).kind != PK::Str || text(node(t[0])) != "storage")
    fail("pk_persistent_id");
  const PNode& cls = node(t[1]);
  if (cls.kind != PK::Global || static_cast<PickleGlobal>(cls.v & 0xFF) != PickleGlobal::Storage)
    fail("pk_persistent_class", {{"global", global_name(t[1])}});
  if (node(t[2]).kind != PK::Str || node(t[3]).kind != PK::Str)
    fail("pk_persistent_strings");
  PickleStorage st = storages_[static_cast<size_t>(cls.v >> 8)];
  st.key = text(node(t[2]));
  st.numel = int_of(t[4], "storage_numel");
  if (st.numel < 0 || st.numel > (int64_t{1} << 48)) fail("pk_storage_numel", {{"n", std::to_string(st.numel)}});
  storages_.push_back(std::move(st));
  push_node({PK::Storage, 0, static_cast<uint32_t>(storages_.size() - 1), 0});
}

std::vector<PickledTensor> RestrictedUnpickler::run() {
  if (p_.size > kMaxPickleBytes)
    throw WeightsError("pickle_too_large", {{"path", where_}, {"bytes", std::to_string(p_.size)}});
  while (true) {
    op_at_ = pos_;
    const uint8_t op = *take(1);
    // clang-format off
    switch (op) {
      case 0x80: take(1); break;                      // PROTO
      case 'c': op_global(); break;                   // GLOBAL
      case 0x81: op_newobj(); break;                  // NEWOBJ
      case 'R': op_reduce(); break;                   // REDUCE
      case 'b': op_build(); break;                    // BUILD
      case 'a': {                                     // APPEND
        const uint32_t item = pop();
        if (node(top()).kind != PK::List)
          fail("pk_append", kind_of(node(top()).kind));
        containers_[node(top()).a].push_back(item);
        break;
      }
      case 'e': {                                     // APPENDS
        auto items = pop_mark();
        if (node(top()).kind != PK::List)
          fail("pk_extend", kind_of(node(top()).kind));
        auto& list = containers_[node(top()).a];
        list.insert(list.end(), items.begin(), items.end());
        break;
      }
      case 's': {                                     // SETITEM
        const uint32_t v = pop(), k = pop();
        if (node(top()).kind != PK::Dict) fail("pk_setitem", kind_of(node(top()).kind));
        auto& d = containers_[node(top()).a];
        d.push_back(k);
        d.push_back(v);
        break;
      }
      case 'u': {                                     // SETITEMS
        auto items = pop_mark();
        if (node(top()).kind != PK::Dict) fail("pk_setitems", kind_of(node(top()).kind));
        if (items.size() % 2) fail("pk_setitems_odd");
        auto& d = containers_[node(top()).a];
        d.insert(d.end(), items.begin(), items.end());
        break;
      }
      case '(': marks_.push_back(stack_.size()); break;  // MARK
      case 't': push_container(PK::Tuple, pop_mark()); break;  // TUPLE
      case 0x85: { const uint32_t a = pop(); push_container(PK::Tuple, {a}); break; }  // TUPLE1
      case 0x86: { const uint32_t b = pop(), a = pop(); push_container(PK::Tuple, {a, b}); break; }
      case 0x87: { const uint32_t c = pop(), b = pop(), a = pop(); push_container(PK::Tuple, {a, b, c}); break; }
      case 'N': push_node({PK::None, 0, 0, 0}); break;
      case 0x89: push_node({PK::Bool, 0, 0, 0}); break;  // NEWFALSE
      case 0x88: push_node({PK::Bool, 1, 0, 0}); break;  // NEWTRUE
      case ')': push_container(PK::Tuple, {}); break;    // EMPTY_TUPLE
      case ']': push_container(PK::List, {}); break;     // EMPTY_LIST
      case '}': push_container(PK::Dict, {}); break;     // EMPTY_DICT
      case 0x8f: push_container(PK::Set, {}); break;     // EMPTY_SET
      case 'J': push_node({PK::Int, static_cast<int32_t>(le32(take(4))), 0, 0}); break;  // BININT
      case 'K': push_node({PK::Int, *take(1), 0, 0}); break;                            // BININT1
      case 'M': push_node({PK::Int, le16(take(2)), 0, 0}); break;                       // BININT2
      case 0x8a: {                                    // LONG1: little-endian two's complement
        const uint8_t n = *take(1);
        const uint8_t* d = take(n);
        if (n > 8) fail("pk_long_int", {{"n", std::to_string(n)}});
        uint64_t u = 0;
        for (int i = n - 1; i >= 0; --i) u = (u << 8) | d[i];
        if (n > 0 && n < 8 && (d[n - 1] & 0x80)) u |= ~uint64_t{0} << (8 * n);
        push_node({PK::Int, static_cast<int64_t>(u), 0, 0});
        break;
      }
      case 'X': {                                     // BINUNICODE
        const uint32_t n = le32(take(4));
        const uint8_t* s = take(n);
        push_text(PK::Str, std::string(reinterpret_cast<const char*>(s), n));
        break;
      }
      case 'U': {                                     // SHORT_BINSTRING
        const uint8_t n = *take(1);
        const uint8_t* s = take(n);
        push_text(PK::Str, std::string(reinterpret_cast<const char*>(s), n));
        break;
      }
      case 'Q': op_persid(); break;                   // BINPERSID
      case 'h': case 'j': {                           // BINGET, LONG_BINGET
        const uint32_t i = op == 'h' ? *take(1) : le32(take(4));
        const auto it = memo_.find(i);
        if (it == memo_.end()) fail("pk_memo", {{"n", std::to_string(i)}});
        stack_.push_back(it->second);
        break;
      }
      case 'q': case 'r': {                           // BINPUT, LONG_BINPUT
        const uint32_t i = op == 'q' ? *take(1) : le32(take(4));
        memo_[i] = top();
        break;
      }
      case '.': {                                     // STOP
        const uint32_t result = pop();
        if (node(result).kind != PK::Dict)
          fail("pk_not_state_dict", kind_of(node(result).kind));
        // The dict's items, a key set again keeping its first place and its last value.
        std::vector<PickledTensor> out;
        std::unordered_map<std::string, size_t> seen;
        const auto& items = containers_[node(result).a];
        for (size_t i = 0; i + 1 < items.size(); i += 2) {
          if (node(items[i]).kind != PK::Str)
            fail("pk_key_kind", kind_of(node(items[i]).kind));
          const std::string key = text(node(items[i]));
          uint32_t v = items[i + 1];
          if (node(v).kind == PK::Param) v = node(v).a;
          if (node(v).kind != PK::Tensor)
            fail("pk_value_kind", kind_of(node(v).kind, {{"key", key}}));
          PickledTensor t = tensors_[node(v).a];
          t.name = key;
          const auto [it, fresh] = seen.emplace(key, out.size());
          if (fresh) out.push_back(std::move(t));
          else out[it->second] = std::move(t);
        }
        return out;
      }
      default: {
        static const char* hex = "0123456789abcdef";
        std::string name = "0x";
        name += hex[op >> 4];
        name += hex[op & 15];
        if (op >= 0x20 && op < 0x7f) name += std::string(" ('") + static_cast<char>(op) + "')";
        fail("pk_opcode", {{"opcode", name}});
      }
    }
    // clang-format on
  }
}

}  // namespace

std::vector<PickledTensor> unpickle_state_dict(Bytes pickle, const std::string& where) {
  return RestrictedUnpickler(pickle, where).run();
}

}  // namespace attn::weights
