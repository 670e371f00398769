// View family on symbolic sizes: outputs (sizes, strides, storage offset as expressions) and the
// guards / replacements PyTorch records. Every expectation comes from a sym_probe run:
// tools/oracle/sym/view_reshape.py (view/reshape/flatten/unflatten) and view_index.py (the rest).
#include <gtest/gtest.h>

#include <limits>

#include "fakeexport/core/error.h"
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "test_sym_util.h"

namespace {
using namespace fe;
using fe_test::replacements_str;
using fe_test::sym_str;
using fe_test::sym_tensor;

/// "sizes=[s0, 24] strides=[24, 1] offset=0", as sym_probe prints an output.
std::string desc(const Tensor& t) {
  return "sizes=" + sym_str(t.sizes()) + " strides=" + sym_str(t.strides()) +
         " offset=" + t.meta().storage_offset.str();
}

/// The env's guards, "; "-separated, as sym_probe prints them.
std::string guards_str(const sym::ShapeEnv& env, size_t from = 0) {
  std::string out;
  for (size_t i = from; i < env.guards().size(); ++i) out += (out.empty() ? "" : "; ") + env.guards()[i].str();
  if (getenv("SYMVIEW_DEBUG"))
    for (const auto& g : env.guards()) fprintf(stderr, "  guard %s at %s:%u\n", g.str().c_str(), g.where.file_name(), g.where.line());
  return out;
}

IValue ints(std::vector<SymInt> v) { return IValue(std::move(v)); }

struct SymView : ::testing::Test {
  sym::ShapeEnv env;
  SymInt s0, s1, s2;
  void sym(int64_t h0, int64_t h1 = 0, int64_t h2 = 0) {
    s0 = env.named_symbol("s0", h0);
    if (h1) s1 = env.named_symbol("s1", h1);
    if (h2) s2 = env.named_symbol("s2", h2);
  }
};

// ---- view / reshape / _unsafe_view / flatten / unflatten (view_reshape.py)

TEST_F(SymView, ViewMinusOneFlattensWithoutGuards) {
  sym(4, 6);
  EXPECT_EQ(desc(sym_tensor({s0, s1}).view({-1})), "sizes=[s0*s1] strides=[1] offset=0");
  EXPECT_EQ(desc(sym_tensor({s0, 8, 3}).view({s0, -1})), "sizes=[s0, 24] strides=[24, 1] offset=0");
  EXPECT_EQ(desc(sym_tensor({s0, s1, 48}).view({-1, 48})), "sizes=[s0*s1, 48] strides=[48, 1] offset=0");
  EXPECT_EQ(desc(sym_tensor({s0, s1, 48}).view({s0 * s1, 48})), "sizes=[s0*s1, 48] strides=[48, 1] offset=0");
  EXPECT_EQ(desc(sym_tensor({s0, s1}).view({1, s0, 1, s1})), "sizes=[1, s0, 1, s1] strides=[s0*s1, s1, s1, 1] offset=0");
  EXPECT_EQ(desc(sym_tensor({s0}).view({s0, 1})), "sizes=[s0, 1] strides=[1, 1] offset=0");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymView, ViewSplitsHeads) {  // GPT-2 attention: [B, T, 48] -> [B, T, 4, 12]
  sym(4, 6);
  const Tensor x = sym_tensor({s0, s1, 48});
  EXPECT_EQ(desc(x.view({s0, s1, 4, 12})), "sizes=[s0, s1, 4, 12] strides=[48*s1, 48, 12, 1] offset=0");
  EXPECT_EQ(desc(x.view({s0, s1, 4, -1})), "sizes=[s0, s1, 4, 12] strides=[48*s1, 48, 12, 1] offset=0");
  EXPECT_EQ(desc(x.view({x.size(0), x.size(1), 4, -1})), "sizes=[s0, s1, 4, 12] strides=[48*s1, 48, 12, 1] offset=0");
  EXPECT_EQ(guards_str(env), "");
}

TEST_F(SymView, ViewMergesThroughSymbolicDivisor) {
  sym(4);
  // -1 -> 3*s0; the refs algorithm asks Mod(s0, 3*s0) (= s0, no guard), then Mod(8*s0, 3*s0).
  EXPECT_EQ(desc(sym_tensor({s0, 8, 3}).view({-1, 8})), "sizes=[3*s0, 8] strides=[8, 1] offset=0");
  EXPECT_EQ(guards_str(env), "Ne(Mod(8*s0, 3*s0), 0)");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymView, ViewReorderingSymbolicDimsGuards) {
  sym(4, 6);
  EXPECT_EQ(desc(sym_tensor({s0, s1}).view({s1, s0})), "sizes=[s1, s0] strides=[s0, 1] offset=0");
  EXPECT_EQ(guards_str(env), "Ne(s1, s0); Ne(Mod(s0, s1), 0)");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymView, ViewWithOtherSymbolsNumelGuard) {
  sym(4, 4);
  // PyTorch: guard Eq(3*s0, 3*s1) and replacement s1 -> s0.
  const Tensor y = sym_tensor({s0, 3}).view({s1, 3});
  EXPECT_EQ(sym_str(y.strides()), "[3, 1]");
  ASSERT_GE(env.guards().size(), 1u);
  EXPECT_EQ(env.guards()[0].str(), "Eq(3*s0, 3*s1)");
}

TEST_F(SymView, ReshapeOfContiguousIsView) {
  sym(4, 6);
  EXPECT_EQ(desc(sym_tensor({s0, s1}).reshape({-1})), "sizes=[s0*s1] strides=[1] offset=0");
  EXPECT_EQ(desc(sym_tensor({s0, 6}).reshape({s0, 2, -1}).view({-1})), "sizes=[6*s0] strides=[1] offset=0");
  EXPECT_EQ(desc(dispatch1(op("aten::_unsafe_view"), {sym_tensor({s0, s1, 48}), ints({-1, 48})}, SrcLocArg::current())),
            "sizes=[s0*s1, 48] strides=[48, 1] offset=0");
  EXPECT_EQ(guards_str(env), "");
}

TEST_F(SymView, ReshapeOfTransposedCopiesOrViews) {
  sym(4, 6);
  // [B, H, T, D] -> transpose(1, 2) -> reshape(B, T, -1): computeStride finds no view, a contiguous copy.
  const Tensor q = sym_tensor({s0, 4, s1, 12}).transpose(1, 2);
  EXPECT_EQ(desc(q.reshape({s0, s1, -1})), "sizes=[s0, s1, 48] strides=[48*s1, 48, 1] offset=0");
  EXPECT_EQ(desc(q.contiguous().view({s0, s1, -1})), "sizes=[s0, s1, 48] strides=[48*s1, 48, 1] offset=0");
  const Tensor t = sym_tensor({s0, s1}).t();
  EXPECT_EQ(desc(t.reshape({-1})), "sizes=[s0*s1] strides=[1] offset=0");
  EXPECT_EQ(desc(t.reshape({s1, s0, 1})), "sizes=[s1, s0, 1] strides=[1, s1, s1] offset=0");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymView, ReshapeOfSliceComputeStrideGuards) {
  sym(4, 6);
  const Tensor x = sym_tensor({s0, s1}).slice(1, 1);
  EXPECT_EQ(desc(x), "sizes=[s0, s1 - 1] strides=[s1, 1] offset=1");
  const size_t before = env.guards().size();
  // computeStride: 1 < s1 - 1 guards; Ne(s0*(s1 - 1), s1 - 1) is known (no guard) -> copy.
  EXPECT_EQ(desc(x.reshape({-1})), "sizes=[s0*(s1 - 1)] strides=[1] offset=0");
  EXPECT_EQ(guards_str(env, before), "1 < s1 - 1");
  EXPECT_EQ(env.symbol("s1")->range.str(), "VR[3, int_oo]");
  // view cannot: the refs algorithm guards, then fails like PyTorch.
  EXPECT_THROW(x.view({-1}), ShapeError);
}

TEST_F(SymView, FlattenKeepsProducts) {
  sym(4, 6);
  EXPECT_EQ(desc(sym_tensor({s0, s1}).flatten()), "sizes=[s0*s1] strides=[1] offset=0");
  EXPECT_EQ(desc(sym_tensor({s0, s1, 5}).flatten(1)), "sizes=[s0, 5*s1] strides=[5*s1, 1] offset=0");
  EXPECT_EQ(desc(sym_tensor({s0, s1, 5}).flatten(0, 1)), "sizes=[s0*s1, 5] strides=[5, 1] offset=0");
  EXPECT_EQ(desc(sym_tensor({s0, s1, 5}).transpose(0, 1).flatten(0, 1)), "sizes=[s0*s1, 5] strides=[5, 1] offset=0");
  EXPECT_EQ(guards_str(env), "");
}

TEST_F(SymView, UnflattenStaticDim) {
  sym(4);
  EXPECT_EQ(desc(sym_tensor({s0, 48}).unflatten(1, {4, -1})), "sizes=[s0, 4, 12] strides=[48, 12, 1] offset=0");
  EXPECT_EQ(desc(sym_tensor({s0, 48}).unflatten(1, {-1, 12})), "sizes=[s0, 4, 12] strides=[48, 12, 1] offset=0");
  EXPECT_EQ(guards_str(env), "");
}

TEST_F(SymView, UnflattenSymbolicDimGuardsDivisibility) {
  sym(8);
  const Tensor y = sym_tensor({s0, 3}).unflatten(0, {-1, 4});
  EXPECT_EQ(desc(y), "sizes=[(s0//4), (s0//((s0//4))), 3] strides=[3*((s0//((s0//4)))), 3, 1] offset=0");
  // PyTorch's first guard is the disjunction Eq(s0, 4) | Eq(Mod(s0, 4), 0) (at::infer_size_dv's
  // TORCH_SYM_CHECK); the ShapeEnv records its holding part.
  ASSERT_EQ(env.guards().size(), 5u);
  EXPECT_EQ(env.guards()[0].str(), "Eq(Mod(s0, 4), 0)");
  EXPECT_EQ(guards_str(env, 1), "Eq(3*s0, 12*((s0//4))); Ne((s0//4), s0); Eq(Mod(s0, (s0//4)), 0); Eq((s0//((s0//4))), 4)");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymView, UnflattenBySymbol) {
  sym(12, 4);
  const Tensor y = sym_tensor({s0, 3}).unflatten(0, {s1, -1});
  EXPECT_EQ(desc(y), "sizes=[s1, (s0//s1), 3] strides=[3*((s0//s1)), 3, 1] offset=0");
  // PyTorch: Eq(s0, s1) | Eq(Mod(s0, s1), 0); Eq(3*s0, 3*s1*((s0//s1))); Ne(s1, s0); Eq(Mod(s0, s1), 0).
  // The ShapeEnv records the disjunction's holding part, which then answers the last check.
  EXPECT_EQ(guards_str(env), "Eq(Mod(s0, s1), 0); Eq(3*s0, 3*s1*((s0//s1))); Ne(s1, s0)");
  EXPECT_EQ(replacements_str(env), "");
}

// ---- permutations, squeeze/unsqueeze, expand, copies (view_index.py)

TEST_F(SymView, PermutationsAndUnsqueeze) {
  sym(4, 6);
  const Tensor x = sym_tensor({s0, s1, 4, 12});
  EXPECT_EQ(desc(x.transpose(1, 2)), "sizes=[s0, 4, s1, 12] strides=[48*s1, 12, 48, 1] offset=0");
  EXPECT_EQ(desc(x.permute({0, 2, 1, 3})), "sizes=[s0, 4, s1, 12] strides=[48*s1, 12, 48, 1] offset=0");
  EXPECT_EQ(desc(sym_tensor({s0, s1}).unsqueeze(1)), "sizes=[s0, 1, s1] strides=[s1, s1, 1] offset=0");
  EXPECT_EQ(desc(sym_tensor({s0, s1}).unsqueeze(-1)), "sizes=[s0, s1, 1] strides=[s1, 1, 1] offset=0");
  EXPECT_EQ(guards_str(env), "");
}

TEST_F(SymView, SqueezeKeepsDynamicDims) {
  sym(4, 6);
  EXPECT_EQ(desc(sym_tensor({s0, 1, s1}).squeeze()), "sizes=[s0, s1] strides=[s1, 1] offset=0");
  EXPECT_EQ(desc(sym_tensor({s0, 1}).squeeze(0)), "sizes=[s0, 1] strides=[1, 1] offset=0");
  EXPECT_EQ(desc(sym_tensor({s0, 1}).squeeze(1)), "sizes=[s0] strides=[1] offset=0");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(replacements_str(env), "");  // no specialization of s0 to 1 or to its hint
}

TEST_F(SymView, ExpandSymbolicTargets) {
  sym(4, 6);
  EXPECT_EQ(desc(sym_tensor({s0, 1, 5}).expand({s0, 3, 5})), "sizes=[s0, 3, 5] strides=[5, 0, 1] offset=0");
  EXPECT_EQ(desc(sym_tensor({1, s0}).expand({s1, -1})), "sizes=[s1, s0] strides=[0, 1] offset=0");
  EXPECT_EQ(desc(sym_tensor({s0, 1}).expand({s1, s0, 1})), "sizes=[s1, s0, 1] strides=[0, 1, 1] offset=0");
  EXPECT_EQ(guards_str(env), "");
}

TEST_F(SymView, ExpandEqualSymbolsReplaces) {
  sym(4, 4);
  EXPECT_EQ(desc(sym_tensor({s0, 3}).expand({s1, 3})), "sizes=[s0, 3] strides=[3, 1] offset=0");
  // PyTorch first guards Eq(s0, 1) | Eq(s1, s0), then Eq(s0, s1).
  EXPECT_EQ(env.guards().back().str(), "Eq(s0, s1)");
  EXPECT_EQ(replacements_str(env), "s1 -> s0");
}

TEST_F(SymView, ExpandAsAndMismatch) {
  sym(4, 6, 4);
  EXPECT_EQ(desc(sym_tensor({1, s0}).expand_as(sym_tensor({s1, s2}))), "sizes=[s1, s0] strides=[0, 1] offset=0");
  EXPECT_EQ(replacements_str(env), "s2 -> s0");
  EXPECT_THROW(sym_tensor({s0, 3}).expand({s1, 3}), ShapeError);  // s0 (4) vs s1 (6)
}

TEST_F(SymView, CopiesAndAliases) {
  sym(4, 6);
  const Tensor x = sym_tensor({s0, s1});
  EXPECT_EQ(desc(x.contiguous()), "sizes=[s0, s1] strides=[s1, 1] offset=0");
  EXPECT_EQ(desc(x.t().contiguous()), "sizes=[s1, s0] strides=[s0, 1] offset=0");
  EXPECT_EQ(desc(x.t().clone()), "sizes=[s1, s0] strides=[1, s1] offset=0");
  EXPECT_EQ(desc(dispatch1(op("aten::alias"), {x}, SrcLocArg::current())), "sizes=[s0, s1] strides=[s1, 1] offset=0");
  EXPECT_EQ(desc(x.detach()), "sizes=[s0, s1] strides=[s1, 1] offset=0");
  EXPECT_EQ(guards_str(env), "");
}

// ---- slice / select / narrow / split / chunk / unbind (view_index.py)

Tensor sym_slice(const Tensor& x, int64_t dim, std::optional<SymInt> start, std::optional<SymInt> end, SymInt step = 1) {
  auto opt = [](std::optional<SymInt> v) { return v ? IValue(*v) : IValue(None{}); };
  return dispatch1(op("aten::slice.Tensor"), {x, SymInt(dim), opt(start), opt(end), step}, SrcLocArg::current());
}

TEST_F(SymView, SliceStaticBounds) {
  sym(4);
  const Tensor x = sym_tensor({s0, 3});
  EXPECT_EQ(desc(sym_slice(x, 0, 1, {})), "sizes=[s0 - 1, 3] strides=[3, 1] offset=3");
  EXPECT_EQ(desc(sym_slice(x, 0, -1, {})), "sizes=[1, 3] strides=[3, 1] offset=3*s0 - 3");
  EXPECT_EQ(desc(sym_slice(x, 0, {}, -1)), "sizes=[s0 - 1, 3] strides=[3, 1] offset=0");
  EXPECT_EQ(guards_str(env), "");
}

TEST_F(SymView, SliceEndOfSymbolicDim) {
  sym(8);
  const Tensor x = sym_tensor({3, s0});
  EXPECT_EQ(desc(sym_slice(x, 1, 0, std::numeric_limits<int64_t>::max())), "sizes=[3, s0] strides=[s0, 1] offset=0");
  EXPECT_EQ(desc(sym_slice(x, 1, {}, {}, 2)), "sizes=[3, ((s0 + 1)//2)] strides=[s0, 2] offset=0");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(desc(sym_slice(x, 1, {}, 3)), "sizes=[3, 3] strides=[s0, 1] offset=0");
  EXPECT_EQ(guards_str(env), "s0 >= 3");
}

TEST_F(SymView, SliceEndClampsWithGuard) {
  sym(8);
  EXPECT_EQ(desc(sym_slice(sym_tensor({3, s0}), 1, {}, 100)), "sizes=[3, s0] strides=[s0, 1] offset=0");
  EXPECT_EQ(guards_str(env), "s0 < 100");
  EXPECT_EQ(env.symbol("s0")->range.str(), "VR[2, 99]");
}

TEST_F(SymView, SliceStartEnd) {
  sym(8);
  EXPECT_EQ(desc(sym_slice(sym_tensor({3, s0}), 1, 2, 5)), "sizes=[3, 3] strides=[s0, 1] offset=2");
  EXPECT_EQ(guards_str(env), "s0 >= 5");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymView, SliceBySymbols) {
  sym(8, 4, 3);
  const Tensor x = sym_tensor({3, s0});
  EXPECT_EQ(desc(sym_slice(x, 1, {}, s1)), "sizes=[3, s1] strides=[s0, 1] offset=0");
  EXPECT_EQ(guards_str(env), "s1 <= s0");
  EXPECT_EQ(desc(sym_slice(x, 1, s1, {})), "sizes=[3, s0 - s1] strides=[s0, 1] offset=s1");
  EXPECT_EQ(guards_str(env), "s1 <= s0");
  EXPECT_EQ(desc(sym_slice(x, 1, {}, s2 * 2)), "sizes=[3, 2*s2] strides=[s0, 1] offset=0");
  EXPECT_EQ(guards_str(env, 1), "2*s2 <= s0");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymView, SelectAndNarrow) {
  sym(4, 6);
  const Tensor x = sym_tensor({s0, s1});
  EXPECT_EQ(desc(x.select(0, 1)), "sizes=[s1] strides=[1] offset=s1");
  EXPECT_EQ(desc(x.select(1, -1)), "sizes=[s0] strides=[s1] offset=s1 - 1");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(desc(x.narrow(1, 1, 2)), "sizes=[s0, 2] strides=[s1, 1] offset=1");
  EXPECT_EQ(guards_str(env), "1 <= s1 - 2");
}

TEST_F(SymView, SelectAndNarrowBySymbols) {
  sym(4, 8, 3);
  const Tensor x = sym_tensor({s0, s1});
  EXPECT_EQ(desc(dispatch1(op("aten::select.int"), {x, SymInt(1), s2}, SrcLocArg::current())),
            "sizes=[s0] strides=[s1] offset=s2");
  EXPECT_EQ(guards_str(env), "s2 < s1");
  sym::ShapeEnv env2;
  const SymInt t0 = env2.named_symbol("s0", 4), t1 = env2.named_symbol("s1", 6), t2 = env2.named_symbol("s2", 3);
  EXPECT_EQ(desc(dispatch1(op("aten::narrow"), {sym_tensor({t0, t1}), SymInt(1), SymInt(0), t2}, SrcLocArg::current())),
            "sizes=[s0, s2] strides=[s1, 1] offset=0");
  EXPECT_EQ(guards_str(env2), "0 <= s1 - s2");
}

TEST_F(SymView, SplitStaticDimOfSymbolicTensor) {
  sym(4, 6);
  const Tensor x = sym_tensor({s0, s1, 48});
  for (const auto& parts : {x.split(16, 2), x.chunk(3, 2)}) {
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(desc(parts[0]), "sizes=[s0, s1, 16] strides=[48*s1, 48, 1] offset=0");
    EXPECT_EQ(desc(parts[1]), "sizes=[s0, s1, 16] strides=[48*s1, 48, 1] offset=16");
    EXPECT_EQ(desc(parts[2]), "sizes=[s0, s1, 16] strides=[48*s1, 48, 1] offset=32");
  }
  auto ws = sym_tensor({s0, 3}).split(std::vector<SymInt>{1, 2}, 1);
  EXPECT_EQ(desc(ws[1]), "sizes=[s0, 2] strides=[3, 1] offset=1");
  EXPECT_EQ(guards_str(env), "");
}

TEST_F(SymView, SplitSymbolicDimSpecializesPieceCount) {
  sym(4);
  auto parts = sym_tensor({s0, 3}).split(2, 0);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(desc(parts[0]), "sizes=[2, 3] strides=[3, 1] offset=0");
  EXPECT_EQ(desc(parts[1]), "sizes=[s0 - 2, 3] strides=[3, 1] offset=6");
  EXPECT_EQ(guards_str(env), "Eq(((s0 + 1)//2), 2)");
  EXPECT_EQ(replacements_str(env), "");  // the count is specialized, not s0
}

TEST_F(SymView, ChunkSymbolicDim) {
  sym(4);
  auto parts = sym_tensor({s0, 3}).chunk(2, 0);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(desc(parts[0]), "sizes=[((s0 + 1)//2), 3] strides=[3, 1] offset=0");
  EXPECT_EQ(desc(parts[1]), "sizes=[s0 - (((s0 + 1)//2)), 3] strides=[3, 1] offset=3*(((s0 + 1)//2))");
  EXPECT_EQ(guards_str(env), "Eq(((s0 + (((s0 + 1)//2)) - 1)//(((s0 + 1)//2))), 2); s0 - (((s0 + 1)//2)) >= 0");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymView, SplitWithSymbolicSizesReplaces) {
  sym(6, 4);
  auto parts = sym_tensor({s0, 3}).split(std::vector<SymInt>{s1, 2}, 0);
  EXPECT_EQ(desc(parts[0]), "sizes=[s1, 3] strides=[3, 1] offset=0");
  EXPECT_EQ(desc(parts[1]), "sizes=[2, 3] strides=[3, 1] offset=3*s1");
  EXPECT_EQ(guards_str(env), "Eq(s1 + 2, s0)");
  EXPECT_EQ(replacements_str(env), "s0 -> s1 + 2");
}

TEST_F(SymView, UnbindStaticAndSymbolic) {
  sym(4);
  auto parts = dispatch(op("aten::unbind.int"), {sym_tensor({s0, 3}), SymInt(1)}, SrcLocArg::current());
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(desc(parts[2]), "sizes=[s0] strides=[3] offset=2");
  EXPECT_EQ(replacements_str(env), "");
  sym::ShapeEnv env2;
  const SymInt t0 = env2.named_symbol("s0", 3);
  auto rows = dispatch(op("aten::unbind.int"), {sym_tensor({t0, 2})}, SrcLocArg::current());
  ASSERT_EQ(rows.size(), 3u);  // PyTorch specializes the unbound dim
  EXPECT_EQ(desc(rows[2]), "sizes=[2] strides=[1] offset=4");
  EXPECT_EQ(guards_str(env2), "Eq(s0, 3)");
  EXPECT_EQ(replacements_str(env2), "s0 -> 3");
}

}  // namespace

// ---- join family: cat / stack / repeat / repeat_interleave / triu (view_join.py)
namespace {
using namespace fe;
using fe_test::replacements_str;
using fe_test::sym_str;
using fe_test::sym_tensor;

struct SymJoin : ::testing::Test {
  sym::ShapeEnv env;
};

TEST_F(SymJoin, CatAddsSizesAndEquatesOthers) {
  const SymInt s0 = env.named_symbol("s0", 4), s1 = env.named_symbol("s1", 6), s2 = env.named_symbol("s2", 4),
               s3 = env.named_symbol("s3", 5);
  const Tensor y = cat({sym_tensor({s0, s1}), sym_tensor({s2, s3})}, 1);
  EXPECT_EQ(desc(y), "sizes=[s0, s1 + s3] strides=[s1 + s3, 1] offset=0");
  EXPECT_EQ(guards_str(env), "Eq(s2, s0)");
  EXPECT_EQ(replacements_str(env), "s2 -> s0");
}

TEST_F(SymJoin, CatWithoutGuards) {
  const SymInt s0 = env.named_symbol("s0", 4), s1 = env.named_symbol("s1", 6);
  EXPECT_EQ(desc(cat({sym_tensor({s0, 3}), sym_tensor({s1, 3})})), "sizes=[s0 + s1, 3] strides=[3, 1] offset=0");
  const Tensor x = sym_tensor({s0, s1});
  EXPECT_EQ(desc(cat({x, x.slice(1, {}, 1)}, 1)), "sizes=[s0, s1 + 1] strides=[s1 + 1, 1] offset=0");
  EXPECT_EQ(desc(cat({sym_tensor({s0, 3}), sym_tensor({0})})), "sizes=[s0, 3] strides=[3, 1] offset=0");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(replacements_str(env), "");
  EXPECT_THROW(cat({x, x.t()}), ShapeError);  // s0 (4) vs s1 (6) in dim 1
}

TEST_F(SymJoin, StackEquatesAndViews) {
  const SymInt s0 = env.named_symbol("s0", 4), s1 = env.named_symbol("s1", 4);
  EXPECT_EQ(desc(stack({sym_tensor({s0, 3}), sym_tensor({s1, 3})})), "sizes=[2, s0, 3] strides=[3*s0, 3, 1] offset=0");
  EXPECT_EQ(guards_str(env), "Eq(s1, s0)");
  EXPECT_EQ(replacements_str(env), "s1 -> s0");
  EXPECT_EQ(desc(stack({sym_tensor({s0, 3}), sym_tensor({s1, 3})}, 2)), "sizes=[s0, 3, 2] strides=[6, 2, 1] offset=0");
  EXPECT_EQ(guards_str(env), "Eq(s1, s0)");
}

TEST_F(SymJoin, StackInnerDim) {
  const SymInt s0 = env.named_symbol("s0", 4), s1 = env.named_symbol("s1", 6);
  const Tensor x = sym_tensor({s0, s1});
  EXPECT_EQ(desc(stack({x, x}, 1)), "sizes=[s0, 2, s1] strides=[2*s1, s1, 1] offset=0");
  EXPECT_EQ(guards_str(env), "");
}

TEST_F(SymJoin, RepeatsAndTriangles) {
  const SymInt s0 = env.named_symbol("s0", 4), s1 = env.named_symbol("s1", 5), s2 = env.named_symbol("s2", 6);
  const Tensor x = sym_tensor({s0, 3});
  EXPECT_EQ(desc(x.repeat({2, 1})), "sizes=[2*s0, 3] strides=[3, 1] offset=0");
  EXPECT_EQ(desc(x.repeat({s1, 1, 1})), "sizes=[s1, s0, 3] strides=[3*s0, 3, 1] offset=0");
  EXPECT_EQ(desc(x.repeat_interleave(2, 0)), "sizes=[2*s0, 3] strides=[3, 1] offset=0");
  EXPECT_EQ(desc(x.repeat_interleave(2)), "sizes=[6*s0] strides=[1] offset=0");
  EXPECT_EQ(desc(dispatch1(op("aten::repeat_interleave.self_int"), {x, s1, SymInt(1), None{}}, SrcLocArg::current())),
            "sizes=[s0, 3*s1] strides=[3*s1, 1] offset=0");
  const Tensor m = sym_tensor({s0, s2});
  EXPECT_EQ(desc(m.triu(1)), "sizes=[s0, s2] strides=[s2, 1] offset=0");
  EXPECT_EQ(desc(m.tril()), "sizes=[s0, s2] strides=[s2, 1] offset=0");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(replacements_str(env), "");
}

}  // namespace
