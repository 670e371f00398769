// Factory ops: empty, zeros, ones, rand, randn, full, their *_like and new_* forms, empty_strided, empty_permuted
// and scalar_tensor. arange and linspace live in factory_range.cpp.
#include <cmath>
#include <limits>
#include <random>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "core/strided.h"
#include "ops/cpu_util.h"
#include "ops/factory_impl.h"
#include "ops/families.h"

namespace fe {
OpHandle op_empty_like;
OpHandle op_empty_permuted;
}  // namespace fe
namespace fe {
OpHandle op_full_like;
OpHandle op_scalar_tensor;
OpHandle op_full;
namespace {
OpHandle op_empty_memory_format;
OpHandle op_empty_strided;
OpHandle op_new_empty;
OpHandle op_new_full;
OpHandle op_new_ones;
OpHandle op_new_zeros;
OpHandle op_ones;
OpHandle op_ones_like;
OpHandle op_rand;
OpHandle op_rand_like;
OpHandle op_randn;
OpHandle op_randn_like;
OpHandle op_zeros;
OpHandle op_zeros_like;
}  // namespace
}  // namespace fe

namespace fe {
namespace ops {
namespace {

using factory::check_strided;
using factory::device_or;
using factory::format_strides;
using factory::Kwargs;

void check_sizes(const MetaArgs& a, IntSpan size) {
  for (SymInt s : size)
    FE_CHECK(s >= 0, ShapeError, label(a), ": Trying to create tensor with negative dimension ", s, ": ",
             shape_str(size));
}

/// A size-taking factory's result: `size` argument 0 (or 1 for new_*), dtype default `dt`.
TensorMeta new_meta(const MetaArgs& a, size_t size_idx, const Kwargs& k, DType dt, Device dev) {
  const auto& size = a.int_list(size_idx);
  check_sizes(a, size);
  check_strided(a, k.layout);
  TensorMeta m = make_contiguous(size, a.opt_dtype(k.dtype).value_or(dt), device_or(a, k.device, dev));
  (void)m.numel();  // overflow check
  return m;
}

// empty/zeros/ones/rand/randn(size, *, dtype, layout, device, pin_memory[, memory_format])
template <bool Format>
void meta_new(const MetaArgs& a, MetaOut& out) {
  TensorMeta m = new_meta(a, 0, {1, 2, 3, 4}, default_dtype(), kCPU);
  if (Format) m.strides = format_strides(a, m.sizes, a.opt_memory_format(5).value_or(MemoryFormat::Contiguous), nullptr);
  out.push(std::move(m));
}

// randn(_like) under FakeTensorMode go through torch._refs: floating dtypes only (and randn
// refuses pinned memory).
void check_randn(const MetaArgs& a, DType dt) {
  FE_CHECK(is_floating(dt) || is_complex(dt), DTypeError, label(a),
           ": expected a floating-point or complex dtype, but got dtype=torch.", dtype_name(dt));
}
void meta_randn(const MetaArgs& a, MetaOut& out) {
  TensorMeta m = new_meta(a, 0, {1, 2, 3, 4}, default_dtype(), kCPU);
  check_randn(a, m.dtype);
  FE_CHECK(!factory::pinned(a, 4), ValueError, label(a), ": PrimTorch does not support pinned memory");
  out.push(std::move(m));
}

// full(size, fill_value, *, dtype, layout, device, pin_memory): bool/int fills pick bool/int64.
void meta_full(const MetaArgs& a, MetaOut& out) {
  DType dt = default_dtype();
  TypeCategory c = a.scalar_category(1);
  if (c == TypeCategory::Bool) dt = DType::Bool;
  if (c == TypeCategory::Integral) dt = DType::Int64;
  out.push(new_meta(a, 0, {2, 3, 4, 5}, dt, kCPU));
}

// *_like(self, [fill,] *, dtype, layout, device, pin_memory, memory_format)
template <int Fill>
TensorMeta like_meta(const MetaArgs& a) {
  constexpr size_t base = Fill ? 2 : 1;
  const TensorMeta& self = a.tensor(0);
  check_strided(a, base + 1);
  TensorMeta m;
  m.sizes = self.sizes;
  m.dtype = a.opt_dtype(base).value_or(self.dtype);
  m.device = device_or(a, base + 2, self.device);
  m.strides = format_strides(a, self.sizes, a.opt_memory_format(base + 4).value_or(MemoryFormat::Preserve), &self);
  return m;
}
template <int Fill>
void meta_like(const MetaArgs& a, MetaOut& out) { out.push(like_meta<Fill>(a)); }
void meta_randn_like(const MetaArgs& a, MetaOut& out) {
  TensorMeta m = like_meta<0>(a);
  check_randn(a, m.dtype);
  out.push(std::move(m));
}

// new_empty/zeros/ones/full(self, size, [fill,] *, dtype, layout, device, pin_memory): self's
// dtype and device unless given, contiguous.
template <int Fill>
void meta_new_from(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  constexpr size_t k = Fill ? 3 : 2;
  out.push(new_meta(a, 1, {k, k + 1, k + 2, k + 3}, self.dtype, self.device));
}

// empty_strided(size, stride, *, dtype, layout, device, pin_memory)
void meta_empty_strided(const MetaArgs& a, MetaOut& out) {
  const auto& size = a.int_list(0);
  const auto& stride = a.int_list(1);
  FE_CHECK(size.size() == stride.size(), ShapeError, label(a), ": dimensionality of sizes (", size.size(),
           ") must match dimensionality of strides (", stride.size(), ")");
  TensorMeta m = new_meta(a, 0, {2, 3, 4, 5}, default_dtype(), kCPU);
  m.strides = DimVector(stride);
  out.push(std::move(m));
}

// empty_permuted(size, physical_layout, *, dtype, layout, device, pin_memory): dense, with dims laid
// out in memory in physical_layout's order (prims.empty_permuted; run_decompositions() lowers
// empty_like to it).
void meta_empty_permuted(const MetaArgs& a, MetaOut& out) {
  const auto& size = a.int_list(0);
  const auto& perm = a.int_list(1);
  const int64_t dim = static_cast<int64_t>(size.size());
  FE_CHECK(static_cast<int64_t>(perm.size()) == dim, ShapeError, label(a),
           ": Number of dimensions in size does not match the length of the physical_layout; i.e. len(size) = ", dim,
           " is not equal to len(physical_layout) = ", perm.size());
  TensorMeta m = new_meta(a, 0, {2, 3, 4, 5}, default_dtype(), kCPU);
  DimVector physical;
  std::vector<bool> seen(static_cast<size_t>(dim), false);
  for (size_t p = 0; p < perm.size(); ++p) {
    const int64_t l = perm[p].expect_int();
    FE_CHECK(l >= 0 && l < dim && !seen[static_cast<size_t>(l)], ShapeError, label(a),
             ": Dimension out of range (expected to be between 0 and ", dim - 1, ", but got ", l, " at index ", p,
             ").  NB: negative dims not currently supported; file an issue if you want it.");
    seen[static_cast<size_t>(l)] = true;
    physical.push_back(size[static_cast<size_t>(l)]);
  }
  const DimVector pstrides = contiguous_strides(physical);
  for (size_t p = 0; p < perm.size(); ++p) m.strides[static_cast<size_t>(perm[p].expect_int())] = pstrides[p];
  out.push(std::move(m));
}

// scalar_tensor(s, *, dtype, layout, device, pin_memory): 0-dim, default float dtype for any s.
void meta_scalar_tensor(const MetaArgs& a, MetaOut& out) {
  (void)a.scalar_category(0);
  check_strided(a, 2);
  out.push(make_contiguous({}, a.opt_dtype(1).value_or(default_dtype()), device_or(a, 3, kCPU)));
}

// ---- reference kernels
std::mt19937_64& generator() {
  thread_local std::mt19937_64 g(0);
  return g;
}

template <class F>
void fill_with(const Tensor& t, F&& value) {
  detail::for_each_offset(t.meta(), [&](int64_t off) { cpu::store_at(t, off, value()); });
}

/// Eager fill_ of an integer tensor rejects values outside the type's range (inf, nan, 1e30).
void check_fits(const OpDef& op, DType t, double v) {
  if (!is_integral(t, false)) return;
  const char* name = t == DType::Int64 ? "int64_t" : t == DType::Int32 ? "int" : t == DType::Int16 ? "short"
                     : t == DType::Int8 ? "signed char" : "unsigned char";
  double lo = -9.2233720368547758e18, hi = 9.2233720368547758e18;
  if (t == DType::Int32) lo = -2147483648.0, hi = 2147483647.0;
  if (t == DType::Int16) lo = -32768.0, hi = 32767.0;
  if (t == DType::Int8) lo = -128.0, hi = 127.0;
  if (t == DType::UInt8) lo = -128.0, hi = 255.0;
  FE_CHECK(std::isfinite(v) && v >= lo && v <= hi, ValueError, "aten::", op.schema.name, ": value cannot be converted to type ",
           name, " without overflow");
}

void cpu_empty(const OpDef&, std::span<const IValue>, std::span<Tensor>) {}  // storage starts zeroed
void cpu_zeros(const OpDef&, std::span<const IValue>, std::span<Tensor> o) { fill_with(o[0], [] { return 0.0; }); }
void cpu_ones(const OpDef&, std::span<const IValue>, std::span<Tensor> o) { fill_with(o[0], [] { return 1.0; }); }
/// full / full_like / new_full / scalar_tensor: the fill value is argument `I`.
template <size_t I>
void cpu_full(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const double v = cpu::number_of(a[I]);
  check_fits(op, o[0].dtype(), v);
  fill_with(o[0], [v] { return v; });
}
void cpu_rand(const OpDef&, std::span<const IValue>, std::span<Tensor> o) {
  std::uniform_real_distribution<double> d(0.0, 1.0);
  fill_with(o[0], [&] { return d(generator()); });
}
void cpu_randn(const OpDef&, std::span<const IValue>, std::span<Tensor> o) {
  std::normal_distribution<double> d(0.0, 1.0);
  fill_with(o[0], [&] { return d(generator()); });
}

constexpr DeviceRule kFree = DeviceRule::None;

/// torch._refs' zeros/ones/new_zeros/new_ones: full(size, 0 or 1 (False/True for bool), every
/// option resolved: the default dtype (or self's), strided, cpu (or self's device), no pinning).
template <int kFill, bool kFromSelf>
std::vector<Tensor> decomp_filled(std::span<const IValue> a, const SrcLocArg& loc) {
  const size_t o = kFromSelf ? 2 : 1;  // first option slot
  const Tensor* self = kFromSelf ? &decomp_tensor(a, 0) : nullptr;
  const auto* dt = std::get_if<DType>(&a[o]);
  const DType dtype = dt ? *dt : self ? self->dtype() : default_dtype();
  const auto* lay = std::get_if<Layout>(&a[o + 1]);
  const auto* dev = std::get_if<Device>(&a[o + 2]);
  const auto* pin = std::get_if<bool>(&a[o + 3]);
  const IValue fill = dtype == DType::Bool ? IValue(kFill != 0) : IValue(SymInt(kFill));
  return {dispatch1(*op_full,
                    {a[o - 1], fill, dtype, lay ? *lay : Layout::Strided,
                     dev ? *dev : self ? self->device() : Device::parse("cpu"), pin ? *pin : false},
                    loc)};
}

/// torch._refs.new_full / new_empty: full(size, fill_value, ...) / empty(size, ...) with self's
/// dtype, layout and device unless given, pin_memory False unless given.
template <bool kFull>
std::vector<Tensor> decomp_new(std::span<const IValue> a, const SrcLocArg& loc) {
  const size_t o = kFull ? 3 : 2;  // first option slot
  const Tensor& self = decomp_tensor(a, 0);
  const auto* dt = std::get_if<DType>(&a[o]);
  const auto* lay = std::get_if<Layout>(&a[o + 1]);
  const auto* dev = std::get_if<Device>(&a[o + 2]);
  const auto* pin = std::get_if<bool>(&a[o + 3]);
  const IValue dtype = dt ? *dt : self.dtype(), layout = lay ? *lay : Layout::Strided,
               device = dev ? *dev : self.device(), pin_memory = pin ? *pin : false;
  if (kFull) return {dispatch1(*op_full, {a[1], a[2], dtype, layout, device, pin_memory}, loc)};
  return {dispatch1(*op_empty_memory_format, {a[1], dtype, layout, device, pin_memory, None{}}, loc)};
}

/// torch._refs.zeros_like / ones_like: full_like(self, 0 or 1 (False/True for bool), the options
/// as given, pin_memory False, memory_format preserve unless given).
template <int kFill>
std::vector<Tensor> decomp_filled_like(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& self = decomp_tensor(a, 0);
  const auto* dt = std::get_if<DType>(&a[1]);
  const bool is_bool = (dt ? *dt : self.dtype()) == DType::Bool;
  const IValue fill = is_bool ? IValue(kFill != 0) : IValue(SymInt(kFill));
  const auto* pin = std::get_if<bool>(&a[4]);
  const IValue format = std::holds_alternative<None>(a[5]) ? IValue(MemoryFormat::Preserve) : a[5];
  return {dispatch1(*op_full_like, {a[0], fill, a[1], a[2], a[3], pin ? *pin : false, format}, loc)};
}

/// prims_common.compute_elementwise_output_logical_to_physical_perm for one tensor: identity when
/// contiguous, NHWC-like when channels-last, else an insertion sort of the dims by stride (back to
/// front); comparisons PyTorch makes with guard_or_false are false unless known.
std::vector<SymInt> logical_to_physical_perm(const TensorMeta& t) {
  const int64_t n = t.dim();
  std::vector<SymInt> perm;
  if (n == 0) return perm;
  if (n == 1) return {SymInt(0)};
  const bool contiguous = contiguous_or_false(t.sizes, t.strides);
  const bool channels_last = n == 4 && channels_last_or_false(t.sizes, t.strides);
  if (contiguous && !channels_last) {
    for (int64_t d = 0; d < n; ++d) perm.emplace_back(d);
    return perm;
  }
  if (channels_last && !contiguous) return {SymInt(0), SymInt(2), SymInt(3), SymInt(1)};
  const auto known = [](const SymInt& v) { return v.maybe_int(); };
  const auto eq = [&](const SymInt& a, const SymInt& b) { return a.same_as(b); };
  const auto ge = [&](const SymInt& a, const SymInt& b) {
    if (known(b) == 0) return true;
    if (known(a) == 0) return false;
    const auto x = known(a), y = known(b);
    return x && y && (*x >= *y || (*y != 0 && *x % *y == 0));
  };
  const auto should_swap = [&](int64_t a, int64_t b) {
    const SymInt &sa = t.strides[a], &sb = t.strides[b];
    if (known(sa) == 0 || known(sb) == 0) return 0;
    if (eq(sa, sb)) return ge(t.sizes[b], t.sizes[a]) ? 0 : 1;
    if (ge(sb, sa)) return -1;
    if (ge(sa, sb)) return 1;
    return 0;
  };
  std::vector<int64_t> p;
  for (int64_t d = n - 1; d >= 0; --d) p.push_back(d);
  for (int64_t i = 1; i < n; ++i) {
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; --d0) {
      const int c = should_swap(p[d0], p[d1]);
      if (c > 0) {
        std::swap(p[d0], p[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  for (auto it = p.rbegin(); it != p.rend(); ++it) perm.emplace_back(*it);
  return perm;
}

/// torch._refs.empty_like: options resolved from self; preserve_format is empty_permuted in self's
/// dim order, any other format empty.memory_format.
std::vector<Tensor> decomp_empty_like(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& self = decomp_tensor(a, 0);
  const auto* dt = std::get_if<DType>(&a[1]);
  const auto* lay = std::get_if<Layout>(&a[2]);
  const auto* dev = std::get_if<Device>(&a[3]);
  const auto* pin = std::get_if<bool>(&a[4]);
  const IValue dtype = dt ? *dt : self.dtype(), layout = lay ? *lay : self.layout(),
               device = dev ? *dev : self.device(), pin_memory = pin ? *pin : false;
  const std::vector<SymInt> shape(self.sizes().begin(), self.sizes().end());
  const auto* fmt = std::get_if<MemoryFormat>(&a[5]);
  if (fmt && *fmt != MemoryFormat::Preserve)
    return {dispatch1(*op_empty_memory_format, {shape, dtype, layout, device, pin_memory, *fmt}, loc)};
  std::vector<SymInt> perm;
  {
    // The reference's walk is Python's, recorded apart (export/contiguity_trace.h), not ours.
    UntracedArithmetic untraced("torch._refs.empty_like", shape);
    perm = logical_to_physical_perm(self.meta());
  }
  return {dispatch1(*op_empty_permuted, {shape, std::move(perm), dtype, layout, device, pin_memory}, loc)};
}

}  // namespace

void register_factory_ops(Registry& r) {
  op_empty_memory_format = r.add({"aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
         meta_new<true>, cpu_empty, kFree});
  op_zeros = r.add({.schema = "aten::zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
                    .meta = meta_new<false>, .cpu = cpu_zeros, .device_rule = kFree, .decomp = decomp_filled<0, false>});
  op_ones = r.add({.schema = "aten::ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
                   .meta = meta_new<false>, .cpu = cpu_ones, .device_rule = kFree, .decomp = decomp_filled<1, false>});
  op_rand = r.add({"aten::rand(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
         meta_new<false>, cpu_rand, kFree});
  op_randn = r.add({"aten::randn(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
         meta_randn, cpu_randn, kFree});
  op_full = r.add({"aten::full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
         meta_full, cpu_full<1>, kFree});
  op_empty_like = r.add({.schema = "aten::empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
                         .meta = meta_like<0>, .cpu = cpu_empty, .device_rule = kFree, .decomp = decomp_empty_like});
  op_zeros_like = r.add({.schema = "aten::zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
                         .meta = meta_like<0>, .cpu = cpu_zeros, .device_rule = kFree, .decomp = decomp_filled_like<0>});
  op_ones_like = r.add({.schema = "aten::ones_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
                        .meta = meta_like<0>, .cpu = cpu_ones, .device_rule = kFree, .decomp = decomp_filled_like<1>});
  op_rand_like = r.add({"aten::rand_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
         meta_like<0>, cpu_rand, kFree});
  op_randn_like = r.add({"aten::randn_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
         meta_randn_like, cpu_randn, kFree});
  op_full_like = r.add({"aten::full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
         meta_like<1>, cpu_full<1>, kFree});
  op_new_empty = r.add({.schema = "aten::new_empty(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
                        .meta = meta_new_from<0>, .cpu = cpu_empty, .device_rule = kFree, .decomp = decomp_new<false>});
  op_new_zeros = r.add({.schema = "aten::new_zeros(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
                        .meta = meta_new_from<0>, .cpu = cpu_zeros, .device_rule = kFree, .decomp = decomp_filled<0, true>});
  op_new_ones = r.add({.schema = "aten::new_ones(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
                       .meta = meta_new_from<0>, .cpu = cpu_ones, .device_rule = kFree, .decomp = decomp_filled<1, true>});
  op_new_full = r.add({.schema = "aten::new_full(Tensor self, SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
                       .meta = meta_new_from<1>, .cpu = cpu_full<2>, .device_rule = kFree, .decomp = decomp_new<true>});
  op_empty_strided = r.add({"aten::empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
         meta_empty_strided, cpu_empty, kFree});
  op_empty_permuted = r.add({"aten::empty_permuted(SymInt[] size, int[] physical_layout, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
         meta_empty_permuted, cpu_empty, kFree});
  op_scalar_tensor = r.add({"aten::scalar_tensor(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
         meta_scalar_tensor, cpu_full<0>, kFree});
  register_factory_range_ops(r);
}

}  // namespace ops

// ---- public API: arguments as Python's arg parser passes them (device and pin_memory always given).
namespace {
using ops::factory::opt;

Tensor finish(Tensor t, const TensorOptions& o) {
  if (o.requires_grad) t.impl()->meta.requires_grad = true;
  return t;
}

/// Trailing (dtype, layout, device, pin_memory) of a torch.* factory: device always given.
void push_options(std::vector<IValue>& args, const TensorOptions& o) {
  args.push_back(opt(o.dtype));
  args.push_back(opt(o.layout));
  args.push_back(o.device.value_or(default_device()));
  args.push_back(false);
}

Tensor make_new(const OpDef& def, Sizes size, const std::optional<Scalar>& fill, const TensorOptions& o,
                const SrcLocArg& loc) {
  std::vector<IValue> args{std::move(size)};
  if (fill) args.push_back(fill->ivalue());
  push_options(args, o);
  return finish(dispatch1(def, std::move(args), loc), o);
}

/// *_like and new_*: device only when given (the result follows self otherwise).
Tensor make_from(const OpDef& def, std::vector<IValue> args, const TensorOptions& o, const SrcLocArg& loc) {
  args.push_back(opt(o.dtype));
  args.push_back(opt(o.layout));
  args.push_back(opt(o.device));
  args.push_back(false);
  return finish(dispatch1(def, std::move(args), loc), o);
}
}  // namespace

Tensor empty(Sizes s, TensorOptions o, SrcLocArg l) {
  return make_new(*op_empty_memory_format, std::move(s), {}, o, l);
}
Tensor zeros(Sizes s, TensorOptions o, SrcLocArg l) {
  return make_new(*op_zeros, std::move(s), {}, o, l);
}
Tensor ones(Sizes s, TensorOptions o, SrcLocArg l) {
  return make_new(*op_ones, std::move(s), {}, o, l);
}
Tensor randn(Sizes s, TensorOptions o, SrcLocArg l) {
  return make_new(*op_randn, std::move(s), {}, o, l);
}
Tensor rand(Sizes s, TensorOptions o, SrcLocArg l) {
  return make_new(*op_rand, std::move(s), {}, o, l);
}
Tensor full(Sizes s, Scalar f, TensorOptions o, SrcLocArg l) {
  return make_new(*op_full, std::move(s), f, o, l);
}
Tensor empty_strided(Sizes size, Sizes stride, TensorOptions o, SrcLocArg l) {
  std::vector<IValue> args{std::move(size), std::move(stride)};
  push_options(args, o);
  return finish(dispatch1(*op_empty_strided, std::move(args), l), o);
}
Tensor scalar_tensor(Scalar s, TensorOptions o, SrcLocArg l) {
  std::vector<IValue> args{s.ivalue()};
  push_options(args, o);
  return finish(dispatch1(*op_scalar_tensor, std::move(args), l), o);
}
Tensor empty_like(const Tensor& t, TensorOptions o, SrcLocArg l) {
  return make_from(*op_empty_like, {t}, o, l);
}
Tensor zeros_like(const Tensor& t, TensorOptions o, SrcLocArg l) {
  return make_from(*op_zeros_like, {t}, o, l);
}
Tensor ones_like(const Tensor& t, TensorOptions o, SrcLocArg l) {
  return make_from(*op_ones_like, {t}, o, l);
}
Tensor randn_like(const Tensor& t, TensorOptions o, SrcLocArg l) {
  return make_from(*op_randn_like, {t}, o, l);
}
Tensor rand_like(const Tensor& t, TensorOptions o, SrcLocArg l) {
  return make_from(*op_rand_like, {t}, o, l);
}
Tensor full_like(const Tensor& t, Scalar f, TensorOptions o, SrcLocArg l) {
  return make_from(*op_full_like, {t, f.ivalue()}, o, l);
}

Tensor new_empty(const Tensor& self, Sizes size, TensorOptions o, SrcLocArg l) {
  return make_from(*op_new_empty, {self, std::move(size)}, o, l);
}
Tensor new_zeros(const Tensor& self, Sizes size, TensorOptions o, SrcLocArg l) {
  return make_from(*op_new_zeros, {self, std::move(size)}, o, l);
}
Tensor new_ones(const Tensor& self, Sizes size, TensorOptions o, SrcLocArg l) {
  return make_from(*op_new_ones, {self, std::move(size)}, o, l);
}
Tensor new_full(const Tensor& self, Sizes size, Scalar fill, TensorOptions o, SrcLocArg l) {
  return make_from(*op_new_full, {self, std::move(size), fill.ivalue()}, o, l);
}

// Tensor methods: x.new_zeros({b, t}, dtype, device).
#define FE_NEW_METHOD(name)                                                                                   \
  Tensor Tensor::name(IntSpan size, std::optional<DType> dtype, std::optional<Device> device, SrcLocArg l) const { \
    return fe::name(*this, Sizes(size.begin(), size.end()), {.dtype = dtype, .device = device}, l);          \
  }                                                                                                           \
  Tensor Tensor::name(std::initializer_list<SymInt> size, std::optional<DType> dtype, std::optional<Device> device, \
                      SrcLocArg l) const {                                                                    \
    return fe::name(*this, Sizes(size), {.dtype = dtype, .device = device}, l);                              \
  }
FE_NEW_METHOD(new_empty)
FE_NEW_METHOD(new_zeros)
FE_NEW_METHOD(new_ones)
#undef FE_NEW_METHOD

void manual_seed(uint64_t seed) { ops::generator().seed(seed); }

IValue Scalar::ivalue() const {
  return std::visit([](auto v) -> IValue { return v; }, v_);
}

}  // namespace fe
