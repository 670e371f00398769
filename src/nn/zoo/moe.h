// transformers 5.12's MoE experts (integrations/moe.py, `@use_experts_implementation`): the expert
// weights of one layer stored as 3-D tensors, run by the default "grouped_mm" implementation, as
// torch.export records it. Families (Mixtral, Qwen2/3-MoE, DeepSeek-V3) differ in their routers.
#pragma once
#include <memory>
#include <string>

#include "fakeexport/nn/layers.h"
#include "fakeexport/nn/module.h"
#include "fakeexport/nn/zoo.h"
#include "fakeexport/serde/safetensors.h"
#include "nn/zoo/llama_parts.h"

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

/// How a family's router turns logits into top-k weights.
struct RouterOptions {
  int64_t top_k = 2;
  bool softmax_dtype = false;  ///< softmax(logits, dtype=float) (Qwen-MoE), else softmax(logits.float()) (Mixtral)
  bool norm_topk_prob = true;  ///< renormalize the top-k weights to sum 1 (in place)
  bool cast_back = false;      ///< the weights .to(router_logits.dtype) (Qwen-MoE)
};

/// <Prefix>TopKRouter: weight [E, H]; linear, softmax, top-k.
class TopKRouter : public nn::Module {
 public:
  TopKRouter(std::string type, const ExpertsShape& s, const RouterOptions& o);
  std::string type_name() const override { return type_; }
  /// (top-k weights, their expert indices) per token of x [tokens, hidden].
  std::pair<Tensor, Tensor> operator()(const Tensor& x);
  Tensor& weight;

 private:
  std::string type_;
  int64_t hidden_;
  RouterOptions o_;
};

/// <Prefix>SparseMoeBlock: gate (router) and experts over the flattened tokens of [B, S, H], plus
/// an optional shared expert (Qwen2-MoE) added with weight sigmoid(shared_expert_gate(x)).
class SparseMoeBlock : public nn::UnaryModule {
 public:
  /// `experts_first`: registration order (state-dict order), experts before gate (Qwen3-MoE).
  SparseMoeBlock(const std::string& prefix, const ExpertsShape& s, const RouterOptions& o, bool experts_first,
                 std::shared_ptr<nn::UnaryModule> shared_expert = nullptr);
  std::string type_name() const override { return type_; }
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<TopKRouter> gate;
  std::shared_ptr<Experts> experts;
  std::shared_ptr<nn::UnaryModule> shared_expert;  ///< null: none
  std::shared_ptr<nn::Linear> shared_expert_gate;

 private:
  std::string type_;
};

/// Checks the expert count (named `experts_field` in messages) and top-k against each other.
void check_shape(const Config& c, const ExpertsShape& s, const RouterOptions& o, const char* experts_field);

/// A fused experts tensor (`...mlp.experts.gate_up_proj` / `down_proj`) built from a checkpoint that
/// stores each expert's projections (as published checkpoints and save_pretrained do): the experts'
/// weights under `base` + "E." + name + ".weight", rows concatenated per expert (gate then up), then
/// stacked. Undefined when `name` is neither fused tensor or the file has no expert 0.
Tensor fused_experts_checkpoint(std::string_view name, const std::string& base, const SafetensorsFile& f,
                                const char* gate, const char* up, const char* down);

/// A causal LM whose published checkpoints (and save_pretrained) keep each expert's projections,
/// `...mlp.experts.E.{gate_proj,up_proj,down_proj}.weight` (Qwen2/3-MoE, DeepSeek-V3): HF's loader
/// fuses them into the experts' 3-D tensors, so do we.
class PerExpertCheckpointLM : public lm::CausalLM {
 public:
  using lm::CausalLM::CausalLM;
  std::string checkpoint_key(std::string_view k) const override;
  Tensor checkpoint_tensor(std::string_view name, const SafetensorsFile& f) const override;
};

}  // namespace fe::zoo::moe
