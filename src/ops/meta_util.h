// Shared pieces of meta functions: broadcasting, elementwise result dtype, layout of new outputs.
#pragma once
#include <initializer_list>
#include <span>
#include <string>

#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/ops/registry.h"

namespace fe::ops {

/// "aten::linear": the prefix of every error message an op raises.
inline std::string label(const MetaArgs& a) { return a.op().schema.ns + "::" + a.op().schema.name; }

/// Broadcast shape of a and b (torch.broadcast_shapes); ShapeError with FakeTensorMode's text
/// ("Attempting to broadcast a dimension of length 4 at -1! ...") then eager's.
DimVector broadcast_shapes(const MetaArgs& a, IntSpan x, IntSpan y);
/// Same over several shapes; the message names the index of the first mismatching shape.
DimVector broadcast_shapes(const MetaArgs& a, std::initializer_list<IntSpan> shapes);
DimVector broadcast_shapes(const MetaArgs& a, std::span<const IntSpan> shapes);

/// Output of an elementwise op over tensor/number (or None, skipped) arguments at `idx`: broadcast sizes, promoted
/// dtype, device of the tensors (the device rule already ran), strides following the first
/// full-size dense input's layout (TensorIterator's choice for the common cases) else contiguous.
TensorMeta elementwise_meta(const MetaArgs& a, std::initializer_list<size_t> idx);

/// Strides TensorIterator gives a freshly allocated output of `shape` (already broadcast) computed
/// from `ins`: its fast setup (all inputs same shape and contiguous / channels-last / equally
/// strided), else its stride-sorted dimension order. `wrapped_numbers` counts Python-number
/// operands (0-dim tensors to TensorIterator), which disable the fast setup.
DimVector iter_output_strides(IntSpan shape, std::span<const TensorMeta* const> ins, int wrapped_numbers = 0);

/// Channels-last (NHWC) strides for 4-D sizes.
DimVector channels_last_strides(IntSpan sizes);

/// Strides a `preserve_format` copy of `m` gets: m's own when non-overlapping and dense, else contiguous.
DimVector preserved_strides(const TensorMeta& m);

/// "[4, 128]" for messages.
std::string shape_str(IntSpan s);

}  // namespace fe::ops
