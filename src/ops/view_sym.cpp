// Symbolic division helpers of the view family. The shared sym::floordiv / sym::mod implement
// torch's FloorDiv / Mod rules for constant divisors; view shape inference also divides by
// symbolic sizes (`numel // newsize`, `accum % length`), where sympy cancels common factors:
// (24*s0)//s0 -> 24, Mod(s0*s1, s0) -> 0, Mod(s0, 3*s0) -> s0. Without those, guards PyTorch
// never records (Ne(Mod(48*s0*s1, s0*s1), 0)) would appear.
#include <map>
#include <numeric>

#include "fakeexport/sym/shape_env.h"
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

/// The expanded polynomial, with every symbol s of lower bound lo written as t + (lo - 1), t >= 1
/// (what ShapeEnv._maybe_evaluate_static does before bounding). nullopt for FloorDiv/Mod/Min/Max.
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
    default: return std::nullopt;
  }
}

sym::ShapeEnv& env_of(const SymInt& a, const SymInt& b) {
  return *(a.is_symbolic() ? a.node() : b.node())->env;
}

}  // namespace

std::optional<bool> view_static(const SymBool& b) {
  if (auto k = b.maybe_static()) return k;
  const SymInt &l = b.lhs(), &r = b.rhs();
  const sym::ShapeEnv& env = env_of(l, r);
  auto p = shifted_poly(env, l.expr() - r.expr());
  if (!p) return std::nullopt;
  bool pos = false, neg = false;
  for (const auto& [m, c] : *p) {
    if (c > 0) pos = true;
    if (c < 0) neg = true;
  }
  if (pos == neg) return std::nullopt;  // mixed signs, or zero (maybe_static answers that)
  switch (b.rel()) {  // lhs - rhs > 0 when pos, < 0 when neg (every shifted monomial is >= 1)
    case Rel::Eq: return false;
    case Rel::Ne: return true;
    case Rel::Lt: case Rel::Le: return neg;
    case Rel::Gt: case Rel::Ge: return pos;
  }
  return std::nullopt;
}

bool view_guard(const SymBool& b, std::source_location where) {
  if (auto k = view_static(b)) return *k;
  return b.guard(where);
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
  if (kp == true) return kq == true || q.guard(where);
  if (kq == true) return p.guard(where);
  return p.guard(where) && q.guard(where);
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
