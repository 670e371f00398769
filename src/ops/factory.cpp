// Factory ops: empty, zeros, ones, rand, randn, full and their *_like forms.
#include <cmath>
#include <random>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "core/strided.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"

namespace fe {
namespace ops {
namespace {

// Argument positions shared by the size-taking factories: (size, [fill,] *, dtype, layout, device, pin_memory).
struct FactoryArgs {
  size_t dtype, layout, device;
  int fill = -1;
};

TensorMeta new_tensor_meta(const MetaArgs& a, const FactoryArgs& f) {
  const auto& size = a.int_list(0);
  for (SymInt s : size)
    FE_CHECK(s.expect_int() >= 0, ShapeError, label(a), ": Trying to create tensor with negative dimension ",
             s.expect_int(), ": ", shape_str(size));
  auto layout = a.opt_layout(f.layout);
  FE_CHECK(!layout || *layout == Layout::Strided, ValueError, label(a), ": only torch.strided layout is supported");
  DType dt = default_dtype();
  if (auto d = a.opt_dtype(f.dtype)) {
    dt = *d;
  } else if (f.fill >= 0) {  // full(): bool and int fill values pick bool/int64
    TypeCategory c = a.scalar_category(static_cast<size_t>(f.fill));
    if (c == TypeCategory::Bool) dt = DType::Bool;
    if (c == TypeCategory::Integral) dt = DType::Int64;
  }
  Device dev = a.opt_device(f.device).value_or(kCPU).normalized();
  TensorMeta m = make_contiguous(size, dt, dev);
  (void)m.numel();  // overflow check
  return m;
}

template <int Fill>
void meta_new(const MetaArgs& a, MetaOut& out) {
  constexpr FactoryArgs f = Fill ? FactoryArgs{2, 3, 4, 1} : FactoryArgs{1, 2, 3};
  out.push(new_tensor_meta(a, f));
}

// *_like(self, [fill,] *, dtype, layout, device, pin_memory, memory_format)
template <int Fill>
void meta_like(const MetaArgs& a, MetaOut& out) {
  const size_t base = Fill ? 2 : 1;
  const TensorMeta& self = a.tensor(0);
  TensorMeta m;
  m.sizes = self.sizes;
  m.dtype = a.opt_dtype(base).value_or(self.dtype);
  m.device = a.opt_device(base + 2).value_or(self.device).normalized();
  MemoryFormat mf = a.opt_memory_format(base + 4).value_or(MemoryFormat::Preserve);
  FE_CHECK(mf == MemoryFormat::Preserve || mf == MemoryFormat::Contiguous, ValueError, label(a),
           ": memory_format ", memory_format_name(mf), " is not supported yet");
  m.strides = mf == MemoryFormat::Preserve ? preserved_strides(self) : contiguous_strides(self.sizes);
  out.push(std::move(m));
}

void meta_rand_like(const MetaArgs& a, MetaOut& out) {
  meta_like<0>(a, out);
  FE_CHECK(is_floating(out.outs[0].dtype) || is_complex(out.outs[0].dtype), DTypeError, label(a),
           ": \"check_uniform_bounds\" not implemented for '", dtype_name(out.outs[0].dtype), "'");
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

void cpu_empty(const OpDef&, std::span<const IValue>, std::span<Tensor>) {}  // storage starts zeroed
void cpu_zeros(const OpDef&, std::span<const IValue>, std::span<Tensor> o) { fill_with(o[0], [] { return 0.0; }); }
void cpu_ones(const OpDef&, std::span<const IValue>, std::span<Tensor> o) { fill_with(o[0], [] { return 1.0; }); }
void cpu_full(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const double v = cpu::number_of(a[1]);
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

}  // namespace

void register_factory_ops(Registry& r) {
  r.add({"aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
         meta_new<0>, cpu_empty, kFree});
  r.add({"aten::zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
         meta_new<0>, cpu_zeros, kFree});
  r.add({"aten::ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
         meta_new<0>, cpu_ones, kFree});
  r.add({"aten::rand(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
         meta_new<0>, cpu_rand, kFree});
  r.add({"aten::randn(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
         meta_new<0>, cpu_randn, kFree});
  r.add({"aten::full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
         meta_new<1>, cpu_full, kFree});
  r.add({"aten::empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
         meta_like<0>, cpu_empty, kFree});
  r.add({"aten::zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
         meta_like<0>, cpu_zeros, kFree});
  r.add({"aten::ones_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
         meta_like<0>, cpu_ones, kFree});
  r.add({"aten::rand_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
         meta_rand_like, cpu_rand, kFree});
  r.add({"aten::randn_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
         meta_rand_like, cpu_randn, kFree});
  r.add({"aten::full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
         meta_like<1>, cpu_full, kFree});
}

}  // namespace ops

// ---- public API: arguments as Python's arg parser passes them (device and pin_memory always given).
namespace {
IValue opt(const std::optional<DType>& d) { return d ? IValue(*d) : IValue(None{}); }
IValue opt(const std::optional<Layout>& l) { return l ? IValue(*l) : IValue(None{}); }

Tensor finish(Tensor t, const TensorOptions& o) {
  if (o.requires_grad) t.impl()->meta.requires_grad = true;
  return t;
}

Tensor make_new(const OpDef& def, Sizes size, const std::optional<Scalar>& fill, const TensorOptions& o,
                const SrcLocArg& loc) {
  std::vector<IValue> args{std::move(size)};
  if (fill) args.push_back(fill->ivalue());
  args.push_back(opt(o.dtype));
  args.push_back(opt(o.layout));
  args.push_back(o.device.value_or(default_device()));
  args.push_back(false);
  return finish(dispatch1(def, std::move(args), loc), o);
}

Tensor make_like(const OpDef& def, const Tensor& self, const std::optional<Scalar>& fill, const TensorOptions& o,
                 const SrcLocArg& loc) {
  std::vector<IValue> args{self};
  if (fill) args.push_back(fill->ivalue());
  args.push_back(opt(o.dtype));
  args.push_back(opt(o.layout));
  args.push_back(o.device ? IValue(*o.device) : IValue(None{}));
  args.push_back(false);
  return finish(dispatch1(def, std::move(args), loc), o);
}
}  // namespace

Tensor empty(Sizes s, TensorOptions o, SrcLocArg l) {
  static const OpDef& d = op("aten::empty.memory_format");
  return make_new(d, std::move(s), {}, o, l);
}
Tensor zeros(Sizes s, TensorOptions o, SrcLocArg l) {
  static const OpDef& d = op("aten::zeros");
  return make_new(d, std::move(s), {}, o, l);
}
Tensor ones(Sizes s, TensorOptions o, SrcLocArg l) {
  static const OpDef& d = op("aten::ones");
  return make_new(d, std::move(s), {}, o, l);
}
Tensor randn(Sizes s, TensorOptions o, SrcLocArg l) {
  static const OpDef& d = op("aten::randn");
  return make_new(d, std::move(s), {}, o, l);
}
Tensor rand(Sizes s, TensorOptions o, SrcLocArg l) {
  static const OpDef& d = op("aten::rand");
  return make_new(d, std::move(s), {}, o, l);
}
Tensor full(Sizes s, Scalar f, TensorOptions o, SrcLocArg l) {
  static const OpDef& d = op("aten::full");
  return make_new(d, std::move(s), f, o, l);
}
Tensor empty_like(const Tensor& t, TensorOptions o, SrcLocArg l) {
  static const OpDef& d = op("aten::empty_like");
  return make_like(d, t, {}, o, l);
}
Tensor zeros_like(const Tensor& t, TensorOptions o, SrcLocArg l) {
  static const OpDef& d = op("aten::zeros_like");
  return make_like(d, t, {}, o, l);
}
Tensor ones_like(const Tensor& t, TensorOptions o, SrcLocArg l) {
  static const OpDef& d = op("aten::ones_like");
  return make_like(d, t, {}, o, l);
}
Tensor randn_like(const Tensor& t, TensorOptions o, SrcLocArg l) {
  static const OpDef& d = op("aten::randn_like");
  return make_like(d, t, {}, o, l);
}
Tensor rand_like(const Tensor& t, TensorOptions o, SrcLocArg l) {
  static const OpDef& d = op("aten::rand_like");
  return make_like(d, t, {}, o, l);
}
Tensor full_like(const Tensor& t, Scalar f, TensorOptions o, SrcLocArg l) {
  static const OpDef& d = op("aten::full_like");
  return make_like(d, t, f, o, l);
}

void manual_seed(uint64_t seed) { ops::generator().seed(seed); }

IValue Scalar::ivalue() const {
  return std::visit([](auto v) -> IValue { return v; }, v_);
}

}  // namespace fe
