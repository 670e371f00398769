// Private helpers of the elementwise family (elementwise*.cpp): argument-kind checks with
// PyTorch's texts, in-place result checks, and an n-ary reference kernel computing in double.
#pragma once
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/meta_util.h"

namespace fe::ops::ew {

void register_logic_ops(Registry& r);
void register_bitwise_ops(Registry& r);

/// Python type name of a non-tensor value: 'int', 'float', 'bool', 'NoneType'.
const char* py_type_name(const MetaValue& v);

/// TorchScript's schema matcher rejects a Python number in a `Tensor` slot of most overloads
/// (only add/sub/mul/div/floor_divide accept one): "aten::eq() Expected a value of type 'Tensor'...".
void require_tensor(const MetaArgs& a, size_t i);
/// A tensor in a `Scalar` slot: "aten::add() Expected a value of type 'number' ...".
void require_number(const MetaArgs& a, size_t i);

/// torch._refs' utils.is_weakly_lesser_type check of a Python number against self's (arg 0) dtype:
/// "`name` argument of type <class 'float'> cannot be safely cast to type <class 'int'>!".
void check_weak_scalar(const MetaArgs& a, TypeCategory value, const char* name);
/// require_number, then check_weak_scalar of argument i.
void check_scalar_arg(const MetaArgs& a, size_t i, const char* name);

/// "torch.float32".
std::string torch_dtype(DType t);

/// c10::canCast: no float -> integral, no non-bool -> bool, no complex -> real.
bool can_cast(DType from, DType to);

/// In-place result: the broadcast shape must be self's ("output with shape torch.Size([3]) doesn't
/// match the broadcast shape (2, 3)"); returns exactly self's metadata.
TensorMeta inplace_result(const MetaArgs& a, const TensorMeta& result, bool bracket_style = false);

/// Integer division/remainder by zero in a reference kernel: PyTorch's "ZeroDivisionError".
[[noreturn]] void throw_zero_division(const OpDef& op);
/// In-place kernels refuse a self whose elements share memory (a stride-0 dim of size > 1).
void check_no_internal_overlap(const OpDef& op, const Tensor& self);

/// Rounds v to what dtype t holds (integers wrap as two's complement, like C++ casts in ATen).
double round_to(DType t, double v);

/// out[i] = f(vals) where vals[k] is operand idx[k] at i, first rounded to `compute` (the dtype
/// PyTorch computes in); absent (None) operands read as NaN. The result is rounded to out's dtype.
template <class F>
void nary_kernel(std::span<const IValue> a, std::initializer_list<size_t> idx, const Tensor& out, DType compute,
                 F&& f) {
  const TensorMeta& om = out.meta();
  std::vector<cpu::Operand> ins;
  std::vector<bool> present;
  for (size_t i : idx) {
    const bool none = std::holds_alternative<None>(a[i]);
    present.push_back(!none);
    ins.push_back(none ? cpu::make_operand(IValue(0.0), om.sizes) : cpu::make_operand(a[i], om.sizes));
  }
  double vals[4];
  cpu::for_each_element(om, std::span<const cpu::Operand>(ins.data(), ins.size()),
                        [&](int64_t out_off, const int64_t* in_off) {
                          for (size_t k = 0; k < ins.size(); ++k)
                            vals[k] = present[k] ? round_to(compute, ins[k].at(in_off[k])) : std::nan("");
                          cpu::store_at(out, out_off, round_to(out.dtype(), f(vals)));
                        });
}

}  // namespace fe::ops::ew
