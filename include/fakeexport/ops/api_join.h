// Public API, Joining, repeating and flipping: cat, stack, repeat, repeat_interleave, triu/tril, flip.
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

/// torch.cat: dtypes promoted across inputs; legacy empty 1-D tensors are skipped.
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0, SrcLocArg loc = SrcLocArg::current());
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0, SrcLocArg loc = SrcLocArg::current());
Tensor repeat(const Tensor& self, Sizes repeats, SrcLocArg loc = SrcLocArg::current());
/// aten::flip: a copy with the order of elements reversed along each of `dims`.
Tensor flip(const Tensor& self, const std::vector<int64_t>& dims, SrcLocArg loc = SrcLocArg::current());
/// repeat_interleave.self_int: every element `repeats` times along dim (flattened when dim is None).
Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim = {},
                         std::optional<int64_t> output_size = {}, SrcLocArg loc = SrcLocArg::current());
/// repeat_interleave.self_Tensor: data-dependent output size on fake tensors unless output_size is given.
Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim = {},
                         std::optional<int64_t> output_size = {}, SrcLocArg loc = SrcLocArg::current());
/// repeat_interleave.Tensor: repeat_interleave(repeats) = indices i repeated repeats[i] times.
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size = {},
                         SrcLocArg loc = SrcLocArg::current());
Tensor triu(const Tensor& self, int64_t diagonal = 0, SrcLocArg loc = SrcLocArg::current());
Tensor tril(const Tensor& self, int64_t diagonal = 0, SrcLocArg loc = SrcLocArg::current());

}  // namespace fe
