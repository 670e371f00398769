// See refs_trace.h. Each step mirrors a torch._refs / torch._prims / torch._prims_common function
// of PyTorch 2.14 on Python SymInts: a comparison or SymBool and/or is a node when an operand is
// symbolic, `x * 1` is the proxy mode's peephole, and guard_or_false/guard_or_true answer from the
// hints (backed sizes). Every tensor a clamp_ meta meets has self's shape; its results are
// contiguous, as self is (else the model declines).
#include "export/refs_trace.h"

#include <vector>

#include "export/contiguity_trace.h"
#include "export/sym_val.h"

namespace fe::detail {
namespace {

/// A Python bool or SymBool: whether it is a SymBool (a node), and its value on the hints.
struct B {
  bool symbolic = false;
  bool hint = false;
};

class Refs {
 public:
  Refs(sym::SymTracer& t, const TensorMeta& self) : t_(t), sizes_(self.sizes), strides_(self.strides) {}

  /// torch._refs' isnan: prims.ne(a, a).
  void isnan() { prim_meta(2, 1); }
  /// A binary reference with a number (ge(a, min), le(a, max): a bool result; mul(a, alpha)).
  void with_number(int64_t item) {
    maybe_broadcast(1);
    prim_meta(1, item);
  }
  /// bitwise_or of two bool tensors.
  void bitwise_or() {
    maybe_broadcast(2);
    prim_meta(2, 1);
  }
  /// where(condition, a, number): _where_meta's _prim_elementwise_meta(a, number,
  /// args_with_fixed_dtypes=(condition,)).
  void where(int64_t item) {
    maybe_broadcast(2);
    prim_meta(2, item);
  }
  /// The out= wrapper of an in-place reference: _maybe_resize_out's same_shape, then
  /// _safe_copy_out's copy_ (meta_copy_).
  void copy_out() {
    for (const SymInt& s : sizes_)  // same_shape: guard_or_true(x != y) per dim
      if (cmp("ne", Rel::Ne, val(s), val(s)).hint) return;
    // torch._debug_has_internal_overlap(self): c10's contiguity of the meta copy, contiguous here.
    std::unordered_set<const void*> no_reads;  // beneath the proxy mode no stride is read
    for (const SymInt& s : strides_)
      if (s.is_symbolic()) no_reads.insert(s.node());
    record_contiguity_check(t_, sizes_, strides_, no_reads, /*numel_read=*/false);
    expand();
  }

 private:
  B cmp(std::string_view base, Rel rel, const Val& a, const Val& b) {
    if (!a.symbolic() && !b.symbolic()) return {false, rel_holds(rel, a.e.constant(), b.e.constant())};
    t_.on_dropped(base, {});
    return {true, rel_holds(rel, a.hint, b.hint)};
  }
  B logical(std::string_view base, B a, B b, bool value) {
    if (a.symbolic || b.symbolic) t_.on_dropped(base, {});
    return {a.symbolic || b.symbolic, value};
  }
  B and_(B a, B b) { return logical("and_", a, b, a.hint && b.hint); }
  B or_(B a, B b) { return logical("or_", a, b, a.hint || b.hint); }
  static Val num(int64_t v) { return {sym::Expr(v), v}; }

  /// is_same_shape(a.shape, a.shape): sym_eq of the tuples, reduced with and_ from True.
  void same_shape() {
    B acc{false, true};
    for (const SymInt& s : sizes_) acc = and_(acc, cmp("eq", Rel::Eq, val(s), val(s)));
  }
  /// check_same_shape / extract_shape over n tensors: each compared with the first.
  void same_shapes(int n) {
    for (int i = 0; i < n; ++i) same_shape();
  }
  /// _maybe_broadcast over n tensors of self's shape (numbers have no shape).
  void maybe_broadcast(int n) {
    std::vector<std::span<const SymInt>> shapes(n, std::span<const SymInt>(sizes_));
    record_broadcast_shapes(t_, shapes);
    for (int i = 0; i < n; ++i) should_expand();
  }
  /// should_expand(shape, common_shape), the two equal: per dim `!=`, sym_and of `== 1`s, sym_or
  /// of them, then torch._check(x == y).
  void should_expand() {
    const Val one = num(1);
    for (const SymInt& s : sizes_) {
      const Val x = val(s);
      if (cmp("ne", Rel::Ne, x, x).hint) return;
      const B both = and_(cmp("eq", Rel::Eq, x, one), cmp("eq", Rel::Eq, x, one));
      if (!both.hint && or_(cmp("eq", Rel::Eq, x, one), cmp("eq", Rel::Eq, x, one)).hint) return;
      (void)cmp("eq", Rel::Eq, x, x);
    }
  }
  /// _prim_elementwise_meta over n tensors, the result of `item` bytes per element.
  void prim_meta(int n, int64_t item) {
    same_shapes(n);  // check_same_shape
    // compute_elementwise_output_logical_to_physical_perm: check_same_shape, then (2-D and more)
    // each tensor's contiguity while all are, and channels-last for 4-D.
    same_shapes(n);
    if (sizes_.size() > 1) {
      bool contiguous = true, channels_last = sizes_.size() == 4;
      for (int i = 0; i < n; ++i) {
        contiguous = contiguous && record_refs_is_contiguous(t_, sizes_, strides_);
        channels_last = channels_last && record_refs_is_channels_last_2d(t_, sizes_, strides_);
      }
    }
    same_shapes(n);  // extract_shape
    // torch.empty_permuted: C++ empty's check_size_nonnegative, then computeStorageNbytesContiguous
    // (the numel's `mul`s, storage_offset 0 + numel, times the item size).
    for (const SymInt& s : sizes_)
      if (s.is_symbolic()) t_.on_dropped("ge", {});
    Val numel = num(1);
    for (const SymInt& s : sizes_) numel = traced_mul(t_, numel, val(s));
    if (!numel.symbolic()) return;
    t_.on_dropped("add", {});
    (void)traced_mul(t_, num(item), numel);
  }
  /// refs.expand(src, self.size()) of meta_copy_, then prims.broadcast_in_dim's checks.
  void expand() {
    const Val one = num(1);
    for (const SymInt& s : sizes_) {
      const Val x = val(s);
      if (cmp("eq", Rel::Eq, x, num(-1)).hint) continue;
      (void)or_(cmp("eq", Rel::Eq, x, one), cmp("eq", Rel::Eq, x, x));
      (void)cmp("ge", Rel::Ge, x, num(0));
    }
    for (const SymInt& s : sizes_) (void)cmp("ge", Rel::Ge, val(s), num(0));  // validate_shape
    for (const SymInt& s : sizes_) (void)or_(cmp("eq", Rel::Eq, val(s), one), cmp("eq", Rel::Eq, val(s), val(s)));
    // guard_or_false(a.shape[i] == 1), then either guard_or_false or torch._check of
    // a.shape[i] == shape[i]: one `eq` each way.
    for (const SymInt& s : sizes_) {
      (void)cmp("eq", Rel::Eq, val(s), one);
      (void)cmp("eq", Rel::Eq, val(s), val(s));
    }
  }

  sym::SymTracer& t_;
  std::span<const SymInt> sizes_, strides_;
};

}  // namespace

bool record_refs_clamp_(sym::SymTracer& t, const TensorMeta& self, bool has_min, bool has_max) {
  if (!self.is_contiguous()) return false;
  Refs r(t, self);
  // clamp's reference: per bound, where(bitwise_or(ge/le(a, bound), isnan(a)), a, bound).
  for (int bound = 0; bound < int(has_min) + int(has_max); ++bound) {
    r.isnan();
    r.with_number(1);
    r.bitwise_or();
    r.where(itemsize(self.dtype));
  }
  r.copy_out();
  return true;
}

bool record_refs_mul_number(sym::SymTracer& t, const TensorMeta& a) {
  if (!a.is_contiguous()) return false;
  Refs(t, a).with_number(itemsize(a.dtype));
  return true;
}

}  // namespace fe::detail
