// Elementwise ops: add, mul (Tensor overloads, numbers allowed in the Tensor slot), relu, gelu.
#include <cmath>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"

namespace fe {
namespace ops {
namespace {

void meta_add(const MetaArgs& a, MetaOut& out) {
  TensorMeta m = elementwise_meta(a, {0, 1});
  TypeCategory alpha = a.scalar_category(2);
  FE_CHECK(!(is_integral(m.dtype, true) && alpha == TypeCategory::Floating), DTypeError, label(a),
           ": For integral input tensors, argument alpha must not be a floating point number.");
  FE_CHECK(!(m.dtype != DType::Bool && alpha == TypeCategory::Bool), DTypeError, label(a),
           ": Boolean alpha only supported for Boolean results.");
  out.push(std::move(m));
}

void meta_mul(const MetaArgs& a, MetaOut& out) { out.push(elementwise_meta(a, {0, 1})); }

// Unary ops keep self's dtype and (dense) layout.
TensorMeta unary_like(const TensorMeta& x) {
  TensorMeta m = x;
  m.strides = preserved_strides(x);
  m.storage_offset = 0;
  m.requires_grad = false;
  return m;
}

void meta_relu(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  FE_CHECK(x.dtype != DType::Bool, DTypeError, label(a), ": \"clamp_min_scalar_cpu\" not implemented for 'Bool'");
  out.push(unary_like(x));
}

void meta_gelu(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const std::string& ap = a.str(1);
  FE_CHECK(ap == "none" || ap == "tanh", ValueError, label(a),
           ": approximate argument must be either none or tanh, got '", ap, "'");
  FE_CHECK(is_floating(x.dtype), DTypeError, label(a), ": \"GeluKernelImpl\" not implemented for '",
           dtype_name(x.dtype), "'");
  out.push(unary_like(x));
}

// ---- reference kernels
template <class F>
void binary_kernel(std::span<const IValue> a, std::span<Tensor> o, F&& f) {
  const TensorMeta& om = o[0].meta();
  cpu::Operand ins[2] = {cpu::make_operand(a[0], om.sizes), cpu::make_operand(a[1], om.sizes)};
  for_each_element(om, ins, [&](int64_t out_off, const int64_t* in_off) {
    cpu::store_at(o[0], out_off, f(ins[0].at(in_off[0]), ins[1].at(in_off[1])));
  });
}

template <class F>
void unary_kernel(std::span<const IValue> a, std::span<Tensor> o, F&& f) {
  const TensorMeta& om = o[0].meta();
  cpu::Operand in = cpu::make_operand(a[0], om.sizes);
  for_each_element(om, std::span(&in, 1), [&](int64_t out_off, const int64_t* in_off) {
    cpu::store_at(o[0], out_off, f(in.at(in_off[0])));
  });
}

void cpu_add(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const double alpha = cpu::number_of(a[2]);
  const bool is_bool = o[0].dtype() == DType::Bool;
  binary_kernel(a, o, [&](double x, double y) { return is_bool ? double((x != 0) || (y != 0 && alpha != 0)) : x + alpha * y; });
}
void cpu_mul(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  binary_kernel(a, o, [](double x, double y) { return x * y; });
}
void cpu_relu(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  unary_kernel(a, o, [](double x) { return std::isnan(x) ? x : (x > 0 ? x : 0.0); });
}
void cpu_gelu(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const bool tanh_approx = std::get<std::string>(a[1]) == "tanh";
  unary_kernel(a, o, [tanh_approx](double x) {
    if (tanh_approx) {
      const double k = std::sqrt(2.0 / M_PI);
      return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
    }
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  });
}

}  // namespace

void register_elementwise_ops(Registry& r) {
  r.add({"aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", meta_add, cpu_add});
  r.add({"aten::mul.Tensor(Tensor self, Tensor other) -> Tensor", meta_mul, cpu_mul});
  r.add({"aten::relu(Tensor self) -> Tensor", meta_relu, cpu_relu});
  r.add({"aten::gelu(Tensor self, *, str approximate=\"none\") -> Tensor", meta_gelu, cpu_gelu});
}

}  // namespace ops

Tensor add(const Tensor& self, const Tensor& other, Scalar alpha, SrcLocArg loc) {
  static const OpDef& d = op("aten::add.Tensor");
  return dispatch1(d, {self, other, alpha.ivalue()}, loc);
}
Tensor add(const Tensor& self, Scalar other, Scalar alpha, SrcLocArg loc) {
  static const OpDef& d = op("aten::add.Tensor");
  return dispatch1(d, {self, other.ivalue(), alpha.ivalue()}, loc);
}
Tensor mul(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  static const OpDef& d = op("aten::mul.Tensor");
  return dispatch1(d, {self, other}, loc);
}
Tensor mul(const Tensor& self, Scalar other, SrcLocArg loc) {
  static const OpDef& d = op("aten::mul.Tensor");
  return dispatch1(d, {self, other.ivalue()}, loc);
}
Tensor relu(const Tensor& self, SrcLocArg loc) {
  static const OpDef& d = op("aten::relu");
  return dispatch1(d, {self}, loc);
}
Tensor gelu(const Tensor& self, std::string_view approximate, SrcLocArg loc) {
  static const OpDef& d = op("aten::gelu");
  return dispatch1(d, {self, std::string(approximate)}, loc);
}

}  // namespace fe
