// Reductions that return or order by position: max/min (whole and .dim with indices),
// argmax/argmin, topk, sort, and the cumulative sum.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <optional>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"
#include "ops/reduction_internal.h"

namespace fe {
namespace {
OpHandle op_argmax;
OpHandle op_argmin;
OpHandle op_argsort;
OpHandle op_argsort_stable;
OpHandle op_cumprod;
OpHandle op_cumsum;
OpHandle op_max;
OpHandle op_max_dim;
OpHandle op_min;
OpHandle op_min_dim;
OpHandle op_sort;
OpHandle op_sort_stable;
OpHandle op_topk;
}  // namespace
}  // namespace fe

namespace fe {
namespace ops {
namespace {
using namespace red;

// ---- meta functions
void meta_max(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  out.push(reduced_meta(x, all_dims(x.dim()), false, x.dtype));
}

// max.dim/min.dim: (values, indices); under FakeTensorMode an empty reduced dim is not an error.
void meta_max_dim(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const DimMask mask = dim_mask(label(a), x.dim(), a.to_int(1));
  out.push(reduced_meta(x, mask, a.to_bool(2), x.dtype));
  out.push(reduced_meta(x, mask, a.to_bool(2), DType::Int64));
}

// argmax/argmin: the meta registration names argmax in both ops' messages.
void meta_argmax(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const bool keepdim = a.to_bool(2);
  const std::optional<int64_t> dim = a.opt_int(1);
  if (!dim) {
    FE_CHECK(x.numel() != 0, IndexError, label(a),
             ": argmax: Expected reduction dim to be specified for input.numel() == 0.");
    out.push(reduced_meta(x, all_dims(x.dim()), keepdim, DType::Int64));
    return;
  }
  const int64_t d = wrap_dim(*dim, x.dim(), label(a));
  FE_CHECK(x.dim() == 0 || x.sizes[d] != 0, IndexError, label(a), ": argmax: Expected reduction dim ", d,
           " to have non-zero size.");
  out.push(reduced_meta(x, dim_mask(label(a), x.dim(), d), keepdim, DType::Int64));
}

void meta_topk(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const int64_t d = wrap_dim(a.to_int(2), x.dim(), label(a));
  const SymInt k = a.sym_int(1);
  FE_CHECK(k >= 0, ValueError, label(a),
           ": Expected cond to be True, but got False. (Could this error message be improved? If so, please report "
           "an enhancement request to PyTorch.)");
  const SymInt limit = x.dim() ? x.sizes[d] : SymInt(1);
  FE_CHECK(limit >= k, ValueError, label(a), ": k not in range for dimension");
  DimVector sizes = x.sizes;
  if (x.dim()) sizes[d] = k;
  out.push(make_contiguous(sizes, x.dtype, x.device));
  out.push(make_contiguous(sizes, DType::Int64, x.device));
}

// sort: the fake kernel checks no dim; outputs keep a dense input's strides.
void meta_sort(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  TensorMeta v = make_contiguous(x.sizes, x.dtype, x.device);
  v.strides = dense_or_sorted_strides(x);
  TensorMeta i = v;
  i.dtype = DType::Int64;
  // Each output's symbolic strides are computed anew (new SymInts, each read where first used:
  // a sym_stride node), even where they keep a dense input's.
  for (TensorMeta* m : {&v, &i})
    for (SymInt& s : m->strides) renew_symint(s);
  out.push(std::move(v));
  out.push(std::move(i));
}

/// argsort (CompositeImplicit): sort's indices.
void meta_argsort(const MetaArgs& a, MetaOut& out) {
  MetaOut sorted;
  meta_sort(a, sorted);
  out.push(std::move(sorted.outs[1]));
}

void meta_cumsum(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const int64_t dim = wrap_dim(a.to_int(1), x.dim(), label(a));
  const std::optional<DType> dtype = a.opt_dtype(2);
  const DType dt = dtype ? *dtype : is_integral(x.dtype, true) ? DType::Int64 : x.dtype;
  TensorMeta r = make_contiguous(x.sizes, dt, x.device);
  // The scanned dim's size is a new SymInt of the same value (PyTorch's meta computes it anew;
  // export then reads it from this output: Falcon-RW's alibi, `sym_size(cumsum, 1)`).
  if (x.dim() > 0) renew_symint(r.sizes[static_cast<size_t>(dim)]);
  out.push(std::move(r));
}

// ---- reference kernels
/// Ordering used by max/argmax/sort/topk: NaN above every number.
bool less_nan_last(double p, double q) { return !std::isnan(p) && (std::isnan(q) || p < q); }

/// Position of the first maximum (Max) or minimum; NaN wins either way, as in PyTorch.
template <bool Max>
size_t extreme_index(const std::vector<double>& v) {
  size_t best = 0;
  for (size_t j = 0; j < v.size(); ++j) {
    if (std::isnan(v[j])) return j;
    if (Max ? v[j] > v[best] : v[j] < v[best]) best = j;
  }
  return best;
}

template <bool Max>
void cpu_max(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  FE_CHECK(x.numel() != 0, ShapeError, op.label(), ": ", op.schema.name,
           "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the "
           "'dim' argument.");
  for_each_group(x, all_dims(x.dim()), [&](size_t, const std::vector<double>& v) {
    cpu::store_at(o[0], o[0].meta().storage_offset.expect_int(), v[extreme_index<Max>(v)]);
  });
}

/// Writes (value, index) of each group's extreme to outputs 0 and 1 (or only the index to output 0).
template <bool Max>
void extreme_kernel(const Tensor& x, DimMask mask, std::span<Tensor> o, bool with_values) {
  const std::vector<int64_t> offs = element_offsets(o[0].meta());
  const std::vector<int64_t> ioffs = with_values ? element_offsets(o[1].meta()) : offs;
  for_each_group(x, mask, [&](size_t g, const std::vector<double>& v) {
    const size_t j = extreme_index<Max>(v);
    if (with_values) cpu::store_at(o[0], offs[g], v[j]);
    cpu::store_at(o[with_values ? 1 : 0], ioffs[g], static_cast<double>(j));
  });
}

template <bool Max>
void cpu_max_dim(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  const int64_t d = wrap_dim(std::get<SymInt>(a[1]).expect_int(), x.dim(), op.label());
  FE_CHECK(x.dim() == 0 || x.size(d) != 0, IndexError, op.label(), ": ", op.schema.name,
           "(): Expected reduction dim ", d, " to have non-zero size.");
  extreme_kernel<Max>(x, dim_mask(op.label(), x.dim(), d), o, true);
}

template <bool Max>
void cpu_argmax(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  FE_CHECK(x.dtype() != DType::Bool, DTypeError, op.label(), ": ", op.schema.name, "(): does not support bool input");
  const auto* dim = std::get_if<SymInt>(&a[1]);
  const DimMask mask = dim ? dim_mask(op.label(), x.dim(), dim->expect_int()) : all_dims(x.dim());
  extreme_kernel<Max>(x, mask, o, false);
}

/// Writes per-group sequences (one value per position along the masked dim) to outputs.
struct GroupWriter {
  GroupWriter(const Tensor& t, DimMask mask) : t(t), g(split_offsets(t.meta(), mask)) {}
  void put(size_t group, size_t j, double v) const { cpu::store_at(t, g.bases[group] + g.within[j], v); }
  const Tensor& t;
  GroupOffsets g;
};


/// Positions of v in sorted order (NaN last; descending puts the largest first). Stable: equal
/// values keep their input order, as PyTorch's CPU sort/topk do.
void stable_order(const std::vector<double>& v, bool descending, std::vector<size_t>& order) {
  order.resize(v.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t p, size_t q) {
    return descending ? less_nan_last(v[q], v[p]) : less_nan_last(v[p], v[q]);
  });
}

void cpu_topk(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  FE_CHECK(x.dtype() != DType::Bool, DTypeError, op.label(), ": topk does not support bool dtypes on CPU");
  const int64_t k = std::get<SymInt>(a[1]).expect_int();
  const DimMask mask = dim_mask(op.label(), x.dim(), std::get<SymInt>(a[2]).expect_int());
  const bool largest = std::get<bool>(a[3]);
  const GroupWriter vals(o[0], mask), idx(o[1], mask);
  std::vector<size_t> order;
  for_each_group(x, mask, [&](size_t g, const std::vector<double>& v) {
    stable_order(v, largest, order);
    for (int64_t j = 0; j < k; ++j) {
      vals.put(g, static_cast<size_t>(j), v[order[j]]);
      idx.put(g, static_cast<size_t>(j), static_cast<double>(order[j]));
    }
  });
}

/// Writes (values, indices) to o[0] and o[1], or only the indices to o[0] (argsort).
void sort_kernel(const OpDef& op, const Tensor& x, int64_t dim, bool descending, std::span<Tensor> o) {
  const DimMask mask = dim_mask(op.label(), x.dim(), dim);
  const bool values = o.size() > 1;
  const GroupWriter idx(o[values ? 1 : 0], mask);
  const std::optional<GroupWriter> vals = values ? std::optional<GroupWriter>(std::in_place, o[0], mask) : std::nullopt;
  std::vector<size_t> order;
  for_each_group(x, mask, [&](size_t g, const std::vector<double>& v) {
    stable_order(v, descending, order);
    for (size_t j = 0; j < order.size(); ++j) {
      if (vals) vals->put(g, j, v[order[j]]);
      idx.put(g, j, static_cast<double>(order[j]));
    }
  });
}
void cpu_sort(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  sort_kernel(op, std::get<Tensor>(a[0]), std::get<SymInt>(a[1]).expect_int(), std::get<bool>(a[2]), o);
}
void cpu_sort_stable(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  sort_kernel(op, std::get<Tensor>(a[0]), std::get<SymInt>(a[2]).expect_int(), std::get<bool>(a[3]), o);
}

/// cumsum / cumprod: a running sum or product, rounded to the output dtype at each step.
template <bool Prod>
void cpu_cumulative(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  const DimMask mask = dim_mask(op.label(), x.dim(), std::get<SymInt>(a[1]).expect_int());
  const GroupWriter out(o[0], mask);
  const DType dt = o[0].dtype();
  for_each_group(x, mask, [&](size_t g, const std::vector<double>& v) {
    double acc = Prod ? 1 : 0;
    for (size_t j = 0; j < v.size(); ++j)
      out.put(g, j, acc = cast_to(dt, Prod ? acc * cast_to(dt, v[j]) : acc + cast_to(dt, v[j])));
  });
}
/// argsort / argsort.stable: sort / sort.stable with the same arguments, its indices.
template <bool kStable>
std::vector<Tensor> decomp_argsort(std::span<const IValue> a, const SrcLocArg& loc) {
  return {dispatch(kStable ? *op_sort_stable : *op_sort, {a.begin(), a.end()}, loc)[1]};
}
void cpu_argsort(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  sort_kernel(op, std::get<Tensor>(a[0]), std::get<SymInt>(a[1]).expect_int(), std::get<bool>(a[2]), o);
}
void cpu_argsort_stable(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  sort_kernel(op, std::get<Tensor>(a[0]), std::get<SymInt>(a[2]).expect_int(), std::get<bool>(a[3]), o);
}
}  // namespace

void register_reduction_index_ops(Registry& r) {
  op_max = r.add({"aten::max(Tensor self) -> Tensor", meta_max, cpu_max<true>});
  op_max_dim = r.add({"aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", meta_max_dim,
         cpu_max_dim<true>});
  op_min = r.add({"aten::min(Tensor self) -> Tensor", meta_max, cpu_max<false>});
  op_min_dim = r.add({"aten::min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", meta_max_dim,
         cpu_max_dim<false>});
  op_argmax = r.add({"aten::argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", meta_argmax, cpu_argmax<true>});
  op_argmin = r.add({"aten::argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", meta_argmax, cpu_argmax<false>});
  op_topk = r.add({"aten::topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)",
         meta_topk, cpu_topk});
  op_sort = r.add({"aten::sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)", meta_sort,
         cpu_sort});
  op_sort_stable = r.add({"aten::sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
         meta_sort, cpu_sort_stable});
  op_argsort = r.add({.schema = "aten::argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor",
                      .meta = meta_argsort, .cpu = cpu_argsort, .decomp = decomp_argsort<false>});
  op_argsort_stable = r.add({.schema = "aten::argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> Tensor",
                             .meta = meta_argsort, .cpu = cpu_argsort_stable, .decomp = decomp_argsort<true>});
  op_cumsum = r.add({"aten::cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", meta_cumsum, cpu_cumulative<false>});
  // cumprod's structured meta is cumsum's (meta_func_cum_ops); it stays whole in Core ATen programs.
  op_cumprod = r.add({"aten::cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", meta_cumsum, cpu_cumulative<true>});
}

}  // namespace ops

using ops::red::dtype_ivalue;
using ops::red::pair_of;

Tensor cumsum(const Tensor& self, int64_t dim, std::optional<DType> dtype, SrcLocArg loc) {
  return dispatch1(*op_cumsum, {self, SymInt(dim), dtype_ivalue(dtype)}, loc);
}
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<DType> dtype, SrcLocArg loc) {
  return dispatch1(*op_cumprod, {self, SymInt(dim), dtype_ivalue(dtype)}, loc);
}
Tensor max(const Tensor& self, SrcLocArg loc) {
  return dispatch1(*op_max, {self}, loc);
}
ValuesIndices max(const Tensor& self, int64_t dim, bool keepdim, SrcLocArg loc) {
  return pair_of(dispatch(*op_max_dim, {self, SymInt(dim), keepdim}, loc));
}
Tensor min(const Tensor& self, SrcLocArg loc) {
  return dispatch1(*op_min, {self}, loc);
}
ValuesIndices min(const Tensor& self, int64_t dim, bool keepdim, SrcLocArg loc) {
  return pair_of(dispatch(*op_min_dim, {self, SymInt(dim), keepdim}, loc));
}
Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim, SrcLocArg loc) {
  return dispatch1(*op_argmax, {self, dim ? IValue(SymInt(*dim)) : IValue(None{}), keepdim}, loc);
}
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim, SrcLocArg loc) {
  return dispatch1(*op_argmin, {self, dim ? IValue(SymInt(*dim)) : IValue(None{}), keepdim}, loc);
}
ValuesIndices topk(const Tensor& self, SymInt k, int64_t dim, bool largest, bool sorted, SrcLocArg loc) {
  return pair_of(dispatch(*op_topk, {self, k, SymInt(dim), largest, sorted}, loc));
}
ValuesIndices sort(const Tensor& self, int64_t dim, bool descending, SrcLocArg loc) {
  return pair_of(dispatch(*op_sort, {self, SymInt(dim), descending}, loc));
}
ValuesIndices sort(const Tensor& self, Stable stable, int64_t dim, bool descending, SrcLocArg loc) {
  return pair_of(dispatch(*op_sort_stable, {self, stable.value ? IValue(*stable.value) : IValue(None{}), SymInt(dim), descending}, loc));
}

// ---- Tensor methods
Tensor Tensor::cumsum(int64_t dim, std::optional<DType> dtype, SrcLocArg loc) const {
  return fe::cumsum(*this, dim, dtype, loc);
}
Tensor Tensor::max(SrcLocArg loc) const { return fe::max(*this, loc); }
std::pair<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim, SrcLocArg loc) const {
  return fe::max(*this, dim, keepdim, loc);
}
Tensor Tensor::min(SrcLocArg loc) const { return fe::min(*this, loc); }
std::pair<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim, SrcLocArg loc) const {
  return fe::min(*this, dim, keepdim, loc);
}
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim, SrcLocArg loc) const {
  return fe::argmax(*this, dim, keepdim, loc);
}
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim, SrcLocArg loc) const {
  return fe::argmin(*this, dim, keepdim, loc);
}
std::pair<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted, SrcLocArg loc) const {
  return fe::topk(*this, k, dim, largest, sorted, loc);
}
std::pair<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending, SrcLocArg loc) const {
  return fe::sort(*this, dim, descending, loc);
}

}  // namespace fe
