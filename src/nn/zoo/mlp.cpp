// model_type "mlp": the seed's MLP (../shared/seeds/000_*): fc1 + GELU, an explicit transfer to
// fc2's device (emitted even when it is a no-op, as the seed's forward does), fc2.
#include "fakeexport/core/error.h"
#include "fakeexport/nn/layers.h"
#include "fakeexport/ops/api.h"
#include "nn/zoo/families.h"

namespace fe::zoo {
namespace {

class MLP : public Model {
 public:
  explicit MLP(const Config& c)
      : fc1(register_module("fc1", std::make_shared<nn::Linear>(c.get_int("in_features"), c.get_int("hidden_features")))),
        act(register_module("act", std::make_shared<nn::GELU>())),
        fc2(register_module("fc2", std::make_shared<nn::Linear>(c.get_int("hidden_features"), c.get_int("out_features")))) {}
  std::string type_name() const override { return "__main__.MLP"; }
  std::string model_type() const override { return "mlp"; }
  std::vector<std::string> forward_arg_names() const override { return {"x"}; }
  std::vector<Unit> units() const override { return {{"fc1", true}, {"fc2", true}}; }

  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& args) override {
    FE_CHECK(args.size() == 1, ValueError, "MLP.forward() takes 1 tensor argument but ", args.size(), " were given");
    nn::ModuleCallScope scope(*this);
    Tensor h = (*act)((*fc1)(args[0]));
    // Transfer to fc2's device (no-op when fc1 and fc2 share the same device).
    h = h.to(fc2->weight.device());
    return {(*fc2)(h)};
  }

  ExampleInputs example_inputs(const InputOptions& o) override {
    ExampleInputs in;
    in.args.push_back(randn({batch_or(o, 4), fc1->in_features}, {.device = fc1->weight.device()}));
    if (o.dynamic_batch) in.dynamic_shapes["x"] = {Dim("batch", o.batch_min, o.batch_max), Dim::STATIC};
    return in;
  }

  std::shared_ptr<nn::Linear> fc1;
  std::shared_ptr<nn::GELU> act;
  std::shared_ptr<nn::Linear> fc2;
};

}  // namespace

std::unique_ptr<Model> build_mlp(const Config& c) { return std::make_unique<MLP>(c); }

std::string_view default_config_mlp() {
  return R"({"model_type": "mlp", "in_features": 128, "hidden_features": 256, "out_features": 10})";
}

}  // namespace fe::zoo
