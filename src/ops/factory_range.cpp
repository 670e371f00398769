// Range factories: arange (end / start,end / start,end,step), linspace and eye. Under FakeTensorMode
// both run torch._refs, whose checks, dtype inference and length formulas are reproduced here.
#include <cmath>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "fakeexport/sym/shape_env.h"
#include "core/strided.h"
#include "ops/cpu_util.h"
#include "ops/factory_impl.h"
#include "ops/families.h"

namespace fe {
OpHandle op_arange_start_step;
namespace {
OpHandle op_arange;
OpHandle op_arange_start;
OpHandle op_linspace;
OpHandle op_eye;
OpHandle op_eye_m;
}  // namespace
}  // namespace fe

namespace fe {
namespace ops {
namespace {

using factory::check_strided;
using factory::device_or;

/// Argument positions of an arange overload; -1 = absent (start 0, step 1).
struct RangeArgs {
  int start, end, step;
  size_t dtype;
};

bool is_int_like(const MetaArgs& a, int i) {
  return i < 0 || a.scalar_category(static_cast<size_t>(i)) != TypeCategory::Floating;
}
double value_of(const MetaArgs& a, int i, double dflt) { return i < 0 ? dflt : a.to_double(static_cast<size_t>(i)); }

/// Python repr of a number argument, as refs.arange formats it in messages.
std::string repr_of(const MetaArgs& a, int i, double v) {
  if (i >= 0 && a.scalar_category(static_cast<size_t>(i)) == TypeCategory::Bool) return v != 0 ? "True" : "False";
  if (is_int_like(a, i)) return std::to_string(static_cast<int64_t>(v));
  return python_float_repr(v);
}

bool is_sym(const MetaArgs& a, int i) { return i >= 0 && a.is_int(static_cast<size_t>(i)) && a.sym_int(i).is_symbolic(); }
SymInt sym_of(const MetaArgs& a, int i, int64_t dflt) {
  if (i < 0) return dflt;
  if (a.is_int(static_cast<size_t>(i))) return a.sym_int(static_cast<size_t>(i));
  return static_cast<int64_t>(a.to_double(static_cast<size_t>(i)));  // a bool
}

/// Whether argument i is a symbolic float (item() of a float tensor: `zuf0`, read from a program).
bool is_sym_float(const MetaArgs& a, int i) {
  if (!is_sym(a, i)) return false;
  for (const std::string& f : a.sym_int(static_cast<size_t>(i)).expr().free_symbols())
    if (sym::is_float_name(f)) return true;
  return false;
}

template <int Start, int End, int Step>
void meta_arange(const MetaArgs& a, MetaOut& out) {
  constexpr int n = 1 + (Start >= 0) + (Step >= 0);  // number of Scalar arguments
  constexpr size_t dt = n;
  check_strided(a, dt + 1);
  FE_CHECK(!factory::pinned(a, dt + 3), ValueError, label(a), ": PrimTorch does not support pinned memory");
  const bool ints = is_int_like(a, Start) && is_int_like(a, End) && is_int_like(a, Step);
  const DType dtype_ = a.opt_dtype(dt).value_or(ints ? DType::Int64 : default_dtype());
  const bool float_sym = is_sym_float(a, Start) || is_sym_float(a, End) || is_sym_float(a, Step);
  const bool any_sym = is_sym(a, Start) || is_sym(a, End) || is_sym(a, Step);
  const auto integral = [&](int i) { return i < 0 || is_sym(a, i) || std::trunc(value_of(a, i, 0)) == value_of(a, i, 0); };
  if ((float_sym || (any_sym && !ints)) && integral(Start) && integral(End)) {
    // refs.arange on SymFloat bounds or a float step: math.ceil((end - start) / step), which
    // PyTorch keeps as CeilToInt(FloatTrueDiv(end - start, step)) (an int difference wrapped in
    // ToFloat), an atom we do not compute; the step sign is the program's own runtime assertion.
    const SymInt s = sym_of(a, Start, 0), e = sym_of(a, End, 0), diff = e - s;
    const double st = is_sym(a, Step) ? 0 : value_of(a, Step, 1);
    FE_CHECK(is_sym(a, Step) || st != 0, ValueError, label(a), ": step must be nonzero");
    const std::string step = is_sym(a, Step) ? a.sym_int(static_cast<size_t>(Step)).str() : python_float_repr(st);
    const std::string num = float_sym ? diff.str() : "ToFloat(" + diff.str() + ")";
    const sym::Expr len = sym::Expr::symbol("CeilToInt(FloatTrueDiv(" + num + ", " + step + "))");
    // Over unbacked floats there is no hint (2, as an unbacked size); over sizes it is the length.
    const int64_t hint = float_sym || is_sym(a, Step) ? 2 : static_cast<int64_t>(std::ceil(static_cast<double>(diff.hint()) / st));
    sym::ShapeEnv& env = *(s.is_symbolic() ? s : e.is_symbolic() ? e : a.sym_int(static_cast<size_t>(Step))).node()->env;
    const DType dt_f = a.opt_dtype(dt).value_or(ints ? DType::Int64 : default_dtype());
    return out.push(make_contiguous(DimVector{env.make(len, std::max<int64_t>(hint, 0))}, dt_f, device_or(a, dt + 2, kCPU)));
  }
  if (ints && (is_sym(a, Start) || is_sym(a, End) || is_sym(a, Step))) {
    // refs.arange on SymInt bounds: the sign check guards, the length stays an expression.
    const SymInt s = sym_of(a, Start, 0), e = sym_of(a, End, 0), st = sym_of(a, Step, 1);
    FE_CHECK(st != 0, ValueError, label(a), ": step must be nonzero");
    if (st > 0) {
      FE_CHECK(e >= s, ValueError, label(a), ": upper bound and lower bound inconsistent with step sign");
    } else if (st < 0) {
      FE_CHECK(e <= s, ValueError, label(a), ": upper bound and lower bound inconsistent with step sign");
    }
    const int64_t sgn = int64_t{st > 0} - int64_t{st < 0};
    const SymInt length = floordiv(e - s + st - sgn, st);
    return out.push(make_contiguous(DimVector{length}, dtype_, device_or(a, dt + 2, kCPU)));
  }
  const double start = value_of(a, Start, 0), end = value_of(a, End, 0), step = value_of(a, Step, 1);
  FE_CHECK(step != 0, ValueError, label(a), ": step must be nonzero");
  FE_CHECK(!(step > 0 && !(end >= start)) && !(step < 0 && !(end <= start)), ValueError, label(a),
           ": upper bound and lower bound inconsistent with step sign");
  FE_CHECK(std::isfinite(start) && std::isfinite(end), ValueError, label(a), ": unsupported range: ",
           repr_of(a, Start, start), " -> ", repr_of(a, End, end));
  FE_CHECK(std::isfinite(step), ValueError, label(a), ": step must be finite but got ", repr_of(a, Step, step));
  int64_t length;
  if (ints) {  // floor division, as refs.arange
    const auto s = static_cast<int64_t>(start), e = static_cast<int64_t>(end), st = static_cast<int64_t>(step);
    const int64_t num = e - s + st - ((st > 0) - (st < 0));
    length = num / st - ((num % st != 0) && ((num < 0) != (st < 0)));
  } else {
    length = static_cast<int64_t>(std::ceil((end - start) / step));
  }
  out.push(make_contiguous(DimVector{SymInt(length)}, dtype_, device_or(a, dt + 2, kCPU)));
}

// linspace(start, end, steps, *, dtype, layout, device, pin_memory)
void meta_linspace(const MetaArgs& a, MetaOut& out) {
  (void)a.scalar_category(0);
  (void)a.scalar_category(1);
  const int64_t steps = a.to_int(2);
  check_strided(a, 4);
  const DType dtype = a.opt_dtype(3).value_or(default_dtype());
  FE_CHECK(steps >= 0, ValueError, label(a), ": number of steps must be non-negative");
  out.push(make_contiguous(DimVector{SymInt(steps)}, dtype, device_or(a, 5, kCPU)));
}

// eye(n[, m], *, dtype, layout, device, pin_memory): torch._refs.eye's checks, an [n, m] tensor.
template <bool kM>
void meta_eye(const MetaArgs& a, MetaOut& out) {
  constexpr size_t dt = kM ? 2 : 1;
  const SymInt n = a.sym_int(0), m = kM ? a.sym_int(1) : n;
  FE_CHECK(n >= 0, ValueError, label(a), ": n must be greater or equal to 0, got ", n);
  FE_CHECK(m >= 0, ValueError, label(a), ": m must be greater or equal to 0, got ", m);
  check_strided(a, dt + 1);
  out.push(make_contiguous(DimVector{n, m}, a.opt_dtype(dt).value_or(default_dtype()), device_or(a, dt + 2, kCPU)));
}

// ---- reference kernels (eager CPU: integer outputs compute in int64 from truncated bounds)
template <int Start, int Step>
void cpu_arange(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  double start = Start >= 0 ? cpu::number_of(a[Start]) : 0.0;
  double step = Step >= 0 ? cpu::number_of(a[Step]) : 1.0;
  if (is_integral(o[0].dtype(), false)) {
    start = std::trunc(start);
    step = std::trunc(step);  // eager: a fractional step truncates to 0 (every element is start)
  }
  int64_t i = 0;
  detail::for_each_offset(o[0].meta(), [&](int64_t off) { cpu::store_at(o[0], off, start + step * double(i++)); });
}

/// v converted to dtype t and back (integer wrap-around, as eager's Scalar::to<scalar_t>).
double as_dtype(double v, DType t) {
  alignas(8) std::byte buf[8];
  detail::store(buf, t, v);
  return detail::load(buf, t);
}

void cpu_linspace(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  FE_CHECK(o[0].dtype() != DType::Bool, DTypeError, "aten::linspace: \"linspace_cpu\" not implemented for 'Bool'");
  double start = cpu::number_of(a[0]), end = cpu::number_of(a[1]);
  const int64_t steps = std::get<SymInt>(a[2]).expect_int();
  if (is_integral(o[0].dtype(), false)) {  // bounds in the output type, step in double
    start = as_dtype(start, o[0].dtype());
    end = as_dtype(end, o[0].dtype());
  }
  const double step = steps > 1 ? (end - start) / double(steps - 1) : 0.0;
  if (steps == 1) end = start;
  const int64_t half = steps / 2;
  int64_t i = 0;
  detail::for_each_offset(o[0].meta(), [&](int64_t off) {
    // Both ends exact: the first half counts up from start, the second down from end.
    const double v = i < half ? start + step * double(i) : end - step * double(steps - i - 1);
    cpu::store_at(o[0], off, is_integral(o[0].dtype(), false) ? std::trunc(v) : v);
    ++i;
  });
}

void cpu_eye(const OpDef&, std::span<const IValue>, std::span<Tensor> o) {
  const int64_t m = o[0].size(1).expect_int();
  int64_t i = 0;
  detail::for_each_offset(o[0].meta(), [&](int64_t off) {
    cpu::store_at(o[0], off, i / m == i % m ? 1.0 : 0.0);
    ++i;
  });
}

constexpr DeviceRule kFree = DeviceRule::None;

/// torch._decomp's arange.default / arange.start: arange.start_step(start, end, 1, dtype=dtype,
/// layout=layout or strided, device=device, pin_memory=pin_memory or False).
template <bool kHasStart>
std::vector<Tensor> decomp_arange(std::span<const IValue> a, const SrcLocArg& loc);

/// A number argument as Python sees it (bools and ints as their value); nullopt for a symbol.
std::optional<double> python_number(const IValue& v) {
  if (const auto* i = std::get_if<SymInt>(&v)) {
    if (!i->maybe_int()) return std::nullopt;
    return static_cast<double>(*i->maybe_int());
  }
  return cpu::number_of(v);
}

/// torch._refs.linspace for number bounds: an int arange of the steps, then a lerp in the
/// computation dtype from both ends (start + step * i below steps / 2, end - step * (steps - 1 - i)
/// above, so both ends are exact), cast to the dtype. 0 and 1 steps are `full`s.
std::vector<Tensor> decomp_linspace(std::span<const IValue> a, const SrcLocArg& loc) {
  const std::optional<double> start = python_number(a[0]), end = python_number(a[1]);
  if (!start || !end) return undecomposed(*op_linspace, a, loc);  // symbolic bounds: not written
  const int64_t steps = std::get<SymInt>(a[2]).expect_int();
  const auto* dt = std::get_if<DType>(&a[3]);
  const DType dtype = dt ? *dt : default_dtype();
  const auto* lay = std::get_if<Layout>(&a[4]);
  const auto* pin = std::get_if<bool>(&a[6]);
  const IValue layout = lay ? *lay : Layout::Strided, pin_memory = pin ? *pin : false;
  if (steps == 0) return {dispatch1(*op_full, {std::vector<SymInt>{0}, SymInt(0), dtype, layout, a[5], pin_memory}, loc)};
  if (steps == 1) return {dispatch1(*op_full, {std::vector<SymInt>{1}, a[0], dtype, layout, a[5], pin_memory}, loc)};
  const Tensor rg = dispatch1(*op_arange_start, {SymInt(0), SymInt(steps), None{}, layout, a[5], pin_memory}, loc);
  // reduction_dtypes(rg, SAME, int64 for integral dtypes): half types compute in float32.
  const DType red = is_integral(dtype, true) ? DType::Int64 : dtype;
  const DType computation = opmath_dtype(red);
  const auto cast = [&](const Tensor& t) {
    return t.dtype() == computation ? t : dispatch1(*op_to_dtype, {t, computation}, loc);
  };
  const double step = (*end - *start) / static_cast<double>(steps - 1);
  const Tensor below = dispatch1(*op_lt_Scalar, {rg, static_cast<double>(steps) / 2}, loc);
  const Tensor up = dispatch1(*op_add_Tensor, {dispatch1(*op_mul_Tensor, {cast(rg), step}, loc), a[0]}, loc);
  const Tensor back = dispatch1(*op_rsub_Scalar, {rg, SymInt(steps - 1)}, loc);
  const Tensor down = dispatch1(*op_rsub_Scalar, {dispatch1(*op_mul_Tensor, {cast(back), step}, loc), a[1]}, loc);
  const Tensor out = dispatch1(*op_where_self, {below, up, down}, loc);
  return {out.dtype() == dtype ? out : dispatch1(*op_to_dtype, {out, dtype}, loc)};
}

/// torch._refs.eye: arange(n) == arange(m) unsqueezed, in the smallest of uint8, uint16, int32 (else
/// int64) that holds both (int64 for symbolic sizes), converted to the dtype (none for bool).
template <bool kM>
std::vector<Tensor> decomp_eye(std::span<const IValue> a, const SrcLocArg& loc) {
  constexpr size_t dt = kM ? 2 : 1;
  const SymInt n = std::get<SymInt>(a[0]), m = kM ? std::get<SymInt>(a[1]) : n;
  DType range = DType::Int64;
  if (n.maybe_int() && m.maybe_int()) {
    const int64_t most = std::max(*n.maybe_int(), *m.maybe_int());
    range = most <= 255 ? DType::UInt8 : most <= 65535 ? DType::UInt16 : most <= 2147483647 ? DType::Int32 : DType::Int64;
  }
  const auto* lay = std::get_if<Layout>(&a[dt + 1]);
  const auto* pin = std::get_if<bool>(&a[dt + 3]);
  if ((lay && *lay != Layout::Strided) || (pin && *pin)) return undecomposed(kM ? *op_eye_m : *op_eye, a, loc);
  const auto rng = [&](const SymInt& k) {
    return dispatch1(*op_arange, {k, range, None{}, a[dt + 2], None{}}, loc);
  };
  const Tensor rn = rng(n), rm = rng(m);
  const Tensor cond = dispatch1(*op_eq_Tensor, {fe::unsqueeze(rn, -1, loc), rm}, loc);
  const auto* d = std::get_if<DType>(&a[dt]);
  const DType dtype = d ? *d : default_dtype();
  return {dtype == DType::Bool ? cond : fe::_to_copy(cond, {.dtype = dtype}, loc)};
}

}  // namespace

void register_factory_range_ops(Registry& r) {
  op_arange = r.add({.schema = "aten::arange(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
                     .meta = meta_arange<-1, 0, -1>, .cpu = cpu_arange<-1, -1>, .device_rule = kFree,
                     .decomp = decomp_arange<false>});
  op_arange_start = r.add({.schema = "aten::arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
                           .meta = meta_arange<0, 1, -1>, .cpu = cpu_arange<0, -1>, .device_rule = kFree,
                           .decomp = decomp_arange<true>});
  op_arange_start_step = r.add({"aten::arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
         meta_arange<0, 1, 2>, cpu_arange<0, 2>, kFree});
  op_linspace = r.add({.schema = "aten::linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
                       .meta = meta_linspace, .cpu = cpu_linspace, .device_rule = kFree, .decomp = decomp_linspace});
  op_eye = r.add({.schema = "aten::eye(SymInt n, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
                  .meta = meta_eye<false>, .cpu = cpu_eye, .device_rule = kFree, .decomp = decomp_eye<false>});
  op_eye_m = r.add({.schema = "aten::eye.m(SymInt n, SymInt m, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
                    .meta = meta_eye<true>, .cpu = cpu_eye, .device_rule = kFree, .decomp = decomp_eye<true>});
}

namespace {
template <bool kHasStart>
std::vector<Tensor> decomp_arange(std::span<const IValue> a, const SrcLocArg& loc) {
  const size_t o = kHasStart ? 2 : 1;
  const auto* lay = std::get_if<Layout>(&a[o + 1]);
  const auto* pin = std::get_if<bool>(&a[o + 2 + 1]);
  IValue start = SymInt(0);
  if (kHasStart) start = a[0];
  return {dispatch1(*op_arange_start_step,
                    {start, a[o - 1], SymInt(1), a[o], lay ? *lay : Layout::Strided, a[o + 2], pin ? *pin : false},
                    loc)};
}
}  // namespace

}  // namespace ops

// ---- public API: torch.arange / torch.linspace (device and pin_memory always given, as Python's
// arg parser passes them; dtype only when given, the op infers it otherwise).
namespace {
Tensor make_range(const OpDef& def, std::vector<IValue> args, const TensorOptions& o, const SrcLocArg& loc) {
  args.push_back(ops::factory::opt(o.dtype));
  args.push_back(ops::factory::opt(o.layout));
  args.push_back(o.device.value_or(default_device()));
  args.push_back(false);
  Tensor t = dispatch1(def, std::move(args), loc);
  if (o.requires_grad) t.impl()->meta.requires_grad = true;
  return t;
}
}  // namespace

Tensor arange(Scalar end, TensorOptions o, SrcLocArg loc) {
  return make_range(*op_arange, {end.ivalue()}, o, loc);
}
Tensor arange(Scalar start, Scalar end, TensorOptions o, SrcLocArg loc) {
  return make_range(*op_arange_start, {start.ivalue(), end.ivalue()}, o, loc);
}
Tensor arange(Scalar start, Scalar end, Scalar step, TensorOptions o, SrcLocArg loc) {
  return make_range(*op_arange_start_step, {start.ivalue(), end.ivalue(), step.ivalue()}, o, loc);
}
Tensor linspace(Scalar start, Scalar end, int64_t steps, TensorOptions o, SrcLocArg loc) {
  return make_range(*op_linspace, {start.ivalue(), end.ivalue(), SymInt(steps)}, o, loc);
}

}  // namespace fe
