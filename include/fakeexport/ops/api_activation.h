// Public API, Activations (torch.nn.functional): relu, gelu, silu, softmax, log_softmax, dropout.
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

Tensor relu(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
/// F.gelu; approximate is "none" or "tanh".
Tensor gelu(const Tensor& self, std::string_view approximate = "none", SrcLocArg loc = SrcLocArg::current());

}  // namespace fe
