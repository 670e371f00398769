// Export of a module using every foundation op, compared line for line with PyTorch 2.14's print
// (tests/fixtures/export_ops_cpu.txt from tools/oracle/scripts/export_ops.py); signature, verifier,
// lifted constants and the real-input path.
#include <gtest/gtest.h>

#include "test_util.h"

#include <fstream>
#include <regex>
#include <sstream>

#include "fakeexport/fakeexport.h"

namespace {
using fe_test::read_file;
using fe_test::lines_of;
using fe_test::blank_file_lines;
using namespace fe;

/// Mirrors class M of tools/oracle/scripts/export_ops.py, one op per source line as there.
class OpsModule : public nn::Module {
 public:
  OpsModule()
      : w(register_parameter("w", randn({3, 4}))),
        bb(register_buffer("bb", zeros({3}))),
        nb(register_buffer("nb", ones({3}), /*persistent=*/false)) {}
  std::string type_name() const override { return "__main__.M"; }
  std::vector<std::string> forward_arg_names() const override { return {"x", "y"}; }
  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& in) override {
    nn::ModuleCallScope scope(*this);
    const Tensor& x = in[0];
    const Tensor& y = in[1];
    Tensor a = x.to(DType::Float16);
    Tensor b = x.to(kCPU, DType::Float64);
    Tensor c = gelu(x, "tanh");
    Tensor z = zeros({3});
    Tensor o = ones_like(x);
    Tensor f = full({2}, 1.5);
    Tensor e = empty({2, 3});
    Tensor q = rand({2}, {.dtype = DType::Float64});
    Tensor s1 = add(x, y);
    Tensor s2 = mul(x, 2);
    Tensor s3 = add(x, y, 2);
    Tensor rl = relu(x);
    Tensor m = mm(x, w.t());
    Tensor am = addmm(bb, x, w.t(), 0.5, 2);
    Tensor k = add(am, nb);
    Tensor n = x.to(DType::Float32);
    Tensor zl = zeros_like(x, {.dtype = DType::Int64});
    Tensor dead = relu(y);
    return {a, b, c, z, o, f, e, q, s1, s2, s3, rl, m, k, n, zl};
  }
  Tensor& w;
  Tensor& bb;
  Tensor& nb;
};

TEST(Export, AllFoundationOpsPrintAsPyTorch) {
  OpsModule m;  // real module: export fakifies its state and inputs
  const int64_t before = tensor_data_bytes_allocated();
  ExportedProgram ep = export_program(m, {randn({2, 4}), randn({2, 4})});
  EXPECT_EQ(tensor_data_bytes_allocated() - before, 2 * 2 * 4 * 4) << "only the two example inputs are real";
  auto ours = lines_of(blank_file_lines(to_string(ep)));
  auto want = lines_of(blank_file_lines(read_file(std::string(FE_FIXTURES_DIR) + "/export_ops_cpu.txt")));
  ASSERT_EQ(ours.size(), want.size()) << to_string(ep);
  for (size_t i = 0; i < ours.size(); ++i) EXPECT_EQ(ours[i], want[i]) << "line " << i + 1;
}

TEST(Export, StateStaysRealAndSignatureIsTyped) {
  OpsModule m;
  ExportedProgram ep = export_program(m, {randn({2, 4}), randn({2, 4})});
  // The module's own tensors are back in place and real; the program's state_dict holds them.
  EXPECT_FALSE(m.w.is_fake());
  ASSERT_EQ(ep.state_dict.size(), 2u);
  EXPECT_EQ(ep.state_dict[0].first, "w");
  EXPECT_TRUE(ep.state_dict[0].second.is_same(m.w));
  EXPECT_EQ(ep.state_dict[1].first, "bb");
  ASSERT_EQ(ep.constants.size(), 1u);
  EXPECT_EQ(ep.constants[0].first, "nb");
  ASSERT_EQ(ep.signature.inputs.size(), 5u);
  EXPECT_EQ(ep.signature.inputs[1].kind, InputKind::Buffer);
  EXPECT_FALSE(ep.signature.inputs[2].persistent);
  EXPECT_EQ(ep.signature.outputs.size(), 16u);
  ASSERT_EQ(ep.module_call_graph.size(), 1u);
  EXPECT_EQ(ep.module_call_graph[0].inputs, (std::vector<std::string>{"x", "y"}));
  // nn_module_stack recorded for nodes created inside the root call.
  const Node* gelu_node = nullptr;
  for (const auto& n : ep.graph.nodes())
    if (n->name() == "gelu") gelu_node = n.get();
  ASSERT_NE(gelu_node, nullptr);
  ASSERT_TRUE(gelu_node->module_stack);
  ASSERT_EQ(gelu_node->module_stack->size(), 1u);
  EXPECT_EQ(gelu_node->module_stack->at(0).type_name, "__main__.M");
}

/// A module reading a tensor that is neither registered nor an input: PyTorch lifts it as a constant.
class UsesConstant : public nn::UnaryModule {
 public:
  Tensor k = ones({4});
  std::string type_name() const override { return "__main__.C"; }
  std::vector<std::string> forward_arg_names() const override { return {"x"}; }
  Tensor forward(const Tensor& x) override { return add(x, k); }
};

TEST(Export, UnregisteredTensorsAreLiftedConstants) {
  UsesConstant m;
  ExportedProgram ep = export_program(m, {randn({2, 4})});
  ASSERT_EQ(ep.signature.inputs.size(), 2u);
  EXPECT_EQ(ep.signature.inputs[0].kind, InputKind::ConstantTensor);
  EXPECT_EQ(ep.signature.inputs[0].name, "c_lifted_tensor_0");
  EXPECT_EQ(ep.signature.inputs[0].target, "lifted_tensor_0");
  EXPECT_EQ(ep.graph.placeholders()[0]->name(), "c_lifted_tensor_0");
  ASSERT_EQ(ep.constants.size(), 1u);
  EXPECT_TRUE(ep.constants[0].second.is_same(m.k));
}

TEST(Export, VerifierCatchesCorruptedMetadata) {
  UsesConstant m;
  ExportedProgram ep = export_program(m, {randn({2, 4})});
  EXPECT_NO_THROW(verify(ep));
  for (const auto& n : ep.graph.nodes())
    if (n->op() == NodeOp::CallFunction) n->val[0].sizes[0] = 3;  // a wrong recorded shape
  EXPECT_THROW(verify(ep), InternalError);
}

TEST(Export, VerifierCatchesSignatureMismatch) {
  UsesConstant m;
  ExportedProgram ep = export_program(m, {randn({2, 4})});
  ep.signature.inputs[1].name = "renamed";
  EXPECT_THROW(verify(ep), InternalError);
}

TEST(Export, PlaceholderNamesAvoidPythonBuiltins) {
  nn::Linear lin(4, 2);  // Linear.forward's parameter is `input`, a Python builtin
  ExportedProgram ep = export_program(lin, {randn({3, 4})});
  EXPECT_EQ(ep.graph.placeholders().back()->name(), "input_1");
  // The signature keeps the argument's name, as PyTorch prints `input: USER_INPUT` (the code binds
  // `input_1 = input`; tests/fixtures/dynamic/zero_one_linear.txt).
  EXPECT_EQ(ep.signature.inputs.back().name, "input");
  EXPECT_EQ(ep.graph.placeholders().back()->target_name(), "input");
}

TEST(Export, UserErrorsInsideForwardPropagate) {
  nn::Linear lin(4, 2);
  EXPECT_THROW(export_program(lin, {randn({3, 5})}), ShapeError);
}

}  // namespace
