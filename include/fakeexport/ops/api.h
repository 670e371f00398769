// Public tensor functions, mirroring torch.* / torch.nn.functional. Each builds the argument list of
// one ATen op (as Python's arg parser would) and calls dispatch(); none computes metadata itself.
#pragma once
#include <optional>
#include <string_view>
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

// Factories: device defaults to the innermost DeviceScope, dtype to the DTypeScope (float32).
Tensor empty(Sizes size, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor zeros(Sizes size, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor ones(Sizes size, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor randn(Sizes size, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor rand(Sizes size, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor full(Sizes size, Scalar fill, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor empty_like(const Tensor& t, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor zeros_like(const Tensor& t, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor ones_like(const Tensor& t, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor randn_like(const Tensor& t, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor rand_like(const Tensor& t, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());
Tensor full_like(const Tensor& t, Scalar fill, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());

/// Seeds the generator of the reference rand/randn kernels (per thread).
void manual_seed(uint64_t seed);

// Linear algebra.
/// F.linear; an undefined `bias` means None.
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {},
              SrcLocArg loc = SrcLocArg::current());
Tensor t(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
Tensor mm(const Tensor& self, const Tensor& mat2, SrcLocArg loc = SrcLocArg::current());
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, Scalar beta = 1, Scalar alpha = 1,
             SrcLocArg loc = SrcLocArg::current());

// Elementwise.
Tensor add(const Tensor& self, const Tensor& other, Scalar alpha = 1, SrcLocArg loc = SrcLocArg::current());
/// `x + 2`: recorded as add.Tensor with the Python number in the Tensor slot, as PyTorch does.
Tensor add(const Tensor& self, Scalar other, Scalar alpha = 1, SrcLocArg loc = SrcLocArg::current());
Tensor mul(const Tensor& self, const Tensor& other, SrcLocArg loc = SrcLocArg::current());
Tensor mul(const Tensor& self, Scalar other, SrcLocArg loc = SrcLocArg::current());
Tensor relu(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
/// F.gelu; approximate is "none" or "tanh".
Tensor gelu(const Tensor& self, std::string_view approximate = "none", SrcLocArg loc = SrcLocArg::current());

// Conversions.
Tensor _to_copy(const Tensor& self, TensorOptions o = {}, SrcLocArg loc = SrcLocArg::current());

}  // namespace fe
