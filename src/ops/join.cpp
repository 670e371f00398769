// Joining, repeating and flipping: cat, stack, repeat, repeat_interleave, triu/tril, flip. FakeTensorMode runs
// torch._refs' cat/stack (type promotion over all inputs, legacy empty 1-D inputs skipped, the
// output memory format suggested by the inputs) and the meta/C++ rules of the others.
#include <algorithm>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "fakeexport/ops/unbacked.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"
#include "ops/view_impl.h"

namespace fe {
OpHandle op_cat;
}  // namespace fe
namespace fe {
namespace {
OpHandle op_flip;
OpHandle op_repeat;
OpHandle op_repeat_interleave_Tensor;
OpHandle op_repeat_interleave_self_Tensor;
OpHandle op_repeat_interleave_self_int;
OpHandle op_stack;
OpHandle op_tril;
OpHandle op_triu;
}  // namespace
}  // namespace fe

namespace fe {
namespace ops {
namespace {

/// c10::is_channels_last_strides_2d_s4: the strides NHWC-like (ambiguous cases prefer NCHW). A layout
/// decision: answered on the hints, without guards.
bool strides_like_channels_last(const TensorMeta& t) {
  if (t.dim() != 4 || t.strides[1].hint() == 0) return false;
  int64_t min = 0;
  for (int d : {1, 3, 2, 0}) {
    const int64_t size = t.sizes[d].hint(), stride = t.strides[d].hint();
    if (size == 0 || stride < min) return false;
    if (d == 0 && min == t.strides[1].hint()) return false;
    min = stride;
    if (size > 1) min *= size;
  }
  return true;
}

/// torch._refs.cat over metadata (stack calls it too).
TensorMeta cat_meta(const MetaArgs& a, const std::vector<const TensorMeta*>& ts, int64_t dim) {
  FE_CHECK(!ts.empty(), ValueError, label(a), ": cat expects at least one tensor, but received zero!");
  ResultTypeState rt;
  for (const TensorMeta* t : ts) rt.add_tensor(t->dtype, t->dim() == 0);
  const DType dtype = rt.result(default_dtype());
  // The output rank comes from the first input that is not 1-D; 1-D inputs of other ranks must be empty.
  const TensorMeta* example = nullptr;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (ts[i]->dim() == 1) continue;
    if (!example) {
      example = ts[i];
      continue;
    }
    FE_CHECK(ts[i]->dim() == example->dim(), ShapeError, label(a),
             ": Number of dimensions of tensors must match.  Expected ", example->dim(), "-D tensors, but got ",
             ts[i]->dim(), "-D for tensor number ", i, " in the list");
  }
  if (!example) example = ts[0];
  std::vector<const TensorMeta*> filtered;
  for (size_t i = 0; i < ts.size(); ++i) {
    const TensorMeta* t = ts[i];
    if (t->dim() != example->dim()) {
      FE_CHECK(view_guard(sym_eq(t->sizes[0], 0)), ShapeError, label(a),
               ": Number of dimensions of tensors must match.  Expected ", example->dim(),
               "-D tensors, but got 1-D for tensor number ", i, " in the list");
    } else if (!(t->dim() == 1 && view_guard(sym_eq(t->sizes[0], 0)))) {
      filtered.push_back(t);
    }
  }
  // Output memory format: channels-last only when every input suggests it.
  bool channels_last = true;
  for (const TensorMeta* t : ts) channels_last = channels_last && strides_like_channels_last(*t);
  if (filtered.empty()) {
    const SymInt zero[1] = {SymInt(0)};
    return make_contiguous(zero, dtype, ts[0]->device);
  }
  const int64_t nd = filtered[0]->dim();
  const int64_t d = wrap(a, dim, nd);
  FE_CHECK(nd > 0, IndexError, label(a), ": list assignment index out of range");
  DimVector shape = filtered[0]->sizes;
  SymInt total = 0;
  for (size_t i = 0; i < filtered.size(); ++i) {
    for (int64_t k = 0; k < nd; ++k) {
      if (k == d) continue;
      FE_CHECK(view_guard(sym_eq(filtered[i]->sizes[k], shape[k])), ShapeError, label(a),
               ": Sizes of tensors must match except in dimension ", d, ". Expected ", shape[k], " in dimension ", k,
               " but got ", filtered[i]->sizes[k], " for tensor number ", i, " in the list");
    }
    total = total + filtered[i]->sizes[d];
  }
  shape[d] = total;
  TensorMeta m = make_contiguous(shape, dtype, filtered[0]->device);
  if (channels_last) m.strides = channels_last_strides(shape);
  return m;
}

void meta_cat(const MetaArgs& a, MetaOut& out) { out.push(cat_meta(a, a.tensor_list(0), a.to_int(1))); }

// stack: cat + view when dim < rank, else cat of unsqueezed inputs (torch._refs.stack).
void meta_stack(const MetaArgs& a, MetaOut& out) {
  const auto& ts = a.tensor_list(0);
  FE_CHECK(!ts.empty(), ValueError, label(a), ": stack expects a non-empty TensorList");
  const int64_t nd = ts[0]->dim();
  const int64_t d = wrap(a, a.to_int(1), nd + 1);
  if (d < nd) {
    for (size_t i = 1; i < ts.size(); ++i) {
      bool same = ts[i]->dim() == ts[0]->dim();  // sym_eq(shape_i, shape_0): one torch._check
      for (int64_t k = 0; same && k < nd; ++k) same = view_guard(sym_eq(ts[i]->sizes[k], ts[0]->sizes[k]));
      FE_CHECK(same, ShapeError, label(a), ": stack expects each tensor to be equal size, but got ",
               dims_str(ts[0]->sizes), " at entry 0 and ", dims_str(ts[i]->sizes), " at entry ", i);
    }
    TensorMeta c = cat_meta(a, ts, d);
    DimVector sizes = ts[0]->sizes;
    sizes.insert_at(d, SymInt(static_cast<int64_t>(ts.size())));
    out.push(ref_view(a, c, sizes));
    return;
  }
  std::vector<TensorMeta> unsq;
  for (const TensorMeta* t : ts) {
    TensorMeta u = *t;
    const SymInt stride = d >= t->dim() ? SymInt(1) : t->sizes[d] * t->strides[d];
    u.sizes.insert_at(d, SymInt(1));
    u.strides.insert_at(d, stride);
    unsq.push_back(std::move(u));
  }
  std::vector<const TensorMeta*> ptrs;
  for (const TensorMeta& u : unsq) ptrs.push_back(&u);
  out.push(cat_meta(a, ptrs, d));
}

void meta_repeat(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const auto& reps = a.int_list(1);
  FE_CHECK(static_cast<int64_t>(reps.size()) >= self.dim(), ShapeError, label(a),
           ": Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  for (size_t i = 0; i < reps.size(); ++i)
    FE_CHECK(view_guard(sym_ge(reps[i], 0)), ValueError, label(a), ": Repeats cannot be negative, found ", reps[i],
             " at index ", i);
  const size_t lead = reps.size() - self.dim();
  DimVector shape;
  for (size_t i = 0; i < reps.size(); ++i) shape.push_back((i < lead ? SymInt(1) : self.sizes[i - lead]) * reps[i]);
  out.push(make_contiguous(shape, self.dtype, self.device));
}

/// flip's dims, wrapped; a dim named twice is an error (torch._refs.flip's validate_no_repeating_dims).
std::vector<int64_t> flip_dims(std::string_view label, const TensorMeta& self, const std::vector<SymInt>& dims) {
  std::vector<int64_t> out;
  for (const SymInt& d : dims) {
    const int64_t w = wrap_dim(d.expect_int(), self.dim(), label);
    FE_CHECK(std::find(out.begin(), out.end(), w) == out.end(), ValueError, label, ": dim ", w,
             " appears multiple times in the list of dims");
    out.push_back(w);
  }
  return out;
}

// flip: FakeTensorMode runs torch._refs.flip, prims.rev, whose meta is empty_like(preserve_format).
void meta_flip(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  (void)flip_dims(label(a), self, a.int_list(1));
  TensorMeta r = make_contiguous(self.sizes, self.dtype, self.device);
  // refs.empty_like: a contiguous self (to c10: size-1 dims' strides ignored, an empty tensor
  // always) gets the identity permutation.
  if (!contiguous_or_false(self.sizes, self.strides)) r.strides = preserved_strides(self);
  out.push(std::move(r));
}

// repeat_interleave.self_int(self, repeats, dim?, *, output_size?): flattened when dim is None.
void meta_repeat_interleave_int(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const std::optional<int64_t> dim_opt = a.opt_int(2);
  DimVector sizes = self.sizes;
  int64_t d = 0;
  if (dim_opt) {
    d = wrap(a, *dim_opt, self.dim());
  } else {
    sizes = DimVector{self.numel()};
  }
  const SymInt repeats = a.sym_int(1);
  FE_CHECK(view_guard(sym_ge(repeats, 0)), ValueError, label(a), ": Repeats must be non-negative");
  // input.unsqueeze(dim + 1) fails for 0-dim inputs given a dim.
  FE_CHECK(!sizes.empty(), IndexError, label(a),
           ": Dimension out of range (expected to be in range of [-1, 0], but got ", d + 1, ")");
  const SymInt n = sizes[d] * repeats;
  if (!a.is_none(3))
    FE_CHECK(view_guard(sym_eq(a.sym_int(3), n)), ValueError, label(a),
             ": repeat_interleave: Invalid output_size, expected ", n, " but got ", a.sym_int(3));
  sizes[d] = n;
  out.push(make_contiguous(sizes, self.dtype, self.device));
}

constexpr std::string_view kRepeatsAreData =
    "aten.repeat_interleave.Tensor: the output size depends on the values of `repeats`; pass output_size";

std::vector<int64_t> int_values(const Tensor& t);

/// The total of repeat_interleave's repeats (arg `reps`), each repeated `times` (a broadcast single
/// count); ATen's kernel refuses a negative count.
int64_t repeats_total(const Tensor& reps, int64_t times) {
  int64_t total = 0;
  for (const int64_t r : int_values(reps)) {
    FE_CHECK(r >= 0, ValueError, "aten::repeat_interleave: repeats can not be negative, got ", r);
    int64_t part = 0;
    FE_CHECK(!__builtin_mul_overflow(r, times, &part) && !__builtin_add_overflow(total, part, &total), ValueError,
             "aten::repeat_interleave: the repeats' total overflows int64");
  }
  return total;
}

// repeat_interleave.Tensor(repeats, *, output_size?): the size is the data's sum unless given
// (FakeTensorMode: a fresh unbacked symbol).
void meta_repeat_interleave_tensor(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& reps = a.tensor(0);
  const SymInt size[1] = {a.is_none(1) ? unbacked_size(a, [](std::span<const IValue> v) {
                                           return repeats_total(std::get<Tensor>(v[0]), 1);
                                         }, kRepeatsAreData)
                                       : a.sym_int(1)};
  out.push(make_contiguous(size, reps.dtype, reps.device));
}

// repeat_interleave.self_Tensor(self, repeats, dim?, *, output_size?): index_select by the
// repeat_interleave of repeats (broadcast when it has one element).
void meta_repeat_interleave_self_tensor(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const TensorMeta& reps = a.tensor(1);
  const std::optional<int64_t> dim_opt = a.opt_int(2);
  DimVector sizes = dim_opt ? self.sizes : DimVector{self.numel()};
  const int64_t d = dim_opt ? wrap(a, *dim_opt, self.dim()) : 0;
  FE_CHECK(!sizes.empty(), IndexError, label(a), ": Dimension specified as 0 but tensor has no dimensions");
  const bool one = reps.dim() == 0 || (reps.dim() == 1 && view_guard(sym_eq(reps.sizes[0], 1)));
  if (!one) {
    FE_CHECK(reps.dim() == 1, ShapeError, label(a), ": repeats must be 0-dim or 1-dim tensor");
    FE_CHECK(view_guard(sym_eq(reps.sizes[0], sizes[d])), ShapeError, label(a),
             ": repeats must have the same size as input along dim, but got repeats.size(0) = ", reps.sizes[0],
             " and input.size(", dim_opt.value_or(0), ") = ", sizes[d]);
  }
  sizes[d] = a.is_none(3) ? unbacked_size(a, [](std::span<const IValue> v) {
                              const Tensor& self = std::get<Tensor>(v[0]);
                              const Tensor& reps = std::get<Tensor>(v[1]);
                              const bool flat = std::holds_alternative<None>(v[2]);
                              const int64_t n = flat ? self.numel()
                                                     : self.size(wrap_dim(std::get<SymInt>(v[2]).expect_int(), self.dim(),
                                                                          "aten::repeat_interleave")).expect_int();
                              return repeats_total(reps, reps.numel() == 1 ? n : 1);
                            }, kRepeatsAreData)
                          : a.sym_int(3);
  out.push(make_contiguous(sizes, self.dtype, self.device));
}

void check_tri(const MetaArgs& a) {
  FE_CHECK(a.tensor(0).dim() >= 2, ShapeError, label(a), ": ", a.op().schema.name,
           ": input tensor must have at least 2 dimensions");
}
void meta_tri(const MetaArgs& a, MetaOut& out) {
  check_tri(a);
  const TensorMeta& self = a.tensor(0);
  out.push(make_contiguous(self.sizes, self.dtype, self.device));
}
/// triu_ / tril_: the same check; self is the result.
void meta_tri_(const MetaArgs& a, MetaOut& out) {
  check_tri(a);
  out.push(a.tensor(0));
}

// ---- reference kernels
/// Calls f(index, element offset) over every element of m in row-major order.
template <class F>
void for_each_index(const TensorMeta& m, F&& f) {
  const int64_t n = m.numel().expect_int();
  std::vector<int64_t> idx(m.dim(), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t off = m.storage_offset.expect_int();
    for (int64_t d = 0; d < m.dim(); ++d) off += idx[d] * m.strides[d].expect_int();
    f(idx, off);
    for (int64_t d = m.dim(); d-- > 0;) {
      if (++idx[d] < m.sizes[d].expect_int()) break;
      idx[d] = 0;
    }
  }
}

/// Element of real tensor t at index idx (idx may carry extra leading dims to skip).
double load_idx(const Tensor& t, const std::vector<int64_t>& idx, size_t lead = 0) {
  const TensorMeta& m = t.meta();
  int64_t off = 0;
  for (int64_t d = 0; d < m.dim(); ++d) off += idx[lead + d] * m.strides[d].expect_int();
  return detail::load(static_cast<const std::byte*>(t.data_ptr()) + off * itemsize(m.dtype), m.dtype);
}

/// Copies `src` into the part of output `o` where dim d runs from `start` (cat); `squeeze` drops
/// that dim instead (stack writes one index of the new dim).
void copy_into(const Tensor& o, const Tensor& src, int64_t d, int64_t start, bool squeeze) {
  TensorMeta part = o.meta();
  part.storage_offset = part.storage_offset + part.strides[d] * start;
  if (squeeze) {
    part.sizes.erase_at(d);
    part.strides.erase_at(d);
  } else {
    part.sizes[d] = src.meta().sizes[d];
  }
  for_each_index(part, [&](const std::vector<int64_t>& idx, int64_t off) { cpu::store_at(o, off, load_idx(src, idx)); });
}


void cpu_cat(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const auto& ts = std::get<std::vector<Tensor>>(a[0]);
  const int64_t nd = o[0].dim();
  if (o[0].numel() == 0) return;
  const int64_t d = wrap_dim(std::get<SymInt>(a[1]).expect_int(), nd, "aten::cat");
  int64_t start = 0;
  for (const Tensor& t : ts) {
    if (t.numel() == 0) continue;  // empty inputs (legacy [0] ones included) add nothing
    copy_into(o[0], t, d, start, false);
    start += t.size(d).expect_int();
  }
}

void cpu_stack(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const auto& ts = std::get<std::vector<Tensor>>(a[0]);
  const int64_t d = wrap_dim(std::get<SymInt>(a[1]).expect_int(), o[0].dim(), "aten::stack");
  for (size_t i = 0; i < ts.size(); ++i) copy_into(o[0], ts[i], d, static_cast<int64_t>(i), true);
}

void cpu_repeat(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& self = std::get<Tensor>(a[0]);
  const size_t lead = o[0].dim() - self.dim();
  for_each_index(o[0].meta(), [&](std::vector<int64_t> idx, int64_t off) {
    for (int64_t d = 0; d < self.dim(); ++d) idx[lead + d] %= self.size(d).expect_int();
    cpu::store_at(o[0], off, load_idx(self, idx, lead));
  });
}

void cpu_flip(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& self = std::get<Tensor>(a[0]);
  const std::vector<int64_t> dims = flip_dims("aten::flip", self.meta(), std::get<std::vector<SymInt>>(a[1]));
  for_each_index(o[0].meta(), [&](std::vector<int64_t> idx, int64_t off) {
    for (int64_t d : dims) idx[d] = self.size(d).expect_int() - 1 - idx[d];
    cpu::store_at(o[0], off, load_idx(self, idx));
  });
}

/// Output index along dim -> input index, for repeat_interleave with per-index counts.
std::vector<int64_t> interleave_map(const std::vector<int64_t>& counts) {
  std::vector<int64_t> m;
  for (size_t i = 0; i < counts.size(); ++i) m.insert(m.end(), static_cast<size_t>(counts[i]), static_cast<int64_t>(i));
  return m;
}

/// self (flattened when dim is None) gathered along dim through `src_of` (output index -> input index).
void gather_dim(const Tensor& self, bool flatten, int64_t d, const std::vector<int64_t>& src_of, const Tensor& out) {
  std::vector<double> flat;
  if (flatten) for_each_index(self.meta(), [&](const std::vector<int64_t>& idx, int64_t) { flat.push_back(load_idx(self, idx)); });
  for_each_index(out.meta(), [&](std::vector<int64_t> idx, int64_t off) {
    idx[d] = src_of[idx[d]];
    cpu::store_at(out, off, flatten ? flat[idx[0]] : load_idx(self, idx));
  });
}

void cpu_repeat_interleave_int(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& self = std::get<Tensor>(a[0]);
  const bool flatten = std::holds_alternative<None>(a[2]);
  const int64_t d = flatten ? 0 : wrap_dim(std::get<SymInt>(a[2]).expect_int(), self.dim(), "aten::repeat_interleave");
  const int64_t n = flatten ? self.numel() : self.size(d).expect_int();
  gather_dim(self, flatten, d, interleave_map(std::vector<int64_t>(n, std::get<SymInt>(a[1]).expect_int())), o[0]);
}

std::vector<int64_t> int_values(const Tensor& t) {
  std::vector<int64_t> v;
  for_each_index(t.meta(), [&](const std::vector<int64_t>& idx, int64_t) {
    v.push_back(static_cast<int64_t>(load_idx(t, idx)));
  });
  return v;
}

/// ATen's check of an output_size given against the repeats' total.
void check_repeats_total(const Tensor& reps, int64_t times, int64_t size) {
  FE_CHECK(repeats_total(reps, times) == size, ValueError,
           "aten::repeat_interleave: allocated size does not match required size (output_size ", size, ", repeats total ",
           repeats_total(reps, times), ")");
}

void cpu_repeat_interleave_tensor(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& reps = std::get<Tensor>(a[0]);
  check_repeats_total(reps, 1, o[0].size(0).expect_int());
  const std::vector<int64_t> m = interleave_map(int_values(reps));
  for_each_index(o[0].meta(), [&](const std::vector<int64_t>& idx, int64_t off) {
    cpu::store_at(o[0], off, static_cast<double>(m[idx[0]]));
  });
}

void cpu_repeat_interleave_self_tensor(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& self = std::get<Tensor>(a[0]);
  const bool flatten = std::holds_alternative<None>(a[2]);
  const int64_t d = flatten ? 0 : wrap_dim(std::get<SymInt>(a[2]).expect_int(), self.dim(), "aten::repeat_interleave");
  const int64_t n = flatten ? self.numel() : self.size(d).expect_int();
  const Tensor& reps = std::get<Tensor>(a[1]);
  check_repeats_total(reps, reps.numel() == 1 ? n : 1, o[0].size(d).expect_int());
  std::vector<int64_t> counts = int_values(reps);
  if (counts.size() == 1) counts.assign(static_cast<size_t>(n), counts[0]);
  gather_dim(self, flatten, d, interleave_map(counts), o[0]);
}

void tri_kernel(std::span<const IValue> a, std::span<Tensor> o, bool upper) {
  const Tensor& self = std::get<Tensor>(a[0]);
  const int64_t k = std::get<SymInt>(a[1]).expect_int();
  const int64_t nd = self.dim();
  for_each_index(o[0].meta(), [&](const std::vector<int64_t>& idx, int64_t off) {
    const int64_t diff = idx[nd - 1] - idx[nd - 2];
    const bool keep = upper ? diff >= k : diff <= k;
    cpu::store_at(o[0], off, keep ? load_idx(self, idx) : 0.0);
  });
}
void cpu_triu(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) { tri_kernel(a, o, true); }
void cpu_tril(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) { tri_kernel(a, o, false); }

/// repeat_interleave.self_int (CompositeImplicit, ATen's Repeat.cpp) with a dim: unsqueeze(dim + 1),
/// expand that dim to `repeats`, a contiguous clone, viewed with dim scaled by `repeats`.
std::vector<Tensor> decomp_repeat_interleave_int(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  const auto* dim_given = std::get_if<SymInt>(&a[2]);
  if (!dim_given || x.dim() == 0) return undecomposed(*op_repeat_interleave_self_int, a, loc);
  const SymInt repeats = std::get<SymInt>(a[1]);
  int64_t dim = dim_given->expect_int();
  if (dim < 0) dim += x.dim();
  // An output_size is only checked against repeats * size (ATen's repeat_interleave_symint).
  if (const auto* given = std::get_if<SymInt>(&a[3]); given && given->maybe_int()) {
    const std::optional<int64_t> want = (repeats * x.sizes()[static_cast<size_t>(dim)]).maybe_int();
    FE_CHECK(!want || *want == *given->maybe_int(), ValueError, "aten::repeat_interleave: Invalid output_size, expected ",
             *want, " but got ", *given->maybe_int());
  }
  const Tensor u = fe::unsqueeze(x, dim + 1, loc);
  std::vector<SymInt> expanded(u.sizes().begin(), u.sizes().end());
  expanded[static_cast<size_t>(dim + 1)] = repeats;
  std::vector<SymInt> out(x.sizes().begin(), x.sizes().end());
  out[static_cast<size_t>(dim)] = out[static_cast<size_t>(dim)] * repeats;
  return {fe::view(fe::clone(fe::expand(u, expanded, false, loc), MemoryFormat::Contiguous, loc), out, loc)};
}

/// repeat_interleave.self_Tensor (CompositeImplicit, ATen's Repeat.cpp): self flattened when no dim
/// is given; a single count reshaped to [1] and expanded along dim; then index_select(self, dim,
/// repeat_interleave.Tensor(counts, output_size)), whose size without output_size is the unbacked
/// symbol the program recorded (UnbackedSizesScope).
std::vector<Tensor> decomp_repeat_interleave_self_tensor(std::span<const IValue> a, const SrcLocArg& loc) {
  Tensor x = decomp_tensor(a, 0);
  const Tensor& reps = decomp_tensor(a, 1);
  int64_t dim = 0;  // as given: index_select receives it unwrapped (`-1`)
  if (const auto* d = std::get_if<SymInt>(&a[2])) dim = d->expect_int();
  else x = fe::flatten(x, 0, -1, loc);
  Tensor counts = reps;
  if (reps.dim() == 0 || (reps.dim() == 1 && view_guard(sym_eq(reps.sizes()[0], 1)))) {
    const int64_t d = wrap_dim(dim, x.dim(), "aten::repeat_interleave");
    counts = fe::expand(fe::reshape(reps, {SymInt(1)}, loc), {x.sizes()[static_cast<size_t>(d)]}, false, loc);
  }
  const Tensor index = dispatch1(*op_repeat_interleave_Tensor, {counts, a[3]}, loc);
  return {fe::index_select(x, dim, index, loc)};
}

/// stack (torch._refs).
std::vector<Tensor> decomp_stack(std::span<const IValue> a, const SrcLocArg& loc) {
  const auto& ts = std::get<std::vector<Tensor>>(a[0]);
  if (ts.empty()) return undecomposed(*op_stack, a, loc);
  int64_t dim = std::get<SymInt>(a[1]).expect_int();
  const int64_t wrapped = dim < 0 ? dim + ts[0].dim() + 1 : dim;
  // torch._refs.stack: below the last dim, cat along it and view the count in; at the end (where a
  // view cannot split the last dim) cat the unsqueezed tensors.
  if (wrapped < ts[0].dim()) {
    std::vector<SymInt> sizes(ts[0].sizes().begin(), ts[0].sizes().end());
    sizes.insert(sizes.begin() + wrapped, SymInt(static_cast<int64_t>(ts.size())));
    return {fe::view(fe::cat(ts, wrapped, loc), sizes, loc)};
  }
  std::vector<Tensor> parts;
  parts.reserve(ts.size());
  for (const Tensor& t : ts) parts.push_back(fe::unsqueeze(t, wrapped, loc));
  return {fe::cat(parts, dim, loc)};
}

/// triu / tril (torch._refs): the mask (arange(w).unsqueeze(-2) - arange(h).unsqueeze(-1)) >= or <=
/// diagonal, then utils.mask_tensor: where(mask, self, 0), or logical_and for bool.
template <bool kUpper>
std::vector<Tensor> decomp_trilu(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  FE_CHECK(x.dim() >= 2, ShapeError, kUpper ? "aten::triu" : "aten::tril", ": input tensor must have at least 2 dimensions");
  const SymInt h = x.sizes()[x.dim() - 2], w = x.sizes()[x.dim() - 1];
  const Tensor cols = fe::unsqueeze(fe::arange(w, {.device = x.device()}, loc), -2, loc);
  const Tensor rows = fe::unsqueeze(fe::arange(h, {.device = x.device()}, loc), -1, loc);
  const Tensor diff = fe::sub(cols, rows, 1, loc);
  const Scalar diagonal(std::get<SymInt>(a[1]));
  const Tensor mask = kUpper ? fe::ge(diff, diagonal, loc) : fe::le(diff, diagonal, loc);
  if (x.dtype() == DType::Bool) return {fe::logical_and(mask, x, loc)};
  return {fe::where(mask, x, Scalar(SymInt(0)), loc)};
}

}  // namespace

void register_join_ops(Registry& r) {
  op_cat = r.add({"aten::cat(Tensor[] tensors, int dim=0) -> Tensor", meta_cat, cpu_cat});
  op_stack = r.add({.schema = "aten::stack(Tensor[] tensors, int dim=0) -> Tensor", .meta = meta_stack, .cpu = cpu_stack,
                    .decomp = decomp_stack});
  op_repeat = r.add({"aten::repeat(Tensor self, SymInt[] repeats) -> Tensor", meta_repeat, cpu_repeat});
  op_repeat_interleave_self_int = r.add({.schema = "aten::repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor",
                                         .meta = meta_repeat_interleave_int, .cpu = cpu_repeat_interleave_int, .decomp = decomp_repeat_interleave_int});
  op_repeat_interleave_Tensor = r.add({"aten::repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor",
         meta_repeat_interleave_tensor, cpu_repeat_interleave_tensor});
  op_repeat_interleave_self_Tensor = r.add({.schema = "aten::repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor",
                                           .meta = meta_repeat_interleave_self_tensor, .cpu = cpu_repeat_interleave_self_tensor,
                                           .decomp = decomp_repeat_interleave_self_tensor});
  op_triu = r.add({.schema = "aten::triu(Tensor self, SymInt diagonal=0) -> Tensor", .meta = meta_tri, .cpu = cpu_triu,
                   .decomp = decomp_trilu<true>});
  op_tril = r.add({.schema = "aten::tril(Tensor self, SymInt diagonal=0) -> Tensor", .meta = meta_tri, .cpu = cpu_tril,
                   .decomp = decomp_trilu<false>});
  r.add({"aten::triu_(Tensor(a!) self, SymInt diagonal=0) -> Tensor(a!)", meta_tri_, cpu_triu});
  r.add({"aten::tril_(Tensor(a!) self, SymInt diagonal=0) -> Tensor(a!)", meta_tri_, cpu_tril});
  op_flip = r.add({"aten::flip(Tensor self, int[] dims) -> Tensor", meta_flip, cpu_flip});
  r.add(composite_alias<op_cat>("aten::concatenate(Tensor[] tensors, int dim=0) -> Tensor"));
}

}  // namespace ops

namespace {
IValue opt(std::optional<int64_t> v) { return v ? IValue(SymInt(*v)) : IValue(None{}); }
}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim, SrcLocArg loc) {
  if (dim == 0) return dispatch1(*op_cat, {tensors}, loc);
  return dispatch1(*op_cat, {tensors, SymInt(dim)}, loc);
}
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim, SrcLocArg loc) {
  if (dim == 0) return dispatch1(*op_stack, {tensors}, loc);
  return dispatch1(*op_stack, {tensors, SymInt(dim)}, loc);
}
Tensor repeat(const Tensor& self, Sizes repeats, SrcLocArg loc) {
  return dispatch1(*op_repeat, {self, std::move(repeats)}, loc);
}
Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size, SrcLocArg loc) {
  return dispatch1(*op_repeat_interleave_self_int, {self, SymInt(repeats), opt(dim), opt(output_size)}, loc);
}
Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size, SrcLocArg loc) {
  return dispatch1(*op_repeat_interleave_self_Tensor, {self, repeats, opt(dim), opt(output_size)}, loc);
}
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size, SrcLocArg loc) {
  return dispatch1(*op_repeat_interleave_Tensor, {repeats, opt(output_size)}, loc);
}
Tensor triu(const Tensor& self, int64_t diagonal, SrcLocArg loc) {
  return dispatch1(*op_triu, {self, SymInt(diagonal)}, loc);
}
Tensor tril(const Tensor& self, int64_t diagonal, SrcLocArg loc) {
  return dispatch1(*op_tril, {self, SymInt(diagonal)}, loc);
}
Tensor flip(const Tensor& self, const std::vector<int64_t>& dims, SrcLocArg loc) {
  return dispatch1(*op_flip, {self, std::vector<SymInt>(dims.begin(), dims.end())}, loc);
}
Tensor Tensor::repeat(std::vector<SymInt> repeats, SrcLocArg loc) const { return fe::repeat(*this, std::move(repeats), loc); }
Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int64_t> dim, SrcLocArg loc) const {
  return fe::repeat_interleave(*this, repeats, dim, std::nullopt, loc);
}
Tensor Tensor::triu(int64_t diagonal, SrcLocArg loc) const { return fe::triu(*this, diagonal, loc); }
Tensor Tensor::tril(int64_t diagonal, SrcLocArg loc) const { return fe::tril(*this, diagonal, loc); }

}  // namespace fe
