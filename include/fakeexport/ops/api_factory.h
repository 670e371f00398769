// Public API, Factories: torch.empty/zeros/ones/full/rand/randn/arange/linspace, *_like, new_*.
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

// Factories: device defaults to the innermost DeviceScope, dtype to the DTypeScope (float32).
Tensor empty(Sizes size, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor zeros(Sizes size, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor ones(Sizes size, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor randn(Sizes size, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor rand(Sizes size, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor full(Sizes size, Scalar fill, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor empty_like(const Tensor& t, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor zeros_like(const Tensor& t, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor ones_like(const Tensor& t, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor randn_like(const Tensor& t, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor rand_like(const Tensor& t, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor full_like(const Tensor& t, Scalar fill, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());

/// Seeds the generator of the reference rand/randn kernels (per thread).
void manual_seed(uint64_t seed);

}  // namespace fe
