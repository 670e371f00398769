// Unary math API: which ATen op each function records, dtype rules, and reference-kernel values.
// Expected behaviour checked against PyTorch 2.14.1 (tools/oracle; tests/fixtures/ops/unary.json).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "fakeexport/fakeexport.h"

namespace {
using fe::DType;
using fe::Tensor;

// Records the qualified name of every dispatched op.
struct OpNames : fe::TraceSink {
  std::vector<std::string> names;
  void record(const fe::OpDef& op, std::span<const fe::IValue>, std::span<const Tensor>,
              const fe::SrcLocArg&) override {
    names.push_back(op.qualified);
  }
};

Tensor real_f32(std::vector<float> v) {
  Tensor t = fe::empty({static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}
std::vector<float> values(const Tensor& t) { return {t.data<float>(), t.data<float>() + t.numel()}; }

TEST(ApiUnary, RecordsTheOpsPyTorchRecords) {
  fe::FakeTensorMode mode;
  Tensor x = fe::randn({2, 3});
  OpNames sink;
  fe::TraceScope scope(&sink);
  fe::exp(x);
  x.rsqrt();
  -x;
  fe::sigmoid(x);
  Tensor same = x.abs_();
  EXPECT_TRUE(same.is_same(x));  // in-place ops return self itself
  x.reciprocal();
  EXPECT_EQ(sink.names, (std::vector<std::string>{"aten::exp.default", "aten::rsqrt.default", "aten::neg.default",
                                                  "aten::sigmoid.default", "aten::abs_.default",
                                                  "aten::reciprocal.default"}));
}

TEST(ApiUnary, DtypeRules) {
  fe::FakeTensorMode mode;
  Tensor i = fe::zeros({2, 3}, {.dtype = DType::Int64});
  EXPECT_EQ(fe::exp(i).dtype(), DType::Float32);  // torch.exp(int) -> default float dtype
  EXPECT_EQ(fe::sqrt(fe::zeros({2}, {.dtype = DType::Bool})).dtype(), DType::Float32);
  EXPECT_EQ(fe::abs(i).dtype(), DType::Int64);
  EXPECT_EQ(fe::neg(fe::zeros({2}, {.dtype = DType::Int8})).dtype(), DType::Int8);
  EXPECT_EQ(fe::tanh(fe::zeros({2}, {.dtype = DType::BFloat16})).dtype(), DType::BFloat16);
  try {
    -fe::zeros({2}, {.dtype = DType::Bool});
    ADD_FAILURE() << "neg(bool) did not throw";
  } catch (const fe::DTypeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("aten::neg: Negation, the `-` operator, on a bool tensor", 0), 0u) << e.what();
  }
  try {
    i.exp_();
    ADD_FAILURE() << "exp_(int64) did not throw";
  } catch (const fe::DTypeError& e) {
    EXPECT_NE(std::string(e.what()).find("Attempting to cast from torch.float32 to out tensor with dtype torch.int64"),
              std::string::npos)
        << e.what();
  }
  // Layout follows TensorIterator: a transposed input gives a transposed output.
  Tensor t = fe::empty({3, 2}).t();
  Tensor y = t.sin();
  EXPECT_EQ(y.strides()[0].expect_int(), 1);
  EXPECT_EQ(y.strides()[1].expect_int(), 2);
}

TEST(ApiUnary, RealValues) {
  const std::vector<float> in = {-1.0f, 0.0f, 0.25f, 4.0f};
  Tensor x = real_f32(in);
  auto check = [&](const Tensor& got, double (*f)(double)) {
    std::vector<float> g = values(got);
    ASSERT_EQ(g.size(), in.size());
    for (size_t k = 0; k < in.size(); ++k) {
      const double want = f(in[k]);
      if (std::isnan(want)) EXPECT_TRUE(std::isnan(g[k]));
      else if (std::isinf(want)) EXPECT_EQ(g[k], want);
      else EXPECT_NEAR(g[k], want, 1e-6 * std::max(1.0, std::fabs(want))) << "element " << k;
    }
  };
  check(fe::exp(x), [](double v) { return std::exp(v); });
  check(fe::sqrt(x), [](double v) { return std::sqrt(v); });  // sqrt(-1) is nan
  check(fe::rsqrt(x), [](double v) { return 1.0 / std::sqrt(v); });
  check(fe::reciprocal(x), [](double v) { return 1.0 / v; });  // 1/0 is inf
  check(fe::sigmoid(x), [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
  check(fe::erf(x), [](double v) { return std::erf(v); });
  check(-x, [](double v) { return -v; });
  check(x.abs(), [](double v) { return std::fabs(v); });
  // In place: writes into x's own storage.
  Tensor r = x.cos_();
  EXPECT_TRUE(r.is_same(x));
  EXPECT_NEAR(x.data<float>()[3], std::cos(4.0), 1e-6);
  // int64 -> float32 values: exp([0, 1]) = [1, e]
  Tensor i = fe::empty({2}, {.dtype = DType::Int64});
  i.data<int64_t>()[0] = 0;
  i.data<int64_t>()[1] = 1;
  Tensor e = fe::exp(i);
  ASSERT_EQ(e.dtype(), DType::Float32);
  EXPECT_NEAR(e.data<float>()[1], std::exp(1.0), 1e-6);
}

}  // namespace
