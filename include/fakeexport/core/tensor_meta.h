// TensorMeta: everything PyTorch knows about a tensor except its data.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "fakeexport/core/device.h"
#include "fakeexport/core/dtype.h"
#include "fakeexport/core/layout.h"
#include "fakeexport/core/small_vector.h"
#include "fakeexport/core/symint.h"

namespace fe {

/// Sizes or strides of one tensor; 6 dims inline.
using DimVector = SmallVector<SymInt, 6>;
using IntSpan = std::span<const SymInt>;

/// Metadata of a tensor: shape, strides, offset, dtype, device, layout, requires_grad.
struct TensorMeta {
  DimVector sizes;
  DimVector strides;
  SymInt storage_offset = 0;
  DType dtype = DType::Float32;
  Device device = kCPU;
  Layout layout = Layout::Strided;
  bool requires_grad = false;

  int64_t dim() const { return static_cast<int64_t>(sizes.size()); }
  /// Product of sizes; throws ShapeError on int64 overflow.
  SymInt numel() const;
  /// Bytes this view addresses in its storage (PyTorch's compute_required_storage_length * itemsize).
  int64_t storage_nbytes() const;
  bool is_contiguous() const;
  /// 4-D NHWC-dense strides (PyTorch's is_contiguous(memory_format=torch.channels_last)).
  bool is_channels_last_contiguous() const;
  /// True when the strides describe a permutation of a contiguous block (no holes, no overlap).
  bool is_non_overlapping_and_dense() const;

  /// "f32[4, 256]": the FX annotation, without quotes.
  std::string annotation() const;

  /// Same metadata; symbolic sizes compare by simplified expression (no guard).
  friend bool operator==(const TensorMeta&, const TensorMeta&);
};

/// Row-major strides for sizes, PyTorch's make_contiguous_strides_for (size 0/1 dims use max(size,1)).
DimVector contiguous_strides(IntSpan sizes);
/// Wraps a possibly negative dim into [0, ndim); throws ShapeError naming op and values.
int64_t wrap_dim(int64_t dim, int64_t ndim, std::string_view op);
/// A contiguous TensorMeta for sizes.
TensorMeta make_contiguous(IntSpan sizes, DType dtype, Device device, bool requires_grad = false);
/// Overflow-checked multiplication used by numel and storage math.
int64_t checked_mul(int64_t a, int64_t b, std::string_view what);

}  // namespace fe
