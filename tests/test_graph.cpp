// Graph IR: FX naming, automatic use-lists, replace_all_uses_with, lint, and the DCE pass.
#include <gtest/gtest.h>

#include "fakeexport/fakeexport.h"

namespace {
using namespace fe;

TensorMeta meta(std::initializer_list<SymInt> s) { return make_contiguous(std::vector<SymInt>(s), DType::Float32, kCPU); }

TEST(Graph, UniqueNamesFollowFX) {
  Graph g;
  EXPECT_EQ(g.unique_name("linear"), "linear");
  EXPECT_EQ(g.unique_name("linear"), "linear_1");
  EXPECT_EQ(g.unique_name("linear"), "linear_2");
  EXPECT_EQ(g.unique_name("input"), "input_1");  // Python builtin
  EXPECT_EQ(g.unique_name("sum"), "sum_1");
  EXPECT_EQ(g.unique_name("fc1.weight"), "fc1_weight");
  EXPECT_EQ(g.unique_name("a..b"), "a_b");
  EXPECT_EQ(g.unique_name("0abc"), "_0abc");
  EXPECT_EQ(g.unique_name("to_2"), "to_2");
  EXPECT_EQ(g.unique_name("to"), "to");
  EXPECT_EQ(g.unique_name("to"), "to_3");  // FX continues counting from the explicit to_2
  EXPECT_EQ(g.unique_name("_assert_tensor_metadata_default"), "_assert_tensor_metadata_default");
  EXPECT_EQ(g.unique_name("_assert_tensor_metadata_default"), "_assert_tensor_metadata_default_1");
}

struct Small {
  Graph g;
  Node *x, *y, *a, *b;
  Small() {
    x = g.placeholder("x", meta({2, 3}));
    y = g.placeholder("y", meta({2, 3}));
    a = g.call(op("aten::add.Tensor"), {x, y, SymInt(1)});
    a->val.push_back(meta({2, 3}));
    b = g.call(op("aten::relu"), {a});
    b->val.push_back(meta({2, 3}));
  }
};

TEST(Graph, UseListsAreMaintained) {
  Small s;
  EXPECT_EQ(s.x->users(), std::vector<Node*>{s.a});
  EXPECT_EQ(s.a->users(), std::vector<Node*>{s.b});
  EXPECT_EQ(s.a->inputs(), (std::vector<Node*>{s.x, s.y}));
  s.g.output({s.b});
  EXPECT_EQ(s.b->users().size(), 1u);
  EXPECT_NO_THROW(s.g.lint());
  // Post-condition of replace_all_uses_with: `from` has no users, `to` took them.
  s.g.replace_all_uses_with(s.a, s.x);
  EXPECT_TRUE(s.a->users().empty());
  EXPECT_EQ(std::get<Node*>(s.b->args()[0]), s.x);
  EXPECT_EQ(s.x->users(), (std::vector<Node*>{s.a, s.b}));
  EXPECT_NO_THROW(s.g.lint());
}

TEST(Graph, EraseRequiresNoUsers) {
  Small s;
  EXPECT_THROW(s.g.erase(s.a), InternalError);
  s.g.erase(s.b);
  EXPECT_TRUE(s.a->users().empty());
}

TEST(Graph, LintRejectsUseBeforeDefinition) {
  Graph g;
  Node* x = g.placeholder("x", meta({2}));
  Node* r = g.call(op("aten::relu"), {x});
  // Insert a node using `r` before `r` itself.
  g.call(op("aten::relu"), {r}, "early", r);
  g.output({r});
  EXPECT_THROW(g.lint(), InternalError);
}

// A node of another graph using ours: our node's use-list names a user outside this graph, and
// theirs uses a node it does not define. Both lints say so.
TEST(Graph, LintRejectsUsesAcrossGraphs) {
  Graph g, other;
  Node* x = g.placeholder("x", meta({2}));
  g.output({g.call(op("aten::relu"), {x})});
  EXPECT_NO_THROW(g.lint());
  Node* y = other.placeholder("y", meta({2}));
  other.output({other.call(op("aten::add.Tensor"), {y, x})});
  EXPECT_THROW(g.lint(), InternalError);
  EXPECT_THROW(other.lint(), InternalError);
}

TEST(Passes, DeadCodeEliminationRemovesDeadChainsKeepsSideEffects) {
  Graph g;
  Node* x = g.placeholder("x", meta({2}));
  Node* d1 = g.call(op("aten::relu"), {x});
  g.call(op("aten::relu"), {d1});  // dead chain: relu(relu(x))
  g.call(op("aten::_assert_tensor_metadata"), {x, None{}, None{}, DType::Float32, kCPU, Layout::Strided});
  Node* live = g.call(op("aten::gelu"), {x, std::string("none")});
  g.output({live});
  EXPECT_TRUE(DeadCodeElimination{}.run(g));
  std::vector<std::string> names;
  for (const auto& n : g.nodes()) names.push_back(n->name());
  EXPECT_EQ(names, (std::vector<std::string>{"x", "_assert_tensor_metadata_default", "gelu", "output"}));
  EXPECT_FALSE(DeadCodeElimination{}.run(g));
  EXPECT_NO_THROW(g.lint());
}

}  // namespace
