// Symbolic integer expressions for symbolic shapes (sympy's role in PyTorch's ShapeEnv).
// Small immutable value type, canonical on construction, printed exactly like sympy's str().
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fe::sym {

enum class Kind : uint8_t { Const, Symbol, Add, Mul, FloorDiv, Mod, Min, Max };

struct Node;

/// An integer expression over named symbols (`s0`, `u3`, ...). Copying is a pointer copy.
/// Construction canonicalises, so equal expressions are structurally equal (operator==).
class Expr {
 public:
  Expr(int64_t v = 0);  // NOLINT: implicit so `2 * e + 1` reads as in Python
  static Expr symbol(std::string name);

  Kind kind() const;
  bool is_constant() const { return kind() == Kind::Const; }
  bool is_symbol() const { return kind() == Kind::Symbol; }
  /// The value of a constant; ValueError otherwise.
  int64_t constant() const;
  /// The name of a symbol; ValueError otherwise.
  const std::string& name() const;

  /// Add: (term, coefficient) pairs; Mul: (base, exponent) pairs; empty otherwise.
  const std::vector<std::pair<Expr, int64_t>>& terms() const;
  /// FloorDiv/Mod: {a, b}; Min/Max: the (sorted) arguments; empty otherwise.
  const std::vector<Expr>& args() const;
  /// The constant term of an Add (0 for other kinds).
  int64_t add_constant() const;

  /// Concrete value with Python semantics (floor division, modulo sign of the divisor).
  int64_t evaluate(const std::function<int64_t(std::string_view)>& value_of) const;
  int64_t evaluate(const std::map<std::string, int64_t, std::less<>>& values) const;
  std::set<std::string> free_symbols() const;
  /// Replaces symbols by expressions (simultaneously) and re-canonicalises.
  Expr substitute(const std::map<std::string, Expr, std::less<>>& repl) const;

  /// sympy's str() of the same expression, e.g. `2*s0 + 1`, `(s0//2)`, `Max(2, s0)`.
  std::string str() const;
  size_t hash() const;

  friend bool operator==(const Expr& a, const Expr& b);
  friend std::ostream& operator<<(std::ostream& os, const Expr& e) { return os << e.str(); }

  const Node& node() const { return *n_; }
  explicit Expr(std::shared_ptr<const Node> n) : n_(std::move(n)) {}

 private:
  std::shared_ptr<const Node> n_;
};

Expr operator+(const Expr& a, const Expr& b);
Expr operator-(const Expr& a, const Expr& b);
Expr operator*(const Expr& a, const Expr& b);
Expr operator-(const Expr& a);
/// Python `a // b` (torch.utils._sympy.functions.FloorDiv).
Expr floordiv(const Expr& a, const Expr& b);
/// Python `a % b` (torch's Mod).
Expr mod(const Expr& a, const Expr& b);
Expr min(const Expr& a, const Expr& b);
Expr max(const Expr& a, const Expr& b);

/// sympy's default_sort_key order (<0, 0, >0); the canonical order of terms, factors, arguments.
int compare(const Expr& a, const Expr& b);

// What a symbol's name says, as PyTorch names them.
/// An application we keep as an atom, named by its printed text (`CeilToInt(FloatTrueDiv(zuf0 - zuf1, -1.0))`).
inline bool is_applied_name(std::string_view name) { return !name.empty() && name.back() == ')'; }
/// A float symbol: `zuf0` (unbacked, item() of a float tensor) or `zf0` (backed).
inline bool is_float_name(std::string_view name) { return name.starts_with("zuf") || name.starts_with("zf"); }
/// A value read from data: an unbacked int (`u0`) or float (`zuf0`).
inline bool is_unbacked_name(std::string_view name) { return name.starts_with("u") || name.starts_with("zuf"); }

}  // namespace fe::sym

template <>
struct std::hash<fe::sym::Expr> {
  size_t operator()(const fe::sym::Expr& e) const { return e.hash(); }
};
