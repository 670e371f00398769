// Normalization: layer_norm, native_layer_norm, rms_norm, group_norm, native_group_norm,
// batch_norm (eval) and _native_batch_norm_legit_no_training. The metas follow the code fake mode
// runs: torch._refs native_layer_norm / native_group_norm, ATen's rms_norm checks and the
// native_batch_norm_helper decomposition (whose elementwise steps decide the output strides).
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "fakeexport/ops/functional_level.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/linalg_meta.h"
#include "ops/meta_util.h"

#include <cmath>

namespace fe {
namespace {
OpHandle op_batch_norm;
OpHandle op_group_norm;
OpHandle op_layer_norm;
OpHandle op_native_layer_norm;
OpHandle op_native_group_norm;
OpHandle op_bn_no_training;  // aten::_native_batch_norm_legit_no_training
OpHandle op_rms_norm;
}  // namespace
}  // namespace fe

namespace fe {
namespace ops {
namespace {

using linalg::prims_broadcast;
using linalg::size_repr;

/// var_mean's dtype check: integer and bool inputs cannot be normalized.
void check_floating(const MetaArgs& a, const TensorMeta& x) {
  FE_CHECK(!is_integral(x.dtype, true), DTypeError, label(a),
           ": mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
           "Got: torch.", dtype_name(x.dtype));
}

SymInt prod(IntSpan s) {
  SymInt p = 1;
  for (const SymInt& v : s) p = p * v;
  return p;
}

// torch._refs.native_layer_norm: out contiguous; mean/rstd keep the leading dims, 1 elsewhere.
void layer_norm_metas(const MetaArgs& a, MetaOut& out, bool all) {
  const TensorMeta& x = a.tensor(0);
  const auto& ns = a.int_list(1);
  const TensorMeta* w = a.opt_tensor(2);
  const TensorMeta* b = a.opt_tensor(3);
  const int64_t nd = static_cast<int64_t>(ns.size());
  FE_CHECK(nd >= 1, ShapeError, label(a),
           ": Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got "
           "normalized_shape = ", shape_str(ns));
  auto same = [&](IntSpan s) { return std::equal(s.begin(), s.end(), ns.begin(), ns.end()); };
  FE_CHECK(!w || same(w->sizes), ShapeError, label(a),
           ": Expected weight to be of same shape as normalized_shape, but got weight of shape ", size_repr(w->sizes),
           " and normalized_shape = ", shape_str(ns));
  FE_CHECK(!b || same(b->sizes), ShapeError, label(a),
           ": Expected bias to be of same shape as normalized_shape, but got bias of shape ", size_repr(b->sizes),
           " and normalized_shape = ", shape_str(ns));
  FE_CHECK(x.dim() >= nd && same(IntSpan(x.sizes).subspan(x.dim() - nd)), ShapeError, label(a),
           ": Given normalized_shape=", shape_str(ns), ", expected input with shape ", shape_str(ns),
           ", but got input of size ", size_repr(x.sizes));
  check_floating(a, x);
  // refs.native_layer_norm: contiguous(input) returns a tensor that already is contiguous as it
  // is, size-1 dims' odd strides included, and the result keeps them (measured under
  // FakeTensorMode: [4, 1, 16] strides (16, 64, 1) stays (16, 64, 1)).
  TensorMeta o = make_contiguous(x.sizes, x.dtype, x.device);
  if (x.is_contiguous() && !any_symbolic_meta(x)) o.strides = sorted_dense_strides(x);
  out.push(std::move(o));
  if (!all) return;
  DimVector stat(x.sizes.begin(), x.sizes.end() - nd);
  for (int64_t i = 0; i < nd; ++i) stat.push_back(1);
  out.push(make_contiguous(stat, x.dtype, x.device));
  out.push(make_contiguous(stat, x.dtype, x.device));
}

void meta_layer_norm(const MetaArgs& a, MetaOut& out) { layer_norm_metas(a, out, false); }
void meta_native_layer_norm(const MetaArgs& a, MetaOut& out) { layer_norm_metas(a, out, true); }

/// c10 is_channels_last_strides_2d: what suggest_memory_format() checks for 4-D tensors. A layout
/// decision: symbolic sizes/strides are compared on their hints, without guards.
bool channels_last_like(const TensorMeta& m) {
  if (m.dim() != 4 || m.strides[1].hint() == 0) return false;
  int64_t min = 0;
  for (int d : {1, 3, 2, 0}) {
    const int64_t size = m.sizes[d].hint(), stride = m.strides[d].hint();
    if (size == 0 || stride < min) return false;
    if (d == 0 && min == m.strides[1].hint()) return false;
    min = stride;
    if (size > 1) min *= size;
  }
  return true;
}


// ATen's rms_norm (_check_rms_norm_inputs) then the _fused_rms_norm decomposition: the result
// keeps a channels-last layout, else is contiguous, in the input's dtype.
void meta_rms_norm(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const auto& ns = a.int_list(1);
  const TensorMeta* w = a.opt_tensor(2);
  const int64_t nd = static_cast<int64_t>(ns.size());
  FE_CHECK(nd >= 1, ShapeError, label(a),
           ": Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got "
           "normalized_shape = ", shape_str(ns));
  auto same = [&](IntSpan s) { return std::equal(s.begin(), s.end(), ns.begin(), ns.end()); };
  FE_CHECK(!w || same(w->sizes), ShapeError, label(a),
           ": Expected weight to be of same shape as normalized_shape, but got weight of shape ", shape_str(w->sizes),
           " and normalized_shape = ", shape_str(ns));
  FE_CHECK(x.dim() >= nd, ValueError, label(a), ": Input tensor must have at least ", nd, " dimensions, but got ",
           x.dim());
  if (!same(IntSpan(x.sizes).subspan(x.dim() - nd))) {
    std::string want = "[*";
    for (int64_t i = 0; i < nd; ++i) want += (i ? ", " : "") + ns[i].str();
    FE_CHECK(false, ShapeError, label(a), ": Given normalized_shape=", shape_str(ns), ", expected input with shape ",
             want, "], but got input of size", shape_str(x.sizes));
  }
  FE_CHECK(!is_integral(x.dtype, true), DTypeError, label(a), ": \"rms_norm\" not implemented for '",
           scalar_type_name(x.dtype), "'");
  TensorMeta r = make_contiguous(x.sizes, x.dtype, x.device);
  if (channels_last_like(x)) r.strides = channels_last_strides(x.sizes);
  out.push(std::move(r));
}

// torch._refs.native_group_norm checks; out contiguous, mean/rstd [N, group].
void native_group_norm_metas(const MetaArgs& a, MetaOut& out, const TensorMeta& x, const TensorMeta* w,
                             const TensorMeta* b, SymInt n, SymInt c, SymInt hw, int64_t g) {
  FE_CHECK(c > 0, ShapeError, label(a), ": Expected number of channels to be greater than 0, got ", c);
  FE_CHECK(hw > 0, ShapeError, label(a), ": Expected HxW to be greater than 0, got ", hw);
  FE_CHECK(g > 0, ValueError, label(a), ": Expected num groups to be greater than 0, got ", g);
  FE_CHECK(mod(c, g) == 0, ShapeError, label(a),
           ": Expected number of channels in input to be divisible by num_groups, but got input of shape ",
           size_repr(x.sizes), " and num_groups=", g);
  FE_CHECK(!w || (w->dim() == 1 && w->numel() == c), ShapeError, label(a),
           ": Expected weight to be a vector of size equal to the number of channels in input, but got weight of "
           "shape ", size_repr(w->sizes), " and input of shape ", size_repr(x.sizes));
  FE_CHECK(!b || (b->dim() == 1 && b->numel() == c), ShapeError, label(a),
           ": Expected bias to be a vector of size equal to the number of channels in input, but got bias of shape ",
           size_repr(b->sizes), " and input of shape ", size_repr(x.sizes));
  FE_CHECK(x.dim() >= 2, ShapeError, label(a), ": Expected at least 2 dimensions for input tensor but received ",
           x.dim());
  const SymInt per = floordiv(c, g);
  FE_CHECK(x.numel() == n * SymInt(g) * per * hw, ShapeError, label(a), ": shape '[", n, ", ", g, ", ", per, ", ", hw,
           "]' is invalid for input of size ", x.numel());
  check_floating(a, x);
  out.push(make_contiguous(x.sizes, x.dtype, x.device));
  SymInt stat[2] = {n, g};
  out.push(make_contiguous(stat, x.dtype, x.device));
  out.push(make_contiguous(stat, x.dtype, x.device));
}

void meta_native_group_norm(const MetaArgs& a, MetaOut& out) {
  native_group_norm_metas(a, out, a.tensor(0), a.opt_tensor(1), a.opt_tensor(2), a.sym_int(3), a.sym_int(4),
                          a.sym_int(5), a.to_int(6));
}

SymInt size_at(const MetaArgs& a, const TensorMeta& m, int64_t d) {
  FE_CHECK(m.dim() > 0, IndexError, label(a), ": Dimension specified as ", d, " but tensor has no dimensions");
  return m.sizes[wrap_dim(d, m.dim(), label(a))];
}

// ATen's group_norm: check_group_norm_inputs, then native_group_norm(N, C, H*W).
void meta_group_norm(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const int64_t g = a.to_int(1);
  const TensorMeta* w = a.opt_tensor(2);
  const TensorMeta* b = a.opt_tensor(3);
  const SymInt n = size_at(a, x, 0);
  const SymInt c = size_at(a, x, 1);
  FE_CHECK(g > 0, ValueError, label(a), ": Expected num groups to be greater than 0, got ", g);
  FE_CHECK(mod(c, g) == 0, ShapeError, label(a),
           ": Expected number of channels in input to be divisible by num_groups, but got input of shape ",
           shape_str(x.sizes), " and num_groups=", g);
  FE_CHECK(!w || (w->dim() == 1 && w->numel() == c), ShapeError, label(a),
           ": Expected weight to be a vector of size equal to the number of channels in input, but got weight of "
           "shape ", shape_str(w->sizes), " and input of shape ", shape_str(x.sizes));
  FE_CHECK(!b || (b->dim() == 1 && b->numel() == c), ShapeError, label(a),
           ": Expected bias to be a vector of size equal to the number of channels in input, but got bias of shape ",
           shape_str(b->sizes), " and input of shape ", shape_str(x.sizes));
  MetaOut all;
  native_group_norm_metas(a, all, x, w, b, n, c, prod(IntSpan(x.sizes).subspan(2)), g);
  out.push(std::move(all.outs[0]));
}

/// x op y as a TensorIterator output: prims broadcast check (argument 1 named), TI strides.
TensorMeta ti_step(const MetaArgs& a, const TensorMeta& x, const TensorMeta& y) {
  DimVector sizes = prims_broadcast(a, x.sizes, y.sizes);
  const TensorMeta* ins[2] = {&x, &y};
  TensorMeta r = x;
  r.strides = linalg::ti_strides(sizes, ins);
  r.sizes = std::move(sizes);
  r.storage_offset = 0;
  return r;
}

/// v (1-D per-channel stats, flattened) unsqueezed at the end to `ndim` dims (_unsqueeze_to_dim).
TensorMeta channel_view(const TensorMeta& v, int64_t ndim, bool flatten) {
  DimVector sizes;
  if (flatten) sizes.push_back(v.numel());
  else sizes = v.sizes;
  while (static_cast<int64_t>(sizes.size()) < ndim) sizes.push_back(1);
  return make_contiguous(sizes, v.dtype, v.device);
}

// torch._decomp native_batch_norm_helper, eval branch: ((x - mean) * invstd) * weight + bias.
void bn_eval_metas(const MetaArgs& a, MetaOut& out, const TensorMeta& x, const TensorMeta* w, const TensorMeta* b,
                   const TensorMeta& rm, const TensorMeta& rv) {
  FE_CHECK(x.dtype != DType::Bool, DTypeError, label(a),
           ": Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
           "operator instead.");
  const int64_t nd = x.dim() - 1;
  TensorMeta r = ti_step(a, x, channel_view(rm, nd, false));
  r = ti_step(a, r, channel_view(rv, nd, false));
  if (w) r = ti_step(a, r, channel_view(*w, nd, true));
  if (b) r = ti_step(a, r, channel_view(*b, nd, true));
  r.dtype = x.dtype;
  r.requires_grad = false;
  out.push(std::move(r));
  SymInt empty[1] = {0};
  out.push(make_contiguous(empty, x.dtype, x.device));
  out.push(make_contiguous(empty, x.dtype, x.device));
}

void meta_bn_legit_no_training(const MetaArgs& a, MetaOut& out) {
  bn_eval_metas(a, out, a.tensor(0), a.opt_tensor(1), a.opt_tensor(2), a.tensor(3), a.tensor(4));
}

// ATen's batch_norm (_batch_norm_impl_index): size checks against the channel count, then
// native_batch_norm (eval); an empty input is cloned and scaled by weight[0], bias[0].
void meta_batch_norm(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const TensorMeta* w = a.opt_tensor(1);
  const TensorMeta* b = a.opt_tensor(2);
  const TensorMeta* rm = a.opt_tensor(3);
  const TensorMeta* rv = a.opt_tensor(4);
  const bool training = a.to_bool(5);
  FE_CHECK(!training, ValueError, label(a), ": training=True is not supported (only evaluation mode)");
  const SymInt c = x.dim() >= 2 ? x.sizes[1] : SymInt(0);
  if (x.numel() == 0) {
    ResultTypeState st;
    st.add_tensor(x.dtype, x.dim() == 0);
    if (w) st.add_tensor(w->dtype, true);
    if (b) st.add_tensor(b->dtype, true);
    TensorMeta r = make_contiguous(x.sizes, st.result(DType::Float32), x.device);
    r.strides = preserved_strides(x);
    return out.push(std::move(r));
  }
  auto check = [&](const char* what, const TensorMeta* t) {
    FE_CHECK(t->numel() == c, ShapeError, label(a), ": ", what, " should contain ", c, " elements not ",
             t->numel());
  };
  FE_CHECK(rm, ValueError, label(a), ": running_mean must be defined in evaluation mode");
  check("running_mean", rm);
  FE_CHECK(rv, ValueError, label(a), ": running_var must be defined in evaluation mode");
  check("running_var", rv);
  if (w) check("weight", w);
  if (b) check("bias", b);
  MetaOut all;
  bn_eval_metas(a, all, x, w, b, *rm, *rv);
  out.push(std::move(all.outs[0]));
}

// ---- reference kernels (double precision, row-major value lists)
std::vector<double> rowmajor(const Tensor& t) {
  const TensorMeta& m = t.meta();
  TensorMeta rm = make_contiguous(m.sizes, m.dtype, m.device);
  cpu::Operand op = cpu::make_operand(IValue(t), m.sizes);
  std::vector<double> v;
  v.reserve(static_cast<size_t>(m.numel().expect_int()));
  cpu::for_each_element(rm, std::span(&op, 1), [&](int64_t, const int64_t* in) { v.push_back(op.at(in[0])); });
  return v;
}
std::vector<double> opt_rowmajor(const IValue& v) {
  return std::holds_alternative<Tensor>(v) ? rowmajor(std::get<Tensor>(v)) : std::vector<double>{};
}

/// Normalizes `x` over groups of `inner` consecutive elements; `rms` skips the mean.
void normalize_rows(const std::vector<double>& x, int64_t inner, double eps, bool rms, std::vector<double>& out,
                    std::vector<double>& mean, std::vector<double>& rstd) {
  const int64_t rows = inner ? static_cast<int64_t>(x.size()) / inner : 0;
  out.assign(x.size(), 0.0);
  mean.assign(rows, 0.0);
  rstd.assign(rows, 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    double mu = 0, var = 0;
    for (int64_t i = 0; i < inner; ++i) mu += x[r * inner + i];
    mu = rms ? 0.0 : mu / static_cast<double>(inner);
    for (int64_t i = 0; i < inner; ++i) var += (x[r * inner + i] - mu) * (x[r * inner + i] - mu);
    var /= static_cast<double>(inner);
    const double rs = 1.0 / std::sqrt(var + eps);
    for (int64_t i = 0; i < inner; ++i) out[r * inner + i] = (x[r * inner + i] - mu) * rs;
    mean[r] = mu;
    rstd[r] = rs;
  }
}

void layer_norm_kernel(std::span<const IValue> a, std::span<Tensor> o, double eps) {
  const Tensor& x = std::get<Tensor>(a[0]);
  const int64_t inner = prod(std::get<std::vector<SymInt>>(a[1])).expect_int();
  std::vector<double> out, mean, rstd;
  normalize_rows(rowmajor(x), inner, eps, false, out, mean, rstd);
  const std::vector<double> w = opt_rowmajor(a[2]), b = opt_rowmajor(a[3]);
  for (size_t e = 0; e < out.size(); ++e) {
    if (!w.empty()) out[e] *= w[e % inner];
    if (!b.empty()) out[e] += b[e % inner];
  }
  linalg::store_rowmajor(o[0], out);
  if (o.size() == 3) {
    linalg::store_rowmajor(o[1], mean);
    linalg::store_rowmajor(o[2], rstd);
  }
}

void cpu_layer_norm(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  layer_norm_kernel(a, o, std::get<double>(a[4]));
}
void cpu_native_layer_norm(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  layer_norm_kernel(a, o, std::get<double>(a[4]));
}

void cpu_rms_norm(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  const int64_t inner = prod(std::get<std::vector<SymInt>>(a[1])).expect_int();
  // eps=None: machine epsilon of the computation dtype (float32 for half types).
  const double eps = std::holds_alternative<double>(a[3]) ? std::get<double>(a[3])
                     : x.dtype() == DType::Float64 ? 2.220446049250313e-16
                                                   : 1.1920928955078125e-07;
  std::vector<double> out, mean, rstd;
  normalize_rows(rowmajor(x), inner, eps, true, out, mean, rstd);
  const std::vector<double> w = opt_rowmajor(a[2]);
  if (!w.empty())
    for (size_t e = 0; e < out.size(); ++e) out[e] *= w[e % inner];
  linalg::store_rowmajor(o[0], out);
}

void group_norm_kernel(const Tensor& x, const IValue& wv, const IValue& bv, int64_t g, double eps,
                       std::span<Tensor> o) {
  const std::vector<double> xs = rowmajor(x), w = opt_rowmajor(wv), b = opt_rowmajor(bv);
  const int64_t n = x.size(0).expect_int(), c = x.size(1).expect_int();
  const int64_t hw = (n * c) != 0 ? static_cast<int64_t>(xs.size()) / (n * c) : 0;
  std::vector<double> out, mean, rstd;
  normalize_rows(xs, c / g * hw, eps, false, out, mean, rstd);
  for (size_t e = 0; e < out.size(); ++e) {
    const int64_t ch = static_cast<int64_t>(e) / hw % c;
    if (!w.empty()) out[e] *= w[ch];
    if (!b.empty()) out[e] += b[ch];
  }
  linalg::store_rowmajor(o[0], out);
  if (o.size() == 3) {
    linalg::store_rowmajor(o[1], mean);
    linalg::store_rowmajor(o[2], rstd);
  }
}

void cpu_group_norm(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  group_norm_kernel(std::get<Tensor>(a[0]), a[2], a[3], cpu::number_of(a[1]), std::get<double>(a[4]), o);
}
void cpu_native_group_norm(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  group_norm_kernel(std::get<Tensor>(a[0]), a[1], a[2], cpu::number_of(a[6]), std::get<double>(a[7]), o);
}

void bn_kernel(std::span<const IValue> a, std::span<Tensor> o, double eps) {
  const Tensor& x = std::get<Tensor>(a[0]);
  std::vector<double> out = rowmajor(x);
  const std::vector<double> w = opt_rowmajor(a[1]), b = opt_rowmajor(a[2]), rm = opt_rowmajor(a[3]),
                            rv = opt_rowmajor(a[4]);
  // Stats broadcast against the channel dim: dim 1, or the only dim of a vector input.
  int64_t inner = 1;
  for (int64_t d = 2; d < x.dim(); ++d) inner *= x.size(d).expect_int();
  const int64_t c = static_cast<int64_t>(rm.size());
  for (size_t e = 0; e < out.size(); ++e) {
    const int64_t ch = c ? static_cast<int64_t>(e) / inner % c : 0;
    double v = (out[e] - rm[ch]) / std::sqrt(rv[ch] + eps);
    if (!w.empty()) v *= w[ch];
    if (!b.empty()) v += b[ch];
    out[e] = v;
  }
  linalg::store_rowmajor(o[0], out);
}

void cpu_batch_norm(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  bn_kernel(a, o, std::get<double>(a[7]));
}
void cpu_bn_legit_no_training(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  bn_kernel(a, o, std::get<double>(a[6]));
}

/// layer_norm (CompositeImplicit): native_layer_norm(...)[0].
std::vector<Tensor> decomp_layer_norm(std::span<const IValue> a, const SrcLocArg& loc) {
  return {dispatch(*op_native_layer_norm, {a[0], a[1], a[2], a[3], a[4]}, loc).at(0)};
}

/// rms_norm (CompositeImplicit: _fused_rms_norm(...)[0]) as torch._decomp's _fused_rms_norm: the
/// input in its computation dtype (float for half types), x * rsqrt(mean(x ** 2 over the normalized
/// dims, last first) + eps) (eps: finfo(computation dtype).eps when None), times the weight, then
/// type_as the input.
std::vector<Tensor> decomp_rms_norm(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  const size_t n = std::get<std::vector<SymInt>>(a[1]).size();
  std::vector<int64_t> dims;
  for (size_t i = 0; i < n; ++i) dims.push_back(x.dim() - 1 - static_cast<int64_t>(i));
  const DType compute = opmath_dtype(x.dtype());
  // Tensor.to inside a decomposition: to.dtype itself (no metadata assertion, as at the Python level).
  const Tensor up = compute == x.dtype() ? x : dispatch1(*op_to_dtype, {x, compute, false, false, None{}}, loc);
  IValue eps = a[3];
  if (std::holds_alternative<None>(eps))
    eps = compute == DType::Float32 ? 1.1920928955078125e-07 : 2.220446049250313e-16;
  const Tensor mean = fe::mean(fe::pow(up, Scalar(SymInt(2)), loc), OptDims(dims), true, {}, loc);
  const Tensor rstd = fe::rsqrt(dispatch1(*op_add_Scalar, {mean, eps}, loc), loc);
  Tensor r = fe::mul(up, rstd, loc);
  if (const auto* w = std::get_if<Tensor>(&a[2]); w && w->defined()) r = fe::mul(r, *w, loc);
  // Both results made .contiguous() (already so: no op), unless channels-last (4-D only).
  if (!(x.dim() == 4 && x.meta().is_channels_last_contiguous())) {
    note_contiguity_asked(r);
    note_contiguity_asked(rstd);
  }
  return {fe::type_as(r, x, loc)};
}

/// group_norm (CompositeImplicit): native_group_norm(input, weight, bias, N, C, HxW, group, eps)[0].
std::vector<Tensor> decomp_group_norm(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  SymInt hw(1);  // c10::multiply_integers: from 1, which make_fx's peephole does not record
  for (int64_t d = 2; d < x.dim(); ++d) hw = peephole_mul(hw, x.sizes()[d]);
  // ATen's group_norm then compares a size with 0 (a `gt` in 2.14's trace of wav2vec2's
  // feature extractor, where HxW is symbolic; the C++ line is not visible from Python).
  if (hw.is_symbolic() && !hw.maybe_int()) note_dropped("gt");
  return {dispatch(*op_native_group_norm, {x, a[2], a[3], x.sizes()[0], x.sizes()[1], hw, a[1], a[4]}, loc).at(0)};
}
/// batch_norm (CompositeImplicit) in eval mode with running stats:
/// _native_batch_norm_legit_no_training(input, weight, bias, mean, var, momentum, eps)[0].
std::vector<Tensor> decomp_batch_norm(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor* mean = std::get_if<Tensor>(&a[3]);
  const Tensor* var = std::get_if<Tensor>(&a[4]);
  if (std::get<bool>(a[5]) || !mean || !mean->defined() || !var || !var->defined())
    return undecomposed(*op_batch_norm, a, loc);
  return {dispatch(*op_bn_no_training, {a[0], a[1], a[2], a[3], a[4], a[6], a[7]}, loc).at(0)};
}

}  // namespace

void register_norm_ops(Registry& r) {
  op_layer_norm = r.add({.schema = "aten::layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float "
                                    "eps=1.0000000000000001e-05, bool cudnn_enable=True) -> Tensor",
                         .meta = meta_layer_norm, .cpu = cpu_layer_norm, .decomp = decomp_layer_norm});
  op_native_layer_norm = r.add({"aten::native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) "
         "-> (Tensor, Tensor, Tensor)",
         meta_native_layer_norm, cpu_native_layer_norm});
  op_rms_norm = r.add({.schema = "aten::rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor",
                       .meta = meta_rms_norm, .cpu = cpu_rms_norm, .decomp = decomp_rms_norm});
  op_group_norm = r.add({.schema = "aten::group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float "
         "eps=1.0000000000000001e-05, bool cudnn_enabled=True) -> Tensor",
         .meta = meta_group_norm, .cpu = cpu_group_norm, .decomp = decomp_group_norm});
  op_native_group_norm = r.add({"aten::native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW, int "
         "group, float eps) -> (Tensor, Tensor, Tensor)",
         meta_native_group_norm, cpu_native_group_norm});
  op_batch_norm = r.add({.schema = "aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
         "bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor",
         .meta = meta_batch_norm, .cpu = cpu_batch_norm, .decomp = decomp_batch_norm});
  op_bn_no_training = r.add({"aten::_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, Tensor "
         "running_mean, Tensor running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
         meta_bn_legit_no_training, cpu_bn_legit_no_training});
}

}  // namespace ops

namespace {
IValue opt_tensor(const Tensor& t) { return t.defined() ? IValue(t) : IValue(None{}); }
}  // namespace

// F.layer_norm / F.group_norm / F.batch_norm pass torch.backends.cudnn.enabled, which the
// reference (cpu) build reports as False; torch.export records that value.
Tensor layer_norm(const Tensor& input, const std::vector<SymInt>& normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps, SrcLocArg loc) {
  return dispatch1(*op_layer_norm, {input, normalized_shape, opt_tensor(weight), opt_tensor(bias), eps, false}, loc);
}
Tensor rms_norm(const Tensor& input, const std::vector<SymInt>& normalized_shape, const Tensor& weight,
                std::optional<double> eps, SrcLocArg loc) {
  return dispatch1(*op_rms_norm, {input, normalized_shape, opt_tensor(weight), eps ? IValue(*eps) : IValue(None{})}, loc);
}
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps,
                  SrcLocArg loc) {
  return dispatch1(*op_group_norm, {input, SymInt(num_groups), opt_tensor(weight), opt_tensor(bias), eps, false}, loc);
}
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps, SrcLocArg loc) {
  return dispatch1(*op_batch_norm,
                   {input, opt_tensor(weight), opt_tensor(bias), opt_tensor(running_mean), opt_tensor(running_var),
                    training, momentum, eps, false},
                   loc);
}

}  // namespace fe
