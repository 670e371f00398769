// See contiguity_trace.h. Mirrors c10/core/Contiguity.h's loops and torch._prims_common / torch._refs
// walks step by step; each value is an expression (never SymInt arithmetic, which would be traced).
#include "export/contiguity_trace.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "export/sym_val.h"
#include "ops/meta_util.h"

namespace fe::detail {
namespace {

class Check {
 public:
  Check(sym::SymTracer& t, std::span<const SymInt> sizes, std::span<const SymInt> strides,
        std::unordered_set<const void*>& read, const TracedStride& traced)
      : t_(t), sizes_(sizes), strides_(strides), read_(read), traced_(traced) {}

  void run(bool numel_read) {
    if (numel_read) t_.on_dropped("sym_numel_default", {});
    if (or_false()) return;
    expression();
    hinted();
  }

 private:
  void drop(std::string_view base) { t_.on_dropped(base, {}); }
  void drop_size(std::string_view base, size_t d) { t_.on_dropped(base, sizes_.subspan(d, 1)); }
  Val mul(const Val& a, const Val& b) { return traced_mul(t_, a, b); }
  /// The stride as a graph value: a sym_stride node the first time this value is read.
  void read_stride(size_t d) {
    const SymInt& st = strides_[d];
    if (!st.is_symbolic() || (traced_ && traced_(st))) return;
    if (read_.insert(st.node()).second) t_.on_dropped("sym_stride_int", {});
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
      // guard_or_true(Ne) on backed sizes guards: the hints decide whether the second is asked.
      if (known_equal(stride, expected) != true && stride.hint != expected.hint) {
        compare_stride("ne", d, expected_max);
        if (known_equal(stride, expected_max) != true && stride.hint != expected_max.hint) return false;
      }
      if (size.is_symbolic()) {
        drop("sym_max");
        expected_max = mul(expected_max, {sym::max(size.expr(), sym::Expr(1)), std::max<int64_t>(size.hint(), 1)});
      } else {
        expected_max = mul(expected_max, {sym::Expr(std::max<int64_t>(size.hint(), 1)), std::max<int64_t>(size.hint(), 1)});
      }
      expected = mul(expected, val(size));
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
      const bool b = (strides_[d].is_symbolic() || expected.symbolic());
      if (a || b) drop("or_");
      if (cond_symbolic || a || b) {
        drop("and_");
        cond_symbolic = true;
      }
      expected = mul(expected, val(size));
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
      expected = mul(expected, val(size));
    }
  }

  sym::SymTracer& t_;
  std::span<const SymInt> sizes_, strides_;
  std::unordered_set<const void*>& read_;
  const TracedStride& traced_;
};

/// The Python reference's walk (torch/_prims_common/__init__.py): SymInt operations in Python,
/// where the proxy mode returns `x` for `x * 1` without a node (its peephole) and a SymBool
/// operation makes a node whenever an operand is symbolic.
class RefsPerm {
 public:
  /// How a.numel() is had: a proxied FakeTensor's `sym_numel` read; c10's product of the sizes
  /// (`mul`s; a tensor beneath the proxy mode, the first time it is asked); or that product cached.
  enum class Numel { Read, Product, Known };
  RefsPerm(sym::SymTracer& t, std::span<const SymInt> sizes, std::span<const SymInt> strides,
           Numel numel = Numel::Read)
      : t_(t), sizes_(sizes), strides_(strides), numel_(numel) {}

  /// The logical-to-physical permutation, as PyTorch returns it.
  std::vector<size_t> run() {
    same_shape();
    const size_t n = sizes_.size();
    std::vector<size_t> identity(n);
    for (size_t d = 0; d < n; ++d) identity[d] = d;
    if (n <= 1) return identity;
    const bool contiguous = is_contiguous();
    const bool channels_last = n == 4 && is_channels_last_2d();
    if (contiguous && !channels_last) return identity;
    if (channels_last && !contiguous) return {0, 2, 3, 1};
    return sort();
  }

 private:
  void drop(std::string_view base) { t_.on_dropped(base, {}); }
  Val mul(const Val& a, const Val& b) { return traced_mul(t_, a, b); }
  /// A comparison `a rel b` (a node when either is symbolic), answered from the hints unless known.
  bool compare(std::string_view base, Rel rel, const Val& a, const Val& b) {
    if (!a.symbolic() && !b.symbolic()) return rel_holds(rel, a.e.constant(), b.e.constant());
    drop(base);
    if (rel == Rel::Eq || rel == Rel::Ne)
      if (auto k = known_equal(a, b)) return *k == (rel == Rel::Eq);
    return rel_holds(rel, a.hint, b.hint);
  }
  /// guard_or_false of a comparison in the stride sort: true only where known without a guard.
  bool known_true(std::string_view base, Rel rel, const Val& a, const Val& b) {
    if (!a.symbolic() && !b.symbolic()) return rel_holds(rel, a.e.constant(), b.e.constant());
    drop(base);
    if (rel == Rel::Eq) return known_equal(a, b) == true;
    return rel_holds(rel, a.hint, b.hint);
  }

  /// check_same_shape(t): sym_eq(shape, shape), reduced with `and_` from True.
  void same_shape() {
    bool acc_symbolic = false;
    for (const SymInt& s : sizes_) {
      const bool eq_symbolic = val(s).symbolic();
      if (eq_symbolic) drop("eq");
      if (acc_symbolic || eq_symbolic) {
        drop("and_");
        acc_symbolic = true;
      }
    }
  }

 public:
  /// is_contiguous(t, false_if_dde=True).
  bool is_contiguous() {
    Val numel{sym::Expr(1), 1};
    for (const SymInt& s : sizes_) numel = times(numel, val(s));
    if (numel.symbolic()) {
      if (numel_ == Numel::Product) {
        Val n{sym::Expr(1), 1};
        for (const SymInt& s : sizes_) n = mul(n, val(s));
      } else if (numel_ == Numel::Read) {
        drop("sym_numel_default");  // a.numel(): c10's cached numel, read once here
      }
      drop("lt");
    }
    if (numel.hint < 2) return true;
    std::vector<size_t> innermost_first;
    for (size_t d = sizes_.size(); d-- > 0;) innermost_first.push_back(d);
    return contiguous_along(innermost_first);
  }

  /// _is_non_overlapping_and_dense_or_false(sizes, strides): prod(sizes) (from the int 1) and its
  /// `lt` 2, a rank-1 tensor's `stride == 1`, then sorted() of the (size, stride) pairs by K.__lt__
  /// and check_contiguous_sizes_strides along them, smallest stride first.
  bool non_overlapping_and_dense() {
    Val numel{sym::Expr(1), 1};
    for (const SymInt& s : sizes_) numel = mul(numel, val(s));
    if (compare("lt", Rel::Lt, numel, {sym::Expr(2), 2})) return true;
    if (sizes_.size() == 1) return compare("eq", Rel::Eq, val(strides_[0]), {sym::Expr(1), 1});
    std::vector<size_t> order(sizes_.size());
    for (size_t d = 0; d < order.size(); ++d) order[d] = d;
    python_sort(order, [&](size_t a, size_t b) { return k_less(a, b); });
    return contiguous_along(order);
  }

 private:
  /// check_contiguous_sizes_strides(false_if_dde=True), walking these dims (innermost first).
  bool contiguous_along(std::span<const size_t> dims) {
    Val expected{sym::Expr(1), 1}, expected_max{sym::Expr(1), 1};
    for (size_t d : dims) {
      const Val x = val(sizes_[d]), y = val(strides_[d]);
      if (compare("eq", Rel::Eq, x, {sym::Expr(1), 1})) continue;
      if (compare("ne", Rel::Ne, y, expected) && compare("ne", Rel::Ne, y, expected_max)) return false;
      Val x_max{sym::max(x.e, sym::Expr(1)), std::max<int64_t>(x.hint, 1)};
      if (x.symbolic()) drop("sym_max");
      expected_max = mul(expected_max, x_max);
      expected = mul(expected, x);
    }
    return true;
  }

  /// K(size, stride).__lt__ of dims a and b (torch._prims_common): stride < other stride (an int on
  /// the left reflects to the SymInt's `gt`), else (stride == 0 or other stride % stride == 0) and
  /// stride != other stride. Each a node when an operand is symbolic, answered from the hints.
  bool k_less(size_t a, size_t b) {
    const Val sa = val(strides_[a]), sb = val(strides_[b]), zero{sym::Expr(0), 0};
    if (compare(sa.symbolic() ? "lt" : "gt", Rel::Lt, sa, sb)) return true;
    bool divides = compare("eq", Rel::Eq, sa, zero);
    if (!divides) {
      if (sa.symbolic() || sb.symbolic()) {
        drop("mod");
        drop("eq");
      }
      divides = sa.hint != 0 && sb.hint % sa.hint == 0;
    }
    return divides && compare("ne", Rel::Ne, sa, sb);
  }

  /// CPython's list.sort of fewer than 64 items with `less` as `<`: count_run (an ascending run,
  /// else a descending one, equal stretches kept in order, reversed, then extended), then binary
  /// insertion of the rest. Each call of `less` is a comparison Python makes.
  template <class Less>
  static void python_sort(std::vector<size_t>& v, Less&& less) {
    const size_t n = v.size();
    if (n < 2) return;
    size_t run = 1;
    while (run < n && !less(v[run], v[run - 1])) ++run;
    if (run < n) {
      bool done = false;
      if (run > 1) {
        if (less(v[0], v[run - 1])) done = true;
        else std::reverse(v.begin(), v.begin() + run);
      }
      if (!done) {
        ++run;
        size_t equal = 0;
        const auto reverse_equal = [&] {
          if (equal) std::reverse(v.begin() + (run - equal - 1), v.begin() + run);
          equal = 0;
        };
        for (; run < n; ++run) {
          if (less(v[run], v[run - 1])) {
            reverse_equal();
          } else if (less(v[run - 1], v[run])) {
            break;
          } else {
            ++equal;
          }
        }
        reverse_equal();
        std::reverse(v.begin(), v.begin() + run);
        while (run < n && !less(v[run], v[run - 1])) ++run;
      }
    }
    for (size_t i = run; i < n; ++i) {  // binarysort
      const size_t pivot = v[i];
      size_t lo = 0, hi = i;
      while (lo < hi) {
        const size_t mid = (lo + hi) >> 1;
        if (less(pivot, v[mid])) hi = mid;
        else lo = mid + 1;
      }
      v.erase(v.begin() + i);
      v.insert(v.begin() + lo, pivot);
    }
  }

 public:

  /// is_channels_last_contiguous_2d(t, false_if_dde=True) of a 4-D tensor.
  bool is_channels_last_2d() {
    Val expected{sym::Expr(1), 1};
    for (size_t d : {1, 3, 2, 0}) {
      const Val length = val(sizes_[d]);
      if (compare("eq", Rel::Eq, length, {sym::Expr(1), 1})) continue;
      if (compare("ne", Rel::Ne, val(strides_[d]), expected)) return false;
      expected = mul(expected, length);
    }
    return true;
  }

 private:
  /// ge(a, b) of should_swap: b == 0, a == 0, then a >= b or a % b == 0.
  bool ge(const Val& a, const Val& b) {
    const Val zero{sym::Expr(0), 0};
    if (known_true("eq", Rel::Eq, b, zero)) return true;
    if (known_true("eq", Rel::Eq, a, zero)) return false;
    if (known_true("ge", Rel::Ge, a, b)) return true;
    if (!a.symbolic() && !b.symbolic()) return a.e.constant() % b.e.constant() == 0;
    drop("mod");
    drop("eq");
    return false;
  }
  /// should_swap over the operands' strides (this tensor's unless others are given).
  int should_swap(size_t a, size_t b) {
    const std::span<const std::span<const SymInt>> operands =
        operands_.empty() ? std::span<const std::span<const SymInt>>(&strides_, 1) : operands_;
    for (const std::span<const SymInt>& strides : operands) {
      const Val sa = val(strides[a]), sb = val(strides[b]), zero{sym::Expr(0), 0};
      if (known_true("eq", Rel::Eq, sa, zero) || known_true("eq", Rel::Eq, sb, zero)) continue;
      if (known_true("eq", Rel::Eq, sa, sb)) {
        if (ge(val(sizes_[b]), val(sizes_[a]))) continue;
        return 1;
      }
      if (ge(sb, sa)) return -1;
      if (ge(sa, sb)) return 1;
    }
    return 0;
  }

 public:
  /// The insertion sort, back to front, over these operands' strides.
  std::vector<size_t> sort(std::span<const std::span<const SymInt>> operands) {
    operands_ = operands;
    return sort();
  }
  /// ... over this tensor's. The permutation, front to back (the sort's order reversed).
  std::vector<size_t> sort() {
    std::vector<size_t> perm;
    for (size_t d = sizes_.size(); d-- > 0;) perm.push_back(d);
    ops::sort_dims(perm, [&](size_t a, size_t b) { return should_swap(a, b); });
    std::reverse(perm.begin(), perm.end());
    return perm;
  }

 private:
  sym::SymTracer& t_;
  std::span<const SymInt> sizes_, strides_;
  Numel numel_ = Numel::Read;
  std::span<const std::span<const SymInt>> operands_;
};

}  // namespace

bool record_refs_is_contiguous(sym::SymTracer& t, std::span<const SymInt> sizes, std::span<const SymInt> strides,
                               bool numel_known) {
  return RefsPerm(t, sizes, strides, numel_known ? RefsPerm::Numel::Known : RefsPerm::Numel::Product).is_contiguous();
}

bool record_refs_is_channels_last_2d(sym::SymTracer& t, std::span<const SymInt> sizes, std::span<const SymInt> strides) {
  return sizes.size() == 4 && RefsPerm(t, sizes, strides).is_channels_last_2d();  // reads no numel
}

bool record_refs_non_overlapping_and_dense(sym::SymTracer& t, std::span<const SymInt> sizes,
                                           std::span<const SymInt> strides) {
  return RefsPerm(t, sizes, strides).non_overlapping_and_dense();
}

std::vector<size_t> record_refs_output_perm(sym::SymTracer& t, std::span<const SymInt> sizes,
                                            std::span<const SymInt> strides, bool numel_product) {
  return RefsPerm(t, sizes, strides, numel_product ? RefsPerm::Numel::Product : RefsPerm::Numel::Read).run();
}

bool record_channels_last_check(sym::SymTracer& t, std::span<const SymInt> sizes, std::span<const SymInt> strides) {
  if (sizes.size() != 4) return false;
  const auto node_if = [&](std::string_view base, const Val& a, const Val& b) {
    if (a.symbolic() || b.symbolic()) t.on_dropped(base, {});
  };
  const Val one{sym::Expr(1), 1};
  constexpr size_t order[] = {1, 3, 2, 0};
  // _compute_channels_last_contiguous_2d_sym's guard_or_false walk: true only when provably so.
  {
    Val expected = one;
    bool proved = true;
    for (size_t d : order) {
      const Val size = val(sizes[d]), stride = val(strides[d]);
      node_if("eq", size, one);
      if (known_equal(size, one) == true) continue;
      node_if("ne", stride, expected);
      if (known_equal(stride, expected) != true) {
        proved = false;
        break;
      }
      expected = traced_mul(t, expected, size);
    }
    if (proved) return true;
  }
  // Its expression: And over {1, 3, 2, 0} of Or(Eq(size, 1), Eq(stride, expected)).
  {
    Val expected = one;
    bool cond_symbolic = false;
    for (size_t d : order) {
      const Val size = val(sizes[d]), stride = val(strides[d]);
      const bool a = size.symbolic(), b = stride.symbolic() || expected.symbolic();
      node_if("eq", size, one);
      node_if("eq", stride, expected);
      if (a || b) t.on_dropped("or_", {});
      if (cond_symbolic || a || b) {
        t.on_dropped("and_", {});
        cond_symbolic = true;
      }
      expected = traced_mul(t, expected, size);
    }
  }
  // Then the SymBool is decided as _compute_channels_last_contiguous_2d on the hints: `!= 1` per
  // size, `!=` per stride, until a stride differs.
  Val expected = one;
  for (size_t d : order) {
    const Val size = val(sizes[d]), stride = val(strides[d]);
    node_if("ne", size, one);
    if (size.hint == 1) continue;
    node_if("ne", stride, expected);
    if (stride.hint != expected.hint) return false;
    expected = traced_mul(t, expected, size);
  }
  return true;
}

void record_internal_overlap(sym::SymTracer& t, std::span<const SymInt> sizes, std::span<const SymInt> strides) {
  // A comparison as c10 makes it on SymInts: a node when either side is symbolic, decided on the
  // hints (backed sizes guard).
  const auto cmp = [&](std::string_view base, Rel rel, const Val& a, const Val& b) {
    if (a.symbolic() || b.symbolic()) t.on_dropped(base, {});
    return rel_holds(rel, a.hint, b.hint);
  };
  const Val two{sym::Expr(2), 2}, one{sym::Expr(1), 1}, zero{sym::Expr(0), 0};
  const size_t dim = sizes.size();
  // _compute_non_overlapping_and_dense: dims sorted by stride (size-1 dims last) with libstdc++'s
  // insertion sort (std::sort of fewer than 17), then each stride the product of the sizes before.
  const auto non_overlapping_and_dense = [&] {
    if (dim == 1) return cmp("lt", Rel::Lt, val(sizes[0]), two) || cmp("eq", Rel::Eq, val(strides[0]), one);
    const auto less = [&](size_t a, size_t b) {
      if (cmp("lt", Rel::Lt, val(sizes[a]), two)) return false;
      if (cmp("lt", Rel::Lt, val(sizes[b]), two)) return true;
      return cmp("lt", Rel::Lt, val(strides[a]), val(strides[b]));
    };
    std::vector<size_t> perm(dim);
    for (size_t i = 0; i < dim; ++i) perm[i] = i;
    for (size_t i = 1; i < dim; ++i) {
      const size_t v = perm[i];
      if (less(v, perm[0])) {
        std::copy_backward(perm.begin(), perm.begin() + static_cast<std::ptrdiff_t>(i),
                           perm.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        perm[0] = v;
        continue;
      }
      size_t j = i;
      while (less(v, perm[j - 1])) {
        perm[j] = perm[j - 1];
        --j;
      }
      perm[j] = v;
    }
    Val require = one;
    for (size_t i = 0; i < dim; ++i) {
      const Val size = val(sizes[perm[i]]);
      if (cmp("lt", Rel::Lt, size, two)) return true;
      if (cmp("ne", Rel::Ne, val(strides[perm[i]]), require)) return false;
      require = traced_mul(t, require, size);
    }
    return true;
  };
  if (dim == 0 || non_overlapping_and_dense()) return;
  // has_internal_overlap's zero-stride test: guard_or_false(size > 1) && stride == 0, per dim.
  for (size_t i = 0; i < dim; ++i)
    if (cmp("gt", Rel::Gt, val(sizes[i]), one) && cmp("eq", Rel::Eq, val(strides[i]), zero)) return;
}

std::vector<size_t> record_refs_perm_sort(sym::SymTracer& t, std::span<const SymInt> sizes,
                                          std::span<const std::span<const SymInt>> strides) {
  if (strides.empty()) return {};
  return RefsPerm(t, sizes, strides[0]).sort(strides);
}

void record_broadcast_shapes(sym::SymTracer& t, std::span<const std::span<const SymInt>> shapes) {
  size_t rank = 0;
  for (const auto& shape : shapes) rank = std::max(rank, shape.size());
  std::vector<Val> common(rank, Val{sym::Expr(1), 1});
  const Val one{sym::Expr(1), 1};
  // guard_or_false(a == b) (backed sizes: decided on the hints) and torch._check(a == b): an
  // `eq` node when either side is symbolic.
  const auto eq = [&](const Val& a, const Val& b) {
    if (!a.symbolic() && !b.symbolic()) return a.e.constant() == b.e.constant();
    t.on_dropped("eq", {});
    return known_equal(a, b).value_or(a.hint == b.hint);
  };
  for (const auto& shape : shapes)
    for (size_t k = 1; k <= shape.size(); ++k) {
      const Val size = val(shape[shape.size() - k]);
      Val& c = common[rank - k];
      if (eq(size, c)) continue;
      if (eq(c, one)) {
        if (size.symbolic()) t.on_dropped("lt", {});  // size < 0
        c = size;
      }
      if (eq(size, one)) continue;
      (void)eq(c, size);
    }
}

void record_storage_nbytes(sym::SymTracer& t, std::span<const SymInt> sizes, std::span<const SymInt> strides,
                           const SymInt& offset, int64_t item) {
  const auto symbolic = [](const SymInt& v) { return v.is_symbolic() && !v.maybe_int().has_value(); };
  const std::span<const SymInt> none;
  bool any = symbolic(offset);
  for (size_t d = 0; d < sizes.size() && !any; ++d) any = symbolic(sizes[d]) || symbolic(strides[d]);
  if (!any) return;
  bool size_symbolic = false;  // the running `size`, an int 1 at first
  for (size_t d = 0; d < sizes.size(); ++d) {
    const SymInt& n = sizes[d];
    const SymInt& s = strides[d];
    if (!symbolic(n) && n.maybe_int() == 0) return;  // an empty tensor: 0 bytes, nothing more computed
    const bool minus_one_symbolic = symbolic(n);   // size - 1
    const int64_t minus_one = minus_one_symbolic ? 0 : *n.maybe_int() - 1;
    if (minus_one_symbolic) {
      t.on_dropped("eq", sizes.subspan(d, 1));  // the size read before its `eq`
      t.on_dropped("sub", none);
    }
    bool term_symbolic = false;  // stride * (size - 1)
    if (minus_one_symbolic || symbolic(s)) {
      // make_fx's peephole returns `x * 1` unrecorded, before it reads x's graph value.
      if (!(!symbolic(s) && s.maybe_int() == 1) && (minus_one_symbolic || minus_one != 1))
        t.on_dropped("mul", strides.subspan(d, 1));
      // A symbolic stride times 0 (a size-1 dim), or a stride 0 (an expanded dim) times a
      // symbolic size - 1, is recorded but simplifies to the number 0, which c10 takes as an int:
      // the sum after it is C++ arithmetic.
      term_symbolic = (minus_one_symbolic || minus_one != 0) && (symbolic(s) || s.maybe_int() != 0);
    }
    if (term_symbolic || size_symbolic) {
      // A peephole's `stride * 1` is the stride itself: the add reads its graph value.
      t.on_dropped("add", !minus_one_symbolic && minus_one == 1 ? strides.subspan(d, 1) : none);
      size_symbolic = true;
    }
  }
  if (size_symbolic || symbolic(offset)) {
    t.on_dropped("add", std::span<const SymInt>(&offset, 1));
    if (item != 1) t.on_dropped("mul", none);
  }
}

void record_contiguity_check(sym::SymTracer& t, std::span<const SymInt> sizes, std::span<const SymInt> strides,
                             std::unordered_set<const void*>& strides_read, bool numel_read,
                             const TracedStride& traced_stride) {
  Check(t, sizes, strides, strides_read, traced_stride).run(numel_read);
}

namespace {

/// computeStride(self sizes, self strides, shape) as c10 runs it on SymInts.
void compute_stride(sym::SymTracer& t, std::span<const SymInt> sizes, std::span<const SymInt> strides,
                    std::span<const Val> shape) {
  const Val one{sym::Expr(1), 1};
  const auto compare = [&](std::string_view base, const Val& a, const Val& b) {
    if (a.symbolic() || b.symbolic()) t.on_dropped(base, {});
  };
  // The numel again (multiply_integers), its `== 0`, then the chunk walk from the innermost dim.
  if (sizes.empty()) return;
  Val n = one;
  for (const SymInt& s : sizes) n = traced_mul(t, n, val(s));
  compare("eq", n, {sym::Expr(0), 0});
  if (n.hint == 0) return;
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  Val chunk = val(strides.back()), tensor_numel = one, view_numel = one;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel = traced_mul(t, tensor_numel, val(sizes[d]));
    bool chunk_ends = d == 0;
    if (!chunk_ends) {
      const Val prev = val(sizes[d - 1]);
      compare("ne", prev, one);
      if (prev.hint != 1) {
        const Val expected = traced_mul(t, tensor_numel, chunk), stride = val(strides[d - 1]);
        compare("ne", stride, expected);
        chunk_ends = stride.hint != expected.hint;
      }
    }
    if (!chunk_ends) continue;
    while (view_d >= 0) {
      compare("lt", view_numel, tensor_numel);
      bool take = view_numel.hint < tensor_numel.hint;
      if (!take) {
        const Val length = shape[view_d];
        compare("eq", length, one);
        take = length.hint == 1;
      }
      if (!take) break;
      (void)traced_mul(t, view_numel, chunk);  // the view dim's stride
      view_numel = traced_mul(t, view_numel, shape[view_d]);
      --view_d;
    }
    compare("ne", view_numel, tensor_numel);
    if (view_numel.hint != tensor_numel.hint) return;
    if (d > 0) chunk = val(strides[d - 1]), tensor_numel = one, view_numel = one;
  }
}

}  // namespace

void record_unsafe_view_shape(sym::SymTracer& t, std::span<const SymInt> sizes, std::span<const SymInt> strides,
                              std::span<const SymInt> shape, bool numel_read) {
  const Val one{sym::Expr(1), 1};
  // A comparison is a node when either side is symbolic; its answer is the hints' (a guard on
  // backed sizes, as guard_or_true/guard_or_false take them).
  const auto compare = [&](std::string_view base, const Val& a, const Val& b) {
    if (a.symbolic() || b.symbolic()) t.on_dropped(base, {});
  };
  // infer_size_dv(size, self.sym_numel()): per symbolic length `== -1` then `> -1`, the product
  // of the other lengths, then numel == product, or with a -1 to infer (InferSize.h):
  // `product > 0 and numel % product == 0 or numel == product`, `product != 0`, numel // product.
  Val numel = one, product = one;
  for (const SymInt& s : sizes) numel = times(numel, val(s));
  std::optional<size_t> infer;
  for (size_t i = 0; i < shape.size(); ++i) {
    const Val v = val(shape[i]);
    if (!v.symbolic() && v.hint == -1) {  // sym_eq(-1, -1): C++ ints
      infer = i;
      continue;
    }
    compare("eq", v, {sym::Expr(-1), -1});
    compare("gt", v, {sym::Expr(-1), -1});
    product = traced_mul(t, product, v);
  }
  const auto read_numel = [&] {
    if (numel_read && numel.symbolic()) t.on_dropped("sym_numel_default", {});
  };
  if (!infer) {
    read_numel();
    compare("eq", numel, product);
    std::vector<Val> given;
    for (const SymInt& s : shape) given.push_back(val(s));
    return compute_stride(t, sizes, strides, given);
  }
  const Val zero{sym::Expr(0), 0};
  if (!product.symbolic() && product.hint == 0) {
    read_numel();
    compare("eq", numel, product);
  } else {
    compare("gt", product, zero);
    if (numel.symbolic() || product.symbolic()) {
      read_numel();
      t.on_dropped("mod", {});
      // A remainder sympy folds to a number reaches C++ as an int: `== 0` is no node then.
      const bool eq_symbolic = !sym::mod(numel.e, product.e).is_constant();
      if (eq_symbolic) t.on_dropped("eq", {});
      // A SymBool from Python is never a C++ constant: and_/or_ are nodes when a side is one.
      if (product.symbolic() || eq_symbolic) t.on_dropped("and_", {});
      compare("eq", numel, product);
      t.on_dropped("or_", {});
    }
  }
  compare("ne", product, zero);
  if (numel.symbolic() || product.symbolic()) t.on_dropped("floordiv", {});
  std::vector<Val> inferred;
  for (const SymInt& s : shape) inferred.push_back(val(s));
  inferred[*infer] = {sym::floordiv(numel.e, product.e), product.hint ? numel.hint / product.hint : 0};
  compute_stride(t, sizes, strides, inferred);
}


void record_numel_product(sym::SymTracer& t, std::span<const SymInt> sizes) {
  Val acc{sym::Expr(1), 1};
  for (const SymInt& s : sizes) acc = traced_mul(t, acc, val(s));
}

}  // namespace fe::detail
