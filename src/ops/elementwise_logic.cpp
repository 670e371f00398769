// Comparisons (eq/ne/lt/le/gt/ge), logical and/or/xor/not, bitwise not/and/or (+ __and__/__or__), where,
// masked_fill, clamp (+ min/max variants), maximum/minimum: metadata and reference kernels.
#include <cmath>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/functional_level.h"
#include "ops/annotation.h"
#include "ops/elementwise.h"
#include "ops/families.h"
#include "ops/meta_util.h"
#include "ops/unary_common.h"

namespace fe {
OpHandle op_dunder_and_Scalar;
OpHandle op_dunder_and_Tensor;
OpHandle op_dunder_or_Scalar;
OpHandle op_dunder_or_Tensor;
OpHandle op_bitwise_and_Scalar;
OpHandle op_bitwise_and_Tensor;
OpHandle op_bitwise_not;
OpHandle op_bitwise_or_Scalar;
OpHandle op_bitwise_or_Tensor;
OpHandle op_addcmul;
OpHandle op_clamp;
OpHandle op_clamp_;
OpHandle op_clamp_Tensor;
OpHandle op_clamp_max;
OpHandle op_clamp_min;
OpHandle op_eq_Scalar;
OpHandle op_eq_Tensor;
OpHandle op_ge_Scalar;
OpHandle op_ge_Tensor;
OpHandle op_gt_Scalar;
OpHandle op_gt_Tensor;
OpHandle op_le_Scalar;
OpHandle op_le_Tensor;
OpHandle op_logical_and;
OpHandle op_logical_not;
OpHandle op_isinf, op_isnan;
OpHandle op_logical_or;
OpHandle op_lt_Scalar;
OpHandle op_lt_Tensor;
OpHandle op_masked_fill_Scalar;
OpHandle op_masked_fill_Tensor;
OpHandle op_masked_fill_inplace_Scalar;
OpHandle op_masked_fill_inplace_Tensor;
OpHandle op_maximum;
OpHandle op_minimum;
OpHandle op_ne_Scalar;
OpHandle op_ne_Tensor;
OpHandle op_where_Scalar;
OpHandle op_where_ScalarOther;
OpHandle op_where_ScalarSelf;
OpHandle op_where_self;
}  // namespace fe

namespace fe {
OpHandle op_logical_xor;
}  // namespace fe

namespace fe::ops {
namespace {
using namespace ew;

/// Promoted dtype of the operands at idx (Nones skipped), without the output-layout work.
DType result_dtype(const MetaArgs& a, std::initializer_list<size_t> idx) {
  ResultTypeState rt;
  for (size_t i : idx) {
    if (a.is_none(i)) continue;
    if (a.is_tensor(i)) rt.add_tensor(a.tensor(i).dtype, a.tensor(i).dim() == 0);
    else rt.add_scalar(a.scalar_category(i));
  }
  return rt.result(default_dtype());
}


void check_predicate(const MetaArgs& a, size_t i) {
  const DType t = a.tensor(i).dtype;
  FE_CHECK(t == DType::Bool, DTypeError, label(a), ": expected predicate to be bool, got ", torch_dtype(t));
}

// ---- comparisons and logical ops: bool results over the promoted operands
enum class Cmp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, And, Or, Xor, Max, Min };

template <Cmp K, bool Scalar>
void meta_cmp(const MetaArgs& a, MetaOut& out) {
  require_tensor(a, 0);
  if (Scalar) require_number(a, 1);
  else require_tensor(a, 1);
  TensorMeta m = elementwise_meta(a, {0, 1});
  if (K != Cmp::Max && K != Cmp::Min) m.dtype = DType::Bool;
  if (K == Cmp::And || K == Cmp::Or || K == Cmp::Xor) {
    // torch._refs: a non-bool operand becomes `x != 0` (a fresh dense tensor laid out after x
    // broadcast to the result) before the bitwise op; that tensor decides the layout.
    TensorMeta fresh[2];
    const TensorMeta* ins[2];
    for (size_t i = 0; i < 2; ++i) {
      const TensorMeta& t = a.tensor(i);
      if (t.dtype == DType::Bool) {
        ins[i] = &t;
        continue;
      }
      const TensorMeta* one[1] = {&t};
      fresh[i].sizes = m.sizes;
      fresh[i].strides = iter_output_strides(m.sizes, one);
      ins[i] = &fresh[i];
    }
    m.strides = iter_output_strides(m.sizes, ins);
  }
  out.push(std::move(m));
}

template <Cmp K>
void cpu_cmp(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  nary_kernel(a, {0, 1}, o[0], cpu::result_dtype(a, {0, 1}), [](const double* v) -> double {
    const double x = v[0], y = v[1];
    switch (K) {
      case Cmp::Eq: return x == y;
      case Cmp::Ne: return x != y;
      case Cmp::Lt: return x < y;
      case Cmp::Le: return x <= y;
      case Cmp::Gt: return x > y;
      case Cmp::Ge: return x >= y;
      case Cmp::And: return (x != 0) && (y != 0);
      case Cmp::Or: return (x != 0) || (y != 0);
      case Cmp::Xor: return (x != 0) != (y != 0);
      case Cmp::Max: return std::isnan(x) || std::isnan(y) ? std::nan("") : std::max(x, y);
      case Cmp::Min: return std::isnan(x) || std::isnan(y) ? std::nan("") : std::min(x, y);
    }
    return 0;
  });
}

void meta_logical_not(const MetaArgs& a, MetaOut& out) {
  require_tensor(a, 0);
  TensorMeta m = elementwise_meta(a, {0});
  m.dtype = DType::Bool;
  out.push(std::move(m));
}
void cpu_logical_not(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  nary_kernel(a, {0}, o[0], std::get<Tensor>(a[0]).dtype(), [](const double* v) -> double { return v[0] == 0; });
}

// ---- isinf / isnan (torch._refs: abs(x) == inf, x != x; integral and bool inputs: all false):
// bool, laid out like the input.
void cpu_isinf(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  nary_kernel(a, {0}, o[0], std::get<Tensor>(a[0]).dtype(), [](const double* v) -> double { return std::isinf(v[0]); });
}
void cpu_isnan(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  nary_kernel(a, {0}, o[0], std::get<Tensor>(a[0]).dtype(), [](const double* v) -> double { return std::isnan(v[0]); });
}

// ---- where(condition, self, other): broadcast over all three, dtype of self and other
enum class Where : uint8_t { Self, ScalarOther, ScalarSelf, Scalar };

template <Where K>
void meta_where(const MetaArgs& a, MetaOut& out) {
  require_tensor(a, 0);
  if (K == Where::Self || K == Where::ScalarOther) require_tensor(a, 1);
  else require_number(a, 1);
  if (K == Where::Self || K == Where::ScalarSelf) require_tensor(a, 2);
  else require_number(a, 2);
  check_predicate(a, 0);
  TensorMeta m = elementwise_meta(a, {0, 1, 2});
  m.dtype = result_dtype(a, {1, 2});
  out.push(std::move(m));
}

void cpu_where(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  nary_kernel(a, {0, 1, 2}, o[0], o[0].dtype(), [](const double* v) { return v[0] != 0 ? v[1] : v[2]; });
}

// ---- addcmul(self, tensor1, tensor2, *, value=1): self + value * tensor1 * tensor2 over the
// three tensors' common dtype. FakeTensorMode runs ATen's structured meta (build_ternary_op): no
// check of value's type, and the in-place form casts to self's dtype whatever it is (measured).
template <bool kInplace>
void meta_addcmul(const MetaArgs& a, MetaOut& out) {
  for (size_t i = 0; i < 3; ++i) require_tensor(a, i);
  require_number(a, 3);
  TensorMeta m = elementwise_meta(a, {0, 1, 2});
  out.push(kInplace ? inplace_result(a, m, true) : std::move(m));
}

template <bool kInplace>
void cpu_addcmul(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  if (kInplace) check_no_internal_overlap(op, o[0]);
  const double value = cpu::number_of(a[3]);
  nary_kernel(a, {0, 1, 2}, o[0], cpu::result_dtype(a, {0, 1, 2}),
              [value](const double* v) { return v[0] + value * v[1] * v[2]; });
}

/// addcmul (torch._refs, dynamo-disabled: ops/annotation.h): `self + value * tensor1 * tensor2`,
/// recorded as mul(tensor1, value), mul by tensor2, add to self. Its type-promotion wrapper first
/// converts each operand to the computation dtype (float32 for half types: `_to_copy`, in argument
/// order, none when equal) and the result back to the promoted dtype.
std::vector<Tensor> decomp_addcmul(std::span<const IValue> a, const SrcLocArg& loc) {
  const DisableDynamoScope annotated("addcmul");
  const DType result = cpu::result_dtype(a, {0, 1, 2}), compute = opmath_dtype(result);
  const auto in_compute = [&](size_t i) {
    const Tensor& t = decomp_tensor(a, i);
    return t.dtype() == compute ? t : fe::_to_copy(t, {.dtype = compute}, loc);
  };
  const Tensor self = in_compute(0), t1 = in_compute(1), t2 = in_compute(2);
  const Tensor scaled = dispatch1(*op_mul_Tensor, {t1, a[3]}, loc);
  const Tensor product = dispatch1(*op_mul_Tensor, {scaled, t2}, loc);
  const Tensor sum = dispatch1(*op_add_Tensor, {self, product}, loc);
  return {sum.dtype() == result ? sum : fe::_to_copy(sum, {.dtype = result}, loc)};
}

// ---- masked_fill(self, mask, value): self's dtype; value a number or a 0-dim tensor
template <bool TensorValue, bool Inplace>
void meta_masked_fill(const MetaArgs& a, MetaOut& out) {
  require_tensor(a, 0);
  require_tensor(a, 1);
  if (TensorValue) require_tensor(a, 2);
  else require_number(a, 2);
  // FakeTensorMode's masked_fill_.Scalar takes any mask dtype; the other overloads want bool.
  if (TensorValue || !Inplace) check_predicate(a, 1);
  if (TensorValue) {
    const int64_t nd = a.tensor(2).dim();
    FE_CHECK(nd == 0, ShapeError, label(a), ": only supports a 0-dimensional value tensor, but got tensor with ", nd,
             " dimension");
  }
  // FakeTensorMode computes where(mask, value, self) (mask broadcasts first), except for
  // masked_fill_.Scalar, which broadcasts mask against self.
  TensorMeta m = Inplace && !TensorValue ? elementwise_meta(a, {0, 1}) : elementwise_meta(a, {1, 2, 0});
  m.dtype = a.tensor(0).dtype;
  m.strides = contiguous_strides(m.sizes);  // torch._refs.masked_fill ends with .contiguous()
  if (Inplace) out.push(inplace_result(a, m, TensorValue));
  else out.push(std::move(m));
}

template <bool Inplace>
void cpu_masked_fill(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  nary_kernel(a, {0, 1, 2}, o[0], o[0].dtype(), [](const double* v) { return v[1] != 0 ? v[2] : v[0]; });
}

// ---- masked_scatter(self, mask, source): self where mask is false, source's elements in order
// where it is true (multimodal models' `inputs_embeds.masked_scatter(image_mask, features)`).
// Not in the default decomposition table: it stays whole in Core ATen programs.
void check_masked_scatter(const MetaArgs& a) {
  for (size_t i = 0; i < 3; ++i) require_tensor(a, i);
  const DType mask = a.tensor(1).dtype;
  FE_CHECK(mask == DType::Bool || mask == DType::UInt8, DTypeError, label(a), ": Mask must be bool or uint8");
  FE_CHECK(a.tensor(0).dtype == a.tensor(2).dtype, DTypeError, label(a),
           ": masked_scatter: expected self and source to have same dtypes but got ", torch_dtype(a.tensor(0).dtype),
           " and ", torch_dtype(a.tensor(2).dtype));
}
/// masked_scatter_ (meta_masked_scatter_): the dtype checks; self is the result.
void meta_masked_scatter_(const MetaArgs& a, MetaOut& out) {
  check_masked_scatter(a);
  out.push(a.tensor(0));
}
/// masked_scatter (meta_masked_scatter): self broadcast with mask, a contiguous empty_like.
void meta_masked_scatter(const MetaArgs& a, MetaOut& out) {
  check_masked_scatter(a);
  const TensorMeta& self = a.tensor(0);
  out.push(make_contiguous(broadcast_shapes(a, self.sizes, a.tensor(1).sizes), self.dtype, self.device));
}
template <bool kInplace>
void cpu_masked_scatter(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  if (kInplace) check_no_internal_overlap(op, o[0]);
  // source's elements in its logical (row-major) order, read as the output's are written
  const Tensor& src = std::get<Tensor>(a[2]);
  const cpu::Operand s = cpu::make_operand(a[2], src.meta().sizes);
  std::vector<double> values;
  values.reserve(static_cast<size_t>(src.numel()));
  cpu::for_each_element(src.meta(), {}, [&](int64_t off, const int64_t*) { values.push_back(s.at(off)); });
  size_t next = 0;
  nary_kernel(a, {0, 1}, o[0], o[0].dtype(), [&](const double* v) {
    if (v[1] == 0) return v[0];
    FE_CHECK(next < values.size(), ValueError, op.schema.ns, "::", op.schema.name,
             ": Number of elements of source < number of ones in mask");
    return values[next++];
  });
}

// ---- clamp(self, min, max): promoted over self and the bounds; at least one bound
enum class Clamp : uint8_t { Scalar, Tensor, Inplace, Min, Max };

/// clamp, clamp.Tensor, clamp_, clamp_min/max; `kSelfOut`: clamp_min_/clamp_max_ (in place).
template <Clamp K, bool kSelfOut = K == Clamp::Inplace>
void meta_clamp(const MetaArgs& a, MetaOut& out) {
  require_tensor(a, 0);
  if (K == Clamp::Min || K == Clamp::Max) {
    require_number(a, 1);
  } else {
    FE_CHECK(!(a.is_none(1) && a.is_none(2)), ValueError, label(a), ": clamp called but both min and max are none!");
    for (size_t i : {1, 2})
      if (!a.is_none(i)) K == Clamp::Tensor ? require_tensor(a, i) : require_number(a, i);
  }
  if (K == Clamp::Tensor) {
    // torch._refs.clamp bounds self by min, then the result by max: two binary broadcasts.
    DimVector s = a.tensor(0).sizes;
    for (size_t i : {1, 2})
      if (!a.is_none(i)) s = broadcast_shapes(a, s, a.tensor(i).sizes);
  }
  TensorMeta m = K == Clamp::Min || K == Clamp::Max ? elementwise_meta(a, {0, 1}) : elementwise_meta(a, {0, 1, 2});
  if constexpr (kSelfOut) {
    const DType self_t = a.tensor(0).dtype;
    FE_CHECK(can_cast(m.dtype, self_t), DTypeError, label(a), ": Attempting to cast from ", torch_dtype(m.dtype),
             " to out tensor with dtype ", torch_dtype(self_t), ", but this can't be cast because it is not safe!");
    out.push(inplace_result(a, m));
    return;
  }
  out.push(std::move(m));
}

template <Clamp K, bool kSelfOut = K == Clamp::Inplace>
void cpu_clamp(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  if (kSelfOut) check_no_internal_overlap(op, o[0]);
  const bool two = K != Clamp::Min && K != Clamp::Max;
  const DType common = two ? cpu::result_dtype(a, {0, 1, 2}) : cpu::result_dtype(a, {0, 1});
  FE_CHECK(!(kSelfOut && !can_cast(common, o[0].dtype())), DTypeError, op.schema.ns, "::", op.schema.name,
           ": result type ", torch_dtype(common), " can't be cast to the desired output type ",
           torch_dtype(o[0].dtype()));
  auto clamp = [](const double* v) {
    double r = v[0];
    if (std::isnan(r)) return r;
    if (!std::isnan(v[1]) || !std::isnan(v[2])) {
      if (!std::isnan(v[1])) r = std::max(r, v[1]);
      if (!std::isnan(v[2])) r = std::min(r, v[2]);
    }
    return r;
  };
  if (two) {
    nary_kernel(a, {0, 1, 2}, o[0], common, clamp);
  } else {
    nary_kernel(a, {0, 1}, o[0], common, [&](const double* v) {
      const double bounds[3] = {v[0], K == Clamp::Min ? v[1] : std::nan(""), K == Clamp::Max ? v[1] : std::nan("")};
      return clamp(bounds);
    });
  }
}


// ---- bitwise_not/and/or: FakeTensorMode takes any dtype (promoted as usual); the cpu kernels
// refuse floating results ("bitwise_and_cpu" not implemented for 'Float').
void meta_bitwise_not(const MetaArgs& a, MetaOut& out) {
  require_tensor(a, 0);
  out.push(elementwise_meta(a, {0}));
}
template <bool Scalar>
void meta_bitwise(const MetaArgs& a, MetaOut& out) {
  require_tensor(a, 0);
  if (Scalar) require_number(a, 1);
  else require_tensor(a, 1);
  out.push(elementwise_meta(a, {0, 1}));
}
void check_bitwise_dtype(const OpDef& op, DType t) {
  FE_CHECK(!is_floating(t), DTypeError, op.schema.ns, "::", op.schema.name, ": \"", op.schema.name,
           "_cpu\" not implemented for '", scalar_type_name(t), "'");
}
void cpu_bitwise_not(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const DType t = o[0].dtype();
  check_bitwise_dtype(op, t);
  nary_kernel(a, {0}, o[0], t, [t](const double* v) -> double {
    return t == DType::Bool ? double(v[0] == 0) : double(~static_cast<int64_t>(v[0]));
  });
}
template <bool Or>
void cpu_bitwise(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const DType t = o[0].dtype();
  check_bitwise_dtype(op, t);
  nary_kernel(a, {0, 1}, o[0], t, [](const double* v) -> double {
    const int64_t x = static_cast<int64_t>(v[0]), y = static_cast<int64_t>(v[1]);
    return double(Or ? (x | y) : (x & y));
  });
}

/// __and__ / __or__ (CompositeImplicit): bitwise_and / bitwise_or of the same overload.
template <bool kOr, bool kScalar>
std::vector<Tensor> decomp_dunder(std::span<const IValue> a, const SrcLocArg& loc) {
  const OpDef& op = kOr ? (kScalar ? *op_bitwise_or_Scalar : *op_bitwise_or_Tensor)
                        : (kScalar ? *op_bitwise_and_Scalar : *op_bitwise_and_Tensor);
  return {dispatch1(op, {a[0], a[1]}, loc)};
}

/// where.ScalarOther / where.ScalarSelf (torch._refs.where): the scalar as a 0-dim tensor of the
/// tensor operand's dtype, then where.self.
template <bool kScalarSelf>
std::vector<Tensor> decomp_where_one_scalar(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& t = decomp_tensor(a, kScalarSelf ? 2 : 1);
  const Tensor s =
      dispatch1(*op_scalar_tensor, {a[kScalarSelf ? 1 : 2], t.dtype(), Layout::Strided, t.device(), None{}}, loc);
  return {dispatch1(*op_where_self, {a[0], kScalarSelf ? s : t, kScalarSelf ? t : s}, loc)};
}

/// where.Scalar (torch._refs.where): both scalars as 0-dim tensors of their result type (two floats:
/// the default dtype) on the condition's device, `other` made first, then where.self.
std::vector<Tensor> decomp_where_scalar(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& cond = decomp_tensor(a, 0);
  const auto category = [&](size_t i) { return std::holds_alternative<bool>(a[i]) ? 0 : std::holds_alternative<SymInt>(a[i]) ? 1 : 2; };
  const int c = std::max(category(1), category(2));
  const DType dt = c == 0 ? DType::Bool : c == 1 ? DType::Int64 : default_dtype();
  const Tensor other = dispatch1(*op_scalar_tensor, {a[2], dt, Layout::Strided, cond.device(), None{}}, loc);
  const Tensor self = dispatch1(*op_scalar_tensor, {a[1], dt, Layout::Strided, cond.device(), None{}}, loc);
  return {dispatch1(*op_where_self, {a[0], self, other}, loc)};
}

/// torch._refs.masked_fill's last step, `r.contiguous()` on where's result: c10's check of it,
/// which a retrace records there (before the clone), then a contiguous clone when where followed a
/// non-contiguous operand's layout.
Tensor masked_fill_contiguous(const Tensor& r, const SrcLocArg& loc) {
  note_refs_contiguity_asked(r);
  return contiguous_or_clone(r, MemoryFormat::Contiguous, "aten::masked_fill", loc);
}

/// masked_fill.Tensor (torch._refs.masked_fill): the 0-dim value converted to self's dtype
/// (`_to_copy(dtype=)`, no node when equal), then where(mask, value, self), made contiguous.
std::vector<Tensor> decomp_masked_fill_tensor(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& self = decomp_tensor(a, 0);
  Tensor value = decomp_tensor(a, 2);
  if (value.dtype() != self.dtype()) value = fe::_to_copy(value, {.dtype = self.dtype()}, loc);
  return {masked_fill_contiguous(dispatch1(*op_where_self, {a[1], value, self}, loc), loc)};
}

/// clamp_min / clamp_max (torch._refs): clamp with the other bound None.
template <bool kMin>
std::vector<Tensor> decomp_clamp_bound(std::span<const IValue> a, const SrcLocArg& loc) {
  if (kMin) return {dispatch1(*op_clamp, {a[0], a[1]}, loc)};
  return {dispatch1(*op_clamp, {a[0], None{}, a[1]}, loc)};
}

/// max.other / min.other (CompositeImplicit): maximum / minimum.
template <bool kMax>
std::vector<Tensor> decomp_max_min_other(std::span<const IValue> a, const SrcLocArg& loc) {
  return {dispatch1(kMax ? *op_maximum : *op_minimum, {a[0], a[1]}, loc)};
}

/// A concrete number as the Python type of dtype t (_maybe_convert_to_dtype of a Number: float(0) for
/// a float tensor, int(0.5) for an integral one, bool for bool); complex and symbolic values as given.
IValue number_as(DType t, const IValue& v) {
  const SymInt* i = std::get_if<SymInt>(&v);
  const double* d = std::get_if<double>(&v);
  const bool* b = std::get_if<bool>(&v);
  if (i && !i->maybe_int()) return v;
  const double x = d ? *d : i ? static_cast<double>(*i->maybe_int()) : b ? (*b ? 1.0 : 0.0) : 0.0;
  if (!d && !i && !b) return v;
  if (t == DType::Bool) return IValue(x != 0);
  if (is_floating(t)) return IValue(x);
  if (is_complex(t)) return v;
  return IValue(SymInt(static_cast<int64_t>(x)));
}

/// masked_fill.Scalar (torch._refs): where(mask, scalar_tensor(value, self's dtype), self), made
/// contiguous; the value is first converted to self's Python type.
std::vector<Tensor> decomp_masked_fill_scalar(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& self = decomp_tensor(a, 0);
  const Tensor value = dispatch1(*op_scalar_tensor, {number_as(self.dtype(), a[2]), self.dtype(), Layout::Strided, self.device(), None{}}, loc);
  return {masked_fill_contiguous(dispatch1(*op_where_self, {a[1], value, self}, loc), loc)};
}

}  // namespace

namespace ew {
void register_bitwise_ops(Registry& r) {
  op_bitwise_not = r.add({"aten::bitwise_not(Tensor self) -> Tensor", meta_bitwise_not, cpu_bitwise_not});
  op_bitwise_and_Tensor = r.add({"aten::bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor", meta_bitwise<false>, cpu_bitwise<false>});
  op_bitwise_and_Scalar = r.add({"aten::bitwise_and.Scalar(Tensor self, Scalar other) -> Tensor", meta_bitwise<true>, cpu_bitwise<false>});
  op_bitwise_or_Tensor = r.add({"aten::bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor", meta_bitwise<false>, cpu_bitwise<true>});
  op_bitwise_or_Scalar = r.add({"aten::bitwise_or.Scalar(Tensor self, Scalar other) -> Tensor", meta_bitwise<true>, cpu_bitwise<true>});
  // The Python operators `a & b` / `a | b` record these (same semantics as bitwise_and/or).
  op_dunder_and_Tensor = r.add({.schema = "aten::__and__.Tensor(Tensor self, Tensor other) -> Tensor",
                                .meta = meta_bitwise<false>, .cpu = cpu_bitwise<false>, .decomp = decomp_dunder<false, false>});
  op_dunder_and_Scalar = r.add({.schema = "aten::__and__.Scalar(Tensor self, Scalar other) -> Tensor",
                                .meta = meta_bitwise<true>, .cpu = cpu_bitwise<false>, .decomp = decomp_dunder<false, true>});
  op_dunder_or_Tensor = r.add({.schema = "aten::__or__.Tensor(Tensor self, Tensor other) -> Tensor",
                               .meta = meta_bitwise<false>, .cpu = cpu_bitwise<true>, .decomp = decomp_dunder<true, false>});
  op_dunder_or_Scalar = r.add({.schema = "aten::__or__.Scalar(Tensor self, Scalar other) -> Tensor",
                               .meta = meta_bitwise<true>, .cpu = cpu_bitwise<true>, .decomp = decomp_dunder<true, true>});
}
}  // namespace ew

namespace {
}  // namespace

namespace ew {
void register_logic_ops(Registry& r) {
  register_bitwise_ops(r);
  op_eq_Tensor = r.add({"aten::eq.Tensor(Tensor self, Tensor other) -> Tensor", meta_cmp<Cmp::Eq, false>, cpu_cmp<Cmp::Eq>});
  op_eq_Scalar = r.add({"aten::eq.Scalar(Tensor self, Scalar other) -> Tensor", meta_cmp<Cmp::Eq, true>, cpu_cmp<Cmp::Eq>});
  op_ne_Tensor = r.add({"aten::ne.Tensor(Tensor self, Tensor other) -> Tensor", meta_cmp<Cmp::Ne, false>, cpu_cmp<Cmp::Ne>});
  op_ne_Scalar = r.add({"aten::ne.Scalar(Tensor self, Scalar other) -> Tensor", meta_cmp<Cmp::Ne, true>, cpu_cmp<Cmp::Ne>});
  op_lt_Tensor = r.add({"aten::lt.Tensor(Tensor self, Tensor other) -> Tensor", meta_cmp<Cmp::Lt, false>, cpu_cmp<Cmp::Lt>});
  op_lt_Scalar = r.add({"aten::lt.Scalar(Tensor self, Scalar other) -> Tensor", meta_cmp<Cmp::Lt, true>, cpu_cmp<Cmp::Lt>});
  op_le_Tensor = r.add({"aten::le.Tensor(Tensor self, Tensor other) -> Tensor", meta_cmp<Cmp::Le, false>, cpu_cmp<Cmp::Le>});
  op_le_Scalar = r.add({"aten::le.Scalar(Tensor self, Scalar other) -> Tensor", meta_cmp<Cmp::Le, true>, cpu_cmp<Cmp::Le>});
  op_gt_Tensor = r.add({"aten::gt.Tensor(Tensor self, Tensor other) -> Tensor", meta_cmp<Cmp::Gt, false>, cpu_cmp<Cmp::Gt>});
  op_gt_Scalar = r.add({"aten::gt.Scalar(Tensor self, Scalar other) -> Tensor", meta_cmp<Cmp::Gt, true>, cpu_cmp<Cmp::Gt>});
  op_ge_Tensor = r.add({"aten::ge.Tensor(Tensor self, Tensor other) -> Tensor", meta_cmp<Cmp::Ge, false>, cpu_cmp<Cmp::Ge>});
  op_ge_Scalar = r.add({"aten::ge.Scalar(Tensor self, Scalar other) -> Tensor", meta_cmp<Cmp::Ge, true>, cpu_cmp<Cmp::Ge>});
  op_logical_and = r.add({"aten::logical_and(Tensor self, Tensor other) -> Tensor", meta_cmp<Cmp::And, false>, cpu_cmp<Cmp::And>});
  op_logical_or = r.add({"aten::logical_or(Tensor self, Tensor other) -> Tensor", meta_cmp<Cmp::Or, false>, cpu_cmp<Cmp::Or>});
  op_logical_xor = r.add({"aten::logical_xor(Tensor self, Tensor other) -> Tensor", meta_cmp<Cmp::Xor, false>, cpu_cmp<Cmp::Xor>});
  op_logical_not = r.add({"aten::logical_not(Tensor self) -> Tensor", meta_logical_not, cpu_logical_not});
  op_isinf = r.add({"aten::isinf(Tensor self) -> Tensor", meta_logical_not, cpu_isinf});
  op_isnan = r.add({"aten::isnan(Tensor self) -> Tensor", meta_logical_not, cpu_isnan});
  op_maximum = r.add({"aten::maximum(Tensor self, Tensor other) -> Tensor", meta_cmp<Cmp::Max, false>, cpu_cmp<Cmp::Max>});
  op_minimum = r.add({"aten::minimum(Tensor self, Tensor other) -> Tensor", meta_cmp<Cmp::Min, false>, cpu_cmp<Cmp::Min>});
  // torch.max(x, y) / torch.min(x, y): the same op as maximum/minimum under the max/min name.
  r.add({.schema = "aten::max.other(Tensor self, Tensor other) -> Tensor", .meta = meta_cmp<Cmp::Max, false>,
         .cpu = cpu_cmp<Cmp::Max>, .decomp = decomp_max_min_other<true>});
  r.add({.schema = "aten::min.other(Tensor self, Tensor other) -> Tensor", .meta = meta_cmp<Cmp::Min, false>,
         .cpu = cpu_cmp<Cmp::Min>, .decomp = decomp_max_min_other<false>});
  op_where_self = r.add({"aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor", meta_where<Where::Self>, cpu_where});
  op_where_ScalarOther = r.add({.schema = "aten::where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor",
                                .meta = meta_where<Where::ScalarOther>, .cpu = cpu_where,
                                .decomp = decomp_where_one_scalar<false>});
  op_where_ScalarSelf = r.add({.schema = "aten::where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor",
                               .meta = meta_where<Where::ScalarSelf>, .cpu = cpu_where,
                               .decomp = decomp_where_one_scalar<true>});
  op_where_Scalar = r.add({.schema = "aten::where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor",
                           .meta = meta_where<Where::Scalar>, .cpu = cpu_where, .decomp = decomp_where_scalar});
  op_masked_fill_Scalar = r.add({.schema = "aten::masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
                                 .meta = meta_masked_fill<false, false>, .cpu = cpu_masked_fill<false>,
                                 .decomp = decomp_masked_fill_scalar});
  op_masked_fill_Tensor = r.add({.schema = "aten::masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor",
                                 .meta = meta_masked_fill<true, false>, .cpu = cpu_masked_fill<false>,
                                 .decomp = decomp_masked_fill_tensor});
  op_masked_fill_inplace_Scalar = r.add({"aten::masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)",
         meta_masked_fill<false, true>, cpu_masked_fill<true>});
  r.add({"aten::masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor", meta_masked_scatter,
         cpu_masked_scatter<false>});
  r.add({"aten::masked_scatter_(Tensor(a!) self, Tensor mask, Tensor source) -> Tensor(a!)", meta_masked_scatter_,
         cpu_masked_scatter<true>});
  op_masked_fill_inplace_Tensor = r.add({"aten::masked_fill_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)",
         meta_masked_fill<true, true>, cpu_masked_fill<true>});
  op_clamp = r.add({"aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", meta_clamp<Clamp::Scalar>,
         cpu_clamp<Clamp::Scalar>});
  op_clamp_Tensor = r.add({"aten::clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor", meta_clamp<Clamp::Tensor>,
         cpu_clamp<Clamp::Tensor>});
  op_clamp_ = r.add({"aten::clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)",
         meta_clamp<Clamp::Inplace>, cpu_clamp<Clamp::Inplace>});
  op_clamp_min = r.add({.schema = "aten::clamp_min(Tensor self, Scalar min) -> Tensor", .meta = meta_clamp<Clamp::Min>,
                        .cpu = cpu_clamp<Clamp::Min>, .decomp = decomp_clamp_bound<true>});
  op_clamp_max = r.add({.schema = "aten::clamp_max(Tensor self, Scalar max) -> Tensor", .meta = meta_clamp<Clamp::Max>,
                        .cpu = cpu_clamp<Clamp::Max>, .decomp = decomp_clamp_bound<false>});
  op_addcmul = r.add({.schema = "aten::addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
                      .meta = meta_addcmul<false>, .cpu = cpu_addcmul<false>, .decomp = decomp_addcmul});
  r.add({"aten::addcmul_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)",
         meta_addcmul<true>, cpu_addcmul<true>});
  r.add({"aten::clamp_min_(Tensor(a!) self, Scalar min) -> Tensor(a!)", meta_clamp<Clamp::Min, true>,
         cpu_clamp<Clamp::Min, true>});
  r.add({"aten::clamp_max_(Tensor(a!) self, Scalar max) -> Tensor(a!)", meta_clamp<Clamp::Max, true>,
         cpu_clamp<Clamp::Max, true>});
}
}  // namespace ew

}  // namespace fe::ops
