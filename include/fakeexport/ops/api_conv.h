// Public API, Convolution and pooling (torch.nn.functional): conv1d, conv2d, max_pool2d, avg_pool2d, ...
// Each function builds the argument list of one ATen op (as Python's arg parser would) and calls
// dispatch(); none computes metadata itself.
#pragma once
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "fakeexport/core/source_location.h"
#include "fakeexport/core/tensor.h"
#include "fakeexport/ops/scalar.h"

namespace fe {

/// A conv `padding` argument: ints (`{1, 1}`) or a mode string (`"same"` / `"valid"`), as F.conv2d
/// accepts; a string selects the `.padding` overload of the ATen op.
struct ConvPadding {
  ConvPadding(std::initializer_list<SymInt> v) : ints(v) {}  // NOLINT: implicit like a Python list
  ConvPadding(const Sizes& v) : ints(v) {}                    // NOLINT
  ConvPadding(const char* m) : mode(m) {}                      // NOLINT
  ConvPadding(std::string_view m) : mode(std::string(m)) {}    // NOLINT
  Sizes ints;
  std::optional<std::string> mode;
};

/// F.conv1d -> aten::conv1d (int padding) or aten::conv1d.padding ("same" / "valid").
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), const Sizes& stride = {1},
              const ConvPadding& padding = {0}, const Sizes& dilation = {1}, int64_t groups = 1,
              SrcLocArg loc = SrcLocArg::current());
/// F.conv2d -> aten::conv2d (int padding) or aten::conv2d.padding ("same" / "valid").
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), const Sizes& stride = {1, 1},
              const ConvPadding& padding = {0, 0}, const Sizes& dilation = {1, 1}, int64_t groups = 1,
              SrcLocArg loc = SrcLocArg::current());
/// torch.convolution -> aten::convolution (every argument explicit, as in the ATen schema).
Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias, const Sizes& stride,
                   const Sizes& padding, const Sizes& dilation, bool transposed, const Sizes& output_padding,
                   int64_t groups, SrcLocArg loc = SrcLocArg::current());

/// F.max_pool2d -> aten::max_pool2d; an empty stride means stride = kernel_size.
Tensor max_pool2d(const Tensor& input, const Sizes& kernel_size, const Sizes& stride = {},
                  const Sizes& padding = {0, 0}, const Sizes& dilation = {1, 1}, bool ceil_mode = false,
                  SrcLocArg loc = SrcLocArg::current());
/// F.max_pool2d(..., return_indices=True) -> aten::max_pool2d_with_indices: (values, int64 indices).
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const Sizes& kernel_size,
                                                   const Sizes& stride = {}, const Sizes& padding = {0, 0},
                                                   const Sizes& dilation = {1, 1}, bool ceil_mode = false,
                                                   SrcLocArg loc = SrcLocArg::current());
/// F.avg_pool2d -> aten::avg_pool2d.
Tensor avg_pool2d(const Tensor& input, const Sizes& kernel_size, const Sizes& stride = {},
                  const Sizes& padding = {0, 0}, bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt, SrcLocArg loc = SrcLocArg::current());
/// F.adaptive_avg_pool2d -> aten::adaptive_avg_pool2d.
Tensor adaptive_avg_pool2d(const Tensor& input, const Sizes& output_size, SrcLocArg loc = SrcLocArg::current());

}  // namespace fe
