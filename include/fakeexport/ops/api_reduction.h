// Public API, Reductions: sum, mean, amax, amin, max/min, argmax, var/std, logsumexp, cumsum/cumprod, any/all,
// topk, sort.
// Each function builds the argument list of one ATen op (as Python's arg parser would) and calls
// dispatch(); none computes metadata itself.
#pragma once
#include <concepts>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "fakeexport/core/source_location.h"
#include "fakeexport/core/tensor.h"
#include "fakeexport/ops/scalar.h"

namespace fe {

/// A dim-list argument (`int[1]?`): `{0, 2}` or a std::vector; std::nullopt (Python None) = every dim.
using OptDims = std::optional<std::vector<int64_t>>;
/// `correction=` of var/std: its own type so it never competes with the `unbiased` bool.
struct Correction {
  std::optional<Scalar> value;  ///< None = 1 (Bessel's correction)
};
/// `stable=` of sort: selects aten::sort.stable (a bare bool would read as `dim`).
struct Stable {
  std::optional<bool> value;
};
/// (values, indices) of max(dim)/min(dim)/topk/sort.
using ValuesIndices = std::pair<Tensor, Tensor>;

// Sums and means. `sum(x)` records aten::sum.default; a dim list (also `{}`, which in PyTorch
// means every dim) records aten::sum.dim_IntList. `dtype` converts the input before reducing.
Tensor sum(const Tensor& self, std::optional<DType> dtype = {}, SrcLocArg loc = SrcLocArg::current());
Tensor sum(const Tensor& self, std::initializer_list<int64_t> dim, bool keepdim = false,
           std::optional<DType> dtype = {}, SrcLocArg loc = SrcLocArg::current());
Tensor sum(const Tensor& self, const OptDims& dim, bool keepdim = false, std::optional<DType> dtype = {},
           SrcLocArg loc = SrcLocArg::current());
Tensor mean(const Tensor& self, std::optional<DType> dtype = {}, SrcLocArg loc = SrcLocArg::current());
Tensor mean(const Tensor& self, std::initializer_list<int64_t> dim, bool keepdim = false,
            std::optional<DType> dtype = {}, SrcLocArg loc = SrcLocArg::current());
Tensor mean(const Tensor& self, const OptDims& dim, bool keepdim = false, std::optional<DType> dtype = {},
            SrcLocArg loc = SrcLocArg::current());
Tensor prod(const Tensor& self, std::optional<DType> dtype = {}, SrcLocArg loc = SrcLocArg::current());
Tensor prod(const Tensor& self, int64_t dim, bool keepdim = false, std::optional<DType> dtype = {},
            SrcLocArg loc = SrcLocArg::current());
/// Cumulative sum along dim (aten::cumsum); int/bool inputs give int64 unless `dtype`.
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<DType> dtype = {}, SrcLocArg loc = SrcLocArg::current());
/// Cumulative product along dim (aten::cumprod); the dtype rule of cumsum.
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<DType> dtype = {}, SrcLocArg loc = SrcLocArg::current());
/// log(sum(exp(self))) over `dim` ({} = every dim), computed stably (aten::logsumexp); int/bool
/// inputs give the default float dtype.
Tensor logsumexp(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim = false,
                 SrcLocArg loc = SrcLocArg::current());

/// torch.linalg.vector_norm(x, ord, dim, keepdim): dim nullopt = every dim.
/// torch.histc(self, bins, min, max): a [bins] histogram of the values in [min, max], self's dtype.
Tensor histc(const Tensor& self, int64_t bins = 100, Scalar min = 0, Scalar max = 0,
             SrcLocArg loc = SrcLocArg::current());
/// torch.diff(self, n, dim, prepend, append): n-th forward difference along dim (undefined
/// prepend/append: none).
Tensor diff(const Tensor& self, int64_t n = 1, int64_t dim = -1, const Tensor& prepend = Tensor(),
            const Tensor& append = Tensor(), SrcLocArg loc = SrcLocArg::current());
Tensor linalg_vector_norm(const Tensor& self, double ord = 2.0, std::optional<std::vector<int64_t>> dim = std::nullopt,
                          bool keepdim = false, SrcLocArg loc = SrcLocArg::current());

// Extremes. amax/amin reduce a dim list ({} = every dim); max/min(x) everything; max/min(x, dim)
// return (values, indices).
Tensor amax(const Tensor& self, const std::vector<int64_t>& dim = {}, bool keepdim = false,
            SrcLocArg loc = SrcLocArg::current());
Tensor amin(const Tensor& self, const std::vector<int64_t>& dim = {}, bool keepdim = false,
            SrcLocArg loc = SrcLocArg::current());
Tensor max(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
ValuesIndices max(const Tensor& self, int64_t dim, bool keepdim = false, SrcLocArg loc = SrcLocArg::current());
Tensor min(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
ValuesIndices min(const Tensor& self, int64_t dim, bool keepdim = false, SrcLocArg loc = SrcLocArg::current());
Tensor argmax(const Tensor& self, std::optional<int64_t> dim = {}, bool keepdim = false,
              SrcLocArg loc = SrcLocArg::current());
Tensor argmin(const Tensor& self, std::optional<int64_t> dim = {}, bool keepdim = false,
              SrcLocArg loc = SrcLocArg::current());

// Variance and standard deviation, as Python records them: `x.var()` and
// `x.var(dims, correction=c)` -> var.correction; `x.var(dims[, unbiased])` -> var.dim.
Tensor var(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
namespace detail {
Tensor var_all(const Tensor& self, bool unbiased, SrcLocArg loc);
Tensor std_all(const Tensor& self, bool unbiased, SrcLocArg loc);
}  // namespace detail
/// torch.var(x, unbiased) -> var.default. A template so that `var(x, {0})` still means a dim list.
template <std::same_as<bool> B>
Tensor var(const Tensor& self, B unbiased, SrcLocArg loc = SrcLocArg::current()) {
  return detail::var_all(self, unbiased, loc);
}
/// torch.std(x, unbiased) -> std.default.
template <std::same_as<bool> B>
Tensor std(const Tensor& self, B unbiased, SrcLocArg loc = SrcLocArg::current()) {
  return detail::std_all(self, unbiased, loc);
}
Tensor var(const Tensor& self, const std::vector<int64_t>& dim, bool unbiased = true, bool keepdim = false,
           SrcLocArg loc = SrcLocArg::current());
Tensor var(const Tensor& self, const OptDims& dim, Correction correction, bool keepdim = false,
           SrcLocArg loc = SrcLocArg::current());
Tensor var(const Tensor& self, std::initializer_list<int64_t> dim, Correction correction, bool keepdim = false,
           SrcLocArg loc = SrcLocArg::current());
Tensor std(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor std(const Tensor& self, const std::vector<int64_t>& dim, bool unbiased = true, bool keepdim = false,
           SrcLocArg loc = SrcLocArg::current());
Tensor std(const Tensor& self, const OptDims& dim, Correction correction, bool keepdim = false,
           SrcLocArg loc = SrcLocArg::current());
Tensor std(const Tensor& self, std::initializer_list<int64_t> dim, Correction correction, bool keepdim = false,
           SrcLocArg loc = SrcLocArg::current());

// any/all: `any(x)` everything, `any(x, 1)` one dim (any.dim), `any(x, {0, 1})` a dim list
// (any.dims; `{}` reduces nothing, as in PyTorch). Result bool (uint8 for uint8 inputs).
Tensor any(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor any(const Tensor& self, int64_t dim, bool keepdim = false, SrcLocArg loc = SrcLocArg::current());
Tensor any(const Tensor& self, std::initializer_list<int64_t> dim, bool keepdim = false,
           SrcLocArg loc = SrcLocArg::current());
Tensor any(const Tensor& self, const OptDims& dim, bool keepdim = false, SrcLocArg loc = SrcLocArg::current());
Tensor all(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor all(const Tensor& self, int64_t dim, bool keepdim = false, SrcLocArg loc = SrcLocArg::current());
Tensor all(const Tensor& self, std::initializer_list<int64_t> dim, bool keepdim = false,
           SrcLocArg loc = SrcLocArg::current());
Tensor all(const Tensor& self, const OptDims& dim, bool keepdim = false, SrcLocArg loc = SrcLocArg::current());

// Ordering.
ValuesIndices topk(const Tensor& self, SymInt k, int64_t dim = -1, bool largest = true, bool sorted = true,
                   SrcLocArg loc = SrcLocArg::current());
ValuesIndices sort(const Tensor& self, int64_t dim = -1, bool descending = false, SrcLocArg loc = SrcLocArg::current());
/// `torch.sort(x, stable=True, ...)`: aten::sort.stable.
ValuesIndices sort(const Tensor& self, Stable stable, int64_t dim = -1, bool descending = false,
                   SrcLocArg loc = SrcLocArg::current());

}  // namespace fe
