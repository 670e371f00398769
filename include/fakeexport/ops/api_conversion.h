// Public API, Type conversion: _to_copy, type_as, sym_size (Tensor::to lives on Tensor).
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
/// x.type_as(y): y's dtype and device; returns x itself when both already match (aten.type_as).
Tensor type_as(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
/// x.size(dim) as aten.sym_size.int computes it (IndexError for a bad dim or a 0-dim x).
SymInt sym_size(const Tensor& self, int64_t dim);
/// In-place writes, each returning self: x.zero_(), x.fill_(v), x.copy_(src) (src broadcasts to x, cast to x's dtype).
Tensor zero_(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor fill_(const Tensor& self, Scalar value, SrcLocArg loc = SrcLocArg::current());
Tensor fill_(const Tensor& self, const Tensor& value, SrcLocArg loc = SrcLocArg::current());
Tensor copy_(const Tensor& self, const Tensor& src, bool non_blocking = false, SrcLocArg loc = SrcLocArg::current());
/// aten.lift_fresh_copy: what torch.export records for a torch.tensor(...) constant (a contiguous copy).
Tensor lift_fresh_copy(const Tensor& self, SrcLocArg loc = SrcLocArg::current());

}  // namespace fe
