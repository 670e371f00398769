// Indexing, advanced indexing part: index.Tensor (x[idx]), index_put / index_put_ (x[idx] = v), and
// slice_scatter (a copy of self with src written into a slice; what run_decompositions() records
// for a write into a slice).
// The other indexing ops (index_select, gather, scatter, index_copy, one_hot, embedding) live in
// indexing_select.cpp.
#include <algorithm>
#include <numeric>
#include <optional>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "fakeexport/ops/unbacked.h"
#include "ops/families.h"
#include "ops/indexing_impl.h"
#include "ops/meta_util.h"

namespace fe {
OpHandle op_index_Tensor;
namespace {
OpHandle op_index_put;
OpHandle op_index_put_;
}  // namespace
}  // namespace fe

namespace fe {
namespace ops {
namespace {

using idx::torch_size;

bool is_mask_dtype(DType t) { return t == DType::Bool || t == DType::Int8; }

/// prims' is_contiguous / is_channels_last_contiguous (size-1 dims skipped, < 2 elements contiguous).
/// On symbolic sizes the comparisons are those prims makes (statically known in the usual layouts,
/// so no guard; a guard where PyTorch's guard_size_oblivious would record one too).
bool prims_contiguous(IntSpan sizes, IntSpan strides) {
  SymInt n = 1;
  for (const SymInt& s : sizes) n *= s;
  if (n < 2) return true;
  SymInt expected = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    const SymInt& s = sizes[d];
    if (s == 1) continue;
    if (strides[d] != expected) return false;
    expected *= s;
  }
  return true;
}
bool prims_channels_last(IntSpan sizes, IntSpan strides) {
  static constexpr size_t k2d[] = {1, 3, 2, 0}, k3d[] = {1, 4, 3, 2, 0};
  std::span<const size_t> order;
  if (sizes.size() == 4) order = k2d;
  else if (sizes.size() == 5) order = k3d;
  else return false;
  SymInt expected = 1;
  for (size_t d : order) {
    const SymInt& s = sizes[d];
    if (s == 1) continue;
    if (strides[d] != expected) return false;
    expected *= s;
  }
  return true;
}

/// torch._prims_common.compute_elementwise_output_logical_to_physical_perm for one tensor.
std::vector<size_t> logical_to_physical_perm(IntSpan shape, IntSpan strides) {
  const size_t nd = shape.size();
  std::vector<size_t> perm(nd);
  std::iota(perm.begin(), perm.end(), size_t{0});
  if (nd <= 1) return perm;
  const bool contig = prims_contiguous(shape, strides), cl = prims_channels_last(shape, strides);
  if (contig && !cl) return perm;
  if (cl && !contig) {
    std::vector<size_t> p{0};
    for (size_t d = 2; d < nd; ++d) p.push_back(d);
    p.push_back(1);
    return p;
  }
  auto ge = [](const SymInt& x, const SymInt& y) { return y == 0 ? true : x == 0 ? false : x >= y; };
  auto should_swap = [&](size_t a, size_t b) -> int {
    const SymInt& sa = strides[a];
    const SymInt& sb = strides[b];
    if (sa == 0 || sb == 0) return 0;
    if (sa == sb) return ge(shape[b], shape[a]) ? 0 : 1;
    if (ge(sb, sa)) return -1;
    if (ge(sa, sb)) return 1;
    return 0;
  };
  std::reverse(perm.begin(), perm.end());
  sort_dims(perm, should_swap);
  std::reverse(perm.begin(), perm.end());
  return perm;
}

/// Geometry of `self[indices]` after PyTorch's expandTensors / transposeToFront: self's dims in
/// the order indexed (advanced dims first when they are not adjacent) and each dim's index shape.
struct AdvancedIndex {
  std::vector<size_t> perm;                   ///< self dim at each position
  std::vector<std::optional<DimVector>> idx;  ///< broadcast index shape per position; nullopt = None
  DimVector before, replacement, after;
  size_t first = 0, count = 0;                ///< positions [first, first+count) are indexed
  DimVector result_shape() const {
    DimVector s = before;
    for (SymInt x : replacement) s.push_back(x);
    for (SymInt x : after) s.push_back(x);
    return s;
  }
};

/// `expand` decides how 0-dim cpu indices broadcast: meta_index_Tensor keeps them 0-dim (so the
/// last index's shape, possibly [], is the replacement shape); eager kernels expand them.
AdvancedIndex advanced_index(const MetaArgs& a, const TensorMeta& self, const std::vector<const TensorMeta*>& list,
                             bool expand_cpu_scalars) {
  const int64_t nd = self.dim();
  FE_CHECK(static_cast<int64_t>(list.size()) <= nd, IndexError, label(a), ": too many indices for tensor of dimension ",
           nd, " (got ", list.size(), ")");
  // refs._broadcast_shapes over the non-None indices, with its message.
  size_t rank = 0;
  for (const TensorMeta* t : list)
    if (t) rank = std::max(rank, t->sizes.size());
  DimVector common(rank, SymInt(1));
  int arg = 0;
  for (const TensorMeta* t : list) {
    if (!t) continue;
    const size_t r = t->sizes.size();
    for (size_t k = 1; k <= r; ++k) {
      const SymInt s = t->sizes[r - k];
      SymInt& c = common[rank - k];
      if (s == c) continue;
      if (c == 1) c = s;
      if (s == 1) continue;
      FE_CHECK(c == s, ShapeError, label(a), ": Attempting to broadcast a dimension of length ", s, " at -", k,
               "! Mismatching argument at index ", arg, " had ", torch_size(t->sizes),
               "; but expected shape should be broadcastable to ", shape_str(common));
    }
    ++arg;
  }
  std::vector<std::optional<DimVector>> shapes(nd);
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i]) continue;
    const bool cpu_scalar = list[i]->dim() == 0 && list[i]->device.is_cpu();
    shapes[i] = cpu_scalar && !expand_cpu_scalars ? DimVector() : common;
  }
  // hasContiguousSubspace: the indexed dims are adjacent.
  int state = 0;
  bool adjacent = true;
  for (const auto& s : shapes) {
    if (state == 0 && s) state = 1;
    else if (state == 1 && !s) state = 2;
    else if (state == 2 && s) adjacent = false;
  }
  AdvancedIndex g;
  for (int64_t d = 0; d < nd; ++d)
    if (adjacent || shapes[d]) g.perm.push_back(static_cast<size_t>(d));
  if (!adjacent)
    for (int64_t d = 0; d < nd; ++d)
      if (!shapes[d]) g.perm.push_back(static_cast<size_t>(d));
  bool seen = false;
  for (size_t k = 0; k < g.perm.size(); ++k) {
    const auto& s = shapes[g.perm[k]];
    g.idx.push_back(s);
    if (s) {
      if (!seen) g.first = k;
      seen = true;
      ++g.count;
      g.replacement = *s;
    } else {
      // As meta_index_Tensor: after a 0-dim replacement, later dims still count as "before".
      (g.replacement.size() ? g.after : g.before).push_back(self.sizes[g.perm[k]]);
    }
  }
  return g;
}

/// How many elements of the k-th mask among index.Tensor's real indices are nonzero.
template <size_t K>
int64_t mask_count(std::span<const IValue> args) {
  size_t k = 0;
  for (const Tensor& t : std::get<std::vector<Tensor>>(args[1])) {
    if (!t.defined() || !is_mask_dtype(t.dtype()) || k++ != K) continue;
    int64_t n = 0;
    idx::for_each_index(t.sizes(), [&](const std::vector<int64_t>& i) { n += idx::at(t, i) != 0; });
    return n;
  }
  return 0;
}

/// meta_index_Tensor's index list: each mask becomes its nonzero() coordinates, one [nnz] int64
/// index per mask dim, nnz an unbacked size (FakeTensor's nonzero) unless the values are real.
/// `store` keeps the replacements alive.
std::vector<const TensorMeta*> masks_as_coordinates(const MetaArgs& a, const TensorMeta& self,
                                                    const std::vector<const TensorMeta*>& list,
                                                    std::vector<TensorMeta>& store) {
  static constexpr SizeFromData kCounts[] = {mask_count<0>, mask_count<1>, mask_count<2>, mask_count<3>};
  size_t masks = 0;
  for (const TensorMeta* t : list) masks += t && is_mask_dtype(t->dtype);
  if (masks == 0) return list;
  FE_CHECK(masks <= std::size(kCounts), LimitError, label(a), ": indexing with ", masks,
           " masks in one call is not supported");
  store.reserve(static_cast<size_t>(self.dim()));
  std::vector<const TensorMeta*> out;
  size_t m = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const TensorMeta* t = list[i];
    if (!t || !is_mask_dtype(t->dtype)) {
      out.push_back(t);
      continue;
    }
    // As meta_index_Tensor: nonzero() first, then the mask's shape.
    const SymInt nnz = unbacked_size(a, kCounts[m++], detail::cat("aten.nonzero.default: indexing with a ",
                                                                  dtype_name(t->dtype),
                                                                  " mask has a data-dependent output shape"));
    const int64_t k = static_cast<int64_t>(out.size());
    FE_CHECK(k + t->dim() <= self.dim(), IndexError, label(a), ": too many indices for tensor of dimension ",
             self.dim());
    for (int64_t j = 0; j < t->dim(); ++j)
      FE_CHECK(t->sizes[j] == self.sizes[k + j], IndexError, label(a), ": The shape of the mask ",
               torch_size(t->sizes), " at index ", i, " does not match the shape of the indexed tensor ",
               torch_size(self.sizes), " at index ", k + j);
    for (int64_t j = 0; j < t->dim(); ++j) {
      const SymInt n[1] = {nnz};
      store.push_back(make_contiguous(n, DType::Int64, t->device));
      out.push_back(&store.back());
    }
  }
  return out;
}

// index.Tensor(self, Tensor?[] indices): meta_index_Tensor, with its output-stride rule.
void meta_index(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const auto& given = a.tensor_list(1);
  FE_CHECK(!given.empty(), ValueError, label(a), ": at least one index must be provided");
  for (const TensorMeta* t : given)
    FE_CHECK(!t || t->dtype == DType::Int64 || t->dtype == DType::Int32 || is_mask_dtype(t->dtype), DTypeError,
             label(a), ": tensors used as indices must be long, int, byte or bool tensors");
  std::vector<TensorMeta> coords;
  const std::vector<const TensorMeta*> list = masks_as_coordinates(a, self, given, coords);
  const AdvancedIndex g = advanced_index(a, self, list, false);
  const DimVector shape = g.result_shape();
  TensorMeta m = make_contiguous(shape, self.dtype, self.device);
  if (self.numel() != 0) {
    // Follow eager TensorIterator: order output dims like self restrided onto the output shape.
    // _restride_src: strides[len(before) : ndim - len(after)] = [0] * len(replacement).
    DimVector st;
    const size_t nd = g.perm.size();
    for (size_t k = 0; k < g.before.size(); ++k) st.push_back(self.strides[g.perm[k]]);
    for (size_t k = 0; k < g.replacement.size(); ++k) st.push_back(0);
    for (size_t k = std::max(g.before.size(), nd - g.after.size()); k < nd; ++k) st.push_back(self.strides[g.perm[k]]);
    st.resize(shape.size());  // as_strided reads as many strides as the shape has dims
    const auto perm = logical_to_physical_perm(shape, st);
    bool identity = true;
    for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == i;
    if (!identity) {
      DimVector pshape;
      for (size_t p : perm) pshape.push_back(shape[p]);
      const DimVector cs = contiguous_strides(pshape);
      for (size_t i = 0; i < perm.size(); ++i) m.strides[perm[i]] = cs[i];
    }
  }
  out.push(std::move(m));
}

// index_put(self, indices, values, accumulate): FakeTensorMode checks only the values' device.
void check_index_put(const MetaArgs& a) {
  const TensorMeta& self = a.tensor(0);
  const TensorMeta& v = a.tensor(2);
  (void)a.tensor_list(1);
  FE_CHECK(self.device == v.device || (v.dim() == 0), DeviceMismatchError, label(a), ": Mismatching aten.",
           a.op().schema.name, ".default device between self (", self.device.str(), ") and values (", v.device.str(),
           ")");
}
void meta_index_put(const MetaArgs& a, MetaOut& out) {
  check_index_put(a);
  const TensorMeta& self = a.tensor(0);
  TensorMeta m = self;
  m.storage_offset = 0;
  m.strides = preserved_strides(self);
  m.requires_grad = false;
  out.push(std::move(m));
}
void meta_index_put_(const MetaArgs& a, MetaOut& out) {
  check_index_put(a);
  out.push(a.tensor(0));
}

// ---- reference kernels
/// A real index tensor's values, row-major, with its shape.
struct IndexValues {
  DimVector shape;
  std::vector<int64_t> vals;
  /// Value at output coordinates o[first, first+rank) (right-aligned broadcasting).
  int64_t at(const std::vector<int64_t>& o, size_t first, size_t rank) const {
    int64_t flat = 0;
    const int64_t r = static_cast<int64_t>(shape.size());
    for (int64_t j = 0; j < r; ++j) {
      const int64_t s = shape[j].expect_int();
      const int64_t p = static_cast<int64_t>(first + rank) - r + j;  // right-aligned broadcasting
      flat = flat * s + (s == 1 || p < static_cast<int64_t>(first) ? 0 : o[p]);
    }
    return vals[flat];
  }
};

IndexValues read_index(const Tensor& t) {
  IndexValues v;
  v.shape = DimVector(t.sizes());
  idx::for_each_index(t.sizes(), [&](const std::vector<int64_t>& i) {
    v.vals.push_back(static_cast<int64_t>(idx::at(t, i)));
  });
  return v;
}

/// Index tensors as eager kernels see them: masks replaced by their nonzero() coordinates.
std::vector<std::optional<IndexValues>> expand_masks(const std::vector<Tensor>& list) {
  std::vector<std::optional<IndexValues>> out;
  for (const Tensor& t : list) {
    if (!t.defined()) {
      out.emplace_back();
      continue;
    }
    if (!is_mask_dtype(t.dtype())) {
      out.push_back(read_index(t));
      continue;
    }
    std::vector<IndexValues> coords(t.dim());
    idx::for_each_index(t.sizes(), [&](const std::vector<int64_t>& i) {
      if (idx::at(t, i) == 0) return;
      for (int64_t d = 0; d < t.dim(); ++d) coords[d].vals.push_back(i[d]);
    });
    for (auto& c : coords) {
      c.shape = DimVector{SymInt(static_cast<int64_t>(c.vals.size()))};
      out.push_back(std::move(c));
    }
  }
  return out;
}

/// Calls f(result multi-index, element offset in self) for every element `self[indices]` selects.
/// `result` is the shape of the selection (before + replacement + after).
template <class F>
void for_each_selected(const char* op, const Tensor& self, const std::vector<std::optional<IndexValues>>& list,
                       const AdvancedIndex& g, IntSpan result, F&& f) {
  // Output dims: the positions before `first`, then the nr broadcast index dims, then the rest.
  const size_t nb = g.first;
  const size_t nr = result.size() - (g.perm.size() - g.count);
  idx::for_each_index(result, [&](const std::vector<int64_t>& o) {
    int64_t off = 0;
    for (size_t k = 0; k < g.perm.size(); ++k) {
      const size_t d = g.perm[k];
      int64_t c;
      if (k < g.first || g.count == 0) c = o[k];
      else if (k >= g.first + g.count) c = o[k - g.count + nr];
      else c = idx::wrap_index(op, static_cast<double>(list[d]->at(o, nb, nr)), self.size(static_cast<int64_t>(d)).expect_int());
      off += c * self.strides()[d].expect_int();
    }
    f(o, off);
  });
}

std::vector<const TensorMeta*> metas_of(const std::vector<std::optional<IndexValues>>& list,
                                        std::vector<TensorMeta>& store) {
  store.clear();
  store.reserve(list.size());
  std::vector<const TensorMeta*> out;
  for (const auto& v : list) {
    if (!v) {
      out.push_back(nullptr);
      continue;
    }
    store.push_back(make_contiguous(v->shape, DType::Int64, kCPU));
    out.push_back(&store.back());
  }
  return out;
}

void cpu_index(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& self = std::get<Tensor>(a[0]);
  const auto vals = expand_masks(std::get<std::vector<Tensor>>(a[1]));
  std::vector<TensorMeta> store;
  const auto metas = metas_of(vals, store);
  std::vector<MetaValue> margs{&self.meta(), metas};
  const AdvancedIndex g = advanced_index(MetaArgs(op, margs), self.meta(), metas, false);
  std::vector<std::optional<IndexValues>> by_dim(self.dim());
  for (size_t i = 0; i < vals.size(); ++i) by_dim[i] = vals[i];
  for_each_selected("aten::index", self, by_dim, g, o[0].sizes(), [&](const std::vector<int64_t>& r, int64_t off) {
    idx::store(o[0], idx::offset_of(o[0], r), idx::load(self, off));
  });
}

/// x[indices] (+)= values on `target` (self itself, or index_put's fresh copy of self).
void index_put_into(const OpDef& op, const Tensor& target, std::span<const IValue> a) {
  const auto& list = std::get<std::vector<Tensor>>(a[1]);
  const Tensor& values = std::get<Tensor>(a[2]);
  const bool accumulate = std::get<bool>(a[3]);
  auto vals = expand_masks(list);
  FE_CHECK(static_cast<int64_t>(vals.size()) <= target.dim(), IndexError, "aten::", op.schema.name,
           ": too many indices for tensor of dimension ", target.dim());
  std::vector<TensorMeta> store;
  auto metas = metas_of(vals, store);
  std::vector<MetaValue> margs{&target.meta(), metas, &values.meta(), accumulate};
  const AdvancedIndex g = advanced_index(MetaArgs(op, margs), target.meta(), metas, true);
  const DimVector result = g.result_shape();
  std::vector<std::optional<IndexValues>> by_dim(target.dim());
  for (size_t i = 0; i < vals.size(); ++i) by_dim[i] = vals[i];
  const size_t lead = result.size() - std::min(result.size(), static_cast<size_t>(values.dim()));
  FE_CHECK(static_cast<size_t>(values.dim()) <= result.size(), ShapeError, "aten::", op.schema.name,
           ": shape mismatch: value tensor of shape ", shape_str(values.sizes()),
           " cannot be broadcast to indexing result of shape ", shape_str(result));
  for (int64_t d = 0; d < values.dim(); ++d) {
    const int64_t vs = values.size(d).expect_int(), rs = result[lead + d].expect_int();
    FE_CHECK(vs == 1 || vs == rs, ShapeError, "aten::", op.schema.name, ": shape mismatch: value tensor of shape ",
             shape_str(values.sizes()), " cannot be broadcast to indexing result of shape ", shape_str(result));
  }
  for_each_selected(("aten::" + op.schema.name).c_str(), target, by_dim, g, result,
                    [&](const std::vector<int64_t>& r, int64_t off) {
                      std::vector<int64_t> vi(values.dim());
                      for (int64_t d = 0; d < values.dim(); ++d) vi[d] = values.size(d) == 1 ? 0 : r[lead + d];
                      const double v = idx::at(values, vi);
                      idx::store(target, off, accumulate ? idx::load(target, off) + v : v);
                    });
}

void cpu_index_put(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  idx::copy_into(o[0], std::get<Tensor>(a[0]));
  index_put_into(op, o[0], a);
}
void cpu_index_put_(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) { index_put_into(op, o[0], a); }

constexpr DeviceRule kFree = DeviceRule::None;

// slice_scatter(self, src, dim, start, end, step): PyTorch's meta checks nothing and returns
// clone_preserve_strides(self) (self's sizes, strides and storage offset), or clone() when self
// overlaps itself (an expanded self cannot keep strides the writes would alias).
void meta_slice_scatter(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  (void)a.tensor(1);
  TensorMeta m = self;
  if (idx::has_internal_overlap(self)) {
    m.strides = preserved_strides(self);
    m.storage_offset = 0;
  }
  m.requires_grad = self.requires_grad || a.tensor(1).requires_grad;
  out.push(std::move(m));
}

void cpu_slice_scatter(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& self = std::get<Tensor>(a[0]);
  const Tensor& src = std::get<Tensor>(a[1]);
  auto opt = [&](size_t i) -> std::optional<int64_t> {
    if (auto* s = std::get_if<SymInt>(&a[i])) return s->expect_int();
    return std::nullopt;
  };
  fe::copy_(o[0], self);
  const Tensor view = fe::slice(o[0], std::get<SymInt>(a[2]).expect_int(), opt(3), opt(4), *opt(5));
  FE_CHECK(view.sizes().size() == src.sizes().size() &&
               std::equal(view.sizes().begin(), view.sizes().end(), src.sizes().begin()),
           ShapeError, "aten::slice_scatter: expected src to have a size equal to the slice of self. src size = ",
           shape_str(src.sizes()), ", slice size = ", shape_str(view.sizes()));
  fe::copy_(view, src);
}

void cpu_select_scatter(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& self = std::get<Tensor>(a[0]);
  const Tensor& src = std::get<Tensor>(a[1]);
  fe::copy_(o[0], self);
  const Tensor view = fe::select(o[0], std::get<SymInt>(a[2]).expect_int(), std::get<SymInt>(a[3]).expect_int());
  FE_CHECK(view.sizes().size() == src.sizes().size() &&
               std::equal(view.sizes().begin(), view.sizes().end(), src.sizes().begin()),
           ShapeError, "aten::select_scatter: expected src to have a size equal to the slice of self. src size = ",
           shape_str(src.sizes()), ", slice size = ", shape_str(view.sizes()));
  fe::copy_(view, src);
}

/// torch._refs.select_scatter: where(arange(size[dim]).view(-1 at dim) == index, src unsqueezed at
/// dim and expanded, self), the index made non-negative.
std::vector<Tensor> decomp_select_scatter(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  const Tensor& src = decomp_tensor(a, 1);
  int64_t dim = std::get<SymInt>(a[2]).expect_int();
  if (dim < 0) dim += std::max<int64_t>(x.dim(), 1);
  SymInt index = std::get<SymInt>(a[3]);
  if (index.maybe_int() && *index.maybe_int() < 0) index = index + x.sizes()[dim];
  std::vector<SymInt> mask_shape(static_cast<size_t>(x.dim()), SymInt(1));
  mask_shape[static_cast<size_t>(dim)] = SymInt(-1);
  const Tensor range = fe::arange(Scalar(x.sizes()[dim]), TensorOptions{.device = x.device()}, loc);
  const Tensor mask = fe::eq(fe::view(range, mask_shape, loc), Scalar(index), loc);
  const std::vector<SymInt> shape(x.sizes().begin(), x.sizes().end());
  const Tensor s = fe::expand(fe::unsqueeze(src, dim, loc), shape, false, loc);
  return {fe::where(mask, s, x, loc)};
}

}  // namespace

void register_indexing_ops(Registry& r) {
  r.add({"aten::slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor",
         meta_slice_scatter, cpu_slice_scatter, kFree});
  r.add({.schema = "aten::select_scatter(Tensor self, Tensor src, int dim, SymInt index) -> Tensor",
         .meta = meta_slice_scatter, .cpu = cpu_select_scatter, .device_rule = kFree, .decomp = decomp_select_scatter});
  // cpu index tensors may index a tensor on any device: the op checks devices itself.
  op_index_Tensor = r.add({"aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", meta_index, cpu_index, kFree});
  op_index_put = r.add({"aten::index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor",
         meta_index_put, cpu_index_put, kFree});
  op_index_put_ = r.add({"aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)",
         meta_index_put_, cpu_index_put_, kFree});
  register_indexing_select_ops(r);
}

}  // namespace ops

// ---- public API
namespace {
std::vector<IValue> index_args(const Tensor& self, const TensorIndices& indices) {
  std::vector<Tensor> list;
  for (const auto& t : indices) list.push_back(t ? *t : Tensor());
  return {self, std::move(list)};
}
}  // namespace

Tensor index(const Tensor& self, const TensorIndices& indices, SrcLocArg loc) {
  return dispatch1(*op_index_Tensor, index_args(self, indices), loc);
}
Tensor index_put(const Tensor& self, const TensorIndices& indices, const Tensor& values, bool accumulate,
                 SrcLocArg loc) {
  auto args = index_args(self, indices);
  args.push_back(values);
  if (accumulate) args.push_back(true);
  return dispatch1(*op_index_put, std::move(args), loc);
}
Tensor index_put_(const Tensor& self, const TensorIndices& indices, const Tensor& values, bool accumulate,
                  SrcLocArg loc) {
  auto args = index_args(self, indices);
  args.push_back(values);
  if (accumulate) args.push_back(true);
  return dispatch1(*op_index_put_, std::move(args), loc);
}

Tensor Tensor::index(std::initializer_list<std::optional<Tensor>> indices, SrcLocArg loc) const {
  return fe::index(*this, TensorIndices(indices), loc);
}
Tensor Tensor::index_put(std::initializer_list<std::optional<Tensor>> indices, const Tensor& values, bool accumulate,
                         SrcLocArg loc) const {
  return fe::index_put(*this, TensorIndices(indices), values, accumulate, loc);
}
Tensor Tensor::index_put_(std::initializer_list<std::optional<Tensor>> indices, const Tensor& values,
                          bool accumulate, SrcLocArg loc) const {
  return fe::index_put_(*this, TensorIndices(indices), values, accumulate, loc);
}

}  // namespace fe
