// See contiguity_trace.h. Mirrors c10/core/Contiguity.h's loops step by step; each value is an
// expression (never SymInt arithmetic, which would itself be traced).
#include "export/contiguity_trace.h"

#include <algorithm>
#include <optional>

namespace fe::detail {
namespace {

/// A value of the check: symbolic (an expression) or a constant.
struct Val {
  sym::Expr e;
  int64_t hint = 0;
  bool symbolic() const { return !e.is_constant(); }
};

Val val(const SymInt& s) { return {s.expr(), s.hint()}; }
Val times(const Val& a, const Val& b) { return {a.e * b.e, a.hint * b.hint}; }

/// a == b when known without a guard (equal expressions or constants), else nullopt.
std::optional<bool> known_equal(const Val& a, const Val& b) {
  if (a.e == b.e) return true;
  if (!a.symbolic() && !b.symbolic()) return a.e.constant() == b.e.constant();
  return std::nullopt;
}

class Check {
 public:
  Check(sym::SymTracer& t, std::span<const SymInt> sizes, std::span<const SymInt> strides,
        std::unordered_set<const void*>& read)
      : t_(t), sizes_(sizes), strides_(strides), read_(read) {}

  void run() {
    t_.on_dropped("sym_numel_default", {});
    if (or_false()) return;
    expression();
    hinted();
  }

 private:
  void drop(std::string_view base) { t_.on_dropped(base, {}); }
  void drop_size(std::string_view base, size_t d) { t_.on_dropped(base, sizes_.subspan(d, 1)); }
  /// The stride as a graph value: a sym_stride node the first time this value is read.
  void read_stride(size_t d) {
    const SymInt& st = strides_[d];
    if (st.is_symbolic() && read_.insert(st.node()).second) t_.on_dropped("sym_stride_int", {});
  }
  /// A comparison of stride d with `v`: a node when either is symbolic.
  void compare_stride(std::string_view base, size_t d, const Val& v) {
    if (strides_[d].is_symbolic()) read_stride(d);
    if (strides_[d].is_symbolic() || v.symbolic()) drop(base);
  }

  /// is_contiguous_or_false: true when provably contiguous.
  bool or_false() {
    drop("eq");  // Eq(numel, 0)
    Val expected{sym::Expr(1), 1}, expected_max{sym::Expr(1), 1};
    for (size_t d = sizes_.size(); d-- > 0;) {
      const SymInt& size = sizes_[d];
      const Val stride = val(strides_[d]);
      if (size.is_symbolic()) drop_size("eq", d);  // guard_or_false(Eq(size, 1)): false
      else if (size.hint() == 1) continue;
      // guard_or_true(Ne(stride, expected)) && guard_or_true(Ne(stride, expected_max))
      compare_stride("ne", d, expected);
      if (known_equal(stride, expected) != true) {
        compare_stride("ne", d, expected_max);
        if (known_equal(stride, expected_max) != true) return false;
      }
      if (size.is_symbolic()) {
        drop("sym_max");
        drop("mul");
        expected_max = {expected_max.e * sym::max(size.expr(), sym::Expr(1)), expected_max.hint * std::max<int64_t>(size.hint(), 1)};
      } else {
        if (expected_max.symbolic()) drop("mul");
        expected_max = times(expected_max, {sym::Expr(std::max<int64_t>(size.hint(), 1)), std::max<int64_t>(size.hint(), 1)});
      }
      if (size.is_symbolic() || expected.symbolic()) drop("mul");
      expected = times(expected, val(size));
    }
    return true;
  }

  /// The expression of contiguity: And over dims of Or(Eq(size, 1), Eq(stride, expected)), Or'd
  /// with Eq(numel, 0); SymBool and/or make a node whenever an operand is symbolic.
  void expression() {
    drop("eq");  // is_empty
    bool cond_symbolic = false;
    Val expected{sym::Expr(1), 1};
    for (size_t d = sizes_.size(); d-- > 0;) {
      const SymInt& size = sizes_[d];
      const bool a = size.is_symbolic();
      if (a) drop_size("eq", d);
      compare_stride("eq", d, expected);
      const bool b = (strides_[d].is_symbolic() || expected.symbolic()) && !known_equal(val(strides_[d]), expected);
      if (a || b) drop("or_");
      if (cond_symbolic || a || b) {
        drop("and_");
        cond_symbolic = true;
      }
      if (size.is_symbolic() || expected.symbolic()) drop("mul");
      expected = times(expected, val(size));
    }
    drop("or_");  // cond | is_empty
  }

  /// _compute_contiguous on the hints (all sizes and strides have them), a node per symbolic step.
  void hinted() {
    drop("eq");  // numel == 0
    Val expected{sym::Expr(1), 1};
    for (size_t d = sizes_.size(); d-- > 0;) {
      const SymInt& size = sizes_[d];
      if (size.is_symbolic()) drop_size("eq", d);
      if (size.hint() == 1) continue;
      compare_stride("ne", d, expected);
      if (strides_[d].hint() != expected.hint) return;
      if (size.is_symbolic() || expected.symbolic()) drop("mul");
      expected = times(expected, val(size));
    }
  }

  sym::SymTracer& t_;
  std::span<const SymInt> sizes_, strides_;
  std::unordered_set<const void*>& read_;
};

}  // namespace

void record_contiguity_check(sym::SymTracer& t, std::span<const SymInt> sizes, std::span<const SymInt> strides,
                             std::unordered_set<const void*>& strides_read) {
  Check(t, sizes, strides, strides_read).run();
}

}  // namespace fe::detail
