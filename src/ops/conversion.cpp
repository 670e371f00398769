// Conversion ops: _to_copy, the to.* overloads (aliasing when nothing changes) and
// _assert_tensor_metadata, which export records before every `to` (as PyTorch 2.14 does).
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"

namespace fe {
namespace ops {
namespace {

// _assert_tensor_metadata(a, size?, stride?, dtype?, *, device?, layout?) -> ()
void meta_assert_metadata(const MetaArgs& a, MetaOut&) {
  const TensorMeta& t = a.tensor(0);
  if (!a.is_none(1))
    FE_CHECK(DimVector(a.int_list(1)) == t.sizes, ShapeError, label(a), ": Tensor sizes mismatch! Expected ",
             shape_str(a.int_list(1)), ", but got ", shape_str(t.sizes));
  if (!a.is_none(2))
    FE_CHECK(DimVector(a.int_list(2)) == t.strides, ShapeError, label(a), ": Tensor stride mismatch! Expected ",
             shape_str(a.int_list(2)), ", but got ", shape_str(t.strides));
  if (auto d = a.opt_dtype(3))
    FE_CHECK(*d == t.dtype, DTypeError, label(a), ": Tensor dtype mismatch! Expected dtype=torch.",
             dtype_name(*d), ", but got dtype=torch.", dtype_name(t.dtype), ".");
  if (auto d = a.opt_device(4))
    FE_CHECK(d->normalized() == t.device, DeviceMismatchError, label(a), ": Tensor device mismatch! Expected device=",
             d->str(), ", but got device=", t.device.str(), ".");
  if (auto l = a.opt_layout(5))
    FE_CHECK(*l == t.layout, ValueError, label(a), ": Tensor layout mismatch! Expected layout=torch.",
             layout_name(*l), ", but got layout=torch.", layout_name(t.layout), ".");
}

/// The copy `_to_copy` makes: requested dtype/device, strides preserved when dense.
TensorMeta copy_meta(const MetaArgs& a, const TensorMeta& self, std::optional<DType> dtype,
                     std::optional<Device> device, std::optional<MemoryFormat> mf) {
  TensorMeta m;
  m.sizes = self.sizes;
  m.dtype = dtype.value_or(self.dtype);
  m.device = device.value_or(self.device).normalized();
  MemoryFormat f = mf.value_or(MemoryFormat::Preserve);
  FE_CHECK(f == MemoryFormat::Preserve || f == MemoryFormat::Contiguous, ValueError, label(a),
           ": memory_format ", memory_format_name(f), " is not supported yet");
  m.strides = f == MemoryFormat::Preserve ? preserved_strides(self) : contiguous_strides(self.sizes);
  return m;
}

// _to_copy(self, *, dtype, layout, device, pin_memory, non_blocking, memory_format)
void meta_to_copy(const MetaArgs& a, MetaOut& out) {
  out.push(copy_meta(a, a.tensor(0), a.opt_dtype(1), a.opt_device(3), a.opt_memory_format(6)));
}

/// `to` returns self (an alias) when nothing changes and copy=False, else a _to_copy.
void to_meta(const MetaArgs& a, MetaOut& out, std::optional<DType> dtype, std::optional<Device> device,
             bool copy, std::optional<MemoryFormat> mf) {
  const TensorMeta& self = a.tensor(0);
  const bool same_dtype = !dtype || *dtype == self.dtype;
  const bool same_device = !device || device->normalized() == self.device;
  const bool same_format = !mf || *mf == MemoryFormat::Preserve ||
                           (*mf == MemoryFormat::Contiguous && self.is_contiguous());
  if (same_dtype && same_device && same_format && !copy) {
    out.push(self);
    out.alias_input0 = true;
    return;
  }
  out.push(copy_meta(a, self, dtype, device, mf));
}

// to.dtype_layout(self, *, dtype, layout, device, pin_memory, non_blocking, copy, memory_format)
void meta_to_dtype_layout(const MetaArgs& a, MetaOut& out) {
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

void cpu_copy(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const TensorMeta& om = o[0].meta();
  cpu::Operand in = cpu::make_operand(a[0], om.sizes);
  for_each_element(om, std::span(&in, 1), [&](int64_t out_off, const int64_t* in_off) {
    cpu::store_at(o[0], out_off, in.at(in_off[0]));
  });
}

constexpr DeviceRule kFree = DeviceRule::None;

}  // namespace

void register_conversion_ops(Registry& r) {
  r.add({"aten::_assert_tensor_metadata(Tensor a, SymInt[]? size=None, SymInt[]? stride=None, ScalarType? dtype=None, *, Device? device=None, Layout? layout=None) -> ()",
         meta_assert_metadata, nullptr, kFree, false, "_assert_tensor_metadata_default"});
  r.add({"aten::_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor",
         meta_to_copy, cpu_copy, kFree});
  r.add({"aten::to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
         meta_to_dtype_layout, cpu_copy, kFree, true});
  r.add({"aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
         meta_to_dtype, cpu_copy, kFree, true});
  r.add({"aten::to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
         meta_to_device, cpu_copy, kFree, true});
}

}  // namespace ops

namespace {
/// What export records before every Tensor.to: the input's current dtype, device and layout.
void assert_metadata(const Tensor& self, const SrcLocArg& loc) {
  static const OpDef& d = op("aten::_assert_tensor_metadata");
  dispatch(d, {self, None{}, None{}, self.dtype(), self.device(), self.layout()}, loc);
}
}  // namespace

Tensor Tensor::to(Device device, SrcLocArg loc) const {
  // Python `t.to(device)` binds to.dtype_layout with dtype and layout filled from t.
  static const OpDef& d = op("aten::to.dtype_layout");
  assert_metadata(*this, loc);
  return dispatch1(d, {*this, dtype(), layout(), device}, loc);
}
Tensor Tensor::to(DType dt, SrcLocArg loc) const {
  static const OpDef& d = op("aten::to.dtype");
  assert_metadata(*this, loc);
  return dispatch1(d, {*this, dt}, loc);
}
Tensor Tensor::to(Device device, DType dt, SrcLocArg loc) const {
  static const OpDef& d = op("aten::to.device");
  assert_metadata(*this, loc);
  return dispatch1(d, {*this, device, dt}, loc);
}
Tensor _to_copy(const Tensor& self, TensorOptions o, SrcLocArg loc) {
  static const OpDef& d = op("aten::_to_copy");
  return dispatch1(d,
                   {self, o.dtype ? IValue(*o.dtype) : IValue(None{}), o.layout ? IValue(*o.layout) : IValue(None{}),
                    o.device ? IValue(*o.device) : IValue(None{})},
                   loc);
}

}  // namespace fe
