// Activations: relu, gelu, silu (+ in-place), leaky_relu(_), hardtanh(_), elu, softplus, softmax/_softmax,
// log_softmax/_log_softmax, dropout.
#include <cmath>
#include <numeric>
#include <random>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/annotation.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"
#include "ops/unary_common.h"
#include "ops/elementwise.h"

namespace fe {
namespace {
OpHandle op_dropout;
OpHandle op_elu;
OpHandle op_elu_;
OpHandle op_gelu;
OpHandle op_hardtanh;
OpHandle op_hardtanh_;
OpHandle op_leaky_relu;
OpHandle op_leaky_relu_;
OpHandle op_log_softmax_int;
OpHandle op_log_softmax_kernel;
OpHandle op_native_dropout;
OpHandle op_relu;
OpHandle op_relu6;
OpHandle op_relu_;
OpHandle op_silu;
OpHandle op_silu_;
OpHandle op_softmax_int;
OpHandle op_softmax_kernel;  // aten::_softmax
OpHandle op_softplus;
}  // namespace
}  // namespace fe

namespace fe {
namespace ops {
namespace {


// ---- layouts
/// Output of a pointwise op over one tensor: TensorIterator's strides, self's dtype.
TensorMeta pointwise_like(const TensorMeta& x) {
  TensorMeta m;
  m.sizes = x.sizes;
  m.dtype = x.dtype;
  m.device = x.device;
  const TensorMeta* in = &x;
  m.strides = iter_output_strides(x.sizes, std::span(&in, 1));
  return m;
}

/// Strides of torch.empty_like(x) under FakeTensorMode (the _refs path: contiguous or
/// channels-last short cuts, else x's dims sorted by stride, dense).
DimVector empty_like_strides(const TensorMeta& x) {
  if (any_symbolic_meta(x)) {
    const TensorMeta* in = &x;
    return symbolic_output_strides(x.sizes, std::span(&in, 1), /*single_dense_shortcut=*/false);
  }
  const bool contig = x.is_contiguous();
  const bool cl = x.is_channels_last_contiguous();
  if (contig && !cl) return contiguous_strides(x.sizes);
  if (cl && !contig) return channels_last_strides(x.sizes);
  return sorted_dense_strides(x);
}

// ---- relu, gelu, silu: FakeTensorMode accepts every dtype; the eager kernels refuse some.
void meta_pointwise(const MetaArgs& a, MetaOut& out) { out.push(pointwise_like(tensor_arg(a, 0))); }
// relu's fake kernel keeps a dense input's strides even where TensorIterator would not ([3, 1] as [1, 3]).
void meta_relu(const MetaArgs& a, MetaOut& out) {
  TensorMeta m = pointwise_like(tensor_arg(a, 0));
  m.strides = dense_or_sorted_strides(a.tensor(0));
  out.push(std::move(m));
}
void meta_pointwise_inplace(const MetaArgs& a, MetaOut& out) { out.push(tensor_arg(a, 0)); }

void meta_gelu(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = tensor_arg(a, 0);
  const std::string& ap = a.str(1);
  FE_CHECK(ap == "none" || ap == "tanh", ValueError, label(a), ": approximate argument must be either none or tanh.");
  out.push(pointwise_like(x));
}

void cpu_relu(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  FE_CHECK(o[0].dtype() != DType::Bool, DTypeError, op.label(), ": Boolean inputs not supported for relu");
  if (op.inplace) check_no_internal_overlap(op, o[0].meta());
  cpu::unary_kernel(a, o, [](double x) { return std::isnan(x) ? x : (x > 0 ? x : 0.0); });
}
void cpu_gelu(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  FE_CHECK(is_floating(o[0].dtype()), DTypeError, op.label(), ": \"GeluKernelImpl\" not implemented for '",
           scalar_type_name(o[0].dtype()), "'");
  const bool tanh_approx = std::get<std::string>(a[1]) == "tanh";
  cpu::unary_kernel(a, o, [tanh_approx](double x) {
    if (tanh_approx) {
      const double k = std::sqrt(2.0 / M_PI);
      return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
    }
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  });
}
void cpu_silu(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  FE_CHECK(is_floating(o[0].dtype()), DTypeError, op.label(), ": \"silu_cpu\" not implemented for '",
           scalar_type_name(o[0].dtype()), "'");
  if (op.inplace) check_no_internal_overlap(op, o[0].meta());
  cpu::unary_kernel(a, o, [](double x) { return x / (1.0 + std::exp(-x)); });
}

// glu(self, dim=-1): the structured meta's checks, then TensorIterator over the two halves of dim.
struct GluHalves {
  TensorMeta first, second;
  int64_t dim;
};
GluHalves glu_halves(std::string_view label, const TensorMeta& x, int64_t dim) {
  const int64_t d = wrap_dim(dim, x.dim(), label);
  // The fake kernel (a Python meta) indexes the shape: a 0-dim self has no size to halve.
  FE_CHECK(x.dim() > 0, IndexError, label, ": tuple index out of range");
  const SymInt n = x.sizes[d];
  FE_CHECK(n.maybe_int() && *n.maybe_int() % 2 == 0, ShapeError, label, ": Halving dimension must be even, but dimension ", d,
           " is size ", n);
  GluHalves h{x, x, d};
  h.first.sizes[d] = h.second.sizes[d] = SymInt(*n.maybe_int() / 2);
  h.second.storage_offset = x.storage_offset + x.strides[d] * (*n.maybe_int() / 2);
  return h;
}
void meta_glu(const MetaArgs& a, MetaOut& out) {
  const GluHalves h = glu_halves(label(a), tensor_arg(a, 0), a.to_int(1));
  out.push(meta_call(*op_mul_Tensor, {&h.first, &h.second}));
}
void cpu_glu(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  FE_CHECK(is_floating(o[0].dtype()), DTypeError, op.label(), ": \"glu_cpu\" not implemented for '",
           scalar_type_name(o[0].dtype()), "'");
  const Tensor& x = std::get<Tensor>(a[0]);
  const GluHalves h = glu_halves(op.label(), x.meta(), std::get<SymInt>(a[1]).expect_int());
  cpu::Operand ins[2] = {cpu::make_operand(a[0], x.meta().sizes), cpu::make_operand(a[0], x.meta().sizes)};
  ins[1].offset += x.meta().strides[h.dim].expect_int() * h.first.sizes[h.dim].expect_int();
  cpu::for_each_element(o[0].meta(), ins, [&](int64_t out_off, const int64_t* in_off) {
    cpu::store_at(o[0], out_off, ins[0].at(in_off[0]) / (1.0 + std::exp(-ins[1].at(in_off[1]))));
  });
}
/// torch._decomp's glu: the two halves by slice (the dim wrapped), first * sigmoid(second).
std::vector<Tensor> decomp_glu(std::span<const IValue> a, const SrcLocArg& loc) {
  const DisableDynamoScope annotated("glu");  // its type-promotion wrapper is dynamo-disabled
  const Tensor& x = decomp_tensor(a, 0);
  const GluHalves h = glu_halves("aten::glu", x.meta(), std::get<SymInt>(a[1]).expect_int());
  const SymInt half = h.first.sizes[h.dim], d(h.dim);
  const Tensor first = dispatch1(*op_slice_Tensor, {x, d, SymInt(0), half, SymInt(1)}, loc);
  const Tensor second = dispatch1(*op_slice_Tensor, {x, d, half, half * 2, SymInt(1)}, loc);
  return {fe::mul(first, fe::sigmoid(second, loc), loc)};
}

// ---- softmax family. Under FakeTensorMode softmax/_softmax do not check dim; the log variants do.
TensorMeta softmax_out(const TensorMeta& x, DType dtype) { return make_contiguous(x.sizes, dtype, x.device); }

void check_log_softmax_dtype(const MetaArgs& a, DType t) {
  FE_CHECK(t != DType::Bool, DTypeError, label(a),
           ": Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
           "`logical_xor()` operator instead.");
}

void meta_softmax_int(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = tensor_arg(a, 0);
  out.push(softmax_out(x, a.opt_dtype(2).value_or(x.dtype)));
}
void meta_log_softmax_int(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = tensor_arg(a, 0);
  wrap_dim(a.to_int(1), x.dim(), label(a));
  const DType t = a.opt_dtype(2).value_or(x.dtype);
  check_log_softmax_dtype(a, t);
  out.push(softmax_out(x, t));
}
void meta_softmax_(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = tensor_arg(a, 0);
  const bool h2f = a.to_bool(2);
  FE_CHECK(!h2f || x.dtype == DType::Float16 || x.dtype == DType::BFloat16, DTypeError, label(a),
           ": half_to_float is True but x.dtype is torch.", dtype_name(x.dtype), ", expected half or bfloat16");
  out.push(softmax_out(x, h2f ? DType::Float32 : x.dtype));
}
void meta_log_softmax_(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = tensor_arg(a, 0);
  const bool h2f = a.to_bool(2);
  FE_CHECK(!h2f || x.dtype == DType::Float16, DTypeError, label(a), ": half_to_float is True but x.dtype is torch.",
           dtype_name(x.dtype), ", expected torch.half");
  wrap_dim(a.to_int(1), x.dim(), label(a));
  check_log_softmax_dtype(a, x.dtype);
  out.push(softmax_out(x, h2f ? DType::Float32 : x.dtype));
}

/// Reference softmax over `dim` of a[0] into o[0] (computed in double, cast on store).
void softmax_kernel(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o, bool log) {
  const TensorMeta& om = o[0].meta();
  const int64_t nd = om.dim();
  const int64_t dim = wrap_dim(std::get<SymInt>(a[1]).expect_int(), nd, op.label());
  FE_CHECK(is_floating(om.dtype), DTypeError, op.label(), ": \"", log ? "log_" : "", "softmax_",
           dim >= nd - 1 ? "lastdim_" : "", "kernel_impl\" not implemented for '", scalar_type_name(om.dtype), "'");
  if (om.numel().expect_int() == 0) return;
  cpu::Operand in = cpu::make_operand(a[0], om.sizes);
  const int64_t n = nd == 0 ? 1 : om.sizes[dim].expect_int();
  const int64_t in_step = nd == 0 ? 0 : in.strides[dim].expect_int();
  const int64_t out_step = nd == 0 ? 0 : om.strides[dim].expect_int();
  // Every "row" along dim: iterate the other dims (dim itself pinned at 0).
  std::vector<int64_t> idx(nd, 0);
  std::vector<double> row(n);
  for (bool more = true; more;) {
    int64_t ioff = in.offset, ooff = om.storage_offset.expect_int();
    for (int64_t d = 0; d < nd; ++d) {
      ioff += idx[d] * in.strides[d].expect_int();
      ooff += idx[d] * om.strides[d].expect_int();
    }
    double mx = -INFINITY;
    for (int64_t k = 0; k < n; ++k) mx = std::max(mx, row[k] = in.at(ioff + k * in_step));
    double sum = 0;
    for (int64_t k = 0; k < n; ++k) sum += std::exp(row[k] - mx);
    for (int64_t k = 0; k < n; ++k)
      cpu::store_at(o[0], ooff + k * out_step, log ? row[k] - mx - std::log(sum) : std::exp(row[k] - mx) / sum);
    more = false;
    for (int64_t d = nd; d-- > 0;) {
      if (d == dim) continue;
      if (++idx[d] < om.sizes[d].expect_int()) {
        more = true;
        break;
      }
      idx[d] = 0;
    }
  }
}
void cpu_softmax(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) { softmax_kernel(op, a, o, false); }
void cpu_log_softmax(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) { softmax_kernel(op, a, o, true); }

// ---- dropout
/// F.dropout checks p in Python before any dispatch; p prints as Python would (2, 1.5).
void check_dropout_p(const MetaArgs& a) {
  const double p = a.to_double(1);
  if (p >= 0 && p <= 1) return;
  throw ValueError(detail::cat(label(a), ": dropout probability has to be between 0 and 1, but got ",
                               a.is_int(1) ? std::to_string(a.to_int(1)) : python_float_repr(p)));
}

// aten.dropout returns the input itself in eval mode, for p == 0 and for empty inputs.
void meta_dropout(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = tensor_arg(a, 0);
  check_dropout_p(a);
  if (!a.to_bool(2) || a.to_double(1) == 0 || x.numel() == 0) {
    out.alias_input0 = true;
    out.push(x);
    return;
  }
  FE_CHECK(is_floating(x.dtype), DTypeError, label(a), ": result type torch.", dtype_name(default_dtype()),
           " can't be cast to the desired output type torch.", dtype_name(x.dtype));
  TensorMeta m = make_contiguous(x.sizes, x.dtype, x.device);
  m.strides = empty_like_strides(x);
  out.push(std::move(m));
}

// The decomposition: `if train and p != 0` (train=None counts as eval) draw a mask; p == 1 gives
// zeros without the dtype check. In eval mode PyTorch returns (input itself, ones mask).
bool native_dropout_trains(double p, bool train) { return train && p != 0; }

void meta_native_dropout(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = tensor_arg(a, 0);
  const double p = a.to_double(1);
  const bool train = native_dropout_trains(p, !a.is_none(2) && a.to_bool(2));
  // The training decomposition raises this text whatever the dtypes are.
  FE_CHECK(!train || p == 1 || is_floating(x.dtype), DTypeError, label(a),
           ": result type Float can't be cast to the desired output type Long");
  TensorMeta m = make_contiguous(x.sizes, x.dtype, x.device);
  m.strides = empty_like_strides(x);
  TensorMeta mask = m;
  mask.dtype = DType::Bool;
  if (!train) {  // eval: (input itself, all-true mask)
    out.self_output = 0;
    out.push(x);
  } else {
    out.push(std::move(m));
  }
  out.push(std::move(mask));
}

/// Bernoulli(1 - p) keep mask; a fixed-seed generator (PyTorch's RNG stream is not reproduced).
bool keep_draw(double p) {
  static thread_local std::mt19937_64 gen(0x5eed);
  if (p <= 0) return true;
  if (p >= 1) return false;
  return std::uniform_real_distribution<double>(0.0, 1.0)(gen) >= p;
}

void cpu_dropout(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const double p = cpu::number_of(a[1]);
  // p == 1 multiplies by zero, as PyTorch does; else x * mask / (1 - p).
  cpu::unary_kernel(a, o, [p](double x) { return p >= 1 ? x * 0.0 : (keep_draw(p) ? x / (1 - p) : x * 0.0); });
}

void cpu_native_dropout(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const bool* t = std::get_if<bool>(&a[2]);
  const double p = native_dropout_trains(cpu::number_of(a[1]), t && *t) ? cpu::number_of(a[1]) : 0.0;
  const double scale = p >= 1 ? 0.0 : 1.0 / (1.0 - p);
  const TensorMeta& om = o[0].meta();
  cpu::Operand in = cpu::make_operand(a[0], om.sizes);
  const TensorMeta& mm = o[1].meta();
  // Output and mask share the layout; walk output offsets and recompute the mask's.
  std::vector<cpu::Operand> ins{in};
  std::vector<int64_t> idx(om.dim(), 0);
  cpu::for_each_element(om, ins, [&](int64_t out_off, const int64_t* in_off) {
    const bool keep = keep_draw(p);
    int64_t moff = 0;
    for (int64_t d = 0; d < mm.dim(); ++d) moff += idx[d] * mm.strides[d].expect_int();
    cpu::store_at(o[0], out_off, keep ? in.at(in_off[0]) * scale : 0.0);
    cpu::store_at(o[1], moff, keep ? 1.0 : 0.0);
    for (int64_t d = om.dim(); d-- > 0;) {
      if (++idx[d] < om.sizes[d].expect_int()) break;
      idx[d] = 0;
    }
  });
}


// ---- leaky_relu, hardtanh, elu, softplus: torch._refs checks each Scalar against self's Python
// type (bool < int < float), then computes pointwise (TensorIterator layout, self's dtype).
using ew::check_scalar_arg;
using ew::check_weak_scalar;

void meta_leaky_relu(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = tensor_arg(a, 0);
  check_scalar_arg(a, 1, "negative_slope");
  if (a.op().inplace) out.push(x);
  else out.push(pointwise_like(x));
}
/// hardtanh's layout and checks for limits [lo, hi] (relu6 is hardtanh(0, 6) in PyTorch's decomposition).
void hardtanh_meta(const MetaArgs& a, MetaOut& out, double lo, double hi) {
  const TensorMeta& x = tensor_arg(a, 0);
  FE_CHECK(x.dtype != DType::Bool, DTypeError, label(a), ": Bool inputs not supported for hardtanh");
  // Integer inputs truncate the limits; uint8 refuses negative ones.
  FE_CHECK(x.dtype != DType::UInt8 || (int64_t(lo) >= 0 && int64_t(hi) >= 0), ValueError, label(a),
           ": Cannot do hardtanh on an unsigned type with negative limits");
  TensorMeta m = pointwise_like(x);
  m.strides = preserved_strides(x);  // like relu: a dense input keeps its strides
  if (a.op().inplace) out.push(x);
  else out.push(std::move(m));
}
void meta_hardtanh(const MetaArgs& a, MetaOut& out) {
  tensor_arg(a, 0);
  ew::require_number(a, 1);
  ew::require_number(a, 2);
  hardtanh_meta(a, out, a.to_double(1), a.to_double(2));
}
void meta_relu6(const MetaArgs& a, MetaOut& out) { hardtanh_meta(a, out, 0, 6); }
// elu's Python reference defaults are floats (1.0); the check meets input_scale first, so an int 1
// there (the schema default: an omitted argument) counts as the float default.
void meta_elu(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = tensor_arg(a, 0);
  const char* names[3] = {"alpha", "scale", "input_scale"};
  for (size_t i : {3, 2, 1}) {
    ew::require_number(a, i);
    const bool dflt = i == 3 && a.is_int(i) && a.to_int(i) == 1;
    check_weak_scalar(a, dflt ? TypeCategory::Floating : a.scalar_category(i), names[i - 1]);
  }
  if (a.op().inplace) out.push(x);
  else out.push(pointwise_like(x));
}
void meta_softplus(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = tensor_arg(a, 0);
  // An omitted beta (the schema default, int 1) is not checked; threshold never is.
  ew::require_number(a, 1);
  ew::require_number(a, 2);
  if (!(a.is_int(1) && a.to_int(1) == 1)) check_weak_scalar(a, a.scalar_category(1), "beta");
  out.push(pointwise_like(x));
}

void check_float_kernel(const OpDef& op, DType t, const char* kernel) {
  FE_CHECK(is_floating(t), DTypeError, op.label(), ": \"", kernel, "\" not implemented for '", scalar_type_name(t),
           "'");
}
void cpu_leaky_relu(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  check_float_kernel(op, o[0].dtype(), "leaky_relu_cpu");
  if (op.inplace) check_no_internal_overlap(op, o[0].meta());
  const double s = cpu::number_of(a[1]);
  cpu::unary_kernel(a, o, [s](double x) { return x > 0 ? x : x * s; });
}
void hardtanh_kernel(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o, double lo, double hi) {
  const DType t = o[0].dtype();
  FE_CHECK(t != DType::Bool, DTypeError, op.label(), ": Bool inputs not supported for hardtanh");
  if (!is_floating(t)) lo = std::trunc(lo), hi = std::trunc(hi);
  FE_CHECK(t != DType::UInt8 || (lo >= 0 && hi >= 0), ValueError, op.label(),
           ": cannot do hardtanh on an unsigned type with negative limits");
  if (op.inplace) check_no_internal_overlap(op, o[0].meta());
  cpu::unary_kernel(a, o, [lo, hi](double x) { return std::isnan(x) ? x : std::min(std::max(x, lo), hi); });
}
void cpu_hardtanh(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  hardtanh_kernel(op, a, o, cpu::number_of(a[1]), cpu::number_of(a[2]));
}
void cpu_relu6(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) { hardtanh_kernel(op, a, o, 0, 6); }
void cpu_elu(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  check_float_kernel(op, o[0].dtype(), "elu_cpu");
  if (op.inplace) check_no_internal_overlap(op, o[0].meta());
  const double alpha = cpu::number_of(a[1]), scale = cpu::number_of(a[2]), in_scale = cpu::number_of(a[3]);
  cpu::unary_kernel(a, o, [=](double x) { return x > 0 ? x * scale : alpha * scale * std::expm1(x * in_scale); });
}
void cpu_softplus(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  check_float_kernel(op, o[0].dtype(), "softplus_cpu");
  const double beta = cpu::number_of(a[1]), threshold = cpu::number_of(a[2]);
  cpu::unary_kernel(a, o, [=](double x) { return x * beta > threshold ? x : std::log1p(std::exp(x * beta)) / beta; });
}

/// torch._refs.nn.functional.softplus, a dynamo-disabled reference (ops/annotation.h) under the
/// type-promotion wrapper (half types computed in float32): where(x * beta > threshold, x,
/// log1p(exp(x * beta)) / beta). A beta the call omitted (the schema's int 1; F.softplus passes
/// only what it is given, and FX records arguments by position, so a given threshold records beta
/// too) is the reference's None: nothing multiplied or divided. An omitted threshold is the
/// schema's int 20, the reference's default too; `1.0, 20.0` given are kept.
std::vector<Tensor> decomp_softplus(std::span<const IValue> a, const SrcLocArg& loc) {
  const DisableDynamoScope annotated("softplus");
  const Tensor& self = decomp_tensor(a, 0);
  const Tensor x = opmath(self, loc);
  const auto* beta = std::get_if<SymInt>(&a[1]);
  const auto* threshold = std::get_if<SymInt>(&a[2]);
  const bool no_beta = beta && beta->maybe_int() == 1 && threshold && threshold->maybe_int() == 20;
  const Tensor xb = no_beta ? x : dispatch1(*op_mul_Tensor, {x, a[1]}, loc);
  Tensor rhs = fe::log1p(fe::exp(xb, loc), loc);
  if (!no_beta) rhs = dispatch1(*op_div_Tensor, {rhs, a[1]}, loc);
  const Tensor r = dispatch1(*op_where_self, {dispatch1(*op_gt_Scalar, {xb, a[2]}, loc), x, rhs}, loc);
  return {opmath_result(r, self.dtype(), loc)};
}

/// torch._decomp's silu: self * sigmoid(self), under pw_cast_for_opmath.
/// relu6 (torch._refs): hardtanh(self, 0, 6).
std::vector<Tensor> decomp_relu6(std::span<const IValue> a, const SrcLocArg& loc) {
  return {dispatch1(*op_hardtanh, {a[0], SymInt(0), SymInt(6)}, loc)};
}
std::vector<Tensor> decomp_silu(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor x = opmath(decomp_tensor(a, 0), loc);
  return {opmath_result(fe::mul(x, fe::sigmoid(x, loc), loc), decomp_tensor(a, 0).dtype(), loc)};
}
/// softmax.int / log_softmax.int (CompositeImplicit): _softmax / _log_softmax(self, dim, False), on
/// self cast to dtype when given (C++ toType, no metadata assertion as Python's Tensor.to records).
template <bool kLog>
std::vector<Tensor> decomp_softmax(std::span<const IValue> a, const SrcLocArg& loc) {
  const OpDef& kernel = kLog ? *op_log_softmax_kernel : *op_softmax_kernel;
  Tensor x = decomp_tensor(a, 0);
  const auto* dt = std::get_if<DType>(&a[2]);
  // CUDA computes half input as float in the kernel itself (half_to_float).
  if (dt && *dt == DType::Float32 && x.dtype() == DType::Float16 && x.device().type() == DeviceType::CUDA)
    return {dispatch1(kernel, {x, a[1], true}, loc)};
  // input.toType(dtype): to(options().dtype(dtype)), i.e. to.dtype_layout with the input's layout and device.
  if (dt) x = dispatch1(*op_to_dtype_layout, {x, *dt, Layout::Strided, x.device(), None{}, false, false, None{}}, loc);
  return {dispatch1(kernel, {x, a[1], false}, loc)};
}
/// dropout (CompositeImplicit): in eval mode (or p == 0) the input itself; else native_dropout.
std::vector<Tensor> decomp_dropout(std::span<const IValue> a, const SrcLocArg& loc) {
  if (!std::get<bool>(a[2])) return {decomp_tensor(a, 0)};
  return undecomposed(*op_dropout, a, loc);
}

}  // namespace

void register_activation_ops(Registry& r) {
  r.add({.schema = "aten::glu(Tensor self, int dim=-1) -> Tensor", .meta = meta_glu, .cpu = cpu_glu, .decomp = decomp_glu});
  op_leaky_relu = r.add({"aten::leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor", meta_leaky_relu, cpu_leaky_relu});
  op_leaky_relu_ = r.add({"aten::leaky_relu_(Tensor(a!) self, Scalar negative_slope=0.01) -> Tensor(a!)", meta_leaky_relu,
         cpu_leaky_relu});
  op_hardtanh = r.add({"aten::hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor", meta_hardtanh, cpu_hardtanh});
  op_hardtanh_ = r.add({"aten::hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> Tensor(a!)", meta_hardtanh,
         cpu_hardtanh});
  op_elu = r.add({"aten::elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor", meta_elu, cpu_elu});
  op_elu_ = r.add({"aten::elu_(Tensor(a!) self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor(a!)", meta_elu,
         cpu_elu});
  op_relu6 = r.add({.schema = "aten::relu6(Tensor self) -> Tensor", .meta = meta_relu6, .cpu = cpu_relu6,
                    .decomp = decomp_relu6});
  op_softplus = r.add({.schema = "aten::softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor",
                       .meta = meta_softplus, .cpu = cpu_softplus, .decomp = decomp_softplus});
  op_relu = r.add({"aten::relu(Tensor self) -> Tensor", meta_relu, cpu_relu});
  op_relu_ = r.add({"aten::relu_(Tensor(a!) self) -> Tensor(a!)", meta_pointwise_inplace, cpu_relu});
  op_gelu = r.add({"aten::gelu(Tensor self, *, str approximate=\"none\") -> Tensor", meta_gelu, cpu_gelu});
  op_silu = r.add({.schema = "aten::silu(Tensor self) -> Tensor", .meta = meta_pointwise, .cpu = cpu_silu,
                   .decomp = decomp_silu});
  op_silu_ = r.add({"aten::silu_(Tensor(a!) self) -> Tensor(a!)", meta_pointwise_inplace, cpu_silu});
  op_softmax_int = r.add({.schema = "aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
                          .meta = meta_softmax_int, .cpu = cpu_softmax, .decomp = decomp_softmax<false>});
  op_softmax_kernel = r.add({"aten::_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", meta_softmax_, cpu_softmax});
  op_log_softmax_int = r.add({.schema = "aten::log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
                              .meta = meta_log_softmax_int, .cpu = cpu_log_softmax, .decomp = decomp_softmax<true>});
  op_log_softmax_kernel = r.add({"aten::_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", meta_log_softmax_,
                                 cpu_log_softmax});
  op_dropout = r.add({.schema = "aten::dropout(Tensor input, float p, bool train) -> Tensor", .meta = meta_dropout,
                      .cpu = cpu_dropout, .may_return_self = true, .decomp = decomp_dropout});
  op_native_dropout = r.add({"aten::native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)", meta_native_dropout,
         cpu_native_dropout});
}

}  // namespace ops

Tensor relu(const Tensor& self, bool inplace, SrcLocArg loc) {
  return dispatch1(inplace ? *op_relu_ : *op_relu, {self}, loc);
}
Tensor relu_(const Tensor& self, SrcLocArg loc) { return relu(self, true, loc); }
Tensor gelu(const Tensor& self, std::string_view approximate, SrcLocArg loc) {
  return dispatch1(*op_gelu, {self, std::string(approximate)}, loc);
}
Tensor silu(const Tensor& self, bool inplace, SrcLocArg loc) {
  return dispatch1(inplace ? *op_silu_ : *op_silu, {self}, loc);
}
Tensor silu_(const Tensor& self, SrcLocArg loc) { return silu(self, true, loc); }

namespace {
IValue opt_dtype_arg(std::optional<DType> t) { return t ? IValue(*t) : IValue(None{}); }
}  // namespace

Tensor softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype, SrcLocArg loc) {
  return dispatch1(*op_softmax_int, {self, SymInt(dim), opt_dtype_arg(dtype)}, loc);
}
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype, SrcLocArg loc) {
  return dispatch1(*op_log_softmax_int, {self, SymInt(dim), opt_dtype_arg(dtype)}, loc);
}
Tensor dropout(const Tensor& self, double p, bool training, SrcLocArg loc) {
  // F.dropout raises before dispatching; the op's meta raises the same message.
  return dispatch1(*op_dropout, {self, p, training}, loc);
}
std::pair<Tensor, Tensor> native_dropout(const Tensor& self, double p, std::optional<bool> train, SrcLocArg loc) {
  auto outs = dispatch(*op_native_dropout, {self, p, train ? IValue(*train) : IValue(None{})}, loc);
  return {outs[0], outs[1]};
}

Tensor leaky_relu(const Tensor& self, double negative_slope, bool inplace, SrcLocArg loc) {
  return dispatch1(inplace ? *op_leaky_relu_ : *op_leaky_relu, {self, negative_slope}, loc);
}
Tensor hardtanh(const Tensor& self, double min_val, double max_val, bool inplace, SrcLocArg loc) {
  return dispatch1(inplace ? *op_hardtanh_ : *op_hardtanh, {self, min_val, max_val}, loc);
}
Tensor relu6(const Tensor& self, SrcLocArg loc) {
  return dispatch1(*op_relu6, {self}, loc);
}
Tensor elu_(const Tensor& self, double alpha, SrcLocArg loc) {
  return dispatch1(*op_elu_, {self, alpha}, loc);
}
Tensor elu(const Tensor& self, double alpha, SrcLocArg loc) {
  return dispatch1(*op_elu, {self, alpha, SymInt(1), SymInt(1)}, loc);
}
Tensor softplus(const Tensor& self, Scalar beta, Scalar threshold, SrcLocArg loc) {
  return dispatch1(*op_softplus, {self, beta.ivalue(), threshold.ivalue()}, loc);
}

Tensor Tensor::relu(SrcLocArg loc) const { return fe::relu(*this, false, loc); }
Tensor Tensor::relu_(SrcLocArg loc) const { return fe::relu_(*this, loc); }
Tensor Tensor::softmax(int64_t dim, std::optional<DType> dtype, SrcLocArg loc) const {
  return fe::softmax(*this, dim, dtype, loc);
}
Tensor Tensor::log_softmax(int64_t dim, std::optional<DType> dtype, SrcLocArg loc) const {
  return fe::log_softmax(*this, dim, dtype, loc);
}

}  // namespace fe
