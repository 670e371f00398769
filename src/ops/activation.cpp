// Activations: relu, gelu, silu, softmax/_softmax, log_softmax/_log_softmax, dropout.
#include <cmath>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"

namespace fe {
namespace ops {
namespace {

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

void cpu_relu(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  cpu::unary_kernel(a, o, [](double x) { return std::isnan(x) ? x : (x > 0 ? x : 0.0); });
}
void cpu_gelu(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const bool tanh_approx = std::get<std::string>(a[1]) == "tanh";
  cpu::unary_kernel(a, o, [tanh_approx](double x) {
    if (tanh_approx) {
      const double k = std::sqrt(2.0 / M_PI);
      return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
    }
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  });
}

}  // namespace

void register_activation_ops(Registry& r) {
  r.add({"aten::relu(Tensor self) -> Tensor", meta_relu, cpu_relu});
  r.add({"aten::gelu(Tensor self, *, str approximate=\"none\") -> Tensor", meta_gelu, cpu_gelu});
}

}  // namespace ops

Tensor relu(const Tensor& self, SrcLocArg loc) {
  static const OpDef& d = op("aten::relu");
  return dispatch1(d, {self}, loc);
}
Tensor gelu(const Tensor& self, std::string_view approximate, SrcLocArg loc) {
  static const OpDef& d = op("aten::gelu");
  return dispatch1(d, {self, std::string(approximate)}, loc);
}

}  // namespace fe
