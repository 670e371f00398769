// Conversion API: type_as / to(other) / sym_size and the aliasing rules of `to`.
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

using Recorder = fe_test::Recorder;

TEST(ApiConversion, TypeAsAndToOther) {
  fe::FakeTensorMode mode;
  Tensor x = fe::randn({2, 3});
  Tensor h = fe::randn({4}, {.dtype = DType::Float16, .device = fe::Device::parse("cuda:0")});
  Recorder rec;
  Tensor a, b;
  {
    fe::TraceScope scope(&rec);
    a = x.type_as(h);
    b = x.to(h);
  }
  EXPECT_EQ(rec.ops, (std::vector<std::string>{"aten::type_as.default", "aten::_assert_tensor_metadata.default",
                                                "aten::to.device"}));
  for (const Tensor& t : {a, b}) {
    EXPECT_EQ(t.dtype(), DType::Float16);
    EXPECT_EQ(t.device().str(), "cuda:0");
  }
  EXPECT_TRUE(x.type_as(fe::randn({1})).is_same(x));  // nothing to change: x itself
}

TEST(ApiConversion, ToAliasesWhenNothingChanges) {
  fe::FakeTensorMode mode;
  Tensor x = fe::randn({3, 4}).t();  // non-contiguous
  EXPECT_TRUE(x.to(DType::Float32).is_same(x));
  Tensor d = x.to(DType::Float64);
  EXPECT_FALSE(d.is_same(x));
  EXPECT_EQ(ints(d.strides()), (V{1, 4}));  // preserve_format keeps dense strides
  EXPECT_EQ(fe::sym_size(x, -1).expect_int(), 3);
  EXPECT_THROW(fe::sym_size(x, 2), fe::IndexError);
  EXPECT_THROW(fe::sym_size(fe::scalar_tensor(1.0), 0), fe::IndexError);
}

TEST(ApiConversion, RealTypeAs) {
  Tensor x = fe::arange(0.0, 2.0, 0.75);  // 0, 0.75, 1.5
  Tensor i = x.type_as(fe::zeros({1}, {.dtype = DType::Int64}));
  EXPECT_EQ(i.dtype(), DType::Int64);
  EXPECT_EQ((std::vector<int64_t>(i.data<int64_t>(), i.data<int64_t>() + 3)), (V{0, 0, 1}));
  EXPECT_THROW(fe::arange(3).item(), fe::ValueError);  // item() needs one element
}
}  // namespace

TEST(ApiConversion, InPlaceFillsAndCopies) {
  {
    fe::FakeTensorMode mode;
    Tensor x = fe::randn({2, 3});
    fe_test::Recorder rec;
    {
      fe::TraceScope scope(&rec);
      EXPECT_TRUE(x.zero_().is_same(x));
      EXPECT_TRUE(x.fill_(2.0).is_same(x));
      EXPECT_TRUE(x.fill_(fe::scalar_tensor(1.0)).is_same(x));
      EXPECT_TRUE(x.copy_(fe::randn({3})).is_same(x));
      EXPECT_EQ(ints(fe::lift_fresh_copy(x.transpose(0, 1)).strides()), (V{2, 1}));
    }
    EXPECT_EQ(rec.ops, (std::vector<std::string>{"aten::zero_.default", "aten::fill_.Scalar",
                                                 "aten::scalar_tensor.default", "aten::fill_.Tensor",
                                                 "aten::randn.default", "aten::copy_.default",
                                                 "aten::transpose.int", "aten::lift_fresh_copy.default"}));
    EXPECT_THROW(x.copy_(fe::randn({4})), fe::ShapeError);
    EXPECT_THROW(x.fill_(fe::randn({1})), fe::ShapeError);
  }
  Tensor y = fe::zeros({2, 2}, {.dtype = DType::Int64});
  Tensor src = fe::ones({2});
  src.data<float>()[1] = 2.75f;
  y.copy_(src);  // broadcast over rows, cast to int64 (truncation)
  EXPECT_EQ(std::vector<int64_t>(y.data<int64_t>(), y.data<int64_t>() + 4), (std::vector<int64_t>{1, 2, 1, 2}));
  y.fill_(7);
  EXPECT_EQ(y.data<int64_t>()[3], 7);
  y.zero_();
  EXPECT_EQ(y.data<int64_t>()[0], 0);
}
