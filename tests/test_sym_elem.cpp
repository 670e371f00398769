// Elementwise / unary / activation / reduction meta functions on symbolic sizes: broadcast
// sizes, output strides (as expressions), guards and replacements exactly as PyTorch 2.14's
// FakeTensorMode. Expectations from tools/oracle/sym/elem_broadcast.py, elem_layout.py, elem_ops.py.
#include <gtest/gtest.h>

#include "test_sym_util.h"
#include "fakeexport/core/error.h"
#include "fakeexport/fakeexport.h"

namespace {
using namespace fe;
using fe_test::replacements_str;
using fe_test::sym_str;
using fe_test::sym_tensor;

/// A fake view with explicit (symbolic) sizes, strides and offset, like x.t() or x[:, 1:].
Tensor strided(std::vector<SymInt> sizes, std::vector<SymInt> strides, DType dt = DType::Float32) {
  auto impl = std::make_shared<TensorImpl>();
  impl->meta.sizes = DimVector(IntSpan(sizes));
  impl->meta.strides = DimVector(IntSpan(strides));
  impl->meta.dtype = dt;
  impl->fake = true;
  return Tensor(std::move(impl));
}

std::string sizes(const Tensor& t) { return sym_str(t.meta().sizes); }
std::string strides(const Tensor& t) { return sym_str(t.meta().strides); }
std::string guards_str(const sym::ShapeEnv& env) {
  std::string out;
  for (const sym::Guard& g : env.guards()) out += (out.empty() ? "" : "; ") + g.str();
  return out;
}

// ---- broadcasting (elem_broadcast.py)
TEST(SymElem, BroadcastEqualHintsReplaceLargerName) {
  sym::ShapeEnv env;
  SymInt s1 = env.named_symbol("s1", 4), s0 = env.named_symbol("s0", 8), s2 = env.named_symbol("s2", 4);
  Tensor r = add(sym_tensor({s1}), sym_tensor({s0, s2}));
  EXPECT_EQ(sizes(r), "[s0, s1]");
  EXPECT_EQ(strides(r), "[s1, 1]");
  EXPECT_EQ(replacements_str(env), "s2 -> s1");
  EXPECT_EQ(guards_str(env), "Eq(s1, s2)");  // the fast binary path's infer_size(running, operand)
}

TEST(SymElem, BroadcastRefsPathGuardOrder) {
  sym::ShapeEnv env;
  SymInt s1 = env.named_symbol("s1", 4), s0 = env.named_symbol("s0", 8), s2 = env.named_symbol("s2", 4);
  Tensor r = maximum(sym_tensor({s1}), sym_tensor({s0, s2}));
  EXPECT_EQ(sizes(r), "[s0, s1]");
  EXPECT_EQ(strides(r), "[s1, 1]");
  EXPECT_EQ(replacements_str(env), "s2 -> s1");
  EXPECT_EQ(guards_str(env), "Eq(s2, s1)");  // _broadcast_shapes: shape == common
}

TEST(SymElem, BroadcastAgainstStaticSpecializes) {
  sym::ShapeEnv env;
  SymInt s0 = env.named_symbol("s0", 4), s1 = env.named_symbol("s1", 8);
  Tensor r = add(sym_tensor({s0, s1}), sym_tensor({8}));
  EXPECT_EQ(sizes(r), "[s0, 8]");
  EXPECT_EQ(strides(r), "[8, 1]");
  EXPECT_EQ(replacements_str(env), "s1 -> 8");
  EXPECT_EQ(guards_str(env), "Eq(s1, 8)");
}

TEST(SymElem, BroadcastOuterAndSameSymbolsRecordNothing) {
  sym::ShapeEnv env;
  SymInt s0 = env.named_symbol("s0", 4), s1 = env.named_symbol("s1", 8), s2 = env.named_symbol("s2", 6);
  Tensor r = add(sym_tensor({s0, 1}), sym_tensor({s1}));
  EXPECT_EQ(sizes(r), "[s0, s1]");
  EXPECT_EQ(strides(r), "[s1, 1]");
  Tensor r2 = add(sym_tensor({s0, s1, s2}), sym_tensor({s1, 1}));
  EXPECT_EQ(sizes(r2), "[s0, s1, s2]");
  EXPECT_EQ(strides(r2), "[s1*s2, s2, 1]");
  Tensor r3 = add(sym_tensor({s0, 1, s2}), sym_tensor({s1, 1}));
  EXPECT_EQ(sizes(r3), "[s0, s1, s2]");
  EXPECT_EQ(strides(r3), "[s1*s2, s2, 1]");
  Tensor r4 = mul(sym_tensor({s0, s1}), 2.0);
  EXPECT_EQ(strides(r4), "[s1, 1]");
  EXPECT_TRUE(env.guards().empty());
  EXPECT_TRUE(env.replacements().empty());
}

TEST(SymElem, BroadcastTwoFreshSetsReplaceBoth) {
  sym::ShapeEnv env;
  SymInt s0 = env.named_symbol("s0", 4), s1 = env.named_symbol("s1", 8);
  SymInt s2 = env.named_symbol("s2", 4), s3 = env.named_symbol("s3", 8);
  Tensor r = add(sym_tensor({s0, s1}), sym_tensor({s2, s3}));
  EXPECT_EQ(sizes(r), "[s0, s1]");
  EXPECT_EQ(guards_str(env), "Eq(s1, s3); Eq(s0, s2)");
  EXPECT_EQ(replacements_str(env), "s2 -> s0; s3 -> s1");
}

TEST(SymElem, BroadcastMismatchThrowsAfterNeGuard) {
  sym::ShapeEnv env;
  SymInt s0 = env.named_symbol("s0", 4), s1 = env.named_symbol("s1", 8), s2 = env.named_symbol("s2", 5);
  EXPECT_THROW(add(sym_tensor({s0, s1}), sym_tensor({s2})), ShapeError);
  EXPECT_EQ(guards_str(env), "Ne(s1, s2)");
  EXPECT_TRUE(env.replacements().empty());
  sym::ShapeEnv env2;
  SymInt t0 = env2.named_symbol("s0", 4), t1 = env2.named_symbol("s1", 8), t2 = env2.named_symbol("s2", 5);
  try {
    maximum(sym_tensor({t0, t1}), sym_tensor({t2}));
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("length s2 at -1"), std::string::npos) << e.what();
  }
}

TEST(SymElem, WhereMaskBroadcastReplaces) {
  sym::ShapeEnv env;
  SymInt s0 = env.named_symbol("s0", 4), s1 = env.named_symbol("s1", 8), s2 = env.named_symbol("s2", 8);
  Tensor r = where(sym_tensor({s2}, DType::Bool), sym_tensor({s0, s1}), 0.0);
  EXPECT_EQ(sizes(r), "[s0, s1]");
  EXPECT_EQ(strides(r), "[s1, 1]");
  EXPECT_EQ(guards_str(env), "Eq(s1, s2)");
  EXPECT_EQ(replacements_str(env), "s2 -> s1");
}

TEST(SymElem, ComparisonMaskedFillClamp) {
  sym::ShapeEnv env;
  SymInt s0 = env.named_symbol("s0", 4), s1 = env.named_symbol("s1", 8);
  Tensor e = eq(sym_tensor({s0, s1}), sym_tensor({s0, 1}));
  EXPECT_EQ(sizes(e), "[s0, s1]");
  EXPECT_EQ(strides(e), "[s1, 1]");
  EXPECT_EQ(e.dtype(), DType::Bool);
  Tensor m = masked_fill(sym_tensor({s0, s1}), sym_tensor({s1}, DType::Bool), 0.0);
  EXPECT_EQ(sizes(m), "[s0, s1]");
  EXPECT_EQ(strides(m), "[s1, 1]");
  Tensor c = clamp(sym_tensor({s0, s1}), Scalar(0.0));
  EXPECT_EQ(strides(c), "[s1, 1]");
  EXPECT_TRUE(env.guards().empty());
  EXPECT_TRUE(env.replacements().empty());
}

// ---- output strides of non-contiguous operands (elem_broadcast.py, elem_layout.py)
TEST(SymElem, TransposedOperandsKeepTheirLayout) {
  sym::ShapeEnv env;
  SymInt s0 = env.named_symbol("s0", 4), s1 = env.named_symbol("s1", 8);
  Tensor xt = strided({s1, s0}, {1, s1});  // x.t() of [s0, s1]
  EXPECT_EQ(strides(add(xt, 1.0)), "[1, s1]");
  EXPECT_EQ(strides(add(xt, sym_tensor({s1, s0}))), "[1, s1]");
  EXPECT_EQ(strides(add(xt, xt)), "[1, s1]");
  EXPECT_EQ(strides(add(xt, sym_tensor({s0}))), "[1, s1]");
  EXPECT_EQ(strides(maximum(xt, sym_tensor({s0}))), "[1, s1]");
  EXPECT_TRUE(env.guards().empty());
}

TEST(SymElem, PermutedOperandsSortStridesWithoutGuards) {
  sym::ShapeEnv env;
  SymInt s0 = env.named_symbol("s0", 4), s1 = env.named_symbol("s1", 8), s2 = env.named_symbol("s2", 6);
  Tensor p102 = strided({s1, s0, s2}, {s2, s1 * s2, 1});
  EXPECT_EQ(strides(add(p102, 1)), "[s2, s1*s2, 1]");
  EXPECT_EQ(strides(add(p102, p102)), "[s2, s1*s2, 1]");
  EXPECT_EQ(strides(add(p102, sym_tensor({s2}))), "[s2, s1*s2, 1]");
  EXPECT_EQ(strides(add(p102, sym_tensor({s1, 1, 1}))), "[s2, s1*s2, 1]");
  Tensor p201 = strided({s2, s0, s1}, {1, s1 * s2, s2});
  EXPECT_EQ(strides(add(p201, 1)), "[1, s1*s2, s2]");
  EXPECT_EQ(strides(neg(p201)), "[1, s1*s2, s2]");
  Tensor p021 = strided({s0, s2, s1}, {s1 * s2, 1, s2});
  EXPECT_EQ(strides(add(p021, sym_tensor({s2, 1}))), "[s1*s2, 1, s2]");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_TRUE(env.replacements().empty());
}

TEST(SymElem, ExpandedAndChannelsLast) {
  sym::ShapeEnv env;
  SymInt s0 = env.named_symbol("s0", 4), s1 = env.named_symbol("s1", 8);
  SymInt s2 = env.named_symbol("s2", 5), s3 = env.named_symbol("s3", 6);
  Tensor ex = strided({3, s0, s1}, {0, s1, 1});  // x.expand(3, -1, -1) of [1, s0, s1]
  EXPECT_EQ(strides(add(ex, 1)), "[s0*s1, s1, 1]");
  Tensor cl = strided({s0, s1, s2, s3}, {s1 * s2 * s3, 1, s1 * s3, s1});
  EXPECT_EQ(strides(mul(cl, 2)), "[s1*s2*s3, 1, s1*s3, s1]");
  EXPECT_EQ(strides(mul(cl, sym_tensor({s1, 1, 1}))), "[s1*s2*s3, 1, s1*s3, s1]");
  EXPECT_EQ(strides(sigmoid(cl)), "[s1*s2*s3, 1, s1*s3, s1]");
  EXPECT_TRUE(env.guards().empty());
}

TEST(SymElem, SizeThatMayBeOneIsGuardedOnceLikePyTorch) {
  sym::ShapeEnv env;
  SymInt s0 = env.named_symbol("s0", 4), s1 = env.named_symbol("s1", 8);
  Tensor sl = strided({s0, s1 - 1}, {s1, 1});  // x[:, 1:]
  Tensor r = add(sl, 1);
  EXPECT_EQ(sizes(r), "[s0, s1 - 1]");
  EXPECT_EQ(strides(r), "[Max(1, s1 - 1), 1]");
  EXPECT_EQ(guards_str(env), "Ne(s1 - 1, 1)");
  EXPECT_EQ(strides(add(sl, sl)), "[Max(1, s1 - 1), 1]");
  EXPECT_EQ(strides(sigmoid(sl)), "[Max(1, s1 - 1), 1]");
  EXPECT_EQ(env.guards().size(), 1u);  // asked again: answered from the first guard
  EXPECT_EQ(strides(add(strided({s1 - 1, s0}, {1, s1}), 1)), "[1, Max(1, s1 - 1)]");
  EXPECT_EQ(strides(relu(sl)), "[Max(1, s1 - 1), 1]");
  EXPECT_EQ(strides(sort(strided({s1 - 1, s0}, {1, s1}), 0).first), "[1, Max(1, s1 - 1)]");
  EXPECT_EQ(env.guards().size(), 1u);
  EXPECT_TRUE(env.replacements().empty());

  sym::ShapeEnv env2;
  SymInt t0 = env2.named_symbol("s0", 4), t1 = env2.named_symbol("s1", 8);
  Tensor r2 = add(strided({t0 - 1, t1}, {t1, 1}), 1);  // x[1:]
  EXPECT_EQ(strides(r2), "[s1, 1]");
  EXPECT_EQ(guards_str(env2), "Ne(s0 - 1, 1)");
}

// ---- unary and activation ops (elem_ops.py)
TEST(SymElem, UnaryAndActivation) {
  sym::ShapeEnv env;
  SymInt s0 = env.named_symbol("s0", 4), s1 = env.named_symbol("s1", 8), s2 = env.named_symbol("s2", 6);
  Tensor x = sym_tensor({s0, s1}), xt = strided({s1, s0}, {1, s1});
  EXPECT_EQ(strides(sigmoid(x)), "[s1, 1]");
  EXPECT_EQ(strides(gelu(x)), "[s1, 1]");
  EXPECT_EQ(strides(silu(xt)), "[1, s1]");
  EXPECT_EQ(strides(relu(xt)), "[1, s1]");
  EXPECT_EQ(sizes(dropout(x, 0.5, true)), "[s0, s1]");
  EXPECT_EQ(strides(dropout(x, 0.5, true)), "[s1, 1]");
  Tensor x3 = sym_tensor({s0, s1, s2});
  EXPECT_EQ(strides(softmax(x3, -1)), "[s1*s2, s2, 1]");
  EXPECT_EQ(strides(log_softmax(x3, 1)), "[s1*s2, s2, 1]");
  Tensor x3t = strided({s1, s0, s2}, {s2, s1 * s2, 1});
  EXPECT_EQ(sizes(softmax(x3t, -1)), "[s1, s0, s2]");
  EXPECT_EQ(strides(softmax(x3t, -1)), "[s0*s2, s2, 1]");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_TRUE(env.replacements().empty());
}

// ---- reductions (elem_ops.py)
TEST(SymElem, DimReductions) {
  sym::ShapeEnv env;
  SymInt s0 = env.named_symbol("s0", 4), s1 = env.named_symbol("s1", 8), s2 = env.named_symbol("s2", 6);
  Tensor x = sym_tensor({s0, s1}), x3 = sym_tensor({s0, s1, s2});
  Tensor r = sum(x, {1});
  EXPECT_EQ(sizes(r) + strides(r), "[s0][1]");
  r = sum(x, {1}, true);
  EXPECT_EQ(sizes(r) + strides(r), "[s0, 1][1, 1]");
  r = sum(x3, {0, 2}, true);
  EXPECT_EQ(sizes(r) + strides(r), "[1, s1, 1][s1, 1, 1]");
  r = mean(x3, {-1});
  EXPECT_EQ(sizes(r) + strides(r), "[s0, s1][s1, 1]");
  r = sum(x);
  EXPECT_EQ(sizes(r) + strides(r), "[][]");
  r = amax(x, {0}, true);
  EXPECT_EQ(sizes(r) + strides(r), "[1, s1][s1, 1]");
  r = var(x3, std::vector<int64_t>{1}, true, true);
  EXPECT_EQ(sizes(r) + strides(r), "[s0, 1, s2][s2, s2, 1]");
  Tensor xt = strided({s1, s0}, {1, s1});
  r = sum(xt, {0});
  EXPECT_EQ(sizes(r) + strides(r), "[s0][1]");
  r = sum(xt, {0}, true);
  EXPECT_EQ(sizes(r) + strides(r), "[1, s0][s0, 1]");
  EXPECT_TRUE(env.guards().empty());
  EXPECT_TRUE(env.replacements().empty());
}

TEST(SymElem, IndexReductionsSortCumsum) {
  sym::ShapeEnv env;
  SymInt s0 = env.named_symbol("s0", 4), s1 = env.named_symbol("s1", 8), s2 = env.named_symbol("s2", 6);
  Tensor x = sym_tensor({s0, s1});
  auto [v, i] = max(x, 1);
  EXPECT_EQ(sizes(v) + strides(v) + sizes(i) + strides(i), "[s0][1][s0][1]");
  EXPECT_EQ(i.dtype(), DType::Int64);
  auto [v2, i2] = max(x, 0, true);
  EXPECT_EQ(sizes(v2) + strides(v2) + strides(i2), "[1, s1][s1, 1][s1, 1]");
  Tensor am = argmax(sym_tensor({s0, s1, s2}), -1);
  EXPECT_EQ(sizes(am) + strides(am), "[s0, s1][s1, 1]");
  am = argmax(x);
  EXPECT_EQ(sizes(am), "[]");
  auto [sv, si] = sort(x, 0);
  EXPECT_EQ(sizes(sv) + strides(sv) + strides(si), "[s0, s1][s1, 1][s1, 1]");
  Tensor c = cumsum(x, 1);
  EXPECT_EQ(sizes(c) + strides(c), "[s0, s1][s1, 1]");
  auto [tsv, tsi] = sort(strided({s1, s0}, {1, s1}), 0);
  EXPECT_EQ(strides(tsv) + strides(tsi), "[1, s1][1, s1]");
  c = cumsum(strided({s1, s0}, {1, s1}), 1);
  EXPECT_EQ(sizes(c) + strides(c), "[s1, s0][s0, 1]");
  EXPECT_TRUE(env.guards().empty());
  auto [tv, ti] = topk(x, 3, -1);
  EXPECT_EQ(sizes(tv) + strides(tv) + strides(ti), "[s0, 3][3, 1][3, 1]");
  EXPECT_EQ(guards_str(env), "s1 >= 3");  // k <= size: a guard, not a specialization
  EXPECT_TRUE(env.replacements().empty());
}

}  // namespace
