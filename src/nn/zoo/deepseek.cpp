// model_type "deepseek_v3": transformers 5.12's DeepseekV3ForCausalLM. The llama-style decoder
// (llama_parts: RMSNorm, rotary embedding over qk_rope_head_dim, decoder layer, base model, head) with
//  - multi-head latent attention (MLA): queries through a low-rank q_a_proj / q_a_layernorm / q_b_proj
//    (or one q_proj when q_lora_rank is null); keys and values from one compressed projection
//    kv_a_proj_with_mqa split into the latent (normed, then expanded per head by kv_b_proj) and one
//    rotary key shared by all heads; rotary on the rope part only, interleaved pairs by default;
//    softmax scale qk_head_dim ** -0.5, times mscale(factor, mscale_all_dim) ** 2 under yarn;
//  - from layer first_k_dense_replace on, DeepseekV3MoE: a sigmoid router with a score-correction
//    bias and group-limited top-k (n_group groups scored by their best two experts, topk_group kept),
//    weights renormalized (norm_topk_prob) and scaled by routed_scaling_factor, the experts run as
//    transformers' grouped_mm implementation (moe.h), plus n_shared_experts fused into one MLP.
#include <cmath>

#include "fakeexport/core/error.h"
#include "fakeexport/ops/api.h"
#include "nn/zoo/families.h"
#include "nn/zoo/llama_parts.h"
#include "nn/zoo/masking.h"
#include "nn/zoo/moe.h"

namespace fe::zoo {
namespace {

constexpr const char* kPrefix = "transformers.models.deepseek_v3.modeling_deepseek_v3.DeepseekV3";

std::vector<SymInt> shape_of(const Tensor& t) {
  std::vector<SymInt> out;
  for (int64_t d = 0; d < t.dim(); ++d) out.push_back(t.size(d));
  return out;
}

/// The MLA sizes of a DeepseekV3Config.
struct MlaShape {
  int64_t hidden = 0, heads = 0, kv_heads = 0;
  std::optional<int64_t> q_lora_rank;  ///< null: one q_proj
  int64_t kv_lora_rank = 0, qk_rope = 0, qk_nope = 0, v_head = 0;
  bool bias = false, interleave = true;
  double scaling = 1.0;
  int64_t qk_head() const { return qk_nope + qk_rope; }
};

/// DeepseekV3Attention (sdpa path).
class MlaAttention : public lm::AttentionBlock {
 public:
  MlaAttention(const lm::Naming& n, const MlaShape& s) : type_(n.cls("Attention")), s_(s) {
    using nn::Linear;
    if (!s.q_lora_rank) {
      q_proj = register_module("q_proj", std::make_shared<Linear>(s.hidden, s.heads * s.qk_head(), false));
    } else {
      q_a_proj = register_module("q_a_proj", std::make_shared<Linear>(s.hidden, *s.q_lora_rank, s.bias));
      // DeepseekV3RMSNorm(q_lora_rank): the class default eps, not rms_norm_eps.
      q_a_layernorm = register_module("q_a_layernorm", std::make_shared<lm::RMSNorm>(n, *s.q_lora_rank, 1e-6));
      q_b_proj = register_module("q_b_proj", std::make_shared<Linear>(*s.q_lora_rank, s.heads * s.qk_head(), false));
    }
    kv_a_proj_with_mqa =
        register_module("kv_a_proj_with_mqa", std::make_shared<Linear>(s.hidden, s.kv_lora_rank + s.qk_rope, s.bias));
    kv_a_layernorm = register_module("kv_a_layernorm", std::make_shared<lm::RMSNorm>(n, s.kv_lora_rank, 1e-6));
    kv_b_proj = register_module("kv_b_proj",
                                std::make_shared<Linear>(s.kv_lora_rank, s.heads * (s.qk_nope + s.v_head), false));
    o_proj = register_module("o_proj", std::make_shared<Linear>(s.heads * s.v_head, s.hidden, s.bias));
  }
  std::string type_name() const override { return type_; }
  /// transformers caches the decompressed keys (nope + rope dims) and values of every head.
  std::array<int64_t, 3> cache_dims() const override { return {s_.heads, s_.qk_head(), s_.v_head}; }

  Tensor operator()(const Tensor& h, const Tensor& cos, const Tensor& sin, const Tensor& mask) override {
    nn::ModuleCallScope scope(*this);
    const SymInt b = h.size(0), s = h.size(1);
    Tensor q = q_proj ? (*q_proj)(h) : (*q_b_proj)((*q_a_layernorm)((*q_a_proj)(h)));
    q = q.view({b, s, -1, s_.qk_head()}).transpose(1, 2);
    std::vector<Tensor> q_parts = q.split(std::vector<SymInt>{s_.qk_nope, s_.qk_rope}, -1);
    Tensor compressed_kv = (*kv_a_proj_with_mqa)(h);
    std::vector<Tensor> kv_parts = compressed_kv.split(std::vector<SymInt>{s_.kv_lora_rank, s_.qk_rope}, -1);
    Tensor k_pass = (*kv_b_proj)((*kv_a_layernorm)(kv_parts[0]));
    k_pass = k_pass.view({b, s, -1, s_.qk_nope + s_.v_head}).transpose(1, 2);
    std::vector<Tensor> kv = k_pass.split(std::vector<SymInt>{s_.qk_nope, s_.v_head}, -1);
    Tensor k_rot = kv_parts[1].view({b, 1, s, s_.qk_rope});
    auto [q_rot, k_rot_embed] = s_.interleave ? rotary_interleave(q_parts[1], k_rot, cos, sin)
                                              : rotary(q_parts[1], k_rot, cos, sin);
    std::vector<SymInt> expanded = shape_of(kv[0]);
    expanded.back() = -1;
    k_rot = k_rot_embed.expand(expanded);
    Tensor query = cat({q_parts[0], q_rot}, -1);
    Tensor key = cat({kv[0], k_rot}, -1);
    // sdpa_attention_forward under export: repeat_kv with the materialized mask.
    const int64_t groups = s_.heads / s_.kv_heads;
    key = lm::repeat_kv(key, groups);
    Tensor value = lm::repeat_kv(kv[1], groups);
    masks::is_causal_probe(query);
    Tensor o = scaled_dot_product_attention(query, key, value, mask, 0.0, false, s_.scaling);
    o = o.transpose(1, 2).contiguous();
    o = o.reshape({b, s, -1}).contiguous();
    return (*o_proj)(o);
  }

  std::shared_ptr<nn::Linear> q_proj, q_a_proj, q_b_proj, kv_a_proj_with_mqa, kv_b_proj, o_proj;
  std::shared_ptr<lm::RMSNorm> q_a_layernorm, kv_a_layernorm;

 private:
  // apply_rotary_pos_emb: x * cos + rotate_half(x) * sin, q then k.
  static std::pair<Tensor, Tensor> rotary(const Tensor& q, const Tensor& k, const Tensor& cos_in, const Tensor& sin_in) {
    Tensor cos = cos_in.unsqueeze(1), sin = sin_in.unsqueeze(1);
    Tensor qa = q * cos;
    Tensor qb = lm::rotate_half(q) * sin;
    Tensor q_embed = qa + qb;
    Tensor ka = k * cos;
    Tensor kb = lm::rotate_half(k) * sin;
    return {q_embed, ka + kb};
  }
  // apply_rotary_pos_emb_interleave: the first half of cos/sin rotates the (even, odd) pairs.
  static std::pair<Tensor, Tensor> rotary_interleave(const Tensor& q, const Tensor& k, const Tensor& cos_in,
                                                     const Tensor& sin_in) {
    const int64_t half = cos_in.size(-1).expect_int() / 2, last = q.dim() - 1;
    Tensor cos = cos_in.slice(cos_in.dim() - 1, 0, half).unsqueeze(1);
    Tensor sin = sin_in.slice(sin_in.dim() - 1, 0, half).unsqueeze(1);
    Tensor q1 = q.slice(last, 0, std::nullopt, 2), q2 = q.slice(last, 1, std::nullopt, 2);
    Tensor k1 = k.slice(last, 0, std::nullopt, 2), k2 = k.slice(last, 1, std::nullopt, 2);
    const auto rotate = [&](const Tensor& x1, const Tensor& x2) {
      Tensor a = x1 * cos;
      Tensor b = x2 * sin;
      Tensor first = a - b;
      Tensor c = x2 * cos;
      Tensor d = x1 * sin;
      Tensor second = c + d;
      return cat({first, second}, -1);
    };
    Tensor q_embed = rotate(q1, q2);
    return {q_embed, rotate(k1, k2)};
  }

  std::string type_;
  MlaShape s_;
};

/// The routing of DeepseekV3MoE.
struct Routing {
  int64_t experts = 0, top_k = 0, n_group = 1, topk_group = 1;
  bool norm_topk_prob = true;
  double routed_scaling_factor = 1.0;
};

/// DeepseekV3TopkRouter: weight [E, H] and the persistent buffer e_score_correction_bias [E]; returns
/// the float32 router logits of the flattened tokens.
class TopkRouter : public nn::Module {
 public:
  TopkRouter(const moe::ExpertsShape& s)
      : weight(register_parameter("weight", randn({s.experts, s.hidden}) * s.init_std)),
        e_score_correction_bias(register_buffer("e_score_correction_bias", zeros({s.experts}))),
        hidden_(s.hidden) {}
  std::string type_name() const override { return std::string(kPrefix) + "TopkRouter"; }
  Tensor operator()(const Tensor& x) {
    nn::ModuleCallScope scope(*this);
    Tensor h = x.view({-1, hidden_});
    Tensor h32 = h.to(DType::Float32);
    Tensor w32 = weight.to(DType::Float32);
    return linear(h32, w32);
  }
  Tensor& weight;
  Tensor& e_score_correction_bias;

 private:
  int64_t hidden_;
};

/// DeepseekV3MoE: experts, gate, shared_experts (registration order).
class DeepseekMoE : public nn::UnaryModule {
 public:
  DeepseekMoE(const lm::Arch& a, const moe::ExpertsShape& s, const Routing& r, int64_t shared_intermediate)
      : experts(register_module("experts", std::make_shared<moe::Experts>(std::string(kPrefix) + "NaiveMoe", s))),
        gate(register_module("gate", std::make_shared<TopkRouter>(s))),
        r_(r) {
    lm::Arch sized = a;
    sized.intermediate = shared_intermediate;
    shared_experts = register_module("shared_experts", std::make_shared<lm::MLP>(sized));
  }
  std::string type_name() const override { return std::string(kPrefix) + "MoE"; }

  Tensor forward(const Tensor& x) override {
    const std::vector<SymInt> orig_shape = shape_of(x);
    Tensor router_logits = (*gate)(x);
    auto [topk_indices, topk_weights] = route(router_logits);
    Tensor h = x.view({-1, x.size(-1)});
    h = (*experts)(h, topk_indices, topk_weights).view(orig_shape);
    Tensor shared = (*shared_experts)(x);
    return h + shared;
  }

  std::shared_ptr<moe::Experts> experts;
  std::shared_ptr<TopkRouter> gate;
  std::shared_ptr<lm::MLP> shared_experts;

 private:
  // route_tokens_to_experts: sigmoid scores, groups ranked by the sum of their best two (biased)
  // scores, experts outside the topk_group best groups masked to -inf, top_k of the rest; the
  // weights are the unbiased scores.
  std::pair<Tensor, Tensor> route(const Tensor& logits) {
    const int64_t per_group = r_.experts / r_.n_group;
    Tensor scores = logits.sigmoid();
    Tensor for_choice = scores + gate->e_score_correction_bias;
    Tensor group_scores = for_choice.view({-1, r_.n_group, per_group}).topk(2, -1).first.sum({-1});
    Tensor group_idx = group_scores.topk(r_.topk_group, -1, true, false).second;
    Tensor group_mask = zeros_like(group_scores);
    scatter_(group_mask, 1, group_idx, 1);
    Tensor score_mask = group_mask.unsqueeze(-1).expand({-1, r_.n_group, per_group}).reshape({-1, r_.experts});
    Tensor keep = score_mask.to(DType::Bool);
    Tensor masked = for_choice.masked_fill(~keep, -INFINITY);
    Tensor topk_indices = masked.topk(r_.top_k, -1, true, false).second;
    Tensor topk_weights = scores.gather(1, topk_indices);
    if (r_.norm_topk_prob) {
      Tensor denominator = topk_weights.sum({-1}, true) + 1e-20;
      topk_weights.div_(denominator);
    }
    topk_weights = topk_weights * r_.routed_scaling_factor;
    return {topk_indices, topk_weights};
  }

  Routing r_;
};

// 0.1 * mscale * ln(scale) + 1 for scale > 1 (modeling_deepseek_v3.yarn_get_mscale).
double yarn_get_mscale(double scale, double mscale) { return scale <= 1 ? 1.0 : 0.1 * mscale * std::log(scale) + 1.0; }

int64_t positive(const Config& c, const char* field, int64_t dflt) {
  const int64_t v = c.get_int(field, dflt);
  FE_CHECK(v > 0, ValueError, c.origin(), ": field '", field, "' value ", v, " must be positive");
  return v;
}

}  // namespace

std::unique_ptr<Model> build_deepseek_v3(const Config& c) {
  lm::Arch a;
  a.naming = {"deepseek_v3", kPrefix};
  lm::parse_dims(c, a);
  MlaShape m;
  m.hidden = a.hidden;
  m.heads = a.heads;
  m.kv_heads = a.kv_heads = lm::parse_kv_heads(c, a.heads, a.heads);
  if (!c.is_null("q_lora_rank")) m.q_lora_rank = positive(c, "q_lora_rank", 1536);
  m.kv_lora_rank = positive(c, "kv_lora_rank", 512);
  m.qk_rope = positive(c, "qk_rope_head_dim", 64);
  m.qk_nope = positive(c, "qk_nope_head_dim", 128);
  m.v_head = positive(c, "v_head_dim", 128);
  m.bias = c.get_bool("attention_bias", false);
  m.interleave = c.get_bool("rope_interleave", true);
  // DeepseekV3Config: head_dim is qk_rope_head_dim (the rotary embedding's size).
  a.head_dim = m.qk_rope;
  a.max_positions = c.get_int("max_position_embeddings", 4096);
  a.rms_eps = c.get_double("rms_norm_eps", 1e-6);
  a.tie_embeddings = c.get_bool("tie_word_embeddings", false);
  a.layer_sliding.assign(static_cast<size_t>(std::max<int64_t>(a.layers, 0)), false);
  a.rope = lm::parse_rope(c, 10000.0, a.max_positions);
  lm::check_arch(c, a);
  m.scaling = std::pow(static_cast<double>(m.qk_head()), -0.5);
  if (a.rope.type != "default" && a.rope.mscale_all_dim && *a.rope.mscale_all_dim != 0) {
    const double mscale = yarn_get_mscale(a.rope.factor, *a.rope.mscale_all_dim);
    m.scaling = m.scaling * mscale * mscale;
  }

  const moe::ExpertsShape s{a.hidden, positive(c, "moe_intermediate_size", 2048), c.get_int("n_routed_experts", 256),
                            c.get_double("initializer_range", 0.02), a.act};
  Routing r{.experts = s.experts, .top_k = c.get_int("num_experts_per_tok", 8)};
  moe::check_shape(c, s, {.top_k = r.top_k}, "n_routed_experts");
  FE_CHECK(!c.is_null("n_group") && !c.is_null("topk_group"), ValueError, c.origin(),
           ": fields 'n_group' and 'topk_group' must be set (group-limited routing)");
  r.n_group = positive(c, "n_group", 8);
  r.topk_group = positive(c, "topk_group", 4);
  FE_CHECK(s.experts % r.n_group == 0 && s.experts / r.n_group >= 2, ValueError, c.origin(), ": field 'n_group' value ",
           r.n_group, " must divide n_routed_experts (", s.experts, ") into groups of at least 2 experts");
  FE_CHECK(r.topk_group <= r.n_group, ValueError, c.origin(), ": field 'topk_group' value ", r.topk_group,
           " must be at most n_group (", r.n_group, ")");
  r.norm_topk_prob = c.get_bool("norm_topk_prob", true);
  r.routed_scaling_factor = c.get_double("routed_scaling_factor", 2.5);
  const int64_t shared = s.intermediate * positive(c, "n_shared_experts", 1);
  const int64_t first_dense = c.is_null("first_k_dense_replace") ? 0 : c.get_int("first_k_dense_replace", 3);

  return std::make_unique<moe::PerExpertCheckpointLM>(
      std::move(a),
      [=](const lm::Arch& arch, int64_t idx) -> std::shared_ptr<nn::UnaryModule> {
        if (idx < first_dense) return std::make_shared<lm::MLP>(arch);
        return std::make_shared<DeepseekMoE>(arch, s, r, shared);
      },
      [m](const lm::Arch& arch) -> std::shared_ptr<lm::AttentionBlock> {
        return std::make_shared<MlaAttention>(arch.naming, m);
      });
}

// DeepSeek-V3 at toy size: MLA with q rank 32 and kv rank 16, 8 routed experts in 4 groups (2 kept),
// top-2, one shared expert, the first of 4 layers dense, interleaved rope.
std::string_view default_config_deepseek_v3() {
  return R"({"model_type": "deepseek_v3", "vocab_size": 1024, "hidden_size": 64, "intermediate_size": 128,
  "moe_intermediate_size": 32, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 4,
  "n_shared_experts": 1, "n_routed_experts": 8, "num_experts_per_tok": 2, "n_group": 4, "topk_group": 2,
  "first_k_dense_replace": 1, "q_lora_rank": 32, "kv_lora_rank": 16, "qk_rope_head_dim": 8,
  "qk_nope_head_dim": 16, "v_head_dim": 16, "max_position_embeddings": 4096})";
}

}  // namespace fe::zoo
