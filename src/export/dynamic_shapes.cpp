// dynamic_shapes: input symbols, spec equalities, constraint checks and range constraints, following
// torch/_export/non_strict_utils.py and ShapeEnv.produce_guards (docs/research/symbol-names.md).
#include "export/dynamic_shapes.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "fakeexport/core/error.h"
#include "fakeexport/sym/symbol_names.h"

namespace fe::detail {
namespace {

using Kind = DimSpec::Kind;

bool is_dynamic(Kind k) { return k == Kind::Auto || k == Kind::Dynamic || k == Kind::Named || k == Kind::Derived; }
bool is_strict(Kind k) { return k == Kind::Named || k == Kind::Derived; }

std::string spec_str(const DimSpec& s) {
  switch (s.kind()) {
    case Kind::None: return "None";
    case Kind::Int: return std::to_string(s.value());
    case Kind::Auto: return "Dim.AUTO";
    case Kind::Dynamic: return "Dim.DYNAMIC";
    case Kind::Static: return "Dim.STATIC";
    case Kind::Named: return s.dim().repr();
    case Kind::Derived: return s.derived().name();
  }
  return "?";
}

/// User-facing range of a strict spec: the Dim's own [min, max].
sym::ValueRange user_range(const DimSpec& s) {
  if (s.kind() == Kind::Named) return {s.dim().min(), s.dim().max()};
  if (s.kind() == Kind::Derived) return {s.derived().min(), s.derived().max()};
  return {s.min(), s.max()};
}

/// PyTorch's debug name: the Dim's name for named dims, else the source.
std::string debug_name(const InputDim& d) {
  if (d.spec.kind() == Kind::Named) return d.spec.dim().name();
  if (d.spec.kind() == Kind::Derived) return d.spec.derived().name();
  return d.source;
}

std::string bound_str(int64_t v) { return v == kIntOo ? "int_oo" : std::to_string(v); }

}  // namespace

void validate_dynamic_shapes(const DynamicShapes& shapes, const std::vector<std::string>& names,
                             const std::vector<const TensorMeta*>& inputs) {
  for (const auto& [name, spec] : shapes) {
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      std::string all;
      for (const auto& n : names) all += (all.empty() ? "'" : ", '") + n + "'";
      throw UserError(detail::cat("dynamic_shapes: key '", name, "' is not an input of forward; its inputs are [",
                                  all, "]"));
    }
    const TensorMeta& m = *inputs[static_cast<size_t>(it - names.begin())];
    FE_CHECK(spec.empty() || static_cast<int64_t>(spec.size()) == m.dim(), UserError,
             "dynamic_shapes['", name, "'] has ", spec.size(), " entries but input '", name, "' (",
             m.annotation(), ") has ", m.dim(), " dims");
    for (size_t d = 0; d < spec.size(); ++d) {
      const DimSpec& s = spec[d];
      const int64_t v = m.sizes[d].hint();
      FE_CHECK(s.kind() != Kind::Int || s.value() == v, UserError, "dynamic_shapes['", name, "'][", d,
               "] is the static size ", s.value(), " but the example input has size ", v);
      if (s.kind() == Kind::Named || s.kind() == Kind::Derived || s.kind() == Kind::Auto || s.kind() == Kind::Dynamic) {
        const sym::ValueRange r = user_range(s);
        // PyTorch's words first (ShapeEnv.create_symbol), then which spec and input they are about.
        FE_CHECK(r.contains(v), UserError, v, " not in range [", r.lo, ", ", bound_str(r.hi), "] (dynamic_shapes['",
                 name, "'][", d, "] = ", spec_str(s), ", the example input's size)");
      }
      if (s.kind() == Kind::Derived) {
        const DerivedDim& dd = s.derived();
        FE_CHECK((v - dd.offset()) % dd.coeff() == 0, UserError, "dynamic_shapes['", name, "'][", d,
                 "] = ", dd.name(), " but the example size ", v, " is not of that form");
      }
    }
  }
}

DimVector make_input_sizes(sym::ShapeEnv& env, const std::string& name, const TensorMeta& example,
                           const std::vector<DimSpec>* spec, std::vector<InputDim>& dims,
                           std::optional<size_t> flat_index) {
  DimVector sizes = example.sizes;
  if (!spec || spec->empty()) return sizes;
  for (size_t d = 0; d < spec->size(); ++d) {
    const DimSpec& s = (*spec)[d];
    std::string source = flat_index ? detail::cat("L['flat_args'][", *flat_index, "].size()[", d, "]")
                                    : sym::size_source(name, static_cast<int64_t>(d));
    InputDim in{name, static_cast<int64_t>(d), std::move(source), s, sizes[d]};
    const int64_t v = sizes[d].hint();
    // 0/1 are specialized (no symbol, no id taken): PyTorch's specialize_zero_one.
    if (is_dynamic(s.kind()) && v != 0 && v != 1) {
      sym::ValueRange r = user_range(s);
      r.lo = std::max<int64_t>(r.lo, 2);
      sym::DimKind kind = s.kind() == Kind::Auto      ? sym::DimKind::Auto
                          : s.kind() == Kind::Dynamic ? sym::DimKind::Dynamic
                          : s.kind() == Kind::Named   ? sym::DimKind::Named
                                                      : sym::DimKind::Derived;
      sizes[d] = env.create_symbol(in.source, v, r, kind, debug_name(in));
      in.value = sizes[d];
    }
    dims.push_back(std::move(in));
  }
  return sizes;
}

void apply_spec_equalities(sym::ShapeEnv& env, const std::vector<InputDim>& dims) {
  std::map<std::string, const InputDim*> first_named;
  std::map<std::string, sym::Expr> phantom;
  for (const InputDim& d : dims) {
    if (d.spec.kind() != Kind::Named || !d.value.is_symbolic()) continue;
    auto [it, fresh] = first_named.emplace(d.spec.dim().name(), &d);
    if (!fresh) env.equate(it->second->value.expr(), d.value.expr());
  }
  for (const InputDim& d : dims) {
    if (d.spec.kind() != Kind::Derived || !d.value.is_symbolic()) continue;
    const DerivedDim& dd = d.spec.derived();
    sym::Expr root;
    if (auto it = first_named.find(dd.root().name()); it != first_named.end()) {
      root = it->second->value.expr();
    } else if (auto p = phantom.find(dd.root().name()); p != phantom.end()) {
      root = p->second;
    } else {
      // A root that is no input dim: its symbol's source is the Dim's name (ConstantSource).
      const int64_t hint = (d.value.hint() - dd.offset()) / dd.coeff();
      if (hint < 2) {  // a root of 0 or 1 specializes, and with it the dim (reported as specialized)
        if (d.value.expr().is_symbol()) env.set_replacement(d.value.expr().name(), sym::Expr(d.value.hint()));
        continue;
      }
      sym::ValueRange r{std::max<int64_t>(dd.root().min(), 2), dd.root().max()};
      root = env.create_symbol(dd.root().name(), hint, r, sym::DimKind::Named, dd.root().name()).expr();
      phantom.emplace(dd.root().name(), root);
    }
    env.equate(d.value.expr(), sym::Expr(dd.coeff()) * root + sym::Expr(dd.offset()));
  }
}

namespace {
/// "3 <= dim <= 100", "seq <= 64": the user's range as PyTorch renders it in a violation, bounds at
/// the defaults ([2, int_oo]) left out.
std::string rendered_range(const Dim& dim) {
  std::string r = dim.min() > 2 ? std::to_string(dim.min()) + " <= " + dim.name() : dim.name();
  if (dim.max() != kIntOo) r += " <= " + std::to_string(dim.max());
  return r;
}
}  // namespace

void check_constraints(const sym::ShapeEnv& env, const std::vector<InputDim>& dims) {
  struct Violation {
    std::string debug, msg;
  };
  std::vector<Violation> out;
  // fixes: key (debug name) -> (source used for ordering, text)
  std::map<std::string, std::pair<std::string, std::string>> fixes;

  // 1. Dynamic dims the program turned into constants (track_symint).
  for (const InputDim& d : dims) {
    if (!(d.spec.kind() == Kind::Dynamic || is_strict(d.spec.kind()))) continue;
    const std::optional<int64_t> c = d.value.maybe_int();
    if (!c) continue;
    if (d.spec.kind() == Kind::Dynamic && !d.value.is_symbolic()) continue;  // 0/1: not reported here
    out.push_back({debug_name(d),
                   detail::cat("You marked ", debug_name(d), " as dynamic but your code specialized it to be a "
                               "constant (", *c, "). If you're using mark_dynamic, either remove it or use "
                               "maybe_mark_dynamic. If you're using Dim.DYNAMIC, replace it with either Dim.STATIC "
                               "or Dim.AUTO.")});
    // PyTorch suggests no fix for a derived dim (`8*_seq = 8` is no Dim).
    if (d.spec.kind() == Kind::Named) fixes.emplace(debug_name(d), std::make_pair(d.source, debug_name(d) + " = " + std::to_string(*c)));
  }

  // 2. Inputs equal to a symbol first seen at another input of a different named Dim.
  std::map<std::string, const InputDim*> first_source;
  std::set<std::string> constrained;  // symbols some named dim maps to
  for (const InputDim& d : dims) {
    if (!d.value.is_symbolic()) continue;
    const sym::Expr e = d.value.expr();
    if (!e.is_symbol()) continue;
    first_source.emplace(e.name(), &d);
    if (is_strict(d.spec.kind())) constrained.insert(e.name());
  }
  for (const InputDim& d : dims) {
    if (!d.value.is_symbolic()) continue;
    const sym::Expr e = d.value.expr();
    if (!e.is_symbol() || !constrained.count(e.name())) continue;
    const InputDim* f = first_source.at(e.name());
    if (f == &d) continue;
    const bool same_dim = d.spec.kind() == Kind::Named && f->spec.kind() == Kind::Named &&
                          d.spec.dim().name() == f->spec.dim().name();
    if (same_dim) continue;
    out.push_back({debug_name(d), detail::cat("The values of ", debug_name(d), " = ", d.source, " and ",
                                              debug_name(*f), " = ", f->source, " must always be equal.")});
    fixes.emplace(debug_name(d), std::make_pair(d.source, debug_name(d) + " = " + debug_name(*f)));
  }

  // 3. Named dims whose symbol's range the program narrowed.
  std::set<std::string> seen;
  for (const InputDim& d : dims) {
    if (d.spec.kind() != Kind::Named || !d.value.is_symbolic()) continue;
    const sym::Expr e = d.value.expr();
    if (!e.is_symbol() || !seen.insert(e.name()).second) continue;
    const sym::SymbolInfo* s = env.symbol(e.name());
    if (!s) continue;
    const Dim& dim = d.spec.dim();
    const sym::ValueRange want{std::max<int64_t>(dim.min(), 2), dim.max()};
    if (s->range.lo <= want.lo && want.hi <= s->range.hi) continue;
    const std::string spec_range = rendered_range(dim);
    std::string guard = std::to_string(s->range.lo) + " <= " + d.source;
    if (s->range.hi != sym::kPosInf) guard += " and " + d.source + " <= " + std::to_string(s->range.hi);
    out.push_back({dim.name(), detail::cat("Not all values of ", dim.name(), " = ", d.source, " in the specified range ",
                                           spec_range, " satisfy the generated guard ", guard)});
    std::string fix = dim.name() + " = Dim('" + dim.name() + "'";
    if (s->range.lo != 2) fix += ", min=" + std::to_string(s->range.lo);
    if (s->range.hi != sym::kPosInf) fix += ", max=" + std::to_string(s->range.hi);
    fixes[dim.name()] = {d.source, fix + ")"};
  }

  // 4. Guards over `x % m` of a named dim, which PyTorch's solver proves for no range: x must be
  //    m*_x - c, c from the hint's remainder (DimConstraints' congruence, sympy's Mod(x + c, m)),
  //    the new root's range the dim's range shifted and divided.
  // The named input dim whose symbol `name` is (after the equalities export applied at the end).
  auto named_dim_of = [&](const std::string& name) -> const InputDim* {
    const sym::Expr e = env.replace(sym::Expr::symbol(name));
    if (!e.is_symbol()) return nullptr;
    for (const InputDim& x : dims)
      if (x.spec.kind() == Kind::Named && x.value.is_symbolic() && x.value.expr() == e) return &x;
    return nullptr;
  };
  std::set<std::string> seen_guards;
  for (const sym::ModularGuard& g : env.modular_guards()) {
    const InputDim* d = named_dim_of(g.symbol);
    if (!d) continue;  // an automatic dim: PyTorch keeps the guard and exports
    std::string text;  // `{sN}` placeholders by their sources
    for (size_t p = 0; p < g.text.size();) {
      const size_t open = g.text.find('{', p), close = g.text.find('}', open);
      if (open == std::string::npos || close == std::string::npos) {
        text += g.text.substr(p);
        break;
      }
      const std::string name = g.text.substr(open + 1, close - open - 1);
      const InputDim* x = named_dim_of(name);
      text += g.text.substr(p, open - p) + (x ? x->source : env.replace(sym::Expr::symbol(name)).str());
      p = close + 1;
    }
    if (!seen_guards.insert(text).second) continue;
    const Dim& dim = d->spec.dim();
    out.push_back({dim.name(), detail::cat("Not all values of ", dim.name(), " = ", d->source, " in the specified range ",
                                           rendered_range(dim), " satisfy the generated guard ", text, ".")});
    const int64_t m = g.modulus, c = (m - d->value.hint() % m) % m;
    const std::string root = "_" + dim.name();
    const int64_t lo = (std::max<int64_t>(dim.min(), 2) + c + m - 1) / m;
    // PyTorch builds the root as a Dim, so an empty range fails there as here ("Cannot create Dim
    // with inconsistent min=2, max=2", e.g. seq <= 16 from a hint of 9).
    const Dim root_dim(root, lo, dim.max() == kIntOo ? kIntOo : (dim.max() + c) / m);
    // The new root first, then the dim derived from it (prettify_results: dims, then others).
    fixes[root] = {d->source, root + " = " + root_dim.repr()};
    fixes[dim.name()] = {d->source + '\x01', detail::cat(dim.name(), " = ", m, "*", root, c ? " - " + std::to_string(c) : "")};
  }

  if (out.empty()) return;
  std::set<std::string> names;
  for (const auto& v : out) names.insert(v.debug);
  std::ostringstream msg;
  msg << "Constraints violated (";
  bool first = true;
  for (const auto& n : names) {
    msg << (first ? "" : ", ") << n;
    first = false;
  }
  msg << ")!";
  for (const auto& v : out) msg << "\n  - " << v.msg;
  if (!fixes.empty()) {
    std::vector<std::pair<std::string, std::string>> ordered;
    for (const auto& [_, f] : fixes) ordered.push_back(f);
    std::sort(ordered.begin(), ordered.end());
    msg << "\nSuggested fixes:";
    for (const auto& [_, text] : ordered) msg << "\n  " << text;
  }
  throw ConstraintViolationError(msg.str());
}

std::vector<std::pair<std::string, sym::ValueRange>> range_constraints(const sym::ShapeEnv& env,
                                                                       const std::vector<InputDim>& dims) {
  std::vector<std::pair<std::string, sym::ValueRange>> out;
  auto put = [&](const std::string& key, sym::ValueRange r) {
    for (auto& [k, v] : out)
      if (k == key) {
        v = v & r;
        return;
      }
    out.emplace_back(key, r);
  };
  std::set<std::string> roots;
  for (const InputDim& d : dims) {
    if (!d.value.is_symbolic()) continue;
    const sym::Expr e = d.value.expr();
    if (e.is_constant()) continue;
    put(e.str(), is_strict(d.spec.kind()) ? user_range(d.spec) : env.bound(e));
    for (const auto& s : e.free_symbols()) roots.insert(s);
  }
  // Root symbols that never were a key themselves (e.g. the phantom root of `2*dx`).
  for (const sym::SymbolInfo& s : env.symbols()) {
    if (!roots.count(s.name) || env.replacements().count(s.name)) continue;
    bool present = false;
    for (const auto& [k, _] : out) present = present || k == s.name;
    if (!present) out.emplace_back(s.name, s.range);
  }
  return out;
}

}  // namespace fe::detail
