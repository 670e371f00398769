// Linear algebra ops: linear, t, mm, addmm.
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"

namespace fe {
namespace ops {
namespace {

std::string mat_str(const TensorMeta& m) {
  std::string s;
  for (int64_t i = 0; i < m.dim(); ++i) s += (i ? "x" : "") + std::to_string(m.sizes[i].expect_int());
  return s;
}

void check_same_dtype(const MetaArgs& a, const TensorMeta& x, const TensorMeta& y) {
  FE_CHECK(x.dtype == y.dtype, DTypeError, label(a), ": expected m1 and m2 to have the same dtype, but got: ",
           dtype_name(x.dtype), " != ", dtype_name(y.dtype));
}

// linear(input [*, in], weight [out, in] or [in], bias?) -> [*, out]
void meta_linear(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const TensorMeta& w = a.tensor(1);
  FE_CHECK(x.dim() >= 1 && w.dim() >= 1 && w.dim() <= 2, ShapeError, label(a),
           ": both arguments to linear need to be at least 1D (and weight at most 2D), but they are ", x.dim(),
           "D and ", w.dim(), "D");
  check_same_dtype(a, x, w);
  const int64_t in = x.sizes[x.dim() - 1].expect_int();
  const int64_t w_in = w.sizes[w.dim() - 1].expect_int();
  FE_CHECK(in == w_in, ShapeError, label(a), ": mat1 and mat2 shapes cannot be multiplied (",
           x.dim() == 1 ? "1x" + std::to_string(in) : std::to_string(x.numel().expect_int() / std::max<int64_t>(in, 1)) + "x" + std::to_string(in),
           " and ", w.dim() == 2 ? std::to_string(w_in) + "x" + std::to_string(w.sizes[0].expect_int()) : mat_str(w), ")");
  DimVector sizes(x.sizes.begin(), x.sizes.end() - 1);
  if (w.dim() == 2) sizes.push_back(w.sizes[0]);
  if (const TensorMeta* b = a.opt_tensor(2)) {
    check_same_dtype(a, x, *b);
    DimVector bs = broadcast_shapes(a, sizes, b->sizes);
    FE_CHECK(bs == sizes, ShapeError, label(a), ": bias of shape ", shape_str(b->sizes),
             " cannot be broadcast to the output shape ", shape_str(sizes));
  }
  out.push(make_contiguous(sizes, x.dtype, x.device));
}

// t(self): transposes dims 0 and 1 of a <= 2-D tensor, as a view.
void meta_t(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  FE_CHECK(x.dim() <= 2, ShapeError, label(a), ": t() expects a tensor with <= 2 dimensions, but self is ",
           x.dim(), "D");
  TensorMeta m = x;
  m.requires_grad = false;
  if (x.dim() == 2) {
    std::swap(m.sizes[0], m.sizes[1]);
    std::swap(m.strides[0], m.strides[1]);
  }
  out.push(std::move(m));
  out.alias_input0 = true;
}

TensorMeta mm_out(const MetaArgs& a, const TensorMeta& x, const TensorMeta& y) {
  FE_CHECK(x.dim() == 2, ShapeError, label(a), ": self must be a matrix, got ", x.dim(), "-D tensor");
  FE_CHECK(y.dim() == 2, ShapeError, label(a), ": mat2 must be a matrix, got ", y.dim(), "-D tensor");
  FE_CHECK(x.sizes[1] == y.sizes[0], ShapeError, label(a), ": mat1 and mat2 shapes cannot be multiplied (",
           mat_str(x), " and ", mat_str(y), ")");
  check_same_dtype(a, x, y);
  SymInt s[2] = {x.sizes[0], y.sizes[1]};
  return make_contiguous(s, x.dtype, x.device);
}

void meta_mm(const MetaArgs& a, MetaOut& out) { out.push(mm_out(a, a.tensor(0), a.tensor(1))); }

void meta_addmm(const MetaArgs& a, MetaOut& out) {
  TensorMeta m = mm_out(a, a.tensor(1), a.tensor(2));
  const TensorMeta& self = a.tensor(0);
  FE_CHECK(self.dtype == m.dtype, DTypeError, label(a), ": self and mat2 must have the same dtype, but got ",
           dtype_name(self.dtype), " and ", dtype_name(m.dtype));
  DimVector bs = broadcast_shapes(a, m.sizes, self.sizes);
  FE_CHECK(bs == m.sizes, ShapeError, label(a), ": self of shape ", shape_str(self.sizes),
           " cannot be broadcast to ", shape_str(m.sizes));
  out.push(std::move(m));
}

// ---- reference kernels: out[i, j] = beta * self + alpha * sum_k x[i, k] * w[k, j]
void matmul_into(const Tensor& out, const Tensor& x, int64_t rows, int64_t inner, const Tensor& w,
                 bool w_transposed, const IValue* bias, double beta, double alpha) {
  const TensorMeta& om = out.meta();
  const int64_t cols = om.sizes[om.dim() - 1].expect_int();
  const TensorMeta& xm = x.meta();
  const TensorMeta& wm = w.meta();
  const auto* xb = static_cast<const std::byte*>(x.data_ptr());
  const auto* wb = static_cast<const std::byte*>(w.data_ptr());
  auto* ob = static_cast<std::byte*>(out.data_ptr());
  const int64_t xs0 = xm.dim() >= 2 ? xm.strides[xm.dim() - 2].expect_int() : 0;
  const int64_t xs1 = xm.strides[xm.dim() - 1].expect_int();
  const int64_t ws_row = wm.strides[0].expect_int(), ws_col = wm.dim() == 2 ? wm.strides[1].expect_int() : 0;
  cpu::Operand b;
  if (bias) b = cpu::make_operand(*bias, DimVector{SymInt(rows), SymInt(cols)});
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < inner; ++k) {
        // x may be N-D contiguous-ish: rows index its flattened leading dims.
        const int64_t xo = xm.dim() > 2 ? (i * inner + k) : i * xs0 + k * xs1;
        const int64_t wo = w_transposed ? j * ws_row + k * ws_col : k * ws_row + j * ws_col;
        acc += detail::load(xb + xo * itemsize(xm.dtype), xm.dtype) * detail::load(wb + wo * itemsize(wm.dtype), wm.dtype);
      }
      double v = alpha * acc;
      if (bias) v += beta * b.at(b.offset + i * b.strides[0].expect_int() + j * b.strides[1].expect_int());
      detail::store(ob + (i * cols + j) * itemsize(om.dtype), om.dtype, v);
    }
  }
}

void cpu_linear(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  const Tensor& w = std::get<Tensor>(a[1]);
  Tensor xc = x.meta().dim() > 2 && !x.meta().is_contiguous() ? Tensor() : x;
  FE_CHECK(xc.defined(), ValueError, "aten::linear reference kernel: N-D input must be contiguous");
  const int64_t inner = x.size(-1);
  const int64_t rows = inner ? x.numel() / inner : 0;
  const IValue* bias = std::holds_alternative<Tensor>(a[2]) ? &a[2] : nullptr;
  if (w.dim() == 1) {
    FE_CHECK(false, ValueError, "aten::linear reference kernel: 1-D weight not supported");
  }
  // Output viewed as [rows, out]; bias broadcasts over rows.
  matmul_into(o[0], x, rows, inner, w, true, bias, 1.0, 1.0);
}

void cpu_mm(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  matmul_into(o[0], x, x.size(0), x.size(1), std::get<Tensor>(a[1]), false, nullptr, 0, 1.0);
}

void cpu_addmm(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[1]);
  matmul_into(o[0], x, x.size(0), x.size(1), std::get<Tensor>(a[2]), false, &a[0], cpu::number_of(a[3]),
              cpu::number_of(a[4]));
}

}  // namespace

void register_linalg_ops(Registry& r) {
  r.add({"aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", meta_linear, cpu_linear});
  r.add({"aten::t(Tensor(a) self) -> Tensor(a)", meta_t});
  r.add({"aten::mm(Tensor self, Tensor mat2) -> Tensor", meta_mm, cpu_mm});
  r.add({"aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
         meta_addmm, cpu_addmm});
}

}  // namespace ops

namespace {
IValue opt_tensor(const Tensor& t) { return t.defined() ? IValue(t) : IValue(None{}); }
}  // namespace

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias, SrcLocArg loc) {
  static const OpDef& d = op("aten::linear");
  return dispatch1(d, {input, weight, opt_tensor(bias)}, loc);
}
Tensor t(const Tensor& self, SrcLocArg loc) {
  static const OpDef& d = op("aten::t");
  return dispatch1(d, {self}, loc);
}
Tensor Tensor::t(SrcLocArg loc) const { return fe::t(*this, loc); }
Tensor mm(const Tensor& self, const Tensor& mat2, SrcLocArg loc) {
  static const OpDef& d = op("aten::mm");
  return dispatch1(d, {self, mat2}, loc);
}
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, Scalar beta, Scalar alpha, SrcLocArg loc) {
  static const OpDef& d = op("aten::addmm");
  return dispatch1(d, {self, mat1, mat2, beta.ivalue(), alpha.ivalue()}, loc);
}

}  // namespace fe
