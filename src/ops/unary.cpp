// Unary math: exp, log, sqrt, rsqrt, sin, cos, tanh, sigmoid, erf, abs, neg, reciprocal (+ in-place).
#include <cmath>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"
#include "ops/unary_common.h"

namespace fe {
namespace ops {
namespace {

// Floating: int/bool inputs compute in the default float dtype. Abs: complex -> real. Neg: no bool.
enum class UnaryKind : uint8_t { Floating, Abs, Neg };

// One tag per op: its math (in double) and its dtype rule.
#define FE_UNARY_TAG(Name, Kind, Expr)                      \
  struct Name {                                             \
    static constexpr UnaryKind kind = UnaryKind::Kind;      \
    static double f(double x) { return Expr; }              \
  };
FE_UNARY_TAG(Exp, Floating, std::exp(x))
FE_UNARY_TAG(Log, Floating, std::log(x))
FE_UNARY_TAG(Sqrt, Floating, std::sqrt(x))
FE_UNARY_TAG(Rsqrt, Floating, 1.0 / std::sqrt(x))
FE_UNARY_TAG(Sin, Floating, std::sin(x))
FE_UNARY_TAG(Cos, Floating, std::cos(x))
FE_UNARY_TAG(Tanh, Floating, std::tanh(x))
FE_UNARY_TAG(Sigmoid, Floating, 1.0 / (1.0 + std::exp(-x)))
FE_UNARY_TAG(Erf, Floating, std::erf(x))
FE_UNARY_TAG(Reciprocal, Floating, 1.0 / x)
FE_UNARY_TAG(Abs, Abs, std::fabs(x))
FE_UNARY_TAG(Neg, Neg, -x)
#undef FE_UNARY_TAG

template <class Op>
DType unary_dtype(const MetaArgs& a, const TensorMeta& x) {
  if constexpr (Op::kind == UnaryKind::Neg)
    FE_CHECK(x.dtype != DType::Bool, DTypeError, label(a),
             ": Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
             "mask, use the `~` or `logical_not()` operator instead.");
  if constexpr (Op::kind == UnaryKind::Floating) return is_integral(x.dtype, true) ? default_dtype() : x.dtype;
  if constexpr (Op::kind == UnaryKind::Abs) return real_dtype(x.dtype);
  return x.dtype;
}

template <class Op>
void meta_unary(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = tensor_arg(a, 0);
  TensorMeta m;
  m.dtype = unary_dtype<Op>(a, x);
  m.sizes = x.sizes;
  m.device = x.device;
  const TensorMeta* in = &x;
  m.strides = iter_output_strides(x.sizes, std::span(&in, 1));
  out.push(std::move(m));
}

// In place: the result dtype must be self's (TensorIterator's cast check on the out tensor).
template <class Op>
void meta_unary_inplace(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = tensor_arg(a, 0);
  const DType r = unary_dtype<Op>(a, x);
  if constexpr (Op::kind == UnaryKind::Abs) {
    FE_CHECK(r == x.dtype, DTypeError, label(a), ": Expected out tensor to have dtype torch.", dtype_name(r),
             " but got torch.", dtype_name(x.dtype), " instead");
  } else {
    FE_CHECK(r == x.dtype, DTypeError, label(a), ": Attempting to cast from torch.", dtype_name(r),
             " to out tensor with dtype torch.", dtype_name(x.dtype), ", but this can't be cast because it is not safe!");
  }
  out.push(x);
}

template <class Op>
void cpu_unary(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  if constexpr (Op::kind == UnaryKind::Abs)
    FE_CHECK(o[0].dtype() != DType::Bool, DTypeError, op.schema.ns, "::", op.schema.name,
             ": \"abs_cpu\" not implemented for 'Bool'");
  if (op.inplace) check_no_internal_overlap(op, o[0].meta());
  cpu::unary_kernel(a, o, Op::f);
}

}  // namespace

void register_unary_ops(Registry& r) {
  r.add({"aten::exp(Tensor self) -> Tensor", meta_unary<Exp>, cpu_unary<Exp>});
  r.add({"aten::exp_(Tensor(a!) self) -> Tensor(a!)", meta_unary_inplace<Exp>, cpu_unary<Exp>});
  r.add({"aten::log(Tensor self) -> Tensor", meta_unary<Log>, cpu_unary<Log>});
  r.add({"aten::log_(Tensor(a!) self) -> Tensor(a!)", meta_unary_inplace<Log>, cpu_unary<Log>});
  r.add({"aten::sqrt(Tensor self) -> Tensor", meta_unary<Sqrt>, cpu_unary<Sqrt>});
  r.add({"aten::sqrt_(Tensor(a!) self) -> Tensor(a!)", meta_unary_inplace<Sqrt>, cpu_unary<Sqrt>});
  r.add({"aten::rsqrt(Tensor self) -> Tensor", meta_unary<Rsqrt>, cpu_unary<Rsqrt>});
  r.add({"aten::rsqrt_(Tensor(a!) self) -> Tensor(a!)", meta_unary_inplace<Rsqrt>, cpu_unary<Rsqrt>});
  r.add({"aten::sin(Tensor self) -> Tensor", meta_unary<Sin>, cpu_unary<Sin>});
  r.add({"aten::sin_(Tensor(a!) self) -> Tensor(a!)", meta_unary_inplace<Sin>, cpu_unary<Sin>});
  r.add({"aten::cos(Tensor self) -> Tensor", meta_unary<Cos>, cpu_unary<Cos>});
  r.add({"aten::cos_(Tensor(a!) self) -> Tensor(a!)", meta_unary_inplace<Cos>, cpu_unary<Cos>});
  r.add({"aten::tanh(Tensor self) -> Tensor", meta_unary<Tanh>, cpu_unary<Tanh>});
  r.add({"aten::tanh_(Tensor(a!) self) -> Tensor(a!)", meta_unary_inplace<Tanh>, cpu_unary<Tanh>});
  r.add({"aten::sigmoid(Tensor self) -> Tensor", meta_unary<Sigmoid>, cpu_unary<Sigmoid>});
  r.add({"aten::sigmoid_(Tensor(a!) self) -> Tensor(a!)", meta_unary_inplace<Sigmoid>, cpu_unary<Sigmoid>});
  r.add({"aten::erf(Tensor self) -> Tensor", meta_unary<Erf>, cpu_unary<Erf>});
  r.add({"aten::erf_(Tensor(a!) self) -> Tensor(a!)", meta_unary_inplace<Erf>, cpu_unary<Erf>});
  r.add({"aten::abs(Tensor self) -> Tensor", meta_unary<Abs>, cpu_unary<Abs>});
  r.add({"aten::abs_(Tensor(a!) self) -> Tensor(a!)", meta_unary_inplace<Abs>, cpu_unary<Abs>});
  r.add({"aten::neg(Tensor self) -> Tensor", meta_unary<Neg>, cpu_unary<Neg>});
  r.add({"aten::neg_(Tensor(a!) self) -> Tensor(a!)", meta_unary_inplace<Neg>, cpu_unary<Neg>});
  r.add({"aten::reciprocal(Tensor self) -> Tensor", meta_unary<Reciprocal>, cpu_unary<Reciprocal>});
  r.add({"aten::reciprocal_(Tensor(a!) self) -> Tensor(a!)", meta_unary_inplace<Reciprocal>, cpu_unary<Reciprocal>});
}

}  // namespace ops

// ---- public API: torch.<name>(x), torch.<name>_(x) and the Tensor methods.
#define FE_UNARY_API(name)                                                      \
  Tensor name(const Tensor& self, SrcLocArg loc) {                              \
    static const OpDef& d = op("aten::" #name);                                 \
    return dispatch1(d, {self}, loc);                                           \
  }                                                                             \
  Tensor name##_(const Tensor& self, SrcLocArg loc) {                           \
    static const OpDef& d = op("aten::" #name "_");                             \
    return dispatch1(d, {self}, loc);                                           \
  }                                                                             \
  Tensor Tensor::name(SrcLocArg loc) const { return fe::name(*this, loc); }     \
  Tensor Tensor::name##_(SrcLocArg loc) const { return fe::name##_(*this, loc); }
FE_UNARY_API(exp)
FE_UNARY_API(log)
FE_UNARY_API(sqrt)
FE_UNARY_API(rsqrt)
FE_UNARY_API(sin)
FE_UNARY_API(cos)
FE_UNARY_API(tanh)
FE_UNARY_API(sigmoid)
FE_UNARY_API(erf)
FE_UNARY_API(abs)
FE_UNARY_API(neg)
FE_UNARY_API(reciprocal)
#undef FE_UNARY_API

Tensor operator-(TensorAt self) { return neg(self, self.loc); }

}  // namespace fe
