// Helpers for the reference CPU kernels: typed element access over broadcast, strided operands.
#pragma once
#include <span>
#include <vector>

#include "core/element.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/ops/ivalue.h"

namespace fe::ops::cpu {

/// An operand of an elementwise kernel: a tensor (strided, broadcast) or a Python number.
struct Operand {
  const std::byte* base = nullptr;  ///< storage start; null for numbers
  DType dtype = DType::Float64;
  DimVector strides;  ///< expanded to the output's rank; 0 on broadcast dims
  int64_t offset = 0;
  double number = 0;

  double at(int64_t elem_offset) const {
    return base ? detail::load(base + elem_offset * itemsize(dtype), dtype) : number;
  }
};

/// Operand for argument v, broadcast against output sizes.
Operand make_operand(const IValue& v, IntSpan out_sizes);

/// Calls f(out_offset, in_offsets...) over every element of `out`, operands in lockstep.
template <class F>
void for_each_element(const TensorMeta& out, std::span<const Operand> ins, F&& f) {
  const int64_t n = out.numel().expect_int();
  if (n == 0) return;
  const size_t nd = out.sizes.size();
  std::vector<int64_t> idx(nd, 0), offs(ins.size());
  int64_t o = out.storage_offset.expect_int();
  for (size_t k = 0; k < ins.size(); ++k) offs[k] = ins[k].offset;
  for (int64_t e = 0; e < n; ++e) {
    f(o, offs.data());
    for (size_t d = nd; d-- > 0;) {
      const int64_t size = out.sizes[d].expect_int();
      if (++idx[d] < size) {
        o += out.strides[d].expect_int();
        for (size_t k = 0; k < ins.size(); ++k) offs[k] += ins[k].strides[d].expect_int();
        break;
      }
      o -= (size - 1) * out.strides[d].expect_int();
      for (size_t k = 0; k < ins.size(); ++k) offs[k] -= (size - 1) * ins[k].strides[d].expect_int();
      idx[d] = 0;
    }
  }
}

/// The dtype PyTorch computes an elementwise op in: the promoted dtype of the tensor and number
/// arguments at `idx` (at::native::result_type).
inline DType result_dtype(std::span<const IValue> a, std::initializer_list<size_t> idx) {
  ResultTypeState rt;
  for (size_t i : idx) {
    if (const Tensor* t = std::get_if<Tensor>(&a[i])) rt.add_tensor(t->dtype(), t->dim() == 0);
    else if (std::holds_alternative<bool>(a[i])) rt.add_scalar(TypeCategory::Bool);
    else if (std::holds_alternative<SymInt>(a[i])) rt.add_scalar(TypeCategory::Integral);
    else if (std::holds_alternative<double>(a[i])) rt.add_scalar(TypeCategory::Floating);
  }
  return rt.result(default_dtype());
}

/// Value of a Scalar argument (bool, int or float) as double.
double number_of(const IValue& v);

/// Writes v to element `offset` of tensor t.
inline void store_at(const Tensor& t, int64_t offset, double v) {
  std::byte* base = static_cast<std::byte*>(t.data_ptr()) - t.meta().storage_offset.expect_int() * itemsize(t.dtype());
  detail::store(base + offset * itemsize(t.dtype()), t.dtype(), v);
}

/// Elementwise kernels over args 0 (and 1) broadcast to output 0: o[0][i] = f(a0[i] (, a1[i])).
template <class F>
void binary_kernel(std::span<const IValue> a, std::span<Tensor> o, F&& f) {
  const TensorMeta& om = o[0].meta();
  Operand ins[2] = {make_operand(a[0], om.sizes), make_operand(a[1], om.sizes)};
  for_each_element(om, ins, [&](int64_t out_off, const int64_t* in_off) {
    store_at(o[0], out_off, f(ins[0].at(in_off[0]), ins[1].at(in_off[1])));
  });
}

template <class F>
void unary_kernel(std::span<const IValue> a, std::span<Tensor> o, F&& f) {
  const TensorMeta& om = o[0].meta();
  Operand in = make_operand(a[0], om.sizes);
  for_each_element(om, std::span(&in, 1), [&](int64_t out_off, const int64_t* in_off) {
    store_at(o[0], out_off, f(in.at(in_off[0])));
  });
}

}  // namespace fe::ops::cpu
