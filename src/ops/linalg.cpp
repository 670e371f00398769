// Linear algebra ops: linear, t, mm, addmm, bmm, baddbmm, matmul, outer, dot, mv (einsum in
// linalg_einsum.cpp). Composite ops follow the steps PyTorch's FakeTensorMode takes (ATen's
// CompositeImplicit code and the Python meta/decompositions), so errors and dtypes match fake mode.
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "fakeexport/ops/functional_level.h"
#include "fakeexport/sym/shape_env.h"
#include "ops/annotation.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/linalg_meta.h"
#include "ops/meta_util.h"

namespace fe {
OpHandle op_bmm;
namespace {
OpHandle op_addmm;
OpHandle op_baddbmm;
OpHandle op_dot;
OpHandle op_linear;
OpHandle op_matmul;
OpHandle op_mm;
OpHandle op_mv;
OpHandle op_outer;
OpHandle op_t;
}  // namespace
}  // namespace fe

namespace fe {
namespace ops {
namespace {

using namespace linalg;

// torch._decomp addmm: alpha * mm(mat1, mat2) + beta * self, computed in the promoted dtype
// (pw_cast_for_opmath), so mismatched dtypes promote instead of raising.
TensorMeta addmm_meta(const MetaArgs& a, const TensorMeta& self, const TensorMeta& m1, const TensorMeta& m2,
                      bool beta_zero) {
  ResultTypeState st;
  for (const TensorMeta* t : {&self, &m1, &m2}) st.add_tensor(t->dtype, t->dim() == 0);
  const DType dt = st.result(DType::Float32);
  TensorMeta out = mm_meta(a, m1, m2);
  out.dtype = dt;
  if (beta_zero) return out;
  DimVector sizes = prims_broadcast(a, out.sizes, self.sizes);
  // beta * self is a TensorIterator output of self alone (a Python number disables the fast path).
  const TensorMeta* one[1] = {&self};
  TensorMeta scaled = self;
  scaled.strides = ti_strides(self.sizes, one, 1);
  const TensorMeta* two[2] = {&out, &scaled};
  TensorMeta r = out;
  r.strides = ti_strides(sizes, two);
  r.sizes = std::move(sizes);
  return r;
}

bool is_zero_scalar(const MetaArgs& a, size_t i) { return a.to_double(i) == 0; }

void meta_addmm(const MetaArgs& a, MetaOut& out) {
  out.push(addmm_meta(a, a.tensor(0), a.tensor(1), a.tensor(2), is_zero_scalar(a, 3)));
}

TensorMeta t_meta(const MetaArgs& a, const TensorMeta& x) {
  FE_CHECK(x.dim() <= 2, ShapeError, label(a), ": t() expects a tensor with <= 2 dimensions, but self is ", x.dim(),
           "D");
  TensorMeta m = x;
  m.requires_grad = false;
  if (x.dim() == 2) m = mT(m);
  return m;
}

// t(self): transposes dims 0 and 1 of a <= 2-D tensor, as a view.
void meta_t(const MetaArgs& a, MetaOut& out) {
  out.push(t_meta(a, a.tensor(0)));
  out.alias_input0 = true;
}

void meta_mm(const MetaArgs& a, MetaOut& out) { out.push(mm_meta(a, a.tensor(0), a.tensor(1))); }
void meta_bmm(const MetaArgs& a, MetaOut& out) { out.push(bmm_meta(a, a.tensor(0), a.tensor(1))); }
void meta_mv(const MetaArgs& a, MetaOut& out) { out.push(mv_meta(a, a.tensor(0), a.tensor(1))); }
void meta_dot(const MetaArgs& a, MetaOut& out) { out.push(dot_meta(a, a.tensor(0), a.tensor(1))); }

const char* meta_type_name(DType t) {
  switch (t) {
    case DType::Float32: return "MetaFloatType";
    case DType::Float64: return "MetaDoubleType";
    case DType::Float16: return "MetaHalfType";
    case DType::BFloat16: return "MetaBFloat16Type";
    case DType::Int64: return "MetaLongType";
    case DType::Int32: return "MetaIntType";
    case DType::Int16: return "MetaShortType";
    case DType::Int8: return "MetaCharType";
    case DType::UInt8: return "MetaByteType";
    case DType::Bool: return "MetaBoolType";
    default: return "MetaType";
  }
}

SymInt size_at(const MetaArgs& a, const TensorMeta& m, int64_t d) {
  FE_CHECK(m.dim() > 0, IndexError, label(a), ": Dimension specified as ", d, " but tensor has no dimensions");
  return m.sizes[wrap_dim(d, m.dim(), label(a))];
}

/// self.expand(target) as meta_baddbmm does it, with ATen's expand messages.
void check_expand(const MetaArgs& a, const TensorMeta& self, IntSpan target) {
  const int64_t nt = static_cast<int64_t>(target.size()), ns = self.dim();
  FE_CHECK(nt >= ns, ShapeError, label(a), ": expand(", meta_type_name(self.dtype), "{", shape_str(self.sizes),
           "}, size=", shape_str(target), "): the number of sizes provided (", nt,
           ") must be greater or equal to the number of dimensions in the tensor (", ns, ")");
  for (int64_t i = nt - 1; i >= 0; --i) {
    const int64_t j = i - (nt - ns);
    if (j < 0) continue;
    FE_CHECK(self.sizes[j] == target[i] || self.sizes[j] == 1, ShapeError, label(a),
             ": The expanded size of the tensor (", target[i], ") must match the existing size (",
             self.sizes[j], ") at non-singleton dimension ", i, ".  Target sizes: ", shape_str(target),
             ".  Tensor sizes: ", shape_str(self.sizes));
  }
}

// torch/_meta_registrations.py meta_baddbmm.
void meta_baddbmm(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const TensorMeta& b1 = a.tensor(1);
  const TensorMeta& b2 = a.tensor(2);
  SymInt target[3] = {size_at(a, b1, 0), size_at(a, b1, 1), size_at(a, b2, 2)};
  if (!std::equal(self.sizes.begin(), self.sizes.end(), target, target + 3)) check_expand(a, self, target);
  FE_CHECK(b1.dim() == 3, ShapeError, label(a), ": batch1 must be a 3D tensor");
  FE_CHECK(b2.dim() == 3, ShapeError, label(a), ": batch2 must be a 3D tensor");
  FE_CHECK(self.dtype == b1.dtype && b1.dtype == b2.dtype, DTypeError, label(a),
           ": Input dtypes must be the same, got: input: torch.", dtype_name(self.dtype), ", batch1: torch.",
           dtype_name(b1.dtype), ", batch2: torch.", dtype_name(b2.dtype));
  FE_CHECK(b2.sizes[0] == b1.sizes[0] && b2.sizes[1] == b1.sizes[2], ShapeError, label(a),
           ": Expected size for first two dimensions of batch2 tensor to be: [", b1.sizes[0], ", ", b1.sizes[2],
           "] but got: [", b2.sizes[0], ", ", b2.sizes[1], "].");
  out.push(make_contiguous(target, self.dtype, self.device));
}

bool should_fold(const TensorMeta& t1_, const TensorMeta& t2_) {
  const bool larger = t1_.dim() >= t2_.dim();
  const TensorMeta t1 = larger ? t1_ : mT(t2_);
  const int64_t dim_t2 = larger ? t2_.dim() : t1_.dim();
  if (!(t1.dim() >= 3 && dim_t2 <= 2)) return false;
  if (larger ? t2_.requires_grad : t1_.requires_grad) return true;
  if (t1_.dim() == 2) return false;
  if (t1.numel() == 0) return true;  // statically false for symbolic sizes (>= 2): no guard
  for (int64_t i = 0; i < t1.dim() - 2; ++i)
    if (t1.strides[i] != t1.strides[i + 1] * t1.sizes[i + 1]) return false;
  return true;
}

SymInt prod(IntSpan s) {
  SymInt p = 1;
  for (const SymInt& v : s) p = p * v;
  return p;
}

// ATen's _matmul_impl (LinearAlgebra.cpp) for fake tensors: every path ends in a fresh contiguous
// tensor, so the meta tracks the op each path dispatches (dot/mv/mm/bmm) for its checks and dtype.
TensorMeta matmul_meta(const MetaArgs& a, const TensorMeta& x, const TensorMeta& y) {
  const int64_t d1 = x.dim(), d2 = y.dim();
  FE_CHECK(d1 != 0 && d2 != 0, ShapeError, label(a), ": both arguments to matmul need to be at least 1D, but they are ",
           d1, "D and ", d2, "D");
  if (d1 == 1 && d2 == 1) return dot_meta(a, x, y);
  if (d1 == 2 && d2 == 1) return mv_meta(a, x, y);
  if (d1 == 1 && d2 == 2) return squeeze0(mm_meta(a, unsqueeze(x, 0), y));
  if (d1 == 2 && d2 == 2) return mm_meta(a, x, y);
  if (should_fold(x, y)) {
    const bool transpose = d2 > d1;
    const TensorMeta t1 = transpose ? mT(y) : x;
    const TensorMeta t2 = !transpose ? y : d1 == 2 ? mT(x) : x;
    DimVector out_shape(t1.sizes.begin(), t1.sizes.end() - 1);
    const SymInt folded = prod(out_shape);
    SymInt fs[2] = {folded, t1.sizes.back()};
    TensorMeta t1f = make_contiguous(fs, t1.dtype, t1.device);
    TensorMeta r = t2.dim() == 2 ? mm_meta(a, t1f, t2) : mv_meta(a, t1f, t2);
    if (t2.dim() == 2) out_shape.push_back(t2.sizes[1]);
    if (transpose && t2.dim() == 2) std::swap(out_shape[out_shape.size() - 1], out_shape[out_shape.size() - 2]);
    return make_contiguous(out_shape, r.dtype, r.device);
  }
  // Batched path: broadcast the batch dims and bmm. A size-1 leading batch of a 3-D operand is
  // squeezed first (fake tensors count as tensor subclasses there).
  if (d1 == 3 && d2 == 3 && x.sizes[0] != y.sizes[0]) {
    if (x.sizes[0] == 1) return matmul_meta(a, squeeze0(x), y);
    if (y.sizes[0] == 1) return matmul_meta(a, x, squeeze0(y));
  }
  const SymInt n = d1 > 1 ? x.sizes[d1 - 2] : SymInt(1);
  const SymInt m1 = x.sizes[d1 - 1];
  const SymInt m2 = d2 > 1 ? y.sizes[d2 - 2] : y.sizes[0];
  const SymInt p = d2 > 1 ? y.sizes[d2 - 1] : SymInt(1);
  const IntSpan batch1(x.sizes.data(), static_cast<size_t>(std::max<int64_t>(d1 - 2, 0)));
  const IntSpan batch2(y.sizes.data(), static_cast<size_t>(std::max<int64_t>(d2 - 2, 0)));
  DimVector out_shape = infer_size(a, batch1, batch2);
  const SymInt bp = prod(out_shape);
  SymInt s1[3] = {bp, n, m1}, s2[3] = {bp, m2, p};
  TensorMeta r = bmm_meta(a, make_contiguous(s1, x.dtype, x.device), make_contiguous(s2, y.dtype, y.device));
  if (d1 > 1) out_shape.push_back(n);
  if (d2 > 1) out_shape.push_back(p);
  return make_contiguous(out_shape, r.dtype, r.device);
}

// What eager matmul copies (LinearAlgebra.cpp _matmul_impl): the folded path reshapes the
// batched operand to 2-D, the batched path expands both operands to the broadcast batch and
// reshapes them to 3-D; a reshape that cannot view copies (.contiguous()), and the copies live
// until the product is computed. Measured against MemTracker (T5 and MPNet attention scores).
SymInt matmul_scratch(const TensorMeta& x, const TensorMeta& y) {
  const int64_t d1 = x.dim(), d2 = y.dim();
  if (d1 <= 2 && d2 <= 2) return 0;
  if (should_fold(x, y)) {
    const bool transpose = d2 > d1;
    const TensorMeta t1 = transpose ? mT(y) : x;
    DimVector lead(t1.sizes.begin(), t1.sizes.end() - 1);
    SymInt fs[2] = {prod(lead), t1.sizes.back()};
    return reshape_copy_bytes(t1, fs);
  }
  if (d1 < 2 || d2 < 2) return 0;
  const IntSpan batch1(x.sizes.data(), static_cast<size_t>(d1 - 2));
  const IntSpan batch2(y.sizes.data(), static_cast<size_t>(d2 - 2));
  DimVector batch;
  // Broadcast batch (right-aligned); a size-1 or missing dim broadcasts with stride 0.
  const size_t nb = std::max(batch1.size(), batch2.size());
  for (size_t i = 0; i < nb; ++i) {
    const SymInt* p = i + batch1.size() >= nb ? &batch1[i + batch1.size() - nb] : nullptr;
    const SymInt* q = i + batch2.size() >= nb ? &batch2[i + batch2.size() - nb] : nullptr;
    batch.push_back(!p ? *q : !q ? *p : (p->maybe_int() == 1 ? *q : *p));
  }
  auto expanded = [&](const TensorMeta& t) {
    TensorMeta e = t;
    const size_t tb = static_cast<size_t>(t.dim() - 2);
    e.sizes.clear();
    e.strides.clear();
    for (size_t i = 0; i < nb; ++i) {
      const bool has = i + tb >= nb;
      const size_t j = i + tb - nb;
      e.sizes.push_back(batch[i]);
      e.strides.push_back(has && !(t.sizes[j].maybe_int() == 1 && batch[i].maybe_int() != 1) ? t.strides[j] : SymInt(0));
    }
    for (int64_t k = t.dim() - 2; k < t.dim(); ++k) {
      e.sizes.push_back(t.sizes[static_cast<size_t>(k)]);
      e.strides.push_back(t.strides[static_cast<size_t>(k)]);
    }
    return e;
  };
  const SymInt bp = prod(batch);
  SymInt s1[3] = {bp, x.sizes[static_cast<size_t>(d1 - 2)], x.sizes[static_cast<size_t>(d1 - 1)]};
  SymInt s2[3] = {bp, y.sizes[static_cast<size_t>(d2 - 2)], y.sizes[static_cast<size_t>(d2 - 1)]};
  return reshape_copy_bytes(expanded(x), s1) + reshape_copy_bytes(expanded(y), s2);
}

SymInt scratch_matmul(const MetaArgs& a) { return matmul_scratch(a.tensor(0), a.tensor(1)); }

/// FakeTensor views a folded 2-D result back with split_dim, which computes the second to last
/// size anew (`(s0*s1) // s0`): the same value, a new SymInt that export reads from this output
/// (sym_size(linear, 1)) rather than from the input.
void fresh_folded_size(const TensorMeta& x, TensorMeta& r) {
  if (x.dim() >= 3 && r.dim() >= 2) renew_symint(r.sizes[r.dim() - 2]);
}

// A 3-D (or deeper) operand folded into mm is viewed back as linear's is: its second-to-last size
// is a new SymInt (Falcon's `hidden_states @ weight.T`, read as sym_size(matmul, 1)).
void meta_matmul(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const TensorMeta& y = a.tensor(1);
  TensorMeta r = matmul_meta(a, x, y);
  if (y.dim() == 2 && should_fold(x, y)) fresh_folded_size(x, r);
  out.push(std::move(r));
}

// ATen's linear (Linear.cpp): addmm for 2-D input with bias, the flattened addmm for contiguous
// input, else matmul(input, weight.t()) + bias.
void meta_linear(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const TensorMeta& w = a.tensor(1);
  const TensorMeta* b = a.opt_tensor(2);
  FE_CHECK(x.dim() != 0 && w.dim() != 0, ShapeError, label(a),
           ": both arguments to linear need to be at least 1D, but they are ", x.dim(), "D and ", w.dim(), "D");
  if (x.dim() == 2 && b) return out.push(addmm_meta(a, *b, x, t_meta(a, w), false));
  if (b && x.is_contiguous() && (x.dim() == 3 || b->dim() == 1)) {
    DimVector lead(x.sizes.begin(), x.sizes.end() - 1);
    SymInt fs[2] = {prod(lead), x.sizes.back()};
    TensorMeta r = addmm_meta(a, *b, make_contiguous(fs, x.dtype, x.device), t_meta(a, w), false);
    if (w.dim() == 2) lead.push_back(w.sizes[0]);
    auto st = view_strides(r, lead);
    FE_CHECK(st.has_value(), ShapeError, label(a), ": view size is not compatible with input tensor's size and stride");
    r.sizes = lead;
    r.strides = *st;
    fresh_folded_size(x, r);
    return out.push(std::move(r));
  }
  TensorMeta r = matmul_meta(a, x, t_meta(a, w));
  if (b) r = mul_meta(a, r, *b);  // out-of-place add: broadcast + promotion, like mul
  fresh_folded_size(x, r);
  out.push(std::move(r));
}

// outer: self.reshape(-1, 1) * vec2.
void meta_outer(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const TensorMeta& y = a.tensor(1);
  FE_CHECK(x.dim() == 1, ShapeError, label(a), ": outer: Expected 1-D argument self, but got ", x.dim(), "-D");
  FE_CHECK(y.dim() == 1, ShapeError, label(a), ": outer: Expected 1-D argument vec2, but got ", y.dim(), "-D");
  SymInt s[2] = {x.sizes[0], 1};
  out.push(mul_meta(a, reshape(x, s), y));
}

// ---- reference kernels
View vec_as_row(View v) {  // [k] -> [1, k]
  v.sizes.insert(v.sizes.begin(), 1);
  v.strides.insert(v.strides.begin(), 0);
  return v;
}
View vec_as_col(View v) {  // [k] -> [k, 1]
  v.sizes.push_back(1);
  v.strides.push_back(0);
  return v;
}
View transposed(View v) {
  std::swap(v.sizes[v.sizes.size() - 1], v.sizes[v.sizes.size() - 2]);
  std::swap(v.strides[v.strides.size() - 1], v.strides[v.strides.size() - 2]);
  return v;
}

std::vector<double> matmul_values(const Tensor& x, const Tensor& y) {
  View a = view_of(x), b = view_of(y);
  if (a.sizes.size() == 1) a = vec_as_row(a);
  if (b.sizes.size() == 1) b = vec_as_col(b);
  std::vector<int64_t> sizes;
  return batched_matmul(a, b, sizes);
}

/// vals (row-major over out's shape) = alpha * vals + beta * broadcast(bias).
void add_scaled(std::vector<double>& vals, const Tensor& out, const IValue& bias, double beta, double alpha) {
  const TensorMeta& om = out.meta();
  TensorMeta rm = make_contiguous(om.sizes, om.dtype, om.device);
  cpu::Operand b = cpu::make_operand(bias, rm.sizes);
  size_t e = 0;
  cpu::for_each_element(rm, std::span(&b, 1), [&](int64_t, const int64_t* in) {
    vals[e] = alpha * vals[e] + (beta == 0 ? 0.0 : beta * b.at(in[0]));
    ++e;
  });
}

// FakeTensorMode's metas accept mixed dtypes (the result takes self's or the promoted dtype); eager
// kernels reject them, and so do ours: a real computation never silently mixes precisions.
void check_same_dtype_eager(const OpDef& op, const Tensor& m1, const Tensor& m2) {
  FE_CHECK(m1.dtype() == m2.dtype(), DTypeError, op.schema.ns, "::", op.schema.name,
           ": expected m1 and m2 to have the same dtype, but got: ", cpp_type_name(m1.dtype()), " != ",
           cpp_type_name(m2.dtype()));
}

void cpu_matmul(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  check_same_dtype_eager(op, std::get<Tensor>(a[0]), std::get<Tensor>(a[1]));
  store_rowmajor(o[0], matmul_values(std::get<Tensor>(a[0]), std::get<Tensor>(a[1])));
}

void cpu_outer(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  View x = vec_as_col(view_of(std::get<Tensor>(a[0]))), y = vec_as_row(view_of(std::get<Tensor>(a[1])));
  std::vector<int64_t> sizes;
  store_rowmajor(o[0], batched_matmul(x, y, sizes));
}

void cpu_linear(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  check_same_dtype_eager(op, std::get<Tensor>(a[0]), std::get<Tensor>(a[1]));
  View w = view_of(std::get<Tensor>(a[1]));
  View x = view_of(std::get<Tensor>(a[0]));
  if (x.sizes.size() == 1) x = vec_as_row(x);
  w = w.sizes.size() == 1 ? vec_as_col(w) : transposed(w);
  std::vector<int64_t> sizes;
  std::vector<double> vals = batched_matmul(x, w, sizes);
  if (std::holds_alternative<Tensor>(a[2])) add_scaled(vals, o[0], a[2], 1.0, 1.0);
  store_rowmajor(o[0], vals);
}

void cpu_addmm(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  check_same_dtype_eager(op, std::get<Tensor>(a[1]), std::get<Tensor>(a[2]));
  if (const Tensor* self = std::get_if<Tensor>(&a[0]))
    FE_CHECK(self->dtype() == std::get<Tensor>(a[2]).dtype(), DTypeError, "aten::addmm: self and mat2 must have the "
             "same dtype, but got ", scalar_type_name(self->dtype()), " and ", scalar_type_name(std::get<Tensor>(a[2]).dtype()));
  std::vector<double> vals = matmul_values(std::get<Tensor>(a[1]), std::get<Tensor>(a[2]));
  add_scaled(vals, o[0], a[0], cpu::number_of(a[3]), cpu::number_of(a[4]));
  store_rowmajor(o[0], vals);
}

/// torch._refs.t: transpose(self, 0, 0 if ndim < 2 else 1).
std::vector<Tensor> decomp_t(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  return {fe::transpose(x, 0, x.dim() < 2 ? 0 : 1, loc)};
}
/// linear (CompositeImplicit, ATen's Linear.cpp): addmm for 2-D input with bias; for contiguous
/// 3-D input with bias, addmm on the input flattened to 2-D, viewed back (_flatten_nd_linear);
/// otherwise matmul(input, weight.t()) plus the bias.
/// Depth of decomp_linear calls on this thread (see there).
thread_local int t_in_linear = 0;

std::vector<Tensor> decomp_linear(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  const Tensor& w = decomp_tensor(a, 1);
  const Tensor* b = std::get_if<Tensor>(&a[2]);
  if (b && !b->defined()) b = nullptr;
  if (x.dim() == 2 && b) return {fe::addmm(*b, x, fe::t(w, loc), 1, 1, loc)};
  bool contiguous = false;
  if (b) {
    // c10's contiguity, which a retrace records on its own terms (export/functional_names.h).
    UntracedArithmetic untraced("aten::linear", x.sizes());
    contiguous = x.meta().is_contiguous();
  }
  if (b && contiguous && (x.dim() == 3 || b->dim() == 1)) {
    SymInt rows(1);  // _flatten_nd_linear's product from 1
    for (int64_t d = 0; d + 1 < x.dim(); ++d) rows = peephole_mul(rows, x.sizes()[d]);
    const Tensor flat = fe::reshape(x, {rows, x.sizes()[x.dim() - 1]}, loc);
    const Tensor r = fe::addmm(*b, flat, fe::t(w, loc), 1, 1, loc);
    std::vector<SymInt> shape(x.sizes().begin(), x.sizes().end() - 1);
    shape.push_back(r.sizes()[1]);
    return {fe::view(r, shape, loc)};
  }
  // at::linear's own matmul never folds for the weight's sake (measured: PyTorch 2.14 retraces
  // F.linear of a non-foldable 3-D input to bmm, `x @ w.T` to a copy and mm).
  struct Scope {
    Scope() { ++t_in_linear; }
    ~Scope() { --t_in_linear; }
  } in_linear;
  Tensor out = fe::matmul(x, fe::t(w, loc), loc);
  if (b) out = fe::add(out, *b, 1, loc);
  return {out};
}
/// torch._decomp's baddbmm, under pw_cast_for_opmath (f16/bf16 computed in f32): bmm, times alpha
/// unless 1, plus self (times beta unless 1), or the product alone when beta is 0.
std::vector<Tensor> decomp_baddbmm(std::span<const IValue> a, const SrcLocArg& loc) {
  Tensor self = decomp_tensor(a, 0), b1 = decomp_tensor(a, 1), b2 = decomp_tensor(a, 2);
  const DType result = promote_types(promote_types(self.dtype(), b1.dtype()), b2.dtype());
  const DType compute = opmath_dtype(result);
  const auto up = [&](Tensor& t) {
    if (t.dtype() != compute) t = dispatch1(*op_to_dtype, {t, compute}, loc);
  };
  up(self), up(b1), up(b2);
  const bool integral = !is_floating(self.dtype()) && !is_complex(self.dtype());
  const auto number = [&](const IValue& v) -> IValue {
    return integral ? IValue(SymInt(static_cast<int64_t>(cpu::number_of(v)))) : v;
  };
  const IValue alpha = number(a[4]), beta = number(a[3]);
  Tensor out = fe::bmm(b1, b2, loc);
  if (cpu::number_of(alpha) != 1) out = dispatch1(*op_mul_Tensor, {out, alpha}, loc);
  if (cpu::number_of(beta) != 0) {
    if (cpu::number_of(beta) != 1) self = dispatch1(*op_mul_Tensor, {self, beta}, loc);
    out = dispatch1(*op_add_Tensor, {self, out, 1}, loc);
  }
  if (out.dtype() != result) out = dispatch1(*op_to_dtype, {out, result}, loc);
  return {out};
}
/// `a * b` as make_fx records Python's `*`: an int 1 on either side is the other operand (its
/// peephole makes no node).
SymInt py_mul(const SymInt& a, const SymInt& b) {
  if (!a.is_symbolic() && a.hint() == 1) return b;
  if (!b.is_symbolic() && b.hint() == 1) return a;
  return a * b;
}

/// torch._decomp's should_fold (PyTorch 2.14) for N-D (N >= 3) @ 2-D, step by step as it records
/// its size arithmetic in a retrace: sym_numel(t1) == 0 (the numel as reduce(mul, shape, 1)), the
/// expected contiguous strides of shape[1:] from the right, then per dim from the left `size ==
/// 1` or `stride == expected` (TensorGeometry's rule: size-1 dims skipped), stopping at the first
/// dim that fails.
bool folds(const Tensor& x) {
  const TensorMeta& m = x.meta();
  SymInt numel(1);
  for (const SymInt& s : m.sizes) numel = py_mul(numel, s);
  // Recorded even where the ranges answer it (an `eq` node); read from data, no guard is possible.
  if (sym::has_unbacked(numel) ? guard_or_false_eq(numel, SymInt(0)) : sym_eq(numel, 0).guard()) return true;
  const size_t n = m.sizes.size();
  std::vector<SymInt> expected(n, SymInt(1));  // expected[d]: the contiguous stride of dim d
  for (size_t k = n; k-- > 1;) expected[k - 1] = py_mul(m.sizes[k], expected[k]);
  for (size_t d = 0; d < n; ++d) {
    if (sym_eq(m.sizes[d], 1).guard()) continue;
    if (!sym_eq(m.strides[d], expected[d]).guard()) return false;
  }
  return true;
}

/// matmul's batched case: both operands expanded to the broadcast batch, folded to 3-D (a reshape:
/// a view or a contiguous copy), bmm, viewed back.
Tensor batched_matmul(const Tensor& x, const Tensor& y, const SrcLocArg& loc) {
  const int64_t dx = x.dim(), dy = y.dim();
  // Broadcast batch dims (right-aligned; size 1 stretches).
  const int64_t nb = std::max(dx, dy) - 2;
  // torch._decomp's matmul: torch.broadcast_shapes of the batch dims, then prod() of the result
  // (from 1, which make_fx's peephole does not record).
  const std::span<const SymInt> batches[] = {std::span(x.sizes()).first(dx - 2), std::span(y.sizes()).first(dy - 2)};
  note_broadcast_shapes(batches);
  std::vector<SymInt> batch;
  SymInt count(1);
  for (int64_t i = 0; i < nb; ++i) {
    const int64_t ix = i - (nb - (dx - 2)), iy = i - (nb - (dy - 2));
    const SymInt sx = ix >= 0 ? x.sizes()[ix] : SymInt(1), sy = iy >= 0 ? y.sizes()[iy] : SymInt(1);
    const SymInt b = sx.same_as(SymInt(1)) ? sy : sx;
    batch.push_back(b);
    count = peephole_mul(count, b);
  }
  const SymInt n = x.sizes()[dx - 2], m = x.sizes()[dx - 1], p = y.sizes()[dy - 1];
  auto with = [&](std::vector<SymInt> v, SymInt r, SymInt c) {
    v.push_back(r);
    v.push_back(c);
    return v;
  };
  const Tensor x3 = fe::reshape(fe::expand(x, with(batch, n, m), false, loc), {count, n, m}, loc);
  const Tensor y3 = fe::reshape(fe::expand(y, with(batch, m, p), false, loc), {count, m, p}, loc);
  // torch._decomp's matmul views the bmm back (ATen's _matmul_impl: _unsafe_view).
  return fe::view(fe::bmm(x3, y3, loc), with(batch, n, p), loc);
}

/// matmul (CompositeImplicit, ATen's _matmul_impl): mm for 2-D @ 2-D; N-D (N >= 3) @ 2-D folds the
/// batch into rows when that is a view: _unsafe_view(mm(reshape(self, [rows, k]), other), batch +
/// [p]); otherwise, and for two operands of rank >= 3, the batched bmm. 1-D operands are kept as
/// matmul for now.
std::vector<Tensor> decomp_matmul(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  const Tensor& y = decomp_tensor(a, 1);
  if (x.dim() == 2 && y.dim() == 2) return {fe::mm(x, y, loc)};
  // torch._decomp's should_fold: a 2-D operand that requires grad (a weight) always folds the
  // other into rows, copying when that is not a view (FalconLinear's `x @ weight.T`).
  const bool weight_folds = y.meta().requires_grad && t_in_linear == 0;
  if (x.dim() >= 3 && y.dim() >= 2 && (y.dim() > 2 || !(weight_folds || folds(x))))
    return {batched_matmul(x, y, loc)};
  if (x.dim() == 2 && y.dim() >= 3) return {batched_matmul(x, y, loc)};
  if (x.dim() >= 3 && y.dim() == 2) {
    SymInt rows(1);  // reduce(operator.mul, output_shape): no product with an initial 1
    for (int64_t d = 0; d + 1 < x.dim(); ++d) rows = peephole_mul(rows, x.sizes()[d]);
    const Tensor folded = fe::reshape(x, {rows, x.sizes()[x.dim() - 1]}, loc);
    std::vector<SymInt> shape(x.sizes().begin(), x.sizes().end() - 1);
    shape.push_back(y.sizes()[1]);
    return {fe::_unsafe_view(fe::mm(folded, y, loc), shape, loc)};
  }
  return undecomposed(*op_matmul, a, loc);
}

/// outer (CompositeImplicit): self.reshape(n, 1) * vec2.
std::vector<Tensor> decomp_outer(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  return {fe::mul(fe::reshape(x, {x.sizes()[0], SymInt(1)}, loc), decomp_tensor(a, 1), loc)};
}
/// dot (torch._refs.dot, real dtypes): (self * other).sum(), under the ref's dynamo-disabled
/// type-promotion wrapper (ops/annotation.h).
std::vector<Tensor> decomp_dot(std::span<const IValue> a, const SrcLocArg& loc) {
  const DisableDynamoScope annotated("dot");
  return {fe::sum(fe::mul(decomp_tensor(a, 0), decomp_tensor(a, 1), loc), std::nullopt, loc)};
}
/// mv (torch._decomp, pw_cast_for_opmath): (self * vec).sum(dim=1), half types computed in float.
std::vector<Tensor> decomp_mv(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& m = decomp_tensor(a, 0);
  const Tensor r = fe::sum(fe::mul(opmath(m, loc), opmath(decomp_tensor(a, 1), loc), loc), {1}, false, {}, loc);
  return {opmath_result(r, m.dtype(), loc)};
}

}  // namespace

void register_linalg_ops(Registry& r) {
  op_linear = r.add({.schema = "aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
                     .meta = meta_linear, .cpu = cpu_linear, .decomp = decomp_linear});
  op_t = r.add({.schema = "aten::t(Tensor(a) self) -> Tensor(a)", .meta = meta_t, .decomp = decomp_t});
  op_mm = r.add({"aten::mm(Tensor self, Tensor mat2) -> Tensor", meta_mm, cpu_matmul});
  op_addmm = r.add({"aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
         meta_addmm, cpu_addmm});
  op_bmm = r.add({"aten::bmm(Tensor self, Tensor mat2) -> Tensor", meta_bmm, cpu_matmul});
  op_baddbmm = r.add({.schema = "aten::baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
                      .meta = meta_baddbmm, .cpu = cpu_addmm, .decomp = decomp_baddbmm});
  op_matmul = r.add({.schema = "aten::matmul(Tensor self, Tensor other) -> Tensor", .meta = meta_matmul,
                     .cpu = cpu_matmul, .decomp = decomp_matmul, .scratch = scratch_matmul});
  op_outer = r.add({.schema = "aten::outer(Tensor self, Tensor vec2) -> Tensor", .meta = meta_outer, .cpu = cpu_outer,
                    .decomp = decomp_outer});
  op_dot = r.add({.schema = "aten::dot(Tensor self, Tensor tensor) -> Tensor", .meta = meta_dot, .cpu = cpu_matmul,
                  .decomp = decomp_dot});
  op_mv = r.add({.schema = "aten::mv(Tensor self, Tensor vec) -> Tensor", .meta = meta_mv, .cpu = cpu_matmul,
                 .decomp = decomp_mv});
  linalg::register_einsum_ops(r);
}

}  // namespace ops

namespace {
IValue opt_tensor(const Tensor& t) { return t.defined() ? IValue(t) : IValue(None{}); }
}  // namespace

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias, SrcLocArg loc) {
  return dispatch1(*op_linear, {input, weight, opt_tensor(bias)}, loc);
}
Tensor t(const Tensor& self, SrcLocArg loc) {
  return dispatch1(*op_t, {self}, loc);
}
Tensor Tensor::t(SrcLocArg loc) const { return fe::t(*this, loc); }
Tensor mm(const Tensor& self, const Tensor& mat2, SrcLocArg loc) {
  return dispatch1(*op_mm, {self, mat2}, loc);
}
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, Scalar beta, Scalar alpha, SrcLocArg loc) {
  return dispatch1(*op_addmm, {self, mat1, mat2, beta.ivalue(), alpha.ivalue()}, loc);
}
Tensor bmm(const Tensor& self, const Tensor& mat2, SrcLocArg loc) {
  return dispatch1(*op_bmm, {self, mat2}, loc);
}
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, Scalar beta, Scalar alpha,
               SrcLocArg loc) {
  return dispatch1(*op_baddbmm, {self, batch1, batch2, beta.ivalue(), alpha.ivalue()}, loc);
}
Tensor matmul(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  return dispatch1(*op_matmul, {self, other}, loc);
}
Tensor Tensor::matmul(const Tensor& other, SrcLocArg loc) const { return fe::matmul(*this, other, loc); }
Tensor outer(const Tensor& self, const Tensor& vec2, SrcLocArg loc) {
  return dispatch1(*op_outer, {self, vec2}, loc);
}
Tensor dot(const Tensor& self, const Tensor& tensor, SrcLocArg loc) {
  return dispatch1(*op_dot, {self, tensor}, loc);
}
Tensor mv(const Tensor& self, const Tensor& vec, SrcLocArg loc) {
  return dispatch1(*op_mv, {self, vec}, loc);
}
Tensor einsum(std::string_view equation, const std::vector<Tensor>& tensors, SrcLocArg loc) {
  return dispatch1(*op_einsum, {std::string(equation), tensors, None{}}, loc);
}

}  // namespace fe
