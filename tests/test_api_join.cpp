// Join family API: cat/stack/repeat/repeat_interleave/triu/tril record their ATen ops, promote and
// lay out outputs as PyTorch does, and compute the right values on real tensors.
#include <gtest/gtest.h>

#include "test_util.h"

#include <string>
#include <vector>

#include "fakeexport/fakeexport.h"
#include "fakeexport/ops/unbacked.h"
#include "fakeexport/sym/shape_env.h"

namespace {
using fe::DType;
using fe::Tensor;
using fe_test::V;

using fe_test::ints;

using Recorder = fe_test::Recorder;

Tensor iota(std::vector<fe::SymInt> sizes) {
  Tensor t = fe::zeros(std::move(sizes));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}

std::vector<float> values(const Tensor& t) {  // contiguous outputs only
  return {t.data<float>(), t.data<float>() + t.numel()};
}

TEST(ApiJoin, RecordsOps) {
  fe::FakeTensorMode mode;
  Tensor x = fe::empty({2, 3});
  Recorder rec;
  {
    fe::TraceScope scope(&rec);
    fe::cat({x, x}, 1);
    fe::stack({x, x});
    x.repeat({2, 1});
    x.repeat_interleave(2, 1);
    fe::triu(x);
    x.tril(1);
  }
  EXPECT_EQ(rec.ops, (std::vector<std::string>{"aten::cat.default", "aten::stack.default", "aten::repeat.default",
                                               "aten::repeat_interleave.self_int", "aten::triu.default",
                                               "aten::tril.default"}));
}

TEST(ApiJoin, FakeShapesAndErrors) {
  fe::FakeTensorMode mode;
  Tensor a = fe::empty({2, 3}, {.dtype = DType::Int64});
  Tensor b = fe::empty({1, 3});
  Tensor c = fe::cat({a, b, fe::empty({0})});  // legacy empty 1-D skipped; int64 + float32 -> float32
  EXPECT_EQ(ints(c.sizes()), (V{3, 3}));
  EXPECT_EQ(c.dtype(), DType::Float32);
  EXPECT_EQ(ints(fe::stack({b, b}, 2).sizes()), (V{1, 3, 2}));
  EXPECT_EQ(ints(b.repeat({2, 2, 1}).sizes()), (V{2, 2, 3}));
  EXPECT_EQ(ints(fe::repeat_interleave(b, 2).sizes()), (V{6}));
  EXPECT_THROW(fe::cat({a, fe::empty({2, 3, 1})}), fe::ShapeError);
  EXPECT_THROW(fe::stack({}), fe::ValueError);
  EXPECT_THROW(fe::triu(fe::empty({3})), fe::ShapeError);
  Tensor reps = fe::empty({3}, {.dtype = DType::Int64});
  EXPECT_THROW(fe::repeat_interleave(reps), fe::DataDependentError);
  EXPECT_EQ(ints(fe::repeat_interleave(reps, std::optional<int64_t>(7)).sizes()), (V{7}));  // repeats-only form
  EXPECT_EQ(ints(fe::repeat_interleave(reps, 7).sizes()), (V{21}));  // like torch.repeat_interleave(t, 7)
}

TEST(ApiJoin, RealValues) {
  Tensor x = iota({2, 2});  // [[0, 1], [2, 3]]
  EXPECT_EQ(values(fe::cat({x, x}, 1)), (std::vector<float>{0, 1, 0, 1, 2, 3, 2, 3}));
  EXPECT_EQ(values(fe::stack({x, x}, 2)), (std::vector<float>{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(values(x.repeat({1, 2})), (std::vector<float>{0, 1, 0, 1, 2, 3, 2, 3}));
  EXPECT_EQ(values(x.repeat_interleave(2, 0)), (std::vector<float>{0, 1, 0, 1, 2, 3, 2, 3}));
  EXPECT_EQ(values(fe::triu(x)), (std::vector<float>{0, 1, 0, 3}));
  EXPECT_EQ(values(fe::tril(x, -1)), (std::vector<float>{0, 0, 2, 0}));
}

// A size read from the repeats' values: the data decides it on real tensors (ATen's checks
// included), a recorded unbacked symbol on fake ones (what check and decompose give a loaded
// node), and without either a trace cannot know it.
TEST(ApiJoin, RepeatsReadFromData) {
  Tensor x = iota({3, 2});
  Tensor reps = fe::zeros({3}, {.dtype = DType::Int64});
  const int64_t counts[] = {2, 0, 1};
  for (int i = 0; i < 3; ++i) reps.data<int64_t>()[i] = counts[i];
  EXPECT_EQ(values(fe::repeat_interleave(x, reps, 0)), (std::vector<float>{0, 1, 0, 1, 4, 5}));
  Tensor one = fe::zeros({1}, {.dtype = DType::Int64});
  one.data<int64_t>()[0] = 2;
  EXPECT_EQ(ints(fe::repeat_interleave(x, one).sizes()), (V{12}));  // flattened, the count broadcast
  const Tensor idx = fe::repeat_interleave(reps);
  ASSERT_EQ(ints(idx.sizes()), (V{3}));
  EXPECT_EQ((std::vector<int64_t>{idx.data<int64_t>(), idx.data<int64_t>() + 3}), (std::vector<int64_t>{0, 0, 2}));
  EXPECT_THROW(fe::repeat_interleave(reps, std::optional<int64_t>(4)), fe::ValueError);  // total is 3
  reps.data<int64_t>()[1] = -1;
  EXPECT_THROW(fe::repeat_interleave(x, reps, 0), fe::ValueError);

  fe::sym::ShapeEnv env;
  const fe::SymInt u0 = env.named_symbol("u0", 0, {0, fe::sym::kPosInf});
  fe::FakeTensorMode mode;
  Tensor fx = fe::empty({3, 2});
  Tensor freps = fe::empty({3}, {.dtype = DType::Int64});
  {
    fe::UnbackedSizesScope recorded({u0});
    Tensor out = fe::repeat_interleave(fx, freps, 0);
    EXPECT_TRUE(out.sizes()[0].same_as(u0)) << out.sizes()[0];
    EXPECT_EQ(out.sizes()[1], 2);
    EXPECT_THROW(fe::repeat_interleave(freps), fe::DataDependentError);  // one size recorded, used
  }
  EXPECT_THROW(fe::repeat_interleave(fx, freps, 1), fe::ShapeError);  // 3 counts for 2 columns
  EXPECT_THROW(fe::repeat_interleave(fx, freps, 0), fe::DataDependentError);
}

}  // namespace
