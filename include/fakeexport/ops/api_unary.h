// Public API, Unary math: the ops of fakeexport/ops/unary_list.h.
// Each function builds the argument list of one ATen op (as Python's arg parser would) and calls
// dispatch(); none computes metadata itself.
#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "fakeexport/core/source_location.h"
#include "fakeexport/core/tensor.h"
#include "fakeexport/ops/scalar.h"
#include "fakeexport/ops/unary_list.h"

namespace fe {

// torch.<name>(x) and the in-place torch.<name>_(x) (returns x itself), for every op of FE_UNARY_OPS.
#define FE_UNARY_DECL(name, ...)                                         \
  Tensor name(const Tensor& self, SrcLocArg loc = SrcLocArg::current()); \
  Tensor name##_(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
FE_UNARY_OPS(FE_UNARY_DECL)
#undef FE_UNARY_DECL
/// `-x`: records aten.neg, as PyTorch does.
Tensor operator-(TensorAt self);

}  // namespace fe
