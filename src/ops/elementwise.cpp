// Elementwise binary ops: add, mul (Tensor overloads, numbers allowed in the Tensor slot).
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

// ---- reference kernels
void cpu_add(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const double alpha = cpu::number_of(a[2]);
  const bool is_bool = o[0].dtype() == DType::Bool;
  cpu::binary_kernel(a, o, [&](double x, double y) { return is_bool ? double((x != 0) || (y != 0 && alpha != 0)) : x + alpha * y; });
}
void cpu_mul(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  cpu::binary_kernel(a, o, [](double x, double y) { return x * y; });
}
}  // namespace

void register_elementwise_ops(Registry& r) {
  r.add({"aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", meta_add, cpu_add});
  r.add({"aten::mul.Tensor(Tensor self, Tensor other) -> Tensor", meta_mul, cpu_mul});
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
}  // namespace fe
