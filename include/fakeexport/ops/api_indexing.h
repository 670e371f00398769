// Public API, Indexing: index, index_select, gather, scatter, index_put_, index_copy_, one_hot, embedding.
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

/// Advanced-indexing index list (`x[i, :, j]` is {i, std::nullopt, j}); nullopt = a full slice.
using TensorIndices = std::vector<std::optional<Tensor>>;

/// x[indices] (aten.index.Tensor). Boolean masks are data-dependent on fake tensors.
Tensor index(const Tensor& self, const TensorIndices& indices, SrcLocArg loc = SrcLocArg::current());
/// x.index_put(indices, values, accumulate) and the in-place x[indices] = values (index_put_).
Tensor index_put(const Tensor& self, const TensorIndices& indices, const Tensor& values, bool accumulate = false,
                 SrcLocArg loc = SrcLocArg::current());
Tensor index_put_(const Tensor& self, const TensorIndices& indices, const Tensor& values, bool accumulate = false,
                  SrcLocArg loc = SrcLocArg::current());

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index, SrcLocArg loc = SrcLocArg::current());
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad = false,
              SrcLocArg loc = SrcLocArg::current());
/// torch.scatter(self, dim, index, src) / torch.scatter(self, dim, index, value).
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
               SrcLocArg loc = SrcLocArg::current());
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, Scalar value, SrcLocArg loc = SrcLocArg::current());
/// x.scatter_(dim, index, src / value): in place, returns x.
Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                SrcLocArg loc = SrcLocArg::current());
Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, Scalar value,
                SrcLocArg loc = SrcLocArg::current());
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                  SrcLocArg loc = SrcLocArg::current());
Tensor index_copy_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                   SrcLocArg loc = SrcLocArg::current());
/// torch.index_add(self, dim, index, source, alpha=alpha): self + alpha * source scattered along dim
/// (repeated indices accumulate); index_add_ writes into self and returns it.
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, Scalar alpha = 1,
                 SrcLocArg loc = SrcLocArg::current());
Tensor index_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, Scalar alpha = 1,
                  SrcLocArg loc = SrcLocArg::current());

/// F.one_hot(tensor, num_classes=-1). num_classes=-1 reads the data (max + 1): a real tensor's
/// value is used, a fake tensor raises DataDependentError.
Tensor one_hot(const Tensor& self, int64_t num_classes = -1, SrcLocArg loc = SrcLocArg::current());
/// F.embedding(input, weight, padding_idx=None, ...): aten.embedding(weight, input[, padding_idx]).
/// Negative padding_idx counts from the end, as F.embedding normalises it.
Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx = std::nullopt,
                 bool scale_grad_by_freq = false, bool sparse = false, SrcLocArg loc = SrcLocArg::current());

}  // namespace fe
