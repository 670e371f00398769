// transformers 5.12's MoE experts (integrations/moe.py, `@use_experts_implementation`): the expert
// weights of one layer stored as 3-D tensors, run by the default "grouped_mm" implementation, as
// torch.export records it. Families (Mixtral, Qwen2/3-MoE, DeepSeek-V3) differ in their routers.
#pragma once
#include <memory>
#include <string>

#include "fakeexport/nn/module.h"

namespace fe::zoo::moe {

/// Sizes of one layer's experts.
struct ExpertsShape {
  int64_t hidden = 0, intermediate = 0, experts = 0;
  double init_std = 0.02;
  std::string act = "silu";  ///< ACT2FN name of the gate's activation
};

/// <Prefix>Experts: gate_up_proj [E, 2I, H] (gate rows first), down_proj [E, H, I].
class Experts : public nn::Module {
 public:
  Experts(std::string type, const ExpertsShape& s);
  std::string type_name() const override { return type_; }
  /// grouped_mm_experts_forward: tokens sorted by expert, one grouped matmul per projection
  /// (torch._grouped_mm for bfloat16 weights, else transformers::grouped_mm_fallback), weighted,
  /// restored to token order and summed over each token's top-k. x [tokens, hidden].
  Tensor operator()(const Tensor& x, const Tensor& top_k_index, const Tensor& top_k_weights);
  Tensor& gate_up_proj;
  Tensor& down_proj;
  std::shared_ptr<nn::UnaryModule> act_fn;

 private:
  std::string type_;
  ExpertsShape s_;
};

}  // namespace fe::zoo::moe
