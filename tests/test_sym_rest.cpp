// Symbolic shapes through the linalg, norm, attention, indexing, factory and conversion metas:
// output sizes/strides as expressions, the guards and replacements PyTorch records, and no
// specialization where PyTorch has none. Every expectation is the output of
// tools/oracle/sym/rest_tests.py (same case names, same order). Symbols use the raw names PyTorch
// gives each input position (tools/oracle/sym/rest_names.py), so ties pick the same survivor.
#include <gtest/gtest.h>

#include <algorithm>

#include "test_sym_util.h"
#include "fakeexport/core/error.h"
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"

namespace {
using namespace fe;
using fe_test::replacements_str;
using fe_test::sym_str;
using fe_test::sym_tensor;

/// "[s27, 48] / [48, 1]": sizes and strides of t.
std::string meta_str(const Tensor& t) { return sym_str(t.sizes()) + " / " + sym_str(t.strides()); }

/// The env's distinct guards, "; "-joined, in recording order (PyTorch records a repeated guard once).
std::string guards_str(const sym::ShapeEnv& env) {
  std::string out;
  std::vector<std::string> seen;
  for (const auto& g : env.guards()) {
    const std::string t = g.str();
    if (std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
    seen.push_back(t);
    out += (out.empty() ? "" : "; ") + t;
  }
  return out;
}

std::vector<Tensor> call(const char* name, std::vector<IValue> args) {
  const OpDef& d = op(name);
  complete_args(d, args);
  return dispatch(d, std::move(args), SrcLocArg::current());
}

constexpr DType kI64 = DType::Int64;

class SymRest : public ::testing::Test {
 protected:
  sym::ShapeEnv env;
  SymInt s(const char* name, int64_t hint) { return env.named_symbol(name, hint); }
};

// ---------------------------------------------------------------- linalg
TEST_F(SymRest, LinearKeepsBatchDimsSymbolic) {
  SymInt b = s("s27", 4), t = s("s18", 6);
  Tensor w = sym_tensor({48, 16}), bias = sym_tensor({48});
  EXPECT_EQ(meta_str(linear(sym_tensor({b, t, 16}), w)), "[s27, s18, 48] / [48*s18, 48, 1]");
  EXPECT_EQ(meta_str(linear(sym_tensor({b, t, 16}), w, bias)), "[s27, s18, 48] / [48*s18, 48, 1]");
  EXPECT_EQ(meta_str(linear(sym_tensor({b, 16}), w, bias)), "[s27, 48] / [48, 1]");
  EXPECT_EQ(meta_str(matmul(sym_tensor({b, t, 16}), sym_tensor({16, 48}))), "[s27, s18, 48] / [48*s18, 48, 1]");
  EXPECT_EQ(meta_str(matmul(sym_tensor({b, t, 16}), sym_tensor({16}))), "[s27, s18] / [s18, 1]");
  EXPECT_EQ(meta_str(fe::t(sym_tensor({b, 16}))), "[16, s27] / [1, 16]");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymRest, LinearSymbolicInnerDimSpecializes) {
  SymInt b = s("s27", 4), t = s("s18", 6), k = s("s51", 16);
  EXPECT_EQ(meta_str(linear(sym_tensor({b, t, k}), sym_tensor({48, 16}))), "[s27, s18, 48] / [48*s18, 48, 1]");
  EXPECT_EQ(replacements_str(env), "s51 -> 16");
}

TEST_F(SymRest, MatmulInnerDimGuardSpecializesLikePyTorch) {
  SymInt b = s("s27", 4), k = s("s18", 5);
  EXPECT_EQ(meta_str(matmul(sym_tensor({b, k}), sym_tensor({5, 3}))), "[s27, 3] / [3, 1]");
  EXPECT_EQ(guards_str(env), "Eq(s18, 5)");
  EXPECT_EQ(replacements_str(env), "s18 -> 5");
}

TEST_F(SymRest, MatmulBatchDims) {
  SymInt a = s("s27", 4), t = s("s18", 6), b = s("s78", 4);
  EXPECT_EQ(meta_str(matmul(sym_tensor({a, t, 16}), sym_tensor({b, 16, 8}))), "[s27, s18, 8] / [8*s18, 8, 1]");
  EXPECT_EQ(guards_str(env), "Eq(s27, s78)");
  EXPECT_EQ(replacements_str(env), "s78 -> s27");
}

TEST_F(SymRest, MatmulBroadcastBatch) {
  SymInt a = s("s27", 4), q = s("s51", 6), b = s("s78", 4), p = s("s94", 8);
  EXPECT_EQ(meta_str(matmul(sym_tensor({a, 3, q, 16}), sym_tensor({b, 1, 16, p}))),
            "[s27, 3, s51, s94] / [3*s51*s94, s51*s94, s94, 1]");
  EXPECT_EQ(replacements_str(env), "s78 -> s27");
}

TEST_F(SymRest, MatmulBatchMismatchRaises) {
  SymInt a = s("s27", 4), t = s("s18", 6), b = s("s78", 5);
  EXPECT_THROW(matmul(sym_tensor({a, t, 16}), sym_tensor({b, 16, 8})), ShapeError);
  EXPECT_EQ(guards_str(env), "Ne(s27, s78)");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymRest, Matmul2dAt3dFolds) {
  SymInt k = s("s18", 6), b = s("s78", 4), k2 = s("s71", 6);
  EXPECT_EQ(meta_str(matmul(sym_tensor({16, k}), sym_tensor({b, k2, 8}))), "[s78, 16, 8] / [128, 8, 1]");
  EXPECT_EQ(replacements_str(env), "s71 -> s18");
}

TEST_F(SymRest, DotMvMmBmm) {
  SymInt a = s("s27", 4), k = s("s18", 6), b = s("s78", 4);
  EXPECT_EQ(meta_str(matmul(sym_tensor({a}), sym_tensor({b}))), "[] / []");
  EXPECT_EQ(replacements_str(env), "s78 -> s27");
  sym::ShapeEnv e2;
  SymInt a2 = e2.named_symbol("s27", 4), k2 = e2.named_symbol("s18", 6), m2 = e2.named_symbol("s78", 6);
  EXPECT_EQ(meta_str(mm(sym_tensor({a2, k2}), sym_tensor({m2, 3}))), "[s27, 3] / [3, 1]");
  EXPECT_EQ(replacements_str(e2), "s78 -> s18");
  sym::ShapeEnv e3;
  SymInt a3 = e3.named_symbol("s27", 4), k3 = e3.named_symbol("s18", 5), m3 = e3.named_symbol("s78", 5);
  EXPECT_EQ(meta_str(mv(sym_tensor({a3, k3}), sym_tensor({m3}))), "[s27] / [1]");
  EXPECT_EQ(replacements_str(e3), "s78 -> s18");
  sym::ShapeEnv e4;
  SymInt a4 = e4.named_symbol("s27", 4), t4 = e4.named_symbol("s18", 6), b4 = e4.named_symbol("s78", 4);
  EXPECT_EQ(meta_str(bmm(sym_tensor({a4, t4, 16}), sym_tensor({b4, 16, 3}))), "[s27, s18, 3] / [3*s18, 3, 1]");
  EXPECT_EQ(replacements_str(e4), "s78 -> s27");
  (void)k;
}

TEST_F(SymRest, MmInnerMismatchRaisesWithSymbolicMessage) {
  SymInt a = s("s27", 4), k = s("s18", 6), m = s("s78", 7);
  try {
    mm(sym_tensor({a, k}), sym_tensor({m, 3}));
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("but got [s27, s18] X [s78, 3]."), std::string::npos) << e.what();
  }
  EXPECT_EQ(guards_str(env), "Ne(s18, s78)");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymRest, AddmmAndBaddbmm) {
  SymInt n = s("s27", 5), m = s("s78", 5);
  EXPECT_EQ(meta_str(addmm(sym_tensor({n, 3}), sym_tensor({m, 16}), sym_tensor({16, 3}))), "[s27, 3] / [3, 1]");
  EXPECT_EQ(replacements_str(env), "s78 -> s27");
  sym::ShapeEnv e2;
  SymInt a = e2.named_symbol("s27", 5), b = e2.named_symbol("s18", 6), c = e2.named_symbol("s78", 5),
         d = e2.named_symbol("s71", 6), f = e2.named_symbol("s20", 5);
  EXPECT_EQ(meta_str(baddbmm(sym_tensor({a, b, 3}), sym_tensor({c, d, 16}), sym_tensor({f, 16, 3}))),
            "[s20, s18, 3] / [3*s18, 3, 1]");
  EXPECT_EQ(replacements_str(e2), "s27 -> s20; s71 -> s18; s78 -> s20");
}

TEST_F(SymRest, EinsumKeepsSymbols) {
  SymInt b = s("s27", 4), t = s("s18", 6);
  EXPECT_EQ(meta_str(einsum("bij,jk->bik", {sym_tensor({b, t, 16}), sym_tensor({16, 8})})),
            "[s27, s18, 8] / [8*s18, 8, 1]");
  EXPECT_EQ(replacements_str(env), "");
  sym::ShapeEnv e2;
  SymInt a = e2.named_symbol("s27", 4), q = e2.named_symbol("s51", 6), a2 = e2.named_symbol("s78", 4),
         k = e2.named_symbol("s96", 7);
  EXPECT_EQ(meta_str(einsum("bhqd,bhkd->bhqk", {sym_tensor({a, 2, q, 8}), sym_tensor({a2, 2, k, 8})})),
            "[s27, 2, s51, s96] / [2*s51*s96, s51*s96, s96, 1]");
  EXPECT_EQ(replacements_str(e2), "s78 -> s27");
}

// ---------------------------------------------------------------- norm
TEST_F(SymRest, LayerNormFamily) {
  SymInt b = s("s27", 4), t = s("s18", 6);
  Tensor x = sym_tensor({b, t, 16}), w = sym_tensor({16}), bias = sym_tensor({16});
  EXPECT_EQ(meta_str(layer_norm(x, {16}, w, bias)), "[s27, s18, 16] / [16*s18, 16, 1]");
  auto outs = call("aten::native_layer_norm", {x, std::vector<SymInt>{16}, w, bias, 1e-5});
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_EQ(meta_str(outs[0]), "[s27, s18, 16] / [16*s18, 16, 1]");
  EXPECT_EQ(meta_str(outs[1]), "[s27, s18, 1] / [s18, 1, 1]");
  EXPECT_EQ(meta_str(rms_norm(x, {16}, w)), "[s27, s18, 16] / [16*s18, 16, 1]");
  SymInt h = s("s51", 6);
  EXPECT_EQ(meta_str(rms_norm(sym_tensor({b, 3, h, 5}), {5})), "[s27, 3, s51, 5] / [15*s51, 5*s51, 5, 1]");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymRest, LayerNormSymbolicNormalizedDimSpecializes) {
  SymInt b = s("s27", 4), c = s("s18", 16);
  EXPECT_EQ(meta_str(layer_norm(sym_tensor({b, c}), {16})), "[s27, 16] / [16, 1]");
  EXPECT_EQ(replacements_str(env), "s18 -> 16");
}

TEST_F(SymRest, GroupNorm) {
  SymInt b = s("s27", 4), l = s("s51", 6);
  EXPECT_EQ(meta_str(group_norm(sym_tensor({b, 8, l}), 4, sym_tensor({8}), sym_tensor({8}))),
            "[s27, 8, s51] / [8*s51, s51, 1]");
  Tensor x = sym_tensor({b, 8, l, 5});
  auto outs = call("aten::native_group_norm", {x, sym_tensor({8}), sym_tensor({8}), b, SymInt(8), l * 5, SymInt(4), 1e-5});
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_EQ(meta_str(outs[0]), "[s27, 8, s51, 5] / [40*s51, 5*s51, 5, 1]");
  EXPECT_EQ(meta_str(outs[1]), "[s27, 4] / [4, 1]");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymRest, BatchNorm) {
  SymInt b = s("s27", 4), l = s("s51", 6);
  Tensor c8 = sym_tensor({8});
  EXPECT_EQ(meta_str(batch_norm(sym_tensor({b, 8, l}), c8, c8, c8, c8)), "[s27, 8, s51] / [8*s51, s51, 1]");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymRest, BatchNormSymbolicChannelsSpecialize) {
  SymInt b = s("s27", 4), c = s("s18", 8);
  Tensor c8 = sym_tensor({8});
  EXPECT_EQ(meta_str(batch_norm(sym_tensor({b, c, 5}), c8, c8)), "[s27, 8, 5] / [40, 5, 1]");
  EXPECT_EQ(replacements_str(env), "s18 -> 8");
}

// ---------------------------------------------------------------- attention
TEST_F(SymRest, SdpaCausalSelfAttention) {
  SymInt qb = s("s27", 2), ql = s("s51", 6), kb = s("s78", 2), kl = s("s96", 6), vb = s("s20", 2), vl = s("s99", 6);
  Tensor o = scaled_dot_product_attention(sym_tensor({qb, 4, ql, 8}), sym_tensor({kb, 4, kl, 8}),
                                          sym_tensor({vb, 4, vl, 8}), {}, 0.0, true);
  EXPECT_EQ(meta_str(o), "[s20, 4, s51, 8] / [32*s51, 8*s51, 8, 1]");
  EXPECT_EQ(guards_str(env), "Eq(s27, s78); Eq(s27, s20)");
  EXPECT_EQ(replacements_str(env), "s27 -> s20; s78 -> s20");  // no guard between the sequence lengths
}

TEST_F(SymRest, SdpaBatchMismatchRaises) {
  SymInt qb = s("s27", 2), ql = s("s51", 6), kb = s("s78", 3), kl = s("s96", 7), vb = s("s20", 3), vl = s("s99", 7);
  EXPECT_THROW(scaled_dot_product_attention(sym_tensor({qb, 4, ql, 8}), sym_tensor({kb, 4, kl, 8}),
                                            sym_tensor({vb, 4, vl, 8})),
               ShapeError);
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymRest, SdpaMasks) {
  SymInt qb = s("s27", 2), ql = s("s51", 6), kb = s("s78", 2), kl = s("s96", 7), vb = s("s20", 2), vl = s("s99", 7);
  Tensor q = sym_tensor({qb, 4, ql, 8}), k = sym_tensor({kb, 4, kl, 8}), v = sym_tensor({vb, 4, vl, 8});
  SymInt mr = s("s86", 6), mc = s("s5", 7);
  EXPECT_EQ(meta_str(scaled_dot_product_attention(q, k, v, sym_tensor({mr, mc}))), "[s20, 4, s51, 8] / [32*s51, 8*s51, 8, 1]");
  EXPECT_EQ(replacements_str(env), "s27 -> s20; s78 -> s20; s86 -> s51; s96 -> s5");

  sym::ShapeEnv e2;
  auto n = [&](const char* nm, int64_t h) { return e2.named_symbol(nm, h); };
  Tensor q2 = sym_tensor({n("s27", 2), 4, n("s51", 6), 8}), k2 = sym_tensor({n("s78", 2), 4, n("s96", 7), 8}),
         v2 = sym_tensor({n("s20", 2), 4, n("s99", 7), 8});
  Tensor pad = sym_tensor({n("s86", 2), 1, 1, n("s87", 7)}, DType::Bool);
  EXPECT_EQ(meta_str(scaled_dot_product_attention(q2, k2, v2, pad)), "[s20, 4, s51, 8] / [32*s51, 8*s51, 8, 1]");
  EXPECT_EQ(replacements_str(e2), "s27 -> s20; s78 -> s20; s86 -> s20; s96 -> s87");
}

TEST_F(SymRest, SdpaGqa) {
  SymInt qb = s("s27", 2), ql = s("s51", 6), kb = s("s78", 2), kl = s("s96", 6), vb = s("s20", 2), vl = s("s99", 6);
  Tensor o = scaled_dot_product_attention(sym_tensor({qb, 8, ql, 16}), sym_tensor({kb, 2, kl, 16}),
                                          sym_tensor({vb, 2, vl, 16}), {}, 0.0, false, std::nullopt, true);
  EXPECT_EQ(meta_str(o), "[s20, 8, s51, 16] / [128*s51, 16*s51, 16, 1]");
  EXPECT_EQ(replacements_str(env), "s27 -> s20; s78 -> s20");
}

TEST_F(SymRest, SdpaGqaFusedKernelKeepsQueryStrides) {
  SymInt qb = s("s27", 2), ql = s("s18", 6), kb = s("s78", 2), kl = s("s71", 6), vb = s("s20", 2), vl = s("s21", 6);
  Tensor q = sym_tensor({qb, ql, 8, 16}).transpose(1, 2), k = sym_tensor({kb, kl, 2, 16}).transpose(1, 2),
         v = sym_tensor({vb, vl, 2, 16}).transpose(1, 2);
  Tensor o = scaled_dot_product_attention(q, k, v, {}, 0.0, true, std::nullopt, true);
  EXPECT_EQ(meta_str(o), "[s20, 8, s18, 16] / [128*s18, 16, 128, 1]");
  EXPECT_EQ(replacements_str(env), "s27 -> s20; s78 -> s20");
}

TEST_F(SymRest, SdpaGqaMathPathWhenKvHeadsDiffer) {
  SymInt qb = s("s27", 2), ql = s("s51", 6), kb = s("s78", 2), kl = s("s96", 6), vb = s("s20", 2), vl = s("s99", 6);
  Tensor o = scaled_dot_product_attention(sym_tensor({qb, 8, ql, 16}), sym_tensor({kb, 2, kl, 16}),
                                          sym_tensor({vb, 4, vl, 16}), {}, 0.0, false, std::nullopt, true);
  EXPECT_EQ(meta_str(o), "[s20, 8, s51, 16] / [128*s51, 16*s51, 16, 1]");
  EXPECT_EQ(replacements_str(env), "s27 -> s20; s78 -> s20; s99 -> s96");
}

// ---------------------------------------------------------------- indexing
TEST_F(SymRest, EmbeddingAndIndexSelect) {
  SymInt b = s("s78", 4), t = s("s71", 6);
  EXPECT_EQ(meta_str(embedding(sym_tensor({b, t}, kI64), sym_tensor({100, 16}))), "[s78, s71, 16] / [16*s71, 16, 1]");
  EXPECT_EQ(meta_str(index(sym_tensor({100, 16}), {sym_tensor({b, t}, kI64)})), "[s78, s71, 16] / [16*s71, 16, 1]");
  SymInt a = s("s27", 5), l = s("s51", 6);
  EXPECT_EQ(meta_str(index_select(sym_tensor({a, 16, l}), 1, sym_tensor({b}, kI64))),
            "[s27, s78, s51] / [s51*s78, s51, 1]");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymRest, GatherGuardsIndexNoLargerThanSelf) {
  SymInt a = s("s27", 4), t = s("s18", 6), b = s("s78", 4), u = s("s71", 6);
  EXPECT_EQ(meta_str(gather(sym_tensor({a, t, 16}), -1, sym_tensor({b, u, 1}, kI64))), "[s78, s71, 1] / [s71, 1, 1]");
  EXPECT_EQ(guards_str(env), "s78 <= s27; s71 <= s18");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymRest, AdvancedIndexing) {
  SymInt a = s("s27", 4), i = s("s78", 3), j = s("s20", 3);
  EXPECT_EQ(meta_str(index(sym_tensor({a, 16, 8}), {sym_tensor({i}, kI64), sym_tensor({j}, kI64)})), "[s20, 8] / [8, 1]");
  EXPECT_EQ(replacements_str(env), "s78 -> s20");
  sym::ShapeEnv e2;
  SymInt a2 = e2.named_symbol("s27", 4), i2 = e2.named_symbol("s78", 3), j2 = e2.named_symbol("s20", 5);
  EXPECT_EQ(meta_str(index(sym_tensor({a2, 16, 8}), {sym_tensor({i2}, kI64), std::nullopt, sym_tensor({j2, 1}, kI64)})),
            "[s20, s78, 16] / [16*s78, 16, 1]");
  SymInt c2 = e2.named_symbol("s18", 16);
  EXPECT_EQ(meta_str(index(sym_tensor({a2, c2}), {std::nullopt, sym_tensor({i2}, kI64)})), "[s27, s78] / [s78, 1]");
  EXPECT_EQ(replacements_str(e2), "");
}

// ---------------------------------------------------------------- factory / conversion
TEST_F(SymRest, ArangeWithSymbolicBounds) {
  FakeTensorMode mode;
  SymInt a = s("s27", 4), b = s("s18", 6);
  EXPECT_EQ(meta_str(call("aten::arange.start", {SymInt(0), b})[0]), "[s18] / [1]");
  EXPECT_EQ(meta_str(call("aten::arange", {b})[0]), "[s18] / [1]");
  Tensor f = call("aten::arange", {b, DType::Float32})[0];
  EXPECT_EQ(meta_str(f), "[s18] / [1]");
  EXPECT_EQ(f.dtype(), DType::Float32);
  EXPECT_EQ(meta_str(call("aten::arange.start_step", {SymInt(0), b, SymInt(2)})[0]), "[((s18 + 1)//2)] / [1]");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(meta_str(call("aten::arange.start", {a, b})[0]), "[s18 - s27] / [1]");
  EXPECT_EQ(guards_str(env), "s18 >= s27");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymRest, FactoriesWithSymbolicSizes) {
  FakeTensorMode mode;
  SymInt a = s("s27", 4), b = s("s18", 6);
  Tensor x = sym_tensor({a, b});
  EXPECT_EQ(meta_str(zeros({a, b, 3})), "[s27, s18, 3] / [3*s18, 3, 1]");
  EXPECT_EQ(meta_str(new_full(x, {b, 2}, 1.5)), "[s18, 2] / [2, 1]");
  EXPECT_EQ(meta_str(ones_like(x.transpose(0, 1))), "[s18, s27] / [1, s18]");
  EXPECT_EQ(meta_str(scalar_tensor(2.5)), "[] / []");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymRest, ConversionsKeepSymbols) {
  SymInt a = s("s27", 4), b = s("s18", 6);
  Tensor x = sym_tensor({a, b});
  Tensor c = _to_copy(x.transpose(0, 1), {.dtype = DType::Float64});
  EXPECT_EQ(meta_str(c), "[s18, s27] / [1, s18]");
  EXPECT_EQ(c.dtype(), DType::Float64);
  EXPECT_EQ(meta_str(x.to(DType::Float16)), "[s27, s18] / [s18, 1]");
  EXPECT_EQ(sym_size(x, 1).str(), "s18");
  call("aten::_assert_tensor_metadata", {sym_tensor({a, 6}), std::vector<SymInt>{a, 6}, None{}, DType::Float32});
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(replacements_str(env), "");
}

// ---------------------------------------------------------------- conv / pool
/// A fake tensor with the given sizes and strides.
Tensor strided_tensor(std::vector<SymInt> sizes, std::vector<SymInt> strides) {
  Tensor t = sym_tensor(sizes);
  t.impl()->meta.strides = DimVector(IntSpan(strides));
  return t;
}

TEST_F(SymRest, Conv2dSymbolicBatch) {
  SymInt n = s("s27", 2);
  Tensor o = conv2d(sym_tensor({n, 3, 32, 32}), sym_tensor({8, 3, 3, 3}), sym_tensor({8}));
  EXPECT_EQ(meta_str(o), "[s27, 8, 30, 30] / [7200, 900, 30, 1]");
  // PyTorch's fake mode also records `s27 < 16` (cpu backend choice); torch.export drops it.
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymRest, Conv2dSymbolicSpatial) {
  SymInt n = s("s27", 2), h = s("s51", 32), w = s("s85", 30);
  Tensor o = conv2d(sym_tensor({n, 3, h, w}), sym_tensor({8, 3, 3, 3}), {}, {2}, {1});
  EXPECT_EQ(sym_str(o.sizes()), "[s27, 8, (((s51 - 1)//2)) + 1, (((s85 - 1)//2)) + 1]");
  EXPECT_EQ(sym_str(o.strides()),
            "[8*((((s51 - 1)//2)) + 1)*((((s85 - 1)//2)) + 1), ((((s51 - 1)//2)) + 1)*((((s85 - 1)//2)) + 1), "
            "(((s85 - 1)//2)) + 1, 1]");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymRest, Conv2dSymbolicChannelsSpecialize) {
  SymInt n = s("s27", 2), c = s("s18", 3);
  EXPECT_EQ(meta_str(conv2d(sym_tensor({n, c, 8, 8}), sym_tensor({4, 3, 3, 3}))), "[s27, 4, 6, 6] / [144, 36, 6, 1]");
  EXPECT_EQ(replacements_str(env), "s18 -> 3");
}

TEST_F(SymRest, Conv2dChannelsLastInputNoGuard) {
  SymInt n = s("s27", 2);
  Tensor x = strided_tensor({n, 3, 8, 8}, {192, 1, 24, 3});
  EXPECT_EQ(meta_str(conv2d(x, sym_tensor({4, 3, 3, 3}))), "[s27, 4, 6, 6] / [144, 1, 24, 4]");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymRest, Pooling) {
  SymInt n = s("s27", 2), h = s("s51", 8), w = s("s85", 9);
  // PyTorch's strides print Max(1, (s51//2)): the core's contiguous strides take symbolic sizes as >= 2.
  EXPECT_EQ(sym_str(max_pool2d(sym_tensor({n, 3, h, w}), {2}).sizes()), "[s27, 3, (s51//2), (s85//2)]");
  EXPECT_EQ(meta_str(avg_pool2d(sym_tensor({n, 3, 8, 8}), {2})), "[s27, 3, 4, 4] / [48, 16, 4, 1]");
  EXPECT_EQ(meta_str(adaptive_avg_pool2d(sym_tensor({n, 3, 8, 8}), {1, 1})), "[s27, 3, 1, 1] / [3, 1, 1, 1]");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymRest, EinsumDiagonalAndBatched) {
  SymInt a = s("s27", 4), b = s("s18", 4);
  EXPECT_EQ(meta_str(einsum("ii->i", {sym_tensor({a, b})})), "[s18] / [s18 + 1]");
  EXPECT_EQ(replacements_str(env), "s27 -> s18");
  sym::ShapeEnv e2;
  SymInt x0 = e2.named_symbol("s27", 4), x1 = e2.named_symbol("s18", 6), y0 = e2.named_symbol("s78", 4),
         y2 = e2.named_symbol("s96", 3);
  EXPECT_EQ(meta_str(einsum("bij,bjk->bik", {sym_tensor({x0, x1, 5}), sym_tensor({y0, 5, y2})})),
            "[s27, s18, s96] / [s18*s96, s96, 1]");
  EXPECT_EQ(replacements_str(e2), "s78 -> s27");
}

TEST_F(SymRest, SdpaThreeDimensionalUsesFusedKernel) {
  SymInt qb = s("s27", 2), ql = s("s18", 6), kb = s("s78", 2), kl = s("s71", 7), vb = s("s20", 2), vl = s("s21", 5);
  Tensor o = scaled_dot_product_attention(sym_tensor({qb, ql, 8}), sym_tensor({kb, kl, 8}), sym_tensor({vb, vl, 8}));
  EXPECT_EQ(meta_str(o), "[s20, s18, 8] / [8*s18, 8, 1]");
  EXPECT_EQ(guards_str(env), "Eq(s27, s78); Eq(s27, s20)");
  EXPECT_EQ(replacements_str(env), "s27 -> s20; s78 -> s20");
}

TEST_F(SymRest, SdpaThreeDimensionalStatic) {
  Tensor q = sym_tensor({6, 2, 8}).transpose(0, 1);
  EXPECT_EQ(meta_str(scaled_dot_product_attention(q, sym_tensor({2, 7, 8}), sym_tensor({2, 5, 8}))), "[2, 6, 8] / [8, 16, 1]");
  EXPECT_EQ(meta_str(scaled_dot_product_attention(q, sym_tensor({2, 7, 8}), sym_tensor({2, 7, 8}), sym_tensor({2, 6, 7}))),
            "[2, 6, 8] / [8, 16, 1]");
  EXPECT_EQ(meta_str(scaled_dot_product_attention(sym_tensor({2, 6, 8}), sym_tensor({1, 7, 8}), sym_tensor({1, 7, 8}))),
            "[2, 6, 8] / [48, 8, 1]");
}

TEST_F(SymRest, MatmulAndLinearOtherLayouts) {
  SymInt b = s("s27", 4), l = s("s51", 6), t = s("s18", 6);
  EXPECT_EQ(meta_str(matmul(sym_tensor({b, 16, l}).transpose(1, 2), sym_tensor({16, 8}))), "[s27, s51, 8] / [8*s51, 8, 1]");
  Tensor w = sym_tensor({48, 16}), bias = sym_tensor({48});
  EXPECT_EQ(meta_str(linear(sym_tensor({b, 3, l, 16}), w, bias)), "[s27, 3, s51, 48] / [144*s51, 48*s51, 48, 1]");
  EXPECT_EQ(meta_str(linear(sym_tensor({b, t, 16}).transpose(0, 1), w, bias)), "[s18, s27, 48] / [48*s27, 48, 1]");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(replacements_str(env), "");
}

// x.reshape(-1, 1) * y has a size-1 operand dim: goes through the symbolic iter_output_strides.
TEST_F(SymRest, OuterThroughSymbolicIterOutputStrides) {
  SymInt a = s("s27", 4), b = s("s78", 5);
  EXPECT_EQ(meta_str(outer(sym_tensor({a}), sym_tensor({b}))), "[s27, s78] / [s78, 1]");
  EXPECT_EQ(replacements_str(env), "");
}

TEST_F(SymRest, CopiesInAMemoryFormat) {
  SymInt n = s("s27", 4), h = s("s51", 6), w = s("s85", 5), b = s("s18", 6);
  auto to_format = [](const Tensor& x, MemoryFormat f) {
    return call("aten::to.dtype_layout", {x, None{}, None{}, None{}, None{}, false, false, f})[0];
  };
  EXPECT_EQ(meta_str(to_format(sym_tensor({n, 3, h, w}), MemoryFormat::ChannelsLast)),
            "[s27, 3, s51, s85] / [3*s51*s85, 1, 3*s85, 3]");
  Tensor c = call("aten::_to_copy", {sym_tensor({n, b}).transpose(0, 1), None{}, None{}, None{}, None{}, false,
                                     MemoryFormat::Contiguous})[0];
  EXPECT_EQ(meta_str(c), "[s18, s27] / [s27, 1]");
  EXPECT_EQ(guards_str(env), "");
  EXPECT_EQ(replacements_str(env), "");
}

}  // namespace
