// Helpers shared by the unary and activation families (src/ops/unary*.cpp, activation*.cpp).
#pragma once
#include <span>
#include <string_view>

#include "fakeexport/core/tensor.h"
#include "ops/meta_util.h"

namespace fe::ops {

/// Python type name of a non-tensor value, as PyTorch's argument parser prints it.
inline const char* py_type_name(const MetaValue& v) {
  switch (kind_of(v)) {
    case ValueKind::Bool: return "bool";
    case ValueKind::Int: return "int";
    case ValueKind::Double: return "float";
    case ValueKind::String: return "str";
    case ValueKind::None: return "NoneType";
    case ValueKind::IntList: return "list";
    default: return "object";
  }
}

/// Tensor argument i; a Python number there raises PyTorch's schema-matching message.
inline const TensorMeta& tensor_arg(const MetaArgs& a, size_t i) {
  FE_CHECK(a.is_tensor(i), ValueError, label(a), ": ", label(a), "() Expected a value of type 'Tensor' for argument '",
           a.op().schema.arguments[i].name, "' but instead found type '", py_type_name(a[i]), "'.");
  return a.tensor(i);
}


/// Dtype of the real part: abs(complex64) is float32.
inline DType real_dtype(DType t) {
  switch (t) {
    case DType::Complex32: return DType::Float16;
    case DType::Complex64: return DType::Float32;
    case DType::Complex128: return DType::Float64;
    default: return t;
  }
}

/// Eager kernels refuse to write in place into a tensor whose elements share memory (expanded).
inline void check_no_internal_overlap(const OpDef& op, const TensorMeta& m) {
  if (m.is_non_overlapping_and_dense()) return;
  bool overlap = false;
  for (size_t d = 0; d < m.sizes.size(); ++d)
    overlap = overlap || (m.strides[d].maybe_int() == 0 && m.sizes[d] > 1);
  FE_CHECK(!overlap, ValueError, op.schema.ns, "::", op.schema.name,
           ": unsupported operation: more than one element of the written-to tensor refers to a single memory "
           "location. Please clone() the tensor before performing the operation.");
}

}  // namespace fe::ops
