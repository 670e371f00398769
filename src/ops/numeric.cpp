// Numeric ops that real exported programs record beyond the core families: diff (HF decoders'
// packed-sequence check), histc (MoE routers), linalg_vector_norm (SigLIP, ConvNeXt-V2),
// _weight_norm (wav2vec2/HuBERT positional conv), item and _assert_scalar (data-dependent code).
// diff and _weight_norm are composite in PyTorch: their metadata is the composition of the meta
// functions of the ops PyTorch's implementation calls, so strides follow TensorIterator exactly.
#include <cmath>
#include <cstdio>
#include <limits>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "fakeexport/sym/shape_env.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"
#include "ops/reduction_internal.h"
#include "ops/unary_common.h"

namespace fe {
OpHandle op_assert_async_msg;
namespace {
OpHandle op_diff;
OpHandle op_histc;
OpHandle op_linalg_vector_norm;
}  // namespace
}  // namespace fe

namespace fe {
namespace ops {
namespace {

// ---- diff(self, n=1, dim=-1, prepend=None, append=None): cat, then n times narrow(1) - narrow(0)
// (logical_xor for bool), n clamped to the dim's size (ReduceOps.cpp diff_helper).
void check_diff_other(const MetaArgs& a, const TensorMeta& self, const TensorMeta* other, int64_t dim) {
  if (!other) return;
  FE_CHECK(other->dim() == self.dim(), ValueError, label(a),
           ": diff expects prepend or append to be the same dimension as input");
  for (int64_t i = 0; i < other->dim(); ++i) {
    if (i == dim) continue;
    FE_CHECK(sym_eq(other->sizes[i], self.sizes[i]).guard(), ValueError, label(a),
             ": diff expects the shape of tensor to prepend or append to match that of input except along the "
             "differencing dimension; input.size(", i, ") = ", self.sizes[i].str(), ", but got tensor.size(", i,
             ") = ", other->sizes[i].str());
  }
}

void meta_diff(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = tensor_arg(a, 0);
  int64_t n = a.to_int(1);
  FE_CHECK(self.dim() >= 1, ValueError, label(a), ": diff expects input to be at least one-dimensional");
  FE_CHECK(n >= 0, ValueError, label(a), ": order must be non-negative but got ", n);
  const TensorMeta *pre = a.opt_tensor(3), *app = a.opt_tensor(4);
  const int64_t dim = (pre || app) ? wrap_dim(a.to_int(2), self.dim(), label(a)) : a.to_int(2);
  check_diff_other(a, self, pre, dim);
  check_diff_other(a, self, app, dim);
  TensorMeta x = self;
  if (pre || app) {
    std::vector<const TensorMeta*> parts;
    for (const TensorMeta* t : {pre, &self, app})
      if (t) parts.push_back(t);
    x = meta_call(*op_cat, {parts, SymInt(dim)});
  }
  if (n == 0) {  // zeros_like(self).copy_(self): preserve_format
    out.push(meta_call(*op_empty_like, {&x, None{}, None{}, None{}, None{}, None{}}));
    return;
  }
  const int64_t d = wrap_dim(dim, x.dim(), label(a));
  if (sym_gt(SymInt(n), x.sizes[d]).guard()) n = x.sizes[d].expect_int();
  if (n == 0 && !pre && !app) {  // an empty dim: no difference is taken and PyTorch returns self itself
    out.push(self);
    out.self_output = 0;
    return;
  }
  SymInt len = x.sizes[d] - SymInt(1);
  for (int64_t i = 0; i < n; ++i) {
    TensorMeta hi = meta_call(*op_narrow, {&x, SymInt(dim), SymInt(1), len});
    TensorMeta lo = meta_call(*op_narrow, {&x, SymInt(dim), SymInt(0), len});
    x = x.dtype == DType::Bool ? meta_call(*op_logical_xor, {&hi, &lo}) : meta_call(*op_sub_Tensor, {&hi, &lo, SymInt(1)});
    len = len - SymInt(1);
  }
  out.push(std::move(x));
}

void cpu_diff(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  Tensor x = std::get<Tensor>(a[0]);
  int64_t n = std::get<SymInt>(a[1]).expect_int();
  const int64_t dim = std::get<SymInt>(a[2]).expect_int();
  const Tensor* pre = std::get_if<Tensor>(&a[3]);
  const Tensor* app = std::get_if<Tensor>(&a[4]);
  if (pre || app) {
    std::vector<Tensor> parts;
    if (pre) parts.push_back(*pre);
    parts.push_back(x);
    if (app) parts.push_back(*app);
    x = fe::cat(parts, dim);
  }
  const int64_t d = wrap_dim(dim, x.dim(), "aten::diff");
  const int64_t size = x.size(d).expect_int();
  n = std::min(n, size);
  for (int64_t i = 0, len = size - 1; i < n; ++i, --len) {
    Tensor hi = fe::narrow(x, d, 1, len), lo = fe::narrow(x, d, 0, len);
    x = x.dtype() == DType::Bool ? fe::logical_xor(hi, lo) : fe::sub(hi, lo);
  }
  fe::copy_(o[0], x);
}

// ---- histc(self, bins=100, min=0, max=0): a [bins] histogram in self's dtype (meta_histc).
void meta_histc(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = tensor_arg(a, 0);
  if (x.device.type() == DeviceType::CPU)
    FE_CHECK(is_floating(x.dtype), ValueError, label(a), ": \"histogram_cpu\" not implemented for 'torch.",
             dtype_name(x.dtype), "'");
  const int64_t bins = a.to_int(1);
  FE_CHECK(bins > 0, ValueError, label(a), ": histc(): bins must be > 0, but got ", bins);
  FE_CHECK(a.to_double(3) >= a.to_double(2), ValueError, label(a), ": histc(): max must be larger than min");
  out.push(make_contiguous(DimVector{SymInt(bins)}, x.dtype, x.device));
}

void cpu_histc(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  const int64_t bins = std::get<SymInt>(a[1]).expect_int();
  double lo = cpu::number_of(a[2]), hi = cpu::number_of(a[3]);
  const red::Reader rd(x);
  std::vector<double> v;
  for (int64_t off : red::element_offsets(x.meta())) v.push_back(red::cast_to(x.dtype(), rd.at(off)));
  if (lo == hi && !v.empty()) {  // the data's range (finite values)
    lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (double e : v)
      if (std::isfinite(e)) lo = std::min(lo, e), hi = std::max(hi, e);
  }
  if (lo == hi) lo -= 1, hi += 1;
  std::vector<double> h(static_cast<size_t>(bins), 0.0);
  for (double e : v) {
    if (!(e >= lo && e <= hi)) continue;  // outside the range, or NaN
    auto pos = static_cast<int64_t>((e - lo) * static_cast<double>(bins) / (hi - lo));
    h[static_cast<size_t>(std::min(pos, bins - 1))] += 1;
  }
  for (int64_t i = 0; i < bins; ++i) cpu::store_at(o[0], o[0].meta().storage_offset.expect_int() + i, h[i]);
}

// ---- linalg_vector_norm(self, ord=2, dim=None, keepdim=False, *, dtype=None)
void meta_vector_norm(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = tensor_arg(a, 0);
  FE_CHECK(is_floating(x.dtype) || is_complex(x.dtype), ValueError, label(a),
           ": linalg.vector_norm: Expected a floating point or complex tensor as input. Got torch.",
           dtype_name(x.dtype));
  const double ord = a.to_double(1);
  const red::DimMask mask = red::reduce_mask(label(a), x.dim(), red::opt_dims(a, 2), true);
  if (x.numel().maybe_int() == 0 && (ord < 0 || ord == INFINITY)) {
    const bool has_dims = !a.is_none(2) && !a.int_list(2).empty();
    FE_CHECK(has_dims, ValueError, label(a), ": linalg.vector_norm cannot compute the ", detail::cat(ord),
             " norm on an empty tensor because the operation does not have an identity");
    for (int64_t d = 0; d < x.dim(); ++d)
      FE_CHECK(!((mask >> d) & 1) || x.sizes[d].maybe_int() != 0, ValueError, label(a),
               ": linalg.vector_norm cannot compute the ", detail::cat(ord), " norm on the dimension ", d,
               " because this dimension is empty and the operation does not have an identity");
  }
  const DType dt = a.opt_dtype(4).value_or(real_dtype(x.dtype));
  out.push(red::reduced_meta(x, mask, a.to_bool(3), dt));
}

double vector_norm_of(const std::vector<double>& v, double ord) {
  if (ord == INFINITY || ord == -INFINITY) {
    double r = ord > 0 ? 0.0 : INFINITY;
    for (double e : v) r = ord > 0 ? std::max(r, std::fabs(e)) : std::min(r, std::fabs(e));
    return r;
  }
  double s = 0;
  if (ord == 0) {
    for (double e : v) s += e != 0;
    return s;
  }
  for (double e : v) s += std::pow(std::fabs(e), ord);
  return ord == 1 ? s : ord == 2 ? std::sqrt(s) : std::pow(s, 1.0 / ord);
}

void cpu_vector_norm(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  const double ord = cpu::number_of(a[1]);
  const red::DimMask mask = red::reduce_mask(op.label(), x.dim(), red::opt_dims(a[2]), true);
  const red::GroupOffsets g = red::split_offsets(x.meta(), mask);
  const red::Reader rd(x);
  const std::vector<int64_t> outs = red::element_offsets(o[0].meta());
  std::vector<double> vals;
  for (size_t i = 0; i < g.bases.size(); ++i) {
    vals.clear();
    for (int64_t w : g.within) vals.push_back(rd.at(g.bases[i] + w));
    cpu::store_at(o[0], outs[i], vector_norm_of(vals, ord));
  }
}

// ---- _weight_norm(v, g, dim=0) = v * (g / norm_except_dim(v, 2, dim)); dim -1 is the whole-tensor
// norm (not a wrapped dim), as in PyTorch's WeightNorm.cpp. v is made contiguous first.
void meta_weight_norm(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& v = tensor_arg(a, 0);
  const TensorMeta& g = tensor_arg(a, 1);
  const int64_t dim = a.to_int(2);
  if (dim != -1) (void)wrap_dim(dim, v.dim(), label(a));
  const DimVector sizes = broadcast_shapes(a, v.sizes, g.sizes);
  out.push(make_contiguous(sizes, promote_types(v.dtype, g.dtype), v.device));
}

void cpu_weight_norm(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& v = std::get<Tensor>(a[0]);
  const Tensor& g = std::get<Tensor>(a[1]);
  const int64_t dim = std::get<SymInt>(a[2]).expect_int();
  Tensor norm;
  if (dim == -1) {
    norm = fe::linalg_vector_norm(v, 2.0, std::nullopt, false);
  } else if (v.dim() == 1) {  // norm over no dims: each element's magnitude
    norm = fe::abs(v);
  } else {
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < v.dim(); ++d)
      if (d != dim) dims.push_back(d);
    norm = fe::linalg_vector_norm(v, 2.0, dims, true);
  }
  fe::copy_(o[0], fe::mul(v, fe::div(g, norm)));
}

// ---- item(self) -> Scalar, _assert_scalar(self, msg) -> () and _print(s) -> ()
// item's value is data: on metadata it is a fresh unbacked symbol (DataDependentError); run reads it.
void meta_item(const MetaArgs& a, MetaOut&) {
  const TensorMeta& x = tensor_arg(a, 0);
  if (auto n = x.numel().maybe_int())
    FE_CHECK(*n == 1, ValueError, label(a), ": a Tensor with ", *n, " elements cannot be converted to Scalar");
  throw DataDependentError(label(a) + ": aten._local_scalar_dense.default: the value of a fake tensor is data");
}

// item is CompositeImplicit: _local_scalar_dense(self). A decomposition returns tensors, not the
// Scalar, so run_decompositions records that call itself (export/decompose.cpp); dispatched on a
// fake tensor it raises as _local_scalar_dense does.
std::vector<Tensor> decomp_item(std::span<const IValue> a, const SrcLocArg& loc) {
  return dispatch(*op_local_scalar_dense, {a[0]}, loc);
}

// A false concrete condition fails with the recorded message; a symbolic one is the runtime
// assertion export recorded (check cannot decide it; run sees concrete values).
void meta_assert_scalar(const MetaArgs& a, MetaOut&) {
  bool ok = true;
  switch (kind_of(a[0])) {
    case ValueKind::Bool: ok = a.to_bool(0); break;
    case ValueKind::Int: ok = a.sym_int(0).maybe_int().value_or(1) != 0; break;
    case ValueKind::Double: ok = a.to_double(0) != 0; break;
    default: break;
  }
  FE_CHECK(ok, ValueError, label(a), ": ", a.str(1));
}

// _assert_async.msg(self, assert_msg) -> (): one_hot's decomposition checks its classes with it.
// FakeTensorMode's meta checks nothing (the value is data); the CPU kernel is ATen's
// _assert_async_msg_cpu: is_nonzero(self), else the message ("Assertion is failed" when empty).
void meta_assert_async(const MetaArgs& a, MetaOut&) {
  tensor_arg(a, 0);
  FE_CHECK(kind_of(a[1]) == ValueKind::String, ValueError, label(a), ": ", label(a),
           "() Expected a value of type 'str' for argument 'assert_msg' but instead found type '", py_type_name(a[1]),
           "'.");
}
void cpu_assert_async(const OpDef& op, std::span<const IValue> a, std::span<Tensor>) {
  const Tensor& t = std::get<Tensor>(a[0]);
  const std::string label = op.label();
  const int64_t n = t.numel();
  FE_CHECK(n != 0, ValueError, label, ": Boolean value of Tensor with no values is ambiguous");
  FE_CHECK(n == 1, ValueError, label, ": Boolean value of Tensor with more than one value is ambiguous");
  const cpu::Operand v = cpu::make_operand(t, {});
  const std::string& msg = std::get<std::string>(a[1]);
  FE_CHECK(v.at(v.offset) != 0, ValueError, label, ": ", msg.empty() ? std::string("Assertion is failed") : msg);
}

// _print: PyTorch's kernel prints the string and a newline to stdout (Python's print). No
// outputs, so dispatch never calls it; `run` calls the kernel of output-less side-effect ops.
void meta_print(const MetaArgs& a, MetaOut&) {
  FE_CHECK(kind_of(a[0]) == ValueKind::String, ValueError, label(a), ": ", label(a),
           "() Expected a value of type 'str' for argument 's' but instead found type '", py_type_name(a[0]), "'.");
}
void cpu_print(const OpDef&, std::span<const IValue> a, std::span<Tensor>) {
  std::fputs((std::get<std::string>(a[0]) + "\n").c_str(), stdout);
}

/// diff (CompositeImplicit, ATen's diff_helper): cat(prepend, self, append) along dim, then n times
/// narrow(x, dim, 1, len) - narrow(x, dim, 0, len) (logical_xor for bool), len shrinking by one.
std::vector<Tensor> decomp_diff(std::span<const IValue> a, const SrcLocArg& loc) {
  Tensor x = decomp_tensor(a, 0);
  int64_t n = std::get<SymInt>(a[1]).expect_int();
  const SymInt dim = std::get<SymInt>(a[2]);
  const Tensor* pre = std::get_if<Tensor>(&a[3]);
  const Tensor* app = std::get_if<Tensor>(&a[4]);
  // diff_check_compatible_shape: prepend's and append's sizes equal self's off the differencing
  // dim, each a sym_eq the trace records when a size is symbolic (then dropped).
  const int64_t wd = dim.expect_int() < 0 ? dim.expect_int() + x.dim() : dim.expect_int();
  for (const Tensor* o : {pre, app}) {
    if (!o || !o->defined() || o->dim() != x.dim()) continue;
    for (int64_t i = 0; i < o->dim(); ++i) {
      const SymInt &a = o->sizes()[i], &b = x.sizes()[i];
      if (i == wd || !(a.is_symbolic() || b.is_symbolic())) continue;
      (a.is_symbolic() ? a : b).node()->env->trace_compare(Rel::Eq, a, b);
    }
  }
  if ((pre && pre->defined()) || (app && app->defined())) {
    std::vector<Tensor> parts;
    if (pre && pre->defined()) parts.push_back(*pre);
    parts.push_back(x);
    if (app && app->defined()) parts.push_back(*app);
    x = fe::cat(parts, dim.expect_int(), loc);
  }
  if (n == 0) return undecomposed(*op_diff, a, loc);
  const int64_t d = dim.expect_int() < 0 ? dim.expect_int() + x.dim() : dim.expect_int();
  SymInt len = x.sizes()[d] - SymInt(1);
  // `n > size` on a symbolic size is a comparison the trace records (a node, dropped later).
  if (x.sizes()[d].is_symbolic()) x.sizes()[d].node()->env->trace_compare(Rel::Gt, SymInt(n), x.sizes()[d]);
  else if (n > x.sizes()[d].hint()) n = x.sizes()[d].hint();
  for (int64_t i = 0; i < n; ++i) {
    // GCC evaluates the operands right to left: the narrow at 0 is traced first.
    const Tensor lo = dispatch1(*op_narrow, {x, dim, SymInt(0), len}, loc);
    const Tensor hi = dispatch1(*op_narrow, {x, dim, SymInt(1), len}, loc);
    x = x.dtype() == DType::Bool ? fe::logical_xor(hi, lo, loc) : fe::sub(hi, lo, 1, loc);
    len = len - SymInt(1);
  }
  return {x};
}

/// linalg_vector_norm (torch._refs) for ord 2 on real tensors: pow(sum(pow(self, ord), dim,
/// keepdim), 1 / ord) (|x| is skipped for an even ord). Other orders and dtype= are kept for now.
std::vector<Tensor> decomp_vector_norm(std::span<const IValue> a, const SrcLocArg& loc) {
  Tensor x = decomp_tensor(a, 0);
  const IValue& ord = a[1];
  const double o = std::holds_alternative<SymInt>(ord) ? static_cast<double>(std::get<SymInt>(ord).expect_int())
                   : std::holds_alternative<double>(ord) ? std::get<double>(ord)
                                                          : 0.0;
  // Low-precision inputs compute in f32 through prims.convert_element_type, ord 0 and inf reduce
  // otherwise: those stay whole.
  if (o == 0.0 || std::isinf(o) || !std::holds_alternative<None>(a[4]) ||
      !(x.dtype() == DType::Float32 || x.dtype() == DType::Float64))
    return undecomposed(*op_linalg_vector_norm, a, loc);
  const bool keepdim = std::get<bool>(a[3]);
  // torch._refs.linalg.vector_norm: dims canonicalized; an empty list means all.
  IValue dim = None{};
  std::vector<int64_t> dims;
  if (const auto* l = std::get_if<std::vector<SymInt>>(&a[2]); l && !l->empty()) {
    std::vector<SymInt> canon;
    for (const SymInt& d : *l) {
      int64_t v = d.expect_int();
      if (v < 0) v += std::max<int64_t>(x.dim(), 1);
      canon.emplace_back(v);
      dims.push_back(v);
    }
    dim = canon;
  }
  // Every reduced dim of size 1 (or one element, all dims): |x|, reshaped, as a contiguous copy.
  bool trivial = !dims.empty() && x.dim() > 0;
  for (int64_t d : dims) trivial = trivial && x.sizes()[d].maybe_int() == std::optional<int64_t>(1);
  if (trivial) {
    Tensor r = fe::abs(x, loc);
    if (!keepdim) {
      std::vector<SymInt> shape;
      for (int64_t d = 0; d < r.dim(); ++d)
        if (std::find(dims.begin(), dims.end(), d) == dims.end()) shape.push_back(r.sizes()[d]);
      r = fe::view(r, shape, loc);
    }
    return {r.contiguous(loc)};
  }
  if (std::fmod(o, 2.0) != 0.0) x = fe::abs(x, loc);
  const Tensor p = dispatch1(*op_pow_Tensor_Scalar, {x, ord}, loc);
  const Tensor sum = dispatch1(*op_sum_dim_IntList, {p, dim, keepdim, None{}}, loc);
  return {dispatch1(*op_pow_Tensor_Scalar, {sum, 1.0 / o}, loc)};
}
/// _weight_norm (CompositeImplicit): v * (g / norm_except_dim(v, 2, dim)), the norm over every other
/// dim with keepdim.
std::vector<Tensor> decomp_weight_norm(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor &v = decomp_tensor(a, 0), &g = decomp_tensor(a, 1);
  int64_t dim = std::get<SymInt>(a[2]).expect_int();
  if (dim < 0) dim += v.dim();
  std::vector<SymInt> others;
  for (int64_t d = 0; d < v.dim(); ++d)
    if (d != dim) others.emplace_back(d);
  const Tensor norm = dispatch1(*op_linalg_vector_norm, {v, SymInt(2), others, true, None{}}, loc);
  return {fe::mul(v, fe::div(g, norm, loc), loc)};
}

}  // namespace

void register_numeric_ops(Registry& r) {
  op_diff = r.add({.schema = "aten::diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor",
                   .meta = meta_diff, .cpu = cpu_diff, .decomp = decomp_diff});
  op_histc = r.add({"aten::histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor", meta_histc, cpu_histc});
  op_linalg_vector_norm = r.add({.schema = "aten::linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
         "ScalarType? dtype=None) -> Tensor",
         .meta = meta_vector_norm, .cpu = cpu_vector_norm, .decomp = decomp_vector_norm});
  r.add({.schema = "aten::_weight_norm(Tensor v, Tensor g, int dim=0) -> Tensor", .meta = meta_weight_norm,
         .cpu = cpu_weight_norm, .decomp = decomp_weight_norm});
  r.add({.schema = "aten::item(Tensor self) -> Scalar", .meta = meta_item, .decomp = decomp_item});
  r.add({"aten::_assert_scalar(Scalar self, str assert_msg) -> ()", meta_assert_scalar, nullptr,
         DeviceRule::None});
  r.add({"aten::_print(str s) -> ()", meta_print, cpu_print, DeviceRule::None});
  op_assert_async_msg = r.add({"aten::_assert_async.msg(Tensor self, str assert_msg) -> ()", meta_assert_async,
                               cpu_assert_async});
}

}  // namespace ops

Tensor histc(const Tensor& self, int64_t bins, Scalar min, Scalar max, SrcLocArg loc) {
  return dispatch1(*op_histc, {self, SymInt(bins), min.ivalue(), max.ivalue()}, loc);
}
Tensor diff(const Tensor& self, int64_t n, int64_t dim, const Tensor& prepend, const Tensor& append, SrcLocArg loc) {
  const auto opt = [](const Tensor& t) { return t.defined() ? IValue(t) : IValue(None{}); };
  return dispatch1(*op_diff, {self, SymInt(n), SymInt(dim), opt(prepend), opt(append)}, loc);
}
Tensor linalg_vector_norm(const Tensor& self, double ord, std::optional<std::vector<int64_t>> dim, bool keepdim,
                          SrcLocArg loc) {
  IValue dims = None{};
  if (dim) {
    std::vector<SymInt> ds(dim->begin(), dim->end());
    dims = std::move(ds);
  }
  return dispatch1(*op_linalg_vector_norm, {self, ord, std::move(dims), keepdim}, loc);
}

}  // namespace fe
