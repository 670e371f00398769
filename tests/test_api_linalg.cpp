// Public linalg API: each function records the ATen op torch.export records for the Python call,
// fake results carry PyTorch's metadata, and real results PyTorch's values.
#include <gtest/gtest.h>

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

using OpNames = fe_test::Recorder;

Tensor real_f32(std::initializer_list<int64_t> shape, const std::vector<float>& v) {
  fe::Sizes s(shape.begin(), shape.end());
  Tensor t = fe::empty(s);
  EXPECT_EQ(static_cast<size_t>(t.numel()), v.size());
  std::memcpy(t.data_ptr(), v.data(), v.size() * sizeof(float));
  return t;
}

/// Values in row-major (logical) order.
std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  const auto sizes = ints(t.sizes()), strides = ints(t.strides());
  std::vector<int64_t> idx(sizes.size(), 0);
  const float* p = t.data<float>();
  for (int64_t e = 0; e < t.numel(); ++e) {
    int64_t o = 0;
    for (size_t d = 0; d < idx.size(); ++d) o += idx[d] * strides[d];
    out.push_back(p[o]);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

TEST(ApiLinalg, RecordsTheOpsExportRecords) {
  fe::FakeTensorMode mode;
  OpNames sink;
  fe::TraceScope scope(&sink);
  Tensor a = fe::randn({4, 4}), b = fe::randn({4, 4});
  fe::matmul(a, b);
  a.matmul(b);
  fe::einsum("ij,jk->ik", {a, b});
  fe::bmm(fe::randn({2, 4, 3}), fe::randn({2, 3, 5}));
  fe::baddbmm(fe::randn({2, 4, 5}), fe::randn({2, 4, 3}), fe::randn({2, 3, 5}), 0.5, 2);
  fe::outer(fe::randn({3}), fe::randn({2}));
  fe::mv(a, fe::randn({4}));
  fe::dot(fe::randn({4}), fe::randn({4}));
  std::vector<std::string> want = {"aten::matmul.default", "aten::matmul.default", "aten::einsum.default",
                                   "aten::bmm.default",    "aten::baddbmm.default", "aten::outer.default",
                                   "aten::mv.default",     "aten::dot.default"};
  std::vector<std::string> got;
  for (const auto& op : sink.ops)
    if (op != "aten::randn.default") got.push_back(op);
  EXPECT_EQ(got, want);
  // einsum(equation, tensors, path=None); baddbmm's beta/alpha as given.
  const auto& es = sink.args[4];
  ASSERT_EQ(es.size(), 3u);
  EXPECT_EQ(std::get<std::string>(es[0]), "ij,jk->ik");
  EXPECT_EQ(std::get<std::vector<Tensor>>(es[1]).size(), 2u);
  EXPECT_TRUE(std::holds_alternative<fe::None>(es[2]));
}

TEST(ApiLinalg, FakeShapesAndStrides) {
  fe::FakeTensorMode mode;
  // Batched broadcasting, vector operands, and einsum's permuted output (PyTorch: strides (1, 3)).
  EXPECT_EQ(ints(fe::matmul(fe::randn({2, 1, 4, 3}), fe::randn({5, 3, 2})).sizes()), (V{2, 5, 4, 2}));
  EXPECT_EQ(ints(fe::matmul(fe::randn({3}), fe::randn({2, 3, 4})).sizes()), (V{2, 4}));
  EXPECT_EQ(fe::matmul(fe::randn({3}), fe::randn({3})).dim(), 0);
  Tensor t = fe::einsum("ij->ji", {fe::randn({2, 3})});
  EXPECT_EQ(ints(t.sizes()), (V{3, 2}));
  EXPECT_EQ(ints(t.strides()), (V{1, 3}));
  Tensor att = fe::einsum("bhqk,bkhd->bqhd", {fe::randn({2, 3, 4, 6}), fe::randn({2, 6, 3, 5})});
  EXPECT_EQ(ints(att.strides()), (V{60, 5, 20, 1}));
  EXPECT_THROW(fe::matmul(fe::randn({5, 2, 3}), fe::randn({4, 3, 4})), fe::ShapeError);
  EXPECT_EQ(fe_test::what_of([] { fe::einsum("ij,jk->ik", {fe::randn({2, 3}), fe::randn({4, 4})}); }),
            "aten::einsum: einsum(): subscript j has size 4 for operand 1 which does not broadcast with previously "
            "seen size 3");
  EXPECT_EQ(fe_test::what_of([] { fe::bmm(fe::randn({2, 4, 3}), fe::randn({2, 3, 5}, {.dtype = DType::Float64})); }),
            "aten::bmm: expected scalar type torch.float32 but found torch.float64");
}

TEST(ApiLinalg, RealValuesMatchPyTorch) {
  // a = torch.arange(6.).reshape(2,3) - 2; b = torch.arange(12.).reshape(3,4) % 5 - 1
  Tensor a = real_f32({2, 3}, {-2, -1, 0, 1, 2, 3});
  Tensor b = real_f32({3, 4}, {-1, 0, 1, 2, 3, -1, 0, 1, 2, 3, -1, 0});
  expect_near(values(fe::matmul(a, b)), {-1, 1, -2, -5, 11, 7, -2, 4});
  Tensor ki = fe::einsum("ij,jk->ki", {a, b});
  EXPECT_EQ(ints(ki.strides()), (V{2, 1}));
  expect_near(values(ki), {-1, 11, 1, 7, -2, -2, -5, 4});
  // torch.outer(a[0], b[0])
  expect_near(values(fe::outer(real_f32({3}, {-2, -1, 0}), real_f32({4}, {-1, 0, 1, 2}))),
              {2, 0, -2, -4, 1, 0, -1, -2, 0, 0, 0, 0});
  // bb = torch.arange(12.).reshape(2,2,3) / 4; torch.bmm(bb, bb.transpose(1,2)); torch.baddbmm(ones, ..., beta=.5, alpha=2)
  std::vector<float> bv;
  for (int i = 0; i < 12; ++i) bv.push_back(i / 4.0f);
  Tensor bb = real_f32({2, 2, 3}, bv);
  Tensor bbt = real_f32({2, 3, 2}, {0, 0.75, 0.25, 1, 0.5, 1.25, 1.5, 2.25, 1.75, 2.5, 2, 2.75});
  expect_near(values(fe::bmm(bb, bbt)), {0.3125, 0.875, 0.875, 3.125, 9.3125, 13.25, 13.25, 18.875});
  Tensor ones = real_f32({2, 2, 2}, {1, 1, 1, 1, 1, 1, 1, 1});
  expect_near(values(fe::baddbmm(ones, bb, bbt, 0.5, 2)), {1.125, 2.25, 2.25, 6.75, 19.125, 27, 27, 38.25});
}

}  // namespace
