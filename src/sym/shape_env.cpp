// ShapeEnv: symbol creation, interval bounds, guards with range refinement and replacements.
// The rules follow torch.fx.experimental.symbolic_shapes (see docs/research/symbol-names.md §4).
#include "fakeexport/sym/shape_env.h"

#include <algorithm>
#include <numeric>

#include "fakeexport/core/error.h"

namespace fe::sym {
namespace {

// Interval arithmetic in 128 bits; |x| >= kInf means infinite.
using Wide = __int128;
constexpr Wide kInf = Wide(1) << 100;

Wide widen(int64_t v) { return v == kPosInf ? kInf : v == kNegInf ? -kInf : Wide(v); }
int64_t narrow(Wide v) {
  if (v >= Wide(kPosInf) || v >= kInf) return kPosInf;
  if (v <= Wide(kNegInf) || v <= -kInf) return kNegInf;
  return static_cast<int64_t>(v);
}
Wide clamp(Wide v) { return v >= kInf ? kInf : v <= -kInf ? -kInf : v; }
Wide wadd(Wide a, Wide b) {
  if (a >= kInf || b >= kInf) return kInf;
  if (a <= -kInf || b <= -kInf) return -kInf;
  return clamp(a + b);
}
Wide wmul(Wide a, Wide b) {
  if (a == 0 || b == 0) return 0;
  const bool neg = (a < 0) != (b < 0);
  Wide ma = a < 0 ? -a : a, mb = b < 0 ? -b : b;
  if (ma >= kInf || mb >= kInf || ma > kInf / mb) return neg ? -kInf : kInf;
  return neg ? -(ma * mb) : ma * mb;
}
struct WRange {
  Wide lo, hi;
};
WRange wrange(const ValueRange& r) { return {widen(r.lo), widen(r.hi)}; }
WRange mul_range(WRange a, WRange b) {
  Wide c[4] = {wmul(a.lo, b.lo), wmul(a.lo, b.hi), wmul(a.hi, b.lo), wmul(a.hi, b.hi)};
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}
Wide wfloordiv(Wide a, int64_t b) {  // b > 0
  if (a >= kInf || a <= -kInf) return a;
  Wide q = a / b;
  if (a % b != 0 && a < 0) --q;
  return q;
}

using fe::detail::rel_holds;

Rel flip(Rel r) {  // a rel b  <=>  b flip(rel) a
  switch (r) {
    case Rel::Lt: return Rel::Gt;
    case Rel::Le: return Rel::Ge;
    case Rel::Gt: return Rel::Lt;
    case Rel::Ge: return Rel::Le;
    default: return r;
  }
}

/// e == c*x + rest with x not free in rest: {c, rest}; nullopt when e is not linear in x.
std::optional<std::pair<int64_t, Expr>> linear_in(const Expr& e, const std::string& x) {
  std::map<std::string, Expr, std::less<>> at0{{x, Expr(0)}}, at1{{x, Expr(1)}};
  Expr rest, c;
  try {  // x inside a divisor (Mod(s0, s0//4)): substituting 0 divides by zero; not linear anyway
    rest = e.substitute(at0);
    c = e.substitute(at1) - rest;
  } catch (const UserError&) {
    return std::nullopt;
  }
  if (!c.is_constant() || c.constant() == 0) return std::nullopt;
  if (!(c.constant() * Expr::symbol(x) + rest == e)) return std::nullopt;
  return std::make_pair(c.constant(), rest);
}

/// gcd of an expression's term coefficients (8 for 8*X - 8*M - 8); 1 when it is not a sum.
int64_t coefficient_gcd(const Expr& e) {
  if (e.kind() != Kind::Add) return 1;
  int64_t g = 0;
  for (const auto& [_, c] : e.terms()) g = std::gcd(g, c < 0 ? -c : c);
  return g ? g : 1;
}

/// `e >= 0` for integers, in one form per fact: the non-constant part divided by its coefficients'
/// gcd (kept as {gcd, part}) and the constant floor-divided by it, so `2*X - 2 >= 0`, `X - 1 >= 0`
/// and `X > 0` compare equal.
struct NonNeg {
  int64_t g = 1;
  Expr part;  ///< e without its constant
  int64_t k = 0;
  bool same(const NonNeg& o) const { return o.g * part == g * o.part && k == o.k; }
};
NonNeg non_neg(const Expr& e) {
  const int64_t c = e.kind() == Kind::Add ? e.add_constant() : (e.is_constant() ? e.constant() : 0);
  const Expr part = e - c;
  const int64_t g = coefficient_gcd(part);
  return {g, part, fe::detail::py_floordiv(c, g)};
}

bool has_kind(const Expr& e, Kind k) {
  if (e.kind() == k) return true;
  for (const auto& [t, _] : e.terms())
    if (has_kind(t, k)) return true;
  for (const auto& a : e.args())
    if (has_kind(a, k)) return true;
  return false;
}

}  // namespace

ValueRange ValueRange::operator&(const ValueRange& o) const { return {std::max(lo, o.lo), std::min(hi, o.hi)}; }

std::string ValueRange::str() const {
  auto end = [](int64_t v) {
    return v == kPosInf ? std::string("int_oo") : v == kNegInf ? std::string("-int_oo") : std::to_string(v);
  };
  return "VR[" + end(lo) + ", " + end(hi) + "]";
}

Rel negate(Rel r) {
  switch (r) {
    case Rel::Eq: return Rel::Ne;
    case Rel::Ne: return Rel::Eq;
    case Rel::Lt: return Rel::Ge;
    case Rel::Le: return Rel::Gt;
    case Rel::Gt: return Rel::Le;
    case Rel::Ge: return Rel::Lt;
  }
  return r;
}

std::string rel_str(Rel rel, const Expr& lhs, const Expr& rhs) {
  switch (rel) {
    case Rel::Eq: return "Eq(" + lhs.str() + ", " + rhs.str() + ")";
    case Rel::Ne: return "Ne(" + lhs.str() + ", " + rhs.str() + ")";
    case Rel::Lt: return lhs.str() + " < " + rhs.str();
    case Rel::Le: return lhs.str() + " <= " + rhs.str();
    case Rel::Gt: return lhs.str() + " > " + rhs.str();
    case Rel::Ge: return lhs.str() + " >= " + rhs.str();
  }
  return {};
}

std::string Guard::str() const { return rel_str(rel, lhs, rhs); }

SymInt ShapeEnv::create_symbol(const std::string& source, int64_t hint, ValueRange range, DimKind kind,
                               std::string dim_name) {
  const std::string name = "s" + std::to_string(ids_.allocate(source));
  FE_INTERNAL_ASSERT(!by_name_.count(name), "ShapeEnv: symbol ", name, " allocated twice");
  by_name_.emplace(name, symbols_.size());
  symbols_.push_back({name, source, hint, range, kind, std::move(dim_name)});
  nodes_.push_back(SymNode{Expr::symbol(name), this});
  return SymInt(&nodes_.back(), hint);
}

SymInt ShapeEnv::named_symbol(const std::string& name, int64_t hint, ValueRange range) {
  if (auto it = by_name_.find(name); it != by_name_.end()) {
    FE_CHECK(symbols_[it->second].hint == hint, ValueError, "ShapeEnv: symbol ", name, " exists with hint ",
             symbols_[it->second].hint, ", not ", hint);
    return make(Expr::symbol(name), hint);
  }
  by_name_.emplace(name, symbols_.size());
  symbols_.push_back({name, name, hint, range, DimKind::Auto, {}});
  nodes_.push_back(SymNode{Expr::symbol(name), this});
  return SymInt(&nodes_.back(), hint);
}

SymInt ShapeEnv::make(Expr e, int64_t hint) {
  if (e.is_constant()) return SymInt(e.constant());
  nodes_.push_back(SymNode{std::move(e), this});
  return SymInt(&nodes_.back(), hint);
}

SymInt ShapeEnv::make_binary(SymOp op, const SymInt& a, const SymInt& b) {
  const Expr ea = a.is_symbolic() ? a.node()->expr : Expr(a.hint());
  const Expr eb = b.is_symbolic() ? b.node()->expr : Expr(b.hint());
  const int64_t x = a.hint(), y = b.hint();
  int64_t h = 0;
  switch (op) {
    case SymOp::Add: h = x + y; break;
    case SymOp::Sub: h = x - y; break;
    case SymOp::Mul: h = x * y; break;
    case SymOp::FloorDiv: h = detail::py_floordiv(x, y); break;
    case SymOp::Mod: h = detail::py_mod(x, y); break;
    case SymOp::Min: h = std::min(x, y); break;
    case SymOp::Max: h = std::max(x, y); break;
    case SymOp::Neg: h = -x; break;
  }
  ExprKey key{static_cast<uint8_t>(op), ea, eb};
  auto cached = binary_cache_.find(key);
  Expr e;
  if (cached != binary_cache_.end()) {
    e = cached->second;
  } else {
    switch (op) {
      case SymOp::Add: e = ea + eb; break;
      case SymOp::Sub: e = ea - eb; break;
      case SymOp::Mul: e = ea * eb; break;
      case SymOp::FloorDiv: e = floordiv(ea, eb); break;
      case SymOp::Mod: e = mod(ea, eb); break;
      case SymOp::Min: e = min(ea, eb); break;
      case SymOp::Max: e = max(ea, eb); break;
      case SymOp::Neg: e = -ea; break;
    }
    binary_cache_.emplace(std::move(key), e);
  }
  if (e.is_constant()) return SymInt(e.constant());
  nodes_.push_back(SymNode{std::move(e), this, true, op, a, b});
  SymInt r(&nodes_.back(), h);
  if (tracer_ && ctx_.op.empty()) tracer_->on_binary(r);
  return r;
}

SymInt ShapeEnv::make_handle(const SymInt& v, void* graph_node) {
  // A concrete value gets a handle too: a loaded program may name a size that export specialized
  // (`sym_size_int` whose recorded value is the int 8) and pass that name on as an argument.
  nodes_.push_back(SymNode{v.is_symbolic() ? v.node()->expr : Expr(v.hint()), this});
  nodes_.back().graph_node = graph_node;
  return SymInt(&nodes_.back(), v.hint());
}

Expr ShapeEnv::replace(const Expr& e) const {
  if (replacements_.empty() || e.is_constant()) return e;
  return e.substitute(replacements_);
}

const Expr& ShapeEnv::simplified(const SymNode& n) const {
  if (n.replaced_version != version_) {
    n.replaced = replace(n.expr);
    n.replaced_version = version_;
  }
  return n.replaced;
}

const SymbolInfo* ShapeEnv::symbol(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &symbols_[it->second];
}
SymbolInfo* ShapeEnv::symbol(std::string_view name) {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &symbols_[it->second];
}

int64_t ShapeEnv::hint_of(const std::string& sym) const {
  const SymbolInfo* s = symbol(sym);
  return s ? s->hint : 0;
}

ValueRange ShapeEnv::bound(const Expr& e) const {
  auto rec = [&](auto& self, const Expr& x) -> WRange {
    switch (x.kind()) {
      case Kind::Const: return {x.constant(), x.constant()};
      case Kind::Symbol: {
        const SymbolInfo* s = symbol(x.name());
        // An application kept as an atom (CeilToInt(...) of unbacked floats) is read as a size.
        if (!s && is_applied_name(x.name())) return {0, kInf};
        return s ? wrange(s->range) : WRange{-kInf, kInf};
      }
      case Kind::Add: {
        WRange r{x.add_constant(), x.add_constant()};
        for (const auto& [t, c] : x.terms()) {
          WRange b = mul_range(self(self, t), {c, c});
          r = {wadd(r.lo, b.lo), wadd(r.hi, b.hi)};
        }
        return r;
      }
      case Kind::Mul: {
        WRange r{1, 1};
        for (const auto& [base, exp] : x.terms()) {
          if (exp < 1) return {-kInf, kInf};
          WRange b = self(self, base);
          for (int64_t i = 0; i < exp; ++i) r = mul_range(r, b);
        }
        return r;
      }
      case Kind::FloorDiv: {
        WRange a = self(self, x.args()[0]);
        const Expr& d = x.args()[1];
        if (d.is_constant() && d.constant() > 0)
          return {wfloordiv(a.lo, d.constant()), wfloordiv(a.hi, d.constant())};
        WRange b = self(self, d);
        if (a.lo >= 0 && b.lo > 0 && b.lo < kInf && b.hi < kInf)
          return {a.lo / b.hi, a.hi >= kInf ? kInf : a.hi / b.lo};
        return {-kInf, kInf};
      }
      case Kind::Mod: {
        const Expr& d = x.args()[1];
        WRange b = self(self, d);
        if (b.lo > 0) {
          WRange a = self(self, x.args()[0]);
          if (a.lo >= 0 && a.hi < b.lo) return a;
          return {0, b.hi >= kInf ? kInf : b.hi - 1};
        }
        return {-kInf, kInf};
      }
      case Kind::Min:
      case Kind::Max: {
        const bool is_min = x.kind() == Kind::Min;
        WRange r = self(self, x.args()[0]);
        for (size_t i = 1; i < x.args().size(); ++i) {
          WRange b = self(self, x.args()[i]);
          r = is_min ? WRange{std::min(r.lo, b.lo), std::min(r.hi, b.hi)}
                     : WRange{std::max(r.lo, b.lo), std::max(r.hi, b.hi)};
        }
        return r;
      }
    }
    return {-kInf, kInf};
  };
  WRange r = rec(rec, e);
  return {narrow(r.lo), narrow(r.hi)};
}

namespace {

bool has_min_max(const Expr& e) {
  switch (e.kind()) {
    case Kind::Min:
    case Kind::Max: return true;
    case Kind::Add:
    case Kind::Mul:
      for (const auto& [t, _] : e.terms())
        if (has_min_max(t)) return true;
      return false;
    case Kind::FloorDiv:
    case Kind::Mod: return has_min_max(e.args()[0]) || has_min_max(e.args()[1]);
    default: return false;
  }
}

/// ShapeEnv.simplify's Min/Max step: an argument another one provably dominates is dropped, so
/// that after the fact `1 <= X`, `Ne(Max(1, X), X)` is false. `a <= b` is provable from the
/// ranges, or, for a two-argument Max whose candidate is 0 or 1, from the facts as well
/// (PyTorch's static fallback through _maybe_evaluate_static).
Expr drop_dominated(const ShapeEnv& env, const Expr& e) {
  if (!has_min_max(e)) return e;
  switch (e.kind()) {
    case Kind::Add: {
      Expr r = e.add_constant();
      for (const auto& [t, c] : e.terms()) r = r + c * drop_dominated(env, t);
      return r;
    }
    case Kind::Mul: {
      Expr r = 1;
      for (const auto& [base, exp] : e.terms()) {
        if (exp < 1) return e;
        const Expr b = drop_dominated(env, base);
        for (int64_t i = 0; i < exp; ++i) r = r * b;
      }
      return r;
    }
    case Kind::FloorDiv: return floordiv(drop_dominated(env, e.args()[0]), drop_dominated(env, e.args()[1]));
    case Kind::Mod: return mod(drop_dominated(env, e.args()[0]), drop_dominated(env, e.args()[1]));
    case Kind::Min:
    case Kind::Max: {
      std::vector<Expr> args;
      for (const Expr& a : e.args()) args.push_back(drop_dominated(env, a));
      const bool is_min = e.kind() == Kind::Min;
      const bool fallback = !is_min && args.size() == 2;
      const auto le = [&](const Expr& a, const Expr& b) {
        if (a == b || env.bound(b - a).lo >= 0) return true;
        const bool small = a.is_constant() && (a.constant() == 0 || a.constant() == 1);
        return fallback && small && env.static_eval(Rel::Le, a, b).value_or(false);
      };
      std::vector<bool> keep(args.size(), true);
      for (size_t i = 0; i < args.size(); ++i) {
        for (size_t j = i + 1; keep[i] && j < args.size(); ++j) {
          if (!keep[j]) continue;
          if (le(args[i], args[j])) {
            (is_min ? keep[j] : keep[i]) = false;
          } else if (le(args[j], args[i])) {
            (is_min ? keep[i] : keep[j]) = false;
          }
        }
      }
      std::optional<Expr> r;
      for (size_t i = 0; i < args.size(); ++i)
        if (keep[i]) r = r ? (is_min ? min(*r, args[i]) : max(*r, args[i])) : args[i];
      return *r;
    }
    default: return e;
  }
}

}  // namespace

std::optional<bool> ShapeEnv::static_eval(Rel rel, const Expr& lhs, const Expr& rhs) const {
  if (lhs == rhs) return rel == Rel::Eq || rel == Rel::Le || rel == Rel::Ge;
  if (static_cache_version_ != version_) {
    static_cache_.clear();
    static_cache_version_ = version_;
  }
  ExprKey key{static_cast<uint8_t>(rel), lhs, rhs};
  if (auto it = static_cache_.find(key); it != static_cache_.end()) return it->second;
  std::optional<bool> r = static_eval_uncached(rel, lhs, rhs);
  static_cache_.emplace(std::move(key), r);
  return r;
}

std::optional<bool> ShapeEnv::static_eval_uncached(Rel rel, const Expr& lhs, const Expr& rhs) const {
  const Expr d = replace(drop_dominated(*this, replace(lhs)) - drop_dominated(*this, replace(rhs)));
  if (d.is_constant()) return rel_holds(rel, d.constant(), 0);
  // d is a multiple of an assumed-zero difference plus a constant (PyTorch substitutes its axioms'
  // implications): ga*d - gd*a == K with a == 0 gives d == K/ga, whose sign is K's.
  const int64_t gd = coefficient_gcd(d);
  for (const Expr& ax : axioms_) {
    const Expr a = replace(ax);
    const int64_t ga = coefficient_gcd(a);
    for (const Expr& k : {replace(ga * d - gd * a), replace(ga * d + gd * a)})
      if (k.is_constant()) return rel_holds(rel, k.constant(), 0);
  }
  // An assumed inequality (a deferred runtime assertion) answers the same fact or its negation, as
  // PyTorch's axioms answer their implications; it narrows no range of an applied atom.
  if (rel != Rel::Eq && rel != Rel::Ne && !ineq_axioms_.empty()) {
    // d rel 0 as q >= 0: Ge d, Gt d - 1, Le -d, Lt -d - 1; its negation is -q - 1 >= 0.
    const Expr q = rel == Rel::Ge ? d : rel == Rel::Gt ? d - 1 : rel == Rel::Le ? -d : -d - 1;
    const NonNeg yes = non_neg(q), no = non_neg(-q - 1);
    for (const Expr& ax : ineq_axioms_) {
      const NonNeg a = non_neg(replace(ax));
      if (a.same(yes)) return true;
      if (a.same(no)) return false;
    }
  }
  const ValueRange b = bound(d);
  const bool pos = b.lo > 0, neg = b.hi < 0, nonneg = b.lo >= 0, nonpos = b.hi <= 0;
  switch (rel) {
    case Rel::Eq: if (pos || neg) return false; if (nonneg && nonpos) return true; break;
    case Rel::Ne: if (pos || neg) return true; if (nonneg && nonpos) return false; break;
    case Rel::Lt: if (neg) return true; if (nonneg) return false; break;
    case Rel::Le: if (nonpos) return true; if (pos) return false; break;
    case Rel::Gt: if (pos) return true; if (nonpos) return false; break;
    case Rel::Ge: if (nonneg) return true; if (neg) return false; break;
  }
  return std::nullopt;
}

bool ShapeEnv::evaluate(Rel rel, const SymInt& a, const SymInt& b, std::source_location where) {
  const Expr l = a.is_symbolic() ? simplified(*a.node()) : Expr(a.hint());
  const Expr r = b.is_symbolic() ? simplified(*b.node()) : Expr(b.hint());
  if (auto known = static_eval(rel, l, r)) return *known;
  const bool value = rel_holds(rel, a.hint(), b.hint());
  const Rel effective = value ? rel : negate(rel);
  // A relation already guarded is a known fact (PyTorch does not record it twice).
  for (const Guard& g : guards_)
    if (g.rel == effective && g.lhs == l && g.rhs == r) return value;
  guards_.push_back({effective, l, r, std::string(ctx_.op),
                     ctx_.call ? std::optional<SrcLocArg>(*ctx_.call) : std::nullopt, where});
  refine_ranges(effective, l, r);
  if (effective == Rel::Eq) maybe_replace(l, r);
  return value;
}

void ShapeEnv::equate(const Expr& a, const Expr& b, std::source_location where) {
  const Expr l = replace(a), r = replace(b);
  if (auto known = static_eval(Rel::Eq, l, r); known && *known) return;
  guards_.push_back({Rel::Eq, l, r, {}, std::nullopt, where});
  refine_ranges(Rel::Eq, l, r);
  maybe_replace(l, r);
}

bool is_unbacked_symbol(const SymInt& s) {
  if (!s.is_symbolic()) return false;
  const std::string t = s.str();
  return t.size() > 1 && t[0] == 'u' && t.find_first_not_of("0123456789", 1) == std::string::npos;
}

bool has_unbacked(const SymInt& s) {
  if (!s.is_symbolic()) return false;
  // u0: an unbacked int; zuf0: an unbacked float (item() of a float tensor; sizes over it are
  // CeilToInt(...) atoms).
  for (const std::string& f : s.expr().free_symbols())
    if (is_unbacked_name(f)) return true;
  return false;
}

void ShapeEnv::add_modular_guard(ModularGuard g) {
  for (const ModularGuard& o : modular_guards_)
    if (o.text == g.text && o.symbol == g.symbol) return;
  modular_guards_.push_back(std::move(g));
}

void ShapeEnv::assume_equal(const Expr& a, const Expr& b) {
  const Expr l = replace(a), r = replace(b);
  if (auto known = static_eval(Rel::Eq, l, r); known && *known) return;
  axioms_.push_back(l - r);
  ++version_;  // static answers may change
  refine_ranges(Rel::Eq, l, r);
}

void ShapeEnv::assume(Rel rel, const Expr& lhs, const Expr& rhs) {
  if (rel == Rel::Eq) return assume_equal(lhs, rhs);
  const Expr l = replace(lhs), r = replace(rhs);
  if (auto known = static_eval(rel, l, r); known && *known) return;
  const Expr d = l - r;
  ineq_axioms_.push_back(rel == Rel::Ge ? d : rel == Rel::Gt ? d - 1 : rel == Rel::Le ? -d : -d - 1);
  ++version_;  // static answers may change
  refine_ranges(rel, l, r);
}

void ShapeEnv::forget_assumptions() {
  if (axioms_.empty() && ineq_axioms_.empty()) return;
  axioms_.clear();
  ineq_axioms_.clear();
  ++version_;
}

void ShapeEnv::intersect_range(const std::string& sym, ValueRange r) {
  if (SymbolInfo* s = symbol(sym)) {
    ValueRange n = s->range & r;
    if (n == s->range) return;
    s->range = n;
    ++version_;  // cached simplifications do not depend on ranges, but static answers may change
  }
}

// _refine_ranges: solve the relation for each free symbol with a unit coefficient and narrow
// that symbol's range by the bounds of the other side.
void ShapeEnv::refine_ranges(Rel rel, const Expr& lhs, const Expr& rhs) {
  if (rel == Rel::Ne) return;
  const Expr e = lhs - rhs;  // e rel 0
  for (const std::string& x : e.free_symbols()) {
    SymbolInfo* s = symbol(x);
    if (!s) continue;
    auto lin = linear_in(e, x);
    if (!lin || (lin->first != 1 && lin->first != -1)) continue;
    // c*x + rest rel 0  =>  x rel' -rest/c
    const Rel r = lin->first == 1 ? rel : flip(rel);
    const Expr sol = lin->first == 1 ? -lin->second : lin->second;
    const ValueRange sb = bound(sol);
    int64_t lo = s->range.lo, hi = s->range.hi;
    if (lo <= sb.lo && (r == Rel::Eq || r == Rel::Ge || r == Rel::Gt))
      lo = (r == Rel::Gt && sb.lo != kNegInf && sb.lo != kPosInf) ? sb.lo + 1 : sb.lo;
    if (hi >= sb.hi && (r == Rel::Eq || r == Rel::Le || r == Rel::Lt))
      hi = (r == Rel::Lt && sb.hi != kPosInf && sb.hi != kNegInf) ? sb.hi - 1 : sb.hi;
    intersect_range(x, {lo, hi});
  }
}

// _maybe_guard_rel for Eq: solve for the free symbol with the largest (hint, name) and replace it.
void ShapeEnv::maybe_replace(const Expr& lhs, const Expr& rhs) {
  const Expr e = lhs - rhs;
  if (has_kind(e, Kind::Mod) || has_kind(e, Kind::FloorDiv)) return;
  std::vector<std::string> free;
  for (const auto& s : e.free_symbols())
    if (symbol(s)) free.push_back(s);
  if (free.empty()) return;
  const std::string x = *std::max_element(free.begin(), free.end(), [&](const std::string& p, const std::string& q) {
    const int64_t hp = hint_of(p), hq = hint_of(q);
    return hp != hq ? hp < hq : p < q;
  });
  auto lin = linear_in(e, x);
  if (!lin) return;
  const auto [c, rest] = *lin;
  Expr sol;
  if (c == 1) sol = -rest;
  else if (c == -1) sol = rest;
  else if (rest.is_constant() && rest.constant() % c == 0) sol = Expr(-rest.constant() / c);
  else return;
  set_replacement(x, sol);
}

void ShapeEnv::set_replacement(const std::string& sym, const Expr& value, bool check_range) {
  const Expr v = replace(value);
  SymbolInfo* s = symbol(sym);
  if (s && check_range && v.is_constant())
    FE_INTERNAL_ASSERT(s->range.contains(v.constant()), "ShapeEnv: replacement ", sym, " := ", v.str(),
                       " outside its range ", s->range.str());
  // The survivor inherits the replaced symbol's range: s15 in [18, 512] := s77 + 2 bounds s77 by [16, 510].
  if (s) {
    const auto free = v.free_symbols();
    if (free.size() == 1) {
      const std::string y = *free.begin();
      if (auto lin = linear_in(v, y); lin && lin->second.is_constant() && (lin->first == 1 || lin->first == -1)) {
        const int64_t k = lin->second.constant();
        auto shift = [&](int64_t b) { return b == kPosInf || b == kNegInf ? b : b - k; };
        ValueRange r{shift(s->range.lo), shift(s->range.hi)};
        if (lin->first == -1) r = {r.hi == kPosInf ? kNegInf : -r.hi, r.lo == kNegInf ? kPosInf : -r.lo};
        intersect_range(y, r);
      }
    }
  }
  std::map<std::string, Expr, std::less<>> one{{sym, v}};
  for (auto& [k, old] : replacements_) old = old.substitute(one);
  replacements_[sym] = v;
  ++version_;
}

}  // namespace fe::sym
