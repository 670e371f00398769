// Elementwise binary arithmetic: add, sub, rsub, mul, div (+ rounding modes), remainder,
// floor_divide, pow, their Scalar overloads and in-place variants. Comparisons, logical ops,
// where, masked_fill, clamp, maximum/minimum live in elementwise_logic.cpp; the public API in
// elementwise_api.cpp.
#include <cmath>
#include <optional>

#include "core/element.h"
#include "fakeexport/ops/api.h"
#include "ops/elementwise.h"
#include "ops/families.h"

namespace fe {
OpHandle op_add_Scalar;
OpHandle op_add_Tensor;
OpHandle op_add_inplace_Tensor;
OpHandle op_div_Tensor;
OpHandle op_div_Tensor_mode;
OpHandle op_div_inplace_Tensor;
OpHandle op_floor_divide;
OpHandle op_mul_Tensor;
OpHandle op_mul_Scalar;
OpHandle op_mul_inplace_Tensor;
OpHandle op_pow_Scalar;
OpHandle op_pow_Tensor_Scalar;
OpHandle op_pow_Tensor_Tensor;
OpHandle op_remainder_Scalar;
OpHandle op_remainder_Scalar_Tensor;
OpHandle op_remainder_Tensor;
OpHandle op_rsub_Scalar;
OpHandle op_rsub_Tensor;
OpHandle op_sub_inplace_Tensor;
}  // namespace fe

namespace fe {
OpHandle op_sub_Tensor;
}  // namespace fe

namespace fe {
namespace ops {
namespace ew {

const char* py_type_name(const MetaValue& v) {
  switch (kind_of(v)) {
    case ValueKind::Bool: return "bool";
    case ValueKind::Int: return "int";
    case ValueKind::Double: return "float";
    case ValueKind::None: return "NoneType";
    case ValueKind::String: return "str";
    case ValueKind::Tensor: return "FakeTensor";
    default: return "List";
  }
}

void require_tensor(const MetaArgs& a, size_t i) {
  FE_CHECK(a.is_tensor(i), ValueError, label(a), ": ", label(a), "() Expected a value of type 'Tensor' for argument '",
           a.op().schema.arguments[i].name, "' but instead found type '", py_type_name(a[i]), "'.");
}

void require_number(const MetaArgs& a, size_t i) {
  const ValueKind k = kind_of(a[i]);
  FE_CHECK(k == ValueKind::Bool || k == ValueKind::Int || k == ValueKind::Double, ValueError, label(a), ": ", label(a),
           "() Expected a value of type 'number' for argument '", a.op().schema.arguments[i].name,
           "' but instead found type '", py_type_name(a[i]), "'.");
}

std::string torch_dtype(DType t) { return "torch." + std::string(dtype_name(t)); }

bool can_cast(DType from, DType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating(from) && is_integral(to, true)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}

TensorMeta inplace_result(const MetaArgs& a, const TensorMeta& result, bool bracket_style) {
  const TensorMeta& self = a.tensor(0);
  const bool same = IntSpan(result.sizes).size() == IntSpan(self.sizes).size() &&
                    std::equal(result.sizes.begin(), result.sizes.end(), self.sizes.begin());
  FE_CHECK(same, ShapeError, label(a), ": output with shape ",
           bracket_style ? shape_str(self.sizes) : torch_size(self.sizes), " doesn't match the broadcast shape ",
           bracket_style ? shape_str(result.sizes) : py_tuple(result.sizes));
  return self;
}

void throw_zero_division(const OpDef& op) { throw ValueError(op.label() + ": ZeroDivisionError"); }

void check_no_internal_overlap(const OpDef& op, const Tensor& self) {
  const TensorMeta& m = self.meta();
  for (size_t d = 0; d < m.sizes.size(); ++d)
    FE_CHECK(!(m.strides[d].expect_int() == 0 && m.sizes[d].expect_int() > 1), ValueError, op.schema.ns, "::",
             op.schema.name,
             ": unsupported operation: more than one element of the written-to tensor refers to a single memory "
             "location. Please clone() the tensor before performing the operation.");
}

double round_to(DType t, double v) {
  if (std::isnan(v) || std::isinf(v)) {
    if (t == DType::Bool) return v != 0;  // NaN is true
    if (!is_floating(t)) return 0;
    return v;
  }
  switch (t) {
    case DType::Bool: return v != 0;
    case DType::UInt8: return static_cast<uint8_t>(detail::truncate_to_i64(v));
    case DType::Int8: return static_cast<int8_t>(detail::truncate_to_i64(v));
    case DType::Int16: return static_cast<int16_t>(detail::truncate_to_i64(v));
    case DType::Int32: return static_cast<int32_t>(detail::truncate_to_i64(v));
    case DType::Int64: return static_cast<double>(detail::truncate_to_i64(v));
    case DType::Float32: return static_cast<float>(v);
    case DType::Float16: return detail::half_to_float(detail::float_to_half(static_cast<float>(v)));
    case DType::BFloat16: return detail::bf16_to_float(detail::float_to_bf16(static_cast<float>(v)));
    default: return v;
  }
}

namespace {
const char* py_type(TypeCategory c) {
  return c == TypeCategory::Bool ? "bool" : c == TypeCategory::Integral ? "int" : "float";
}
TypeCategory weak_category_of(DType t) {
  return t == DType::Bool ? TypeCategory::Bool : is_floating(t) ? TypeCategory::Floating : TypeCategory::Integral;
}
}  // namespace

/// `name argument of type <class 'float'> cannot be safely cast to type <class 'int'>!`
void check_weak_scalar(const MetaArgs& a, TypeCategory value, const char* name) {
  const TypeCategory self = weak_category_of(a.tensor(0).dtype);
  FE_CHECK(static_cast<int>(value) <= static_cast<int>(self), ValueError, label(a), ": ", name,
           " argument of type <class '", py_type(value), "'> cannot be safely cast to type <class '", py_type(self),
           "'>!");
}
void check_scalar_arg(const MetaArgs& a, size_t i, const char* name) {
  require_number(a, i);
  check_weak_scalar(a, a.scalar_category(i), name);
}

}  // namespace ew

using namespace ew;

namespace {

enum class Arith : uint8_t { Add, Sub, RSub, Mul, Div, DivMode, Rem, FloorDiv, Pow };
/// InplaceScalar: `pow_.Scalar(Tensor(a!) self, Scalar exponent)`.
enum class Form : uint8_t { Tensor, Scalar, ScalarSelf, Inplace, InplaceScalar };
constexpr bool writes_self(Form f) { return f == Form::Inplace || f == Form::InplaceScalar; }

constexpr bool numbers_as_tensor(Arith k) {
  // TorchScript lets numbers stand in the Tensor slots of these overloads only.
  return k == Arith::Add || k == Arith::Sub || k == Arith::Mul || k == Arith::Div || k == Arith::DivMode ||
         k == Arith::FloorDiv;
}

/// torch._refs.add/sub: alpha must be a Python value the (promoted) dtype's Python type holds.
void check_alpha(const MetaArgs& a, size_t alpha, DType d) {
  FE_CHECK(!(kind_of(a[alpha]) == ValueKind::Double && is_integral(d, false)), DTypeError, label(a),
           ": alpha argument of type <class 'float'> cannot be safely cast to type <class 'int'>! (For integral "
           "input tensors, argument alpha must not be a floating point number.)");
}

bool is_bool_tensor(const MetaArgs& a, size_t i) { return a.is_tensor(i) && a.tensor(i).dtype == DType::Bool; }
bool is_number(const MetaValue& v) {
  const ValueKind k = kind_of(v);
  return k == ValueKind::Bool || k == ValueKind::Int || k == ValueKind::Double;
}
/// Two Python numbers in Tensor slots: two wrapped numbers, a 0-dim cpu result of their promotion.
TensorMeta numbers_meta(const MetaArgs& a) {
  require_number(a, 1);
  ResultTypeState rt;
  rt.add_scalar(a.scalar_category(0));
  rt.add_scalar(a.scalar_category(1));
  return make_contiguous(DimVector{}, rt.result(default_dtype()), Device::parse("cpu"));
}

template <Arith K, Form F>
void meta_arith(const MetaArgs& a, MetaOut& out) {
  const size_t self = F == Form::ScalarSelf ? 1 : 0;
  if (F == Form::Scalar || F == Form::InplaceScalar) require_number(a, 1);
  if (F == Form::ScalarSelf) require_number(a, 0);
  if ((F == Form::Tensor || F == Form::Inplace) && !numbers_as_tensor(K)) require_tensor(a, 1);
  // These overloads take a Python number as self too (a wrapped number, as PyTorch's own lowerings
  // record `sub.Tensor(1, x)` for rsub and linspace).
  const bool number_self = F == Form::Tensor && numbers_as_tensor(K) && is_number(a[0]);
  if (!number_self) require_tensor(a, self);
  if constexpr (K == Arith::DivMode) {
    if (!a.is_none(2)) {
      const std::string& m = a.str(2);
      FE_CHECK(m == "trunc" || m == "floor", ValueError, label(a),
               ": div expected rounding_mode to be one of None, 'trunc', or 'floor' but found ", m, ".");
    }
  }
  // rsub(self, other) is sub(other, self): other broadcasts (and lays out) first.
  TensorMeta m = number_self && !a.is_tensor(1) ? numbers_meta(a)
                 : K == Arith::RSub             ? elementwise_meta(a, {1, 0})
                                                : elementwise_meta(a, {0, 1});
  const bool floor_mode = K == Arith::FloorDiv || (K == Arith::DivMode && !a.is_none(2) && a.str(2) == "floor");
  const bool true_div = K == Arith::Div || (K == Arith::DivMode && a.is_none(2));
  // FakeTensorMode checks neither bool subtraction nor alpha for the in-place variants.
  if constexpr ((K == Arith::Sub || K == Arith::RSub) && !writes_self(F))
    FE_CHECK(!(is_bool_tensor(a, 0) && is_bool_tensor(a, 1)), DTypeError, label(a),
             ": Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
             "operator instead.");
  FE_CHECK(!(floor_mode && m.dtype == DType::Bool), DTypeError, label(a), ": torch.bool not supported for floor_divide");
  // The refs check alpha against the promoted dtype; add.Scalar/sub.Scalar and in-place skip it.
  if ((K == Arith::Add || K == Arith::Sub) && F == Form::Tensor) check_alpha(a, 2, m.dtype);
  if (K == Arith::RSub) check_alpha(a, 2, m.dtype);
  if (floor_mode && is_floating(m.dtype) && a.is_tensor(1)) {
    // torch._refs' float floor division ends with where(other != 0, ...): the fresh `other != 0`
    // (other broadcast to the result) decides the layout.
    const TensorMeta* one[1] = {&a.tensor(1)};
    m.strides = iter_output_strides(m.sizes, one);
  }
  if (true_div && is_integral(m.dtype, true)) m.dtype = default_dtype();
  if (K == Arith::Pow && m.dtype == DType::Bool) m.dtype = DType::Int64;
  if constexpr (writes_self(F)) {
    const DType self_t = a.tensor(0).dtype;
    if constexpr (K == Arith::Add || K == Arith::Sub) {
      FE_CHECK(!(self_t == DType::Bool && m.dtype != DType::Bool), DTypeError, label(a),
               ": Promotion of bool.add/sub_(others) in in-place ops are not possible due to element size change.");
      FE_CHECK(!(is_integral(self_t, false) && is_floating(m.dtype)), DTypeError, label(a),
               ": Promotion of int.add/sub_(float) in in-place ops are not possible due to element size change.");
    }
    if constexpr (K == Arith::Div)
      FE_CHECK(can_cast(m.dtype, self_t), DTypeError, label(a), ": result type ", torch_dtype(m.dtype),
               " can't be cast to the desired output type ", torch_dtype(self_t));
    // pow_ and floor_divide_ are torch._refs' in-place wrappers: the out= copy's safe-cast check.
    if constexpr (K == Arith::Pow || K == Arith::FloorDiv)
      FE_CHECK(can_cast(m.dtype, self_t), DTypeError, label(a), ": Attempting to cast from ", torch_dtype(m.dtype),
               " to out tensor with dtype ", torch_dtype(self_t), ", but this can't be cast because it is not safe!");
    out.push(inplace_result(a, m));
    return;
  }
  out.push(std::move(m));
}

// ---- reference kernels


double floor_div(const OpDef& op, double x, double y, bool integral) {
  if (integral) {
    if (y == 0) throw_zero_division(op);
    return std::floor(x / y);
  }
  if (y == 0) return x / y;
  // ATen's div_floor_floating: floor of the exact quotient via fmod, then rounded to nearest.
  const double mod = std::fmod(x, y);
  double div = (x - mod) / y;
  if (mod != 0 && (y < 0) != (mod < 0)) div -= 1;
  if (div == 0) return std::copysign(0.0, x / y);
  double fl = std::floor(div);
  if (div - fl > 0.5) fl += 1;
  return fl;
}

double remainder(const OpDef& op, double x, double y, bool integral) {
  if (integral) {
    if (y == 0) throw_zero_division(op);
    const int64_t xi = detail::truncate_to_i64(x), yi = detail::truncate_to_i64(y);
    int64_t r = yi == -1 ? 0 : xi % yi;  // INT64_MIN % -1 overflows
    if (r != 0 && ((r < 0) != (yi < 0))) r += yi;
    return static_cast<double>(r);
  }
  double mod = std::fmod(x, y);
  if (mod != 0 && ((y < 0) != (mod < 0))) mod += y;
  return mod;
}

/// Integer pow by squaring with two's-complement wraparound, as ATen's powi.
double int_pow(DType t, double b, double e) {
  if (e < 0) {
    if (b == 1) return 1;
    if (b == -1) return std::fmod(-e, 2) == 1 ? -1 : 1;
    return 0;
  }
  uint64_t base = static_cast<uint64_t>(static_cast<int64_t>(b)), r = 1;
  for (uint64_t n = static_cast<uint64_t>(e); n; n >>= 1, base *= base)
    if (n & 1) r *= base;
  // Narrow in the integer domain: the 64-bit product does not survive a trip through double.
  switch (t) {
    case DType::UInt8: return static_cast<uint8_t>(r);
    case DType::Int8: return static_cast<int8_t>(r);
    case DType::Int16: return static_cast<int16_t>(r);
    case DType::Int32: return static_cast<int32_t>(r);
    default: return static_cast<double>(static_cast<int64_t>(r));
  }
}

template <Arith K, Form F>
void cpu_arith(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  if (writes_self(F)) check_no_internal_overlap(op, o[0]);
  const DType common = cpu::result_dtype(a, {0, 1});
  const bool integral = is_integral(common, true);
  double alpha = 1;
  if constexpr (K == Arith::Add || K == Arith::Sub || K == Arith::RSub) {
    alpha = cpu::number_of(a[2]);
    // Eager's add/sub kernels (FakeTensorMode does not check this).
    FE_CHECK(!(std::holds_alternative<bool>(a[2]) && common != DType::Bool), DTypeError, op.schema.ns, "::",
             op.schema.name, ": Boolean alpha only supported for Boolean results.");
  }
  std::string mode;
  if constexpr (K == Arith::DivMode)
    if (const auto* s = std::get_if<std::string>(&a[2])) mode = *s;
  if constexpr (K == Arith::DivMode)
    FE_CHECK(!(common == DType::Bool && !mode.empty()), DTypeError, op.schema.ns, "::", op.schema.name, ": \"div_",
             mode, "_cpu\" not implemented for 'Bool'");
  if constexpr (K == Arith::Rem || K == Arith::FloorDiv)
    FE_CHECK(common != DType::Bool, DTypeError, op.schema.ns, "::", op.schema.name, ": \"",
             K == Arith::Rem ? "remainder_cpu" : "div_floor_cpu", "\" not implemented for 'Bool'");
  const bool scalar_exponent = F == Form::Scalar || F == Form::InplaceScalar;
  if constexpr (K == Arith::Pow) {
    FE_CHECK(!(F == Form::Tensor && common == DType::Bool), DTypeError, op.schema.ns, "::", op.schema.name,
             ": \"pow\" not implemented for 'Bool'");
    FE_CHECK(!(scalar_exponent && is_integral(common, true) && cpu::number_of(a[1]) < 0), ValueError,
             op.schema.ns, "::", op.schema.name, ": Integers to negative integer powers are not allowed.");
  }
  // Pow of bools computes in int64; true division of integers computes in the float result dtype.
  const DType compute = (K == Arith::Div || (K == Arith::DivMode && mode.empty()) || K == Arith::Pow) &&
                                !writes_self(F)
                            ? o[0].dtype()
                            : common;
  // pow_tensor_scalar_optimized_kernel: x ** 3 is (x * x) * x and x ** -2 is 1 / (x * x), the
  // square rounded to the dtype on its own (measured on bfloat16 and float32; float16 and the other
  // exponents round once).
  const bool two_step_pow = K == Arith::Pow && scalar_exponent && (compute == DType::BFloat16 || compute == DType::Float32);
  // mul/div by a Python scalar on a half tensor take the scalar in float (the kernel's opmath
  // scalar); add/sub round it to the tensor's dtype first (measured, bfloat16 and float16).
  std::optional<double> opmath_scalar;
  if constexpr (K == Arith::Mul || K == Arith::Div)
    if ((compute == DType::BFloat16 || compute == DType::Float16) && !std::holds_alternative<Tensor>(a[1]))
      opmath_scalar = round_to(DType::Float32, cpu::number_of(a[1]));
  nary_kernel(a, {0, 1}, o[0], compute, [&](const double* v) -> double {
    const double x = v[0], y = opmath_scalar ? *opmath_scalar : v[1];
    if (K == Arith::Pow && two_step_pow && (y == 3 || y == -2)) {
      const double sq = ew::round_to(compute, x * x);
      return y == 3 ? sq * x : 1 / sq;
    }
    switch (K) {
      case Arith::Add: return x + alpha * y;
      case Arith::Sub: return x - alpha * y;
      case Arith::RSub: return y - alpha * x;
      case Arith::Mul: return x * y;
      case Arith::Div: return x / y;
      case Arith::DivMode:
        if (mode.empty()) return x / y;
        if (mode == "floor") return floor_div(op, x, y, integral);
        if (integral && y == 0) throw_zero_division(op);
        return std::trunc(x / y);
      case Arith::FloorDiv: return floor_div(op, x, y, integral);
      case Arith::Rem: return remainder(op, x, y, integral);
      case Arith::Pow: return is_integral(compute, true) ? int_pow(compute, x, y) : std::pow(x, y);
    }
    return 0;
  });
}

template <Arith K, Form F>
constexpr OpDecl decl(const char* schema) {
  return {schema, meta_arith<K, F>, cpu_arith<K, F>};
}

/// torch._decomp's floor_divide: div(self, other, rounding_mode="floor").
std::vector<Tensor> decomp_floor_divide(std::span<const IValue> a, const SrcLocArg& loc) {
  return {dispatch1(*op_div_Tensor_mode, {a[0], a[1], std::string("floor")}, loc)};
}

/// rsub.Tensor / rsub.Scalar (torch._refs.rsub): sub(other, self, alpha=alpha), a Python number
/// as sub.Tensor's self when other is one.
std::vector<Tensor> decomp_rsub(std::span<const IValue> a, const SrcLocArg& loc) {
  return {dispatch1(*op_sub_Tensor, {a[1], a[0], a[2]}, loc)};
}

/// square (CompositeImplicit): pow(self, 2), whose promotion it takes (a bool self gives int64).
void meta_square(const MetaArgs& a, MetaOut& out) {
  out.push(meta_call(*op_pow_Tensor_Scalar, {&a.tensor(0), SymInt(2)}));
}
void cpu_square(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const IValue args[] = {a[0], SymInt(2)};
  cpu_arith<Arith::Pow, Form::Scalar>(*op_pow_Tensor_Scalar, args, o);
}
std::vector<Tensor> decomp_square(std::span<const IValue> a, const SrcLocArg& loc) {
  return {dispatch1(*op_pow_Tensor_Scalar, {a[0], SymInt(2)}, loc)};
}

}  // namespace

void register_elementwise_ops(Registry& r) {
  using A = Arith;
  using F = Form;
  op_add_Tensor = r.add(decl<A::Add, F::Tensor>("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"));
  op_add_Scalar = r.add(decl<A::Add, F::Scalar>("aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"));
  op_add_inplace_Tensor = r.add(decl<A::Add, F::Inplace>("aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"));
  op_sub_Tensor = r.add(decl<A::Sub, F::Tensor>("aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"));
  r.add(decl<A::Sub, F::Scalar>("aten::sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"));
  op_sub_inplace_Tensor = r.add(decl<A::Sub, F::Inplace>("aten::sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"));
  OpDecl rsub = decl<A::RSub, F::Tensor>("aten::rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  rsub.decomp = decomp_rsub;
  op_rsub_Tensor = r.add(rsub);
  rsub = decl<A::RSub, F::Scalar>("aten::rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor");
  rsub.decomp = decomp_rsub;
  op_rsub_Scalar = r.add(rsub);
  op_mul_Tensor = r.add(decl<A::Mul, F::Tensor>("aten::mul.Tensor(Tensor self, Tensor other) -> Tensor"));
  op_mul_Scalar = r.add(decl<A::Mul, F::Scalar>("aten::mul.Scalar(Tensor self, Scalar other) -> Tensor"));
  op_mul_inplace_Tensor = r.add(decl<A::Mul, F::Inplace>("aten::mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"));
  op_div_Tensor = r.add(decl<A::Div, F::Tensor>("aten::div.Tensor(Tensor self, Tensor other) -> Tensor"));
  r.add(decl<A::Div, F::Scalar>("aten::div.Scalar(Tensor self, Scalar other) -> Tensor"));
  op_div_Tensor_mode = r.add(decl<A::DivMode, F::Tensor>("aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor"));
  op_div_inplace_Tensor = r.add(decl<A::Div, F::Inplace>("aten::div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"));
  op_remainder_Tensor = r.add(decl<A::Rem, F::Tensor>("aten::remainder.Tensor(Tensor self, Tensor other) -> Tensor"));
  op_remainder_Scalar = r.add(decl<A::Rem, F::Scalar>("aten::remainder.Scalar(Tensor self, Scalar other) -> Tensor"));
  op_remainder_Scalar_Tensor = r.add(decl<A::Rem, F::ScalarSelf>("aten::remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor"));
  OpDecl floor_divide = decl<A::FloorDiv, F::Tensor>("aten::floor_divide(Tensor self, Tensor other) -> Tensor");
  floor_divide.decomp = decomp_floor_divide;
  op_floor_divide = r.add(floor_divide);
  op_pow_Tensor_Tensor = r.add(decl<A::Pow, F::Tensor>("aten::pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor"));
  op_pow_Tensor_Scalar = r.add(decl<A::Pow, F::Scalar>("aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor"));
  op_pow_Scalar = r.add(decl<A::Pow, F::ScalarSelf>("aten::pow.Scalar(Scalar self, Tensor exponent) -> Tensor"));
  r.add({.schema = "aten::square(Tensor self) -> Tensor", .meta = meta_square, .cpu = cpu_square, .decomp = decomp_square});
  r.add(composite_alias<op_mul_Tensor>("aten::multiply.Tensor(Tensor self, Tensor other) -> Tensor"));
  // In place, as user code writes them (`x.pow_(2)`, `x //= y`); decompose functionalizes each to
  // the op of its signature (pow.Tensor_Scalar, pow.Tensor_Tensor, floor_divide).
  r.add(decl<A::Pow, F::InplaceScalar>("aten::pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)"));
  r.add(decl<A::Pow, F::Inplace>("aten::pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)"));
  r.add(decl<A::FloorDiv, F::Inplace>("aten::floor_divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"));
  register_logic_ops(r);
}

}  // namespace ops
}  // namespace fe
