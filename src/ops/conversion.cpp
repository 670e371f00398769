// Conversion ops: _to_copy, the to.* overloads and type_as (returning self when nothing changes),
// _assert_tensor_metadata (export records it before every `to`, as PyTorch 2.14 does),
// _local_scalar_dense (data-dependent on fake tensors), sym_size.int, the in-place writes zero_/fill_/copy_
// and copy, copy_'s functional form (what functionalization records)
// plus lift_fresh_copy (torch.tensor constants in export).
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/factory_impl.h"
#include "ops/families.h"
#include "ops/indexing_impl.h"
#include <cmath>
#include "ops/elementwise.h"

namespace fe {
namespace {
OpHandle op_assert_tensor_metadata;
OpHandle op_copy;
OpHandle op_copy_;
OpHandle op_fill_inplace_Scalar;
OpHandle op_fill_inplace_Tensor;
OpHandle op_lift_fresh_copy;
OpHandle op_sym_size_int;
OpHandle op_to_copy;
OpHandle op_to_device;
OpHandle op_type_as;
OpHandle op_zero_;
}  // namespace
OpHandle op_local_scalar_dense;
OpHandle op_to_dtype;
OpHandle op_to_dtype_layout;
}  // namespace fe

namespace fe {
namespace ops {
namespace {

// _assert_tensor_metadata(a, size?, stride?, dtype?, *, device?, layout?) -> ()
// Devices compare as given: "cuda" does not match a tensor on cuda:0.
void meta_assert_metadata(const MetaArgs& a, MetaOut&) {
  const TensorMeta& t = a.tensor(0);
  if (!a.is_none(1))
    FE_CHECK(DimVector(a.int_list(1)) == t.sizes, ShapeError, label(a), ": Tensor size mismatch! Expected: ",
             shape_str(a.int_list(1)), ", Got: torch.Size(", shape_str(t.sizes), ")");
  if (!a.is_none(2))
    FE_CHECK(DimVector(a.int_list(2)) == t.strides, ShapeError, label(a), ": Tensor stride mismatch! Expected: ",
             shape_str(a.int_list(2)), ", Got: ", py_tuple(t.strides));
  if (auto d = a.opt_dtype(3))
    FE_CHECK(*d == t.dtype, DTypeError, label(a), ": Tensor dtype mismatch! Expected: torch.", dtype_name(*d),
             ", Got: torch.", dtype_name(t.dtype));
  if (auto d = a.opt_device(4))
    FE_CHECK(*d == t.device, DeviceMismatchError, label(a), ": Tensor device mismatch! Expected: ", d->str(),
             ", Got: ", t.device.str());
  if (auto l = a.opt_layout(5))
    FE_CHECK(*l == t.layout, ValueError, label(a), ": Tensor layout mismatch! Expected: torch.", layout_name(*l),
             ", Got: torch.", layout_name(t.layout));
}

/// The copy `_to_copy` makes: requested dtype/device, strides per memory format (preserve: kept when dense).
TensorMeta copy_meta(const MetaArgs& a, const TensorMeta& self, std::optional<DType> dtype,
                     std::optional<Device> device, std::optional<MemoryFormat> mf) {
  TensorMeta m;
  m.sizes = self.sizes;
  m.dtype = dtype.value_or(self.dtype);
  m.device = device.value_or(self.device).normalized();
  // On symbolic sizes FakeTensor's _to_copy is torch._decomp's: prims.convert_element_type keeps a
  // dense input's strides and otherwise sorts its dims by stride, as preserved_strides does there.
  m.strides = factory::format_strides(a, self.sizes, mf.value_or(MemoryFormat::Preserve), &self);
  return m;
}

// _to_copy(self, *, dtype, layout, device, pin_memory, non_blocking, memory_format)
// FakeTensorMode returns the input itself when only an equal device (exactly: "cuda" is not
// cuda:0) is requested (its _to_copy runs the meta kernel with device=meta, a no-op); eager copies.
void meta_to_copy(const MetaArgs& a, MetaOut& out) {
  factory::check_strided(a, 2);
  const TensorMeta& self = a.tensor(0);
  auto device = a.opt_device(3);
  if (device && *device == self.device && a.is_none(1) && a.is_none(6)) {
    out.push(self);
    out.alias_input0 = true;
    return;
  }
  out.push(copy_meta(a, self, a.opt_dtype(1), device, a.opt_memory_format(6)));
}

/// c10's is_channels_last_strides_2d/3d: strides *ordered* like NHWC (NDHWC), dense or not.
/// A layout decision: symbolic sizes/strides are compared on their hints, without guards.
bool strides_like_channels_last(const TensorMeta& m, std::initializer_list<int> order) {
  int64_t min = 0;
  if (m.strides[1].hint() == 0) return false;  // trivial C dimension: NCHW
  for (int d : order) {
    const int64_t size = m.sizes[d].hint(), stride = m.strides[d].hint();
    if (size == 0 || stride < min) return false;
    if (d == 0 && min == m.strides[1].hint()) return false;  // ambiguous N111: NCHW
    min = size > 1 ? stride * size : stride;
  }
  return true;
}

/// Tensor.suggest_memory_format(): the format a tensor's strides look like.
MemoryFormat suggest_memory_format(const TensorMeta& m) {
  if (m.dim() == 4 && strides_like_channels_last(m, {1, 3, 2, 0})) return MemoryFormat::ChannelsLast;
  if (m.dim() == 5 && strides_like_channels_last(m, {1, 4, 3, 2, 0})) return MemoryFormat::ChannelsLast3d;
  return MemoryFormat::Contiguous;
}

/// `to` returns self (an alias) when dtype and device match, copy=False and the requested memory
/// format is preserve or the one self's strides suggest (aten's to_will_alias: a non-contiguous
/// tensor stays as it is under memory_format=contiguous_format), else a _to_copy.
void to_meta(const MetaArgs& a, MetaOut& out, std::optional<DType> dtype, std::optional<Device> device, bool copy,
             std::optional<MemoryFormat> mf) {
  const TensorMeta& self = a.tensor(0);
  const MemoryFormat f = mf.value_or(MemoryFormat::Preserve);
  const bool same_format = f == MemoryFormat::Preserve || suggest_memory_format(self) == f;
  if ((!dtype || *dtype == self.dtype) && (!device || device->normalized() == self.device) && same_format && !copy) {
    out.push(self);
    out.alias_input0 = true;
    return;
  }
  out.push(copy_meta(a, self, dtype, device, mf));
}

// to.dtype_layout(self, *, dtype, layout, device, pin_memory, non_blocking, copy, memory_format)
void meta_to_dtype_layout(const MetaArgs& a, MetaOut& out) {
  factory::check_strided(a, 2);
  to_meta(a, out, a.opt_dtype(1), a.opt_device(3), a.to_bool(6), a.opt_memory_format(7));
}
// to.dtype(self, dtype, non_blocking, copy, memory_format)
void meta_to_dtype(const MetaArgs& a, MetaOut& out) {
  to_meta(a, out, a.opt_dtype(1), std::nullopt, a.to_bool(3), a.opt_memory_format(4));
}
// to.device(self, device, dtype, non_blocking, copy, memory_format)
void meta_to_device(const MetaArgs& a, MetaOut& out) {
  to_meta(a, out, a.opt_dtype(2), a.opt_device(1), a.to_bool(4), a.opt_memory_format(5));
}
// to.other(self, other, non_blocking, copy, memory_format): other's dtype and device.
void meta_to_other(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& other = a.tensor(1);
  to_meta(a, out, other.dtype, other.device, a.to_bool(3), a.opt_memory_format(4));
}
// type_as(self, other) is self.to(other.options()): dtype and device of other.
void meta_type_as(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& other = a.tensor(1);
  to_meta(a, out, other.dtype, other.device, false, std::nullopt);
}

// _local_scalar_dense(self) -> Scalar: a fake tensor has no value to read.
void meta_local_scalar_dense(const MetaArgs& a, MetaOut&) {
  (void)a.tensor(0);
  throw DataDependentError(label(a) + ": aten._local_scalar_dense.default: the value of a fake tensor is data "
                                      "(item(), int(), float() or bool() of a tensor cannot be traced without it)");
}

// sym_size.int(self, dim) -> SymInt: an int output (no tensor); 0-dim tensors have no dims at all.
void meta_sym_size(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const int64_t dim = a.to_int(1);
  FE_CHECK(self.dim() > 0, IndexError, label(a), ": Dimension specified as ", dim, " but tensor has no dimensions");
  out.ints.push_back(self.sizes[wrap_dim(dim, self.dim(), label(a))]);
}

// sym_stride.int(self, dim) -> SymInt: a retrace reads a stride its wrap needs (computeStorageNbytes).
void meta_sym_stride(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const int64_t dim = a.to_int(1);
  FE_CHECK(self.dim() > 0, IndexError, label(a), ": Dimension specified as ", dim, " but tensor has no dimensions");
  out.ints.push_back(self.strides[wrap_dim(dim, self.dim(), label(a))]);
}

// sym_storage_offset(self) -> SymInt: a retrace reads a view's symbolic offset its wrap needs.
void meta_sym_storage_offset(const MetaArgs& a, MetaOut& out) { out.ints.push_back(a.tensor(0).storage_offset); }

/// A tensor's element count as a graph value: export's read of a numel no node computed before
/// (a MoE layer's routed-token count when seq is 8*_seq).
void meta_sym_numel(const MetaArgs& a, MetaOut& out) { out.ints.push_back(a.tensor(0).numel()); }

void cpu_copy(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const TensorMeta& om = o[0].meta();
  cpu::Operand in = cpu::make_operand(a[0], om.sizes);
  for_each_element(om, std::span(&in, 1), [&](int64_t out_off, const int64_t* in_off) {
    cpu::store_at(o[0], out_off, in.at(in_off[0]));
  });
}

constexpr DeviceRule kFree = DeviceRule::None;


// ---- zero_, fill_, copy_ (in place: self's metadata comes back) and lift_fresh_copy.
void meta_zero_(const MetaArgs& a, MetaOut& out) {
  ew::require_tensor(a, 0);
  out.push(a.tensor(0));
}
void meta_fill_scalar(const MetaArgs& a, MetaOut& out) {
  ew::require_tensor(a, 0);
  ew::require_number(a, 1);
  out.push(a.tensor(0));
}
void meta_fill_tensor(const MetaArgs& a, MetaOut& out) {
  ew::require_tensor(a, 0);
  ew::require_tensor(a, 1);
  const int64_t nd = a.tensor(1).dim();
  FE_CHECK(nd == 0, ShapeError, label(a), ": fill_ only supports 0-dimension value tensor but got tensor with ", nd,
           " dimensions.");
  out.push(a.tensor(0));
}
// copy_: src must broadcast to self's shape (src's extra leading dims count as a mismatch).
void meta_copy_(const MetaArgs& a, MetaOut& out) {
  FE_CHECK(a.is_tensor(0), ValueError, label(a), ": 'float' object has no attribute 'device'");
  ew::require_tensor(a, 1);
  const TensorMeta& self = a.tensor(0);
  const TensorMeta& src = a.tensor(1);
  const int64_t ns = self.dim(), nr = src.dim();
  // Trailing dims first, as broadcasting aligns them.
  for (int64_t i = 1; i <= std::min(ns, nr); ++i) {
    const SymInt& x = self.sizes[ns - i];
    const SymInt& y = src.sizes[nr - i];
    FE_CHECK(y == 1 || x == y, ShapeError, label(a), ": The size of tensor a (", x, ") must match the size of tensor b (",
             y, ") at non-singleton dimension ", (nr > ns ? nr : ns) - i);
  }
  if (nr > ns) {
    DimVector b = src.sizes;
    for (int64_t i = 1; i <= ns; ++i)
      if (b[nr - i] == 1) b[nr - i] = self.sizes[ns - i];
    throw ShapeError(detail::cat(label(a), ": output with shape ", shape_str(self.sizes),
                                 " doesn't match the broadcast shape ", shape_str(b)));
  }
  out.push(self);
}
// copy(self, src, non_blocking): copy_'s checks, then a copy of self keeping its strides
// (clone_preserve_strides) that src is written into; a self that overlaps itself is cloned
// instead (its strides would alias the writes).
void meta_copy(const MetaArgs& a, MetaOut& out) {
  meta_copy_(a, out);
  TensorMeta& m = out.outs.back();
  if (idx::has_internal_overlap(m)) {
    m.strides = preserved_strides(m);
    m.storage_offset = 0;
  }
  m.requires_grad = a.tensor(0).requires_grad || a.tensor(1).requires_grad;
}
// fill.Scalar / fill.Tensor (fill_'s functional forms, what functionalization records): fill_'s
// checks, then a fresh tensor like self (full_like / copy, as torch._decomp lowers them).
template <bool kTensor>
void meta_fill_functional(const MetaArgs& a, MetaOut& out) {
  if (kTensor) meta_fill_tensor(a, out);
  else meta_fill_scalar(a, out);
  TensorMeta& m = out.outs.back();
  m.strides = preserved_strides(m);
  m.storage_offset = 0;
}
/// zero (zero_'s functional form): zero_'s checks, then a fresh tensor like self.
void meta_zero(const MetaArgs& a, MetaOut& out) {
  meta_zero_(a, out);
  TensorMeta& m = out.outs.back();
  m.strides = preserved_strides(m);
  m.storage_offset = 0;
}
/// torch._refs.zero: full_like(self, 0, memory_format=preserve_format) (pin_memory False as Python passes it).
std::vector<Tensor> decomp_zero(std::span<const IValue> a, const SrcLocArg& loc) {
  return {dispatch1(*op_full_like, {a[0], SymInt(0), None{}, None{}, None{}, false, MemoryFormat::Preserve}, loc)};
}
/// torch._decomp: fill.Scalar is full_like(self, value) (pin_memory=False as Python passes it),
/// fill.Tensor is copy(self, value).
std::vector<Tensor> decomp_fill(std::span<const IValue> a, const SrcLocArg& loc) {
  if (std::holds_alternative<Tensor>(a[1])) return {dispatch1(*op_copy, {a[0], a[1]}, loc)};
  return {dispatch1(*op_full_like, {a[0], a[1], None{}, None{}, None{}, false, None{}}, loc)};
}
void meta_lift_fresh_copy(const MetaArgs& a, MetaOut& out) {
  ew::require_tensor(a, 0);
  const TensorMeta& self = a.tensor(0);
  out.push(make_contiguous(self.sizes, self.dtype, self.device));
}

void cpu_fill(std::span<Tensor> o, double v) {
  const double x = o[0].dtype() == DType::Bool ? double(v != 0) : v;
  cpu::for_each_element(o[0].meta(), {}, [&](int64_t off, const int64_t*) { cpu::store_at(o[0], off, x); });
}
void cpu_zero_(const OpDef&, std::span<const IValue>, std::span<Tensor> o) { cpu_fill(o, 0.0); }
void cpu_fill_(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  if (std::holds_alternative<Tensor>(a[1])) ew::check_no_internal_overlap(op, o[0]);
  if (const Tensor* t = std::get_if<Tensor>(&a[1])) {
    cpu::Operand v = cpu::make_operand(*t, {});
    cpu_fill(o, v.at(v.offset));
  } else {
    cpu_fill(o, cpu::number_of(a[1]));
  }
}
void cpu_copy_(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  ew::check_no_internal_overlap(op, o[0]);
  const TensorMeta& om = o[0].meta();
  cpu::Operand src = cpu::make_operand(a[1], om.sizes);
  const bool to_bool = om.dtype == DType::Bool;
  cpu::for_each_element(om, std::span(&src, 1), [&](int64_t off, const int64_t* in) {
    const double v = src.at(in[0]);
    cpu::store_at(o[0], off, to_bool ? double(v != 0) : v);
  });
}

/// to.* (CompositeImplicit, ATen's to_impl): self when nothing changes and no copy is asked, else
/// _to_copy with the options as given (dtype, layout, device, pin_memory, non_blocking, format).
std::vector<Tensor> to_copy_or_self(const Tensor& x, const IValue& dtype, const IValue& layout, const IValue& device,
                                    const IValue& pin, bool non_blocking, bool copy, const IValue& format,
                                    const SrcLocArg& loc) {
  bool same = !copy;
  if (const auto* d = std::get_if<DType>(&dtype)) same &= *d == x.dtype();
  if (const auto* l = std::get_if<Layout>(&layout)) same &= *l == Layout::Strided;
  if (const auto* d = std::get_if<Device>(&device)) same &= d->normalized() == x.device().normalized();
  if (const auto* f = std::get_if<MemoryFormat>(&format)) same &= *f == MemoryFormat::Preserve;
  if (same) return {x};
  return {dispatch1(*op_to_copy, {x, dtype, layout, device, pin, non_blocking, format}, loc)};
}
std::vector<Tensor> decomp_to_dtype_layout(std::span<const IValue> a, const SrcLocArg& loc) {
  return to_copy_or_self(decomp_tensor(a, 0), a[1], a[2], a[3], a[4], std::get<bool>(a[5]), std::get<bool>(a[6]), a[7],
                         loc);
}
std::vector<Tensor> decomp_to_dtype(std::span<const IValue> a, const SrcLocArg& loc) {
  return to_copy_or_self(decomp_tensor(a, 0), a[1], None{}, None{}, None{}, std::get<bool>(a[2]), std::get<bool>(a[3]),
                         a[4], loc);
}
std::vector<Tensor> decomp_to_device(std::span<const IValue> a, const SrcLocArg& loc) {
  return to_copy_or_self(decomp_tensor(a, 0), a[2], None{}, a[1], None{}, std::get<bool>(a[3]), std::get<bool>(a[4]),
                         a[5], loc);
}

/// type_as (CompositeImplicit): self.to(other.options()): to.dtype_layout with other's dtype,
/// layout and device.
std::vector<Tensor> decomp_type_as(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& other = decomp_tensor(a, 1);
  return to_copy_or_self(decomp_tensor(a, 0), other.dtype(), Layout::Strided, other.device(), None{}, false, false, None{},
                         loc);
}

/// lift_fresh_copy (torch._decomp): clone(self).
std::vector<Tensor> decomp_lift_fresh_copy(std::span<const IValue> a, const SrcLocArg& loc) {
  return {fe::clone(decomp_tensor(a, 0), std::nullopt, loc)};
}

}  // namespace

void register_conversion_ops(Registry& r) {
  op_zero_ = r.add({"aten::zero_(Tensor(a!) self) -> Tensor(a!)", meta_zero_, cpu_zero_});
  op_fill_inplace_Scalar = r.add({"aten::fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)", meta_fill_scalar, cpu_fill_});
  op_fill_inplace_Tensor = r.add({"aten::fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)", meta_fill_tensor, cpu_fill_});
  // FakeTensor's multi-device ops: the source may live elsewhere, the result is on self's device.
  op_copy_ = r.add({"aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)", meta_copy_, cpu_copy_, kFree});
  op_copy = r.add({"aten::copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor", meta_copy, cpu_copy_, kFree});
  r.add({.schema = "aten::zero(Tensor self) -> Tensor", .meta = meta_zero, .cpu = cpu_zero_, .decomp = decomp_zero});
  r.add({.schema = "aten::fill.Scalar(Tensor self, Scalar value) -> Tensor", .meta = meta_fill_functional<false>,
         .cpu = cpu_fill_, .decomp = decomp_fill});
  r.add({.schema = "aten::fill.Tensor(Tensor self, Tensor value) -> Tensor", .meta = meta_fill_functional<true>,
         .cpu = cpu_fill_, .decomp = decomp_fill});
  op_lift_fresh_copy = r.add({.schema = "aten::lift_fresh_copy(Tensor self) -> Tensor", .meta = meta_lift_fresh_copy,
                              .cpu = cpu_copy, .decomp = decomp_lift_fresh_copy});
  op_assert_tensor_metadata = r.add({"aten::_assert_tensor_metadata(Tensor a, SymInt[]? size=None, SymInt[]? stride=None, ScalarType? dtype=None, *, Device? device=None, Layout? layout=None) -> ()",
         meta_assert_metadata, nullptr, kFree, false, "_assert_tensor_metadata_default", /*max_positional=*/1});
  op_to_copy = r.add({"aten::_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor",
         meta_to_copy, cpu_copy, kFree, true});
  op_to_dtype_layout = r.add({.schema = "aten::to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
                               .meta = meta_to_dtype_layout, .cpu = cpu_copy, .device_rule = kFree, .may_return_self = true, .decomp = decomp_to_dtype_layout});
  op_to_dtype = r.add({.schema = "aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
                        .meta = meta_to_dtype, .cpu = cpu_copy, .device_rule = kFree, .may_return_self = true, .decomp = decomp_to_dtype});
  op_to_device = r.add({.schema = "aten::to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
                         .meta = meta_to_device, .cpu = cpu_copy, .device_rule = kFree, .may_return_self = true, .decomp = decomp_to_device});
  r.add({"aten::to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
         meta_to_other, cpu_copy, kFree, true});
  op_type_as = r.add({.schema = "aten::type_as(Tensor self, Tensor other) -> Tensor", .meta = meta_type_as, .cpu = cpu_copy,
                      .device_rule = kFree, .may_return_self = true, .decomp = decomp_type_as});
  op_local_scalar_dense = r.add({"aten::_local_scalar_dense(Tensor self) -> Scalar", meta_local_scalar_dense, nullptr, kFree});
  op_sym_size_int = r.add({"aten::sym_size.int(Tensor self, int dim) -> SymInt", meta_sym_size, nullptr, kFree});
  r.add({"aten::sym_stride.int(Tensor self, int dim) -> SymInt", meta_sym_stride, nullptr, kFree});
  r.add({"aten::sym_numel(Tensor self) -> SymInt", meta_sym_numel, nullptr, kFree});
  r.add({"aten::sym_storage_offset(Tensor self) -> SymInt", meta_sym_storage_offset, nullptr, kFree});
}

}  // namespace ops

namespace {
/// What export records before every Tensor.to: the input's current dtype, device and layout.
void assert_metadata(const Tensor& self, const SrcLocArg& loc) {
  dispatch(*op_assert_tensor_metadata, {self, None{}, None{}, self.dtype(), self.device(), self.layout()}, loc);
}
}  // namespace

Tensor Tensor::to(Device device, SrcLocArg loc) const {
  // Python `t.to(device)` binds to.dtype_layout with dtype and layout filled from t.
  assert_metadata(*this, loc);
  return dispatch1(*op_to_dtype_layout, {*this, dtype(), layout(), device}, loc);
}
Tensor Tensor::to(DType dt, SrcLocArg loc) const {
  assert_metadata(*this, loc);
  return dispatch1(*op_to_dtype, {*this, dt}, loc);
}
Tensor Tensor::to(Device device, DType dt, SrcLocArg loc) const {
  assert_metadata(*this, loc);
  return dispatch1(*op_to_device, {*this, device, dt}, loc);
}
Tensor Tensor::to(const Tensor& other, SrcLocArg loc) const {
  // Python `t.to(other)` is recorded as to.device(other.device, other.dtype).
  return to(other.device(), other.dtype(), loc);
}
Tensor Tensor::type_as(const Tensor& other, SrcLocArg loc) const { return fe::type_as(*this, other, loc); }

Tensor type_as(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  return dispatch1(*op_type_as, {self, other}, loc);
}
Tensor _to_copy(const Tensor& self, TensorOptions o, SrcLocArg loc) {
  return dispatch1(*op_to_copy,
                   {self, o.dtype ? IValue(*o.dtype) : IValue(None{}), o.layout ? IValue(*o.layout) : IValue(None{}),
                    o.device ? IValue(*o.device) : IValue(None{})},
                   loc);
}
SymInt sym_size(const Tensor& self, int64_t dim) {
  std::vector<MetaValue> args{&self.meta(), SymInt(dim)};
  MetaOut out;
  run_meta(*op_sym_size_int, args, out);
  return out.ints.at(0);
}

Tensor zero_(const Tensor& self, SrcLocArg loc) {
  return dispatch1(*op_zero_, {self}, loc);
}
Tensor fill_(const Tensor& self, Scalar value, SrcLocArg loc) {
  return dispatch1(*op_fill_inplace_Scalar, {self, value.ivalue()}, loc);
}
Tensor fill_(const Tensor& self, const Tensor& value, SrcLocArg loc) {
  return dispatch1(*op_fill_inplace_Tensor, {self, value}, loc);
}
Tensor copy_(const Tensor& self, const Tensor& src, bool non_blocking, SrcLocArg loc) {
  return dispatch1(*op_copy_, {self, src, non_blocking}, loc);
}
Tensor lift_fresh_copy(const Tensor& self, SrcLocArg loc) {
  return dispatch1(*op_lift_fresh_copy, {self}, loc);
}
Tensor Tensor::zero_(SrcLocArg loc) const { return fe::zero_(*this, loc); }
Tensor Tensor::fill_(const Scalar& value, SrcLocArg loc) const { return fe::fill_(*this, value, loc); }
Tensor Tensor::fill_(const Tensor& value, SrcLocArg loc) const { return fe::fill_(*this, value, loc); }
Tensor Tensor::copy_(const Tensor& src, bool non_blocking, SrcLocArg loc) const {
  return fe::copy_(*this, src, non_blocking, loc);
}

}  // namespace fe
