// Public API, Linear algebra: linear, mm, bmm, matmul, addmm, baddbmm, einsum, outer, dot, mv, t.
// Each function builds the argument list of one ATen op (as Python's arg parser would) and calls
// dispatch(); none computes metadata itself.
#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "fakeexport/core/source_location.h"
#include "fakeexport/core/tensor.h"
#include "fakeexport/ops/scalar.h"

namespace fe {

// Linear algebra.
/// F.linear; an undefined `bias` means None.
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
              SrcLocArg loc = SrcLocArg::current());
Tensor t(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor mm(const Tensor& self, const Tensor& mat2, SrcLocArg loc = SrcLocArg::current());
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, Scalar beta = 1, Scalar alpha = 1,
             SrcLocArg loc = SrcLocArg::current());
Tensor bmm(const Tensor& self, const Tensor& mat2, SrcLocArg loc = SrcLocArg::current());
/// torch._grouped_mm(mat_a, mat_b, offs): one mm per group of the 2-D operand, cut at the int32
/// cumulative offsets `offs` (undefined: none, for 3D x 3D).
Tensor _grouped_mm(const Tensor& mat_a, const Tensor& mat_b, const Tensor& offs,
                   SrcLocArg loc = SrcLocArg::current());
/// torch.ops.transformers.grouped_mm_fallback(input, weight, offs): transformers' custom op for
/// the same product when torch._grouped_mm cannot run (float32 weights under export).
Tensor grouped_mm_fallback(const Tensor& input, const Tensor& weight, const Tensor& offs,
                           SrcLocArg loc = SrcLocArg::current());
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, Scalar beta = 1, Scalar alpha = 1,
               SrcLocArg loc = SrcLocArg::current());
/// torch.matmul / `a @ b` (aten::matmul; fake mode decomposes it into views and mm/bmm/mv/dot).
Tensor matmul(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
/// torch.einsum(equation, *tensors): letters, '...', optional '->'.
Tensor einsum(std::string_view equation, const std::vector<Tensor>& tensors, SrcLocArg loc = SrcLocArg::current());
Tensor outer(const Tensor& self, const Tensor& vec2, SrcLocArg loc = SrcLocArg::current());
Tensor dot(const Tensor& self, const Tensor& tensor, SrcLocArg loc = SrcLocArg::current());
Tensor mv(const Tensor& self, const Tensor& vec, SrcLocArg loc = SrcLocArg::current());

}  // namespace fe
