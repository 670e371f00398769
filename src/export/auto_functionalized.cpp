// Decoding auto_functionalized(_v2) nodes (export/auto_functionalized.h).
#include "export/auto_functionalized.h"

#include <algorithm>

#include "fakeexport/ops/ivalue.h"

namespace fe::export_detail {

const OpDef* serialized_operator(std::string_view repr) {
  std::string name(repr.starts_with("torch.ops.") ? repr.substr(10) : repr);
  if (const size_t dot = name.find('.'); dot != std::string::npos) name.replace(dot, 1, "::");
  return registry().find(name);
}

std::optional<AutoFunctionalizedCall> decode_auto_functionalized(const Node& n, std::string& why, bool& unknown_op) {
  unknown_op = false;
  const auto& a = n.args();
  const auto& names = n.kwarg_names();
  const auto* opv = a.empty() ? nullptr : std::get_if<Opaque>(&a[0]);
  if (!opv || !*opv || (*opv)->kind != "as_operator") {
    why = "its first argument is not an operator";
    return std::nullopt;
  }
  AutoFunctionalizedCall c;
  c.op_repr = (*opv)->repr;
  c.op = serialized_operator(c.op_repr);
  if (!c.op) {
    unknown_op = true;
    why = "operator " + c.op_repr + " is not in the registry";
    return std::nullopt;
  }
  // kwargs: the last names.size() args.
  const size_t first_kw = a.size() - names.size();
  auto kwarg = [&](const std::string& k) -> std::optional<size_t> {
    const auto it = std::find(names.begin(), names.end(), k);
    if (it == names.end()) return std::nullopt;
    return first_kw + static_cast<size_t>(it - names.begin());
  };
  const bool v2 = n.callable()->kind == CallableKind::AutoFunctionalizedV2;
  if (v2) {
    const auto all = kwarg("_all_bases");
    if (!all) {
      why = "no _all_bases";
      return std::nullopt;
    }
    for_each_node(a[*all], [&](const Node* b) { c.bases.push_back(b); });
  }
  for (const auto& arg : c.op->schema.arguments) {
    AutoFunctionalizedCall::Slot s;
    if (v2 && arg.type.is_write) {
      const auto bi = kwarg("_" + arg.name + "_base_index");
      const auto* si = bi ? std::get_if<SymInt>(&a[*bi]) : nullptr;
      const std::optional<int64_t> idx = si ? si->maybe_int() : std::nullopt;
      if (!idx || *idx < 0 || static_cast<size_t>(*idx) >= c.bases.size()) {
        why = "mutated argument '" + arg.name + "' names no base in _all_bases";
        return std::nullopt;
      }
      s.kind = AutoFunctionalizedCall::Slot::Base;
      s.base = static_cast<size_t>(*idx);
      s.size = kwarg("_" + arg.name + "_size");
      s.stride = kwarg("_" + arg.name + "_stride");
      s.offset = kwarg("_" + arg.name + "_storage_offset");
    } else if (const auto k = kwarg(arg.name)) {
      s.kind = AutoFunctionalizedCall::Slot::Arg;
      s.arg = *k;
      if (!v2 && arg.type.is_write) {
        const Node* const* t = std::get_if<Node*>(&a[*k]);
        if (!t || !*t) {
          why = "mutated argument '" + arg.name + "' is not a tensor";
          return std::nullopt;
        }
        c.bases.push_back(*t);
      }
    } else if (!arg.default_value) {
      why = "no value for argument '" + arg.name + "' of " + c.op_repr;
      return std::nullopt;
    }
    c.slots.push_back(s);
  }
  c.op_outputs = std::max<size_t>(c.op->schema.returns.size(), 1);
  return c;
}

}  // namespace fe::export_detail
