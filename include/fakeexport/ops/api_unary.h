// Public API, Unary math: exp, log, sqrt, rsqrt, sin, cos, tanh, sigmoid, erf, abs, neg, reciprocal.
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

// torch.<name>(x) and the in-place torch.<name>_(x) (returns x itself).
Tensor exp(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor exp_(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor log(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor log_(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor sqrt(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor sqrt_(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor rsqrt(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor rsqrt_(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor sin(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor sin_(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor cos(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor cos_(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor tanh(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor tanh_(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor sigmoid(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor sigmoid_(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor erf(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor erf_(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor abs(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor abs_(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor neg(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor neg_(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor reciprocal(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor reciprocal_(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
/// `-x`: records aten.neg, as PyTorch does.
Tensor operator-(TensorAt self);

}  // namespace fe
