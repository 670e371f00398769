// Conv-family public API: which ATen op each function records (with which arguments), fake
// metadata (channels-last propagation) and reference-kernel values on small real tensors.
// Expected values were checked against PyTorch 2.14.1 (tools/oracle).
#include <gtest/gtest.h>

#include "test_util.h"

#include <cstring>
#include <string>
#include <vector>

#include "fakeexport/fakeexport.h"

namespace {
using fe::Tensor;
using fe_test::V;

using fe_test::ints;

using Recorder = fe_test::Recorder;

/// A real float32 tensor holding `vals` (row-major contiguous).
Tensor real(fe::Sizes sizes, const std::vector<float>& vals) {
  Tensor t = fe::empty(sizes);
  EXPECT_EQ(static_cast<size_t>(t.numel()), vals.size());
  std::memcpy(t.data_ptr(), vals.data(), vals.size() * sizeof(float));
  return t;
}
std::vector<float> values(const Tensor& t) {  // contiguous outputs only
  std::vector<float> v(static_cast<size_t>(t.numel()));
  std::memcpy(v.data(), t.data_ptr(), v.size() * sizeof(float));
  return v;
}

TEST(ApiConv, RecordsTheOpsPythonRecords) {
  fe::FakeTensorMode mode;
  Tensor x = fe::randn({2, 3, 8, 8}), w = fe::randn({4, 3, 3, 3});
  Tensor x1 = fe::randn({2, 3, 10}), w1 = fe::randn({4, 3, 3});
  Recorder rec;  // installed after the factories, which are recorded too
  fe::TraceScope scope(&rec);
  fe::conv2d(x, w, Tensor(), {2, 2}, {1, 1});
  fe::conv2d(x, w, Tensor(), {1, 1}, "same");
  fe::conv1d(x1, w1);
  fe::conv1d(x1, w1, Tensor(), {1}, "valid");
  fe::max_pool2d(x, {2, 2});
  fe::max_pool2d_with_indices(x, {2, 2});
  fe::avg_pool2d(x, {2, 2}, {}, {0, 0}, false, true, 3);
  fe::adaptive_avg_pool2d(x, {1, 1});
  ASSERT_EQ(rec.ops, (std::vector<std::string>{"aten::conv2d.default", "aten::conv2d.padding", "aten::conv1d.default",
                                               "aten::conv1d.padding", "aten::max_pool2d.default",
                                               "aten::max_pool2d_with_indices.default", "aten::avg_pool2d.default",
                                               "aten::adaptive_avg_pool2d.default"}));
  EXPECT_EQ(std::get<std::vector<fe::SymInt>>(rec.args[0][3]), (std::vector<fe::SymInt>{2, 2}));
  EXPECT_EQ(std::get<std::string>(rec.args[1][4]), "same");
  EXPECT_EQ(std::get<fe::SymInt>(rec.args[6][6]).expect_int(), 3);
}

TEST(ApiConv, FakeShapesAndChannelsLast) {
  fe::FakeTensorMode mode;
  Tensor y = fe::conv2d(fe::randn({2, 3, 8, 8}), fe::randn({4, 3, 3, 3}), fe::randn({4}), {2, 2}, {1, 1});
  EXPECT_EQ(ints(y.sizes()), (V{2, 4, 4, 4}));
  EXPECT_EQ(ints(y.strides()), (V{64, 16, 4, 1}));
  // An NHWC weight makes the cpu backend produce an NHWC output.
  auto impl = std::make_shared<fe::TensorImpl>();
  impl->meta = fe::make_contiguous(fe::Sizes{4, 3, 3, 3}, fe::DType::Float32, fe::kCPU);
  impl->meta.strides = {27, 1, 9, 3};
  impl->fake = true;
  Tensor y2 = fe::conv2d(fe::randn({2, 3, 8, 8}), Tensor(impl), Tensor(), {1, 1}, "same");
  EXPECT_EQ(ints(y2.sizes()), (V{2, 4, 8, 8}));
  EXPECT_EQ(ints(y2.strides()), (V{256, 1, 32, 4}));
  auto [v, i] = fe::max_pool2d_with_indices(fe::randn({3, 7, 7}), {3, 3}, {2, 2}, {1, 1}, {1, 1}, true);
  EXPECT_EQ(ints(v.sizes()), (V{3, 4, 4}));
  EXPECT_EQ(i.dtype(), fe::DType::Int64);
  EXPECT_EQ(ints(fe::avg_pool2d(fe::randn({1, 2, 9, 9}), {3, 3}, {1, 1}, {1, 1}).sizes()), (V{1, 2, 9, 9}));
  EXPECT_EQ(ints(fe::adaptive_avg_pool2d(fe::randn({2, 3, 7, 5}), {3, 4}).sizes()), (V{2, 3, 3, 4}));
}

TEST(ApiConv, Errors) {
  fe::FakeTensorMode mode;
  try {
    fe::conv2d(fe::randn({2, 5, 8, 8}), fe::randn({4, 3, 3, 3}));
    ADD_FAILURE() << "no error";
  } catch (const fe::ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("expected input[2, 5, 8, 8] to have 3 channels, but got 5 channels instead"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(fe::conv2d(fe::randn({2, 3, 8, 8}), fe::randn({4, 3, 3, 3}), Tensor(), {2, 2}, "same"), fe::ValueError);
  EXPECT_THROW(fe::max_pool2d(fe::randn({2, 3, 2, 2}), {3, 3}), fe::ShapeError);
  EXPECT_THROW(fe::max_pool2d(fe::randn({6, 6}), {2, 2}), fe::IndexError);
}

TEST(ApiConv, ReferenceValues) {
  // 3x3 input 1..9, 2x2 kernel of ones, bias 0.5: window sums + 0.5.
  Tensor x = real({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Tensor y = fe::conv2d(x, real({1, 1, 2, 2}, {1, 1, 1, 1}), real({1}, {0.5f}));
  EXPECT_EQ(values(y), (std::vector<float>{12.5f, 16.5f, 24.5f, 28.5f}));
  // padding="same" with an even kernel pads one extra row/column at the end.
  Tensor ys = fe::conv2d(x, real({1, 1, 2, 2}, {1, 1, 1, 1}), Tensor(), {1, 1}, "same");
  EXPECT_EQ(values(ys), (std::vector<float>{12, 16, 9, 24, 28, 15, 15, 17, 9}));
  EXPECT_EQ(values(fe::conv1d(real({1, 4}, {1, 2, 3, 4}), real({1, 1, 2}, {1, -1}))), (std::vector<float>{-1, -1, -1}));
  auto [mv, mi] = fe::max_pool2d_with_indices(x, {2, 2}, {1, 1});
  EXPECT_EQ(values(mv), (std::vector<float>{5, 6, 8, 9}));
  ASSERT_EQ(mi.dtype(), fe::DType::Int64);
  EXPECT_EQ((std::vector<int64_t>(mi.data<int64_t>(), mi.data<int64_t>() + 4)), (std::vector<int64_t>{4, 5, 7, 8}));
  EXPECT_EQ(values(fe::avg_pool2d(x, {2, 2}, {1, 1})), (std::vector<float>{3, 4, 6, 7}));
  EXPECT_EQ(values(fe::avg_pool2d(x, {3, 3}, {1, 1}, {1, 1}, false, false)),
            (std::vector<float>{3, 3.5f, 4, 4.5f, 5, 5.5f, 6, 6.5f, 7}));
  EXPECT_EQ(values(fe::adaptive_avg_pool2d(x, {1, 1})), (std::vector<float>{5}));
  EXPECT_EQ(values(fe::adaptive_avg_pool2d(x, {2, 2})), (std::vector<float>{3, 4, 6, 7}));
}

}  // namespace
