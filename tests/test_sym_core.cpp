// SymInt / ShapeEnv basics: arithmetic builds canonical expressions, comparisons guard and answer
// from hints, equalities replace the (hint, name)-largest symbol, ranges refine, statically known
// facts record nothing. Expectations checked against tools/oracle/sym_probe.py where PyTorch has them.
#include <gtest/gtest.h>

#include "test_sym_util.h"
#include "fakeexport/core/error.h"

namespace {
using namespace fe;
using fe_test::replacements_str;

TEST(SymCore, ConcreteFastPathStaysConcrete) {
  SymInt a = 6, b = 4;
  EXPECT_FALSE((a * b + a).is_symbolic());
  EXPECT_EQ((a * b + a).hint(), 30);
  EXPECT_EQ(floordiv(SymInt(-7), 2).hint(), -4);
  EXPECT_EQ(mod(SymInt(-7), 2).hint(), 1);
  EXPECT_TRUE(a == 6);
  static_assert(sizeof(SymInt) == 16);
}

TEST(SymCore, ArithmeticIsCanonicalAndKeepsHints) {
  sym::ShapeEnv env;
  SymInt s0 = env.named_symbol("s0", 4), s1 = env.named_symbol("s1", 8);
  EXPECT_EQ((s1 * s0).str(), "s0*s1");
  EXPECT_EQ((s0 * 2 + 1).str(), "2*s0 + 1");
  EXPECT_EQ((s0 * 2 + 1).hint(), 9);
  EXPECT_EQ((s0 - s0).is_symbolic(), false);
  EXPECT_EQ(floordiv(s0 * 4, 2).str(), "2*s0");
  EXPECT_TRUE(env.guards().empty());
}

TEST(SymCore, EqualityGuardReplacesLargerName) {
  sym::ShapeEnv env;
  SymInt s77 = env.named_symbol("s77", 4), s94 = env.named_symbol("s94", 4);
  EXPECT_TRUE(s77 == s94);  // like broadcasting x + y
  EXPECT_EQ(replacements_str(env), "s94 -> s77");
  EXPECT_EQ(s94.str(), "s77");
  ASSERT_EQ(env.guards().size(), 1u);
  EXPECT_EQ(env.guards()[0].str(), "Eq(s77, s94)");
  EXPECT_EQ(env.guards()[0].where.line(), __LINE__ - 5u);
}

TEST(SymCore, LargerHintIsSolvedFor) {
  sym::ShapeEnv env;
  SymInt s17 = env.named_symbol("s17", 8), s77 = env.named_symbol("s77", 4), s68 = env.named_symbol("s68", 32);
  EXPECT_TRUE(s17 * s77 == s68);
  EXPECT_EQ(replacements_str(env), "s68 -> s17*s77");
}

TEST(SymCore, RangesRefineAndTransferThroughReplacement) {
  sym::ShapeEnv env;
  SymInt w = env.named_symbol("s15", 18), x = env.named_symbol("s77", 16);
  EXPECT_TRUE(w <= 512);
  EXPECT_TRUE(x >= 16);
  EXPECT_TRUE(w == x + 2);
  EXPECT_EQ(replacements_str(env), "s15 -> s77 + 2");
  EXPECT_EQ(env.symbol("s77")->range.str(), "VR[16, 510]");
  EXPECT_EQ(env.bound(w.expr()).str(), "VR[18, 512]");
}

TEST(SymCore, StaticallyKnownFactsRecordNoGuard) {
  sym::ShapeEnv env;
  SymInt s0 = env.named_symbol("s0", 4);
  EXPECT_FALSE(s0 == 1);  // sizes are >= 2
  EXPECT_TRUE(s0 >= 0);
  EXPECT_TRUE(s0 * 2 != 3);
  EXPECT_TRUE(env.guards().empty());
  EXPECT_TRUE(statically_known_true(sym_gt(s0, 1)));
  EXPECT_FALSE(sym_eq(s0, 4).maybe_static().has_value());
}

TEST(SymCore, ExpectIntSpecializes) {
  sym::ShapeEnv env;
  SymInt s0 = env.named_symbol("s0", 5);
  EXPECT_EQ(s0.expect_int(), 5);
  EXPECT_EQ(replacements_str(env), "s0 -> 5");
  EXPECT_EQ(s0.maybe_int(), 5);
}

TEST(SymCore, FalseComparisonRecordsTheNegation) {
  sym::ShapeEnv env;
  SymInt s0 = env.named_symbol("s0", 5);
  EXPECT_FALSE(s0 > 8);
  ASSERT_EQ(env.guards().size(), 1u);
  EXPECT_EQ(env.guards()[0].str(), "s0 <= 8");
  EXPECT_EQ(env.symbol("s0")->range.str(), "VR[2, 8]");
}

TEST(SymCore, CheckThrowsUserErrorWithLocation) {
  try {
    check(false, "x must be even");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("test_sym_core.cpp"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("x must be even"), std::string::npos);
  }
}

}  // namespace

namespace {
// Facts over data, as tools/oracle/scripts/probe_unbacked_view.py shows PyTorch's ShapeEnv keeps
// them for X = CeilToInt(FloatTrueDiv(zuf0 - zuf1, -1.0)) (an arange's length over item()s): the
// runtime assertion `X - 1 >= 0` (a reshape to [.., X - 1]) answers `0 <= X - 1` (slice start 0
// stays 0) but not `Min(8, X - 1) >= 0` (the slice's size stays Max(0, Min(8, X - 1))), and the
// numel check Eq(16*M, 16*X - 16) decides `8*X - 8 < 8*M` (compute_stride's chunk test).
using namespace fe;

TEST(SymCore, FactsOverDataAnswerThemselvesNotRanges) {
  using sym::Expr;
  sym::ShapeEnv env;
  const Expr x = Expr::symbol("CeilToInt(FloatTrueDiv(zuf0 - zuf1, -1.0))");
  const Expr m = sym::max(Expr(0), x - sym::min(Expr(1), x));
  EXPECT_EQ(env.static_eval(Rel::Le, 0, x - 1), std::nullopt);
  env.assume(Rel::Gt, x - 1, -1);
  EXPECT_EQ(env.static_eval(Rel::Le, 0, x - 1), true);
  EXPECT_EQ(env.static_eval(Rel::Lt, x - 1, 0), false);
  EXPECT_EQ(env.static_eval(Rel::Ge, sym::min(Expr(8), x - 1), 0), std::nullopt);
  EXPECT_EQ(env.static_eval(Rel::Ge, x, 2), std::nullopt);  // no range for the atom
  EXPECT_EQ(env.static_eval(Rel::Lt, 8 * x - 8, 8 * m), std::nullopt);
  env.assume(Rel::Eq, 16 * m, 16 * x - 16);
  EXPECT_EQ(env.static_eval(Rel::Lt, 8 * x - 8, 8 * m), false);
  EXPECT_EQ(env.static_eval(Rel::Ne, 8 * x - 8, 8 * m), false);
  EXPECT_EQ(env.static_eval(Rel::Lt, x - 1, 8 * m), std::nullopt);
  EXPECT_TRUE(env.guards().empty());
}

// ShapeEnv.simplify drops a Min/Max argument another one dominates before deciding: by ranges,
// and for Max(0|1, e) by the facts as well. Measured on Funnel's decomposition in PyTorch 2.14:
// after the runtime assertion `1 <= X`, guard_or_true(Ne(Max(1, X), X)) is False, so the view of
// a permuted bmm output merges dims that stride Max(1, X) would split.
TEST(SymCore, DominatedMinMaxArgumentsAreDroppedBeforeDeciding) {
  using sym::Expr;
  sym::ShapeEnv env;
  const Expr x = Expr::symbol("CeilToInt(FloatTrueDiv(zuf0 - zuf1, -1.0))");
  EXPECT_EQ(env.static_eval(Rel::Ne, sym::max(Expr(1), x), x), std::nullopt);
  env.assume(Rel::Le, 1, x);
  EXPECT_EQ(env.static_eval(Rel::Ne, sym::max(Expr(1), x), x), false);
  EXPECT_EQ(env.static_eval(Rel::Ne, sym::max(Expr(2), x), x), std::nullopt);  // only 0 and 1 use facts
  const Expr s = env.named_symbol("s0", 5, {2, sym::kPosInf}).node()->expr;
  EXPECT_EQ(env.static_eval(Rel::Ne, sym::max(Expr(2), s), s), false);
  EXPECT_EQ(env.static_eval(Rel::Eq, sym::min(Expr(3), s), s), std::nullopt);
  EXPECT_TRUE(env.guards().empty());
}
}  // namespace
