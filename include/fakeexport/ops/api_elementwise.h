// Public API, Elementwise binary, comparison and logical ops; operator overloads.
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

// Elementwise.
Tensor add(const Tensor& self, const Tensor& other, Scalar alpha = 1, SrcLocArg loc = SrcLocArg::current());
/// `x + 2`: recorded as add.Tensor with the Python number in the Tensor slot, as PyTorch does.
Tensor add(const Tensor& self, Scalar other, Scalar alpha = 1, SrcLocArg loc = SrcLocArg::current());
Tensor mul(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor mul(const Tensor& self, Scalar other, SrcLocArg loc = SrcLocArg::current());

}  // namespace fe
