// transformers.activations.ACT2FN: the one table of activation modules every family uses (HF
// registers them as children, so they show in nn_module_stack under their class names).
#pragma once
#include <memory>
#include <string>

#include "fakeexport/nn/layers.h"
#include "fakeexport/nn/zoo.h"

namespace fe::zoo {

/// ValueError "<origin>: field '<field>' = '<name>' is not supported" unless ACT2FN[name] is one we
/// implement (gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, quick_gelu, relu, silu, swish, tanh).
void check_activation(const std::string& name, const std::string& origin, const std::string& field);

/// HF's ACT2FN[name] as a module (type name = HF's class), same op sequence as its forward.
class HFActivation : public nn::UnaryModule {
 public:
  explicit HFActivation(const std::string& name);
  std::string type_name() const override { return type_; }
  Tensor forward(const Tensor& x) override;
  const std::string name;

 private:
  std::string type_;
};

/// ACT2FN[c[field]] (default `dflt`); ValueError naming the field for a name not in the table.
std::shared_ptr<HFActivation> activation_from_config(const Config& c, const std::string& field, const std::string& dflt);

}  // namespace fe::zoo
