// SymInt: an integer that will later also be a symbolic expression (issue: symbolic shapes).
// Today it is always concrete; the API is the one symbolic code will use.
#pragma once
#include <cstdint>
#include <ostream>

namespace fe {

/// One machine word; concrete fast path. Symbolic values arrive with the ShapeEnv.
class SymInt {
 public:
  constexpr SymInt(int64_t v = 0) : v_(v) {}  // NOLINT: implicit like c10::SymInt

  constexpr bool is_symbolic() const { return false; }
  /// The concrete value; for a symbolic value this would record a guard.
  constexpr int64_t expect_int() const { return v_; }
  /// The example value (hint) used where a concrete answer is needed without a guard.
  constexpr int64_t hint() const { return v_; }

  friend constexpr SymInt operator+(SymInt a, SymInt b) { return a.v_ + b.v_; }
  friend constexpr SymInt operator-(SymInt a, SymInt b) { return a.v_ - b.v_; }
  friend constexpr SymInt operator*(SymInt a, SymInt b) { return a.v_ * b.v_; }
  friend constexpr bool operator==(SymInt a, SymInt b) { return a.v_ == b.v_; }
  friend constexpr bool operator<(SymInt a, SymInt b) { return a.v_ < b.v_; }
  friend constexpr bool operator<=(SymInt a, SymInt b) { return a.v_ <= b.v_; }
  friend constexpr bool operator>(SymInt a, SymInt b) { return a.v_ > b.v_; }
  friend constexpr bool operator>=(SymInt a, SymInt b) { return a.v_ >= b.v_; }
  friend std::ostream& operator<<(std::ostream& os, SymInt s) { return os << s.v_; }

 private:
  int64_t v_;
};

}  // namespace fe
