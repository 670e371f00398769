// SymInt: an int64, or a symbolic integer expression with a hint (c10::SymInt's role).
// Concrete values never allocate; symbolic values point to a node owned by a sym::ShapeEnv.
// Comparisons return bool like c10's: on symbolic values they record a guard in the ShapeEnv
// (with the C++ line that asked) and answer from the hints; sym_eq()... give SymBool without one.
#pragma once
#include <concepts>
#include <cstdint>
#include <optional>
#include <ostream>
#include <source_location>
#include <string>
#include <string_view>

namespace fe {
namespace sym {
struct SymNode;
class Expr;
}  // namespace sym

/// int64 or symbolic expression; 16 bytes, trivially copyable.
class SymInt {
 public:
  constexpr SymInt(int64_t v = 0) : v_(v) {}  // NOLINT: implicit like c10::SymInt
  /// A symbolic value (made by sym::ShapeEnv) with its example value.
  SymInt(const sym::SymNode* node, int64_t hint) : v_(hint), n_(node) {}

  constexpr bool is_symbolic() const { return n_ != nullptr; }
  /// The concrete value; on a symbolic value this guards that it equals its hint (specializes).
  int64_t expect_int(std::source_location where = std::source_location::current()) const {
    return n_ ? guard_int(where) : v_;
  }
  /// The example value, without a guard.
  constexpr int64_t hint() const { return v_; }
  const sym::SymNode* node() const { return n_; }
  /// The value when known without a guard (concrete, or an expression that simplified to a constant).
  std::optional<int64_t> maybe_int() const;
  /// The expression with the ShapeEnv's current replacements applied (a constant for concrete values).
  sym::Expr expr() const;
  /// "s17*s77", "5": the expression as sympy prints it.
  std::string str() const;
  /// Same value without asking for a guard: equal constants or identical simplified expressions.
  bool same_as(const SymInt& o) const;

  friend std::ostream& operator<<(std::ostream& os, const SymInt& s);

 private:
  int64_t guard_int(std::source_location where) const;
  int64_t v_;
  const sym::SymNode* n_ = nullptr;
};

/// Arithmetic of symbolic values (python operators; FloorDiv/Mod with Python's signs).
/// Neg is unary (`-a`; b unused): traced as `_operator.neg`, as Python records `-x` on a SymInt.
enum class SymOp : uint8_t { Add, Sub, Mul, FloorDiv, Mod, Min, Max, Neg };
/// Relations a guard can state.
enum class Rel : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

namespace detail {
SymInt sym_binary(SymOp op, const SymInt& a, const SymInt& b);
bool sym_compare(Rel rel, const SymInt& a, const SymInt& b, std::source_location where);
bool rel_holds(Rel rel, int64_t a, int64_t b);  ///< `a rel b` on concrete values
int64_t py_floordiv(int64_t a, int64_t b);  ///< ValueError on division by zero
int64_t py_mod(int64_t a, int64_t b);
}  // namespace detail

inline SymInt operator+(const SymInt& a, const SymInt& b) {
  if (!a.is_symbolic() && !b.is_symbolic()) return a.hint() + b.hint();
  return detail::sym_binary(SymOp::Add, a, b);
}
inline SymInt operator-(const SymInt& a, const SymInt& b) {
  if (!a.is_symbolic() && !b.is_symbolic()) return a.hint() - b.hint();
  return detail::sym_binary(SymOp::Sub, a, b);
}
inline SymInt operator*(const SymInt& a, const SymInt& b) {
  if (!a.is_symbolic() && !b.is_symbolic()) return a.hint() * b.hint();
  return detail::sym_binary(SymOp::Mul, a, b);
}
inline SymInt operator-(const SymInt& a) {
  if (!a.is_symbolic()) return -a.hint();
  return detail::sym_binary(SymOp::Neg, a, SymInt(0));
}
inline SymInt& operator+=(SymInt& a, const SymInt& b) { return a = a + b; }
inline SymInt& operator-=(SymInt& a, const SymInt& b) { return a = a - b; }
inline SymInt& operator*=(SymInt& a, const SymInt& b) { return a = a * b; }
/// Python `a // b`.
inline SymInt floordiv(const SymInt& a, const SymInt& b) {
  if (!a.is_symbolic() && !b.is_symbolic()) return detail::py_floordiv(a.hint(), b.hint());
  return detail::sym_binary(SymOp::FloorDiv, a, b);
}
/// Python `a % b`.
inline SymInt mod(const SymInt& a, const SymInt& b) {
  if (!a.is_symbolic() && !b.is_symbolic()) return detail::py_mod(a.hint(), b.hint());
  return detail::sym_binary(SymOp::Mod, a, b);
}
/// torch.sym_min / sym_max: no guard.
inline SymInt sym_min(const SymInt& a, const SymInt& b) {
  if (!a.is_symbolic() && !b.is_symbolic()) return a.hint() < b.hint() ? a : b;
  return detail::sym_binary(SymOp::Min, a, b);
}
inline SymInt sym_max(const SymInt& a, const SymInt& b) {
  if (!a.is_symbolic() && !b.is_symbolic()) return a.hint() < b.hint() ? b : a;
  return detail::sym_binary(SymOp::Max, a, b);
}

/// One operand of a comparison; the conversion captures the caller's line for the guard it may record.
struct SymCmpArg {
  SymCmpArg(const SymInt& v, std::source_location w = std::source_location::current()) : v(v), where(w) {}
  template <std::integral I>
  SymCmpArg(I v, std::source_location w = std::source_location::current())  // NOLINT
      : v(static_cast<int64_t>(v)), where(w) {}
  SymInt v;
  std::source_location where;
};

#define FE_SYM_COMPARE(OP, REL)                                                    \
  inline bool operator OP(const SymCmpArg& a, const SymCmpArg& b) {                \
    if (!a.v.is_symbolic() && !b.v.is_symbolic()) return a.v.hint() OP b.v.hint(); \
    return detail::sym_compare(Rel::REL, a.v, b.v, a.where);                       \
  }
FE_SYM_COMPARE(==, Eq)
FE_SYM_COMPARE(!=, Ne)
FE_SYM_COMPARE(<, Lt)
FE_SYM_COMPARE(<=, Le)
FE_SYM_COMPARE(>, Gt)
FE_SYM_COMPARE(>=, Ge)
#undef FE_SYM_COMPARE

/// A relation between two SymInts that has not been turned into a bool (no guard yet).
class SymBool {
 public:
  SymBool(Rel rel, const SymInt& a, const SymInt& b) : rel_(rel), a_(a), b_(b) {}
  Rel rel() const { return rel_; }
  const SymInt& lhs() const { return a_; }
  const SymInt& rhs() const { return b_; }
  /// The answer on the hints, without a guard.
  bool hint() const;
  /// true/false when the ShapeEnv can prove it from ranges and replacements; no guard.
  std::optional<bool> maybe_static() const;
  /// The answer, recording a guard when it is not statically known.
  bool guard(std::source_location where = std::source_location::current()) const;
  /// "Eq(s15, s77 + 2)", "s77 >= 16": as sympy prints the relation.
  std::string str() const;
  SymBool operator!() const;

 private:
  Rel rel_;
  SymInt a_, b_;
};
inline SymBool sym_eq(const SymInt& a, const SymInt& b) { return {Rel::Eq, a, b}; }
inline SymBool sym_ne(const SymInt& a, const SymInt& b) { return {Rel::Ne, a, b}; }
inline SymBool sym_lt(const SymInt& a, const SymInt& b) { return {Rel::Lt, a, b}; }
inline SymBool sym_le(const SymInt& a, const SymInt& b) { return {Rel::Le, a, b}; }
inline SymBool sym_gt(const SymInt& a, const SymInt& b) { return {Rel::Gt, a, b}; }
inline SymBool sym_ge(const SymInt& a, const SymInt& b) { return {Rel::Ge, a, b}; }
/// torch._check: throws UserError (naming `where` and `message`) unless `cond`; a comparison of
/// symbolic sizes inside `cond` has already recorded its guard, which export keeps.
void check(bool cond, std::string_view message = {}, std::source_location where = std::source_location::current());

/// PyTorch's statically_known_true: true only when provable without a guard.
inline bool statically_known_true(const SymBool& b) { return b.maybe_static().value_or(false); }

}  // namespace fe
