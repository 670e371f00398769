// Private helpers of the factory family (src/ops/factory*.cpp).
#pragma once
#include "fakeexport/ops/registry.h"
#include "fakeexport/ops/scalar.h"
#include "ops/meta_util.h"

namespace fe {
class OpHandle;
/// aten::full (factory.cpp), which linspace's decomposition builds its degenerate cases with.
extern OpHandle op_full;
}  // namespace fe

namespace fe::ops {

void register_factory_range_ops(Registry& r);  // factory_range.cpp: arange, linspace

/// Helpers shared by the factory and conversion families.
namespace factory {

/// Keyword positions of a factory: (..., *, dtype, layout, device, pin_memory).
struct Kwargs {
  size_t dtype, layout, device, pin;
};

/// Only strided tensors exist here; PyTorch's sparse factories are out of scope.
inline void check_strided(const MetaArgs& a, size_t layout_idx) {
  auto l = a.opt_layout(layout_idx);
  FE_CHECK(!l || *l == Layout::Strided, ValueError, label(a), ": only torch.strided layout is supported, got torch.",
           layout_name(*l));
}

/// Device of a new tensor: the argument (fake accelerators without index become index 0) or `dflt`.
inline Device device_or(const MetaArgs& a, size_t idx, Device dflt) {
  return a.opt_device(idx).value_or(dflt).normalized();
}

/// pin_memory=True (None and False are the same here: nothing is pinned).
inline bool pinned(const MetaArgs& a, size_t i) { return !a.is_none(i) && a.to_bool(i); }

/// c10's channels-last strides (no max(size, 1), unlike contiguous strides).
inline DimVector channels_last(IntSpan s) {
  DimVector st(s.size(), SymInt(0));
  const size_t n = s.size();
  st[1] = 1;
  st[n - 1] = s[1];
  for (size_t d = n - 1; d-- > 2;) st[d] = st[d + 1] * s[d + 1];
  st[0] = st[2] * s[2];
  return st;
}

/// Strides a new tensor of `sizes` gets for memory_format `mf` (`like`: the tensor a *_like copies).
inline DimVector format_strides(const MetaArgs& a, IntSpan sizes, MemoryFormat mf, const TensorMeta* like) {
  switch (mf) {
    case MemoryFormat::Contiguous: return contiguous_strides(sizes);
    case MemoryFormat::ChannelsLast:
      FE_CHECK(sizes.size() == 4, ShapeError, label(a), ": required rank 4 tensor to use channels_last format");
      return channels_last(sizes);
    case MemoryFormat::ChannelsLast3d:
      FE_CHECK(sizes.size() == 5, ShapeError, label(a), ": required rank 5 tensor to use channels_last_3d format");
      return channels_last(sizes);
    case MemoryFormat::Preserve:
      FE_CHECK(like, ValueError, label(a), ": unsupported memory format Preserve");
      return preserved_strides(*like);
  }
  return contiguous_strides(sizes);
}

inline IValue opt(const std::optional<DType>& d) { return d ? IValue(*d) : IValue(None{}); }
inline IValue opt(const std::optional<Layout>& l) { return l ? IValue(*l) : IValue(None{}); }
inline IValue opt(const std::optional<Device>& d) { return d ? IValue(*d) : IValue(None{}); }

}  // namespace factory
}  // namespace fe::ops
