// Activation API (torch.nn.functional style): recorded ops and arguments, dropout's aliasing, values.
// Expected behaviour checked against PyTorch 2.14.1 (tools/oracle; tests/fixtures/ops/activation.json).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "fakeexport/fakeexport.h"

namespace {
using fe::DType;
using fe::Tensor;

// Records each dispatched op with the Python repr of its non-tensor arguments.
struct Calls : fe::TraceSink {
  std::vector<std::string> calls;
  void record(const fe::OpDef& op, std::span<const fe::IValue> args, std::span<const Tensor>,
              const fe::SrcLocArg&) override {
    std::string s = op.qualified + "(";
    for (size_t i = 1; i < args.size(); ++i) s += (i > 1 ? ", " : "") + fe::python_repr(args[i]);
    calls.push_back(s + ")");
  }
};

TEST(ApiActivation, RecordsTheOpsPyTorchRecords) {
  fe::FakeTensorMode mode;
  Tensor x = fe::randn({2, 3});
  Calls sink;
  fe::TraceScope scope(&sink);
  fe::relu(x);
  Tensor r = fe::relu(x, /*inplace=*/true);  // F.relu(x, inplace=True) -> aten.relu_
  EXPECT_TRUE(r.is_same(x));
  fe::gelu(x, "tanh");
  fe::silu(x);
  fe::softmax(x, -1);
  Tensor s64 = fe::softmax(x, 1, DType::Float64);
  EXPECT_EQ(s64.dtype(), DType::Float64);
  x.log_softmax(-1);
  Tensor d = fe::dropout(x, 0.5, /*training=*/false);
  EXPECT_TRUE(d.is_same(x));  // eval dropout returns the input itself
  Tensor dt = fe::dropout(x, 0.3);
  EXPECT_FALSE(dt.is_same(x));
  EXPECT_EQ(sink.calls, (std::vector<std::string>{
                            "aten::relu.default()", "aten::relu_.default()", "aten::gelu.default('tanh')",
                            "aten::silu.default()", "aten::softmax.int(-1, None)",
                            "aten::softmax.int(1, torch.float64)", "aten::log_softmax.int(-1, None)",
                            "aten::dropout.default(0.5, False)", "aten::dropout.default(0.3, True)"}));
}

TEST(ApiActivation, FakeMetadataAndErrors) {
  fe::FakeTensorMode mode;
  Tensor h = fe::randn({2, 3}, {.dtype = DType::Float16});
  auto [out, mask] = fe::native_dropout(h, 0.2, true);
  EXPECT_EQ(out.dtype(), DType::Float16);
  EXPECT_EQ(mask.dtype(), DType::Bool);
  // softmax output is contiguous whatever the input layout.
  Tensor t = fe::randn({3, 2}).t();
  Tensor s = t.softmax(0);
  EXPECT_EQ(s.strides()[0].expect_int(), 3);
  EXPECT_THROW(fe::log_softmax(fe::randn({2, 3}), 2), fe::IndexError);
  try {
    fe::dropout(fe::randn({2}), 1.5);
    ADD_FAILURE() << "dropout(p=1.5) did not throw";
  } catch (const fe::ValueError& e) {
    EXPECT_EQ(std::string(e.what()), "aten::dropout: dropout probability has to be between 0 and 1, but got 1.5");
  }
  EXPECT_THROW(fe::gelu(fe::randn({2}), "Tanh"), fe::ValueError);
}

TEST(ApiActivation, RealValues) {
  Tensor x = fe::empty({2, 3});
  const float v[] = {1, 2, 3, -1, 0, 1};
  for (int i = 0; i < 6; ++i) x.data<float>()[i] = v[i];
  Tensor s = fe::softmax(x, 1);
  Tensor ls = fe::log_softmax(x, 1);
  for (int r = 0; r < 2; ++r) {
    double sum = 0;
    for (int c = 0; c < 3; ++c) sum += std::exp(v[r * 3 + c]);
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(s.data<float>()[r * 3 + c], std::exp(v[r * 3 + c]) / sum, 1e-6);
      EXPECT_NEAR(ls.data<float>()[r * 3 + c], v[r * 3 + c] - std::log(sum), 1e-6);
    }
  }
  Tensor si = fe::silu(x);
  EXPECT_NEAR(si.data<float>()[0], 1.0 / (1.0 + std::exp(-1.0)), 1e-6);
  EXPECT_NEAR(fe::relu(x).data<float>()[3], 0.0, 0.0);
  // Training dropout: each element is dropped (0) or scaled by 1 / (1 - p).
  Tensor d = fe::dropout(x, 0.5, true);
  for (int i = 0; i < 6; ++i) {
    const float g = d.data<float>()[i];
    EXPECT_TRUE(g == 0.0f || std::fabs(g - 2 * v[i]) < 1e-6) << g;
  }
  Tensor zero = fe::dropout(x, 1.0, true);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(zero.data<float>()[i], 0.0f);
  EXPECT_TRUE(fe::dropout(x, 0.0, true).is_same(x));  // p == 0 returns the input itself
}

}  // namespace

namespace {
/// Row-major float values of a real contiguous float32 tensor.
std::vector<float> fvals(const Tensor& t) { return {t.data<float>(), t.data<float>() + t.numel()}; }
Tensor real_f32(fe::Sizes sizes, const std::vector<float>& v) {
  Tensor t = fe::zeros(std::move(sizes));
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}
TEST(ApiActivation, Relu6AndEluInPlace) {
  Tensor x = fe::empty({5});
  const float in[] = {-2.f, 0.5f, 3.f, 6.5f, 10.f};
  for (int i = 0; i < 5; ++i) x.data<float>()[i] = in[i];
  Calls sink;
  Tensor r, e;
  {
    fe::TraceScope scope(&sink);
    r = fe::relu6(x);
    e = fe::elu_(x, 0.5);
  }
  EXPECT_EQ(sink.calls, (std::vector<std::string>{"aten::relu6.default()", "aten::elu_.default(0.5, 1, 1)"}));
  const float want6[] = {0.f, 0.5f, 3.f, 6.f, 6.f};
  for (int i = 0; i < 5; ++i) EXPECT_FLOAT_EQ(r.data<float>()[i], want6[i]);
  EXPECT_TRUE(e.is_same(x));
  EXPECT_NEAR(x.data<float>()[0], 0.5 * std::expm1(-2.0), 1e-6);
  EXPECT_FLOAT_EQ(x.data<float>()[4], 10.f);
}

}  // namespace

TEST(ApiActivation, MoreActivationsRecordTheirOps) {
  fe::FakeTensorMode mode;
  Tensor x = fe::randn({2, 3});
  Calls sink;
  {
    fe::TraceScope scope(&sink);
    fe::leaky_relu(x, 0.2);
    fe::hardtanh(x);
    fe::elu(x);
    fe::softplus(x);
    fe::leaky_relu(x, 0.01, true);
    fe::hardtanh(x, 0.0, 6.0, true);
  }
  const std::vector<std::string> want{"aten::leaky_relu.default(0.2)", "aten::hardtanh.default(-1.0, 1.0)",
                                      "aten::elu.default(1.0, 1, 1)", "aten::softplus.default(1, 20)",
                                      "aten::leaky_relu_.default(0.01)", "aten::hardtanh_.default(0.0, 6.0)"};
  EXPECT_EQ(sink.calls, want);
  // uint8 refuses negative limits (after truncation); non-negative ones are fine.
  Tensor i = fe::zeros({2}, {.dtype = DType::UInt8});
  EXPECT_THROW(fe::hardtanh(i), fe::ValueError);
  EXPECT_EQ(fe::hardtanh(i, 0.0, 6.0).dtype(), DType::UInt8);
  EXPECT_THROW(fe::hardtanh(fe::zeros({2}, {.dtype = DType::Bool})), fe::DTypeError);
}

TEST(ApiActivation, MoreActivationValues) {
  Tensor x = real_f32({4}, {-2, -0.5, 0.5, 3});
  EXPECT_EQ(fvals(fe::leaky_relu(x, 0.5)), (std::vector<float>{-1, -0.25, 0.5, 3}));
  EXPECT_EQ(fvals(fe::hardtanh(x)), (std::vector<float>{-1, -0.5, 0.5, 1}));
  std::vector<float> e = fvals(fe::elu(x));
  EXPECT_NEAR(e[0], std::expm1(-2.0), 1e-6);
  EXPECT_EQ(e[3], 3.0f);
  std::vector<float> s = fvals(fe::softplus(x));
  EXPECT_NEAR(s[2], std::log1p(std::exp(0.5)), 1e-6);
  Tensor y = fe::hardtanh(x, 0.0, 1.0, true);
  EXPECT_TRUE(y.is_same(x));
  EXPECT_EQ(fvals(x), (std::vector<float>{0, 0, 0.5, 1}));
}
