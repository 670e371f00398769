// model_types "qwen2_moe" and "qwen3_moe": Qwen2's / Qwen3's decoder (llama_parts) whose feed-forward
// block is transformers 5.12's sparse MoE (moe.h) on every layer that decoder_sparse_step selects and
// mlp_only_layers does not list, a dense <Prefix>MLP (intermediate_size) elsewhere. The router:
// softmax(logits, dtype=float), top-k, renormalized only with norm_topk_prob, cast back to the
// logits' dtype; experts use moe_intermediate_size. Qwen3-MoE registers the experts before the gate;
// Qwen2-MoE adds a shared expert (an MLP of shared_expert_intermediate_size, weighted by
// sigmoid(shared_expert_gate(x))) and builds both the full and the sliding mask.
#include <algorithm>

#include "fakeexport/core/error.h"
#include "nn/zoo/families.h"
#include "nn/zoo/llama_parts.h"
#include "nn/zoo/moe.h"

namespace fe::zoo {
namespace {

/// The HF defaults of one Qwen MoE model_type.
struct QwenMoeDefaults {
  int64_t moe_intermediate, experts, top_k;
  bool experts_first;
  int64_t shared_intermediate;  ///< 0: no shared expert
};

std::unique_ptr<Model> build_qwen_moe(const Config& c, const QwenMoeDefaults& d) {
  lm::Arch a = lm::llama_arch(c);
  // The configs map num_experts to num_local_experts; published configs write num_experts.
  const char* experts_field = c.has("num_experts") ? "num_experts" : "num_local_experts";
  const moe::ExpertsShape s{a.hidden, c.get_int("moe_intermediate_size", d.moe_intermediate),
                            c.get_int(experts_field, d.experts), c.get_double("initializer_range", 0.02), a.act};
  const moe::RouterOptions o{.top_k = c.get_int("num_experts_per_tok", d.top_k),
                             .softmax_dtype = true,
                             .norm_topk_prob = c.get_bool("norm_topk_prob", false),
                             .cast_back = true};
  const int64_t shared = d.shared_intermediate ? c.get_int("shared_expert_intermediate_size", d.shared_intermediate) : 0;
  FE_CHECK(!d.shared_intermediate || shared > 0, ValueError, c.origin(), ": field 'shared_expert_intermediate_size' value ",
           shared, " must be positive");
  moe::check_shape(c, s, o, experts_field);
  FE_CHECK(s.intermediate > 0, ValueError, c.origin(), ": field 'moe_intermediate_size' value ", s.intermediate,
           " must be positive");
  const int64_t step = c.get_int("decoder_sparse_step", 1);
  FE_CHECK(step > 0, ValueError, c.origin(), ": field 'decoder_sparse_step' value ", step, " must be positive");
  const std::vector<int64_t> dense_layers = c.get_int_list("mlp_only_layers");
  FE_CHECK(!c.get_bool("output_router_logits", false), ValueError, c.origin(),
           ": field 'output_router_logits' value true is not supported (logits only)");
  const std::string prefix = a.naming.prefix;
  return std::make_unique<moe::PerExpertCheckpointLM>(
      std::move(a), [=](const lm::Arch& arch, int64_t idx) -> std::shared_ptr<nn::UnaryModule> {
        const bool dense = std::find(dense_layers.begin(), dense_layers.end(), idx) != dense_layers.end();
        if (dense || (idx + 1) % step != 0) return std::make_shared<lm::MLP>(arch);
        std::shared_ptr<nn::UnaryModule> shared_expert;
        if (shared) {
          lm::Arch sized = arch;
          sized.intermediate = shared;
          shared_expert = std::make_shared<lm::MLP>(sized);
        }
        return std::make_shared<moe::SparseMoeBlock>(prefix, s, o, d.experts_first, std::move(shared_expert));
      });
}

}  // namespace

std::unique_ptr<Model> build_qwen2_moe(const Config& c) {
  return build_qwen_moe(c, {.moe_intermediate = 1408, .experts = 60, .top_k = 4, .experts_first = false,
                            .shared_intermediate = 5632});
}

std::unique_ptr<Model> build_qwen3_moe(const Config& c) {
  return build_qwen_moe(c, {.moe_intermediate = 768, .experts = 128, .top_k = 8, .experts_first = true,
                            .shared_intermediate = 0});
}

// Qwen2-MoE at toy size: 4 experts top-2 and a shared expert, MHA 4 heads with q/k/v bias.
std::string_view default_config_qwen2_moe() {
  return R"({"model_type": "qwen2_moe", "vocab_size": 1024, "hidden_size": 64, "intermediate_size": 192,
  "moe_intermediate_size": 64, "shared_expert_intermediate_size": 128, "num_hidden_layers": 4,
  "num_attention_heads": 4, "num_key_value_heads": 4, "num_experts": 4, "num_experts_per_tok": 2,
  "max_position_embeddings": 4096, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0})";
}

// Qwen3-MoE at toy size: 4 experts top-2, GQA 4/2, head_dim 32, the last layer dense.
std::string_view default_config_qwen3_moe() {
  return R"({"model_type": "qwen3_moe", "vocab_size": 1024, "hidden_size": 64, "intermediate_size": 192,
  "moe_intermediate_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
  "head_dim": 32, "num_experts": 4, "num_experts_per_tok": 2, "norm_topk_prob": true, "mlp_only_layers": [3],
  "max_position_embeddings": 4096, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0})";
}

}  // namespace fe::zoo
