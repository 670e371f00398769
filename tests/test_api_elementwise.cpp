// Elementwise API: each function / method / operator records the ATen op torch.export records for
// the same Python call (checked in PyTorch 2.14.1), and the reference kernels compute PyTorch's values.
#include <gtest/gtest.h>

#include "test_util.h"

#include <string>
#include <vector>

#include "fakeexport/fakeexport.h"
#include "fakeexport/ops/dispatch.h"

namespace {
using fe::DType;
using fe::Tensor;

using Recorder = fe_test::Recorder;

/// The single op `f` dispatches, with its argument list.
template <class F>
std::pair<std::string, std::vector<fe::IValue>> recorded(F&& f) {
  Recorder r;
  {
    fe::TraceScope scope(&r);
    f();
  }
  EXPECT_EQ(r.ops.size(), 1u);
  if (r.ops.empty()) return {};
  return {r.ops.back(), r.args.back()};
}

int64_t int_arg(const fe::IValue& v) { return std::get<fe::SymInt>(v).expect_int(); }

/// A real float32 tensor holding `vals` in row-major order.
Tensor real(fe::Sizes sizes, const std::vector<double>& vals, DType dt = DType::Float32) {
  Tensor t = fe::zeros(std::move(sizes), {.dtype = dt});
  EXPECT_FALSE(t.is_fake());
  for (size_t i = 0; i < vals.size(); ++i) {
    if (dt == DType::Float32) t.data<float>()[i] = static_cast<float>(vals[i]);
    else if (dt == DType::Int64) t.data<int64_t>()[i] = static_cast<int64_t>(vals[i]);
  }
  return t;
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) {
    switch (t.dtype()) {
      case DType::Float32: out.push_back(t.data<float>()[i]); break;
      case DType::Int64: out.push_back(static_cast<double>(t.data<int64_t>()[i])); break;
      case DType::Bool: out.push_back(t.data<bool>()[i]); break;
      default: ADD_FAILURE() << "unexpected dtype";
    }
  }
  return out;
}

TEST(ApiElementwise, OperatorsRecordPyTorchsOps) {
  fe::FakeTensorMode mode;
  Tensor x = fe::randn({2, 3}), y = fe::randn({2, 3});
  auto [op, a] = recorded([&] { (void)(x + 2); });
  EXPECT_EQ(op, "aten::add.Tensor");
  EXPECT_EQ(int_arg(a[1]), 2);
  std::tie(op, a) = recorded([&] { (void)(2 * x); });  // mul.Tensor(x, 2)
  EXPECT_EQ(op, "aten::mul.Tensor");
  EXPECT_TRUE(std::get<Tensor>(a[0]).is_same(x));
  EXPECT_EQ(int_arg(a[1]), 2);
  std::tie(op, a) = recorded([&] { (void)(2 - x); });
  EXPECT_EQ(op, "aten::rsub.Scalar");
  EXPECT_EQ(int_arg(a[1]), 2);
  EXPECT_EQ(recorded([&] { (void)(x - y); }).first, "aten::sub.Tensor");
  EXPECT_EQ(recorded([&] { (void)(x / 2.0); }).first, "aten::div.Tensor");
  EXPECT_EQ(recorded([&] { (void)(x % 2); }).first, "aten::remainder.Scalar");
  EXPECT_EQ(recorded([&] { (void)(x > 0); }).first, "aten::gt.Scalar");
  std::tie(op, a) = recorded([&] { (void)(0 < x); });  // reflected: gt.Scalar(x, 0)
  EXPECT_EQ(op, "aten::gt.Scalar");
  EXPECT_TRUE(std::get<Tensor>(a[0]).is_same(x));
  EXPECT_EQ(recorded([&] { (void)(x <= y); }).first, "aten::le.Tensor");
  EXPECT_EQ(recorded([&] { (void)(x == y); }).first, "aten::eq.Tensor");
  EXPECT_EQ(recorded([&] { (void)(x != 1); }).first, "aten::ne.Scalar");
  EXPECT_EQ((x > 0).dtype(), DType::Bool);
}

TEST(ApiElementwise, FunctionsAndMethodsRecordPyTorchsOps) {
  fe::FakeTensorMode mode;
  Tensor x = fe::randn({2, 3}), y = fe::randn({2, 3});
  Tensor c = x > 0;
  auto [op, a] = recorded([&] { fe::div(x, y, "floor"); });
  EXPECT_EQ(op, "aten::div.Tensor_mode");
  EXPECT_EQ(std::get<std::string>(a[2]), "floor");
  EXPECT_EQ(recorded([&] { fe::where(c, x, 0.0); }).first, "aten::where.ScalarOther");
  EXPECT_EQ(recorded([&] { fe::where(c, 0.0, x); }).first, "aten::where.ScalarSelf");
  EXPECT_EQ(recorded([&] { fe::where(c, 1.0, 0.0); }).first, "aten::where.Scalar");
  EXPECT_EQ(recorded([&] { x.where(c, y); }).first, "aten::where.self");
  std::tie(op, a) = recorded([&] { fe::clamp(x, 0); });  // x.clamp(min=0)
  EXPECT_EQ(op, "aten::clamp.default");
  EXPECT_TRUE(std::holds_alternative<fe::None>(a[2]));
  EXPECT_EQ(recorded([&] { fe::clamp(x, std::optional<Tensor>(y)); }).first, "aten::clamp.Tensor");
  EXPECT_EQ(recorded([&] { x.masked_fill(c, 0.5); }).first, "aten::masked_fill.Scalar");
  EXPECT_EQ(recorded([&] { fe::pow(2, x); }).first, "aten::pow.Scalar");
  EXPECT_EQ(recorded([&] { x.pow(2); }).first, "aten::pow.Tensor_Scalar");
  EXPECT_EQ(recorded([&] { fe::floor_divide(x, 2); }).first, "aten::floor_divide.default");
  std::tie(op, a) = recorded([&] { x.sub_(y, 2); });
  EXPECT_EQ(op, "aten::sub_.Tensor");
  EXPECT_EQ(int_arg(a[2]), 2);
  // In-place methods return the tensor itself.
  EXPECT_TRUE(x.add_(y).is_same(x));
  EXPECT_TRUE(x.clamp_(-1, 1).is_same(x));
  EXPECT_TRUE(x.masked_fill_(c, 0.0).is_same(x));
}

TEST(ApiElementwise, FakeMetadata) {
  fe::FakeTensorMode mode;
  Tensor i = fe::zeros({2, 3}, {.dtype = DType::Int64});
  EXPECT_EQ(fe::div(i, i).dtype(), DType::Float32);             // true division of integers
  EXPECT_EQ(fe::div(i, i, "trunc").dtype(), DType::Int64);
  EXPECT_EQ(fe::pow(fe::zeros({2}, {.dtype = DType::Bool}), 2).dtype(), DType::Int64);
  EXPECT_EQ(fe::clamp(i, 0.5).dtype(), DType::Float32);
  EXPECT_EQ(fe::where(i > 0, i, 1.5).dtype(), DType::Float32);
  EXPECT_EQ(i.masked_fill(i > 0, 1.5).dtype(), DType::Int64);
  // masked_fill returns a contiguous tensor whatever the input layout.
  Tensor t = fe::randn({3, 4}).t();
  EXPECT_EQ(t.masked_fill(t > 0, 0).strides()[0].expect_int(), 3);
  EXPECT_EQ(fe::add(t, 1).strides()[0].expect_int(), 1);
  EXPECT_THROW(i.add_(fe::randn({2, 3})), fe::DTypeError);      // int64 += float32
  EXPECT_THROW(fe::randn({3}).add_(fe::randn({2, 3})), fe::ShapeError);
  EXPECT_THROW(fe::clamp(i, std::optional<fe::Scalar>{}, std::optional<fe::Scalar>{}), fe::ValueError);
  EXPECT_THROW(fe::where(i, i, i), fe::DTypeError);            // non-bool condition
}

TEST(ApiElementwise, BroadcastErrorText) {
  fe::FakeTensorMode mode;
  try {
    fe::add(fe::randn({2, 3}), fe::randn({4}));
    FAIL() << "no error";
  } catch (const fe::ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "aten::add: Attempting to broadcast a dimension of length 4 at -1! Mismatching argument at index 1 "
                  "had torch.Size([4]); but expected shape should be broadcastable to [2, 3]"),
              std::string::npos)
        << e.what();
  }
}

TEST(ApiElementwise, RealValues) {
  // torch.tensor([[-2.5, -1., 0.], [1., 2., 3.5]]) and y = torch.tensor([2., -2., 1.])
  Tensor x = real({2, 3}, {-2.5, -1, 0, 1, 2, 3.5});
  Tensor y = real({3}, {2, -2, 1});
  EXPECT_EQ(values(x * 2 + 1), (std::vector<double>{-4, -1, 1, 3, 5, 8}));
  EXPECT_EQ(values(2 - x), (std::vector<double>{4.5, 3, 2, 1, 0, -1.5}));
  EXPECT_EQ(values(fe::div(x, y, "floor")), (std::vector<double>{-2, 0, 0, 0, -1, 3}));
  EXPECT_EQ(values(fe::remainder(x, y)), (std::vector<double>{1.5, -1, 0, 1, 0, 0.5}));
  EXPECT_EQ(values(fe::clamp(x, -1, 2)), (std::vector<double>{-1, -1, 0, 1, 2, 2}));
  EXPECT_EQ(values(x > 0), (std::vector<double>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(values(fe::where(x > 0, x, 0.0)), (std::vector<double>{0, 0, 0, 1, 2, 3.5}));
  EXPECT_EQ(values(fe::maximum(x, y)), (std::vector<double>{2, -1, 1, 2, 2, 3.5}));
  Tensor i = real({4}, {7, -7, 5, 3}, DType::Int64);
  EXPECT_EQ(values(fe::floor_divide(i, 2)), (std::vector<double>{3, -4, 2, 1}));
  EXPECT_EQ(values(fe::remainder(i, -3)), (std::vector<double>{-2, -1, -1, 0}));
  EXPECT_EQ(values(fe::pow(i, 2)), (std::vector<double>{49, 49, 25, 9}));
  Tensor z = real({2, 3}, {0, 0, 0, 0, 0, 0});
  z.masked_fill_(x < 0, 9.0);
  EXPECT_EQ(values(z), (std::vector<double>{9, 9, 0, 0, 0, 0}));
  EXPECT_THROW(fe::floor_divide(i, 0), fe::ValueError);  // ZeroDivisionError
}

}  // namespace

TEST(ApiElementwise, BitwiseOpsAndOperators) {
  fe::FakeTensorMode mode;
  Tensor m = fe::zeros({2, 3}, {.dtype = DType::Bool});
  Tensor i = fe::zeros({2, 3}, {.dtype = DType::Int32});
  EXPECT_EQ(recorded([&] { (void)~m; }).first, "aten::bitwise_not.default");
  EXPECT_EQ(recorded([&] { (void)(m & m); }).first, "aten::__and__.Tensor");
  EXPECT_EQ(recorded([&] { (void)(m | m); }).first, "aten::__or__.Tensor");
  auto [name, args] = recorded([&] { (void)(i & 3); });
  EXPECT_EQ(name, "aten::__and__.Scalar");
  EXPECT_EQ(int_arg(args.at(1)), 3);
  EXPECT_EQ(recorded([&] { (void)(i | 5); }).first, "aten::__or__.Scalar");
  EXPECT_EQ(recorded([&] { fe::bitwise_and(i, i); }).first, "aten::bitwise_and.Tensor");
  EXPECT_EQ(recorded([&] { m.bitwise_or(m); }).first, "aten::bitwise_or.Tensor");
  EXPECT_EQ(recorded([&] { fe::bitwise_or(i, 1); }).first, "aten::bitwise_or.Scalar");
  // bool & int8 promotes to int8; a bool mask stays bool.
  EXPECT_EQ((m & fe::zeros({3}, {.dtype = DType::Int8})).dtype(), DType::Int8);
  EXPECT_EQ((~m).dtype(), DType::Bool);
}

TEST(ApiElementwise, BitwiseRealValues) {
  Tensor i = real({4}, {6, -7, 5, 0}, DType::Int64);
  EXPECT_EQ(values(~i), (std::vector<double>{-7, 6, -6, -1}));
  EXPECT_EQ(values(i & 3), (std::vector<double>{2, 1, 1, 0}));
  EXPECT_EQ(values(i | 1), (std::vector<double>{7, -7, 5, 1}));
  Tensor m = i > 0;
  EXPECT_EQ(values(~m), (std::vector<double>{0, 1, 0, 1}));
  EXPECT_EQ(values(m | (i < 0)), (std::vector<double>{1, 1, 1, 0}));
  // Float inputs: "bitwise_and_cpu" not implemented for 'Float'.
  EXPECT_THROW(fe::bitwise_and(real({2}, {1, 2}), 1), fe::DTypeError);
}
