// Indexing API: each function dispatches the ATen op torch.export records for the Python call,
// fake results carry PyTorch's metadata, real tensors get the reference kernels' values.
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
std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  Tensor c = t.to(DType::Float64);
  // Walk the (possibly strided) result in row-major order.
  const auto& m = c.meta();
  std::vector<int64_t> idx(m.dim(), 0);
  for (int64_t e = 0; e < c.numel(); ++e) {
    int64_t off = 0;
    for (int64_t d = 0; d < m.dim(); ++d) off += idx[d] * m.strides[d].expect_int();
    out.push_back(c.data<double>()[off]);
    for (int64_t d = m.dim(); d-- > 0;) {
      if (++idx[d] < m.sizes[d].expect_int()) break;
      idx[d] = 0;
    }
  }
  return out;
}

/// Records the qualified name and the argument count of every dispatched op.
struct Recorder : fe::TraceSink {
  std::vector<std::string> ops;
  std::vector<size_t> nargs;
  void record(const fe::OpDef& op, std::span<const fe::IValue> args, std::span<const Tensor>,
              const fe::SrcLocArg&) override {
    ops.push_back(op.qualified);
    nargs.push_back(args.size());
  }
};

TEST(ApiIndexing, RecordsTheOpsExportRecords) {
  fe::FakeTensorMode mode;
  Tensor x = fe::randn({4, 5});
  Tensor i = fe::zeros({2}, {.dtype = DType::Int64});
  Recorder rec;
  {
    fe::TraceScope scope(&rec);
    fe::index(x, {std::nullopt, i});
    fe::index_select(x, 1, i);
    fe::one_hot(i, 5);
    fe::embedding(i, x, -1);
    x.index_put_({i}, fe::scalar_tensor(1.0));
  }
  const std::vector<std::string> want{"aten::index.Tensor", "aten::index_select.default", "aten::one_hot.default",
                                      "aten::embedding.default", "aten::scalar_tensor.default",
                                      "aten::index_put_.default"};
  EXPECT_EQ(rec.ops, want);
  EXPECT_EQ(rec.nargs[3], 5u);  // embedding(weight, indices, padding_idx=3, ...): defaults completed
}

TEST(ApiIndexing, FakeShapes) {
  fe::FakeTensorMode mode;
  Tensor x = fe::randn({3, 4, 5});
  Tensor i = fe::zeros({2}, {.dtype = DType::Int64});
  // x[i, :, i]: non-adjacent advanced indices move the result dims to the front.
  EXPECT_EQ(ints(fe::index(x, {i, std::nullopt, i}).sizes()), (V{2, 4}));
  EXPECT_EQ(ints(x.index({std::nullopt, i}).sizes()), (V{3, 2, 5}));
  EXPECT_EQ(ints(fe::gather(x, 1, fe::zeros({3, 2, 5}, {.dtype = DType::Int64})).sizes()), (V{3, 2, 5}));
  EXPECT_EQ(ints(fe::embedding(fe::zeros({2, 3}, {.dtype = DType::Int64}), fe::randn({10, 8})).sizes()),
            (V{2, 3, 8}));
  Tensor y = x.index_put_({i}, fe::randn({4, 5}));
  EXPECT_TRUE(y.is_same(x));
  // Boolean masks and one_hot without num_classes depend on the data.
  EXPECT_THROW(fe::index(x, {fe::zeros({3}, {.dtype = DType::Bool})}), fe::DataDependentError);
  EXPECT_THROW(fe::one_hot(i), fe::DataDependentError);
  EXPECT_THROW(fe::gather(x, 3, i), fe::IndexError);
}

TEST(ApiIndexing, RealValues) {
  Tensor x = fe::arange(0, 12, {.dtype = DType::Float32});  // 0..11
  Tensor m = fe::index_select(x, 0, fe::arange(2, 8, 2));   // [2, 4, 6]
  EXPECT_EQ(values(m), (std::vector<double>{2, 4, 6}));
  Tensor g = fe::gather(x, 0, fe::arange(11, -1, -5));  // [11, 6, 1]
  EXPECT_EQ(values(g), (std::vector<double>{11, 6, 1}));
  Tensor s = fe::scatter(fe::zeros({4}), 0, fe::arange(1, 3), 7.5);  // [0, 7.5, 7.5, 0]
  EXPECT_EQ(values(s), (std::vector<double>{0, 7.5, 7.5, 0}));
  Tensor z = fe::zeros({4});
  z.index_put_({fe::full({3}, 2, {.dtype = DType::Int64})}, fe::ones({3}), true);  // accumulate 3x at [2]
  EXPECT_EQ(values(z), (std::vector<double>{0, 0, 3, 0}));
  Tensor oh = fe::one_hot(fe::arange(2, -1, -1));  // num_classes from the data: 3
  EXPECT_EQ(ints(oh.sizes()), (V{3, 3}));
  EXPECT_EQ(values(oh), (std::vector<double>{0, 0, 1, 0, 1, 0, 1, 0, 0}));
  Tensor mask = fe::arange(0, 4).index({fe::arange(3, 0, -2)});  // [3, 1]
  EXPECT_EQ(values(mask), (std::vector<double>{3, 1}));
}

// x[mask] on real tensors: the mask's count of true elements is the selected size (PyTorch:
// x = torch.arange(12.).view(3, 4); x[x > 6.5] is [7..11]; x[:, x[0] > 1.5] is [[2, 3], [6, 7],
// [10, 11]]; x[torch.tensor([True, False, True])] is rows 0 and 2).
TEST(ApiIndexing, BoolMasksOnRealValues) {
  Tensor x = fe::arange(0, 12, {.dtype = DType::Float32}).view({3, 4});
  Tensor all = fe::index(x, {x.gt(6.5)});
  EXPECT_EQ(ints(all.sizes()), (V{5}));
  EXPECT_EQ(values(all), (std::vector<double>{7, 8, 9, 10, 11}));
  Tensor cols = fe::index(x, {std::nullopt, x.select(0, 0).gt(1.5)});
  EXPECT_EQ(ints(cols.sizes()), (V{3, 2}));
  EXPECT_EQ(values(cols), (std::vector<double>{2, 3, 6, 7, 10, 11}));
  Tensor rows = fe::index(x, {fe::arange(0, 3).remainder(2).eq(0)});
  EXPECT_EQ(values(rows), (std::vector<double>{0, 1, 2, 3, 8, 9, 10, 11}));
  // meta_index_Tensor's check, with its text (FakeTensorMode's, which prints torch.Size): the mask's
  // dims must be the indexed dims.
  try {
    fe::index(x, {fe::ones({4}, {.dtype = DType::Bool})});
    ADD_FAILURE() << "a [4] mask over a [3, 4] tensor's first dim was accepted";
  } catch (const fe::IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("The shape of the mask torch.Size([4]) at index 0 does not match the shape "
                                         "of the indexed tensor torch.Size([3, 4]) at index 0"),
              std::string::npos)
        << e.what();
  }
}
}  // namespace

TEST(ApiIndexing, IndexAdd) {
  {
    fe::FakeTensorMode mode;
    Tensor x = fe::randn({5, 3});
    Tensor i = fe::zeros({2}, {.dtype = DType::Int64});
    Tensor s = fe::randn({2, 3});
    fe_test::Recorder rec;
    Tensor a, b;
    {
      fe::TraceScope scope(&rec);
      a = fe::index_add(x, 0, i, s, 2);
      b = x.index_add_(0, i, s);
    }
    EXPECT_EQ(rec.ops, (std::vector<std::string>{"aten::index_add.default", "aten::index_add_.default"}));
    EXPECT_EQ(ints(a.sizes()), (V{5, 3}));
    EXPECT_TRUE(b.is_same(x));
    EXPECT_THROW(fe::index_add(x, 0, i, fe::randn({3, 3})), fe::ShapeError);
    EXPECT_THROW(fe::index_add(x, 2, i, fe::randn({2, 3})), fe::IndexError);
  }
  // Real values: repeated indices accumulate, alpha scales the source.
  Tensor x = fe::zeros({3});
  Tensor i = fe::zeros({3}, {.dtype = DType::Int64});
  i.data<int64_t>()[2] = 2;
  Tensor src = fe::ones({3});
  EXPECT_EQ(values(fe::index_add(x, 0, i, src, 2)), (std::vector<double>{4, 0, 2}));
}
