// Indexing along one dim: index_select, gather, scatter(_), index_copy(_), index_add(_), plus one_hot and
// embedding. Checks and messages follow the meta functions FakeTensorMode runs
// (torch/_meta_registrations.py, torch/_decomp/decompositions.py in PyTorch 2.14).
#include <algorithm>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include <cmath>
#include "ops/indexing_impl.h"
#include "ops/elementwise.h"
#include "ops/families.h"

namespace fe {
namespace {
OpHandle op_embedding;
OpHandle op_gather;
OpHandle op_index_add;
OpHandle op_index_add_;
OpHandle op_index_copy;
OpHandle op_index_copy_;
OpHandle op_index_select;
OpHandle op_one_hot;
OpHandle op_scatter_inplace_src;
OpHandle op_scatter_inplace_value;
OpHandle op_scatter_src;
OpHandle op_scatter_value;
}  // namespace
}  // namespace fe

namespace fe {
namespace ops {
namespace {

using idx::torch_size;

SymInt nonempty_size(const TensorMeta& t, int64_t d) { return t.dim() == 0 ? SymInt(1) : t.sizes[d]; }
int64_t nonempty_dim(const TensorMeta& t) { return std::max<int64_t>(t.dim(), 1); }
bool is_index_dtype(DType t) { return t == DType::Int64 || t == DType::Int32; }

// index_select(self, dim, index): the meta assigns result_size[dim] as a Python list does.
void meta_index_select(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const int64_t dim = a.to_int(1);
  const TensorMeta& index = a.tensor(2);
  DimVector sizes = self.sizes;
  if (self.dim() > 0) {
    FE_CHECK(dim >= -self.dim() && dim < self.dim(), IndexError, label(a), ": list assignment index out of range");
    sizes[dim < 0 ? dim + self.dim() : dim] = index.numel();
  }
  out.push(make_contiguous(sizes, self.dtype, self.device));
}

// gather(self, dim, index, sparse_grad): result has index's shape.
void meta_gather(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const TensorMeta& index = a.tensor(2);
  const int64_t dim = wrap_dim(a.to_int(1), self.dim(), label(a));
  if (index.numel() != 0) {
    FE_CHECK(is_index_dtype(index.dtype), DTypeError, label(a),
             ": gather(): Expected dtype int32/int64 for index, but got torch.", dtype_name(index.dtype));
    FE_CHECK(nonempty_dim(self) == nonempty_dim(index), ShapeError, label(a),
             ": Index tensor must have the same number of dimensions as input tensor");
    for (int64_t i = 0; i < nonempty_dim(self); ++i)
      FE_CHECK(i == dim || nonempty_size(index, i) <= nonempty_size(self, i), ShapeError, label(a),
               ": Size does not match at dimension ", i, " expected index ", torch_size(index.sizes),
               " to be no larger than self ", torch_size(self.sizes), " apart from dimension ", dim);
  }
  out.push(make_contiguous(index.sizes, self.dtype, self.device));
}

/// scatter_meta_impl: dim, index dtype, src dtype and the index-vs-self/src size checks.
void check_scatter(const MetaArgs& a) {
  const TensorMeta& self = a.tensor(0);
  const TensorMeta& index = a.tensor(2);
  const TensorMeta* src = a.is_tensor(3) ? &a.tensor(3) : nullptr;
  const int64_t dim = wrap_dim(a.to_int(1), self.dim(), label(a));
  const bool empty = index.numel() == 0;
  FE_CHECK(empty || is_index_dtype(index.dtype), DTypeError, label(a), ": scatter(): Expected dtype int32/int64 for index");
  FE_CHECK(!src || src->dtype == self.dtype, DTypeError, label(a),
           ": scatter(): Expected self.dtype to be equal to src.dtype");
  if (empty) return;
  FE_CHECK(nonempty_dim(self) == nonempty_dim(index), ShapeError, label(a),
           ": Index tensor must have the same number of dimensions as self tensor");
  for (int64_t d = 0; d < nonempty_dim(self); ++d)
    FE_CHECK(d == dim || nonempty_size(index, d) <= nonempty_size(self, d), ShapeError, label(a), ": Expected index ",
             torch_size(index.sizes), " to be no larger than self ", torch_size(self.sizes), " apart from dimension ",
             dim);
  if (!src) return;
  FE_CHECK(nonempty_dim(self) == nonempty_dim(*src), ShapeError, label(a),
           ": Index tensor must have the same number of dimensions as src tensor");
  for (int64_t d = 0; d < nonempty_dim(self); ++d)
    FE_CHECK(nonempty_size(index, d) <= nonempty_size(*src, d), ShapeError, label(a), ": Expected index ",
             torch_size(index.sizes), " to be no larger than src ", torch_size(src->sizes));
}
void meta_scatter(const MetaArgs& a, MetaOut& out) {
  check_scatter(a);
  const TensorMeta& self = a.tensor(0);
  out.push(make_contiguous(self.sizes, self.dtype, self.device));
}
void meta_scatter_(const MetaArgs& a, MetaOut& out) {
  check_scatter(a);
  out.push(a.tensor(0));
}

/// torch._refs' _index_copy_impl: x.index_put((None,) * dim + (index,), source) (index_put_ in
/// place), a 0-d x as [1].
template <bool kInPlace>
std::vector<Tensor> decomp_index_copy(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  int64_t dim = std::get<SymInt>(a[1]).expect_int();
  if (dim < 0) dim += std::max<int64_t>(x.dim(), 1);
  const Tensor target = x.dim() == 0 ? fe::unsqueeze(x, 0, loc) : x;
  TensorIndices idx(static_cast<size_t>(dim));
  idx.emplace_back(decomp_tensor(a, 2));
  if (kInPlace) {
    fe::index_put_(target, idx, decomp_tensor(a, 3), false, loc);
    return {x};
  }
  const Tensor out = fe::index_put(target, idx, decomp_tensor(a, 3), false, loc);
  return {x.dim() == 0 ? fe::squeeze(out, 0, loc) : out};
}

/// The index_copy decomposition's checks; returns the wrapped dim.
int64_t check_index_copy(const MetaArgs& a) {
  const TensorMeta& self = a.tensor(0);
  const TensorMeta& index = a.tensor(2);
  const TensorMeta& src = a.tensor(3);
  const int64_t dim = wrap_dim(a.to_int(1), self.dim(), label(a));
  FE_CHECK(index.dim() <= 1, ShapeError, label(a), ": Index should have dimension 1 or 0 (got ", index.dim(), ")");
  const SymInt n = index.numel();
  if (src.dim() == 0)
    FE_CHECK(n == 1, ShapeError, label(a), ": index_copy_(): When source is scalar, index should have one element (got ",
             n, ")");
  else if (self.dim() != 0)
    FE_CHECK(src.dim() == self.dim(), ShapeError, label(a),
             ": index_copy_(): When source and destination are not scalars, their dimensionality must match. "
             "Source dimensionality (", src.dim(), "), destination dimensionality (", self.dim(), ")");
  auto sliced = [dim](const TensorMeta& t) {
    DimVector s;
    for (int64_t d = 0; d < t.dim(); ++d)
      if (d != dim) s.push_back(t.sizes[d]);
    return s;
  };
  const DimVector xs = sliced(self), ts = sliced(src);
  FE_CHECK(xs == ts, ShapeError, label(a),
           ": index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: ",
           torch_size(xs), " at dimension ", dim, " and source slice shape: ", torch_size(ts), " at dimension 0.");
  if (src.dim() != 0)
    FE_CHECK(n == src.sizes[dim], ShapeError, label(a), ": index_copy_(): Number of indices (", n,
             ") should be equal to source.size(dim) (", src.sizes[dim], ")");
  return dim;
}
void meta_index_copy(const MetaArgs& a, MetaOut& out) {
  check_index_copy(a);
  const TensorMeta& self = a.tensor(0);
  out.push(make_contiguous(self.sizes, self.dtype, self.device));
}
void meta_index_copy_(const MetaArgs& a, MetaOut& out) {
  check_index_copy(a);
  out.push(a.tensor(0));
}

// one_hot(self, num_classes): on fake tensors `self.unsqueeze(-1) == arange(num_classes)` cast to
// int64, so the result takes the comparison's TensorIterator strides.
void meta_one_hot(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const int64_t n = a.to_int(1);
  FE_CHECK(self.dtype == DType::Int64, DTypeError, label(a),
           ": one_hot is only applicable to index tensor of type LongTensor.");
  FE_CHECK(n != -1, DataDependentError, label(a),
           ": aten._local_scalar_dense.default: num_classes=-1 infers the class count from the data (max + 1); "
           "pass num_classes explicitly");
  FE_CHECK(n >= 0, ValueError, label(a), ": upper bound and lower bound inconsistent with step sign");
  TensorMeta unsq = self, classes = make_contiguous(DimVector{SymInt(n)}, DType::Int64, self.device);
  unsq.sizes.push_back(1);
  unsq.strides.push_back(1);
  DimVector shape = self.sizes;
  shape.push_back(n);
  TensorMeta m = make_contiguous(shape, DType::Int64, self.device);
  const TensorMeta* ins[] = {&unsq, &classes};
  // An empty result keeps contiguous strides (as eager's TensorIterator allocates it).
  if (m.numel() != 0) m.strides = iter_output_strides(shape, ins);
  out.push(std::move(m));
}

// embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse): rows of weight.
void meta_embedding(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& w = a.tensor(0);
  const TensorMeta& indices = a.tensor(1);
  FE_CHECK(w.dim() == 2, ShapeError, label(a), ": 'weight' must be 2-D, got ", w.dim(), "-D");
  FE_CHECK(is_index_dtype(indices.dtype), DTypeError, label(a),
           ": Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
           "but got torch.", dtype_name(indices.dtype), " instead");
  DimVector shape = indices.sizes;
  shape.push_back(w.sizes[1]);
  out.push(make_contiguous(shape, w.dtype, w.device));
}

// ---- reference kernels
using Ix = std::vector<int64_t>;

int64_t index_at(const Tensor& index, const Ix& i) {
  return static_cast<int64_t>(idx::at(index, i));
}

void cpu_index_select(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& self = std::get<Tensor>(a[0]);
  const Tensor& index = std::get<Tensor>(a[2]);
  std::vector<int64_t> iv;
  idx::for_each_index(index.sizes(), [&](const Ix& i) { iv.push_back(index_at(index, i)); });
  const int64_t dim = self.dim() == 0 ? 0 : (std::get<SymInt>(a[1]).expect_int() + self.dim()) % self.dim();
  idx::for_each_index(o[0].sizes(), [&](const Ix& i) {
    Ix s = i;
    if (self.dim() > 0) s[dim] = idx::wrap_index("aten::index_select", static_cast<double>(iv[i[dim]]), self.size(dim).expect_int());
    idx::store(o[0], idx::offset_of(o[0], i), idx::at(self, s));
  });
}

void cpu_gather(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& self = std::get<Tensor>(a[0]);
  const Tensor& index = std::get<Tensor>(a[2]);
  const int64_t dim = wrap_dim(std::get<SymInt>(a[1]).expect_int(), self.dim(), "aten::gather");
  idx::for_each_index(index.sizes(), [&](const Ix& i) {
    Ix s = i;
    if (self.dim() > 0) s[dim] = idx::wrap_index("aten::gather", static_cast<double>(index_at(index, i)), self.size(dim).expect_int());
    else s.clear();
    idx::store(o[0], idx::offset_of(o[0], i), idx::at(self, s));
  });
}

/// Writes src (tensor or number) at index positions along dim of target.
void scatter_into(const Tensor& target, std::span<const IValue> a) {
  const Tensor& index = std::get<Tensor>(a[2]);
  const int64_t dim = wrap_dim(std::get<SymInt>(a[1]).expect_int(), target.dim(), "aten::scatter");
  const Tensor* src = std::get_if<Tensor>(&a[3]);
  const double value = src ? 0.0 : cpu::number_of(a[3]);
  idx::for_each_index(index.sizes(), [&](const Ix& i) {
    Ix t = i;
    if (target.dim() > 0)
      t[dim] = idx::wrap_index("aten::scatter", static_cast<double>(index_at(index, i)), target.size(dim).expect_int());
    else t.clear();
    Ix s = i;
    if (src && src->dim() == 0) s.clear();
    idx::store(target, idx::offset_of(target, t), src ? idx::at(*src, s) : value);
  });
}
void cpu_scatter(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  idx::copy_into(o[0], std::get<Tensor>(a[0]));
  scatter_into(o[0], a);
}
void cpu_scatter_(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  idx::check_no_overlap("aten::scatter_", o[0]);
  scatter_into(o[0], a);
}

/// target[..., index[k], ...] = source[..., k, ...] along dim (source broadcast like index_put).
void index_copy_into(const Tensor& target, std::span<const IValue> a) {
  const Tensor& index = std::get<Tensor>(a[2]);
  const Tensor& src = std::get<Tensor>(a[3]);
  const int64_t dim = wrap_dim(std::get<SymInt>(a[1]).expect_int(), target.dim(), "aten::index_copy");
  std::vector<int64_t> iv;
  idx::for_each_index(index.sizes(), [&](const Ix& i) { iv.push_back(index_at(index, i)); });
  DimVector result = target.dim() == 0 ? DimVector{SymInt(1)} : DimVector(target.sizes());
  result[dim] = static_cast<int64_t>(iv.size());
  const size_t lead = result.size() - std::min<size_t>(result.size(), src.dim());
  idx::for_each_index(result, [&](const Ix& r) {
    Ix t = r;
    t[dim] = idx::wrap_index("aten::index_copy", static_cast<double>(iv[r[dim]]), target.dim() == 0 ? 1 : target.size(dim).expect_int());
    if (target.dim() == 0) t.clear();
    Ix s(src.dim());
    for (int64_t d = 0; d < src.dim(); ++d) s[d] = src.size(d) == 1 ? 0 : r[lead + d];
    idx::store(target, idx::offset_of(target, t), idx::at(src, s));
  });
}
void cpu_index_copy(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  idx::copy_into(o[0], std::get<Tensor>(a[0]));
  index_copy_into(o[0], a);
}
void cpu_index_copy_(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  idx::check_no_overlap("aten::index_copy_", o[0]);
  index_copy_into(o[0], a);
}

void cpu_one_hot(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& self = std::get<Tensor>(a[0]);
  idx::for_each_index(o[0].sizes(), [&](const Ix& i) {
    const Ix s(i.begin(), i.end() - 1);
    idx::store(o[0], idx::offset_of(o[0], i), index_at(self, s) == i.back() ? 1.0 : 0.0);
  });
}

void cpu_embedding(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& w = std::get<Tensor>(a[0]);
  const Tensor& indices = std::get<Tensor>(a[1]);
  idx::for_each_index(o[0].sizes(), [&](const Ix& i) {
    const Ix s(i.begin(), i.end() - 1);
    const int64_t row = idx::wrap_index("aten::embedding", static_cast<double>(index_at(indices, s)), w.size(0).expect_int());
    idx::store(o[0], idx::offset_of(o[0], i), idx::at(w, Ix{row, i.back()}));
  });
}


// ---- index_add(self, dim, index, source, *, alpha): the decomposition's checks, then
// index_put(accumulate=True); index_add returns a contiguous tensor, index_add_ self.
void meta_index_add(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const TensorMeta& index = a.tensor(2);
  ew::require_tensor(a, 3);
  const TensorMeta& src = a.tensor(3);
  const int64_t dim = wrap_dim(a.to_int(1), self.dim(), label(a));
  FE_CHECK(index.dim() <= 1, ShapeError, label(a), ": Index should have dimension 1 or 0 (got ", index.dim(), ")");
  const SymInt n = index.dim() == 1 ? index.sizes[0] : SymInt(1);
  const SymInt m = src.dim() > 0 ? src.sizes[std::min<int64_t>(dim, src.dim() - 1)] : SymInt(1);
  FE_CHECK(n == m, ShapeError, label(a), ": Number of indices (", n, ") should be equal to tensor.size(dim) (", m,
           "), for dim=", dim);
  if (!(a.is_int(4) && a.to_int(4) == 1) && !(a.scalar_category(4) == TypeCategory::Bool && a.to_bool(4))) {
    const DType t = self.dtype;
    const TypeCategory self_c =
        t == DType::Bool ? TypeCategory::Bool : is_floating(t) ? TypeCategory::Floating : TypeCategory::Integral;
    const TypeCategory v = a.scalar_category(4);
    auto py = [](TypeCategory c) { return c == TypeCategory::Bool ? "bool" : c == TypeCategory::Integral ? "int" : "float"; };
    FE_CHECK(self_c == TypeCategory::Bool || static_cast<int>(v) <= static_cast<int>(self_c), ValueError, label(a),
             ": alpha argument of type <class '", py(v), "'> cannot be safely cast to type <class '", py(self_c), "'>!");
  }
  if (a.op().inplace) {
    out.push(self);
  } else {
    out.push(make_contiguous(self.sizes, self.dtype, self.device));
  }
}

/// target[..., index[k], ...] += alpha * source[..., k, ...] along dim (source broadcast).
void index_add_into(const Tensor& target, std::span<const IValue> a) {
  const Tensor& index = std::get<Tensor>(a[2]);
  const Tensor& src = std::get<Tensor>(a[3]);
  const double alpha = cpu::number_of(a[4]);
  const int64_t dim = wrap_dim(std::get<SymInt>(a[1]).expect_int(), target.dim(), "aten::index_add");
  std::vector<int64_t> iv;
  idx::for_each_index(index.sizes(), [&](const Ix& i) { iv.push_back(index_at(index, i)); });
  DimVector result = target.dim() == 0 ? DimVector{SymInt(1)} : DimVector(target.sizes());
  result[dim] = static_cast<int64_t>(iv.size());
  const size_t lead = result.size() - std::min<size_t>(result.size(), src.dim());
  const bool is_bool = target.dtype() == DType::Bool;
  idx::for_each_index(result, [&](const Ix& r) {
    Ix t = r;
    t[dim] = idx::wrap_index("aten::index_add", static_cast<double>(iv[r[dim]]), target.dim() == 0 ? 1 : target.size(dim).expect_int());
    if (target.dim() == 0) t.clear();
    Ix s(src.dim());
    for (int64_t d = 0; d < src.dim(); ++d) s[d] = src.size(d) == 1 ? 0 : r[lead + d];
    const int64_t off = idx::offset_of(target, t);
    const double v = idx::at(target, t) + alpha * idx::at(src, s);
    idx::store(target, off, is_bool ? double(v != 0) : v);
  });
}
/// torch._decomp's _index_add: source * alpha unless alpha is 1, then index_put(accumulate=True) with
/// the index at `dim` (None before it); a 0-dim self as [1] and back.
template <bool kInPlace>
std::vector<Tensor> decomp_index_add(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  int64_t dim = std::get<SymInt>(a[1]).expect_int();
  if (dim < 0) dim += std::max<int64_t>(x.dim(), 1);
  Tensor src = decomp_tensor(a, 3);
  if (cpu::number_of(a[4]) != 1.0) src = dispatch1(*op_mul_Tensor, {src, a[4]}, loc);
  const Tensor target = x.dim() == 0 ? fe::unsqueeze(x, 0, loc) : x;
  TensorIndices idx(static_cast<size_t>(dim));
  idx.emplace_back(decomp_tensor(a, 2));
  if (kInPlace) {
    fe::index_put_(target, idx, src, true, loc);
    return {x};
  }
  const Tensor out = fe::index_put(target, idx, src, true, loc);
  return {x.dim() == 0 ? fe::squeeze(out, 0, loc) : out};
}

/// one_hot (torch._decomp, CompositeImplicit): _assert_async.msg of all(self >= 0) and of
/// all(self < num_classes), then (self.unsqueeze(-1) == arange(num_classes, self's dtype)).to(int64).
/// num_classes=-1 reads the data (max() + 1): kept as one_hot.
std::vector<Tensor> decomp_one_hot(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  const int64_t classes = std::get<SymInt>(a[1]).expect_int();
  if (classes == -1) return undecomposed(*op_one_hot, a, loc);
  dispatch(*op_assert_async_msg,
           {fe::all(fe::ge(x, SymInt(0), loc), loc), std::string("one_hot: Class values must be non-negative.")}, loc);
  dispatch(*op_assert_async_msg, {fe::all(fe::lt(x, SymInt(classes), loc), loc),
                                  std::string("one_hot: Class values must be smaller than num_classes.")},
           loc);
  const Tensor col = fe::unsqueeze(x, -1, loc);  // recorded before the arange, as Python evaluates
  const Tensor eq = fe::eq(col, fe::arange(SymInt(classes), {.dtype = x.dtype(), .device = x.device()}, loc), loc);
  return {dispatch1(*op_to_dtype, {eq, DType::Int64, false, false, None{}}, loc)};
}

void cpu_index_add(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  idx::copy_into(o[0], std::get<Tensor>(a[0]));
  index_add_into(o[0], a);
}
void cpu_index_add_(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  idx::check_no_overlap("aten::index_add_", o[0]);
  index_add_into(o[0], a);
}

}  // namespace

void register_indexing_select_ops(Registry& r) {
  op_index_add = r.add({.schema = "aten::index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor",
                        .meta = meta_index_add, .cpu = cpu_index_add, .decomp = decomp_index_add<false>});
  op_index_add_ = r.add({.schema = "aten::index_add_(Tensor(a!) self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor(a!)",
                         .meta = meta_index_add, .cpu = cpu_index_add_, .decomp = decomp_index_add<true>});
  op_index_select = r.add({"aten::index_select(Tensor self, int dim, Tensor index) -> Tensor", meta_index_select, cpu_index_select});
  op_gather = r.add({"aten::gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor", meta_gather, cpu_gather});
  op_scatter_src = r.add({"aten::scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", meta_scatter, cpu_scatter});
  op_scatter_value = r.add({"aten::scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor", meta_scatter, cpu_scatter});
  op_scatter_inplace_src = r.add({"aten::scatter_.src(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)", meta_scatter_,
         cpu_scatter_});
  op_scatter_inplace_value = r.add({"aten::scatter_.value(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)", meta_scatter_,
         cpu_scatter_});
  op_index_copy = r.add({.schema = "aten::index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor",
                         .meta = meta_index_copy, .cpu = cpu_index_copy, .decomp = decomp_index_copy<false>});
  op_index_copy_ = r.add({.schema = "aten::index_copy_(Tensor(a!) self, int dim, Tensor index, Tensor source) -> Tensor(a!)",
                          .meta = meta_index_copy_, .cpu = cpu_index_copy_, .decomp = decomp_index_copy<true>});
  op_one_hot = r.add({.schema = "aten::one_hot(Tensor self, int num_classes=-1) -> Tensor", .meta = meta_one_hot,
                      .cpu = cpu_one_hot, .decomp = decomp_one_hot});
  op_embedding = r.add({"aten::embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor",
         meta_embedding, cpu_embedding});
}

}  // namespace ops

// ---- public API
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index, SrcLocArg loc) {
  return dispatch1(*op_index_select, {self, SymInt(dim), index}, loc);
}
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad, SrcLocArg loc) {
  std::vector<IValue> args{self, SymInt(dim), index};
  if (sparse_grad) args.push_back(true);
  return dispatch1(*op_gather, std::move(args), loc);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, SrcLocArg loc) {
  return dispatch1(*op_scatter_src, {self, SymInt(dim), index, src}, loc);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, Scalar value, SrcLocArg loc) {
  return dispatch1(*op_scatter_value, {self, SymInt(dim), index, value.ivalue()}, loc);
}
Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, SrcLocArg loc) {
  return dispatch1(*op_scatter_inplace_src, {self, SymInt(dim), index, src}, loc);
}
Tensor scatter_(const Tensor& self, int64_t dim, const Tensor& index, Scalar value, SrcLocArg loc) {
  return dispatch1(*op_scatter_inplace_value, {self, SymInt(dim), index, value.ivalue()}, loc);
}
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, SrcLocArg loc) {
  return dispatch1(*op_index_copy, {self, SymInt(dim), index, source}, loc);
}
Tensor index_copy_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, SrcLocArg loc) {
  return dispatch1(*op_index_copy_, {self, SymInt(dim), index, source}, loc);
}

Tensor one_hot(const Tensor& self, int64_t num_classes, SrcLocArg loc) {
  // Eager one_hot reads max() of a real tensor; fake tensors reach the meta's DataDependentError.
  if (num_classes == -1 && self.has_storage() && self.dtype() == DType::Int64) {
    FE_CHECK(self.numel() > 0, ValueError, "aten::one_hot: Can not infer total number of classes from empty tensor.");
    int64_t mx = 0;
    ops::idx::for_each_index(self.sizes(), [&](const std::vector<int64_t>& i) {
      mx = std::max(mx, static_cast<int64_t>(ops::idx::at(self, i)));
    });
    num_classes = mx + 1;
  }
  std::vector<IValue> args{self};
  if (num_classes != -1) args.push_back(SymInt(num_classes));
  return dispatch1(*op_one_hot, std::move(args), loc);
}

Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx,
                 bool scale_grad_by_freq, bool sparse, SrcLocArg loc) {
  std::vector<IValue> args{weight, input};
  if (padding_idx || scale_grad_by_freq || sparse) {
    int64_t p = padding_idx.value_or(-1);
    if (padding_idx && p < 0) p += weight.size(0).expect_int();  // F.embedding normalises negative padding_idx
    args.push_back(SymInt(p));
  }
  if (scale_grad_by_freq || sparse) args.push_back(scale_grad_by_freq);
  if (sparse) args.push_back(true);
  return dispatch1(*op_embedding, std::move(args), loc);
}

Tensor Tensor::index_select(int64_t dim, const Tensor& index, SrcLocArg loc) const {
  return fe::index_select(*this, dim, index, loc);
}
Tensor Tensor::gather(int64_t dim, const Tensor& index, SrcLocArg loc) const {
  return fe::gather(*this, dim, index, false, loc);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src, SrcLocArg loc) const {
  return fe::scatter(*this, dim, index, src, loc);
}
Tensor Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src, SrcLocArg loc) const {
  return fe::scatter_(*this, dim, index, src, loc);
}
Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source, SrcLocArg loc) const {
  return fe::index_copy(*this, dim, index, source, loc);
}
Tensor Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source, SrcLocArg loc) const {
  return fe::index_copy_(*this, dim, index, source, loc);
}

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, Scalar alpha,
                 SrcLocArg loc) {
  return dispatch1(*op_index_add, {self, SymInt(dim), index, source, alpha.ivalue()}, loc);
}
Tensor index_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, Scalar alpha,
                  SrcLocArg loc) {
  return dispatch1(*op_index_add_, {self, SymInt(dim), index, source, alpha.ivalue()}, loc);
}
Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source, SrcLocArg loc) const {
  return fe::index_add(*this, dim, index, source, 1, loc);
}
Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha,
                         SrcLocArg loc) const {
  return fe::index_add(*this, dim, index, source, alpha, loc);
}
Tensor Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source, SrcLocArg loc) const {
  return fe::index_add_(*this, dim, index, source, 1, loc);
}
Tensor Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha,
                          SrcLocArg loc) const {
  return fe::index_add_(*this, dim, index, source, alpha, loc);
}

}  // namespace fe
