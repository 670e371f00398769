// Public API of the elementwise family: free functions, Tensor methods and Python operators.
// Each builds the argument list of the ATen op torch.export records for the Python call.
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/families.h"

namespace fe {
namespace {
IValue opt_scalar(const std::optional<Scalar>& s) { return s ? s->ivalue() : IValue(None{}); }
IValue opt_tensor(const std::optional<Tensor>& t) { return t ? IValue(*t) : IValue(None{}); }
IValue opt_str(const std::optional<std::string>& s) { return s ? IValue(*s) : IValue(None{}); }
}  // namespace

Tensor add(const Tensor& self, const Tensor& other, Scalar alpha, SrcLocArg loc) {
  const OpDef& d = *op_add_Tensor;
  return dispatch1(d, {self, other, alpha.ivalue()}, loc);
}
Tensor add(const Tensor& self, Scalar other, Scalar alpha, SrcLocArg loc) {
  const OpDef& d = *op_add_Tensor;
  return dispatch1(d, {self, other.ivalue(), alpha.ivalue()}, loc);
}
Tensor sub(const Tensor& self, const Tensor& other, Scalar alpha, SrcLocArg loc) {
  const OpDef& d = *op_sub_Tensor;
  return dispatch1(d, {self, other, alpha.ivalue()}, loc);
}
Tensor sub(const Tensor& self, Scalar other, Scalar alpha, SrcLocArg loc) {
  const OpDef& d = *op_sub_Tensor;
  return dispatch1(d, {self, other.ivalue(), alpha.ivalue()}, loc);
}
Tensor rsub(const Tensor& self, const Tensor& other, Scalar alpha, SrcLocArg loc) {
  const OpDef& d = *op_rsub_Tensor;
  return dispatch1(d, {self, other, alpha.ivalue()}, loc);
}
Tensor rsub(const Tensor& self, Scalar other, Scalar alpha, SrcLocArg loc) {
  const OpDef& d = *op_rsub_Scalar;
  return dispatch1(d, {self, other.ivalue(), alpha.ivalue()}, loc);
}
Tensor mul(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_mul_Tensor;
  return dispatch1(d, {self, other}, loc);
}
Tensor mul(const Tensor& self, Scalar other, SrcLocArg loc) {
  const OpDef& d = *op_mul_Tensor;
  return dispatch1(d, {self, other.ivalue()}, loc);
}
Tensor div(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_div_Tensor;
  return dispatch1(d, {self, other}, loc);
}
Tensor div(const Tensor& self, Scalar other, SrcLocArg loc) {
  const OpDef& d = *op_div_Tensor;
  return dispatch1(d, {self, other.ivalue()}, loc);
}
Tensor div(const Tensor& self, const Tensor& other, std::optional<std::string> rounding_mode, SrcLocArg loc) {
  const OpDef& d = *op_div_Tensor_mode;
  return dispatch1(d, {self, other, opt_str(rounding_mode)}, loc);
}
Tensor div(const Tensor& self, Scalar other, std::optional<std::string> rounding_mode, SrcLocArg loc) {
  const OpDef& d = *op_div_Tensor_mode;
  return dispatch1(d, {self, other.ivalue(), opt_str(rounding_mode)}, loc);
}
Tensor remainder(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_remainder_Tensor;
  return dispatch1(d, {self, other}, loc);
}
Tensor remainder(const Tensor& self, Scalar other, SrcLocArg loc) {
  const OpDef& d = *op_remainder_Scalar;
  return dispatch1(d, {self, other.ivalue()}, loc);
}
Tensor remainder(Scalar self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_remainder_Scalar_Tensor;
  return dispatch1(d, {self.ivalue(), other}, loc);
}
Tensor floor_divide(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_floor_divide;
  return dispatch1(d, {self, other}, loc);
}
Tensor floor_divide(const Tensor& self, Scalar other, SrcLocArg loc) {
  const OpDef& d = *op_floor_divide;
  return dispatch1(d, {self, other.ivalue()}, loc);
}
Tensor floor_divide(Scalar self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_floor_divide;
  return dispatch1(d, {self.ivalue(), other}, loc);
}
Tensor pow(const Tensor& self, const Tensor& exponent, SrcLocArg loc) {
  const OpDef& d = *op_pow_Tensor_Tensor;
  return dispatch1(d, {self, exponent}, loc);
}
Tensor pow(const Tensor& self, Scalar exponent, SrcLocArg loc) {
  const OpDef& d = *op_pow_Tensor_Scalar;
  return dispatch1(d, {self, exponent.ivalue()}, loc);
}
Tensor pow(Scalar self, const Tensor& exponent, SrcLocArg loc) {
  const OpDef& d = *op_pow_Scalar;
  return dispatch1(d, {self.ivalue(), exponent}, loc);
}
Tensor eq(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_eq_Tensor;
  return dispatch1(d, {self, other}, loc);
}
Tensor eq(const Tensor& self, Scalar other, SrcLocArg loc) {
  const OpDef& d = *op_eq_Scalar;
  return dispatch1(d, {self, other.ivalue()}, loc);
}
Tensor ne(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_ne_Tensor;
  return dispatch1(d, {self, other}, loc);
}
Tensor ne(const Tensor& self, Scalar other, SrcLocArg loc) {
  const OpDef& d = *op_ne_Scalar;
  return dispatch1(d, {self, other.ivalue()}, loc);
}
Tensor lt(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_lt_Tensor;
  return dispatch1(d, {self, other}, loc);
}
Tensor lt(const Tensor& self, Scalar other, SrcLocArg loc) {
  const OpDef& d = *op_lt_Scalar;
  return dispatch1(d, {self, other.ivalue()}, loc);
}
Tensor le(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_le_Tensor;
  return dispatch1(d, {self, other}, loc);
}
Tensor le(const Tensor& self, Scalar other, SrcLocArg loc) {
  const OpDef& d = *op_le_Scalar;
  return dispatch1(d, {self, other.ivalue()}, loc);
}
Tensor gt(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_gt_Tensor;
  return dispatch1(d, {self, other}, loc);
}
Tensor gt(const Tensor& self, Scalar other, SrcLocArg loc) {
  const OpDef& d = *op_gt_Scalar;
  return dispatch1(d, {self, other.ivalue()}, loc);
}
Tensor ge(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_ge_Tensor;
  return dispatch1(d, {self, other}, loc);
}
Tensor ge(const Tensor& self, Scalar other, SrcLocArg loc) {
  const OpDef& d = *op_ge_Scalar;
  return dispatch1(d, {self, other.ivalue()}, loc);
}
Tensor logical_and(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_logical_and;
  return dispatch1(d, {self, other}, loc);
}
Tensor logical_or(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_logical_or;
  return dispatch1(d, {self, other}, loc);
}
Tensor logical_xor(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_logical_xor;
  return dispatch1(d, {self, other}, loc);
}
Tensor logical_not(const Tensor& self, SrcLocArg loc) {
  const OpDef& d = *op_logical_not;
  return dispatch1(d, {self}, loc);
}
Tensor isinf(const Tensor& self, SrcLocArg loc) {
  const OpDef& d = *op_isinf;
  return dispatch1(d, {self}, loc);
}
Tensor isnan(const Tensor& self, SrcLocArg loc) {
  const OpDef& d = *op_isnan;
  return dispatch1(d, {self}, loc);
}
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_where_self;
  return dispatch1(d, {condition, self, other}, loc);
}
Tensor where(const Tensor& condition, const Tensor& self, Scalar other, SrcLocArg loc) {
  const OpDef& d = *op_where_ScalarOther;
  return dispatch1(d, {condition, self, other.ivalue()}, loc);
}
Tensor where(const Tensor& condition, Scalar self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_where_ScalarSelf;
  return dispatch1(d, {condition, self.ivalue(), other}, loc);
}
Tensor where(const Tensor& condition, Scalar self, Scalar other, SrcLocArg loc) {
  const OpDef& d = *op_where_Scalar;
  return dispatch1(d, {condition, self.ivalue(), other.ivalue()}, loc);
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, Scalar value, SrcLocArg loc) {
  const OpDef& d = *op_masked_fill_Scalar;
  return dispatch1(d, {self, mask, value.ivalue()}, loc);
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value, SrcLocArg loc) {
  const OpDef& d = *op_masked_fill_Tensor;
  return dispatch1(d, {self, mask, value}, loc);
}
Tensor clamp(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max, SrcLocArg loc) {
  const OpDef& d = *op_clamp;
  return dispatch1(d, {self, opt_scalar(min), opt_scalar(max)}, loc);
}
Tensor clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max, SrcLocArg loc) {
  const OpDef& d = *op_clamp_Tensor;
  return dispatch1(d, {self, opt_tensor(min), opt_tensor(max)}, loc);
}
Tensor clamp_(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max, SrcLocArg loc) {
  const OpDef& d = *op_clamp_;
  return dispatch1(d, {self, opt_scalar(min), opt_scalar(max)}, loc);
}
Tensor clamp_min(const Tensor& self, Scalar min, SrcLocArg loc) {
  const OpDef& d = *op_clamp_min;
  return dispatch1(d, {self, min.ivalue()}, loc);
}
Tensor clamp_max(const Tensor& self, Scalar max, SrcLocArg loc) {
  const OpDef& d = *op_clamp_max;
  return dispatch1(d, {self, max.ivalue()}, loc);
}
Tensor maximum(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_maximum;
  return dispatch1(d, {self, other}, loc);
}
Tensor minimum(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_minimum;
  return dispatch1(d, {self, other}, loc);
}

// ---- Tensor methods
Tensor Tensor::add(const Tensor& other, SrcLocArg loc) const { return fe::add(*this, other, 1, loc); }
Tensor Tensor::add(const Tensor& other, const Scalar& alpha, SrcLocArg loc) const { return fe::add(*this, other, alpha, loc); }
Tensor Tensor::add(const Scalar& other, SrcLocArg loc) const { return fe::add(*this, other, 1, loc); }
Tensor Tensor::sub(const Tensor& other, SrcLocArg loc) const { return fe::sub(*this, other, 1, loc); }
Tensor Tensor::sub(const Tensor& other, const Scalar& alpha, SrcLocArg loc) const { return fe::sub(*this, other, alpha, loc); }
Tensor Tensor::sub(const Scalar& other, SrcLocArg loc) const { return fe::sub(*this, other, 1, loc); }
Tensor Tensor::mul(const Tensor& other, SrcLocArg loc) const { return fe::mul(*this, other, loc); }
Tensor Tensor::mul(const Scalar& other, SrcLocArg loc) const { return fe::mul(*this, other, loc); }
Tensor Tensor::div(const Tensor& other, SrcLocArg loc) const { return fe::div(*this, other, loc); }
Tensor Tensor::div(const Scalar& other, SrcLocArg loc) const { return fe::div(*this, other, loc); }
Tensor Tensor::remainder(const Tensor& other, SrcLocArg loc) const { return fe::remainder(*this, other, loc); }
Tensor Tensor::remainder(const Scalar& other, SrcLocArg loc) const { return fe::remainder(*this, other, loc); }
Tensor Tensor::pow(const Tensor& exponent, SrcLocArg loc) const { return fe::pow(*this, exponent, loc); }
Tensor Tensor::pow(const Scalar& exponent, SrcLocArg loc) const { return fe::pow(*this, exponent, loc); }
Tensor Tensor::eq(const Tensor& other, SrcLocArg loc) const { return fe::eq(*this, other, loc); }
Tensor Tensor::eq(const Scalar& other, SrcLocArg loc) const { return fe::eq(*this, other, loc); }
Tensor Tensor::ne(const Tensor& other, SrcLocArg loc) const { return fe::ne(*this, other, loc); }
Tensor Tensor::ne(const Scalar& other, SrcLocArg loc) const { return fe::ne(*this, other, loc); }
Tensor Tensor::lt(const Tensor& other, SrcLocArg loc) const { return fe::lt(*this, other, loc); }
Tensor Tensor::lt(const Scalar& other, SrcLocArg loc) const { return fe::lt(*this, other, loc); }
Tensor Tensor::le(const Tensor& other, SrcLocArg loc) const { return fe::le(*this, other, loc); }
Tensor Tensor::le(const Scalar& other, SrcLocArg loc) const { return fe::le(*this, other, loc); }
Tensor Tensor::gt(const Tensor& other, SrcLocArg loc) const { return fe::gt(*this, other, loc); }
Tensor Tensor::gt(const Scalar& other, SrcLocArg loc) const { return fe::gt(*this, other, loc); }
Tensor Tensor::ge(const Tensor& other, SrcLocArg loc) const { return fe::ge(*this, other, loc); }
Tensor Tensor::ge(const Scalar& other, SrcLocArg loc) const { return fe::ge(*this, other, loc); }
Tensor Tensor::logical_and(const Tensor& other, SrcLocArg loc) const { return fe::logical_and(*this, other, loc); }
Tensor Tensor::logical_or(const Tensor& other, SrcLocArg loc) const { return fe::logical_or(*this, other, loc); }
Tensor Tensor::logical_xor(const Tensor& other, SrcLocArg loc) const { return fe::logical_xor(*this, other, loc); }
Tensor Tensor::maximum(const Tensor& other, SrcLocArg loc) const { return fe::maximum(*this, other, loc); }
Tensor Tensor::minimum(const Tensor& other, SrcLocArg loc) const { return fe::minimum(*this, other, loc); }
Tensor Tensor::logical_not(SrcLocArg loc) const { return fe::logical_not(*this, loc); }
Tensor Tensor::where(const Tensor& condition, const Tensor& other, SrcLocArg loc) const { return fe::where(condition, *this, other, loc); }
Tensor Tensor::where(const Tensor& condition, const Scalar& other, SrcLocArg loc) const { return fe::where(condition, *this, other, loc); }
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value, SrcLocArg loc) const { return fe::masked_fill(*this, mask, value, loc); }
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value, SrcLocArg loc) const { return fe::masked_fill(*this, mask, value, loc); }
Tensor Tensor::clamp_min(const Scalar& min, SrcLocArg loc) const { return fe::clamp_min(*this, min, loc); }
Tensor Tensor::clamp_max(const Scalar& max, SrcLocArg loc) const { return fe::clamp_max(*this, max, loc); }
Tensor Tensor::clamp(const Scalar& min, const Scalar& max, SrcLocArg loc) const { return fe::clamp(*this, std::optional<Scalar>(min), std::optional<Scalar>(max), loc); }
Tensor Tensor::add_(const Tensor& other, SrcLocArg loc) const {
  const OpDef& d = *op_add_inplace_Tensor;
  return dispatch1(d, {*this, other}, loc);
}
Tensor Tensor::add_(const Tensor& other, const Scalar& alpha, SrcLocArg loc) const {
  const OpDef& d = *op_add_inplace_Tensor;
  return dispatch1(d, {*this, other, alpha.ivalue()}, loc);
}
Tensor Tensor::add_(const Scalar& other, SrcLocArg loc) const {
  const OpDef& d = *op_add_inplace_Tensor;
  return dispatch1(d, {*this, other.ivalue()}, loc);
}
Tensor Tensor::sub_(const Tensor& other, SrcLocArg loc) const {
  const OpDef& d = *op_sub_inplace_Tensor;
  return dispatch1(d, {*this, other}, loc);
}
Tensor Tensor::sub_(const Tensor& other, const Scalar& alpha, SrcLocArg loc) const {
  const OpDef& d = *op_sub_inplace_Tensor;
  return dispatch1(d, {*this, other, alpha.ivalue()}, loc);
}
Tensor Tensor::sub_(const Scalar& other, SrcLocArg loc) const {
  const OpDef& d = *op_sub_inplace_Tensor;
  return dispatch1(d, {*this, other.ivalue()}, loc);
}
Tensor Tensor::mul_(const Tensor& other, SrcLocArg loc) const {
  const OpDef& d = *op_mul_inplace_Tensor;
  return dispatch1(d, {*this, other}, loc);
}
Tensor Tensor::mul_(const Scalar& other, SrcLocArg loc) const {
  const OpDef& d = *op_mul_inplace_Tensor;
  return dispatch1(d, {*this, other.ivalue()}, loc);
}
Tensor Tensor::div_(const Tensor& other, SrcLocArg loc) const {
  const OpDef& d = *op_div_inplace_Tensor;
  return dispatch1(d, {*this, other}, loc);
}
Tensor Tensor::div_(const Scalar& other, SrcLocArg loc) const {
  const OpDef& d = *op_div_inplace_Tensor;
  return dispatch1(d, {*this, other.ivalue()}, loc);
}
Tensor Tensor::masked_fill_(const Tensor& mask, const Scalar& value, SrcLocArg loc) const {
  const OpDef& d = *op_masked_fill_inplace_Scalar;
  return dispatch1(d, {*this, mask, value.ivalue()}, loc);
}
Tensor Tensor::masked_fill_(const Tensor& mask, const Tensor& value, SrcLocArg loc) const {
  const OpDef& d = *op_masked_fill_inplace_Tensor;
  return dispatch1(d, {*this, mask, value}, loc);
}
Tensor Tensor::clamp_(const Scalar& min, const Scalar& max, SrcLocArg loc) const {
  const OpDef& d = *op_clamp_;
  return dispatch1(d, {*this, min.ivalue(), max.ivalue()}, loc);
}

// ---- Python operators (torch.Tensor.__add__ & co.)
Tensor operator+(TensorAt a, TensorAt b) { return add(a, b, 1, a.loc); }
Tensor operator+(TensorAt a, Scalar b) { return add(a, b, 1, a.loc); }
Tensor operator+(Scalar a, TensorAt b) { return add(b, a, 1, b.loc); }
Tensor operator-(TensorAt a, TensorAt b) { return sub(a, b, 1, a.loc); }
Tensor operator-(TensorAt a, Scalar b) { return sub(a, b, 1, a.loc); }
Tensor operator-(Scalar a, TensorAt b) { return rsub(b, a, 1, b.loc); }
Tensor operator*(TensorAt a, TensorAt b) { return mul(a, b, a.loc); }
Tensor operator*(TensorAt a, Scalar b) { return mul(a, b, a.loc); }
Tensor operator*(Scalar a, TensorAt b) { return mul(b, a, b.loc); }
Tensor operator/(TensorAt a, TensorAt b) { return div(a, b, a.loc); }
Tensor operator/(TensorAt a, Scalar b) { return div(a, b, a.loc); }
Tensor operator/(Scalar a, TensorAt b) {
  const OpDef& d = *op_reciprocal;
  return mul(dispatch1(d, {b}, b.loc), a, b.loc);
}
Tensor operator%(TensorAt a, TensorAt b) { return remainder(a, b, a.loc); }
Tensor operator%(TensorAt a, Scalar b) { return remainder(a, b, a.loc); }
// A number on the left mirrors the comparison, as Python's reflected operators do.
Tensor operator==(TensorAt a, TensorAt b) { return eq(a, b, a.loc); }
Tensor operator==(TensorAt a, Scalar b) { return eq(a, b, a.loc); }
Tensor operator==(Scalar a, TensorAt b) { return eq(b, a, b.loc); }
Tensor operator!=(TensorAt a, TensorAt b) { return ne(a, b, a.loc); }
Tensor operator!=(TensorAt a, Scalar b) { return ne(a, b, a.loc); }
Tensor operator!=(Scalar a, TensorAt b) { return ne(b, a, b.loc); }
Tensor operator<(TensorAt a, TensorAt b) { return lt(a, b, a.loc); }
Tensor operator<(TensorAt a, Scalar b) { return lt(a, b, a.loc); }
Tensor operator<(Scalar a, TensorAt b) { return gt(b, a, b.loc); }
Tensor operator<=(TensorAt a, TensorAt b) { return le(a, b, a.loc); }
Tensor operator<=(TensorAt a, Scalar b) { return le(a, b, a.loc); }
Tensor operator<=(Scalar a, TensorAt b) { return ge(b, a, b.loc); }
Tensor operator>(TensorAt a, TensorAt b) { return gt(a, b, a.loc); }
Tensor operator>(TensorAt a, Scalar b) { return gt(a, b, a.loc); }
Tensor operator>(Scalar a, TensorAt b) { return lt(b, a, b.loc); }
Tensor operator>=(TensorAt a, TensorAt b) { return ge(a, b, a.loc); }
Tensor operator>=(TensorAt a, Scalar b) { return ge(a, b, a.loc); }
Tensor operator>=(Scalar a, TensorAt b) { return le(b, a, b.loc); }

Tensor bitwise_not(const Tensor& self, SrcLocArg loc) {
  const OpDef& d = *op_bitwise_not;
  return dispatch1(d, {self}, loc);
}
Tensor bitwise_and(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_bitwise_and_Tensor;
  return dispatch1(d, {self, other}, loc);
}
Tensor bitwise_and(const Tensor& self, Scalar other, SrcLocArg loc) {
  const OpDef& d = *op_bitwise_and_Scalar;
  return dispatch1(d, {self, other.ivalue()}, loc);
}
Tensor bitwise_or(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  const OpDef& d = *op_bitwise_or_Tensor;
  return dispatch1(d, {self, other}, loc);
}
Tensor bitwise_or(const Tensor& self, Scalar other, SrcLocArg loc) {
  const OpDef& d = *op_bitwise_or_Scalar;
  return dispatch1(d, {self, other.ivalue()}, loc);
}
Tensor operator~(TensorAt a) { return bitwise_not(a, a.loc); }
Tensor operator&(TensorAt a, TensorAt b) {
  const OpDef& d = *op_dunder_and_Tensor;
  return dispatch1(d, {a.t, b.t}, a.loc);
}
Tensor operator&(TensorAt a, Scalar b) {
  const OpDef& d = *op_dunder_and_Scalar;
  return dispatch1(d, {a.t, b.ivalue()}, a.loc);
}
Tensor operator|(TensorAt a, TensorAt b) {
  const OpDef& d = *op_dunder_or_Tensor;
  return dispatch1(d, {a.t, b.t}, a.loc);
}
Tensor operator|(TensorAt a, Scalar b) {
  const OpDef& d = *op_dunder_or_Scalar;
  return dispatch1(d, {a.t, b.ivalue()}, a.loc);
}
Tensor Tensor::bitwise_not(SrcLocArg loc) const { return fe::bitwise_not(*this, loc); }
Tensor Tensor::bitwise_and(const Tensor& other, SrcLocArg loc) const { return fe::bitwise_and(*this, other, loc); }
Tensor Tensor::bitwise_or(const Tensor& other, SrcLocArg loc) const { return fe::bitwise_or(*this, other, loc); }

}  // namespace fe
