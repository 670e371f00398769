// Public API, Normalization (torch.nn.functional): layer_norm, rms_norm, group_norm, batch_norm.
// Each function builds the argument list of one ATen op (as Python's arg parser would) and calls
// dispatch(); none computes metadata itself.
#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "fakeexport/core/source_location.h"
#include "fakeexport/core/tensor.h"
#include "fakeexport/ops/scalar.h"

namespace fe {

/// F.layer_norm(input, normalized_shape, weight, bias, eps); undefined weight/bias mean None.
Tensor layer_norm(const Tensor& input, const std::vector<SymInt>& normalized_shape, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5, SrcLocArg loc = SrcLocArg::current());
/// F.rms_norm(input, normalized_shape, weight, eps); eps None = machine epsilon of the input dtype.
Tensor rms_norm(const Tensor& input, const std::vector<SymInt>& normalized_shape, const Tensor& weight = {},
                std::optional<double> eps = {}, SrcLocArg loc = SrcLocArg::current());
/// F.group_norm(input, num_groups, weight, bias, eps).
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-5, SrcLocArg loc = SrcLocArg::current());
/// F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps); only
/// evaluation mode (training=false) is supported.
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight = {}, const Tensor& bias = {}, bool training = false, double momentum = 0.1,
                  double eps = 1e-5, SrcLocArg loc = SrcLocArg::current());

}  // namespace fe
