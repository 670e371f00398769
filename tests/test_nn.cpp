// nn::Module: registration, PyTorch's dotted names and order, persistence, placement, train/eval.
#include <gtest/gtest.h>

#include "fakeexport/fakeexport.h"

namespace {
using namespace fe;

class Block : public nn::UnaryModule {
 public:
  Block() {
    proj = register_module("proj", std::make_shared<nn::Linear>(4, 4));
    register_buffer("scale", ones({4}));
    register_buffer("cache", zeros({4}), /*persistent=*/false);
  }
  std::string type_name() const override { return "__main__.Block"; }
  Tensor forward(const Tensor& x) override { return (*proj)(x); }
  std::shared_ptr<nn::Linear> proj;
};

class Net : public nn::UnaryModule {
 public:
  Net() {
    layers = register_module("layers", std::make_shared<nn::ModuleList>());
    layers->push_back(std::make_shared<Block>());
    layers->push_back(std::make_shared<Block>());
    head = register_module("head", std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::UnaryModule>>{
                                       std::make_shared<nn::Linear>(4, 2, false), std::make_shared<nn::ReLU>()}));
  }
  std::string type_name() const override { return "__main__.Net"; }
  Tensor forward(const Tensor& x) override {
    Tensor h = x;
    for (size_t i = 0; i < layers->size(); ++i) h = layers->at<Block>(i)(h);
    return (*head)(h);
  }
  std::shared_ptr<nn::ModuleList> layers;
  std::shared_ptr<nn::Sequential> head;
};

TEST(NN, StateDictNamesAndOrderAsPyTorch) {
  FakeTensorMode mode;
  Net net;
  std::vector<std::string> keys;
  for (auto& [k, t] : net.state_dict()) keys.push_back(k);
  // PyTorch: per module pre-order, parameters then persistent buffers; "cache" is not persistent.
  EXPECT_EQ(keys, (std::vector<std::string>{"layers.0.scale", "layers.0.proj.weight", "layers.0.proj.bias",
                                            "layers.1.scale", "layers.1.proj.weight", "layers.1.proj.bias",
                                            "head.0.weight"}));
  std::vector<std::string> params;
  for (auto& [k, t] : net.named_parameters()) params.push_back(k);
  EXPECT_EQ(params, (std::vector<std::string>{"layers.0.proj.weight", "layers.0.proj.bias", "layers.1.proj.weight",
                                              "layers.1.proj.bias", "head.0.weight"}));
  EXPECT_EQ(net.named_buffers().size(), 4u);
  EXPECT_FALSE(net.is_persistent_buffer("layers.1.cache"));
  EXPECT_TRUE(net.is_persistent_buffer("layers.1.scale"));
  std::vector<std::string> mods;
  for (auto& [k, m] : net.named_modules()) mods.push_back(k);
  EXPECT_EQ(mods, (std::vector<std::string>{"", "layers", "layers.0", "layers.0.proj", "layers.1", "layers.1.proj",
                                            "head", "head.0", "head.1"}));
}

TEST(NN, LinearShapesAndParameterFlags) {
  FakeTensorMode mode;
  nn::Linear lin(128, 256);
  EXPECT_EQ(lin.weight.size(0), 256);
  EXPECT_EQ(lin.weight.size(1), 128);
  EXPECT_TRUE(lin.weight.is_parameter());
  EXPECT_TRUE(lin.weight.requires_grad());
  EXPECT_TRUE(is_fake(lin.bias));
  nn::Linear nobias(3, 2, false);
  EXPECT_FALSE(nobias.bias.defined());
  EXPECT_EQ(nobias.parameters().size(), 1u);
}

TEST(NN, DeviceScopePlacesParametersAndNests) {
  FakeTensorMode mode;
  DeviceScope outer(Device::parse("cuda:1"));
  nn::Linear a(2, 2);
  {
    DeviceScope inner(kCPU);
    nn::Linear b(2, 2);
    EXPECT_EQ(b.weight.device(), kCPU);
  }
  nn::Linear c(2, 2);
  EXPECT_EQ(a.weight.device().str(), "cuda:1");
  EXPECT_EQ(c.bias.device().str(), "cuda:1");
}

TEST(NN, DTypeScopeSetsParameterDtype) {
  FakeTensorMode mode;
  DTypeScope bf16(DType::BFloat16);
  nn::Linear lin(2, 2);
  EXPECT_EQ(lin.weight.dtype(), DType::BFloat16);
}

TEST(NN, DuplicateOrDottedNamesRejected) {
  class Bad : public nn::Module {
   public:
    std::string type_name() const override { return "Bad"; }
    void dup() {
      register_buffer("x", Tensor());
      register_parameter("x", Tensor());
    }
    void dotted() { register_buffer("a.b", Tensor()); }
  };
  Bad b;
  EXPECT_THROW(b.dup(), ValueError);
  EXPECT_THROW(b.dotted(), ValueError);
}

TEST(NN, TrainEvalRecursive) {
  FakeTensorMode mode;
  Net net;
  EXPECT_TRUE(net.head->is_training());
  net.eval();
  EXPECT_FALSE(net.head->is_training());
  EXPECT_FALSE(net.layers->at<Block>(1).proj->is_training());
  net.train();
  EXPECT_TRUE(net.layers->at<Block>(0).is_training());
}

TEST(NN, ExportNestedModulesRecordsModuleStack) {
  FakeTensorMode mode;
  Net net;
  ExportedProgram ep = export_program(net, {randn({3, 4})});
  std::vector<std::string> names;
  for (auto* p : ep.graph.placeholders()) names.push_back(p->name());
  EXPECT_EQ(names, (std::vector<std::string>{"p_layers_0_proj_weight", "p_layers_0_proj_bias",
                                             "p_layers_1_proj_weight", "p_layers_1_proj_bias", "p_head_0_weight",
                                             "b_layers_0_scale", "b_layers_0_cache", "b_layers_1_scale",
                                             "b_layers_1_cache", "input_1"}));
  const Node* relu_node = nullptr;
  for (const auto& n : ep.graph.nodes())
    if (n->name() == "relu") relu_node = n.get();
  ASSERT_NE(relu_node, nullptr);
  ASSERT_EQ(relu_node->module_stack->size(), 3u);
  EXPECT_EQ(relu_node->module_stack->at(1).path, "head");
  EXPECT_EQ(relu_node->module_stack->at(2).path, "head.1");
  EXPECT_EQ(relu_node->module_stack->at(2).type_name, "torch.nn.modules.activation.ReLU");
}

}  // namespace
