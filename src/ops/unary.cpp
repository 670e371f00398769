// Unary math: the ops of fakeexport/ops/unary_list.h (+ in-place), each declared once there.
#include <cmath>
#include <type_traits>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"
#include "ops/unary_common.h"

namespace fe {
namespace ops {
namespace {

// The dtype rules of unary_list.h's Kind column.
enum class UnaryKind : uint8_t { Floating, Abs, Neg, Same };

// One tag per op (from FE_UNARY_OPS): its math (in double) and its dtype rule.
#define FE_UNARY_TAG(name, Tag, Kind, Expr)            \
  struct Tag {                                         \
    static constexpr UnaryKind kind = UnaryKind::Kind; \
    static double f(double x) { return Expr; }         \
  };
FE_UNARY_OPS(FE_UNARY_TAG)
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
  // Kernels without a bool instantiation (the meta functions accept bool).
  if constexpr (std::is_same_v<Op, Abs> || std::is_same_v<Op, Ceil>)
    FE_CHECK(o[0].dtype() != DType::Bool, DTypeError, op.schema.ns, "::", op.schema.name, ": \"",
             std::is_same_v<Op, Abs> ? "abs_cpu" : "ceil_vml_cpu", "\" not implemented for 'Bool'");
  if (op.inplace) check_no_internal_overlap(op, o[0].meta());
  cpu::unary_kernel(a, o, Op::f);
}

}  // namespace

}  // namespace ops

#define FE_UNARY_HANDLES(name, ...) OpHandle op_##name, op_##name##_;
FE_UNARY_OPS(FE_UNARY_HANDLES)
#undef FE_UNARY_HANDLES

namespace ops {
void register_unary_ops(Registry& r) {
#define FE_UNARY_REGISTER(name, Tag, ...)                                                                          \
  op_##name = r.add({"aten::" #name "(Tensor self) -> Tensor", meta_unary<Tag>, cpu_unary<Tag>});                 \
  op_##name##_ = r.add({"aten::" #name "_(Tensor(a!) self) -> Tensor(a!)", meta_unary_inplace<Tag>, cpu_unary<Tag>});
  FE_UNARY_OPS(FE_UNARY_REGISTER)
#undef FE_UNARY_REGISTER
}

}  // namespace ops

// ---- public API: torch.<name>(x), torch.<name>_(x) and the Tensor methods.
#define FE_UNARY_API(name)                                                      \
  Tensor name(const Tensor& self, SrcLocArg loc) {                              \
    return dispatch1(*op_##name, {self}, loc);                                  \
  }                                                                             \
  Tensor name##_(const Tensor& self, SrcLocArg loc) {                           \
    return dispatch1(*op_##name##_, {self}, loc);                               \
  }                                                                             \
  Tensor Tensor::name(SrcLocArg loc) const { return fe::name(*this, loc); }     \
  Tensor Tensor::name##_(SrcLocArg loc) const { return fe::name##_(*this, loc); }
#define FE_UNARY_API_OF(name, ...) FE_UNARY_API(name)
FE_UNARY_OPS(FE_UNARY_API_OF)
#undef FE_UNARY_API_OF
#undef FE_UNARY_API

Tensor operator-(TensorAt self) { return neg(self, self.loc); }

}  // namespace fe
