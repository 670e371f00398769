// The MLP of the seed document (../shared/seeds/000_*): fc1 + GELU on one device, fc2 on another,
// and an explicit transfer to fc2's device in forward.
#pragma once
#include <memory>

#include "fakeexport/fakeexport.h"

namespace seed {

class MLP : public fe::nn::UnaryModule {
 public:
  MLP(int64_t in_features, int64_t hidden_features, int64_t out_features, fe::Device fc1_device = fe::kCPU,
      fe::Device fc2_device = fe::kCPU, bool transfer = true)
      : transfer_(transfer) {
    {
      fe::DeviceScope scope(fc1_device);
      fc1 = register_module("fc1", std::make_shared<fe::nn::Linear>(in_features, hidden_features));
      act = register_module("act", std::make_shared<fe::nn::GELU>());
    }
    fe::DeviceScope scope(fc2_device);
    fc2 = register_module("fc2", std::make_shared<fe::nn::Linear>(hidden_features, out_features));
  }
  std::string type_name() const override { return "__main__.MLP"; }
  std::vector<std::string> forward_arg_names() const override { return {"x"}; }

  fe::Tensor forward(const fe::Tensor& x) override {
    fe::Tensor h = (*act)((*fc1)(x));
    // Transfer to fc2's device (no-op when fc1 and fc2 share the same device).
    if (transfer_) h = h.to(fc2->weight.device());
    return (*fc2)(h);
  }

  std::shared_ptr<fe::nn::Linear> fc1, fc2;
  std::shared_ptr<fe::nn::GELU> act;

 private:
  bool transfer_;  // false reproduces the user error of forgetting the .to(...)
};

/// The seed's fake_export(): build the model and a fake input under FakeTensorMode, then export.
inline fe::ExportedProgram fake_export(fe::Device fc1_device, fe::Device fc2_device, bool transfer = true) {
  fe::FakeTensorMode mode;
  MLP model(128, 256, 10, fc1_device, fc2_device, transfer);
  model.eval();
  fe::Tensor example_input = fe::randn({4, 128}, {.device = fc1_device});
  return fe::export_program(model, {example_input});
}

}  // namespace seed
