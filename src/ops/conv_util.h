// Private helpers of the conv family (conv.cpp, conv_pool.cpp): memory-format rules and strided
// element access for the reference kernels.
#pragma once
#include <vector>

#include "core/element.h"
#include "fakeexport/ops/registry.h"

namespace fe::ops {

void register_conv_pool_ops(Registry& r);

/// Tensor.suggest_memory_format() == channels_last (4-D) / channels_last_3d (5-D): NHWC-like strides.
bool strides_like_channels_last(const TensorMeta& t);

/// Channels-last strides for 4-D sizes (NHWC) or 5-D sizes (NDHWC).
DimVector channels_last_nd_strides(IntSpan sizes);

/// A strided read-only window on tensor data, for the reference kernels.
struct StridedView {
  const std::byte* base = nullptr;  ///< element [0, ..., 0]
  DType dtype = DType::Float32;
  std::vector<int64_t> sizes, strides;
  double at(int64_t off) const { return detail::load(base + off * itemsize(dtype), dtype); }
};
StridedView view_of(const Tensor& t);
/// Prepends size-1 dims (stride 0) up to `rank` dims: an unbatched input as a batch of one.
StridedView with_rank(StridedView v, size_t rank);
inline void store_elem(const Tensor& t, int64_t off, double v) {
  detail::store(static_cast<std::byte*>(t.data_ptr()) + off * itemsize(t.dtype()), t.dtype(), v);
}

}  // namespace fe::ops
