// Scalar (a Python number) and TensorOptions (factory keyword arguments) of the public API.
#pragma once
#include <optional>
#include <variant>
#include <vector>

#include "fakeexport/core/source_location.h"
#include "fakeexport/core/tensor.h"
#include "fakeexport/ops/ivalue.h"

namespace fe {

/// A Python number: bool, int or float (torch's Scalar).
class Scalar {
 public:
  Scalar(bool v) : v_(v) {}           // NOLINT
  Scalar(int v) : v_(SymInt(v)) {}    // NOLINT
  Scalar(int64_t v) : v_(SymInt(v)) {}  // NOLINT
  Scalar(SymInt v) : v_(v) {}         // NOLINT: a symbolic size as a number (arange(0, T))
  Scalar(double v) : v_(v) {}         // NOLINT
  IValue ivalue() const;

 private:
  std::variant<bool, SymInt, double> v_;
};

/// Factory options (dtype/device/layout/requires_grad keyword arguments).
struct TensorOptions {
  std::optional<DType> dtype;
  std::optional<Device> device;
  std::optional<Layout> layout;
  bool requires_grad = false;
};
using Sizes = std::vector<SymInt>;

/// An operand of a C++ operator (`x + y`, `-x`): converting the Tensor evaluates the default
/// argument at the user's expression, so the recorded source location is the caller's.
struct TensorAt {
  const Tensor& t;
  SrcLocArg loc;
  TensorAt(const Tensor& t, SrcLocArg loc = SrcLocArg::current()) : t(t), loc(loc) {}  // NOLINT
  operator const Tensor&() const { return t; }  // NOLINT
};

}  // namespace fe
