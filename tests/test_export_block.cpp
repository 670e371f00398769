// Export of an attention block that touches one op of almost every family, compared line for line
// with PyTorch 2.14's print (tests/fixtures/export_block_cpu.txt from
// tools/oracle/scripts/export_block.py): multi-output ops as getitem nodes, an in-place add_ that
// becomes the producer of its tensor, views, sdpa, reductions, cat. Also: C++ operators record the
// caller's source line.
#include <gtest/gtest.h>

#include "test_util.h"

#include <cmath>
#include <limits>

#include "fakeexport/fakeexport.h"
#include "fakeexport/ops/dispatch.h"

namespace {
using fe_test::blank_file_lines;
using fe_test::lines_of;
using fe_test::read_file;
using namespace fe;

/// Mirrors class Block of tools/oracle/scripts/export_block.py, statement for statement.
class Block : public nn::Module {
 public:
  Block()
      : wte(register_parameter("wte", randn({50, 8}))),
        ln_w(register_parameter("ln_w", ones({8}))),
        ln_b(register_parameter("ln_b", zeros({8}))),
        qkv_w(register_parameter("qkv_w", randn({24, 8}))),
        qkv_b(register_parameter("qkv_b", zeros({24}))),
        mask(register_buffer("mask", tril(ones({4, 4})))) {}
  std::string type_name() const override { return "__main__.Block"; }
  std::vector<std::string> forward_arg_names() const override { return {"idx"}; }
  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& in) override {
    nn::ModuleCallScope scope(*this);
    const Tensor& idx = in[0];
    Tensor h = embedding(idx, wte);
    Tensor x = layer_norm(h, {8}, ln_w, ln_b, 1e-5);
    Tensor qkv = linear(x, qkv_w, qkv_b);
    auto qkv_parts = qkv.split(8, 2);
    Tensor q = qkv_parts[0].view({2, 4, 2, 4}).transpose(1, 2);
    Tensor k = qkv_parts[1].view({2, 4, 2, 4}).transpose(1, 2);
    Tensor v = qkv_parts[2].view({2, 4, 2, 4}).transpose(1, 2);
    Tensor att = matmul(q, k.transpose(-2, -1)) * 0.5;
    att = att.masked_fill(mask == 0, -std::numeric_limits<double>::infinity());
    att = softmax(att, -1);
    Tensor y = matmul(att, v);
    Tensor y2 = scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true);
    y = (y + y2).transpose(1, 2).contiguous().view({2, 4, 8});
    y.add_(h);
    auto [m, i] = y.max(-1);
    Tensor r = rsqrt(y.pow(2).mean({-1}, true) + 1e-6);
    Tensor out = cat({y * r, silu(y)}, -1);
    return {out, m, i};
  }
  Tensor& wte;
  Tensor& ln_w;
  Tensor& ln_b;
  Tensor& qkv_w;
  Tensor& qkv_b;
  Tensor& mask;
};

TEST(ExportBlock, PrintsLikePyTorch) {
  FakeTensorMode mode;
  Block block;
  ExportedProgram ep = export_program(block, {zeros({2, 4}, {.dtype = DType::Int64})});
  auto ours = lines_of(blank_file_lines(to_string(ep, {.read_source = false})));
  auto want = lines_of(blank_file_lines(read_file(std::string(FE_FIXTURES_DIR) + "/export_block_cpu.txt")));
  ASSERT_EQ(ours.size(), want.size()) << to_string(ep);
  for (size_t n = 0; n < ours.size(); ++n) EXPECT_EQ(ours[n], want[n]) << "line " << n + 1;
}

TEST(ExportBlock, GetItemNodesAndInPlaceProducer) {
  FakeTensorMode mode;
  Block block;
  ExportedProgram ep = export_program(block, {zeros({2, 4}, {.dtype = DType::Int64})});
  const Node* split = nullptr;
  const Node* add_ = nullptr;
  for (const auto& n : ep.graph.nodes()) {
    if (n->name() == "split") split = n.get();
    if (n->name() == "add_") add_ = n.get();
  }
  ASSERT_NE(split, nullptr);
  EXPECT_TRUE(split->multi_output());
  ASSERT_EQ(split->users().size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(split->users()[k]->op(), NodeOp::GetItem);
    EXPECT_EQ(split->users()[k]->index(), static_cast<int64_t>(k));
  }
  // After y.add_(h), every later use of y reads the add_ node: max, pow, mul, silu.
  ASSERT_NE(add_, nullptr);
  std::vector<std::string> users;
  for (const Node* u : add_->users()) users.push_back(u->name());
  EXPECT_EQ(users, (std::vector<std::string>{"max_1", "pow_1", "mul_1", "silu"}));
  // DCE removes an unused getitem (and keeps the in-place op, which has an effect).
  EXPECT_NO_THROW(verify(ep));
}

/// Records the source line of every dispatched op.
struct LineSink : TraceSink {
  std::vector<std::pair<std::string, unsigned>> calls;
  void record(const OpDef& op, std::span<const IValue>, std::span<const Tensor>, const SrcLocArg& loc) override {
    calls.emplace_back(op.qualified, loc.line());
  }
};

TEST(ExportBlock, OperatorsRecordTheCallersLine) {
  FakeTensorMode mode;
  Tensor a = zeros({2, 3});
  Tensor b = zeros({2, 3});
  LineSink sink;
  {
    TraceScope scope(&sink);
    Tensor c = a + b;  const unsigned line_add = __LINE__;
    Tensor d = 2 - a;  const unsigned line_rsub = __LINE__;
    Tensor e = -a;     const unsigned line_neg = __LINE__;
    Tensor f = a > 0;  const unsigned line_gt = __LINE__;
    ASSERT_EQ(sink.calls.size(), 4u);
    EXPECT_EQ(sink.calls[0], std::make_pair(std::string("aten::add.Tensor"), line_add));
    EXPECT_EQ(sink.calls[1], std::make_pair(std::string("aten::rsub.Scalar"), line_rsub));
    EXPECT_EQ(sink.calls[2], std::make_pair(std::string("aten::neg.default"), line_neg));
    EXPECT_EQ(sink.calls[3], std::make_pair(std::string("aten::gt.Scalar"), line_gt));
  }
}

}  // namespace
