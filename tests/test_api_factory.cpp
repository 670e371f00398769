// Factory API: arange / linspace / empty_strided / scalar_tensor / new_* build the argument lists
// torch.export records, infer PyTorch's dtypes and fill real tensors with PyTorch's values.
#include <gtest/gtest.h>

#include "test_util.h"

#include <string>
#include <vector>

#include "fakeexport/fakeexport.h"

namespace {
using fe::DType;
using fe::Tensor;
using fe_test::V;

using fe_test::ints;
std::vector<double> values(const Tensor& t) {
  Tensor c = t.to(DType::Float64);
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}

using Recorder = fe_test::Recorder;

TEST(ApiFactory, ArangeOverloadsAndDtypes) {
  fe::FakeTensorMode mode;
  Recorder rec;
  {
    fe::TraceScope scope(&rec);
    EXPECT_EQ(fe::arange(5).dtype(), DType::Int64);                  // ints -> int64
    EXPECT_EQ(fe::arange(1, 2.5).dtype(), DType::Float32);           // a float -> default dtype
    EXPECT_EQ(ints(fe::arange(0, 10, 3).sizes()), (V{4}));           // 0, 3, 6, 9
    EXPECT_EQ(ints(fe::arange(0.0, 1.0, 0.3).sizes()), (V{4}));      // ceil(1 / 0.3)
    EXPECT_EQ(fe::arange(5, {.dtype = DType::Float64}).dtype(), DType::Float64);
    EXPECT_EQ(ints(fe::linspace(0, 1, 7).sizes()), (V{7}));
  }
  const std::vector<std::string> want{"aten::arange.default", "aten::arange.start", "aten::arange.start_step",
                                      "aten::arange.start_step", "aten::arange.default", "aten::linspace.default"};
  EXPECT_EQ(rec.ops, want);
  // torch.arange(5) passes device and pin_memory=False, as Python's arg parser does.
  EXPECT_EQ(std::get<fe::Device>(rec.args[0][3]), fe::kCPU);
  EXPECT_EQ(std::get<bool>(rec.args[0][4]), false);
  EXPECT_THROW(fe::arange(0, 10, 0), fe::UserError);  // step must be nonzero
  EXPECT_THROW(fe::arange(10, 0, 1), fe::UserError);  // bounds inconsistent with the step's sign
  EXPECT_THROW(fe::linspace(0, 1, -1), fe::UserError);
}

TEST(ApiFactory, NewAndStrided) {
  fe::FakeTensorMode mode;
  Tensor x = fe::randn({2, 3}, {.dtype = DType::Float16, .device = fe::Device::parse("cuda")});
  Tensor z = x.new_zeros({4, 5});
  EXPECT_EQ(z.dtype(), DType::Float16);  // self's dtype and device
  EXPECT_EQ(z.device().str(), "cuda:0");
  EXPECT_EQ(ints(z.strides()), (V{5, 1}));
  EXPECT_EQ(x.new_ones({3}, DType::Int32).dtype(), DType::Int32);
  EXPECT_EQ(fe::new_full(x, {2}, 1.5, {.dtype = DType::Float32}).dtype(), DType::Float32);
  Tensor s = fe::empty_strided({2, 3}, {1, 2});
  EXPECT_EQ(ints(s.strides()), (V{1, 2}));
  EXPECT_EQ(fe::scalar_tensor(3).dtype(), DType::Float32);  // any number -> default dtype
  EXPECT_EQ(fe::scalar_tensor(3).dim(), 0);
  EXPECT_THROW(x.new_empty({2, -1}), fe::ShapeError);
  EXPECT_THROW(fe::empty_strided({2, 3}, {1}), fe::ShapeError);
}

TEST(ApiFactory, RealValues) {
  EXPECT_EQ(values(fe::arange(5)), (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(values(fe::arange(1, 2.5, 0.5)), (std::vector<double>{1, 1.5, 2}));
  EXPECT_EQ(values(fe::arange(10, 0, -3)), (std::vector<double>{10, 7, 4, 1}));
  EXPECT_EQ(values(fe::linspace(-1, 1, 5)), (std::vector<double>{-1, -0.5, 0, 0.5, 1}));
  // linspace(-2, 10, 5, dtype=uint8): bounds wrap to the type first (254 ... 10), as eager does.
  EXPECT_EQ(values(fe::linspace(-2, 10, 5, {.dtype = DType::UInt8})), (std::vector<double>{254, 193, 132, 71, 10}));
  EXPECT_EQ(values(fe::scalar_tensor(2.5, {.dtype = DType::Int64})), (std::vector<double>{2}));
  Tensor x = fe::zeros({2}, {.dtype = DType::Int32});
  EXPECT_EQ(values(x.new_ones({3})), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(x.new_ones({3}).dtype(), DType::Int32);
}
}  // namespace
