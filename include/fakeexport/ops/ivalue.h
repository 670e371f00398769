// Argument values of an op call. One variant template, three instantiations:
//   IValue    = ValueT<Tensor>             (API calls, reference kernels)
//   MetaValue = ValueT<const TensorMeta*>  (meta functions: pure over metadata)
//   NodeArg   = ValueT<Node*>              (graph IR, see export/graph.h)
// Python numbers in Tensor slots (`mul.Tensor(x, 2)`) are kept as numbers, as PyTorch records them.
#pragma once
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "fakeexport/core/device.h"
#include "fakeexport/core/dtype.h"
#include "fakeexport/core/layout.h"
#include "fakeexport/core/symint.h"
#include "fakeexport/core/tensor.h"

namespace fe {

/// Python None (an absent optional argument).
struct None {
  friend bool operator==(None, None) { return true; }
};

/// A value no op schema of ours takes, kept as a loaded program recorded it (a list of strings, a
/// complex number, an operator reference, a list of int lists, a dict): its serialized kind
/// (`as_operator`), FX's Python repr for printing and the serialized JSON text for writing back.
struct OpaqueValue {
  std::string kind;
  std::string repr;
  std::string json;
  friend bool operator==(const OpaqueValue&, const OpaqueValue&) = default;
};
using Opaque = std::shared_ptr<const OpaqueValue>;

/// Alternatives in a fixed order; equal indices mean equal kinds across instantiations.
template <class T>
using ValueT = std::variant<None, bool, SymInt, double, std::string, DType, Layout, Device, MemoryFormat,
                            std::vector<SymInt>, T, std::vector<T>, std::vector<double>, std::vector<bool>,
                            Opaque>;

/// Index of each alternative (same for every instantiation).
enum class ValueKind : uint8_t {
  None, Bool, Int, Double, String, DType, Layout, Device, MemoryFormat, IntList, Tensor, TensorList,
  FloatList, BoolList, Opaque
};
template <class T>
ValueKind kind_of(const ValueT<T>& v) { return static_cast<ValueKind>(v.index()); }

/// A value that never holds a tensor: schema defaults.
struct NoTensor {
  friend bool operator==(NoTensor, NoTensor) { return true; }
};
using Constant = ValueT<NoTensor>;

using IValue = ValueT<Tensor>;
using MetaValue = ValueT<const TensorMeta*>;

/// Whether v equals the (tensor-free) constant c; values holding tensors are never equal.
template <class T>
bool equals_constant(const ValueT<T>& v, const Constant& c) {
  if (v.index() != c.index()) return false;
  switch (kind_of(v)) {
    case ValueKind::None: return true;
    case ValueKind::Bool: return std::get<bool>(v) == std::get<bool>(c);
    case ValueKind::Int: return std::get<SymInt>(v) == std::get<SymInt>(c);
    case ValueKind::Double: return std::get<double>(v) == std::get<double>(c);
    case ValueKind::String: return std::get<std::string>(v) == std::get<std::string>(c);
    case ValueKind::DType: return std::get<DType>(v) == std::get<DType>(c);
    case ValueKind::Layout: return std::get<Layout>(v) == std::get<Layout>(c);
    case ValueKind::Device: return std::get<Device>(v) == std::get<Device>(c);
    case ValueKind::MemoryFormat: return std::get<MemoryFormat>(v) == std::get<MemoryFormat>(c);
    case ValueKind::IntList: return std::get<std::vector<SymInt>>(v) == std::get<std::vector<SymInt>>(c);
    case ValueKind::FloatList: return std::get<std::vector<double>>(v) == std::get<std::vector<double>>(c);
    case ValueKind::BoolList: return std::get<std::vector<bool>>(v) == std::get<std::vector<bool>>(c);
    case ValueKind::Opaque: return *std::get<Opaque>(v) == *std::get<Opaque>(c);
    case ValueKind::Tensor:
    case ValueKind::TensorList: return false;
  }
  return false;
}

/// Converts the tensor alternatives of a value with `f` (Tensor -> Node*, Tensor -> TensorMeta*, ...).
template <class To, class From, class F>
ValueT<To> map_tensors(const ValueT<From>& v, F&& f) {
  switch (kind_of(v)) {
    case ValueKind::None: return None{};
    case ValueKind::Bool: return std::get<bool>(v);
    case ValueKind::Int: return std::get<SymInt>(v);
    case ValueKind::Double: return std::get<double>(v);
    case ValueKind::String: return std::get<std::string>(v);
    case ValueKind::DType: return std::get<DType>(v);
    case ValueKind::Layout: return std::get<Layout>(v);
    case ValueKind::Device: return std::get<Device>(v);
    case ValueKind::MemoryFormat: return std::get<MemoryFormat>(v);
    case ValueKind::IntList: return std::get<std::vector<SymInt>>(v);
    case ValueKind::FloatList: return std::get<std::vector<double>>(v);
    case ValueKind::BoolList: return std::get<std::vector<bool>>(v);
    case ValueKind::Opaque: return std::get<Opaque>(v);
    case ValueKind::Tensor: return f(std::get<From>(v));
    case ValueKind::TensorList: {
      std::vector<To> out;
      for (const auto& t : std::get<std::vector<From>>(v)) out.push_back(f(t));
      return out;
    }
  }
  return None{};
}

/// Python repr of a tensor-free value as FX prints it: `torch.float32`, `device(type='cpu')`,
/// `'tanh'`, `[2, 3]`, `1e-05`, `None`, `True`.
std::string constant_repr(const Constant& v);
std::string python_float_repr(double d);
template <class T>
std::string python_repr(const ValueT<T>& v) {
  return constant_repr(map_tensors<NoTensor>(v, [](const T&) { return NoTensor{}; }));
}

}  // namespace fe
