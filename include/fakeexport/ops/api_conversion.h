// Public API, Type conversion: _to_copy, type_as (Tensor::to lives on Tensor).
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

// Conversions.
Tensor _to_copy(const Tensor& self, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());

}  // namespace fe
