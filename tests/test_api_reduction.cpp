// Reduction API: each function records the ATen op torch.export records for the same Python call
// (checked in tools/oracle), fake metadata and errors, and reference-kernel values on real tensors.
#include <gtest/gtest.h>

#include "test_util.h"

#include <cmath>
#include <string>
#include <vector>

#include "fakeexport/fakeexport.h"

namespace {
using fe::DType;
using fe::Tensor;
using fe_test::V;

using fe_test::ints;

using Recorder = fe_test::Recorder;

/// A real float32 tensor of `sizes` holding `vals` row-major.
Tensor real(std::vector<float> vals, fe::Sizes sizes) {
  Tensor t = fe::empty(sizes);
  for (size_t i = 0; i < vals.size(); ++i) t.data<float>()[i] = vals[i];
  return t;
}

std::vector<double> values(const Tensor& t) {
  // Results of these ops are contiguous.
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i)
    v.push_back(t.dtype() == DType::Int64 ? static_cast<double>(t.data<int64_t>()[i])
                : t.dtype() == DType::Bool ? static_cast<double>(t.data<bool>()[i])
                                           : static_cast<double>(t.data<float>()[i]));
  return v;
}

TEST(ApiReduction, RecordsPythonsOps) {
  fe::FakeTensorMode mode;
  Tensor x = fe::randn({3, 4});
  Recorder rec;
  {
    fe::TraceScope scope(&rec);
    x.sum();                                   // torch.sum(x)
    fe::sum(x, {1}, true);                     // x.sum(1, keepdim=True)
    x.mean({-1}, true);                        // x.mean(-1, keepdim=True)
    x.amax({1});                               // x.amax(1)
    x.max(1);                                  // x.max(1)
    x.argmax();                                // x.argmax()
    x.var();                                   // x.var()
    x.var({1});                                // x.var(1)
    fe::var(x, {1}, fe::Correction{0});        // x.var(1, correction=0)
    x.std({1}, true, true);                    // x.std(1, keepdim=True)
    x.cumsum(1);                               // torch.cumsum(x, 1)
    x.any(1);                                  // x.any(1)
    x.any({0, 1});                             // x.any((0, 1))
    x.topk(2);                                 // x.topk(2)
    fe::sort(x, fe::Stable{true});             // x.sort(stable=True)
    x.sort(0, true);                           // torch.sort(x, dim=0, descending=True)
    x.prod(1);                                 // x.prod(1)
  }
  EXPECT_EQ(rec.ops, (std::vector<std::string>{
                         "aten::sum.default", "aten::sum.dim_IntList", "aten::mean.dim", "aten::amax.default",
                         "aten::max.dim", "aten::argmax.default", "aten::var.correction", "aten::var.dim",
                         "aten::var.correction", "aten::std.dim", "aten::cumsum.default", "aten::any.dim",
                         "aten::any.dims", "aten::topk.default", "aten::sort.stable", "aten::sort.default",
                         "aten::prod.dim_int"}));
  // x.var(1, correction=0): dim [1], correction 0, keepdim False.
  const auto& vc = rec.args[8];
  EXPECT_EQ(std::get<std::vector<fe::SymInt>>(vc[1]), (std::vector<fe::SymInt>{1}));
  EXPECT_EQ(std::get<fe::SymInt>(vc[2]).expect_int(), 0);
  EXPECT_FALSE(std::get<bool>(vc[3]));
  // x.std(1, keepdim=True): unbiased True, keepdim True.
  EXPECT_TRUE(std::get<bool>(rec.args[9][2]));
  EXPECT_TRUE(std::get<bool>(rec.args[9][3]));
  // sort(stable=True) -> stable True, dim -1, descending False.
  EXPECT_TRUE(std::get<bool>(rec.args[14][1]));
  EXPECT_EQ(std::get<fe::SymInt>(rec.args[14][2]).expect_int(), -1);
}

TEST(ApiReduction, FakeMetadata) {
  fe::FakeTensorMode mode;
  Tensor x = fe::randn({2, 3, 4});
  EXPECT_EQ(ints(fe::sum(x, {0, 2}, true).sizes()), (V{1, 3, 1}));
  EXPECT_EQ(ints(x.mean({}).sizes()), V{});  // [] means every dim
  EXPECT_EQ(ints(x.any({}).sizes()), (V{2, 3, 4}));  // any.dims: [] reduces nothing
  auto [v, i] = x.max(-1, true);
  EXPECT_EQ(ints(v.sizes()), (V{2, 3, 1}));
  EXPECT_EQ(i.dtype(), DType::Int64);
  auto [tv, ti] = x.topk(2, 1);
  EXPECT_EQ(ints(tv.sizes()), (V{2, 2, 4}));
  EXPECT_EQ(ints(ti.strides()), (V{8, 4, 1}));
  Tensor n = fe::ones({2, 3}, {.dtype = DType::Int32});
  EXPECT_EQ(n.sum().dtype(), DType::Int64);
  EXPECT_EQ(n.cumsum(0).dtype(), DType::Int64);
  EXPECT_EQ(n.sum(DType::Float16).dtype(), DType::Float16);
  EXPECT_EQ(fe::ones({2}, {.dtype = DType::UInt8}).any().dtype(), DType::UInt8);
  // Empty reductions: keepdim in front of a size-0 dim gets stride 0 for sum, not for mean.
  Tensor e = fe::randn({2, 0, 3});
  EXPECT_EQ(ints(fe::sum(e, {0}, true).strides()), (V{0, 3, 1}));
  EXPECT_EQ(ints(e.mean({0}, true).strides()), (V{3, 3, 1}));
}

TEST(ApiReduction, Errors) {
  fe::FakeTensorMode mode;
  Tensor x = fe::randn({2, 3});
  EXPECT_THROW(x.sum({2}), fe::IndexError);
  EXPECT_THROW(x.sum({0, -2}), fe::ValueError);
  try {
    fe::ones({2}, {.dtype = DType::Int64}).mean();
    ADD_FAILURE() << "mean of int64 did not throw";
  } catch (const fe::DTypeError& e) {
    EXPECT_EQ(std::string(e.what()),
              "aten::mean: mean(): could not infer output dtype. Input dtype must be either a floating point or "
              "complex dtype. Got: torch.int64");
  }
  EXPECT_THROW(fe::randn({2, 0}).amax({1}), fe::ShapeError);
  EXPECT_NO_THROW(fe::randn({2, 0}).sum({1}));
  EXPECT_THROW(x.topk(4), fe::ValueError);
  EXPECT_THROW(fe::randn({0}).argmax(), fe::IndexError);
}

TEST(ApiReduction, RealValues) {
  Tensor x = real({1, 5, -2, 4, 0, 3}, {2, 3});
  EXPECT_FALSE(x.is_fake());
  EXPECT_EQ(values(x.sum()), (std::vector<double>{11}));
  EXPECT_EQ(values(x.sum({1})), (std::vector<double>{4, 7}));
  EXPECT_EQ(values(x.amax({0})), (std::vector<double>{4, 5, 3}));
  auto [v, i] = x.max(1);
  EXPECT_EQ(values(v), (std::vector<double>{5, 4}));
  EXPECT_EQ(values(i), (std::vector<double>{1, 0}));
  EXPECT_EQ(values(x.argmin()), (std::vector<double>{2}));
  EXPECT_EQ(values(x.cumsum(1)), (std::vector<double>{1, 6, 4, 4, 4, 7}));
  auto [sv, si] = x.sort(1, true);
  EXPECT_EQ(values(sv), (std::vector<double>{5, 1, -2, 4, 3, 0}));
  EXPECT_EQ(values(si), (std::vector<double>{1, 0, 2, 0, 2, 1}));
  auto [kv, ki] = x.topk(1, 0, false);
  EXPECT_EQ(values(kv), (std::vector<double>{1, 0, -2}));
  EXPECT_EQ(values(ki), (std::vector<double>{0, 1, 0}));
  // var([1, 5, -2]) = 12.333..., unbiased.
  EXPECT_NEAR(values(x.var({1}))[0], 37.0 / 3.0, 1e-5);
  EXPECT_NEAR(values(fe::std(x, {1}, fe::Correction{0}))[0], std::sqrt(74.0 / 9.0), 1e-5);
  EXPECT_EQ(values(x.all(1)), (std::vector<double>{1, 0}));
  EXPECT_EQ(values(x.prod(0)), (std::vector<double>{4, 0, -6}));
  // Data-dependent failures of the real kernels: max of nothing.
  EXPECT_THROW(real({}, {0}).max(), fe::ShapeError);
}

TEST(ApiReduction, VarStdDefault) {
  Tensor x = real({1, 5, -2, 4, 0, 3}, {2, 3});
  Recorder rec;
  Tensor v, s, vu;
  {
    fe::TraceScope scope(&rec);
    v = fe::var(x, false);  // torch.var(x, False) -> var.default(x, False)
    s = fe::std(x, true);   // unbiased=True is the default: recorded without it
    vu = fe::var(x, {1});   // a braced list still means dims
  }
  EXPECT_EQ(rec.ops, (std::vector<std::string>{"aten::var.default", "aten::std.default", "aten::var.dim"}));
  EXPECT_EQ(fe::python_repr(rec.args[0][1]), "False");
  EXPECT_EQ(fe::python_repr(rec.args[1][1]), "True");
  EXPECT_EQ(v.dim(), 0);
  // mean 11/6; sum of squared deviations 209/6 over 6 (biased) and 5 (unbiased).
  EXPECT_NEAR(values(v)[0], 209.0 / 36.0, 1e-5);
  EXPECT_NEAR(values(s)[0], std::sqrt(209.0 / 30.0), 1e-5);
  EXPECT_EQ(vu.sizes().size(), 1u);
}

}  // namespace
