// Shared metadata steps of the linalg family (see linalg_meta.h) and the strided matmul kernel.
#include "ops/linalg_meta.h"

#include <algorithm>

#include "core/element.h"
#include "ops/cpu_util.h"
#include "ops/view_impl.h"

namespace fe::ops::linalg {

// at::detail::computeStride is the view family's (symbolic-aware) implementation.
std::optional<DimVector> compute_stride(IntSpan sizes, IntSpan strides, IntSpan shape) {
  return ops::compute_stride(sizes, strides, shape);
}

TensorMeta permute(const TensorMeta& m, std::span<const int64_t> perm) {
  TensorMeta r = m;
  for (size_t i = 0; i < perm.size(); ++i) {
    r.sizes[i] = m.sizes[perm[i]];
    r.strides[i] = m.strides[perm[i]];
  }
  return r;
}

TensorMeta unsqueeze(const TensorMeta& m, int64_t dim) {
  TensorMeta r = m;
  const SymInt st = dim >= m.dim() ? SymInt(1) : m.sizes[dim] * m.strides[dim];
  r.sizes.insert_at(dim, 1);
  r.strides.insert_at(dim, st);
  return r;
}

TensorMeta squeeze0(const TensorMeta& m) {
  TensorMeta r = m;
  r.sizes.erase_at(0);
  r.strides.erase_at(0);
  return r;
}

TensorMeta mT(const TensorMeta& m) {
  TensorMeta r = m;
  const size_t n = m.sizes.size();
  std::swap(r.sizes[n - 1], r.sizes[n - 2]);
  std::swap(r.strides[n - 1], r.strides[n - 2]);
  return r;
}

static bool any_symbolic(IntSpan s) {
  return std::any_of(s.begin(), s.end(), [](const SymInt& v) { return v.is_symbolic(); });
}

std::optional<DimVector> view_strides(const TensorMeta& m, IntSpan shape) {
  // A non-empty contiguous tensor is one chunk (its size-1 dims do not split it): computeStride
  // gives the view the contiguous strides of `shape`, except that trailing size-1 dims of `shape`
  // take the stride of m's last dim. Decided without guards, so symbolic sizes stay symbolic.
  if (any_symbolic(m.sizes) || any_symbolic(m.strides) || any_symbolic(shape)) {
    const bool nonempty = statically_known_true(sym_ne(m.numel(), 0));
    const bool tail_ok = m.dim() == 0 || shape.empty() || m.strides.back().same_as(1) ||
                         statically_known_true(sym_ne(shape.back(), 1));
    if (nonempty && tail_ok && m.is_contiguous()) return contiguous_strides(shape);
  }
  return compute_stride(m.sizes, m.strides, shape);
}

SymInt reshape_copy_bytes(const TensorMeta& m, IntSpan shape) {
  if (view_strides(m, shape)) return 0;
  SymInt bytes = itemsize(m.dtype);
  for (const SymInt& d : shape) bytes = bytes * d;
  return bytes;
}

TensorMeta reshape(const TensorMeta& m, IntSpan shape) {
  if (auto st = view_strides(m, shape)) {
    TensorMeta r = m;
    r.sizes = DimVector(shape);
    r.strides = *st;
    return r;
  }
  return make_contiguous(shape, m.dtype, m.device);
}

DimVector infer_size(const MetaArgs& a, IntSpan x, IntSpan y) {
  const size_t n = std::max(x.size(), y.size());
  DimVector out(n, SymInt(1));
  for (size_t k = 0; k < n; ++k) {
    const int64_t i = static_cast<int64_t>(n) - 1 - static_cast<int64_t>(k);
    const int64_t ox = static_cast<int64_t>(x.size()) - 1 - static_cast<int64_t>(k);
    const int64_t oy = static_cast<int64_t>(y.size()) - 1 - static_cast<int64_t>(k);
    const SymInt sx = ox >= 0 ? x[ox] : SymInt(1);
    const SymInt sy = oy >= 0 ? y[oy] : SymInt(1);
    FE_CHECK(sx == sy || sx == 1 || sy == 1, ShapeError, label(a), ": The size of tensor a (", sx,
             ") must match the size of tensor b (", sy, ") at non-singleton dimension ", i);
    out[i] = sx == 1 ? sy : sx;
  }
  return out;
}

std::string size_repr(IntSpan s) { return "torch.Size(" + shape_str(s) + ")"; }

/// torch._refs._broadcast_shapes over two shapes, with its message ("Attempting to broadcast ...").
DimVector prims_broadcast(const MetaArgs& a, IntSpan x, IntSpan y) {
  DimVector common(std::max(x.size(), y.size()), SymInt(1));
  const IntSpan shapes[2] = {x, y};
  const int64_t n = static_cast<int64_t>(common.size());
  for (int arg = 0; arg < 2; ++arg) {
    const IntSpan s = shapes[arg];
    const int64_t ns = static_cast<int64_t>(s.size());
    for (int64_t idx = -1; idx >= -ns; --idx) {
      const SymInt v = s[ns + idx];
      SymInt& c = common[n + idx];
      if (v == c) continue;
      if (c == 1) c = v;
      if (v == 1) continue;
      FE_CHECK(c == v, ShapeError, label(a), ": Attempting to broadcast a dimension of length ", v, " at ",
               idx, "! Mismatching argument at index ", arg, " had ", size_repr(s),
               "; but expected shape should be broadcastable to ", shape_str(common));
    }
  }
  return common;
}

// torch/_meta_registrations.py meta_mm.
TensorMeta mm_meta(const MetaArgs& a, const TensorMeta& x, const TensorMeta& y) {
  FE_CHECK(x.dim() == 2, ShapeError, label(a), ": a must be 2D");
  FE_CHECK(y.dim() == 2, ShapeError, label(a), ": b must be 2D");
  FE_CHECK(x.sizes[1] == y.sizes[0], ShapeError, label(a), ": a and b must have same reduction dim, but got [",
           x.sizes[0], ", ", x.sizes[1], "] X [", y.sizes[0], ", ", y.sizes[1], "].");
  SymInt s[2] = {x.sizes[0], y.sizes[1]};
  return make_contiguous(s, x.dtype, x.device);
}

// common_meta_baddbmm_bmm (is_bmm).
TensorMeta bmm_meta(const MetaArgs& a, const TensorMeta& x, const TensorMeta& y) {
  FE_CHECK(x.dim() == 3, ShapeError, label(a), ": batch1 must be a 3D tensor");
  FE_CHECK(y.dim() == 3, ShapeError, label(a), ": batch2 must be a 3D tensor");
  FE_CHECK(x.dtype == y.dtype, DTypeError, label(a), ": expected scalar type torch.", dtype_name(x.dtype),
           " but found torch.", dtype_name(y.dtype));
  FE_CHECK(y.sizes[0] == x.sizes[0] && y.sizes[1] == x.sizes[2], ShapeError, label(a),
           ": Expected size for first two dimensions of batch2 tensor to be: [", x.sizes[0], ", ", x.sizes[2],
           "] but got: [", y.sizes[0], ", ", y.sizes[1], "].");
  SymInt s[3] = {x.sizes[0], x.sizes[1], y.sizes[2]};
  return make_contiguous(s, y.dtype, y.device);
}

DType promoted(const TensorMeta& x, const TensorMeta& y) {
  ResultTypeState st;
  st.add_tensor(x.dtype, x.dim() == 0);
  st.add_tensor(y.dtype, y.dim() == 0);
  return st.result(DType::Float32);
}

// torch/_decomp/decompositions.py mv: (self * vec).sum(1) in the promoted dtype.
TensorMeta mv_meta(const MetaArgs& a, const TensorMeta& x, const TensorMeta& y) {
  FE_CHECK(x.dim() == 2 && y.dim() == 1, ShapeError, label(a), ": matrix @ vector expected, got ", x.dim(), ", ",
           y.dim());
  FE_CHECK(x.sizes[1] == y.sizes[0], ShapeError, label(a), ": size mismatch, got input (", x.sizes[0], "x",
           x.sizes[1], "), vec (", y.sizes[0], ")");
  SymInt s[1] = {x.sizes[0]};
  return make_contiguous(s, promoted(x, y), x.device);
}

// torch/_refs dot with _dot_check.
TensorMeta dot_meta(const MetaArgs& a, const TensorMeta& x, const TensorMeta& y) {
  FE_CHECK(x.dim() == 1 && y.dim() == 1, ShapeError, label(a), ": 1D tensors expected, but got ", x.dim(), "D and ",
           y.dim(), "D tensors");
  FE_CHECK(x.dtype == y.dtype, DTypeError, label(a), ": dot : expected both vectors to have same dtype, but found torch.",
           dtype_name(x.dtype), " and torch.", dtype_name(y.dtype));
  const SymInt nx = x.sizes[0], ny = y.sizes[0];
  FE_CHECK(nx == ny, ShapeError, label(a), ": inconsistent tensor size, expected tensor [", nx, "] and src [", ny,
           "] to have thesame number of elements, but got ", nx, " and ", ny, " elements respectively");
  return make_contiguous({}, x.dtype, x.device);
}

DimVector ti_strides(IntSpan shape, std::span<const TensorMeta* const> ins, int wrapped_numbers) {
  if (!ins.empty() && any_symbolic(shape)) {
    const TensorMeta& f = *ins[0];
    bool fast = f.sizes.size() == shape.size() && f.is_contiguous();
    for (size_t d = 0; fast && d < shape.size(); ++d)
      fast = f.sizes[d].same_as(shape[d]) && statically_known_true(sym_ge(shape[d], 2));
    if (fast) return contiguous_strides(shape);
  }
  return iter_output_strides(shape, ins, wrapped_numbers);
}

TensorMeta mul_meta(const MetaArgs& a, const TensorMeta& x, const TensorMeta& y) {
  DimVector sizes = infer_size(a, x.sizes, y.sizes);
  const TensorMeta* ins[2] = {&x, &y};
  TensorMeta r;
  r.strides = ti_strides(sizes, ins);
  r.sizes = std::move(sizes);
  r.dtype = promoted(x, y);
  r.device = x.device;
  return r;
}

// ---- kernels
double View::at(std::span<const int64_t> idx) const {
  int64_t o = offset;
  for (size_t d = 0; d < idx.size(); ++d) o += idx[d] * strides[d];
  return detail::load(base + o * itemsize(dtype), dtype);
}

View view_of(const Tensor& t) {
  const TensorMeta& m = t.meta();
  View v;
  v.dtype = m.dtype;
  v.offset = m.storage_offset.expect_int();
  v.base = static_cast<const std::byte*>(t.data_ptr()) - v.offset * itemsize(m.dtype);
  for (int64_t d = 0; d < m.dim(); ++d) {
    v.sizes.push_back(m.sizes[d].expect_int());
    v.strides.push_back(m.strides[d].expect_int());
  }
  return v;
}

std::vector<double> batched_matmul(const View& a, const View& b, std::vector<int64_t>& out_sizes) {
  const size_t na = a.sizes.size(), nb = b.sizes.size();
  const size_t nbatch = std::max(na, nb) - 2;
  out_sizes.assign(nbatch + 2, 1);
  for (size_t k = 0; k < nbatch; ++k) {
    const int64_t ia = static_cast<int64_t>(k) - static_cast<int64_t>(nbatch - (na - 2));
    const int64_t ib = static_cast<int64_t>(k) - static_cast<int64_t>(nbatch - (nb - 2));
    const int64_t sa = ia >= 0 ? a.sizes[ia] : 1, sb = ib >= 0 ? b.sizes[ib] : 1;
    out_sizes[k] = sa == 1 ? sb : sa;
  }
  const int64_t n = a.sizes[na - 2], kk = a.sizes[na - 1], p = b.sizes[nb - 1];
  out_sizes[nbatch] = n;
  out_sizes[nbatch + 1] = p;
  int64_t total = 1;
  for (int64_t s : out_sizes) total *= s;
  std::vector<double> vals(static_cast<size_t>(total));
  std::vector<int64_t> idx(nbatch + 2, 0), ia(na), ib(nb);
  for (int64_t e = 0; e < total; ++e) {
    for (size_t d = 0; d < nbatch; ++d) {
      const int64_t da = static_cast<int64_t>(d) - static_cast<int64_t>(nbatch - (na - 2));
      const int64_t db = static_cast<int64_t>(d) - static_cast<int64_t>(nbatch - (nb - 2));
      if (da >= 0) ia[da] = a.sizes[da] == 1 ? 0 : idx[d];
      if (db >= 0) ib[db] = b.sizes[db] == 1 ? 0 : idx[d];
    }
    ia[na - 2] = idx[nbatch];
    ib[nb - 1] = idx[nbatch + 1];
    double acc = 0;
    for (int64_t k = 0; k < kk; ++k) {
      ia[na - 1] = k;
      ib[nb - 2] = k;
      acc += a.at(ia) * b.at(ib);
    }
    vals[e] = acc;
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < out_sizes[d]) break;
      idx[d] = 0;
    }
  }
  return vals;
}

void store_rowmajor(const Tensor& t, const std::vector<double>& vals) {
  const TensorMeta& m = t.meta();
  std::vector<int64_t> idx(m.dim(), 0);
  for (size_t e = 0; e < vals.size(); ++e) {
    int64_t o = m.storage_offset.expect_int();
    for (int64_t d = 0; d < m.dim(); ++d) o += idx[d] * m.strides[d].expect_int();
    cpu::store_at(t, o, vals[e]);
    for (int64_t d = m.dim(); d-- > 0;) {
      if (++idx[d] < m.sizes[d].expect_int()) break;
      idx[d] = 0;
    }
  }
}

}  // namespace fe::ops::linalg
