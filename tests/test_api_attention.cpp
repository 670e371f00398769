// Attention public API: the op F.scaled_dot_product_attention records, the output layout of the
// fused cpu path vs the math path in fake mode, and reference-kernel values on small real tensors.
// Expected layouts were printed by PyTorch 2.14.1 (tools/oracle).
#include <gtest/gtest.h>

#include "test_util.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "fakeexport/fakeexport.h"

namespace {
using fe::Tensor;
using fe_test::V;

using fe_test::ints;

using Recorder = fe_test::Recorder;

/// A fake float32 tensor with explicit strides.
Tensor fake(fe::Sizes sizes, fe::Sizes strides) {
  auto impl = std::make_shared<fe::TensorImpl>();
  impl->meta = fe::make_contiguous(sizes, fe::DType::Float32, fe::kCPU);
  impl->meta.strides = fe::DimVector(strides.begin(), strides.end());
  impl->fake = true;
  return Tensor(impl);
}

Tensor real(fe::Sizes sizes, const std::vector<float>& vals) {
  Tensor t = fe::empty(sizes);
  std::memcpy(t.data_ptr(), vals.data(), vals.size() * sizeof(float));
  return t;
}
std::vector<float> values(const Tensor& t) {
  std::vector<float> v(static_cast<size_t>(t.numel()));
  std::memcpy(v.data(), t.data_ptr(), v.size() * sizeof(float));
  return v;
}

TEST(ApiAttention, RecordsSdpaWithArguments) {
  fe::FakeTensorMode mode;
  Tensor q = fe::randn({2, 6, 4, 8}), kv = fe::randn({2, 2, 5, 8});
  Recorder rec;
  fe::TraceScope scope(&rec);
  Tensor y = fe::scaled_dot_product_attention(q, kv, kv, Tensor(), 0.0, true, 0.5, true);
  ASSERT_EQ(rec.ops, (std::vector<std::string>{"aten::scaled_dot_product_attention.default"}));
  EXPECT_TRUE(std::holds_alternative<fe::None>(rec.args[0][3]));
  EXPECT_EQ(std::get<bool>(rec.args[0][5]), true);
  EXPECT_EQ(std::get<double>(rec.args[0][6]), 0.5);
  EXPECT_EQ(std::get<bool>(rec.args[0][7]), true);
  EXPECT_EQ(ints(y.sizes()), (V{2, 6, 4, 8}));
}

TEST(ApiAttention, FusedPathKeepsQueryLayoutMathPathIsContiguous) {
  fe::FakeTensorMode mode;
  // (B, L, H, E).transpose(1, 2): the fused cpu kernel returns empty_like(query).
  Tensor t = fake({2, 3, 4, 8}, {96, 8, 24, 1});
  EXPECT_EQ(ints(fe::scaled_dot_product_attention(t, t, t).strides()), (V{96, 8, 24, 1}));
  // Different value head dim: math path, contiguous (B, H, L, Ev).
  Tensor y = fe::scaled_dot_product_attention(t, t, fe::randn({2, 3, 4, 6}));
  EXPECT_EQ(ints(y.sizes()), (V{2, 3, 4, 6}));
  EXPECT_EQ(ints(y.strides()), (V{72, 24, 6, 1}));
  // A mask with an extra leading dim broadcasts the output on the math path.
  Tensor m = fe::empty({3, 2, 3, 4, 5}, {.dtype = fe::DType::Bool});
  EXPECT_EQ(ints(fe::scaled_dot_product_attention(fe::randn({2, 3, 4, 8}), fe::randn({2, 3, 5, 8}),
                                                  fe::randn({2, 3, 5, 8}), m).sizes()),
            (V{3, 2, 3, 4, 8}));
}

TEST(ApiAttention, Errors) {
  fe::FakeTensorMode mode;
  try {
    fe::scaled_dot_product_attention(fe::randn({2, 6, 4, 8}), fe::randn({2, 4, 5, 8}), fe::randn({2, 4, 5, 8}),
                                     Tensor(), 0.0, false, std::nullopt, true);
    ADD_FAILURE() << "no error";
  } catch (const fe::UserError& e) {
    EXPECT_NE(std::string(e.what()).find("Number of heads in key and value must divide"), std::string::npos);
  }
  Tensor q = fe::randn({2, 3, 4, 8});
  EXPECT_THROW(fe::scaled_dot_product_attention(q, q, q, fe::empty({4, 4}, {.dtype = fe::DType::Bool}), 0.0, true),
               fe::ValueError);
  EXPECT_THROW(fe::scaled_dot_product_attention(q, q, q, fe::empty({4}, {.dtype = fe::DType::Bool})), fe::IndexError);
}

TEST(ApiAttention, ReferenceValues) {
  // q.k = 0 for every key: uniform weights, output = mean of the value rows.
  Tensor q = real({1, 1, 2}, {1, 0});
  Tensor k = real({1, 2, 2}, {0, 1, 0, 2});
  Tensor v = real({1, 2, 3}, {1, 2, 3, 5, 6, 7});
  EXPECT_EQ(values(fe::scaled_dot_product_attention(q, k, v)), (std::vector<float>{3, 4, 5}));
  // Causal: row 0 sees only key 0.
  Tensor q2 = real({1, 2, 2}, {1, 0, 1, 0});
  std::vector<float> c = values(fe::scaled_dot_product_attention(q2, k, v, Tensor(), 0.0, true));
  EXPECT_EQ((std::vector<float>(c.begin(), c.begin() + 3)), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ((std::vector<float>(c.begin() + 3, c.end())), (std::vector<float>{3, 4, 5}));
  // scale and an additive mask: weights softmax([0 + 0, 1 * 1 - 1]) = [0.5, 0.5] after masking.
  Tensor k3 = real({1, 2, 2}, {0, 0, 1, 0});
  Tensor y = fe::scaled_dot_product_attention(q, k3, v, real({1, 2}, {0, -1}), 0.0, false, 1.0);
  std::vector<float> yv = values(y);
  EXPECT_NEAR(yv[0], 3, 1e-6);
  EXPECT_NEAR(yv[2], 5, 1e-6);
}

}  // namespace
