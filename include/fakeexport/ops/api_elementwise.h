// Public API, Elementwise binary, comparison and logical ops; operator overloads.
// Each function builds the argument list of the ATen op torch.export records for the same Python
// call and calls dispatch(); none computes metadata itself. A Python number operand is recorded
// as PyTorch records it: `x + 2` -> add.Tensor(x, 2), `2 - x` -> rsub.Scalar(x, 2),
// `x > 0` -> gt.Scalar(x, 0), `0 < x` -> gt.Scalar(x, 0).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fakeexport/core/source_location.h"
#include "fakeexport/core/tensor.h"
#include "fakeexport/ops/scalar.h"

namespace fe {

// ---- arithmetic (torch.add, torch.sub, ...)
Tensor add(const Tensor& self, const Tensor& other, Scalar alpha = 1, SrcLocArg loc = SrcLocArg::current());
/// `x + 2`: recorded as add.Tensor with the Python number in the Tensor slot, as PyTorch does.
Tensor add(const Tensor& self, Scalar other, Scalar alpha = 1, SrcLocArg loc = SrcLocArg::current());
Tensor sub(const Tensor& self, const Tensor& other, Scalar alpha = 1, SrcLocArg loc = SrcLocArg::current());
Tensor sub(const Tensor& self, Scalar other, Scalar alpha = 1, SrcLocArg loc = SrcLocArg::current());
/// torch.rsub(self, other) = other - alpha * self (rsub.Tensor / rsub.Scalar).
Tensor rsub(const Tensor& self, const Tensor& other, Scalar alpha = 1, SrcLocArg loc = SrcLocArg::current());
Tensor rsub(const Tensor& self, Scalar other, Scalar alpha = 1, SrcLocArg loc = SrcLocArg::current());
Tensor mul(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor mul(const Tensor& self, Scalar other, SrcLocArg loc = SrcLocArg::current());
Tensor div(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor div(const Tensor& self, Scalar other, SrcLocArg loc = SrcLocArg::current());
/// torch.div(x, y, rounding_mode=...): div.Tensor_mode; rounding_mode None, "trunc" or "floor".
Tensor div(const Tensor& self, const Tensor& other, std::optional<std::string> rounding_mode,
           SrcLocArg loc = SrcLocArg::current());
Tensor div(const Tensor& self, Scalar other, std::optional<std::string> rounding_mode,
           SrcLocArg loc = SrcLocArg::current());
/// torch.remainder / `x % y`: remainder.Tensor, remainder.Scalar, remainder.Scalar_Tensor.
Tensor remainder(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor remainder(const Tensor& self, Scalar other, SrcLocArg loc = SrcLocArg::current());
Tensor remainder(Scalar self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
/// torch.floor_divide / `x // y`: floor_divide.default (a number stays in its Tensor slot).
Tensor floor_divide(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor floor_divide(const Tensor& self, Scalar other, SrcLocArg loc = SrcLocArg::current());
Tensor floor_divide(Scalar self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
/// torch.pow / `x ** y`: pow.Tensor_Tensor, pow.Tensor_Scalar, pow.Scalar.
Tensor pow(const Tensor& self, const Tensor& exponent, SrcLocArg loc = SrcLocArg::current());
Tensor pow(const Tensor& self, Scalar exponent, SrcLocArg loc = SrcLocArg::current());
Tensor pow(Scalar self, const Tensor& exponent, SrcLocArg loc = SrcLocArg::current());

// ---- comparisons: bool tensors (eq.Tensor / eq.Scalar, ...)
Tensor eq(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor eq(const Tensor& self, Scalar other, SrcLocArg loc = SrcLocArg::current());
Tensor ne(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor ne(const Tensor& self, Scalar other, SrcLocArg loc = SrcLocArg::current());
Tensor lt(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor lt(const Tensor& self, Scalar other, SrcLocArg loc = SrcLocArg::current());
Tensor le(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor le(const Tensor& self, Scalar other, SrcLocArg loc = SrcLocArg::current());
Tensor gt(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor gt(const Tensor& self, Scalar other, SrcLocArg loc = SrcLocArg::current());
Tensor ge(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor ge(const Tensor& self, Scalar other, SrcLocArg loc = SrcLocArg::current());

// ---- logical ops (bool results)
Tensor logical_and(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor logical_or(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor logical_xor(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor logical_not(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
/// torch.isinf / torch.isnan: bool, false for integral and bool tensors.
Tensor isinf(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor isnan(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
/// torch.bitwise_not / bitwise_and / bitwise_or (integral and bool tensors; float kernels refuse).
Tensor bitwise_not(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor bitwise_and(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor bitwise_and(const Tensor& self, Scalar other, SrcLocArg loc = SrcLocArg::current());
Tensor bitwise_or(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor bitwise_or(const Tensor& self, Scalar other, SrcLocArg loc = SrcLocArg::current());

// ---- selection
/// torch.where(condition, x, y): where.self / where.ScalarOther / where.ScalarSelf / where.Scalar.
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor where(const Tensor& condition, const Tensor& self, Scalar other, SrcLocArg loc = SrcLocArg::current());
Tensor where(const Tensor& condition, Scalar self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor where(const Tensor& condition, Scalar self, Scalar other, SrcLocArg loc = SrcLocArg::current());
/// x.masked_fill(mask, value): masked_fill.Scalar; a (0-dim) tensor value: masked_fill.Tensor.
Tensor masked_fill(const Tensor& self, const Tensor& mask, Scalar value, SrcLocArg loc = SrcLocArg::current());
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value, SrcLocArg loc = SrcLocArg::current());
/// torch.clamp(x, min, max) with numbers (clamp.default) or tensors (clamp.Tensor); one may be nullopt.
Tensor clamp(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt,
             SrcLocArg loc = SrcLocArg::current());
Tensor clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max = std::nullopt,
             SrcLocArg loc = SrcLocArg::current());
/// self.clamp_(min=..., max=...) in place, either bound may be missing (x.clamp_(max=3)).
Tensor clamp_(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max,
              SrcLocArg loc = SrcLocArg::current());
Tensor clamp_min(const Tensor& self, Scalar min, SrcLocArg loc = SrcLocArg::current());
Tensor clamp_max(const Tensor& self, Scalar max, SrcLocArg loc = SrcLocArg::current());
Tensor maximum(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor minimum(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());

// ---- Python operators. Operators cannot take a defaulted location parameter, so each tensor operand
// converts to TensorAt, whose constructor's default argument captures the user's expression.
Tensor operator+(TensorAt a, TensorAt b);
Tensor operator+(TensorAt a, Scalar b);
Tensor operator+(Scalar a, TensorAt b);  ///< add.Tensor(b, a)
Tensor operator-(TensorAt a, TensorAt b);
Tensor operator-(TensorAt a, Scalar b);
Tensor operator-(Scalar a, TensorAt b);  ///< rsub.Scalar(b, a)
Tensor operator*(TensorAt a, TensorAt b);
Tensor operator*(TensorAt a, Scalar b);
Tensor operator*(Scalar a, TensorAt b);  ///< mul.Tensor(b, a)
Tensor operator/(TensorAt a, TensorAt b);
Tensor operator/(TensorAt a, Scalar b);
/// `2 / x`: PyTorch records reciprocal(x) then mul.Tensor(_, 2); needs aten::reciprocal (unary family).
Tensor operator/(Scalar a, TensorAt b);
Tensor operator%(TensorAt a, TensorAt b);
Tensor operator%(TensorAt a, Scalar b);
/// Comparisons return bool tensors; a number on the left swaps the op (`0 < x` -> gt.Scalar(x, 0)).
Tensor operator==(TensorAt a, TensorAt b);
Tensor operator==(TensorAt a, Scalar b);
Tensor operator==(Scalar a, TensorAt b);
Tensor operator!=(TensorAt a, TensorAt b);
Tensor operator!=(TensorAt a, Scalar b);
Tensor operator!=(Scalar a, TensorAt b);
Tensor operator<(TensorAt a, TensorAt b);
Tensor operator<(TensorAt a, Scalar b);
Tensor operator<(Scalar a, TensorAt b);
Tensor operator<=(TensorAt a, TensorAt b);
Tensor operator<=(TensorAt a, Scalar b);
Tensor operator<=(Scalar a, TensorAt b);
Tensor operator>(TensorAt a, TensorAt b);
Tensor operator>(TensorAt a, Scalar b);
Tensor operator>(Scalar a, TensorAt b);
Tensor operator>=(TensorAt a, TensorAt b);
Tensor operator>=(TensorAt a, Scalar b);
Tensor operator>=(Scalar a, TensorAt b);
/// `~x` records bitwise_not; `a & b` / `a | b` record __and__ / __or__ (.Tensor or .Scalar).
Tensor operator~(TensorAt a);
Tensor operator&(TensorAt a, TensorAt b);
Tensor operator&(TensorAt a, Scalar b);
Tensor operator|(TensorAt a, TensorAt b);
Tensor operator|(TensorAt a, Scalar b);

}  // namespace fe
