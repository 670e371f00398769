#include "fakeexport/ops/registry.h"

#include <unordered_map>

#include "fakeexport/core/error.h"
#include "ops/families.h"

namespace fe {

// ---- MetaArgs accessors: a wrong kind is an internal error (the API built a bad call) unless the
// value came from a user-facing path, where the op name and argument name say what was wrong.
namespace {
template <class T>
const T& get_as(const MetaArgs& a, size_t i, const char* want) {
  FE_INTERNAL_ASSERT(i < a.size(), a.op().qualified, ": argument ", i, " missing");
  const T* v = std::get_if<T>(&a[i]);
  FE_CHECK(v, ValueError, a.op().schema.ns, "::", a.op().schema.name, ": argument '",
           a.op().schema.arguments[i].name, "' must be ", want);
  return *v;
}
}  // namespace

const TensorMeta& MetaArgs::tensor(size_t i) const { return *get_as<const TensorMeta*>(*this, i, "a Tensor"); }
int64_t MetaArgs::to_int(size_t i) const { return get_as<SymInt>(*this, i, "an int").expect_int(); }
SymInt MetaArgs::sym_int(size_t i) const { return get_as<SymInt>(*this, i, "an int"); }
std::optional<int64_t> MetaArgs::opt_int(size_t i) const {
  if (is_none(i)) return std::nullopt;
  return to_int(i);
}
std::optional<double> MetaArgs::opt_double(size_t i) const {
  if (is_none(i)) return std::nullopt;
  return to_double(i);
}
const std::vector<const TensorMeta*>& MetaArgs::tensor_list(size_t i) const {
  return get_as<std::vector<const TensorMeta*>>(*this, i, "a list of Tensors");
}
double MetaArgs::to_double(size_t i) const {
  if (auto* s = std::get_if<SymInt>(&v_[i])) return static_cast<double>(s->expect_int());
  if (auto* b = std::get_if<bool>(&v_[i])) return *b;
  return get_as<double>(*this, i, "a number");
}
bool MetaArgs::to_bool(size_t i) const { return get_as<bool>(*this, i, "a bool"); }
const std::string& MetaArgs::str(size_t i) const { return get_as<std::string>(*this, i, "a str"); }
const std::vector<SymInt>& MetaArgs::int_list(size_t i) const {
  return get_as<std::vector<SymInt>>(*this, i, "a list of ints");
}
std::optional<DType> MetaArgs::opt_dtype(size_t i) const {
  if (is_none(i)) return std::nullopt;
  return get_as<DType>(*this, i, "a dtype");
}
std::optional<Layout> MetaArgs::opt_layout(size_t i) const {
  if (is_none(i)) return std::nullopt;
  return get_as<Layout>(*this, i, "a layout");
}
std::optional<Device> MetaArgs::opt_device(size_t i) const {
  if (is_none(i)) return std::nullopt;
  return get_as<Device>(*this, i, "a device");
}
std::optional<MemoryFormat> MetaArgs::opt_memory_format(size_t i) const {
  if (is_none(i)) return std::nullopt;
  return get_as<MemoryFormat>(*this, i, "a memory format");
}
TypeCategory MetaArgs::scalar_category(size_t i) const {
  switch (kind_of(v_[i])) {
    case ValueKind::Bool: return TypeCategory::Bool;
    case ValueKind::Int: return TypeCategory::Integral;
    case ValueKind::Double: return TypeCategory::Floating;
    default: break;
  }
  throw ValueError(detail::cat(op_.schema.ns, "::", op_.schema.name, ": argument '",
                               op_.schema.arguments[i].name, "' must be a Tensor or a number"));
}

// ---- Registry
namespace {
/// FX's _snake_case, which names a node after its op: an underscore before each capital that
/// follows a lowercase letter, then lowercased (numpy_T -> numpy_t).
std::string fx_snake_case(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= 'A' && c <= 'Z') {
      if (i > 0 && s[i - 1] >= 'a' && s[i - 1] <= 'z') out += '_';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return out;
}
}  // namespace

const OpDef& Registry::add(const OpDecl& d) {
  auto op = std::make_unique<OpDef>();
  op->schema = parse_schema(d.schema);
  op->qualified = op->schema.qualified_name();
  op->node_name = d.node_name ? std::string(d.node_name) : fx_snake_case(op->schema.name);
  op->meta = d.meta;
  op->cpu = d.cpu;
  op->device_rule = d.device_rule;
  op->may_return_self = d.may_return_self;
  op->max_positional = d.max_positional;
  op->decomp = d.decomp;
  op->scratch = d.scratch;
  op->out_elems = d.out_elems;
  // Ops returning nothing exist for their effect (asserts): dead-code elimination keeps them.
  op->side_effect = op->schema.returns.empty();
  const auto& sa = op->schema.arguments;
  const auto& sr = op->schema.returns;
  op->inplace = !sa.empty() && !sr.empty() && sa[0].type.is_write && sr[0].type.alias_set != 0 &&
                sr[0].type.alias_set == sa[0].type.alias_set;
  if (op->inplace) op->side_effect = true;
  FE_INTERNAL_ASSERT(op->meta, op->qualified, " declared without a meta function");
  FE_INTERNAL_ASSERT(!find(op->qualified), op->qualified, " declared twice");
  order_.push_back(op.get());
  by_name_.emplace(op->qualified, op.get());
  if (op->schema.overload == "default") by_name_.emplace(op->schema.ns + "::" + op->schema.name, op.get());
  ops_.push_back(std::move(op));
  return *ops_.back();
}

const OpDef* Registry::find(std::string_view q) const {
  // "aten::linear" also names the default overload.
  auto it = by_name_.find(std::string(q));
  return it == by_name_.end() ? nullptr : it->second;
}

const OpDef& Registry::get(std::string_view q) const {
  if (const OpDef* op = find(q)) return *op;
  throw UnknownOpError(detail::cat("unknown operator '", q, "' (not in the fakeexport registry of ",
                                   order_.size(), " ops)"));
}

Registry& mutable_registry() {
  static Registry r = [] {
    Registry reg;
    ops::register_factory_ops(reg);
    ops::register_linalg_ops(reg);
    ops::register_elementwise_ops(reg);
    ops::register_unary_ops(reg);
    ops::register_activation_ops(reg);
    ops::register_reduction_ops(reg);
    ops::register_view_ops(reg);
    ops::register_join_ops(reg);
    ops::register_indexing_ops(reg);
    ops::register_norm_ops(reg);
    ops::register_attention_ops(reg);
    ops::register_conv_ops(reg);
    ops::register_conversion_ops(reg);
    ops::register_numeric_ops(reg);
    ops::register_resample_ops(reg);
    ops::register_grouped_mm_ops(reg);
    ops::register_custom_ops(reg);
    return reg;
  }();
  return r;
}

const Registry& registry() { return mutable_registry(); }

// ---- Device rule (eager PyTorch): the dispatch device is the first non-cpu tensor's device;
// every other tensor must be on it, except 0-dim cpu tensors (auto-transferred scalars).
namespace {
void check_same_device(const OpDef& op, std::span<const MetaValue> args) {
  const Device* common = nullptr;
  auto visit = [&](const TensorMeta* m, auto&& check) {
    if (m->device.is_cpu() && m->dim() == 0) return;
    check(m);
  };
  auto find_common = [&](const TensorMeta* m) {
    if (!common && !m->device.is_cpu()) common = &m->device;
  };
  for (const MetaValue& v : args) {
    if (auto* t = std::get_if<const TensorMeta*>(&v)) visit(*t, find_common);
    else if (auto* l = std::get_if<std::vector<const TensorMeta*>>(&v))
      for (auto* t2 : *l)
        if (t2) visit(t2, find_common);
  }
  if (!common) return;
  auto check = [&](const TensorMeta* m) {
    FE_CHECK(m->device == *common, DeviceMismatchError, op.schema.ns, "::", op.schema.name,
             ": Expected all tensors to be on the same device, but found at least two devices, ", *common,
             " and ", m->device, "!");
  };
  for (const MetaValue& v : args) {
    if (auto* t = std::get_if<const TensorMeta*>(&v)) visit(*t, check);
    else if (auto* l = std::get_if<std::vector<const TensorMeta*>>(&v))
      for (auto* t2 : *l)
        if (t2) visit(t2, check);
  }
}
}  // namespace

void run_meta(const OpDef& op, std::span<const MetaValue> args, MetaOut& out) {
  FE_INTERNAL_ASSERT(args.size() == op.schema.arguments.size(), op.qualified, ": got ", args.size(),
                     " arguments, schema has ", op.schema.arguments.size());
  // An opaque op of a loaded program: its recorded metadata is all we know.
  FE_CHECK(op.meta, UnknownOpError, op.qualified, " is not in fakeexport's registry: it has no meta function or "
                                                  "kernel (the program keeps its recorded metadata)");
  if (op.device_rule == DeviceRule::SameDevice) check_same_device(op, args);
  op.meta(MetaArgs(op, args), out);
}

}  // namespace fe
