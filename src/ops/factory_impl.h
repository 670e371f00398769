// Private helpers of the factory family (src/ops/factory*.cpp).
#pragma once
#include "fakeexport/ops/registry.h"
#include "fakeexport/ops/scalar.h"
#include "ops/meta_util.h"

namespace fe::ops {

void register_factory_range_ops(Registry& r);  // factory_range.cpp: arange, linspace

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

inline IValue opt(const std::optional<DType>& d) { return d ? IValue(*d) : IValue(None{}); }
inline IValue opt(const std::optional<Layout>& l) { return l ? IValue(*l) : IValue(None{}); }
inline IValue opt(const std::optional<Device>& d) { return d ? IValue(*d) : IValue(None{}); }

}  // namespace factory
}  // namespace fe::ops
