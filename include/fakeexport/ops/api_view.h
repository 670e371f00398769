// Public API, Views and shape ops: view, reshape, permute, transpose, expand, squeeze, slice, split, ...
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

// Reshaping views (aten::view / reshape / _unsafe_view / flatten.using_ints / unflatten.int).
Tensor view(const Tensor& self, Sizes size, SrcLocArg loc = SrcLocArg::current());
/// A view when PyTorch's computeStride allows one, else a contiguous copy.
Tensor reshape(const Tensor& self, Sizes shape, SrcLocArg loc = SrcLocArg::current());
Tensor _unsafe_view(const Tensor& self, Sizes size, SrcLocArg loc = SrcLocArg::current());
Tensor flatten(const Tensor& self, int64_t start_dim = 0, int64_t end_dim = -1, SrcLocArg loc = SrcLocArg::current());
Tensor unflatten(const Tensor& self, int64_t dim, Sizes sizes, SrcLocArg loc = SrcLocArg::current());

// Dim permutations and broadcasting views.
Tensor permute(const Tensor& self, std::vector<int64_t> dims, SrcLocArg loc = SrcLocArg::current());
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1, SrcLocArg loc = SrcLocArg::current());
Tensor expand(const Tensor& self, Sizes size, bool implicit = false, SrcLocArg loc = SrcLocArg::current());
/// torch.broadcast_to: expand under its own name (CompositeImplicit; decomposes to expand).
Tensor broadcast_to(const Tensor& self, Sizes size, SrcLocArg loc = SrcLocArg::current());
Tensor expand_as(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor unsqueeze(const Tensor& self, int64_t dim, SrcLocArg loc = SrcLocArg::current());
Tensor squeeze(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor squeeze(const Tensor& self, int64_t dim, SrcLocArg loc = SrcLocArg::current());
Tensor squeeze(const Tensor& self, std::vector<int64_t> dims, SrcLocArg loc = SrcLocArg::current());

// Copies and aliases.
/// `self` itself when already contiguous in `memory_format`, else a copy.
Tensor contiguous(const Tensor& self, MemoryFormat memory_format = MemoryFormat::Contiguous,
                  SrcLocArg loc = SrcLocArg::current());
Tensor clone(const Tensor& self, std::optional<MemoryFormat> memory_format = {}, SrcLocArg loc = SrcLocArg::current());
Tensor alias(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
/// A view of `self` that does not require grad (aten::detach).
Tensor detach(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
/// In-place detach; returns `self` (torch.export records it after lift_fresh_copy for constants).
Tensor detach_(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor as_strided(const Tensor& self, Sizes size, Sizes stride, std::optional<int64_t> storage_offset = {},
                  SrcLocArg loc = SrcLocArg::current());

// Indexing-like views (torch.slice's None start/end are recorded as None; see Tensor::slice).
Tensor slice(const Tensor& self, int64_t dim = 0, std::optional<int64_t> start = {}, std::optional<int64_t> end = {},
             int64_t step = 1, SrcLocArg loc = SrcLocArg::current());
Tensor select(const Tensor& self, int64_t dim, int64_t index, SrcLocArg loc = SrcLocArg::current());
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length, SrcLocArg loc = SrcLocArg::current());
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim = 0, SrcLocArg loc = SrcLocArg::current());
/// torch.split with a list of sizes: aten::split_with_sizes.
std::vector<Tensor> split(const Tensor& self, Sizes split_sizes, int64_t dim = 0, SrcLocArg loc = SrcLocArg::current());
std::vector<Tensor> split_with_sizes(const Tensor& self, Sizes split_sizes, int64_t dim = 0,
                                     SrcLocArg loc = SrcLocArg::current());
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim = 0, SrcLocArg loc = SrcLocArg::current());
std::vector<Tensor> unbind(const Tensor& self, int64_t dim = 0, SrcLocArg loc = SrcLocArg::current());

}  // namespace fe
