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

struct MoeShape {
  moe::ExpertsShape experts;
  int64_t top_k;
};

class TopKRouter : public nn::Module {
 public:
  explicit TopKRouter(const MoeShape& s)
      : weight(register_parameter("weight", randn({s.experts.experts, s.experts.hidden}) * s.experts.init_std)),
        s_(s) {}
  std::string type_name() const override { return std::string(kPrefix) + "TopKRouter"; }
  /// (top-k weights renormalized to sum 1, float32; their expert indices), per token.
  std::pair<Tensor, Tensor> operator()(const Tensor& x) {
    nn::ModuleCallScope scope(*this);
    Tensor h = x.reshape({-1, s_.experts.hidden});
    Tensor router_logits = linear(h, weight);
    Tensor probs = softmax(router_logits.to(DType::Float32), -1);
    auto [top_value, top_index] = topk(probs, s_.top_k, -1);
    Tensor total = top_value.sum({-1}, true);
    top_value.div_(total);
    return {top_value, top_index};
  }
  Tensor& weight;

 private:
  MoeShape s_;
};

class SparseMoeBlock : public nn::UnaryModule {
 public:
  explicit SparseMoeBlock(const MoeShape& s)
      : gate(register_module("gate", std::make_shared<TopKRouter>(s))),
        experts(register_module("experts", std::make_shared<moe::Experts>(std::string(kPrefix) + "Experts", s.experts))) {}
  std::string type_name() const override { return std::string(kPrefix) + "SparseMoeBlock"; }
  Tensor forward(const Tensor& x) override {
    const SymInt b = x.size(0), s = x.size(1), hidden = x.size(2);
    Tensor h = x.view({-1, x.size(-1)});
    auto [top_weights, top_index] = (*gate)(h);
    h = (*experts)(h, top_index, top_weights);
    return h.reshape({b, s, hidden});
  }
  std::shared_ptr<TopKRouter> gate;
  std::shared_ptr<moe::Experts> experts;
};

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
    // Real CPU tensors from the file, also while the caller builds fake models (the CLI).
    UnsetFakeTemporarily real;
    DeviceScope cpu(kCPU);
    auto fused = [&](std::string_view tail, std::initializer_list<const char*> ws) -> Tensor {
      if (!name.ends_with(tail) || name.find(".mlp.") == std::string_view::npos) return Tensor();
      const std::string base = std::string(name.substr(0, name.find(".mlp."))) + ".block_sparse_moe.experts.";
      std::vector<Tensor> per_expert;
      for (int e = 0; f.contains(base + std::to_string(e) + "." + *ws.begin() + ".weight"); ++e) {
        std::vector<Tensor> parts;
        for (const char* w : ws) parts.push_back(f.load(base + std::to_string(e) + "." + w + ".weight"));
        per_expert.push_back(parts.size() == 1 ? parts[0] : cat(parts, 0));
      }
      return per_expert.empty() ? Tensor() : stack(per_expert, 0);
    };
    if (Tensor t = fused(".experts.gate_up_proj", {"w1", "w3"}); t.defined()) return t;
    return fused(".experts.down_proj", {"w2"});
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
  MoeShape s{{a.hidden, a.intermediate, c.get_int("num_local_experts", 8), c.get_double("initializer_range", 0.02),
               c.get_string("hidden_act", "silu")},
             c.get_int("num_experts_per_tok", 2)};
  FE_CHECK(s.experts.experts > 0, ValueError, c.origin(), ": field 'num_local_experts' value ", s.experts.experts,
           " must be positive");
  FE_CHECK(s.top_k > 0 && s.top_k <= s.experts.experts, ValueError, c.origin(), ": field 'num_experts_per_tok' value ",
           s.top_k, " must be in [1, num_local_experts = ", s.experts.experts, "]");
  // The router logits and aux loss are extra outputs we do not produce.
  FE_CHECK(!c.get_bool("output_router_logits", false), ValueError, c.origin(),
           ": field 'output_router_logits' value true is not supported (logits only)");
  return std::make_unique<MixtralForCausalLM>(std::move(a), [s](const lm::Arch&) -> std::shared_ptr<nn::UnaryModule> {
    return std::make_shared<SparseMoeBlock>(s);
  });
}

// Mixtral at toy size: 4 experts, top-2, GQA 4/2.
std::string_view default_config_mixtral() {
  return R"({"model_type": "mixtral", "vocab_size": 1024, "hidden_size": 64, "intermediate_size": 128,
  "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "num_local_experts": 4,
  "num_experts_per_tok": 2, "max_position_embeddings": 4096})";
}

}  // namespace fe::zoo
