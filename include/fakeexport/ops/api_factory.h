// Public API, Factories: torch.empty/zeros/ones/full/rand/randn/arange/linspace/empty_strided/
// scalar_tensor, *_like, new_*.
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
Tensor empty_strided(Sizes size, Sizes stride, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
/// torch.scalar_tensor(s): a 0-dim tensor of the default float dtype unless o.dtype says otherwise.
Tensor scalar_tensor(Scalar s, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());

/// torch.arange(end) / (start, end) / (start, end, step): int64 when every bound is an int,
/// else the default float dtype; aten.arange / .start / .start_step.
Tensor arange(Scalar end, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor arange(Scalar start, Scalar end, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor arange(Scalar start, Scalar end, Scalar step, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor linspace(Scalar start, Scalar end, int64_t steps, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());

// x.new_empty/new_zeros/new_ones/new_full(size, ...): self's dtype and device unless given.
Tensor new_empty(const Tensor& self, Sizes size, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor new_zeros(const Tensor& self, Sizes size, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor new_ones(const Tensor& self, Sizes size, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor new_full(const Tensor& self, Sizes size, Scalar fill, TensorOptions o = {},
                SrcLocArg loc = SrcLocArg::current());

/// Seeds the generator of the reference rand/randn kernels (per thread).
void manual_seed(uint64_t seed);

}  // namespace fe
