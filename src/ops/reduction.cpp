// Reductions over a dim list: sum, mean, prod, amax, amin, any, all, var, std (see
// reduction_index.cpp for max/min/argmax/argmin, topk, sort, cumsum).
#include <algorithm>
#include <cmath>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "fakeexport/ops/functional_level.h"
#include "ops/annotation.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"
#include "ops/reduction_internal.h"

namespace fe {
OpHandle op_sum_dim_IntList;
namespace {
OpHandle op_all;
OpHandle op_all_dim;
OpHandle op_all_dims;
OpHandle op_amax;
OpHandle op_amin;
OpHandle op_any;
OpHandle op_any_dim;
OpHandle op_any_dims;
OpHandle op_logsumexp;
OpHandle op_mean;
OpHandle op_mean_dim;
OpHandle op_prod;
OpHandle op_prod_dim_int;
OpHandle op_std;
OpHandle op_std_correction;
OpHandle op_std_dim;
OpHandle op_sum;
OpHandle op_var;
OpHandle op_var_correction;
OpHandle op_var_dim;
}  // namespace
}  // namespace fe

namespace fe {
namespace ops {
namespace red {

DimMask reduce_mask(std::string_view label, int64_t ndim, const std::vector<SymInt>* dims, bool empty_is_all) {
  if (!dims || (dims->empty() && empty_is_all)) return all_dims(ndim);
  DimMask mask = 0;
  for (const SymInt& d : *dims) {
    const int64_t w = wrap_dim(d.expect_int(), ndim, label);
    FE_CHECK(!((mask >> w) & 1), ValueError, label, ": duplicate value in the list of dims");
    mask |= DimMask{1} << w;
  }
  return mask;
}

TensorMeta reduced_meta(const TensorMeta& in, DimMask mask, bool keepdim, DType dtype, KeepStrides ks) {
  DimVector kept;
  for (int64_t d = 0; d < in.dim(); ++d)
    if (!((mask >> d) & 1)) kept.push_back(in.sizes[d]);
  TensorMeta out = make_contiguous(kept, dtype, in.device);
  if (!keepdim) return out;
  if (ks == KeepStrides::Contiguous) {
    DimVector sizes = in.sizes;
    for (int64_t d = 0; d < in.dim(); ++d)
      if ((mask >> d) & 1) sizes[d] = 1;
    return make_contiguous(sizes, dtype, in.device);
  }
  // unsqueeze(d) for each reduced d, ascending: the new dim's stride is sizes[d] * strides[d].
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (!((mask >> d) & 1)) continue;
    const size_t at = static_cast<size_t>(d);
    const SymInt st = at < out.sizes.size() ? out.sizes[at] * out.strides[at] : SymInt(1);
    out.sizes.insert_at(at, SymInt(1));
    out.strides.insert_at(at, st);
  }
  return out;
}

std::vector<int64_t> element_offsets(const TensorMeta& m) {
  std::vector<int64_t> out;
  const int64_t n = m.numel().expect_int();
  out.reserve(static_cast<size_t>(n));
  std::vector<int64_t> idx(m.sizes.size(), 0);
  int64_t off = m.storage_offset.expect_int();
  for (int64_t e = 0; e < n; ++e) {
    out.push_back(off);
    for (size_t d = idx.size(); d-- > 0;) {
      const int64_t st = m.strides[d].expect_int();
      if (++idx[d] < m.sizes[d].expect_int()) {
        off += st;
        break;
      }
      off -= (idx[d] - 1) * st;
      idx[d] = 0;
    }
  }
  return out;
}

GroupOffsets split_offsets(const TensorMeta& m, DimMask mask) {
  TensorMeta outer, inner;
  outer.storage_offset = m.storage_offset;
  for (int64_t d = 0; d < m.dim(); ++d) {
    TensorMeta& part = (mask >> d) & 1 ? inner : outer;
    part.sizes.push_back(m.sizes[d]);
    part.strides.push_back(m.strides[d]);
  }
  return {element_offsets(outer), element_offsets(inner)};
}

Reader::Reader(const Tensor& t)
    : base(static_cast<const std::byte*>(t.data_ptr()) - t.meta().storage_offset.expect_int() * itemsize(t.dtype())),
      dtype(t.dtype()) {}

double cast_to(DType t, double v) {
  alignas(8) std::byte buf[16];
  detail::store(buf, t, v);
  return detail::load(buf, t);
}

}  // namespace red

namespace {
using namespace red;

// ---- dtype rules
/// sum/prod/cumsum: integral and bool inputs accumulate in int64 unless `dtype=` says otherwise.
DType accumulate_dtype(const TensorMeta& x, std::optional<DType> dtype) {
  if (dtype) return *dtype;
  return is_integral(x.dtype, true) ? DType::Int64 : x.dtype;
}

DType mean_dtype(const MetaArgs& a, const TensorMeta& x, std::optional<DType> dtype) {
  if (dtype) {
    FE_CHECK(is_floating(*dtype) || is_complex(*dtype), DTypeError, label(a),
             ": mean(): could not infer output dtype. Optional dtype must be either a floating point or complex "
             "dtype. Got: torch.", dtype_name(*dtype));
    return *dtype;
  }
  FE_CHECK(is_floating(x.dtype) || is_complex(x.dtype), DTypeError, label(a),
           ": mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
           "Got: torch.", dtype_name(x.dtype));
  return x.dtype;
}

/// var/std of complex numbers are real.
DType real_dtype(DType t) {
  switch (t) {
    case DType::Complex32: return DType::Float16;
    case DType::Complex64: return DType::Float32;
    case DType::Complex128: return DType::Float64;
    default: return t;
  }
}

/// any/all: bool, except uint8 inputs keep uint8 (PyTorch's legacy byte-bool result).
DType anyall_dtype(DType t) { return t == DType::UInt8 ? DType::UInt8 : DType::Bool; }

// ---- meta functions
/// logsumexp: a reduction over the dim list ([] = every dim); int and bool inputs give the default
/// float dtype.
void meta_logsumexp(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const DimMask mask = reduce_mask(label(a), x.dim(), &a.int_list(1), true);
  const DType dt = is_integral(x.dtype, true) ? default_dtype() : x.dtype;
  // FakeTensorMode runs torch._refs.logsumexp: with no dims the maxes (kept as size 1) are not
  // squeezed, and the sum of everything broadcasts against them: all dims stay, as size 1. An
  // empty self takes the reference's other path, log(sum(exp(self))), with no maxes.
  const auto zero = [](const SymInt& s) { return s.maybe_int() == 0; };
  const bool no_dims = a.int_list(1).empty() && !a.to_bool(2) && std::none_of(x.sizes.begin(), x.sizes.end(), zero);
  out.push(reduced_meta(x, mask, no_dims || a.to_bool(2), dt));
}
void meta_sum(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  out.push(reduced_meta(x, all_dims(x.dim()), false, accumulate_dtype(x, a.opt_dtype(1))));
}
void meta_sum_dim(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const DimMask mask = reduce_mask(label(a), x.dim(), opt_dims(a, 1), true);
  out.push(reduced_meta(x, mask, a.to_bool(2), accumulate_dtype(x, a.opt_dtype(3)), KeepStrides::Unsqueezed));
}
void meta_mean(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  out.push(reduced_meta(x, all_dims(x.dim()), false, mean_dtype(a, x, a.opt_dtype(1))));
}
void meta_mean_dim(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const DType dt = mean_dtype(a, x, a.opt_dtype(3));
  const DimMask mask = reduce_mask(label(a), x.dim(), opt_dims(a, 1), true);
  out.push(reduced_meta(x, mask, a.to_bool(2), dt));
}
void meta_prod(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  out.push(reduced_meta(x, all_dims(x.dim()), false, accumulate_dtype(x, a.opt_dtype(1))));
}
void meta_prod_dim(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  out.push(reduced_meta(x, dim_mask(label(a), x.dim(), a.to_int(1)), a.to_bool(2), accumulate_dtype(x, a.opt_dtype(3)),
                        KeepStrides::Unsqueezed));
}

// amax/amin have no identity: every reduced dim of an empty input must be non-empty.
void meta_amax(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const DimMask mask = reduce_mask(label(a), x.dim(), &a.int_list(1), true);
  for (int64_t d = 0; d < x.dim(); ++d)
    FE_CHECK(!((mask >> d) & 1) || x.sizes[d] != 0, ShapeError, label(a),
             ": reducing over zero-size dimension for reduction operation without identity");
  out.push(reduced_meta(x, mask, a.to_bool(2), x.dtype, KeepStrides::Unsqueezed));
}

void meta_anyall(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  out.push(reduced_meta(x, all_dims(x.dim()), false, anyall_dtype(x.dtype)));
}
void meta_anyall_dim(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  out.push(reduced_meta(x, dim_mask(label(a), x.dim(), a.to_int(1)), a.to_bool(2), anyall_dtype(x.dtype)));
}
// any.dims/all.dims: [] reduces nothing; the result is then laid out like an elementwise output.
void meta_anyall_dims(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const DimMask mask = reduce_mask(label(a), x.dim(), opt_dims(a, 1), false);
  if (mask == 0 && !a.is_none(1)) {
    TensorMeta m = x;
    m.dtype = anyall_dtype(x.dtype);
    m.storage_offset = 0;
    m.requires_grad = false;
    const TensorMeta* ins[] = {&x};
    m.strides = iter_output_strides(x.sizes, ins);
    out.push(std::move(m));
    return;
  }
  out.push(reduced_meta(x, mask, a.to_bool(2), anyall_dtype(x.dtype)));
}

// var/std: correction / unbiased never change the shape. std keeps contiguous keepdim strides.
template <KeepStrides KS>
void meta_var(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const DimMask mask = reduce_mask(label(a), x.dim(), opt_dims(a, 1), true);
  out.push(reduced_meta(x, mask, a.to_bool(3), real_dtype(x.dtype), KS));
}

// var.default/std.default(self, unbiased): a full reduction to a 0-dim tensor.
void meta_var_all(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  out.push(reduced_meta(x, all_dims(x.dim()), false, real_dtype(x.dtype)));
}

// ---- reference kernels
/// Writes one value per group to output 0, in the output's row-major order.
template <class F>
void reduce_into(const Tensor& in, DimMask mask, const Tensor& out, F&& f) {
  const std::vector<int64_t> offs = element_offsets(out.meta());
  for_each_group(in, mask, [&](size_t i, std::vector<double>& v) { cpu::store_at(out, offs[i], f(v)); });
}

double sum_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

DimMask full_mask(const Tensor& t) { return all_dims(t.dim()); }
DimMask list_mask(const OpDef& op, const Tensor& t, const IValue& dims, bool empty_is_all) {
  return reduce_mask(op.label(), t.dim(), opt_dims(dims), empty_is_all);
}
DimMask int_mask(const OpDef& op, const Tensor& t, const IValue& dim) {
  return dim_mask(op.label(), t.dim(), std::get<SymInt>(dim).expect_int());
}

/// sum/prod/mean: the input is converted to the result dtype first (PyTorch's `self.to(dtype)`).
template <class F>
void accumulate(const Tensor& in, DimMask mask, const Tensor& out, F&& f) {
  const DType dt = out.dtype();
  reduce_into(in, mask, out, [&](std::vector<double>& v) {
    for (double& x : v) x = cast_to(dt, x);
    return f(v);
  });
}

double prod_of(const std::vector<double>& v) {
  double p = 1;
  for (double x : v) p *= x;
  return p;
}
double mean_of(const std::vector<double>& v) { return sum_of(v) / static_cast<double>(v.size()); }

void cpu_sum(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  accumulate(x, full_mask(x), o[0], sum_of);
}
void cpu_sum_dim(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  accumulate(x, list_mask(op, x, a[1], true), o[0], sum_of);
}
void cpu_mean(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  accumulate(x, full_mask(x), o[0], mean_of);
}
void cpu_mean_dim(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  accumulate(x, list_mask(op, x, a[1], true), o[0], mean_of);
}
void cpu_prod(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  accumulate(x, full_mask(x), o[0], prod_of);
}
void cpu_prod_dim(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  accumulate(x, int_mask(op, x, a[1]), o[0], prod_of);
}

/// max/min with NaN propagation (meta already rejected empty reductions).
template <bool Max>
double extreme_of(const std::vector<double>& v) {
  double m = v.empty() ? 0 : v[0];
  for (double x : v) {
    if (std::isnan(x)) return x;
    if (Max ? x > m : x < m) m = x;
  }
  return m;
}
template <bool Max>
void cpu_amax(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  reduce_into(x, list_mask(op, x, a[1], true), o[0], extreme_of<Max>);
}

/// log(sum(exp(v - m))) + m with m the maximum, taken as 0 when infinite (as the decomposition does).
double logsumexp_of(const std::vector<double>& v) {
  double m = v.empty() ? 0 : *std::max_element(v.begin(), v.end());
  if (std::isinf(m)) m = 0;
  double sum = 0;
  for (double x : v) sum += std::exp(x - m);
  return std::log(sum) + m;
}
void cpu_logsumexp(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  reduce_into(x, list_mask(op, x, a[1], true), o[0], logsumexp_of);
}

template <bool Any>
double anyall_of(const std::vector<double>& v) {
  for (double x : v)
    if ((x != 0) == Any) return Any;
  return !Any;
}
template <bool Any>
void cpu_anyall(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  reduce_into(x, full_mask(x), o[0], anyall_of<Any>);
}
template <bool Any>
void cpu_anyall_dim(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  reduce_into(x, int_mask(op, x, a[1]), o[0], anyall_of<Any>);
}
template <bool Any>
void cpu_anyall_dims(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  reduce_into(x, list_mask(op, x, a[1], false), o[0], anyall_of<Any>);
}

/// Sum of squared deviations over max(0, n - correction); NaN/inf for too few elements, as PyTorch.
double var_of(const std::vector<double>& v, double correction) {
  const double mean = mean_of(v);
  double m2 = 0;
  for (double x : v) m2 += (x - mean) * (x - mean);
  return m2 / std::max(0.0, static_cast<double>(v.size()) - correction);
}
template <bool Sqrt>
void var_kernel(const OpDef& op, const Tensor& x, const IValue& dims, double correction, const Tensor& out) {
  FE_CHECK(is_floating(x.dtype()) || is_complex(x.dtype()), DTypeError, op.label(),
           ": std and var only support floating point and complex dtypes");
  reduce_into(x, list_mask(op, x, dims, true), out, [&](std::vector<double>& v) {
    const double r = var_of(v, correction);
    return Sqrt ? std::sqrt(r) : r;
  });
}
template <bool Sqrt>
void cpu_var_correction(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const double correction = std::holds_alternative<None>(a[2]) ? 1.0 : cpu::number_of(a[2]);
  var_kernel<Sqrt>(op, std::get<Tensor>(a[0]), a[1], correction, o[0]);
}
template <bool Sqrt>
void cpu_var_dim(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  var_kernel<Sqrt>(op, std::get<Tensor>(a[0]), a[1], std::get<bool>(a[2]) ? 1.0 : 0.0, o[0]);
}
template <bool Sqrt>
void cpu_var_all(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  var_kernel<Sqrt>(op, std::get<Tensor>(a[0]), IValue(None{}), std::get<bool>(a[1]) ? 1.0 : 0.0, o[0]);
}
/// torch._decomp's sum.default: sum.dim_IntList(self, [], dtype=dtype).
std::vector<Tensor> decomp_sum(std::span<const IValue> a, const SrcLocArg& loc) {
  return {dispatch1(*op_sum_dim_IntList, {a[0], std::vector<SymInt>{}, false, a[1]}, loc)};
}

/// logsumexp (torch._refs.logsumexp, ints converted to the default float first): the maximum over
/// the dims kept as size 1, zero where infinite, subtracted before exp and added back after log; of
/// an empty input, log(sum(exp(self))).
std::vector<Tensor> decomp_logsumexp(std::span<const IValue> a, const SrcLocArg& loc) {
  const DisableDynamoScope annotated("logsumexp");  // its type-promotion wrapper is dynamo-disabled
  Tensor x = decomp_tensor(a, 0);
  if (is_integral(x.dtype(), true)) x = fe::_to_copy(x, {.dtype = default_dtype()}, loc);
  const IValue& dims = a[1];
  const bool keepdim = std::get<bool>(a[2]);
  const auto sum = [&](const Tensor& t) {
    return keepdim ? dispatch1(*op_sum_dim_IntList, {t, dims, true}, loc) : dispatch1(*op_sum_dim_IntList, {t, dims}, loc);
  };
  note_refs_numel_compared(x);  // `self.numel() == 0`
  const auto empty = [](const SymInt& n) { return n.maybe_int() == 0; };
  if (std::any_of(x.sizes().begin(), x.sizes().end(), empty)) return {fe::log(sum(fe::exp(x, loc)), loc)};
  Tensor maxes = dispatch1(*op_amax, {x, dims, true}, loc);
  maxes = fe::masked_fill(maxes, fe::eq(fe::abs(maxes, loc), Scalar(INFINITY), loc), Scalar(SymInt(0)), loc);
  const Tensor squeezed = keepdim ? maxes : dispatch1(*op_squeeze_dims, {maxes, dims}, loc);
  const Tensor result = sum(fe::exp(fe::sub(x, maxes, 1, loc), loc));
  return {fe::add(fe::log(result, loc), squeezed, 1, loc)};
}

/// all / all.dim / all.dims (torch._refs.all): logical_not(any(logical_not(self), dim, keepdim))
/// (any.dims without a dim for all()), back to uint8 for a uint8 self.
template <int kDims>  // 0: all(), 1: all.dim, 2: all.dims
std::vector<Tensor> decomp_all(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  const Tensor n = dispatch1(*op_logical_not, {x}, loc);
  Tensor r = kDims == 1 ? dispatch1(*op_any_dim, {n, a[1], a[2]}, loc)
             : kDims == 2 ? dispatch1(*op_any_dims, {n, a[1], a[2]}, loc)
                          : dispatch1(*op_any_dims, {n, None{}, false}, loc);
  r = dispatch1(*op_logical_not, {r}, loc);
  if (x.dtype() == DType::UInt8) r = fe::_to_copy(r, {.dtype = DType::UInt8}, loc);
  return {r};
}

/// var.default / var.dim (CompositeImplicit): var.correction with the integer correction unbiased
/// gives (no dims for var.default).
template <bool kDim>
std::vector<Tensor> decomp_var_unbiased(std::span<const IValue> a, const SrcLocArg& loc) {
  const SymInt correction(std::get<bool>(a[kDim ? 2 : 1]) ? 1 : 0);
  if (kDim) return {dispatch1(*op_var_correction, {a[0], a[1], correction, a[3]}, loc)};
  return {dispatch1(*op_var_correction, {a[0], None{}, correction, false}, loc)};
}

/// std.default / std.dim / std.correction (torch._refs.std): sqrt(var.correction) with the
/// correction as a float (set_correction: 1.0 unless unbiased is False or a correction is given),
/// computed in the reduction's opmath dtype.
enum class Std : uint8_t { Default, Dim, Correction };
template <Std K>
std::vector<Tensor> decomp_std(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  double correction = 1.0;
  if (K == Std::Correction) {
    if (!std::holds_alternative<None>(a[2])) correction = cpu::number_of(a[2]);
  } else {
    correction = std::get<bool>(a[K == Std::Dim ? 2 : 1]) ? 1.0 : 0.0;
  }
  const Tensor var = K == Std::Default
                         ? dispatch1(*op_var_correction, {opmath(x, loc), None{}, correction, false}, loc)
                         : dispatch1(*op_var_correction, {opmath(x, loc), a[1], correction, a[3]}, loc);
  return {opmath_result(fe::sqrt(var, loc), x.dtype(), loc)};
}

}  // namespace

void register_reduction_ops(Registry& r) {
  op_sum = r.add({.schema = "aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", .meta = meta_sum, .cpu = cpu_sum,
                  .decomp = decomp_sum});
  op_sum_dim_IntList = r.add({"aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
         meta_sum_dim, cpu_sum_dim});
  op_mean = r.add({"aten::mean(Tensor self, *, ScalarType? dtype=None) -> Tensor", meta_mean, cpu_mean});
  op_mean_dim = r.add({"aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
         meta_mean_dim, cpu_mean_dim});
  op_prod = r.add({"aten::prod(Tensor self, *, ScalarType? dtype=None) -> Tensor", meta_prod, cpu_prod});
  op_prod_dim_int = r.add({"aten::prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
         meta_prod_dim, cpu_prod_dim});
  op_amax = r.add({"aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", meta_amax, cpu_amax<true>});
  op_amin = r.add({"aten::amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", meta_amax, cpu_amax<false>});
  op_logsumexp = r.add({.schema = "aten::logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor",
                        .meta = meta_logsumexp, .cpu = cpu_logsumexp, .decomp = decomp_logsumexp});
  op_any = r.add({"aten::any(Tensor self) -> Tensor", meta_anyall, cpu_anyall<true>});
  op_any_dim = r.add({"aten::any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor", meta_anyall_dim, cpu_anyall_dim<true>});
  op_any_dims = r.add({"aten::any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor", meta_anyall_dims,
         cpu_anyall_dims<true>});
  op_all = r.add({.schema = "aten::all(Tensor self) -> Tensor", .meta = meta_anyall, .cpu = cpu_anyall<false>,
                  .decomp = decomp_all<0>});
  op_all_dim = r.add({.schema = "aten::all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
                      .meta = meta_anyall_dim, .cpu = cpu_anyall_dim<false>, .decomp = decomp_all<1>});
  op_all_dims = r.add({.schema = "aten::all.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor",
                       .meta = meta_anyall_dims, .cpu = cpu_anyall_dims<false>, .decomp = decomp_all<2>});
  op_var_correction = r.add({"aten::var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
         meta_var<KeepStrides::Unsqueezed>, cpu_var_correction<false>});
  op_var_dim = r.add({.schema = "aten::var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor",
                      .meta = meta_var<KeepStrides::Unsqueezed>, .cpu = cpu_var_dim<false>,
                      .decomp = decomp_var_unbiased<true>});
  op_std_correction = r.add({.schema = "aten::std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
                             .meta = meta_var<KeepStrides::Contiguous>, .cpu = cpu_var_correction<true>,
                             .decomp = decomp_std<Std::Correction>});
  op_std_dim = r.add({.schema = "aten::std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor",
                      .meta = meta_var<KeepStrides::Contiguous>, .cpu = cpu_var_dim<true>, .decomp = decomp_std<Std::Dim>});
  op_var = r.add({.schema = "aten::var(Tensor self, bool unbiased=True) -> Tensor", .meta = meta_var_all,
                  .cpu = cpu_var_all<false>, .decomp = decomp_var_unbiased<false>});
  op_std = r.add({.schema = "aten::std(Tensor self, bool unbiased=True) -> Tensor", .meta = meta_var_all,
                  .cpu = cpu_var_all<true>, .decomp = decomp_std<Std::Default>});
  register_reduction_index_ops(r);
}

}  // namespace ops

using ops::red::dims_ivalue;
using ops::red::dtype_ivalue;

Tensor sum(const Tensor& self, std::optional<DType> dtype, SrcLocArg loc) {
  return dispatch1(*op_sum, {self, dtype_ivalue(dtype)}, loc);
}
Tensor sum(const Tensor& self, std::initializer_list<int64_t> dim, bool keepdim, std::optional<DType> dtype,
           SrcLocArg loc) {
  return dispatch1(*op_sum_dim_IntList, {self, dims_ivalue(dim), keepdim, dtype_ivalue(dtype)}, loc);
}
Tensor sum(const Tensor& self, const OptDims& dim, bool keepdim, std::optional<DType> dtype, SrcLocArg loc) {
  return dispatch1(*op_sum_dim_IntList, {self, dims_ivalue(dim), keepdim, dtype_ivalue(dtype)}, loc);
}
Tensor mean(const Tensor& self, std::optional<DType> dtype, SrcLocArg loc) {
  return dispatch1(*op_mean, {self, dtype_ivalue(dtype)}, loc);
}
Tensor mean(const Tensor& self, std::initializer_list<int64_t> dim, bool keepdim, std::optional<DType> dtype,
            SrcLocArg loc) {
  return dispatch1(*op_mean_dim, {self, dims_ivalue(dim), keepdim, dtype_ivalue(dtype)}, loc);
}
Tensor mean(const Tensor& self, const OptDims& dim, bool keepdim, std::optional<DType> dtype, SrcLocArg loc) {
  return dispatch1(*op_mean_dim, {self, dims_ivalue(dim), keepdim, dtype_ivalue(dtype)}, loc);
}
Tensor prod(const Tensor& self, std::optional<DType> dtype, SrcLocArg loc) {
  return dispatch1(*op_prod, {self, dtype_ivalue(dtype)}, loc);
}
Tensor prod(const Tensor& self, int64_t dim, bool keepdim, std::optional<DType> dtype, SrcLocArg loc) {
  return dispatch1(*op_prod_dim_int, {self, SymInt(dim), keepdim, dtype_ivalue(dtype)}, loc);
}
Tensor amax(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim, SrcLocArg loc) {
  return dispatch1(*op_amax, {self, dims_ivalue(std::span(dim)), keepdim}, loc);
}
Tensor logsumexp(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim, SrcLocArg loc) {
  return dispatch1(*op_logsumexp, {self, dims_ivalue(std::span(dim)), keepdim}, loc);
}
Tensor amin(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim, SrcLocArg loc) {
  return dispatch1(*op_amin, {self, dims_ivalue(std::span(dim)), keepdim}, loc);
}

// var/std: one dispatcher per overload, shared by both names.
namespace {
Tensor var_correction(const OpDef& d, const Tensor& self, const OptDims& dim, const Correction& c, bool keepdim,
                      const SrcLocArg& loc) {
  return dispatch1(d, {self, dims_ivalue(dim), c.value ? c.value->ivalue() : IValue(None{}), keepdim}, loc);
}
Tensor var_dim(const OpDef& d, const Tensor& self, const std::vector<int64_t>& dim, bool unbiased, bool keepdim,
               const SrcLocArg& loc) {
  return dispatch1(d, {self, dims_ivalue(std::span(dim)), unbiased, keepdim}, loc);
}
}  // namespace

Tensor var(const Tensor& self, SrcLocArg loc) {
  return var_correction(*op_var_correction, self, std::nullopt, {}, false, loc);
}
Tensor var(const Tensor& self, const std::vector<int64_t>& dim, bool unbiased, bool keepdim, SrcLocArg loc) {
  return var_dim(*op_var_dim, self, dim, unbiased, keepdim, loc);
}
Tensor var(const Tensor& self, const OptDims& dim, Correction correction, bool keepdim, SrcLocArg loc) {
  return var_correction(*op_var_correction, self, dim, correction, keepdim, loc);
}
Tensor var(const Tensor& self, std::initializer_list<int64_t> dim, Correction correction, bool keepdim,
           SrcLocArg loc) {
  return fe::var(self, OptDims(dim), correction, keepdim, loc);
}
Tensor detail::var_all(const Tensor& self, bool unbiased, SrcLocArg loc) {
  if (unbiased) return dispatch1(*op_var, {self}, loc);  // torch.var(x, unbiased=True) records var.default(x)
  return dispatch1(*op_var, {self, false}, loc);
}
Tensor detail::std_all(const Tensor& self, bool unbiased, SrcLocArg loc) {
  if (unbiased) return dispatch1(*op_std, {self}, loc);
  return dispatch1(*op_std, {self, false}, loc);
}
Tensor std(const Tensor& self, SrcLocArg loc) {
  return var_correction(*op_std_correction, self, std::nullopt, {}, false, loc);
}
Tensor std(const Tensor& self, const std::vector<int64_t>& dim, bool unbiased, bool keepdim, SrcLocArg loc) {
  return var_dim(*op_std_dim, self, dim, unbiased, keepdim, loc);
}
Tensor std(const Tensor& self, const OptDims& dim, Correction correction, bool keepdim, SrcLocArg loc) {
  return var_correction(*op_std_correction, self, dim, correction, keepdim, loc);
}
Tensor std(const Tensor& self, std::initializer_list<int64_t> dim, Correction correction, bool keepdim,
           SrcLocArg loc) {
  return fe::std(self, OptDims(dim), correction, keepdim, loc);
}

Tensor any(const Tensor& self, SrcLocArg loc) {
  return dispatch1(*op_any, {self}, loc);
}
Tensor any(const Tensor& self, int64_t dim, bool keepdim, SrcLocArg loc) {
  return dispatch1(*op_any_dim, {self, SymInt(dim), keepdim}, loc);
}
Tensor any(const Tensor& self, std::initializer_list<int64_t> dim, bool keepdim, SrcLocArg loc) {
  return dispatch1(*op_any_dims, {self, dims_ivalue(dim), keepdim}, loc);
}
Tensor any(const Tensor& self, const OptDims& dim, bool keepdim, SrcLocArg loc) {
  return dispatch1(*op_any_dims, {self, dims_ivalue(dim), keepdim}, loc);
}
Tensor all(const Tensor& self, SrcLocArg loc) {
  return dispatch1(*op_all, {self}, loc);
}
Tensor all(const Tensor& self, int64_t dim, bool keepdim, SrcLocArg loc) {
  return dispatch1(*op_all_dim, {self, SymInt(dim), keepdim}, loc);
}
Tensor all(const Tensor& self, std::initializer_list<int64_t> dim, bool keepdim, SrcLocArg loc) {
  return dispatch1(*op_all_dims, {self, dims_ivalue(dim), keepdim}, loc);
}
Tensor all(const Tensor& self, const OptDims& dim, bool keepdim, SrcLocArg loc) {
  return dispatch1(*op_all_dims, {self, dims_ivalue(dim), keepdim}, loc);
}

// ---- Tensor methods
Tensor Tensor::sum(std::optional<DType> dtype, SrcLocArg loc) const { return fe::sum(*this, dtype, loc); }
Tensor Tensor::sum(std::initializer_list<int64_t> dim, bool keepdim, std::optional<DType> dtype, SrcLocArg loc) const {
  return fe::sum(*this, dim, keepdim, dtype, loc);
}
Tensor Tensor::mean(std::optional<DType> dtype, SrcLocArg loc) const { return fe::mean(*this, dtype, loc); }
Tensor Tensor::mean(std::initializer_list<int64_t> dim, bool keepdim, std::optional<DType> dtype, SrcLocArg loc) const {
  return fe::mean(*this, dim, keepdim, dtype, loc);
}
Tensor Tensor::prod(std::optional<DType> dtype, SrcLocArg loc) const { return fe::prod(*this, dtype, loc); }
Tensor Tensor::prod(int64_t dim, bool keepdim, std::optional<DType> dtype, SrcLocArg loc) const {
  return fe::prod(*this, dim, keepdim, dtype, loc);
}
Tensor Tensor::amax(std::initializer_list<int64_t> dim, bool keepdim, SrcLocArg loc) const {
  return fe::amax(*this, std::vector<int64_t>(dim), keepdim, loc);
}
Tensor Tensor::amin(std::initializer_list<int64_t> dim, bool keepdim, SrcLocArg loc) const {
  return fe::amin(*this, std::vector<int64_t>(dim), keepdim, loc);
}
Tensor Tensor::var(SrcLocArg loc) const { return fe::var(*this, loc); }
Tensor Tensor::var(std::initializer_list<int64_t> dim, bool unbiased, bool keepdim, SrcLocArg loc) const {
  return fe::var(*this, std::vector<int64_t>(dim), unbiased, keepdim, loc);
}
Tensor Tensor::std(SrcLocArg loc) const { return fe::std(*this, loc); }
Tensor Tensor::std(std::initializer_list<int64_t> dim, bool unbiased, bool keepdim, SrcLocArg loc) const {
  return fe::std(*this, std::vector<int64_t>(dim), unbiased, keepdim, loc);
}
Tensor Tensor::any(SrcLocArg loc) const { return fe::any(*this, loc); }
Tensor Tensor::any(int64_t dim, bool keepdim, SrcLocArg loc) const { return fe::any(*this, dim, keepdim, loc); }
Tensor Tensor::any(std::initializer_list<int64_t> dim, bool keepdim, SrcLocArg loc) const {
  return fe::any(*this, dim, keepdim, loc);
}
Tensor Tensor::all(SrcLocArg loc) const { return fe::all(*this, loc); }
Tensor Tensor::all(int64_t dim, bool keepdim, SrcLocArg loc) const { return fe::all(*this, dim, keepdim, loc); }
Tensor Tensor::all(std::initializer_list<int64_t> dim, bool keepdim, SrcLocArg loc) const {
  return fe::all(*this, dim, keepdim, loc);
}

}  // namespace fe
