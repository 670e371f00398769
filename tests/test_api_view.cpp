// View family API: each function records the ATen op torch.export records for the Python call,
// views alias their input with PyTorch's strides/offsets, and real tensors read through views.
#include <gtest/gtest.h>

#include "test_util.h"

#include <limits>
#include <string>
#include <vector>

#include "fakeexport/fakeexport.h"

namespace {
using fe::Tensor;
using fe_test::V;

using fe_test::ints;

using Recorder = fe_test::Recorder;

int64_t int_arg(const fe::IValue& v) { return std::get<fe::SymInt>(v).expect_int(); }

/// A real float32 tensor 0, 1, 2, ... of the given shape.
Tensor iota(std::vector<fe::SymInt> sizes) {
  Tensor t = fe::zeros(std::move(sizes));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}

bool same_base(const Tensor& a, const Tensor& b) {
  auto base = [](const Tensor& t) { return t.impl()->view_base ? t.impl()->view_base.get() : t.impl(); };
  return base(a) == base(b);
}

TEST(ApiView, MethodsRecordTheExportOps) {
  fe::FakeTensorMode mode;
  Tensor x = fe::empty({2, 3, 4});
  Recorder rec;
  {
    fe::TraceScope scope(&rec);
    x.view({2, 12});
    x.reshape({6, -1});
    x.permute({2, 0, 1});
    x.transpose(1, 2);
    x.unsqueeze(0);
    x.flatten(1);
    x.unflatten(2, {2, 2});
    x.slice(1, 1);
    x.select(0, 1);
    x.narrow(1, 0, 2);
    x.split(2, -1);
    x.split({1, 3}, -1);
    x.chunk(2, -1);
    x.unbind(1);
    x.squeeze(1);
    EXPECT_EQ(x.contiguous().impl(), x.impl());  // already contiguous: x itself, nothing recorded
    x.transpose(0, 1).contiguous();
  }
  const std::vector<std::string> want = {
      "aten::view.default",       "aten::reshape.default",   "aten::permute.default",
      "aten::transpose.int",      "aten::unsqueeze.default", "aten::flatten.using_ints",
      "aten::unflatten.int",      "aten::slice.Tensor",      "aten::select.int",
      "aten::narrow.default",     "aten::split.Tensor",      "aten::split_with_sizes.default",
      "aten::chunk.default",      "aten::unbind.int",        "aten::squeeze.dim",
      "aten::transpose.int",      "aten::contiguous.default"};
  EXPECT_EQ(rec.ops, want);
  // x[:, 1:] is slice.Tensor(x, 1, 1, 9223372036854775807, 1).
  ASSERT_EQ(rec.args[7].size(), 5u);
  EXPECT_EQ(int_arg(rec.args[7][1]), 1);
  EXPECT_EQ(int_arg(rec.args[7][2]), 1);
  EXPECT_EQ(int_arg(rec.args[7][3]), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(int_arg(rec.args[10][2]), -1);
}

TEST(ApiView, StridesOffsetsAndAliasing) {
  fe::FakeTensorMode mode;
  Tensor x = fe::empty({2, 3, 4});
  Tensor t = x.transpose(1, 2);
  EXPECT_EQ(ints(t.sizes()), (V{2, 4, 3}));
  EXPECT_EQ(ints(t.strides()), (V{12, 1, 4}));
  EXPECT_TRUE(same_base(t, x));
  // A transposed tensor cannot be viewed flat: reshape copies, view raises the refs' message.
  Tensor r = t.reshape({-1});
  EXPECT_EQ(ints(r.strides()), (V{1}));
  EXPECT_FALSE(same_base(r, x));
  try {
    t.view({24});
    ADD_FAILURE() << "view of a transposed tensor must fail";
  } catch (const fe::ShapeError& e) {
    EXPECT_EQ(std::string(e.what()),
              "aten::view: Cannot view a tensor with shape torch.Size([2, 4, 3]) and strides (12, 1, 4) as a tensor "
              "with shape (24,)!");
  }
  // Splitting the leading dims stays a view.
  Tensor v = t.reshape({1, 2, 4, 3});
  EXPECT_TRUE(same_base(v, x));
  EXPECT_EQ(ints(v.strides()), (V{24, 12, 1, 4}));
  Tensor s = x.slice(2, 1, 3);
  EXPECT_EQ(ints(s.sizes()), (V{2, 3, 2}));
  EXPECT_EQ(s.meta().storage_offset.expect_int(), 1);
  auto parts = x.split(3, 2);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(ints(parts[1].sizes()), (V{2, 3, 1}));
  EXPECT_EQ(parts[1].meta().storage_offset.expect_int(), 3);
  EXPECT_TRUE(x.contiguous().is_same(x));
  EXPECT_FALSE(t.contiguous().is_same(t));
  EXPECT_EQ(ints(fe::expand(fe::empty({3, 1}), {2, 3, 4}).strides()), (V{0, 1, 0}));
  EXPECT_THROW(x.select(3, 0), fe::IndexError);
  EXPECT_THROW(x.view({5, -1}), fe::ShapeError);
}

TEST(ApiView, RealTensorsReadThroughViews) {
  Tensor x = iota({2, 3});
  Tensor t = x.t().contiguous();  // [[0, 3], [1, 4], [2, 5]]
  EXPECT_EQ(ints(t.strides()), (V{2, 1}));
  EXPECT_EQ(t.data<float>()[1], 3.0f);
  EXPECT_EQ(t.data<float>()[2], 1.0f);
  Tensor col = x.select(1, 2);  // [2, 5]
  EXPECT_EQ(col.data<float>()[0], 2.0f);
  EXPECT_EQ(col.data<float>()[3], 5.0f);  // stride 3 from the first element
  Tensor flat = x.transpose(0, 1).reshape({6});
  EXPECT_EQ(flat.data<float>()[1], 3.0f);
  EXPECT_EQ(flat.data<float>()[5], 5.0f);
}

TEST(ApiView, DetachAliasesAndDetachInPlaceReturnsSelf) {
  Tensor x = fe::empty({2, 3});
  for (int i = 0; i < 6; ++i) x.data<float>()[i] = static_cast<float>(i);
  Tensor fresh = fe::empty({2});
  fe_test::Recorder rec;
  {
    fe::TraceScope scope(&rec);
    Tensor d = x.transpose(0, 1).detach();
    EXPECT_EQ(d.data_ptr(), x.data_ptr());  // a view: same storage, transposed strides kept
    EXPECT_EQ(d.strides()[0], 1);
    EXPECT_EQ(d.strides()[1], 3);
    Tensor s = fresh.detach_();
    EXPECT_TRUE(s.is_same(fresh));
  }
  EXPECT_EQ(rec.ops, (std::vector<std::string>{"aten::transpose.int", "aten::detach.default", "aten::detach_.default"}));
  // PyTorch refuses to detach a view in place.
  EXPECT_THROW(x.transpose(0, 1).detach_(), fe::ValueError);
}

}  // namespace
