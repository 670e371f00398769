// Public normalization API: F.layer_norm / rms_norm / group_norm / batch_norm record the ATen op
// torch.export records (with the arguments Python passes) and compute PyTorch's values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "fakeexport/fakeexport.h"
#include "test_util.h"

namespace {

using fe::DType;
using fe::Tensor;

using fe_test::ints;
using fe_test::V;

struct Calls : fe::TraceSink {
  std::vector<std::string> ops;
  std::vector<std::vector<fe::IValue>> args;
  void record(const fe::OpDef& op, std::span<const fe::IValue> a, std::span<const Tensor>,
              const fe::SrcLocArg&) override {
    if (op.qualified == "aten::randn.default") return;
    ops.push_back(op.qualified);
    args.emplace_back(a.begin(), a.end());
  }
};

Tensor real_f32(std::initializer_list<int64_t> shape, const std::vector<float>& v) {
  fe::Sizes s(shape.begin(), shape.end());
  Tensor t = fe::empty(s);
  EXPECT_EQ(static_cast<size_t>(t.numel()), v.size());
  std::memcpy(t.data_ptr(), v.data(), v.size() * sizeof(float));
  return t;
}

void expect_values(const Tensor& t, const std::vector<double>& want, double tol = 1e-5) {
  ASSERT_TRUE(t.meta().is_contiguous());
  ASSERT_EQ(static_cast<size_t>(t.numel()), want.size());
  const float* p = t.data<float>();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(p[i], want[i], tol) << "element " << i;
}

TEST(ApiNorm, RecordsTheOpsExportRecords) {
  fe::FakeTensorMode mode;
  Calls sink;
  fe::TraceScope scope(&sink);
  Tensor x = fe::randn({2, 3, 4}), w = fe::randn({4}), c = fe::randn({3});
  fe::layer_norm(x, {4}, w, w);
  fe::rms_norm(x, {4}, w);
  fe::group_norm(x, 3, c);
  fe::batch_norm(x, c, c, c);
  ASSERT_EQ(sink.ops, (std::vector<std::string>{"aten::layer_norm.default", "aten::rms_norm.default",
                                                "aten::group_norm.default", "aten::batch_norm.default"}));
  // export: layer_norm(x, [4], w, w, 1e-05, False); rms_norm(x, [4], w) with eps None;
  // batch_norm(x, weight, None, rm, rv, False, 0.1, 1e-05, False).
  EXPECT_EQ(std::get<double>(sink.args[0][4]), 1e-5);
  EXPECT_FALSE(std::get<bool>(sink.args[0][5]));
  EXPECT_TRUE(std::holds_alternative<fe::None>(sink.args[1][3]));
  EXPECT_TRUE(std::holds_alternative<fe::None>(sink.args[3][2]));
  EXPECT_EQ(std::get<double>(sink.args[3][6]), 0.1);
}

TEST(ApiNorm, FakeMetadataAndErrors) {
  fe::FakeTensorMode mode;
  // Output in the input dtype; mean/rstd keep the leading dims.
  Tensor nl = fe::randn({2, 3, 4, 5}, {.dtype = DType::Float16});
  EXPECT_EQ(fe::layer_norm(nl, {4, 5}, fe::randn({4, 5})).dtype(), DType::Float16);
  const auto outs = fe::dispatch(fe::op("aten::native_layer_norm"), {nl, std::vector<fe::SymInt>{4, 5}, fe::None{},
                                                                    fe::None{}, 1e-5},
                                 fe::SrcLocArg::current());
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_EQ(ints(outs[1].sizes()), (V{2, 3, 1, 1}));
  EXPECT_EQ(fe_test::what_of([] { fe::layer_norm(fe::randn({2, 3, 4}), {3}); }),
            "aten::layer_norm: Given normalized_shape=[3], expected input with shape [3], but got input of size "
            "torch.Size([2, 3, 4])");
  EXPECT_EQ(fe_test::what_of([] { fe::group_norm(fe::randn({2, 6, 4, 4}), 4); }),
            "aten::group_norm: Expected number of channels in input to be divisible by num_groups, but got input of "
            "shape [2, 6, 4, 4] and num_groups=4");
  EXPECT_EQ(fe_test::what_of([] { fe::batch_norm(fe::randn({2, 3, 4}), fe::randn({4}), fe::randn({4})); }),
            "aten::batch_norm: running_mean should contain 3 elements not 4");
}

TEST(ApiNorm, RealValuesMatchPyTorch) {
  // x = torch.arange(8.).reshape(2,4) ** 1.5 / 3
  std::vector<float> xv;
  for (int i = 0; i < 8; ++i) xv.push_back(static_cast<float>(std::pow(i % 4 + 4 * (i / 4), 1.5) / 3));
  Tensor x = real_f32({2, 4}, xv);
  expect_values(fe::layer_norm(x, {4}), {-1.140995979309082, -0.6352677941322327, 0.2894193232059479,
                                         1.4868446588516235, -1.299181342124939, -0.48891937732696533,
                                         0.4070122241973877, 1.3810880184173584});
  expect_values(fe::rms_norm(x, {4}, {}, 1e-6), {0.0, 0.33333319425582886, 0.9428085684776306, 1.7320499420166016,
                                                 0.5850179195404053, 0.8175873160362244, 1.0747464895248413,
                                                 1.3543354272842407});
  // g = torch.arange(16.).reshape(2,4,2) % 7
  std::vector<float> gv;
  for (int i = 0; i < 16; ++i) gv.push_back(static_cast<float>(i % 7));
  Tensor g = real_f32({2, 4, 2}, gv);
  expect_values(fe::group_norm(g, 2),
                {-1.3416354656219482, -0.4472118020057678, 0.4472118020057678, 1.3416354656219482,
                 0.10976415127515793, 0.5488207340240479, 0.987877368927002, -1.646462321281433,
                 -1.3416354656219482, -0.4472118020057678, 0.4472118020057678, 1.3416354656219482,
                 0.7844639420509338, 1.1766959428787231, -1.1766959428787231, -0.7844639420509338});
  // F.batch_norm(g, [1,2,3,4], [1,4,9,16], eps=0)
  expect_values(fe::batch_norm(g, real_f32({4}, {1, 2, 3, 4}), real_f32({4}, {1, 4, 9, 16}), {}, {}, false, 0.1, 0.0),
                {-1.0, 0.0, 0.0, 0.5, 0.3333333730697632, 0.6666667461395264, 0.5, -1.0, 0.0, 1.0, 0.5, 1.0,
                 0.6666667461395264, 1.0, -1.0, -0.75});
}

}  // namespace
