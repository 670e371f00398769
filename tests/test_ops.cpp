// Ops layer through the public API: meta results (sizes, strides, dtype, device) in fake mode,
// error types and texts, factories, conversions, and the real-tensor reference kernels.
// Expected values were printed by PyTorch 2.14.1 (tools/oracle). Error texts are eager PyTorch's
// (real CPU tensors); where FakeTensorMode/meta prints a different text it is noted.
#include <gtest/gtest.h>

#include "test_util.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "fakeexport/fakeexport.h"

namespace {
using fe_test::what_of;

using fe::DType;
using fe::Tensor;

using fe_test::ints;
using fe_test::V;

const fe::Device kCuda = fe::Device::parse("cuda");

#define EXPECT_THROW_WITH(stmt, Err, text)                                                   \
  do {                                                                                      \
    std::string msg_;                                                                        \
    try {                                                                                    \
      stmt;                                                                                  \
      ADD_FAILURE() << #stmt " did not throw";                                               \
    } catch (const Err& e_) {                                                                \
      msg_ = e_.what();                                                                      \
    }                                                                                        \
    EXPECT_NE(msg_.find(text), std::string::npos) << "message: " << msg_ << "\nwanted: " << (text); \
  } while (0)

// ---------------------------------------------------------------- linear / mm / addmm / t
TEST(OpsLinear, Shapes) {
  fe::FakeTensorMode mode;
  Tensor y = fe::linear(fe::randn({4, 128}), fe::randn({256, 128}), fe::randn({256}));
  EXPECT_TRUE(y.is_fake());
  EXPECT_EQ(ints(y.sizes()), (V{4, 256}));
  EXPECT_EQ(ints(y.strides()), (V{256, 1}));
  EXPECT_EQ(y.dtype(), DType::Float32);
  Tensor y3 = fe::linear(fe::randn({2, 3, 128}), fe::randn({256, 128}));
  EXPECT_EQ(ints(y3.sizes()), (V{2, 3, 256}));
  EXPECT_EQ(ints(y3.strides()), (V{768, 256, 1}));
  EXPECT_EQ(ints(fe::linear(fe::randn({128}), fe::randn({256, 128})).sizes()), (V{256}));
  EXPECT_EQ(fe::linear(fe::randn({128}), fe::randn({128})).dim(), 0);
  Tensor h = fe::linear(fe::randn({4, 8}, {.dtype = DType::Float16}), fe::randn({3, 8}, {.dtype = DType::Float16}));
  EXPECT_EQ(h.dtype(), DType::Float16);
}

TEST(OpsLinear, ShapeMismatch) {
  // FakeTensorMode (the fixtures' judge) reports meta_mm's text for F.linear(torch.empty(4,128), torch.empty(10,64));
  // eager prints "mat1 and mat2 shapes cannot be multiplied (4x128 and 64x10)".
  fe::FakeTensorMode mode;
  EXPECT_THROW_WITH(fe::linear(fe::randn({4, 128}), fe::randn({10, 64})), fe::ShapeError,
                    "a and b must have same reduction dim, but got [4, 128] X [64, 10].");
  EXPECT_THROW_WITH(fe::linear(fe::randn({4, 128}), fe::randn({10, 64}), fe::randn({10})), fe::ShapeError,
                    "a and b must have same reduction dim, but got [4, 128] X [64, 10].");
  EXPECT_THROW_WITH(fe::linear(fe::randn({2, 4, 128}), fe::randn({10, 64})), fe::ShapeError,
                    "a and b must have same reduction dim, but got [8, 128] X [64, 10].");
  EXPECT_THROW_WITH(fe::linear(fe::randn({128}), fe::randn({10, 64})), fe::ShapeError,
                    "a and b must have same reduction dim, but got [1, 128] X [64, 10].");
  EXPECT_NE(what_of([] { fe::linear(fe::randn({4, 128}), fe::randn({10, 64})); }).find("aten::linear"),
            std::string::npos);
  // bias that does not broadcast to [4, 10]
  EXPECT_THROW(fe::linear(fe::randn({4, 128}), fe::randn({10, 128}), fe::randn({3})), fe::ShapeError);
  EXPECT_THROW(fe::linear(fe::randn({}), fe::randn({10, 128})), fe::ShapeError);
}

TEST(OpsLinear, ZeroDimInputText) {
  // Eager: "both arguments to linear need to be at least 1D, but they are 0D and 2D"
  fe::FakeTensorMode mode;
  const std::string got = what_of([] { fe::linear(fe::randn({}), fe::randn({10, 128})); });
  const std::string want = "both arguments to linear need to be at least 1D, but they are 0D and 2D";
  EXPECT_NE(got.find(want), std::string::npos) << got;
}

TEST(OpsLinear, DTypeMismatch) {
  // Eager raises; FakeTensorMode in PyTorch 2.14.1 does not check: mm keeps self's dtype, addmm
  // (its decomposition) promotes.
  fe::FakeTensorMode mode;
  EXPECT_EQ(fe::linear(fe::randn({4, 128}), fe::randn({256, 128}, {.dtype = DType::Float64})).dtype(), DType::Float32);
  EXPECT_EQ(fe::mm(fe::randn({4, 128}), fe::randn({128, 10}, {.dtype = DType::Float64})).dtype(), DType::Float32);
  EXPECT_EQ(fe::addmm(fe::randn({10}, {.dtype = DType::Float64}), fe::randn({4, 128}), fe::randn({128, 10})).dtype(),
            DType::Float64);
}

// FakeTensorMode's metas accept mixed-dtype matmuls (conformance fixtures); on real tensors our
// kernels reject them with eager PyTorch's text rather than silently mixing precisions.
TEST(OpsLinear, DTypeMismatchOnRealTensorsUsesEagerText) {
  EXPECT_THROW_WITH(fe::mm(fe::randn({4, 128}), fe::randn({128, 10}, {.dtype = DType::Float64})), fe::DTypeError,
                    "expected m1 and m2 to have the same dtype, but got: float != double");
  EXPECT_THROW_WITH(
      fe::addmm(fe::randn({10}, {.dtype = DType::Float64}), fe::randn({4, 128}), fe::randn({128, 10})),
      fe::DTypeError, "self and mat2 must have the same dtype, but got Double and Float");
}

TEST(OpsMm, ShapesAndErrors) {
  fe::FakeTensorMode mode;
  Tensor r = fe::mm(fe::randn({4, 128}), fe::randn({128, 10}));
  EXPECT_EQ(ints(r.sizes()), (V{4, 10}));
  EXPECT_EQ(ints(r.strides()), (V{10, 1}));
  // Transposed operand: result is still contiguous.
  EXPECT_EQ(ints(fe::mm(fe::randn({4, 3}).t(), fe::randn({4, 5})).strides()), (V{5, 1}));
  // FakeTensorMode texts (meta_mm); eager says "mat1 and mat2 shapes cannot be multiplied (4x128 and 64x10)".
  EXPECT_THROW_WITH(fe::mm(fe::randn({4, 128}), fe::randn({64, 10})), fe::ShapeError,
                    "a and b must have same reduction dim, but got [4, 128] X [64, 10].");
  EXPECT_THROW_WITH(fe::mm(fe::randn({4, 128, 3}), fe::randn({128, 10})), fe::ShapeError, "a must be 2D");
  EXPECT_THROW_WITH(fe::mm(fe::randn({4, 128}), fe::randn({128})), fe::ShapeError, "b must be 2D");
}

TEST(OpsAddmm, ShapesAndErrors) {
  fe::FakeTensorMode mode;
  Tensor r = fe::addmm(fe::randn({10}), fe::randn({4, 128}), fe::randn({128, 10}));
  EXPECT_EQ(ints(r.sizes()), (V{4, 10}));
  EXPECT_EQ(ints(r.strides()), (V{10, 1}));
  EXPECT_EQ(ints(fe::addmm(fe::randn({4, 1}), fe::randn({4, 128}), fe::randn({128, 10})).sizes()), (V{4, 10}));
  Tensor d = fe::addmm(fe::randn({10}, {.dtype = DType::Float64}), fe::randn({4, 8}, {.dtype = DType::Float64}),
                       fe::randn({8, 10}, {.dtype = DType::Float64}), 2, 0.5);
  EXPECT_EQ(d.dtype(), DType::Float64);
  EXPECT_THROW_WITH(fe::addmm(fe::randn({10}), fe::randn({4, 128}), fe::randn({64, 10})), fe::ShapeError,
                    "a and b must have same reduction dim, but got [4, 128] X [64, 10].");
  EXPECT_THROW(fe::addmm(fe::randn({3}), fe::randn({4, 128}), fe::randn({128, 10})), fe::ShapeError);
}

TEST(OpsT, ViewsAndErrors) {
  fe::FakeTensorMode mode;
  Tensor x = fe::randn({2, 3});
  Tensor y = x.t();
  EXPECT_EQ(ints(y.sizes()), (V{3, 2}));
  EXPECT_EQ(ints(y.strides()), (V{1, 3}));
  EXPECT_TRUE(y.is_fake());
  Tensor v = fe::randn({3}).t();
  EXPECT_EQ(ints(v.sizes()), (V{3}));
  EXPECT_EQ(ints(v.strides()), (V{1}));
  EXPECT_THROW_WITH(fe::randn({2, 3, 4}).t(), fe::ShapeError,
                    "t() expects a tensor with <= 2 dimensions, but self is 3D");
}

// ---------------------------------------------------------------- elementwise
TEST(OpsElementwise, Broadcasting) {
  fe::FakeTensorMode mode;
  Tensor r = fe::add(fe::randn({4, 1, 3}), fe::randn({5, 1}));
  EXPECT_EQ(ints(r.sizes()), (V{4, 5, 3}));
  EXPECT_EQ(ints(r.strides()), (V{15, 3, 1}));
  EXPECT_EQ(ints(fe::mul(fe::randn({4, 1}), fe::randn({3})).sizes()), (V{4, 3}));
  EXPECT_EQ(fe::mul(fe::randn({}), fe::randn({})).dim(), 0);
  // Eager text; fake/meta prints "Attempting to broadcast a dimension of length 5 at -1! ..."
  EXPECT_THROW_WITH(fe::add(fe::randn({4, 3}), fe::randn({5})), fe::ShapeError,
                    "The size of tensor a (3) must match the size of tensor b (5) at non-singleton dimension 1");
}

TEST(OpsElementwise, Strides) {
  // torch.add(torch.empty(3,4).t(), torch.empty(4,3)).stride() == (1, 4); reversed order -> (3, 1)
  fe::FakeTensorMode mode;
  Tensor tr = fe::randn({3, 4}).t();
  EXPECT_EQ(ints(fe::add(tr, fe::randn({4, 3})).strides()), (V{1, 4}));
  EXPECT_EQ(ints(fe::add(fe::randn({4, 3}), tr).strides()), (V{3, 1}));
  EXPECT_EQ(ints(fe::mul(tr, fe::randn({4, 3})).strides()), (V{1, 4}));
  EXPECT_EQ(ints(fe::add(tr, 1).strides()), (V{1, 4}));
  EXPECT_EQ(ints(fe::relu(tr).strides()), (V{1, 4}));
  EXPECT_EQ(ints(fe::gelu(tr, "tanh").strides()), (V{1, 4}));
}

TEST(OpsElementwise, TypePromotion) {
  fe::FakeTensorMode mode;
  auto i32 = [](fe::Sizes s) { return fe::zeros(std::move(s), {.dtype = DType::Int32}); };
  EXPECT_EQ(fe::mul(i32({2, 3}), 2.5).dtype(), DType::Float32);
  EXPECT_EQ(fe::add(i32({2}), 2.5).dtype(), DType::Float32);
  EXPECT_EQ(fe::add(i32({2, 3}), 2).dtype(), DType::Int32);
  EXPECT_EQ(fe::add(i32({2, 3}), fe::zeros({3}, {.dtype = DType::Int64})).dtype(), DType::Int64);
  EXPECT_EQ(fe::add(i32({2, 3}), fe::zeros({2, 3}), 2.5).dtype(), DType::Float32);
  EXPECT_EQ(fe::mul(fe::zeros({2}, {.dtype = DType::UInt8}), fe::zeros({}, {.dtype = DType::Int64})).dtype(),
            DType::UInt8);
  EXPECT_EQ(fe::add(fe::zeros({2}, {.dtype = DType::Float16}), fe::zeros({}, {.dtype = DType::Float64})).dtype(),
            DType::Float16);
  EXPECT_EQ(fe::add(fe::zeros({2}, {.dtype = DType::Bool}), fe::zeros({2}, {.dtype = DType::Bool})).dtype(),
            DType::Bool);
  EXPECT_EQ(fe::add(fe::zeros({2}, {.dtype = DType::Bool}), true).dtype(), DType::Bool);
  EXPECT_EQ(fe::mul(fe::zeros({2}, {.dtype = DType::Bool}), true).dtype(), DType::Bool);
  Tensor s = fe::add(fe::zeros({}, {.dtype = DType::Int64}), 1.5);
  EXPECT_EQ(s.dtype(), DType::Float32);
  EXPECT_EQ(s.dim(), 0);
  {
    fe::DTypeScope f64(DType::Float64);
    EXPECT_EQ(fe::mul(i32({2}), 2.5).dtype(), DType::Float64);
  }
  EXPECT_THROW_WITH(fe::add(i32({2}), i32({2}), 2.5), fe::DTypeError,
                    "For integral input tensors, argument alpha must not be a floating point number.");
  // FakeTensorMode (PyTorch 2.14's refs) accepts a bool alpha for non-bool results; eager rejects it,
  // and so does our reference kernel on real tensors.
  EXPECT_EQ(fe::add(fe::zeros({2}), fe::zeros({2}), true).dtype(), DType::Float32);
  EXPECT_EQ(fe::add(i32({2}), i32({2}), true).dtype(), DType::Int32);
}

TEST(OpsElementwise, BoolAlphaRejectedOnRealTensors) {
  EXPECT_THROW_WITH(fe::add(fe::zeros({2}), fe::zeros({2}), true), fe::DTypeError,
                    "Boolean alpha only supported for Boolean results.");
}

TEST(OpsElementwise, GeluApproximateArgument) {
  fe::FakeTensorMode mode;
  EXPECT_THROW_WITH(fe::gelu(fe::randn({2}), "foo"), fe::ValueError, "approximate argument must be either none or tanh");
  EXPECT_EQ(fe::gelu(fe::randn({2}, {.dtype = DType::BFloat16})).dtype(), DType::BFloat16);
}

TEST(OpsElementwise, GeluIntegerText) {
  // FakeTensorMode accepts F.gelu on int64 and returns int64 (tests/fixtures/ops/activation.json);
  // eager: F.gelu(torch.ones(2, dtype=torch.int64)) -> NotImplementedError
  // "\"GeluKernelImpl\" not implemented for 'Long'" (raised by our reference kernel).
  {
    fe::FakeTensorMode mode;
    EXPECT_EQ(fe::gelu(fe::zeros({2}, {.dtype = DType::Int64})).dtype(), DType::Int64);
  }
  EXPECT_THROW_WITH(fe::gelu(fe::zeros({2}, {.dtype = DType::Int64})), fe::DTypeError,
                    "\"GeluKernelImpl\" not implemented for 'Long'");
}

TEST(OpsElementwise, ReluBool) {
  // FakeTensorMode accepts torch.relu on bool and returns bool (tests/fixtures/ops/activation.json);
  // eager: torch.relu(torch.ones(2, dtype=torch.bool)) -> "Boolean inputs not supported for relu".
  {
    fe::FakeTensorMode mode;
    EXPECT_EQ(fe::relu(fe::zeros({2}, {.dtype = DType::Bool})).dtype(), DType::Bool);
  }
  EXPECT_THROW_WITH(fe::relu(fe::zeros({2}, {.dtype = DType::Bool})), fe::DTypeError,
                    "Boolean inputs not supported for relu");
}

// ---------------------------------------------------------------- devices
TEST(OpsDevice, CrossDeviceLinear) {
  fe::FakeTensorMode mode;
  Tensor x = fe::randn({4, 128});
  Tensor w = fe::randn({256, 128}, {.device = kCuda});
  Tensor b = fe::randn({256}, {.device = kCuda});
  EXPECT_EQ(w.device().str(), "cuda:0");
  // The eager rule (dispatch device = first non-cpu tensor's). PyTorch 2.14.1's FakeTensorMode
  // prints "... cpu and cuda:0!" here (common device = first tensor's).
  EXPECT_THROW(fe::linear(x, w, b), fe::DeviceMismatchError);
  EXPECT_EQ(what_of([&] { fe::linear(x, w, b); }),
            "aten::linear: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!");
  // FakeTensorMode: torch.add(cuda[256,128], cpu[128]) -> "... cuda:0 and cpu!"
  EXPECT_THROW_WITH(fe::add(w, x), fe::DeviceMismatchError,
                    "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!");
  EXPECT_THROW(fe::add(fe::randn({1}), w), fe::DeviceMismatchError);  // 1-element but 1-D
  EXPECT_THROW(fe::mm(x, w.t()), fe::DeviceMismatchError);
  EXPECT_THROW(fe::add(w, fe::randn({256, 128}, {.device = fe::Device::parse("cuda:1")})), fe::DeviceMismatchError);
}

TEST(OpsDevice, ZeroDimCpuTensorAllowed) {
  fe::FakeTensorMode mode;
  Tensor w = fe::randn({4, 4}, {.device = kCuda});
  Tensor s = fe::randn({});
  Tensor a = fe::add(w, s);
  EXPECT_EQ(a.device().str(), "cuda:0");
  EXPECT_EQ(ints(a.sizes()), (V{4, 4}));
  EXPECT_EQ(fe::add(s, w).device().str(), "cuda:0");
  EXPECT_EQ(fe::mul(s, w).device().str(), "cuda:0");
  EXPECT_EQ(fe::add(s, s).device(), fe::kCPU);
  Tensor l = fe::linear(fe::randn({2, 4}, {.device = kCuda}), w, fe::randn({4}, {.device = kCuda}));
  EXPECT_EQ(l.device().str(), "cuda:0");
}

// ---------------------------------------------------------------- factories
TEST(OpsFactory, Defaults) {
  fe::FakeTensorMode mode;
  Tensor e = fe::empty({2, 3});
  EXPECT_EQ(e.dtype(), DType::Float32);
  EXPECT_EQ(e.device(), fe::kCPU);
  EXPECT_EQ(ints(e.strides()), (V{3, 1}));
  EXPECT_FALSE(e.requires_grad());
  EXPECT_TRUE(fe::ones({2}, {.requires_grad = true}).requires_grad());
  EXPECT_EQ(fe::full({2}, 3).dtype(), DType::Int64);    // torch.full((2,), 3)
  EXPECT_EQ(fe::full({2}, true).dtype(), DType::Bool);  // torch.full((2,), True)
  EXPECT_EQ(fe::full({2}, 1.5).dtype(), DType::Float32);
  EXPECT_EQ(fe::full({2}, 3, {.dtype = DType::Float16}).dtype(), DType::Float16);
  EXPECT_EQ(fe::zeros({2, 3}, {.dtype = DType::Int32}).dtype(), DType::Int32);
  EXPECT_EQ(fe::rand({0, 5}).numel(), 0);
  EXPECT_EQ(ints(fe::zeros({2, 0, 3}).strides()), (V{3, 3, 1}));
}

TEST(OpsFactory, DeviceScopePlacesTensors) {
  fe::FakeTensorMode mode;
  {
    fe::DeviceScope cuda(kCuda);  // with torch.device('cuda'): zeros -> cuda:0
    EXPECT_EQ(fe::zeros({2, 3}).device().str(), "cuda:0");
    EXPECT_EQ(fe::full({2}, 3).device().str(), "cuda:0");
    EXPECT_EQ(fe::randn({2}).device().str(), "cuda:0");
    EXPECT_EQ(fe::randn({2}, {.device = fe::kCPU}).device(), fe::kCPU);
    fe::DeviceScope meta(fe::kMeta);
    EXPECT_EQ(fe::ones({1}).device(), fe::kMeta);
  }
  EXPECT_EQ(fe::zeros({2}).device(), fe::kCPU);
  EXPECT_EQ(fe::zeros({2}, {.device = fe::Device::parse("cuda:2")}).device().str(), "cuda:2");
}

TEST(OpsFactory, NegativeSize) {
  fe::FakeTensorMode mode;
  // torch.empty(2, -3) / torch.full((2, -3), 1.0)
  EXPECT_THROW_WITH(fe::empty({2, -3}), fe::ShapeError, "Trying to create tensor with negative dimension -3: [2, -3]");
  EXPECT_THROW_WITH(fe::full({2, -3}, 1.0), fe::ShapeError,
                    "Trying to create tensor with negative dimension -3: [2, -3]");
  EXPECT_THROW(fe::zeros({-1}), fe::ShapeError);
  EXPECT_THROW(fe::empty({int64_t(1) << 40, int64_t(1) << 40}), fe::ShapeError);  // numel overflow
}

TEST(OpsFactory, LikePreservesStrides) {
  // torch.empty_like(torch.empty(3,4).t()).stride() == (1, 4), also zeros/ones/full_like;
  // memory_format=contiguous or a non-dense input gives (3, 1).
  fe::FakeTensorMode mode;
  Tensor tr = fe::randn({3, 4}).t();
  for (const Tensor& r : {fe::empty_like(tr), fe::zeros_like(tr), fe::ones_like(tr), fe::randn_like(tr),
                          fe::rand_like(tr), fe::full_like(tr, 2)}) {
    EXPECT_EQ(ints(r.sizes()), (V{4, 3}));
    EXPECT_EQ(ints(r.strides()), (V{1, 4}));
    EXPECT_EQ(r.dtype(), DType::Float32);  // full_like(float, 2) keeps float32
  }
  Tensor d = fe::ones_like(tr, {.dtype = DType::Float64});
  EXPECT_EQ(d.dtype(), DType::Float64);
  EXPECT_EQ(ints(d.strides()), (V{1, 4}));
  Tensor c = fe::zeros_like(fe::randn({2, 3}, {.device = kCuda}));
  EXPECT_EQ(c.device().str(), "cuda:0");
  EXPECT_EQ(fe::empty_like(tr, {.device = kCuda}).device().str(), "cuda:0");
}

// ---------------------------------------------------------------- to()
TEST(OpsTo, DTypeDeviceAndAliasing) {
  fe::FakeTensorMode mode;
  Tensor x = fe::randn({2, 3});
  Tensor h = x.to(DType::Float16);
  EXPECT_EQ(h.dtype(), DType::Float16);
  EXPECT_FALSE(h.is_same(x));
  EXPECT_TRUE(x.to(DType::Float32).is_same(x));  // x.to(torch.float32) is x
  EXPECT_TRUE(x.to(fe::kCPU).is_same(x));        // x.to('cpu') is x
  Tensor c = x.to(kCuda);
  EXPECT_EQ(c.device().str(), "cuda:0");
  EXPECT_TRUE(c.is_fake());
  EXPECT_FALSE(c.is_same(x));
  EXPECT_TRUE(c.to(kCuda).is_same(c));
  EXPECT_TRUE(c.to(fe::Device::parse("cuda:0")).is_same(c));
  Tensor back = c.to(fe::kCPU, DType::Float64);
  EXPECT_EQ(back.device(), fe::kCPU);
  EXPECT_EQ(back.dtype(), DType::Float64);
  // torch.empty(3,4).t().to(torch.float64).stride() == (1, 4)
  EXPECT_EQ(ints(fe::randn({3, 4}).t().to(DType::Float64).strides()), (V{1, 4}));
  Tensor cp = fe::_to_copy(x);
  EXPECT_FALSE(cp.is_same(x));
  EXPECT_EQ(cp.meta(), x.meta());
}

// ---------------------------------------------------------------- real tensors
Tensor real_f32(std::initializer_list<int64_t> shape, const std::vector<float>& v) {
  fe::Sizes s(shape.begin(), shape.end());
  Tensor t = fe::empty(s);
  EXPECT_EQ(static_cast<size_t>(t.numel()), v.size());
  std::memcpy(t.data_ptr(), v.data(), v.size() * sizeof(float));
  return t;
}
/// The storage of t in memory order (row-major when t is contiguous).
std::vector<float> values_f32(const Tensor& t, bool contiguous = true) {
  EXPECT_EQ(t.dtype(), DType::Float32);
  EXPECT_EQ(t.meta().is_contiguous(), contiguous);
  const float* p = t.data<float>();
  return std::vector<float>(p, p + t.numel());
}
void expect_near(const std::vector<float>& got, const std::vector<double>& want, double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

// x = torch.arange(12.).reshape(3,4)-5; w = torch.arange(20.).reshape(5,4)%7-3; b = torch.arange(5.)-2
struct RealInputs {
  Tensor x, w, b;
  std::vector<float> xv, wv, bv;
  RealInputs() {
    for (int i = 0; i < 12; ++i) xv.push_back(float(i - 5));
    for (int i = 0; i < 20; ++i) wv.push_back(float(i % 7 - 3));
    for (int i = 0; i < 5; ++i) bv.push_back(float(i - 2));
    x = real_f32({3, 4}, xv), w = real_f32({5, 4}, wv), b = real_f32({5}, bv);
  }
  // Naive x @ w.T (+ b)
  std::vector<double> naive(bool bias, double beta = 1, double alpha = 1) const {
    std::vector<double> out;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j) {
        double acc = 0;
        for (int k = 0; k < 4; ++k) acc += double(xv[i * 4 + k]) * wv[j * 4 + k];
        out.push_back(alpha * acc + (bias ? beta * bv[j] : 0));
      }
    return out;
  }
};

TEST(OpsReal, LinearMmAddmm) {
  ASSERT_FALSE(fe::FakeTensorMode::active());
  RealInputs in;
  Tensor y = fe::linear(in.x, in.w, in.b);
  EXPECT_FALSE(y.is_fake());
  EXPECT_TRUE(y.has_storage());
  // F.linear(x, w, b).tolist()
  const std::vector<double> torch_lin = {24, -17, 12, -8, 0, 0, -5, 4, -8, 8, -24, 7, -4, -8, 16};
  expect_near(values_f32(y), torch_lin);
  expect_near(values_f32(y), in.naive(true));
  // F.linear(x, w) == torch.mm(x, w.t())
  const std::vector<double> torch_mm = {26, -16, 12, -9, -2, 2, -4, 4, -9, 6, -22, 8, -4, -9, 14};
  expect_near(values_f32(fe::linear(in.x, in.w)), torch_mm);
  expect_near(values_f32(fe::mm(in.x, in.w.t())), torch_mm);
  expect_near(values_f32(fe::mm(in.x, in.w.t())), in.naive(false));
  // torch.addmm(b, x, w.t(), beta=2, alpha=3)
  const std::vector<double> torch_addmm = {74, -50, 36, -25, -2, 2, -14, 12, -25, 22, -70, 22, -12, -25, 46};
  expect_near(values_f32(fe::addmm(in.b, in.x, in.w.t(), 2, 3)), torch_addmm);
  expect_near(values_f32(fe::addmm(in.b, in.x, in.w.t(), 2, 3)), in.naive(true, 2, 3));
  // 3-D input: same rows
  Tensor x3 = real_f32({1, 3, 4}, in.xv);
  Tensor y3 = fe::linear(x3, in.w, in.b);
  EXPECT_EQ(ints(y3.sizes()), (V{1, 3, 5}));
  expect_near(values_f32(y3), torch_lin);
}

TEST(OpsReal, ElementwiseKernels) {
  RealInputs in;
  Tensor b4 = real_f32({4}, {-2, -1, 0, 1});
  // torch.add(x, b[:4], alpha=2)
  expect_near(values_f32(fe::add(in.x, b4, 2)), {-9, -6, -3, 0, -5, -2, 1, 4, -1, 2, 5, 8});
  // torch.mul(x, 1.5)
  expect_near(values_f32(fe::mul(in.x, 1.5)), {-7.5, -6, -4.5, -3, -1.5, 0, 1.5, 3, 4.5, 6, 7.5, 9});
  // torch.relu(x)
  expect_near(values_f32(fe::relu(in.x)), {0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6});
  // Naive loops over a transposed (strided) input.
  Tensor xt = in.x.t();
  std::vector<float> got = values_f32(fe::mul(fe::add(xt, 1), xt), false);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) {
      const double v = in.xv[j * 4 + i];
      // result keeps xt's layout (strides (1, 4)); element (i, j) lives at j * 4 + i
      EXPECT_NEAR(got[j * 4 + i], (v + 1) * v, 1e-5);
    }
  // int32 + 2.5 -> float32 [2.5, 3.5, 4.5, 5.5]; int32 * int64 0-dim 3 -> int32 [0, 3, 6, 9]
  Tensor iv = fe::empty({4}, {.dtype = DType::Int32});
  for (int i = 0; i < 4; ++i) iv.data<int32_t>()[i] = i;
  expect_near(values_f32(fe::add(iv, 2.5)), {2.5, 3.5, 4.5, 5.5});
  Tensor p = fe::mul(iv, fe::full({}, 3));
  ASSERT_EQ(p.dtype(), DType::Int32);
  EXPECT_EQ((std::vector<int32_t>(p.data<int32_t>(), p.data<int32_t>() + 4)), (std::vector<int32_t>{0, 3, 6, 9}));
  // bool + bool is logical or: [True, True, False]
  Tensor ba = fe::empty({3}, {.dtype = DType::Bool}), bb = fe::empty({3}, {.dtype = DType::Bool});
  const bool av[] = {true, false, false}, bv[] = {true, true, false};
  for (int i = 0; i < 3; ++i) ba.data<bool>()[i] = av[i], bb.data<bool>()[i] = bv[i];
  Tensor bo = fe::add(ba, bb);
  ASSERT_EQ(bo.dtype(), DType::Bool);
  EXPECT_EQ((std::vector<bool>{bo.data<bool>()[0], bo.data<bool>()[1], bo.data<bool>()[2]}),
            (std::vector<bool>{true, true, false}));
}

TEST(OpsReal, Gelu) {
  // F.gelu(torch.arange(-6., 7.) / 2) and approximate='tanh', float32, printed by PyTorch.
  std::vector<float> g;
  for (int i = -6; i <= 6; ++i) g.push_back(i / 2.0f);
  Tensor x = real_f32({13}, g);
  const std::vector<double> exact = {-0.004050225019454956, -0.015524178743362427, -0.04550027847290039,
                                     -0.10021086037158966, -0.15865525603294373, -0.1542687714099884, 0.0,
                                     0.3457312285900116,  0.8413447141647339,  1.3997890949249268,
                                     1.9544997215270996,  2.48447585105896,    2.9959497451782227};
  const std::vector<double> tanh = {-0.0036374330520629883, -0.015084296464920044, -0.04540228843688965,
                                    -0.10042843222618103,  -0.15880799293518066, -0.1542859971523285, 0.0,
                                    0.3457140028476715,    0.8411920070648193,   1.3995715379714966,
                                    1.9545977115631104,    2.4849157333374023,   2.9963626861572266};
  expect_near(values_f32(fe::gelu(x)), exact);
  expect_near(values_f32(fe::gelu(x, "tanh")), tanh);
  // Naive formulas.
  std::vector<double> ne, nt;
  for (float v : g) {
    ne.push_back(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))));
    nt.push_back(0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))));
  }
  expect_near(values_f32(fe::gelu(x)), ne);
  expect_near(values_f32(fe::gelu(x, "tanh")), nt);
}

TEST(OpsReal, FactoriesFillValues) {
  expect_near(values_f32(fe::zeros({2, 2})), {0, 0, 0, 0});
  expect_near(values_f32(fe::ones({3})), {1, 1, 1});
  expect_near(values_f32(fe::full({2}, 2.5)), {2.5, 2.5});
  fe::manual_seed(7);
  std::vector<float> r1 = values_f32(fe::rand({100}));
  fe::manual_seed(7);
  EXPECT_EQ(values_f32(fe::rand({100})), r1);
  for (float v : r1) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
  }
  // Real _to_copy converts values.
  Tensor d = fe::full({2}, 1.5).to(DType::Float64);
  EXPECT_EQ(d.data<double>()[1], 1.5);
  Tensor i = fe::full({2}, 2.7).to(DType::Int64);  // truncation toward zero, as torch
  EXPECT_EQ(i.data<int64_t>()[0], 2);
}

TEST(OpsReal, CudaAndMixingErrors) {
  ASSERT_FALSE(fe::FakeTensorMode::active());
  EXPECT_THROW(fe::zeros({2}, {.device = kCuda}), fe::DeviceUnavailableError);
  EXPECT_THROW(fe::full({2}, 1.0).to(kCuda), fe::DeviceUnavailableError);
  Tensor meta = fe::zeros({2, 3}, {.device = fe::kMeta});  // meta tensors need no data
  EXPECT_FALSE(meta.has_storage());
  EXPECT_FALSE(meta.is_fake());
  EXPECT_EQ(ints(fe::linear(meta, fe::zeros({4, 3}, {.device = fe::kMeta})).sizes()), (V{2, 4}));
  // A real tensor fed to a fake computation (PyTorch: "Please convert all Tensors to FakeTensors first ...")
  Tensor real = fe::ones({2});
  fe::FakeTensorMode mode;
  EXPECT_THROW_WITH(fe::add(real, fe::ones({2})), fe::UserError, "Please convert all Tensors to FakeTensors first");
}

TEST(OpsRegistry, UnknownOp) {
  EXPECT_THROW(fe::registry().get("aten::nonexistent"), fe::UnknownOpError);
  EXPECT_EQ(fe::registry().find("aten::nonexistent"), nullptr);
  EXPECT_NE(fe::registry().find("aten::gelu"), nullptr);
}

}  // namespace
