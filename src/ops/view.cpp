// View and shape ops, part 1: view/reshape/_unsafe_view (PyTorch's two stride algorithms),
// flatten/unflatten, expand, contiguous/clone, alias, as_strided. Part 2 (indexing-like views) is
// view_index.cpp; the public API is view_api.cpp.
#include <algorithm>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "fakeexport/ops/functional_level.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/sym/shape_env.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"
#include "ops/view_impl.h"

namespace fe {
OpHandle op_alias;
OpHandle op_as_strided;
OpHandle op_clone;
OpHandle op_contiguous;
OpHandle op_detach;
OpHandle op_detach_;
OpHandle op_expand;
OpHandle op_expand_as;
OpHandle op_broadcast_to;
OpHandle op_flatten_using_ints;
OpHandle op_reshape;
OpHandle op_unflatten_int;
OpHandle op_unsafe_view;
OpHandle op_view;
}  // namespace fe

namespace fe {
namespace ops {

int64_t wrap(const MetaArgs& a, int64_t dim, int64_t ndim) { return wrap_dim(dim, ndim, label(a)); }

std::string infer_size(IntSpan shape, const SymInt& numel, bool python, DimVector& res) {
  std::optional<size_t> infer;
  SymInt newsize = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    const SymInt& d = shape[i];
    if (view_guard_or_false(py_rel(Rel::Eq, d, -1))) {  // guard_or_false: sizes are never -1
      if (infer) return "only one dimension can be inferred";
      infer = i;
    } else if (view_check(py_rel(Rel::Ge, d, 0))) {  // X - 1 >= 0 over data: a runtime assertion
      newsize *= d;
    } else if (python) {
      return detail::cat("invalid shape dimension ", d,
                         ". If this was symbolic, it was assumed to not be -1.If this was meant to be inferred, "
                         "please explicitly pass in -1.");
    } else {
      return detail::cat("invalid shape dimension ", d, " at index ", i, " of shape ", dims_str(shape));
    }
  }
  auto invalid = [&] { return detail::cat("shape '", dims_str(shape), "' is invalid for input of size ", numel); };
  auto ambiguous = [&] {
    return detail::cat("cannot reshape tensor of 0 elements into shape ", dims_str(shape),
                       " because the unspecified dimension size -1 can be any value and is ambiguous");
  };
  res = DimVector(shape);
  if (!infer) return view_check(sym_eq(numel, newsize)) ? std::string() : invalid();
  if (python) {  // torch._prims_common.infer_size: three torch._check's
    if (!view_guard(sym_ne(newsize, 0))) return view_guard(sym_eq(numel, 0)) ? ambiguous() : invalid();
    if (!view_guard(sym_eq(sym_rem(numel, newsize), 0))) return invalid();
  } else if (newsize.maybe_int() == 0) {  // at::infer_size_impl
    if (!view_guard(sym_eq(numel, newsize))) return invalid();
    if (!view_guard(sym_ne(newsize, 0))) return ambiguous();
  } else {
    // TORCH_SYM_CHECK((newsize > 0 && numel % newsize == 0) || numel == newsize): PyTorch guards the
    // disjunction as one expression; known parts decide it without a guard, else the parts guard.
    const SymBool pos = sym_gt(newsize, 0), divides = sym_eq(sym_rem(numel, newsize), 0), same = sym_eq(numel, newsize);
    const auto kp = view_static(pos), kd = view_static(divides), ks = view_static(same);
    bool ok;
    if ((kp == true && kd == true) || ks == true) ok = true;
    else if ((kp == false || kd == false) && ks == false) ok = false;
    else ok = (view_guard(pos) && view_guard(divides)) || view_guard(same);
    if (!ok) return invalid();
    if (!view_guard(sym_ne(newsize, 0))) return ambiguous();
  }
  res[*infer] = sym_div(numel, newsize);
  return {};
}

DimVector infer_size_or_throw(const MetaArgs& a, IntSpan shape, const SymInt& numel, bool python) {
  DimVector res;
  std::string err = infer_size(shape, numel, python, res);
  FE_CHECK(err.empty(), ShapeError, label(a), ": ", err);
  return res;
}

std::optional<DimVector> compute_stride(IntSpan oldshape, IntSpan oldstride, IntSpan newshape) {
  if (oldshape.empty()) return DimVector(newshape.size(), SymInt(1));
  SymInt numel = 1;
  for (const SymInt& s : oldshape) numel *= s;
  // Size-oblivious (fake_impls._compute_stride, c10's computeStride): questions over data answer
  // guard_or_false / guard_or_true; backed ones guard as before.
  const bool zero_numel = view_guard_or_false(sym_eq(numel, 0));
  if (zero_numel && oldshape.size() == newshape.size()) {
    bool same = true;
    for (size_t i = 0; i < oldshape.size() && same; ++i) same = view_guard_or_false(sym_eq(oldshape[i], newshape[i]));
    if (same) return DimVector(oldstride);
  }
  const int64_t nnew = static_cast<int64_t>(newshape.size());
  DimVector newstride(newshape.size(), SymInt(0));
  if (zero_numel) {
    for (int64_t d = nnew - 1; d >= 0; --d)
      newstride[d] = d == nnew - 1 ? SymInt(1)
                                   : (view_guard(sym_lt(newshape[d + 1], 1)) ? SymInt(1) : newshape[d + 1]) *
                                         newstride[d + 1];
    return newstride;
  }
  int64_t view_d = nnew - 1;
  SymInt chunk_base_stride = oldstride.back();
  SymInt tensor_numel = 1, view_numel = 1;
  for (int64_t td = static_cast<int64_t>(oldshape.size()) - 1; td >= 0; --td) {
    tensor_numel *= oldshape[td];
    // End of a contiguous chunk of the input: the view dims must tile it exactly.
    if (td == 0 || (view_guard_or_true(sym_ne(oldshape[td - 1], 1)) &&
                    view_guard_or_true(sym_ne(oldstride[td - 1], tensor_numel * chunk_base_stride)))) {
      while (view_d >= 0 &&
             (view_guard_or_true(sym_lt(view_numel, tensor_numel)) ||
              view_guard_or_false(sym_eq(newshape[view_d], 1)))) {
        newstride[view_d] = view_numel * chunk_base_stride;
        view_numel *= newshape[view_d];
        --view_d;
      }
      if (view_guard_or_true(sym_ne(view_numel, tensor_numel))) return std::nullopt;
      if (td > 0) {
        chunk_base_stride = oldstride[td - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return newstride;
}

namespace {

/// Python's `a == b` on sizes: an int on the left defers to the SymInt (Eq(s0, 2), not Eq(2, s0)).
SymBool py_eq(const SymInt& a, const SymInt& b) {
  return !a.is_symbolic() && b.is_symbolic() ? sym_eq(b, a) : sym_eq(a, b);
}

/// prims.split_dim: dim d of size accum becomes (outer, accum // outer).
void split_dim(DimVector& sz, DimVector& st, size_t d, const SymInt& outer) {
  const SymInt inner = sym_div(sz[d], outer);
  FE_CHECK(!view_guard(sym_ne(sym_rem(sz[d], outer), 0)), ShapeError, "Attempting to split dimension of length ",
           sz[d], ", but outer length of ", outer, " divides it with a remainder!");
  const SymInt stride = st[d];
  sz[d] = outer;
  st[d] = stride * inner;
  sz.insert_at(d + 1, inner);
  st.insert_at(d + 1, stride);
}

/// prims._collapse_view_helper for a non-empty tensor: merges dims [start, end] if a view can.
bool collapse_view(DimVector& sz, DimVector& st, size_t start, size_t end) {
  // valid = AND over i of OR(sz[i] == 1, sz[i+1] == 1, st[i] == st[i+1] * sz[i+1]), one guard in
  // PyTorch; statically known disjuncts decide without a guard, unknown ones guard in order.
  for (size_t i = end; i-- > start;) {
    const SymBool parts[3] = {sym_eq(sz[i], 1), sym_eq(sz[i + 1], 1), sym_eq(st[i], st[i + 1] * sz[i + 1])};
    bool known_true = false, all_false = true;
    for (const SymBool& p : parts) {
      const auto k = view_static(p);
      known_true = known_true || k == true;
      all_false = all_false && k == false;
    }
    if (known_true) continue;
    if (all_false) return false;
    bool any = false;
    for (const SymBool& p : parts) any = any || view_guard(p);
    if (!any) return false;
  }
  SymInt stride = st[end], length = sz[end];
  for (size_t i = end; i-- > start;) {
    // min(stride, st[i]): non-strict export runs Python's builtin min as torch.sym_min on SymInts
    // (non_strict_utils._override_builtin_ops), so symbolic strides stay Min(32, 32*s27).
    if (!view_guard(sym_ne(sz[i], 1))) continue;
    if (ExportSemanticsScope::active()) stride = sym_min(stride, st[i]);
    else if (view_guard(sym_lt(st[i], stride))) stride = st[i];
  }
  // The length multiplies in size-1 dims too: [1, s, 32] viewed as [-1, 32] has a new SymInt s,
  // not the input's (measured), so a later read of it is a new sym_size node.
  for (size_t i = end; i-- > start;) length = length * sz[i];
  for (size_t i = end; i > start; --i) {
    sz.erase_at(i);
    st.erase_at(i);
  }
  sz[start] = length;
  st[start] = stride;
  return true;
}

}  // namespace

/// _is_contiguous_with_hinted_checks: contiguity judged on hints where sizes have them, each
/// equality so used becoming a check; a size or stride without a hint is not contiguous.
bool contiguous_with_hinted_checks(const TensorMeta& t) {
  const SymInt numel = t.numel();
  if (view_guard_or_false(sym_lt(numel, 2))) return true;
  if (sym::has_unbacked(numel)) return false;
  if (numel.hint() < 2) return view_check(sym_lt(numel, 2));
  const auto hinted_eq = [](const SymInt& l, const SymInt& r) {
    if (view_guard_or_false(sym_eq(l, r))) return true;
    if (sym::has_unbacked(l) || sym::has_unbacked(r) || l.hint() != r.hint()) return false;
    return view_check(sym_eq(l, r));
  };
  return contiguous_walk(t.sizes, t.strides, [](const SymInt&) { return false; }, hinted_eq);
}

/// fake_impls._view_unbacked_meta: a view where a size, stride or target size is read from data
/// (u0, Funnel's CeilToInt(...) of unbacked floats). Its checks become runtime assertions, and the
/// strides come from contiguity or the size-oblivious compute_stride, never from split_dim's
/// arithmetic over sizes without hints.
TensorMeta view_unbacked(const MetaArgs& a, const TensorMeta& self, IntSpan proposed) {
  const SymInt numel = self.numel();
  const DimVector shape = infer_size_or_throw(a, proposed, numel, true);
  TensorMeta m = self;
  m.sizes = shape;
  if (self.dim() == 0) {  // unsqueeze(-1) per length, each checked to be 1
    for (const SymInt& s : shape) view_check(sym_eq(s, 1));
    m.strides = DimVector(shape.size(), SymInt(1));
    return m;
  }
  if (shape.empty()) {  // squeeze every dim, each checked to be 1
    for (const SymInt& s : self.sizes) view_check(sym_eq(s, 1));
    m.strides.clear();
    return m;
  }
  SymInt shape_numel = 1;
  for (const SymInt& s : shape) shape_numel = shape_numel * s;
  FE_CHECK(view_check(sym_eq(numel, shape_numel)), ShapeError, label(a), ": Could not reshape a tensor with shape ",
           dims_str(self.sizes), " as a tensor with shape ", dims_str(shape), "!");
  if (shape.size() == self.sizes.size()) {
    bool same = true;
    for (size_t i = 0; i < shape.size() && same; ++i) same = view_guard_or_false(sym_eq(shape[i], self.sizes[i]));
    if (same) {
      m.sizes = self.sizes;
      return m;
    }
  }
  if (contiguous_or_false(self.sizes, self.strides) || contiguous_with_hinted_checks(self)) {
    m.strides = contiguous_strides(shape);
    return m;
  }
  if (auto st = compute_stride(self.sizes, self.strides, shape)) {
    m.strides = *st;
    return m;
  }
  // PyTorch retries guarding on the hints, which sizes read from data do not have.
  throw ShapeError(detail::cat(label(a), ": Cannot view a tensor with shape torch.Size(", dims_str(self.sizes),
                               ") and strides ", py_tuple(self.strides), " as a tensor with shape ", py_tuple(shape),
                               "! (a size read from data leaves the layout undecided)"));
}

TensorMeta ref_view(const MetaArgs& a, const TensorMeta& self, IntSpan proposed) {
  if (has_unbacked_input(self.sizes, self.strides, proposed)) return view_unbacked(a, self, proposed);
  const SymInt numel = self.numel();
  const DimVector shape = infer_size_or_throw(a, proposed, numel, true);
  TensorMeta m = self;
  m.sizes = shape;
  if (view_guard(sym_eq(numel, 0))) {
    m.strides = contiguous_strides(shape);
    return m;
  }
  if (self.dim() == 0) {  // unsqueeze(-1) per length 1: innermost strides are 1
    m.strides = DimVector(shape.size(), SymInt(1));
    return m;
  }
  if (shape.empty()) {  // squeeze every (size-1) dim
    m.strides.clear();
    return m;
  }
  if (self.is_contiguous()) {
    if (shape.size() == 1 && self.dim() > 1) {  // as_strided(a, [a.numel()], [1])
      m.sizes = DimVector{numel};
      m.strides = DimVector{SymInt(1)};
      return m;
    }
    if (shape.size() == 2 && self.dim() == 1) {
      m.strides = DimVector{shape[1], SymInt(1)};
      return m;
    }
  }
  SymInt shape_numel = 1;
  for (const SymInt& s : shape) shape_numel = shape_numel * s;
  FE_CHECK(view_guard(sym_eq(numel, shape_numel)), ShapeError, label(a), ": Could not reshape a tensor with shape ",
           dims_str(self.sizes), " as a tensor with shape ", dims_str(shape), "!");
  // _reshape_view_helper_core_alg: build the target dims left to right by merging and splitting.
  DimVector sz = self.sizes, st = self.strides;
  size_t idx = 0;
  for (const SymInt& length : shape) {
    if (idx >= sz.size()) {  // tail unsqueeze
      split_dim(sz, st, sz.size() - 1, sz.back());
      ++idx;
      continue;
    }
    if (view_guard(py_eq(length, sz[idx]))) {
      ++idx;
      continue;
    }
    SymInt accum = sz[idx];
    size_t end = idx;
    while (view_guard(sym_ne(sym_rem(accum, length), 0))) accum = accum * sz[++end];
    if (end != idx) {
      FE_CHECK(collapse_view(sz, st, idx, end), ShapeError, label(a), ": Cannot view a tensor with shape torch.Size(",
               dims_str(self.sizes), ") and strides ", py_tuple(self.strides), " as a tensor with shape ",
               py_tuple(shape), "!");
    }
    if (view_guard(sym_ne(accum, length))) split_dim(sz, st, idx, length);
    ++idx;
  }
  while (idx < sz.size()) {  // squeeze the tail of size-1 dims
    FE_CHECK(view_guard(sym_eq(sz[idx], 1)), ShapeError, label(a), ": a.size(", idx, ") expected to be 1 but got ",
             sz[idx]);
    sz.erase_at(idx);
    st.erase_at(idx);
  }
  m.strides = st;
  m.sizes = sz;
  return m;
}

void reshape_into(const MetaArgs& a, const TensorMeta& self, IntSpan shape, MetaOut& out) {
  out.alias_input0 = true;
  if (self.is_contiguous()) {
    out.push(ref_view(a, self, shape));
    return;
  }
  const DimVector sh = infer_size_or_throw(a, shape, self.numel(), false);
  if (compute_stride(self.sizes, self.strides, sh)) {
    out.push(ref_view(a, self, sh));
    return;
  }
  // No view exists: _unsafe_view(clone(contiguous), shape), a fresh tensor.
  out.alias_input0 = false;
  out.push(ref_view(a, make_contiguous(self.sizes, self.dtype, self.device), sh));
}

void cpu_copy_input0(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& in = std::get<Tensor>(a[0]);
  const TensorMeta& im = in.meta();
  const TensorMeta& om = o[0].meta();
  // Walk the input in row-major order; the output (same numel) in its own row-major order.
  TensorMeta flat_in = im, flat_out = om;
  std::vector<double> vals;
  vals.reserve(static_cast<size_t>(im.numel().expect_int()));
  cpu::Operand op = cpu::make_operand(a[0], im.sizes);
  for_each_element(flat_in, std::span(&op, 1), [&](int64_t, const int64_t* off) { vals.push_back(op.at(off[0])); });
  size_t k = 0;
  for_each_element(flat_out, std::span<const cpu::Operand>(), [&](int64_t out_off, const int64_t*) {
    cpu::store_at(o[0], out_off, vals[k++]);
  });
}

namespace {

// view(self, size) / _unsafe_view(self, size): FakeTensorMode runs torch._refs' view.
void meta_view(const MetaArgs& a, MetaOut& out) {
  out.push(ref_view(a, a.tensor(0), a.int_list(1)));
  out.alias_input0 = true;
}

void meta_reshape(const MetaArgs& a, MetaOut& out) { reshape_into(a, a.tensor(0), a.int_list(1), out); }

// flatten.using_ints: reshape of dims [start, end] into one; self itself when start == end.
void meta_flatten(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const int64_t start = wrap(a, a.to_int(1), self.dim());
  const int64_t end = wrap(a, a.to_int(2), self.dim());
  FE_CHECK(start <= end, ShapeError, label(a), ": flatten() has invalid args: start_dim cannot come after end_dim");
  if (self.dim() == 0) {
    const SymInt one[1] = {SymInt(1)};
    reshape_into(a, self, one, out);
    return;
  }
  if (start == end) {
    out.push(self);
    out.alias_input0 = true;
    return;
  }
  DimVector shape(self.sizes.begin(), self.sizes.begin() + start);
  SymInt n = 1;
  for (int64_t d = start; d <= end; ++d) n = n * self.sizes[d];
  shape.push_back(n);
  for (int64_t d = end + 1; d < self.dim(); ++d) shape.push_back(self.sizes[d]);
  reshape_into(a, self, shape, out);
}

// unflatten.int(self, dim, sizes): view with dim split into sizes (one may be -1).
void meta_unflatten(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const int64_t dim = wrap(a, a.to_int(1), self.dim());
  const auto& sizes = a.int_list(2);
  FE_CHECK(!sizes.empty(), ShapeError, label(a), ": unflatten: sizes must be non-empty");
  FE_CHECK(self.dim() > 0, IndexError, label(a),
           ": unflatten got an unexpected error:\nDimension specified as 0 but tensor has no dimensions");
  DimVector inferred;
  std::string err = infer_size(sizes, self.sizes[dim], false, inferred);
  if (!err.empty()) {
    FE_CHECK(err.find("is invalid for input of size") == std::string::npos, ShapeError, label(a),
             ": unflatten: Provided sizes ", dims_str(sizes), " don't multiply up to the size of dim ", dim, " (",
             self.sizes[dim], ") in the input tensor");
    throw ShapeError(detail::cat(label(a), ": unflatten got an unexpected error:\n", err));
  }
  DimVector shape(self.sizes.begin(), self.sizes.begin() + dim);
  for (SymInt s : inferred) shape.push_back(s);
  for (int64_t d = dim + 1; d < self.dim(); ++d) shape.push_back(self.sizes[d]);
  out.push(ref_view(a, self, shape));
  out.alias_input0 = true;
}

/// "MetaFloatType": the C++ type string (Tensor::toString) expand's message prints for fake tensors.
std::string meta_type_string(DType t) { return std::string("Meta") + scalar_type_name(t) + "Type"; }

/// Negative sizes reaching as_strided: PyTorch's numel computation reports them.
void check_sizes_nonnegative(const MetaArgs& a, IntSpan sizes) {
  bool neg = false, zero = false;
  SymInt first_neg = 0;
  for (const SymInt& s : sizes) {
    const bool is_neg = view_guard(sym_lt(s, 0));
    if (is_neg && !neg) first_neg = s;
    neg = neg || is_neg;
    zero = zero || view_guard(sym_eq(s, 0));
  }
  if (!neg) return;
  FE_CHECK(!zero, ShapeError, label(a), ": Trying to create tensor with negative dimension ", first_neg, ": ",
           dims_str(sizes));
  throw ShapeError(detail::cat(label(a), ": numel: integer multiplication overflow"));
}

/// at::inferExpandGeometry: new leading dims and size-1 dims broadcast with stride 0.
TensorMeta expand_meta(const MetaArgs& a, const TensorMeta& self, IntSpan sizes) {
  const int64_t ndim = static_cast<int64_t>(sizes.size()), tdim = self.dim();
  FE_CHECK(ndim >= tdim, ShapeError, label(a), ": expand(", meta_type_string(self.dtype), "{", dims_str(self.sizes),
           "}, size=", dims_str(sizes), "): the number of sizes provided (", ndim,
           ") must be greater or equal to the number of dimensions in the tensor (", tdim, ")");
  TensorMeta m = self;
  m.sizes = DimVector(sizes);
  m.strides = DimVector(sizes.size(), SymInt(0));
  for (int64_t i = ndim - 1; tdim > 0 && i >= 0; --i) {
    const int64_t dim = tdim - 1 - (ndim - 1 - i);
    SymInt size = dim >= 0 ? self.sizes[dim] : SymInt(1);
    SymInt stride = dim >= 0 ? self.strides[dim] : (i + 1 < ndim ? m.sizes[i + 1] * m.strides[i + 1] : SymInt(1));
    SymInt target = sizes[i];
    if (view_guard(sym_eq(target, -1))) {
      FE_CHECK(dim >= 0, ShapeError, label(a), ": The expanded size of the tensor (", target,
               ") isn't allowed in a leading, non-existing dimension ", i);
      target = size;
    }
    if (view_guard(sym_ne(size, target))) {
      FE_CHECK(view_guard(sym_eq(size, 1)), ShapeError, label(a), ": The expanded size of the tensor (", target,
               ") must match the existing size (", size, ") at non-singleton dimension ", i, ".  Target sizes: ",
               dims_str(sizes), ".  Tensor sizes: ", dims_str(self.sizes));
      size = target;
      stride = 0;
    }
    m.sizes[i] = size;
    m.strides[i] = stride;
  }
  check_sizes_nonnegative(a, m.sizes);
  return m;
}

void meta_expand(const MetaArgs& a, MetaOut& out) {
  out.push(expand_meta(a, a.tensor(0), a.int_list(1)));
  out.alias_input0 = true;
}

void meta_expand_as(const MetaArgs& a, MetaOut& out) {
  out.push(expand_meta(a, a.tensor(0), a.tensor(1).sizes));
  out.alias_input0 = true;
}

/// Strides of a fresh copy of `self` in memory format f (clone / contiguous).
DimVector copy_strides(const MetaArgs& a, const TensorMeta& self, MemoryFormat f) {
  switch (f) {
    case MemoryFormat::Contiguous: return contiguous_strides(self.sizes);
    case MemoryFormat::ChannelsLast:
      FE_CHECK(self.dim() == 4, ShapeError, label(a), ": required rank 4 tensor to use channels_last format");
      return channels_last_strides(self.sizes);
    case MemoryFormat::ChannelsLast3d:
      FE_CHECK(false, ShapeError, label(a), ": required rank 5 tensor to use channels_last_3d format");
      break;
    case MemoryFormat::Preserve: break;
  }
  if (self.is_non_overlapping_and_dense()) return self.strides;
  const TensorMeta* ins[1] = {&self};
  return iter_output_strides(self.sizes, ins);
}

// contiguous(self, memory_format): self itself when already contiguous in that format, else a copy.
void meta_contiguous(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const MemoryFormat f = a.opt_memory_format(1).value_or(MemoryFormat::Contiguous);
  // is_contiguous(preserve_format) is the default contiguity: the check comes after it.
  const bool already = f == MemoryFormat::ChannelsLast ? self.is_channels_last_contiguous() : self.is_contiguous();
  if (already && f != MemoryFormat::ChannelsLast3d) {
    out.push(self);
    out.alias_input0 = true;
    return;
  }
  FE_CHECK(f != MemoryFormat::Preserve, ValueError, label(a),
           ": preserve memory format is unsupported by the contiguous operator");
  TensorMeta m = make_contiguous(self.sizes, self.dtype, self.device);
  m.strides = copy_strides(a, self, f);
  out.push(std::move(m));
}

void meta_clone(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  TensorMeta m = make_contiguous(self.sizes, self.dtype, self.device);
  m.strides = copy_strides(a, self, a.opt_memory_format(1).value_or(MemoryFormat::Preserve));
  out.push(std::move(m));
}

void meta_alias(const MetaArgs& a, MetaOut& out) {
  out.push(a.tensor(0));
  out.alias_input0 = true;
}

// detach: a view of self that autograd does not track (a fresh tensor never requires grad).
void meta_detach(const MetaArgs& a, MetaOut& out) {
  TensorMeta m = a.tensor(0);
  m.requires_grad = false;
  out.push(std::move(m));
  out.alias_input0 = true;
}
// detach_: only autograd state changes; the dispatcher returns self itself.
void meta_detach_(const MetaArgs& a, MetaOut& out) { out.push(a.tensor(0)); }
/// PyTorch refuses to detach a view in place (its meta cannot see view-ness; real tensors can).
void cpu_detach_(const OpDef& op, std::span<const IValue> a, std::span<Tensor>) {
  FE_CHECK(!std::get<Tensor>(a[0]).impl()->view_base, ValueError, op.schema.ns, "::", op.schema.name,
           ": Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for "
           "training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence "
           "detach_() cannot be called on these gradients. To fix this error, please refer to the "
           "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.");
}

// as_strided(self, size, stride, storage_offset?): any view of self's storage.
void meta_as_strided(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const auto& size = a.int_list(1);
  const auto& stride = a.int_list(2);
  FE_CHECK(size.size() == stride.size(), ShapeError, label(a), ": mismatch in length of strides and shape");
  for (const SymInt& s : stride)
    FE_CHECK(view_guard(sym_ge(s, 0)), ShapeError, label(a),
             ": as_strided: Negative strides are not supported at the moment, got strides: ", dims_str(stride));
  check_sizes_nonnegative(a, size);
  TensorMeta m = self;
  m.sizes = DimVector(size);
  m.strides = DimVector(stride);
  if (!a.is_none(3)) m.storage_offset = a.sym_int(3);
  FE_CHECK(view_guard(sym_ge(m.storage_offset, 0)), ShapeError, label(a), ": Tensor: invalid storage offset ",
           m.storage_offset);
  out.push(std::move(m));
  out.alias_input0 = true;
}

/// reshape (CompositeImplicit on a FakeTensor): a view when one exists, else
/// _unsafe_view(clone(self, contiguous_format), shape).
std::vector<Tensor> decomp_reshape(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  const auto& shape = std::get<std::vector<SymInt>>(a[1]);
  // ATen's reshape_symint: a contiguous self is viewed with the shape as given (a -1 stays -1); a
  // viewable one with the inferred sizes; otherwise the contiguous copy is _unsafe_view'ed with the
  // inferred sizes too. The contiguity is c10's, which a retrace records on its own terms
  // (export/functional_names.h), not as our arithmetic.
  bool contiguous = false;
  {
    UntracedArithmetic untraced("aten::reshape", x.sizes());
    contiguous = contiguous_or_false(x.sizes(), x.meta().strides);  // is_contiguous_or_false
  }
  if (contiguous) return {fe::view(x, shape, loc)};
  // infer_size_dv and computeStride, which a retrace records as C++ runs them.
  note_view_shape_computed(x, shape);
  MetaOut mo;
  std::vector<MetaValue> margs{&x.meta(), shape};
  {
    UntracedArithmetic untraced("aten::reshape", x.sizes());
    run_meta(*op_reshape, margs, mo);
  }
  // infer_size: the given sizes themselves (the same symbolic values, so the graph reads the
  // node that computed them), the one -1 replaced by what the meta inferred.
  const DimVector& sizes = mo.outs.at(0).sizes;
  std::vector<SymInt> inferred(shape.begin(), shape.end());
  for (size_t i = 0; i < inferred.size() && i < sizes.size(); ++i)
    if (inferred[i].maybe_int() == -1) inferred[i] = sizes[i];
  if (mo.alias_input0) return {fe::view(x, inferred, loc)};
  const Tensor c = fe::clone(x, MemoryFormat::Contiguous, loc);
  return {dispatch1(*op_unsafe_view, {c, inferred}, loc)};
}
/// detach (torch._decomp's nop_decomposition): alias.
std::vector<Tensor> decomp_detach(std::span<const IValue> a, const SrcLocArg& loc) {
  return {dispatch1(*op_alias, {a[0]}, loc)};
}
/// torch._decomp's _unsafe_view: view.
std::vector<Tensor> decomp_unsafe_view(std::span<const IValue> a, const SrcLocArg& loc) {
  return {fe::view(decomp_tensor(a, 0), std::get<std::vector<SymInt>>(a[1]), loc)};
}
/// broadcast_to (CompositeImplicit): self.expand(size).
std::vector<Tensor> decomp_broadcast_to(std::span<const IValue> a, const SrcLocArg& loc) {
  return {fe::expand(decomp_tensor(a, 0), std::get<std::vector<SymInt>>(a[1]), false, loc)};
}
/// expand_as (CompositeImplicit): self.expand(other.sizes()).
std::vector<Tensor> decomp_expand_as(std::span<const IValue> a, const SrcLocArg& loc) {
  const IntSpan sizes = decomp_tensor(a, 1).sizes();
  return {fe::expand(decomp_tensor(a, 0), std::vector<SymInt>(sizes.begin(), sizes.end()), false, loc)};
}
/// flatten.using_ints (CompositeImplicit): self when start == end, else reshape to the merged sizes.
std::vector<Tensor> decomp_flatten(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  if (x.dim() == 0) return {fe::reshape(x, {SymInt(1)}, loc)};
  int64_t s = std::get<SymInt>(a[1]).expect_int(), e = std::get<SymInt>(a[2]).expect_int();
  if (s < 0) s += x.dim();
  if (e < 0) e += x.dim();
  if (s == e) return {x};
  std::vector<SymInt> shape;
  SymInt merged(1);
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d < s || d > e) shape.push_back(x.sizes()[d]);
    else merged = peephole_mul(merged, x.sizes()[d]);  // multiply_integers from 1
    if (d == e) shape.push_back(merged);
  }
  return {fe::reshape(x, shape, loc)};
}
/// contiguous (CompositeImplicit): self when already contiguous in that format, else clone(self, format).
std::vector<Tensor> decomp_contiguous(std::span<const IValue> a, const SrcLocArg& loc) {
  return {contiguous_or_clone(decomp_tensor(a, 0), std::get<MemoryFormat>(a[1]), "aten::contiguous", loc)};
}

/// unflatten.int (CompositeImplicit): view with the dim replaced by the sizes (a -1 inferred).
std::vector<Tensor> decomp_unflatten(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  MetaOut mo;
  std::vector<MetaValue> margs{&x.meta(), std::get<SymInt>(a[1]), std::get<std::vector<SymInt>>(a[2])};
  run_meta(*op_unflatten_int, margs, mo);
  const DimVector& sizes = mo.outs.at(0).sizes;
  return {fe::view(x, std::vector<SymInt>(sizes.begin(), sizes.end()), loc)};
}

}  // namespace

void register_view_shape_ops(Registry& r) {
  op_view = r.add({"aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)", meta_view});
  op_reshape = r.add({.schema = "aten::reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)", .meta = meta_reshape,
                      .cpu = cpu_copy_input0, .decomp = decomp_reshape});
  op_unsafe_view = r.add({.schema = "aten::_unsafe_view(Tensor self, SymInt[] size) -> Tensor", .meta = meta_view,
                          .cpu = cpu_copy_input0, .decomp = decomp_unsafe_view});
  op_flatten_using_ints = r.add({.schema = "aten::flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)",
                                 .meta = meta_flatten, .cpu = cpu_copy_input0, .may_return_self = true,
                                 .decomp = decomp_flatten});
  op_unflatten_int = r.add({.schema = "aten::unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)",
                            .meta = meta_unflatten, .decomp = decomp_unflatten});
  op_expand = r.add({"aten::expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)", meta_expand});
  op_expand_as = r.add({.schema = "aten::expand_as(Tensor(a) self, Tensor other) -> Tensor(a)", .meta = meta_expand_as,
                        .decomp = decomp_expand_as});
  op_broadcast_to = r.add({.schema = "aten::broadcast_to(Tensor(a) self, SymInt[] size) -> Tensor(a)", .meta = meta_expand,
                           .decomp = decomp_broadcast_to});
  op_contiguous = r.add({.schema = "aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a)",
                         .meta = meta_contiguous, .cpu = cpu_copy_input0, .may_return_self = true,
                         .decomp = decomp_contiguous});
  op_clone = r.add({"aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor", meta_clone, cpu_copy_input0});
  op_alias = r.add({"aten::alias(Tensor(a) self) -> Tensor(a)", meta_alias});
  op_detach = r.add({.schema = "aten::detach(Tensor(a) self) -> Tensor(a)", .meta = meta_detach,
                     .decomp = decomp_detach});
  op_detach_ = r.add({"aten::detach_(Tensor(a!) self) -> Tensor(a!)", meta_detach_, cpu_detach_});
  op_as_strided = r.add({"aten::as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)",
         meta_as_strided});
}

void register_view_ops(Registry& r) {
  register_view_shape_ops(r);
  register_view_index_ops(r);
}

}  // namespace ops

Tensor contiguous_or_clone(const Tensor& x, MemoryFormat mf, std::string_view op, const SrcLocArg& loc) {
  bool already = true;
  {
    ops::UntracedArithmetic untraced(op, x.sizes());
    already = mf == MemoryFormat::ChannelsLast ? x.meta().is_channels_last_contiguous()
              : mf == MemoryFormat::Preserve   ? true
                                               : x.meta().is_contiguous();
  }
  return already ? x : fe::clone(x, mf, loc);
}

}  // namespace fe
