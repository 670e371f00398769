// Pieces shared by the reduction family files (reduction.cpp: dim-list reductions;
// reduction_index.cpp: max/min/arg*, topk, sort, cumsum): reduced-dim sets, output metadata
// of a reduction, and row-major element walks for the reference kernels.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "fakeexport/ops/api_reduction.h"
#include "fakeexport/ops/registry.h"
#include "ops/cpu_util.h"

namespace fe::ops {

void register_reduction_index_ops(Registry& r);

namespace red {

/// Bit d set = dim d is reduced. Ranks are far below 64.
using DimMask = uint64_t;

/// Dims of a dim-list argument: nullptr = None. Wraps each (IndexError), rejects duplicates.
/// None reduces every dim; [] reduces every dim when `empty_is_all` (sum, amax, var) and none
/// otherwise (any.dims/all.dims).
DimMask reduce_mask(std::string_view label, int64_t ndim, const std::vector<SymInt>* dims, bool empty_is_all);

/// Mask of one int dim (wrapped; IndexError when out of range). A 0-dim tensor accepts 0 and -1
/// and reduces nothing.
inline DimMask dim_mask(std::string_view label, int64_t ndim, int64_t dim) {
  const int64_t d = wrap_dim(dim, ndim, label);
  return ndim ? DimMask{1} << d : 0;
}

/// The dim list in slot i of a meta call (nullptr for None).
inline const std::vector<SymInt>* opt_dims(const MetaArgs& a, size_t i) {
  return a.is_none(i) ? nullptr : &a.int_list(i);
}
/// Same for kernel arguments.
inline const std::vector<SymInt>* opt_dims(const IValue& v) { return std::get_if<std::vector<SymInt>>(&v); }

/// How a keepdim output gets its strides. Contiguous: make_contiguous_strides_for. Unsqueezed:
/// the refs' way (contiguous result without the reduced dims, then unsqueeze), which gives a size-1
/// dim in front of a size-0 dim stride 0 instead of the contiguous rule's max(size, 1) product.
enum class KeepStrides : uint8_t { Contiguous, Unsqueezed };

/// Output of reducing `in` over `mask`: reduced dims dropped (or kept as 1 with keepdim).
TensorMeta reduced_meta(const TensorMeta& in, DimMask mask, bool keepdim, DType dtype,
                        KeepStrides ks = KeepStrides::Contiguous);

/// Mask of all dims of a rank-n tensor.
inline DimMask all_dims(int64_t n) { return n >= 64 ? ~DimMask{0} : (DimMask{1} << n) - 1; }

// ---- reference kernels

/// Storage offsets (in elements, storage offset included) of every element of m, row-major.
std::vector<int64_t> element_offsets(const TensorMeta& m);

/// Reads elements of a real tensor by storage offset as double.
struct Reader {
  explicit Reader(const Tensor& t);
  double at(int64_t off) const { return detail::load(base + off * itemsize(dtype), dtype); }
  const std::byte* base;
  DType dtype;
};

/// `v` after a round trip through dtype t (PyTorch converts the input to `dtype=` first).
double cast_to(DType t, double v);

/// Offsets of m's elements split by `mask`: `bases` walks the other dims row-major (storage
/// offset included), `within` walks the masked dims row-major relative to a base.
struct GroupOffsets {
  std::vector<int64_t> bases, within;
};
GroupOffsets split_offsets(const TensorMeta& m, DimMask mask);

/// Calls f(group, values) once per group (row-major over the dims outside `mask`), with the
/// values of the masked dims in row-major order.
template <class F>
void for_each_group(const Tensor& in, DimMask mask, F&& f) {
  const Reader r(in);
  const GroupOffsets g = split_offsets(in.meta(), mask);
  std::vector<double> vals(g.within.size());
  for (size_t i = 0; i < g.bases.size(); ++i) {
    for (size_t j = 0; j < g.within.size(); ++j) vals[j] = r.at(g.bases[i] + g.within[j]);
    f(i, vals);
  }
}

// ---- public API argument building
inline IValue dims_ivalue(std::span<const int64_t> d) { return std::vector<SymInt>(d.begin(), d.end()); }
inline IValue dims_ivalue(std::initializer_list<int64_t> d) { return dims_ivalue(std::span(d.begin(), d.size())); }
inline IValue dims_ivalue(const OptDims& d) { return d ? dims_ivalue(std::span(*d)) : IValue(None{}); }
inline IValue dtype_ivalue(std::optional<DType> t) { return t ? IValue(*t) : IValue(None{}); }
inline ValuesIndices pair_of(std::vector<Tensor> outs) { return {std::move(outs[0]), std::move(outs[1])}; }

}  // namespace red
}  // namespace fe::ops
