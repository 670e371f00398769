// The decomposition tables of export/decompose.h: the default table (every op with a
// decomposition), get_decompositions' subset (the ops PyTorch 2.14 has a Python decomposition
// for, plus what functionalization lowers anyway) and op-list parsing.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "fakeexport/core/error.h"
#include "fakeexport/export/decompose.h"
#include "fakeexport/ops/registry.h"

namespace fe {

DecompTable default_decompositions() {
  DecompTable t;
  for (const OpDef* op : registry().all())
    if (op->decomp) t.insert(op);
  return t;
}

const OpDef* functional_variant(const OpDef& inplace) {
  const FunctionSchema& schema = inplace.schema;
  const std::string& name = schema.name;
  if (name.size() < 2 || name.back() != '_') return nullptr;
  const std::string_view base = std::string_view(name).substr(0, name.size() - 1);
  const auto same_signature = [&](const FunctionSchema& s) {
    if (s.ns != schema.ns || s.name != base || s.arguments.size() != schema.arguments.size()) return false;
    for (size_t i = 0; i < s.arguments.size(); ++i) {
      const ArgType &a = s.arguments[i].type, &b = schema.arguments[i].type;
      if (a.base != b.base || a.is_list != b.is_list || a.optional != b.optional) return false;
    }
    return true;
  };
  // The same overload name first (the usual pairing), then any overload of that signature.
  const std::string same_overload =
      schema.ns + "::" + std::string(base) + (schema.overload == "default" ? "" : "." + schema.overload);
  if (const OpDef* f = registry().find(same_overload); f && same_signature(f->schema)) return f;
  for (const OpDef* f : registry().all())
    if (same_signature(f->schema)) return f;
  return nullptr;
}

std::vector<std::string> split_op_list(std::string_view list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < list.size()) {
    const size_t end = std::min(list.find(',', start), list.size());
    if (end > start) out.emplace_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

namespace {
/// Overloads with a Python decomposition in PyTorch 2.14 (generated; see the .inc's header).
constexpr std::string_view kPythonDecompositions[] = {
#include "export/python_decompositions.inc"
};
/// aten's CompositeImplicitAutograd overloads and whether export can preserve each (generated).
struct CiaOp {
  std::string_view name;
  bool preservable;
};
constexpr CiaOp kCiaOps[] = {
#include "export/cia_ops.inc"
};

DecompTable ops_named(const std::vector<std::string>& names, bool python_only) {
  DecompTable t;
  for (const std::string& raw : names) {
    // "aten.linear" / "aten::linear" (a packet: every overload) or "aten.linear.default" (one).
    std::string ns, rest;
    if (size_t c = raw.find("::"); c != std::string::npos) {
      ns = raw.substr(0, c);
      rest = raw.substr(c + 2);
    } else {
      const size_t d = raw.find('.');
      FE_CHECK(d != std::string::npos && d > 0, ValueError, "decompose: op '", raw,
               "' must be qualified by its namespace, e.g. aten.linear or aten::linear");
      ns = raw.substr(0, d);
      rest = raw.substr(d + 1);
    }
    const size_t dot = rest.find('.');
    const std::string packet = rest.substr(0, dot);
    const std::string overload = dot == std::string::npos ? "" : rest.substr(dot + 1);
    size_t found = 0;
    for (const OpDef* op : registry().all()) {
      if (op->schema.ns != ns || op->schema.name != packet) continue;
      if (!overload.empty() && op->schema.overload != overload) continue;
      ++found;
      if (python_only && !std::binary_search(std::begin(kPythonDecompositions), std::end(kPythonDecompositions),
                                             std::string_view(op->qualified)))
        continue;
      FE_CHECK(op->decomp, ValueError, "decompose: ", op->qualified,
               " has no decomposition in fakeexport (it is Core ATen or not lowered yet)");
      t.insert(op);
    }
    FE_CHECK(found, UnknownOpError, "decompose: unknown operator '", raw, "' (not in the fakeexport registry)");
  }
  return t;
}
}  // namespace

DecompTable decompositions_of(const std::vector<std::string>& names) { return ops_named(names, false); }
DecompTable get_decompositions(const std::vector<std::string>& names) {
  DecompTable t = ops_named(names, true);
  // A custom table still lowers the CompositeImplicit ops export cannot preserve (aliasing or
  // mutating ones such as to.dtype, reshape, dropout): functionalization decomposes them anyway.
  for (const OpDef* op : registry().all()) {
    if (!op->decomp) continue;
    const std::string_view q = op->qualified;
    // The retrace's functionalization turns lift_fresh_copy into clone whatever the table.
    if (q == "aten::lift_fresh_copy.default") t.insert(op);
    const auto* it = std::lower_bound(std::begin(kCiaOps), std::end(kCiaOps), q,
                                      [](const CiaOp& c, std::string_view n) { return c.name < n; });
    if (it != std::end(kCiaOps) && it->name == q && !it->preservable) t.insert(op);
  }
  return t;
}

}  // namespace fe
