// model_type "mixtral": the llama-style decoder (llama_parts) with HF 5.12's sparse MoE block:
// mlp.gate (MixtralTopKRouter: softmax in float32, top-k, renormalized in place) and mlp.experts
// (moe::Experts, transformers' grouped_mm experts implementation).
#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/ops/api.h"
#include "fakeexport/serde/safetensors.h"
#include "nn/zoo/families.h"
#include "nn/zoo/llama_parts.h"
#include "nn/zoo/moe.h"

namespace fe::zoo {
namespace {

constexpr const char* kPrefix = "transformers.models.mixtral.modeling_mixtral.Mixtral";

// Published Mixtral checkpoints (and transformers 5.12's save_pretrained) keep the per-expert
// layout: block_sparse_moe.experts.E.{w1,w3,w2}. HF's loader fuses them; so do we.
class MixtralForCausalLM : public lm::CausalLM {
 public:
  using lm::CausalLM::CausalLM;
  std::string checkpoint_key(std::string_view k) const override {
    const size_t at = k.find(".block_sparse_moe.");
    if (at == std::string_view::npos) return std::string(k);
    const std::string_view rest = k.substr(at + 18);
    if (rest.starts_with("experts.")) return "";  // consumed by checkpoint_tensor
    return std::string(k.substr(0, at)) + ".mlp." + std::string(rest);
  }
  Tensor checkpoint_tensor(std::string_view name, const SafetensorsFile& f) const override {
    const size_t at = name.find(".mlp.");
    if (at == std::string_view::npos) return Tensor();
    return moe::fused_experts_checkpoint(name, std::string(name.substr(0, at)) + ".block_sparse_moe.experts.", f,
                                         "w1", "w3", "w2");
  }
};

}  // namespace

std::unique_ptr<Model> build_mixtral(const Config& c) {
  lm::Arch a;
  a.naming = {"mixtral", kPrefix};
  lm::parse_dims(c, a);
  a.kv_heads = lm::parse_kv_heads(c, a.heads, 8);
  a.max_positions = c.get_int("max_position_embeddings", 4096 * 32);
  a.rms_eps = c.get_double("rms_norm_eps", 1e-5);
  a.tie_embeddings = c.get_bool("tie_word_embeddings", false);
  a.sliding_window = c.get_int("sliding_window", 0);
  FE_CHECK(a.sliding_window >= 0, ValueError, c.origin(), ": field 'sliding_window' value ", a.sliding_window,
           " must be positive");
  a.layer_sliding.assign(static_cast<size_t>(a.layers), a.sliding_window > 0);
  a.rope = lm::parse_rope(c, 1000000.0, a.max_positions);  // MixtralConfig.default_theta
  lm::check_arch(c, a);
  const moe::ExpertsShape s{a.hidden, a.intermediate, c.get_int("num_local_experts", 8),
                            c.get_double("initializer_range", 0.02), a.act};
  const moe::RouterOptions o{.top_k = c.get_int("num_experts_per_tok", 2)};
  moe::check_shape(c, s, o, "num_local_experts");
  // The router logits and aux loss are extra outputs we do not produce.
  FE_CHECK(!c.get_bool("output_router_logits", false), ValueError, c.origin(),
           ": field 'output_router_logits' value true is not supported (logits only)");
  return std::make_unique<MixtralForCausalLM>(std::move(a), [s, o](const lm::Arch&, int64_t) -> std::shared_ptr<nn::UnaryModule> {
    return std::make_shared<moe::SparseMoeBlock>(kPrefix, s, o, /*experts_first=*/false);
  });
}

// Mixtral at toy size: 4 experts, top-2, GQA 4/2.
std::string_view default_config_mixtral() {
  return R"({"model_type": "mixtral", "vocab_size": 1024, "hidden_size": 64, "intermediate_size": 128,
  "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "num_local_experts": 4,
  "num_experts_per_tok": 2, "max_position_embeddings": 4096})";
}

}  // namespace fe::zoo
