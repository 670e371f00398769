// model_type "qwen3_moe": Qwen3's decoder (llama_parts: q/k norms, head_dim) whose feed-forward
// block is transformers 5.12's sparse MoE (moe.h) on every layer that decoder_sparse_step selects and
// mlp_only_layers does not list, a dense Qwen3MoeMLP (intermediate_size) elsewhere. The router:
// softmax(logits, dtype=float), top-k, renormalized only with norm_topk_prob, cast back to the
// logits' dtype; experts use moe_intermediate_size and are registered before the gate.
#include <algorithm>

#include "fakeexport/core/error.h"
#include "nn/zoo/families.h"
#include "nn/zoo/llama_parts.h"
#include "nn/zoo/moe.h"

namespace fe::zoo {
namespace {

// Published checkpoints (and save_pretrained) keep each expert's projections:
// mlp.experts.E.{gate_proj,up_proj,down_proj}.weight; HF's loader fuses them, so do we.
class QwenMoeForCausalLM : public lm::CausalLM {
 public:
  using lm::CausalLM::CausalLM;
  std::string checkpoint_key(std::string_view k) const override {
    const size_t at = k.find(".mlp.experts.");
    if (at != std::string_view::npos && k.size() > at + 13 && std::isdigit(static_cast<unsigned char>(k[at + 13])))
      return "";  // consumed by checkpoint_tensor
    return std::string(k);
  }
  Tensor checkpoint_tensor(std::string_view name, const SafetensorsFile& f) const override {
    const size_t at = name.find(".mlp.");
    if (at == std::string_view::npos) return Tensor();
    return moe::fused_experts_checkpoint(name, std::string(name.substr(0, at)) + ".mlp.experts.", f, "gate_proj",
                                         "up_proj", "down_proj");
  }
};

}  // namespace

std::unique_ptr<Model> build_qwen3_moe(const Config& c) {
  lm::Arch a = lm::llama_arch(c);
  // Qwen3MoeConfig maps num_experts to num_local_experts; published configs write num_experts.
  const char* experts_field = c.has("num_experts") ? "num_experts" : "num_local_experts";
  const moe::ExpertsShape s{a.hidden, c.get_int("moe_intermediate_size", 768), c.get_int(experts_field, 128),
                            c.get_double("initializer_range", 0.02), a.act};
  const moe::RouterOptions o{.top_k = c.get_int("num_experts_per_tok", 8),
                             .softmax_dtype = true,
                             .norm_topk_prob = c.get_bool("norm_topk_prob", false),
                             .cast_back = true};
  moe::check_shape(c, s, o, experts_field);
  FE_CHECK(s.intermediate > 0, ValueError, c.origin(), ": field 'moe_intermediate_size' value ", s.intermediate,
           " must be positive");
  const int64_t step = c.get_int("decoder_sparse_step", 1);
  FE_CHECK(step > 0, ValueError, c.origin(), ": field 'decoder_sparse_step' value ", step, " must be positive");
  const std::vector<int64_t> dense_layers = c.get_int_list("mlp_only_layers");
  FE_CHECK(!c.get_bool("output_router_logits", false), ValueError, c.origin(),
           ": field 'output_router_logits' value true is not supported (logits only)");
  const std::string prefix = a.naming.prefix;
  return std::make_unique<QwenMoeForCausalLM>(
      std::move(a), [=](const lm::Arch& arch, int64_t idx) -> std::shared_ptr<nn::UnaryModule> {
        const bool dense = std::find(dense_layers.begin(), dense_layers.end(), idx) != dense_layers.end();
        if (!dense && (idx + 1) % step == 0) return std::make_shared<moe::SparseMoeBlock>(prefix, s, o, true);
        return std::make_shared<lm::MLP>(arch);
      });
}

// Qwen3-MoE at toy size: 4 experts top-2, GQA 4/2, head_dim 32, the last layer dense.
std::string_view default_config_qwen3_moe() {
  return R"({"model_type": "qwen3_moe", "vocab_size": 1024, "hidden_size": 64, "intermediate_size": 192,
  "moe_intermediate_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
  "head_dim": 32, "num_experts": 4, "num_experts_per_tok": 2, "norm_topk_prob": true, "mlp_only_layers": [3],
  "max_position_embeddings": 4096, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0})";
}

}  // namespace fe::zoo
