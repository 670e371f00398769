// See refs_trace.h. Each step mirrors a torch._refs / torch._prims / torch._prims_common function
// of PyTorch 2.14 on Python SymInts: a comparison or SymBool and/or is a node when an operand is
// symbolic, `x * 1` is the proxy mode's peephole, and guard_or_false/guard_or_true answer from the
// hints (backed sizes). Every tensor a clamp_ meta meets has self's shape; its results have
// self's strides (self contiguous, or a dense permutation up to 4-D; else the model declines).
#include "export/refs_trace.h"

#include <functional>
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
  Refs(sym::SymTracer& t, const TensorMeta& self)
      : t_(t), sizes_(self.sizes), strides_(self.strides), self_contiguous_(self.is_contiguous()) {}

  /// torch._refs' isnan of the value: prims.ne(a, a).
  void isnan() { prim_meta({value(), value()}, 1); }
  /// A binary reference of the value with a number (ge(a, min), le(a, max): a bool result;
  /// mul(a, alpha)).
  void with_number(int64_t item) { with_number(value(), item); }
  /// ... of another reference's result with a number.
  void fresh_with_number(int64_t item) { with_number(fresh(), item); }
  /// torch._refs.empty_like(a) of the value (a meta's result): the output permutation of a, then
  /// empty_permuted.
  void empty_like(int64_t item) {
    perm_ = record_refs_output_perm(t_, sizes_, strides_, /*numel_product=*/!*value_numel_known_);
    *value_numel_known_ = true;
    empty_permuted(item);
  }
  /// An empty contiguous tensor of self's shape (prims.clone's meta of a contiguous() copy).
  void empty_contiguous(int64_t item) {
    perm_.clear();
    empty_permuted(item);
  }
  /// A unary reference of the value (prims.neg(a)): no broadcast.
  void unary(int64_t item) { prim_meta({value()}, item); }
  /// A unary reference (expm1) of another reference's result: no broadcast.
  void fresh_unary(int64_t item) { prim_meta({fresh()}, item); }
  /// pow(a, 2)'s reference: its _maybe_broadcast (a and a number), then `a * a`, dispatched on the
  /// meta copy: mul's reference (_maybe_broadcast of the two, prims.mul's meta).
  void square(int64_t item) {
    maybe_broadcast(1);
    maybe_broadcast(2);
    prim_meta({value(), value()}, item);
  }
  /// A binary reference of the value with a tensor of self's shape and these strides (pow_(a, b)):
  /// the in-place wrapper's _broadcast_shapes(a, b), then _maybe_broadcast and the prim's meta.
  void with_tensor(std::span<const SymInt> other_strides, int64_t item) {
    inplace_broadcast_check();
    maybe_broadcast(2);
    prim_meta({value(), Operand{other_strides, nullptr}}, item);
  }
  /// floor_divide_(a, b) by a tensor of self's shape and strides (self contiguous): the in-place
  /// wrapper's broadcast check, floor_divide's _maybe_broadcast, then _floor_divide_float's
  /// references one by one (fmod, sub, true_divide, lt, bitwise_xor, ne, bitwise_and, where,
  /// floor, gt, add, copysign of a 0-dim zero), each tensor's numel computed once.
  void floor_divide_float(std::span<const SymInt> b_strides, int64_t item) {
    inplace_broadcast_check();
    maybe_broadcast(2);
    Held a{{strides_.begin(), strides_.end()}}, b{{b_strides.begin(), b_strides.end()}};
    Held mod = binary(a, b, item);
    Held diff = binary(a, mod, item);
    Held div = binary(diff, b, item);
    Held a_neg = number(a, 1), b_neg = number(b, 1);
    Held different_signs = binary(a_neg, b_neg, 1);
    Held nonzero = number(mod, 1);
    Held mask = binary(nonzero, different_signs, 1);
    Held less = number(div, item);
    div = where(mask, less, div, item);
    Held floor_div = prim(div, item);
    Held frac = binary(div, floor_div, item);
    mask = number(frac, 1);
    Held plus_one = number(floor_div, item);
    floor_div = where(mask, plus_one, floor_div, item);
    Held basic_div = binary(a, b, item);
    Held div_nonzero = number(div, 1);
    Held signed_zero = copysign_0dim(basic_div, item);
    floor_div = where(div_nonzero, floor_div, signed_zero, item);
    Held b_nonzero = number(b, 1);
    (void)where(b_nonzero, floor_div, basic_div, item);
    self_numel_known_ = a.numel_known;
  }
  /// addcmul_'s meta (_register_inplace_meta of addcmul's): elementwise_meta over self and two
  /// tensors of its shape with these strides (_maybe_broadcast, the prim's meta), then
  /// check_inplace_broadcast(self.shape, out.shape); self is the result (no copy).
  void ternary_inplace(std::span<const SymInt> strides1, std::span<const SymInt> strides2, int64_t item) {
    maybe_broadcast(3);
    prim_meta({value(), Operand{strides1, nullptr}, Operand{strides2, nullptr}}, item);
    const std::span<const SymInt> shapes[] = {sizes_, sizes_};
    record_broadcast_shapes(t_, shapes);
  }
  /// torch.arange(n) through its reference, n symbolic: the step-sign check `n >= 0`, the length
  /// `(n - 0 + 1 - 1) // 1`, then prims.iota's meta, an empty int64 tensor of that length.
  void arange(const SymInt& n) {
    if (!n.is_symbolic()) return;
    for (std::string_view base : {"ge", "sub", "add", "sub", "floordiv", "ge", "add", "mul"}) t_.on_dropped(base, {});
  }
  /// unsqueeze of a 1-D tensor of size n (to [n, 1] or [1, n]): prims.broadcast_in_dim's check
  /// sym_or(n == 1, n == n), then for its dim guard_or_false(n == 1) and the `==` after it.
  void unsqueeze_1d(const SymInt& n) {
    const Val x = val(n), one = num(1);
    (void)or_(cmp("eq", Rel::Eq, x, one), cmp("eq", Rel::Eq, x, x));
    (void)cmp("eq", Rel::Eq, x, one);
    (void)cmp("eq", Rel::Eq, x, x);
  }
  /// A binary reference of two tensors broadcasting to self's shape (the value is then its
  /// contiguous result): _maybe_broadcast (_broadcast_shapes, should_expand and refs.expand per
  /// tensor), then the prim's meta over the expanded tensors.
  void binary_broadcast(std::span<const SymInt> a, std::span<const SymInt> a_strides, std::span<const SymInt> b,
                        std::span<const SymInt> b_strides, int64_t item) {
    const std::span<const SymInt> shapes[] = {a, b};
    record_broadcast_shapes(t_, shapes);
    const std::vector<SymInt> sa = broadcast(a, a_strides), sb = broadcast(b, b_strides);
    prim_meta({Operand{sa, nullptr}, Operand{sb, nullptr}}, item);
    next_value();
  }
  /// where(mask, a, number) (utils.mask_tensor) of the value and a bool mask broadcasting to its
  /// shape: _maybe_broadcast, then _where_meta's prim meta over the two tensors.
  void where_mask(std::span<const SymInt> mask, std::span<const SymInt> mask_strides, int64_t item) {
    const std::span<const SymInt> shapes[] = {mask, sizes_};
    record_broadcast_shapes(t_, shapes);
    const std::vector<SymInt> sm = broadcast(mask, mask_strides);
    should_expand();
    prim_meta({Operand{sm, nullptr}, value()}, item);
    next_value();
  }
  /// bitwise_or of two bool tensors, results of earlier references.
  void bitwise_or() {
    maybe_broadcast(2);
    prim_meta({fresh(), fresh()}, 1);
  }
  /// where(condition, a, number): _where_meta's _prim_elementwise_meta(a, number,
  /// args_with_fixed_dtypes=(condition,)), the condition a result of an earlier reference. Its
  /// result is the value the next reference takes (clamp's second bound).
  void where(int64_t item) {
    maybe_broadcast(2);
    prim_meta({fresh(), value()}, item);
    next_value();
  }
  /// where(condition, a, other), condition and other results of earlier references, `a` the value
  /// or (`a_fresh`) one too.
  void where_between(int64_t item, bool a_fresh) {
    maybe_broadcast(3);
    prim_meta({fresh(), a_fresh ? fresh() : value(), fresh()}, item);
    next_value();
  }
  /// clamp's reference: per bound, where(bitwise_or(ge/le(a, bound), isnan(a)), a, bound), the
  /// second bound on the first's result.
  void clamp(bool has_min, bool has_max, int64_t item) {
    for (int bound = 0; bound < int(has_min) + int(has_max); ++bound) {
      isnan();
      with_number(1);
      bitwise_or();
      where(item);
    }
  }
  /// The out= wrapper of an in-place reference: _maybe_resize_out's same_shape, then
  /// _safe_copy_out's copy_.
  void copy_out() {
    for (const SymInt& s : sizes_)  // same_shape: guard_or_true(x != y) per dim
      if (cmp("ne", Rel::Ne, val(s), val(s)).hint) return;
    copy_();
  }
  /// self.copy_(src of self's shape): meta_copy_'s torch._debug_has_internal_overlap(self) (c10's
  /// contiguity of the meta copy), then refs.expand(src, self.size()).
  void copy_() { copy_(sizes_); }
  /// ... of a src of these sizes (broadcast to self's); `convert` records `src.to(self)` between
  /// the overlap check and the expand (a src of another dtype).
  void copy_(std::span<const SymInt> src, const std::function<void()>& convert = {}) {
    c10_contiguity(self_numel_known_);
    self_numel_known_ = true;
    if (!self_contiguous_ && !record_channels_last_check(t_, sizes_, strides_))
      record_internal_overlap(t_, sizes_, strides_);
    if (convert) convert();
    expand(src);
  }
  /// c10's contiguity of a tensor of self's shape and strides (r.contiguous() of a result, an
  /// overlap check), its numel first computed unless `numel_known` (a Python is_contiguous asked
  /// it before).
  void c10_contiguity(bool numel_known) { c10_contiguity(numel_known, strides_); }
  /// ... of a tensor of self's shape and these strides.
  void c10_contiguity(bool numel_known, std::span<const SymInt> strides) {
    if (!numel_known) record_numel_product(t_, sizes_);
    std::unordered_set<const void*> no_reads;  // beneath the proxy mode no stride is read
    for (const SymInt& s : strides)
      if (s.is_symbolic()) no_reads.insert(s.node());
    record_contiguity_check(t_, sizes_, strides, no_reads, /*numel_read=*/false);
  }
  /// where(mask, value, a), a mask broadcasting to a's shape, value a 0-dim (meta, so not a cpu
  /// scalar) tensor: _maybe_broadcast (the shapes, should_expand(mask) and its expand, value
  /// expanded, should_expand(a)), then _prim_elementwise_meta over the three; the first zero
  /// stride (a broadcast mask's, else the expanded value's) ends the contiguity walk.
  void where_0dim_value(std::span<const SymInt> mask, std::span<const SymInt> mask_strides, int64_t item) {
    const std::span<const SymInt> shapes[] = {mask, {}, sizes_};
    record_broadcast_shapes(t_, shapes);
    const std::vector<SymInt> expanded = broadcast(mask, mask_strides);
    expand_0dim();
    should_expand();
    const std::vector<SymInt> zeros(sizes_.size(), SymInt(0));
    prim_meta({Operand{expanded, nullptr}, Operand{zeros, nullptr}, self()}, item);
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
  /// should_expand(shape, common_shape), the two equal.
  void should_expand() { (void)should_expand(sizes_); }
  /// should_expand(shape, self's shape): another rank expands; else per dim `!=`, sym_and of
  /// `== 1`s, sym_or of them, then torch._check(x == y). Returns whether the tensor is expanded.
  bool should_expand(std::span<const SymInt> shape) {
    if (shape.size() != sizes_.size()) return true;
    const Val one = num(1);
    for (size_t d = 0; d < shape.size(); ++d) {
      const Val x = val(shape[d]), y = val(sizes_[d]);
      if (cmp("ne", Rel::Ne, x, y).hint) return true;
      const B both = and_(cmp("eq", Rel::Eq, x, one), cmp("eq", Rel::Eq, y, one));
      if (!both.hint && or_(cmp("eq", Rel::Eq, x, one), cmp("eq", Rel::Eq, y, one)).hint) return true;
      (void)cmp("eq", Rel::Eq, x, y);
    }
    return false;
  }
  /// The strides prims.broadcast_in_dim gives a tensor of these sizes and strides expanded to
  /// self's shape: 0 for a new leading dim and for a size-1 dim broadcast (on the hints).
  std::vector<SymInt> expanded_strides(std::span<const SymInt> shape, std::span<const SymInt> strides) const {
    const size_t offset = sizes_.size() - shape.size();
    std::vector<SymInt> out(sizes_.size(), SymInt(0));
    for (size_t d = offset; d < sizes_.size(); ++d)
      if (!(shape[d - offset].hint() == 1 && sizes_[d].hint() != 1)) out[d] = strides[d - offset];
    return out;
  }
  /// A tensor of self's shape in a prim's meta: its strides, and whether c10 has its numel (computed
  /// once per tensor, the first time a Python is_contiguous asks); null: a tensor met only here.
  struct Operand {
    std::span<const SymInt> strides;
    bool* numel_known;
  };
  Operand self() { return {strides_, &self_numel_known_}; }
  Operand value() { return {strides_, value_numel_known_}; }
  Operand fresh() { return {strides_, nullptr}; }
  /// A reference's result becomes the value (contiguous, of self's shape, its numel not yet had).
  void next_value() {
    result_numel_known_ = false;
    value_numel_known_ = &result_numel_known_;
  }

  /// The in-place wrapper's check: _broadcast_shapes(a.shape, b.shape), then
  /// torch._check(broadcasted_shape == a.shape): a second `a.shape` makes new SymInt objects, so
  /// the tuple comparison asks `==` of each symbolic size (identity no longer short-cuts it).
  void inplace_broadcast_check() {
    const std::span<const SymInt> shapes[] = {sizes_, sizes_};
    record_broadcast_shapes(t_, shapes);
    for (const SymInt& s : sizes_) (void)cmp("eq", Rel::Eq, val(s), val(s));
  }

  /// A tensor of self's shape that several references take: its strides, and whether c10 has its
  /// numel (computed the first time an is_contiguous asks).
  struct Held {
    std::vector<SymInt> strides;
    bool numel_known = false;
  };
  Operand of(Held& h) { return {h.strides, &h.numel_known}; }
  /// A reference's result (self contiguous: results are too).
  Held result() const { return Held{{strides_.begin(), strides_.end()}}; }
  /// A binary reference of two tensors of self's shape.
  Held binary(Held& x, Held& y, int64_t item) {
    maybe_broadcast(2);
    prim_meta({of(x), of(y)}, item);
    return result();
  }
  /// A binary reference of a tensor with a number.
  Held number(Held& x, int64_t item) {
    maybe_broadcast(1);
    prim_meta({of(x)}, item);
    return result();
  }
  /// A unary reference (one prim, no broadcast).
  Held prim(Held& x, int64_t item) {
    prim_meta({of(x)}, item);
    return result();
  }
  /// where(condition, x, y) of three tensors of self's shape.
  Held where(Held& c, Held& x, Held& y, int64_t item) {
    maybe_broadcast(3);
    prim_meta({of(c), of(x), of(y)}, item);
    return result();
  }
  /// copysign(zero, y) of a 0-dim meta tensor (no cpu scalar: expanded) and a tensor: its
  /// _maybe_broadcast, then where(signbit(y), neg(abs(zero)), abs(zero)). signbit's prim gives
  /// y's dtype, converted to bool by its reference's wrapper (prims.convert_element_type's meta:
  /// the non-overlapping-and-dense check, empty_strided's `ge`s and storage size).
  Held copysign_0dim(Held& y, int64_t item) {
    const std::span<const SymInt> shapes[] = {{}, sizes_};
    record_broadcast_shapes(t_, shapes);
    expand_0dim();
    should_expand();
    Held zero{std::vector<SymInt>(sizes_.size(), SymInt(0))};
    (void)prim(y, item);
    (void)record_refs_non_overlapping_and_dense(t_, sizes_, strides_);
    for (const SymInt& s : sizes_)
      if (s.is_symbolic()) t_.on_dropped("ge", {});
    record_storage_nbytes(t_, sizes_, strides_, SymInt(0), 1);
    Held sign = result();  // the bool conversion, a fresh tensor
    Held magnitude = prim(zero, item);
    Held negative = prim(magnitude, item);
    Held positive = prim(zero, item);
    return where(sign, negative, positive, item);
  }

  /// __maybe_broadcast of one tensor to self's shape: expanded (refs.expand) when should_expand
  /// says so; returns its strides then.
  std::vector<SymInt> broadcast(std::span<const SymInt> shape, std::span<const SymInt> strides) {
    if (!should_expand(shape)) return {strides.begin(), strides.end()};
    expand(shape);
    return expanded_strides(shape, strides);
  }

  void with_number(Operand a, int64_t item) {
    maybe_broadcast(1);
    prim_meta({a}, item);
  }
  /// _prim_elementwise_meta over these tensors, the result of `item` bytes per element.
  void prim_meta(std::initializer_list<Operand> operands, int64_t item) {
    const int n = static_cast<int>(operands.size());
    same_shapes(n);  // check_same_shape
    // compute_elementwise_output_logical_to_physical_perm: check_same_shape, then (2-D and more)
    // each tensor's contiguity while all are, and channels-last for 4-D.
    same_shapes(n);
    perm_.clear();
    if (sizes_.size() > 1) {
      bool contiguous = true, channels_last = sizes_.size() == 4;
      std::vector<std::span<const SymInt>> strides;
      for (const Operand& o : operands) {
        bool numel_known = o.numel_known && *o.numel_known;
        if (contiguous) {
          contiguous = record_refs_is_contiguous(t_, sizes_, o.strides, numel_known);
          numel_known = true;
        }
        channels_last = channels_last && record_refs_is_channels_last_2d(t_, sizes_, o.strides);
        if (o.numel_known) *o.numel_known = numel_known;
        strides.push_back(o.strides);
      }
      if (contiguous == channels_last) perm_ = record_refs_perm_sort(t_, sizes_, strides);
      else if (channels_last) perm_ = {0, 2, 3, 1};
    }
    same_shapes(n);  // extract_shape
    empty_permuted(item);
  }
  /// torch.empty_permuted(shape, perm_): C++ empty of the physical sizes (shape permuted by perm_,
  /// empty: the identity), permuted back: check_size_nonnegative, then
  /// computeStorageNbytesContiguous (the numel's `mul`s, storage_offset 0 + numel, times the item
  /// size), then the contiguous strides of the physical sizes.
  void empty_permuted(int64_t item) {
    std::vector<SymInt> physical(sizes_.begin(), sizes_.end());
    if (perm_.size() == sizes_.size())
      for (size_t i = 0; i < perm_.size(); ++i) physical[i] = sizes_[perm_[i]];
    for (const SymInt& s : physical)
      if (s.is_symbolic()) t_.on_dropped("ge", {});
    Val numel = num(1);
    for (const SymInt& s : physical) numel = traced_mul(t_, numel, val(s));
    if (!numel.symbolic()) return;
    t_.on_dropped("add", {});
    (void)traced_mul(t_, num(item), numel);
    // Then the contiguous strides, innermost first: each the next one's times max(size, 1).
    Val stride = num(1);
    for (size_t d = physical.size(); d-- > 1;) {
      const Val size = val(physical[d]);
      if (size.symbolic()) t_.on_dropped("sym_max", {});
      stride = traced_mul(t_, stride, {sym::max(size.e, sym::Expr(1)), std::max<int64_t>(size.hint, 1)});
    }
  }
  /// refs.expand(src, self.size()) of meta_copy_, src of self's shape.
  void expand() { expand(sizes_); }
  /// refs.expand(src, self.size()) for a src of these sizes (self's or fewer dims, each 1 or
  /// self's): per src dim `== -1`, sym_or(x == 1, requested == x) and `>= 0`; validate_shape's `>= 0`
  /// per dim; then prims.broadcast_in_dim's checks: the sym_or again per src dim, and per dim of the
  /// result guard_or_false(x == 1) then `x == requested` (a src dim), or guard_or_true(requested !=
  /// 1) (a new leading dim).
  void expand(std::span<const SymInt> src) {
    const Val one = num(1);
    const size_t offset = sizes_.size() - src.size();
    for (size_t i = 0; i < src.size(); ++i) {
      const Val x = val(src[i]), req = val(sizes_[offset + i]);
      if (cmp("eq", Rel::Eq, req, num(-1)).hint) continue;
      (void)or_(cmp("eq", Rel::Eq, x, one), cmp("eq", Rel::Eq, req, x));
      (void)cmp("ge", Rel::Ge, req, num(0));
    }
    for (const SymInt& s : sizes_) (void)cmp("ge", Rel::Ge, val(s), num(0));  // validate_shape
    for (size_t i = 0; i < src.size(); ++i)
      (void)or_(cmp("eq", Rel::Eq, val(src[i]), one), cmp("eq", Rel::Eq, val(sizes_[offset + i]), val(src[i])));
    for (size_t d = 0; d < sizes_.size(); ++d) {
      const Val req = val(sizes_[d]);
      if (d < offset) {
        (void)cmp("ne", Rel::Ne, req, one);
        continue;
      }
      const Val x = val(src[d - offset]);
      (void)cmp("eq", Rel::Eq, x, one);
      (void)cmp("eq", Rel::Eq, x, req);
    }
  }

  /// refs.expand of a 0-dim tensor to self's shape: validate_shape's `>= 0`, then
  /// broadcast_in_dim's guard_or_true(size != 1) per new dim.
  void expand_0dim() {
    for (const SymInt& s : sizes_) (void)cmp("ge", Rel::Ge, val(s), num(0));
    for (const SymInt& s : sizes_) (void)cmp("ne", Rel::Ne, val(s), num(1));
  }

  sym::SymTracer& t_;
  std::span<const SymInt> sizes_, strides_;
  bool self_contiguous_;           ///< as c10 finds self (else has_internal_overlap goes on)
  std::vector<size_t> perm_;       ///< the last output permutation (empty: the identity)
  bool self_numel_known_ = false;  ///< self is a meta copy: c10 computes its numel when first asked
  bool result_numel_known_ = false;
  bool* value_numel_known_ = &self_numel_known_;  ///< self, or the last where's result
};

/// Self as the in-place models take it: contiguous, or a dense permutation of up to 4 dims (its
/// references' results then have its strides; c10 asks a 5-D self's channels-last 3-D layout in
/// copy_'s overlap check first, not modelled).
bool modelled_self(const TensorMeta& self) {
  return self.is_contiguous() || (self.sizes.size() <= 4 && self.is_non_overlapping_and_dense());
}

}  // namespace

bool record_refs_clamp_(sym::SymTracer& t, const TensorMeta& self, bool has_min, bool has_max) {
  if (!modelled_self(self)) return false;
  Refs r(t, self);
  r.clamp(has_min, has_max, itemsize(self.dtype));
  r.copy_out();
  return true;
}

bool record_refs_hardtanh_(sym::SymTracer& t, const TensorMeta& self) {
  if (!modelled_self(self) || !is_floating(self.dtype)) return false;
  Refs r(t, self);
  // torch._decomp's inplace_op: out = hardtanh(a, lo, hi), the reference's clamp(a, lo, hi); then
  // a.copy_(out).
  r.clamp(true, true, itemsize(self.dtype));
  r.copy_();
  return true;
}

bool record_refs_mul_number(sym::SymTracer& t, const TensorMeta& a) {
  if (!a.is_contiguous()) return false;
  Refs(t, a).with_number(itemsize(a.dtype));
  return true;
}

bool record_refs_masked_fill_(sym::SymTracer& t, const TensorMeta& self, const TensorMeta& mask, const TensorMeta& value) {
  if (!value.sizes.empty() || !modelled_self(self) || mask.sizes.size() > self.sizes.size()) return false;
  const size_t offset = self.sizes.size() - mask.sizes.size();
  bool broadcast = offset != 0, same_layout = offset == 0;
  for (size_t d = 0; d < mask.sizes.size(); ++d) {
    const SymInt& m = mask.sizes[d];
    const SymInt& s = self.sizes[offset + d];
    if (m.expr() == s.expr()) {
      same_layout = same_layout && mask.strides[d].expr() == self.strides[offset + d].expr();
      continue;
    }
    if (m.maybe_int() != 1 || s.hint() == 1) return false;
    broadcast = true;
  }
  // A broadcast mask's expanded strides are 0 where it broadcasts, which the stride sort skips:
  // a contiguous mask and self leave where's result contiguous (other layouts are not modelled).
  if (broadcast && (!self.is_contiguous() || !mask.is_contiguous())) return false;
  same_layout = same_layout || broadcast;
  // where's result follows the mask's layout when the mask decides every comparison of the stride
  // sort (it comes first): a dense mask with no size-1 dims, whose strides all differ. Other
  // layouts (ties) are not modelled.
  if (!same_layout) {
    if (!modelled_self(mask)) return false;
    for (const SymInt& s : mask.sizes)
      if (s.hint() == 1) return false;
  }
  const TensorMeta& result = same_layout ? self : mask;
  Refs r(t, self);
  r.where_0dim_value(mask.sizes, mask.strides, itemsize(self.dtype));
  // The walk stopped at the value, so neither where's result nor self has its numel yet.
  r.c10_contiguity(/*numel_known=*/false, result.strides);  // masked_fill's r.contiguous()
  // ... a clone when where's result is not contiguous: prims.clone's meta, an empty contiguous
  // tensor.
  if (!result.is_contiguous()) r.empty_contiguous(itemsize(self.dtype));
  r.copy_();  // masked_fill_'s a.copy_(b)
  return true;
}

bool record_refs_leaky_relu_(sym::SymTracer& t, const TensorMeta& self) {
  if (!modelled_self(self)) return false;
  Refs r(t, self);
  // torch._decomp's inplace_op: out = leaky_relu(a, slope), the reference's
  // where(gt(a, 0), a, mul(a, slope)); then a.copy_(out).
  r.with_number(1);
  r.with_number(itemsize(self.dtype));
  r.where_between(itemsize(self.dtype), /*a_fresh=*/false);
  r.copy_();
  return true;
}

bool record_refs_elu_(sym::SymTracer& t, const TensorMeta& self) {
  if (!modelled_self(self) || !is_floating(self.dtype)) return false;
  const int64_t item = itemsize(self.dtype);
  Refs r(t, self);
  // elu's reference, through its in-place wrapper (out=a): where(a > 0, scale * a,
  // (alpha * scale) * expm1(a * input_scale)), then the out= wrapper's copy.
  r.with_number(1);
  r.with_number(item);
  r.with_number(item);
  r.fresh_unary(item);
  r.fresh_with_number(item);
  r.where_between(item, /*a_fresh=*/true);
  r.copy_out();
  return true;
}

bool record_refs_unary_(sym::SymTracer& t, const TensorMeta& self, bool sigmoid) {
  if (!modelled_self(self) || !is_floating(self.dtype)) return false;
  const int64_t item = itemsize(self.dtype);
  Refs r(t, self);
  // The reference's prim on a (sigmoid's: true_divide(1, add(1, exp(neg(a))))), then its in-place
  // wrapper's out= copy.
  r.unary(item);
  if (sigmoid) {
    r.fresh_unary(item);
    r.fresh_with_number(item);
    r.fresh_with_number(item);
  }
  r.copy_out();
  return true;
}

bool record_refs_pow_(sym::SymTracer& t, const TensorMeta& self, const TensorMeta* exponent, double number) {
  if (!modelled_self(self) || !is_floating(self.dtype)) return false;
  const int64_t item = itemsize(self.dtype);
  Refs r(t, self);
  if (exponent) {
    // an exponent of self's shape and strides (self's dtype: no conversion) only
    if (exponent->dtype != self.dtype || exponent->sizes.size() != self.sizes.size()) return false;
    for (size_t d = 0; d < self.sizes.size(); ++d)
      if (!(exponent->sizes[d].expr() == self.sizes[d].expr()) || !(exponent->strides[d].expr() == self.strides[d].expr()))
        return false;
    r.with_tensor(exponent->strides, item);
  } else if (number == 2) {
    r.square(item);
  } else if (number == 1 || number == 0.5) {
    return false;  // a.clone() / torch.sqrt(a): not modelled
  } else {
    r.with_number(item);
  }
  r.copy_out();
  return true;
}

bool record_refs_floor_divide_(sym::SymTracer& t, const TensorMeta& self, const TensorMeta& other) {
  if (!self.is_contiguous() || !is_floating(self.dtype) || other.dtype != self.dtype ||
      other.sizes.size() != self.sizes.size())
    return false;
  for (size_t d = 0; d < self.sizes.size(); ++d)
    if (!(other.sizes[d].expr() == self.sizes[d].expr()) || !(other.strides[d].expr() == self.strides[d].expr()))
      return false;
  Refs r(t, self);
  r.floor_divide_float(other.strides, itemsize(self.dtype));
  r.copy_out();
  return true;
}

bool record_refs_triu_(sym::SymTracer& t, const TensorMeta& self) {
  const size_t n = self.sizes.size();
  if (n < 2 || !self.is_contiguous() || self.dtype == DType::Bool) return false;
  for (const SymInt& s : self.sizes)
    if (sym::has_unbacked(s)) return false;
  const SymInt &h = self.sizes[n - 2], &w = self.sizes[n - 1];
  // The mask (arange(w).unsqueeze(-2) - arange(h).unsqueeze(-1)) >= diagonal, int64 then bool, of
  // shape [h, w]: the aranges' [1, w] has strides [w, 1], [h, 1] has [1, 1].
  TensorMeta mask;
  mask.dtype = DType::Int64;
  mask.sizes = {h, w};
  mask.strides = {w, SymInt(1)};
  Refs m(t, mask);
  m.arange(w);
  m.unsqueeze_1d(w);
  m.arange(h);
  m.unsqueeze_1d(h);
  const SymInt one(1);
  const SymInt row[] = {one, w}, row_strides[] = {w, one}, col[] = {h, one}, col_strides[] = {one, one};
  m.binary_broadcast(row, row_strides, col, col_strides, itemsize(DType::Int64));
  m.fresh_with_number(1);
  // mask_tensor's where(mask, a, 0) on the meta copy, triu's .contiguous() of its result (self's
  // layout: contiguous), then the in-place wrapper's out= copy.
  Refs r(t, self);
  r.where_mask(mask.sizes, mask.strides, itemsize(self.dtype));
  r.c10_contiguity(/*numel_known=*/false);
  r.copy_out();
  return true;
}

bool record_meta_addcmul_(sym::SymTracer& t, const TensorMeta& self, const TensorMeta& tensor1,
                          const TensorMeta& tensor2) {
  if (!modelled_self(self)) return false;
  for (const TensorMeta* m : {&tensor1, &tensor2}) {
    if (m->dtype != self.dtype || m->sizes.size() != self.sizes.size()) return false;
    for (size_t d = 0; d < self.sizes.size(); ++d)
      if (!(m->sizes[d].expr() == self.sizes[d].expr())) return false;
  }
  Refs(t, self).ternary_inplace(tensor1.strides, tensor2.strides, itemsize(self.dtype));
  return true;
}

bool record_meta_silu_(sym::SymTracer& t, const TensorMeta& self) {
  if (!modelled_self(self)) return false;
  Refs r(t, self);
  // torch._decomp's inplace_op: out = silu(a), whose meta is torch.empty_like(a); then a.copy_(out).
  r.empty_like(itemsize(self.dtype));
  r.copy_();
  return true;
}

bool record_meta_copy_(sym::SymTracer& t, const TensorMeta& self, const TensorMeta& src,
                       const std::function<void()>& convert) {
  if (src.sizes.size() > self.sizes.size()) return false;
  const size_t offset = self.sizes.size() - src.sizes.size();
  for (size_t d = 0; d < src.sizes.size(); ++d)  // each src dim self's or a broadcast 1
    if (!(src.sizes[d].expr() == self.sizes[offset + d].expr()) && src.sizes[d].maybe_int() != 1) return false;
  for (const SymInt& s : self.sizes)
    if (sym::has_unbacked(s)) return false;  // no overlap check then (free_unbacked_symbols)
  if (!self.is_contiguous() && self.sizes.size() >= 5) return false;  // channels-last 3-D asked first
  Refs(t, self).copy_(src.sizes, convert);
  return true;
}

}  // namespace fe::detail
