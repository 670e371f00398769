// Symbolic division helpers of the view family. The shared sym::floordiv / sym::mod implement
// torch's FloorDiv / Mod rules for constant divisors; view shape inference also divides by
// symbolic sizes (`numel // newsize`, `accum % length`), where sympy cancels common factors:
// (24*s0)//s0 -> 24, Mod(s0*s1, s0) -> 0, Mod(s0, 3*s0) -> s0. Without those, guards PyTorch
// never records (Ne(Mod(48*s0*s1, s0*s1), 0)) would appear.
#include <algorithm>
#include <map>
#include <numeric>

#include "fakeexport/core/error.h"
#include "fakeexport/sym/shape_env.h"
#include "ops/meta_util.h"
#include "ops/view_impl.h"

namespace fe::ops {
namespace {

using sym::Expr;
using sym::Kind;

/// One product term c * b1**e1 * b2**e2 ... (sympy Mul.make_args with the integer pulled out).
struct Mono {
  int64_t coeff = 1;
  std::vector<std::pair<Expr, int64_t>> factors;  // base -> exponent, canonical order
};

Mono mono_of_term(const Expr& t, int64_t coeff) {
  Mono m;
  m.coeff = coeff;
  if (t.kind() == Kind::Mul) m.factors = t.terms();
  else if (!t.is_constant()) m.factors = {{t, 1}};
  else m.coeff *= t.constant();
  return m;
}

/// sympy Add.make_args: the terms of a sum (its constant included), each as a Mono.
std::vector<Mono> terms_of(const Expr& e) {
  std::vector<Mono> out;
  if (e.kind() == Kind::Add) {
    if (e.add_constant() != 0) out.push_back(Mono{e.add_constant(), {}});
    for (const auto& [t, c] : e.terms()) out.push_back(mono_of_term(t, c));
  } else {
    out.push_back(mono_of_term(e, 1));
  }
  return out;
}

Expr expr_of(const Mono& m) {
  Expr r = m.coeff;
  for (const auto& [b, x] : m.factors)
    for (int64_t i = 0; i < x; ++i) r = r * b;
  return r;
}

Expr expr_of(const std::vector<Mono>& ms) {
  Expr r = 0;
  for (const Mono& m : ms) r = r + expr_of(m);
  return r;
}

int64_t exponent_in(const Mono& m, const Expr& base) {
  for (const auto& [b, x] : m.factors)
    if (b == base) return x;
  return 0;
}

/// m / d when d divides m exactly (integer coefficient, exponents >= 0), as sympy cancels it.
std::optional<Mono> divide(const Mono& m, const Mono& d) {
  if (d.coeff == 0 || m.coeff % d.coeff != 0) return std::nullopt;
  Mono q;
  q.coeff = m.coeff / d.coeff;
  for (const auto& [b, x] : d.factors)
    if (exponent_in(m, b) < x) return std::nullopt;
  for (const auto& [b, x] : m.factors) {
    const int64_t left = x - exponent_in(d, b);
    if (left > 0) q.factors.emplace_back(b, left);
  }
  return q;
}

/// sympy's sign of a sum of products of positive symbols: +1 / -1 when every term agrees.
int sign_of(const std::vector<Mono>& ms) {
  bool pos = false, neg = false;
  for (const Mono& m : ms) {
    for (const auto& [b, x] : m.factors)
      if (!b.is_symbol()) return 0;  // FloorDiv/Mod/Add bases: sympy does not know their sign here
    if (m.coeff > 0) pos = true;
    if (m.coeff < 0) neg = true;
  }
  if (pos == neg) return 0;
  return pos ? 1 : -1;
}

/// torch.utils._sympy.functions.simple_floordiv_gcd: integer gcd times the syntactic common factors.
Mono simple_floordiv_gcd(const std::vector<Mono>& p, const Mono& q) {
  int64_t g = std::abs(q.coeff);
  for (const Mono& m : p) g = std::gcd(g, std::abs(m.coeff));
  Mono r;
  r.coeff = g == 0 ? 1 : g;
  for (const auto& [b, x] : q.factors) {
    bool everywhere = true;
    for (const Mono& m : p) everywhere = everywhere && exponent_in(m, b) == x;  // `x in Mul.make_args(term)`
    if (everywhere) r.factors.emplace_back(b, x);
  }
  return r;
}

Expr floordiv_expr(const Expr& a, const Expr& b) {
  if (b.is_constant() || a.is_constant() || a == b) return sym::floordiv(a, b);
  if (a.kind() == Kind::FloorDiv) return floordiv_expr(a.args()[0], a.args()[1] * b);
  const std::vector<Mono> pb = terms_of(b);
  if (pb.size() != 1) return sym::floordiv(a, b);
  const std::vector<Mono> pa = terms_of(a);
  const Mono g = simple_floordiv_gcd(pa, pb[0]);
  if (g.coeff == 1 && g.factors.empty()) return sym::floordiv(a, b);
  std::vector<Mono> na;
  for (const Mono& m : pa) na.push_back(*divide(m, g));
  return floordiv_expr(expr_of(na), expr_of(*divide(pb[0], g)));
}

Expr mod_expr(const Expr& p, const Expr& q) {
  if (q.is_constant() || p.is_constant() || p == q || p == -q) return sym::mod(p, q);
  const std::vector<Mono> pp = terms_of(p), pq = terms_of(q);
  // If p is a multiple of q (p / q is an integer after sympy's automatic cancellation).
  if (pp.size() == 1 && pq.size() == 1 && divide(pp[0], pq[0])) return Expr(0);
  // If p < q and p / q is positive: p.
  if (sign_of(pp) > 0 && sign_of(pq) > 0 && sign_of(terms_of(p - q)) < 0) return p;
  return sym::mod(p, q);
}

/// A polynomial over symbols: monomial (symbol -> exponent, sorted) -> coefficient.
using Poly = std::map<std::vector<std::pair<std::string, int64_t>>, int64_t>;

Poly poly_mul(const Poly& a, const Poly& b) {
  Poly r;
  for (const auto& [ma, ca] : a)
    for (const auto& [mb, cb] : b) {
      std::map<std::string, int64_t> m(ma.begin(), ma.end());
      for (const auto& [s, x] : mb) m[s] += x;
      r[{m.begin(), m.end()}] += ca * cb;
    }
  return r;
}

void poly_add(Poly& a, const Poly& b, int64_t c) {
  for (const auto& [m, k] : b) a[m] += c * k;
}

/// Pseudo-symbols standing for FloorDiv/Mod atoms known to be >= 0 (not >= 1 like shifted symbols).
constexpr char kAtom = '\x01';

/// What the signs of the coefficients prove, each shifted symbol being >= 1 and each atom >= 0.
struct Sign {
  bool nonneg = false, pos = false, nonpos = false, neg = false;
};

Sign poly_sign(const Poly& p) {
  bool any_pos = false, any_neg = false, pos_unit = false, neg_unit = false;
  for (const auto& [m, c] : p) {
    const bool unit = std::none_of(m.begin(), m.end(), [](const auto& f) { return f.first[0] == kAtom; });
    if (c > 0) any_pos = true, pos_unit = pos_unit || unit;
    if (c < 0) any_neg = true, neg_unit = neg_unit || unit;
  }
  Sign r;
  r.nonneg = !any_neg;
  r.pos = !any_neg && pos_unit;
  r.nonpos = !any_pos;
  r.neg = !any_pos && neg_unit;
  return r;
}

/// The expanded polynomial, with every symbol s of lower bound lo written as t + (lo - 1), t >= 1
/// (what ShapeEnv._maybe_evaluate_static does before bounding). nullopt for FloorDiv/Mod/Min/Max.
std::optional<Poly> shifted_poly(const sym::ShapeEnv& env, const Expr& e);

std::optional<Poly> shifted_poly(const sym::ShapeEnv& env, const Expr& e) {
  switch (e.kind()) {
    case Kind::Const: return Poly{{{}, e.constant()}};
    case Kind::Symbol: {
      const sym::SymbolInfo* s = env.symbol(e.name());
      if (!s || s->range.lo == sym::kNegInf || s->range.lo > (int64_t{1} << 40)) return std::nullopt;
      Poly p{{{{e.name(), 1}}, 1}};
      if (s->range.lo != 1) p[{}] = s->range.lo - 1;
      return p;
    }
    case Kind::Add: {
      Poly r{{{}, e.add_constant()}};
      for (const auto& [t, c] : e.terms()) {
        auto pt = shifted_poly(env, t);
        if (!pt) return std::nullopt;
        poly_add(r, *pt, c);
      }
      return r;
    }
    case Kind::Mul: {
      Poly r{{{}, 1}};
      for (const auto& [b, x] : e.terms()) {
        auto pb = shifted_poly(env, b);
        if (!pb || x < 0 || x > 8) return std::nullopt;
        for (int64_t i = 0; i < x; ++i) r = poly_mul(r, *pb);
      }
      return r;
    }
    case Kind::Mod:
    case Kind::FloorDiv: {
      auto pp = shifted_poly(env, e.args()[0]), pq = shifted_poly(env, e.args()[1]);
      if (!pp || !pq) return std::nullopt;
      if (e.kind() == Kind::Mod) {  // sympy, on the expanded shifted form, evaluates Mod(p, q) to p when 0 < p < q
        Poly diff = *pq;
        poly_add(diff, *pp, -1);
        if (poly_sign(*pp).pos && poly_sign(diff).pos) return pp;
      }
      // p // q and p % q are >= 0 for p >= 0, q > 0: an opaque nonnegative atom.
      if (!poly_sign(*pp).nonneg || !poly_sign(*pq).pos) return std::nullopt;
      return Poly{{{{std::string(1, kAtom) + e.str(), 1}}, 1}};
    }
    default: return std::nullopt;
  }
}

/// What d's sign is known to be: d == 0, d != 0, d < 0, ... as a relation of d to 0.
std::optional<bool> implied(Rel known, Rel asked) {
  // known: `d known 0` holds; asked: does `d asked 0` hold?
  if (known == asked) return true;
  switch (known) {
    case Rel::Eq: return asked == Rel::Le || asked == Rel::Ge;
    case Rel::Ne: if (asked == Rel::Eq) return false; break;
    case Rel::Lt: return asked == Rel::Le || asked == Rel::Ne;
    case Rel::Gt: return asked == Rel::Ge || asked == Rel::Ne;
    case Rel::Le: if (asked == Rel::Gt) return false; break;
    case Rel::Ge: if (asked == Rel::Lt) return false; break;
  }
  return std::nullopt;
}

Rel mirror(Rel r) {  // d rel 0  <=>  -d mirror(rel) 0
  switch (r) {
    case Rel::Lt: return Rel::Gt;
    case Rel::Gt: return Rel::Lt;
    case Rel::Le: return Rel::Ge;
    case Rel::Ge: return Rel::Le;
    default: return r;
  }
}

/// PyTorch evaluates a relation from the guards already recorded (ShapeEnv axioms and their
/// implications) before recording a new one; `d` is lhs - rhs with replacements applied.
std::optional<bool> from_guards(const sym::ShapeEnv& env, Rel rel, const Expr& d) {
  for (const sym::Guard& g : env.guards()) {
    const Expr gd = env.replace(g.lhs - g.rhs);
    std::optional<Rel> known;
    if (gd == d) known = g.rel;
    else if (gd == -d) known = mirror(g.rel);
    if (!known) continue;
    if (auto k = implied(*known, rel)) return k;
    if (auto k = implied(*known, sym::negate(rel)); k == true) return false;
  }
  return std::nullopt;
}

sym::ShapeEnv& env_of(const SymInt& a, const SymInt& b) {
  return *(a.is_symbolic() ? a.node() : b.node())->env;
}

}  // namespace

std::optional<bool> view_static(const SymBool& b) {
  if (auto k = b.maybe_static()) return k;
  const SymInt &l = b.lhs(), &r = b.rhs();
  const sym::ShapeEnv& env = env_of(l, r);
  if (auto k = from_guards(env, b.rel(), env.replace(l.expr() - r.expr()))) return k;
  auto p = shifted_poly(env, l.expr() - r.expr());
  if (!p) return std::nullopt;
  const Sign sg = poly_sign(*p);  // the sign of lhs - rhs
  switch (b.rel()) {
    case Rel::Eq: if (sg.pos || sg.neg) return false; break;
    case Rel::Ne: if (sg.pos || sg.neg) return true; break;
    case Rel::Lt: if (sg.neg) return true; if (sg.nonneg) return false; break;
    case Rel::Le: if (sg.nonpos) return true; if (sg.pos) return false; break;
    case Rel::Gt: if (sg.pos) return true; if (sg.nonpos) return false; break;
    case Rel::Ge: if (sg.nonneg) return true; if (sg.neg) return false; break;
  }
  return std::nullopt;
}

bool safe_guard(const SymBool& b, std::source_location where) {
  try {
    return b.guard(where);
  } catch (const ValueError&) {
    // The shared ShapeEnv records the guard, then its range refinement substitutes 0 for a symbol
    // that also divides (Mod(s0, (s0//4))) and divides by zero; PyTorch learns nothing there either.
    return b.hint();
  }
}

bool view_guard(const SymBool& b, std::source_location where) {
  if (auto k = view_static(b)) return *k;
  return safe_guard(b, where);
}

std::string dims_str(IntSpan s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + s[i].str();
  return out + "]";
}

SymBool py_rel(Rel rel, const SymInt& a, const SymInt& b) {
  if (a.is_symbolic() || !b.is_symbolic()) return {rel, a, b};
  switch (rel) {
    case Rel::Lt: return {Rel::Gt, b, a};
    case Rel::Le: return {Rel::Ge, b, a};
    case Rel::Gt: return {Rel::Lt, b, a};
    case Rel::Ge: return {Rel::Le, b, a};
    default: return {rel, b, a};
  }
}

bool guard_and(const SymBool& p, const SymBool& q, std::source_location where) {
  const auto kp = view_static(p), kq = view_static(q);
  if (kp == false || kq == false) return false;
  if (kp == true) return kq == true || safe_guard(q, where);
  if (kq == true) return safe_guard(p, where);
  return safe_guard(p, where) && safe_guard(q, where);
}

bool view_guard_or_false(const SymBool& b, std::source_location where) {
  if (sym::has_unbacked(b.lhs()) || sym::has_unbacked(b.rhs())) return b.maybe_static().value_or(false);
  return view_guard(b, where);
}

bool view_guard_or_true(const SymBool& b, std::source_location where) {
  if (sym::has_unbacked(b.lhs()) || sym::has_unbacked(b.rhs())) return b.maybe_static().value_or(true);
  return view_guard(b, where);
}

bool view_check(const SymBool& b, std::source_location where) {
  if (sym::has_unbacked(b.lhs()) || sym::has_unbacked(b.rhs())) return expect_true(b, where);
  return view_guard(b, where);
}

bool has_unbacked_input(IntSpan sizes, IntSpan strides, IntSpan shape) {
  for (IntSpan v : {sizes, strides, shape})
    for (const SymInt& s : v)
      if (sym::has_unbacked(s)) return true;
  return false;
}

bool guard_and_or_false(const SymBool& p, const SymBool& q, std::source_location where) {
  if (sym::has_unbacked(p.lhs()) || sym::has_unbacked(p.rhs()) || sym::has_unbacked(q.lhs()) || sym::has_unbacked(q.rhs()))
    return view_guard_or_false(p, where) && view_guard_or_false(q, where);
  return guard_and(p, q, where);
}

SymInt sym_div(const SymInt& a, const SymInt& b) {
  if (!a.is_symbolic() && !b.is_symbolic()) return floordiv(a, b);
  const Expr e = floordiv_expr(a.expr(), b.expr());
  if (e == sym::floordiv(a.expr(), b.expr())) return floordiv(a, b);
  if (e.is_constant()) return e.constant();
  return env_of(a, b).make(e, detail::py_floordiv(a.hint(), b.hint()));
}

SymInt sym_rem(const SymInt& a, const SymInt& b) {
  if (!a.is_symbolic() && !b.is_symbolic()) return mod(a, b);
  const Expr e = mod_expr(a.expr(), b.expr());
  if (e == sym::mod(a.expr(), b.expr())) return mod(a, b);
  if (e.is_constant()) return e.constant();
  if (e == a.expr()) return a;
  return env_of(a, b).make(e, detail::py_mod(a.hint(), b.hint()));
}

}  // namespace fe::ops
