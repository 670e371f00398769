// Layers: Linear, GELU, ReLU and the containers Sequential and ModuleList.
#pragma once
#include <memory>
#include <string>

#include "fakeexport/nn/module.h"

namespace fe::nn {

/// y = x W^T + b. Parameters are created on the current DeviceScope device, fake under FakeTensorMode.
class Linear : public UnaryModule {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  std::string type_name() const override { return "torch.nn.modules.linear.Linear"; }
  Tensor forward(const Tensor& x) override;

  const int64_t in_features, out_features;
  Tensor& weight;
  Tensor& bias;  ///< undefined when constructed with bias=false
};

class GELU : public UnaryModule {
 public:
  explicit GELU(std::string approximate = "none");
  std::string type_name() const override { return "torch.nn.modules.activation.GELU"; }
  Tensor forward(const Tensor& x) override;
  const std::string approximate;
};

class ReLU : public UnaryModule {
 public:
  std::string type_name() const override { return "torch.nn.modules.activation.ReLU"; }
  Tensor forward(const Tensor& x) override;
};

/// Children named "0", "1", ...; forward chains them.
class Sequential : public UnaryModule {
 public:
  Sequential() = default;
  explicit Sequential(std::vector<std::shared_ptr<UnaryModule>> mods);
  std::string type_name() const override { return "torch.nn.modules.container.Sequential"; }
  void push_back(std::shared_ptr<UnaryModule> m);
  Tensor forward(const Tensor& x) override;
  size_t size() const { return mods_.size(); }
  UnaryModule& operator[](size_t i) { return *mods_.at(i); }

 private:
  std::vector<std::shared_ptr<UnaryModule>> mods_;
};

/// Holds modules named "0", "1", ...; has no forward of its own.
class ModuleList : public Module {
 public:
  std::string type_name() const override { return "torch.nn.modules.container.ModuleList"; }
  void push_back(std::shared_ptr<Module> m);
  size_t size() const { return mods_.size(); }
  Module& operator[](size_t i) { return *mods_.at(i); }
  template <class M>
  M& at(size_t i) { return dynamic_cast<M&>(*mods_.at(i)); }

 private:
  std::vector<std::shared_ptr<Module>> mods_;
};

}  // namespace fe::nn
