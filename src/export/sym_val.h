// A size value as the dropped-node models (contiguity_trace, refs_trace) follow it: its
// expression and hint, computed without SymInt arithmetic (which would itself be traced).
#pragma once
#include <optional>

#include "fakeexport/core/symint.h"
#include "fakeexport/sym/expr.h"
#include "fakeexport/sym/shape_env.h"

namespace fe::detail {

/// A value of a modelled check: symbolic (an expression) or a constant.
struct Val {
  sym::Expr e;
  int64_t hint = 0;
  bool symbolic() const { return !e.is_constant(); }
};

inline Val val(const SymInt& s) { return {s.expr(), s.hint()}; }
inline Val times(const Val& a, const Val& b) { return {a.e * b.e, a.hint * b.hint}; }
/// `a * b` as the trace records it, in Python or in c10's C++ alike: a `mul` node when either is
/// symbolic, unless one is the int 1 (an int reaches the proxy mode as a Python int, and its
/// peephole returns the other operand).
inline Val traced_mul(sym::SymTracer& t, const Val& a, const Val& b) {
  const bool one = (!a.symbolic() && a.e.constant() == 1) || (!b.symbolic() && b.e.constant() == 1);
  if ((a.symbolic() || b.symbolic()) && !one) t.on_dropped("mul", {});
  return times(a, b);
}
/// a == b when known without a guard (equal expressions or constants), else nullopt.
inline std::optional<bool> known_equal(const Val& a, const Val& b) {
  if (a.e == b.e) return true;
  if (!a.symbolic() && !b.symbolic()) return a.e.constant() == b.e.constant();
  return std::nullopt;
}

}  // namespace fe::detail
