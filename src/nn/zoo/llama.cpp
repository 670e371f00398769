// model_type "llama", "mistral", "qwen2", "qwen3": one implementation (llama_parts) for the HF
// decoders, which differ only in config defaults, biases, q/k norms and the sliding-window mask:
//  - llama:   attention_bias (q/k/v/o), mlp_bias, head_dim, rope_scaling (linear, llama3); no window.
//  - mistral: no biases, sliding_window (default 4096; null disables it) on every layer.
//  - qwen2:   q/k/v bias (o_proj none); sliding_window only with use_sliding_window, on the layers
//             layer_types marks "sliding_attention" (default: index >= max_window_layers).
//  - qwen3:   qwen2's windows; attention_bias (default none), head_dim (default 128), RMSNorm on
//             each head's queries and keys (q_norm, k_norm).
//  - qwen3_moe: qwen3's attention (head_dim default hidden / heads), one window for all layers; its
//             MoE feed-forward blocks are built in qwen_moe.cpp.
//  - phi3:    one qkv_proj (o_proj first) and gate_up_proj, rotary over x[..., :rotary_dim] with
//             partial_rotary_factor, eval-mode resid dropouts recorded, sliding_window on all layers.
//  - gemma2:  gemma's, plus post-attention / pre- and post-feedforward norms around each block,
//             query_pre_attn_scalar, windows on the even layers (both masks built), final logits
//             soft-capped (attn_logit_softcapping is not applied by transformers' sdpa path).
//  - gemma3_text: gemma2's norms and masks, q/k norms after the transpose, a rotary pair per layer
//             type (local and global bases, linear scaling on the global one), layer_types from
//             sliding_window_pattern, logits soft-capped only when the field is set.
//  - gemma:   head_dim 256, gelu_pytorch_tanh, tied, embeddings scaled by sqrt(hidden) from a
//             buffer, RMSNorm with (1 + weight) in float32; no window.
#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "fakeexport/core/error.h"
#include "nn/zoo/families.h"
#include "nn/zoo/llama_parts.h"

namespace fe::zoo {
namespace {

lm::Naming naming_for(const std::string& mt) {
  if (mt == "mistral") return {mt, "transformers.models.mistral.modeling_mistral.Mistral"};
  if (mt == "qwen2") return {mt, "transformers.models.qwen2.modeling_qwen2.Qwen2"};
  if (mt == "qwen3") return {mt, "transformers.models.qwen3.modeling_qwen3.Qwen3"};
  if (mt == "gemma") return {mt, "transformers.models.gemma.modeling_gemma.Gemma"};
  if (mt == "gemma2") return {mt, "transformers.models.gemma2.modeling_gemma2.Gemma2"};
  if (mt == "gemma3_text") return {mt, "transformers.models.gemma3.modeling_gemma3.Gemma3"};
  if (mt == "phi3") return {mt, "transformers.models.phi3.modeling_phi3.Phi3"};
  if (mt == "qwen2_moe") return {mt, "transformers.models.qwen2_moe.modeling_qwen2_moe.Qwen2Moe"};
  if (mt == "qwen3_moe") return {mt, "transformers.models.qwen3_moe.modeling_qwen3_moe.Qwen3Moe"};
  return {mt, "transformers.models.llama.modeling_llama.Llama"};
}

// Qwen2's layer_types: the explicit list, else HF's default from max_window_layers (Qwen2: the layers
// from it on; Qwen2-MoE: the even layers below it; Gemma 2: the even layers).
std::vector<bool> qwen2_layer_sliding(const Config& c, int64_t layers, bool window, bool alternate) {
  std::vector<bool> out(static_cast<size_t>(layers), false);
  if (c.is_null("layer_types") && c.model_type() == "gemma3_text") {
    // Gemma3TextConfig: every sliding_window_pattern-th layer is global, the others slide.
    const int64_t pattern = c.get_int("sliding_window_pattern", 6);
    FE_CHECK(pattern > 0, ValueError, c.origin(), ": field 'sliding_window_pattern' value ", pattern,
             " must be positive");
    for (int64_t i = 0; i < layers; ++i) out[i] = (i + 1) % pattern != 0;
    FE_CHECK(window || std::find(out.begin(), out.end(), true) == out.end(), ValueError, c.origin(),
             ": the layers sliding_window_pattern marks as sliding need a sliding_window (it is null)");
    return out;
  }
  if (c.is_null("layer_types")) {
    const int64_t max_window_layers = c.get_int("max_window_layers", 28);
    for (int64_t i = 0; i < layers; ++i)
      out[i] = window && (alternate ? (i + 1) % 2 == 1 && (c.model_type() == "gemma2" || i < max_window_layers)
                                    : i >= max_window_layers);
    return out;
  }
  const nlohmann::json j = nlohmann::json::parse(c.dump()).at("layer_types");
  FE_CHECK(j.is_array() && static_cast<int64_t>(j.size()) == layers, ValueError, c.origin(),
           ": field 'layer_types' must list one type per layer (", layers, ")");
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string t = j[i].is_string() ? j[i].get<std::string>() : j[i].dump();
    FE_CHECK(t == "full_attention" || t == "sliding_attention", ValueError, c.origin(), ": field 'layer_types' value '",
             t, "' is not supported (supported: full_attention, sliding_attention)");
    FE_CHECK(t != "sliding_attention" || window, ValueError, c.origin(),
             ": field 'layer_types' marks a sliding_attention layer but there is no sliding_window "
             "(use_sliding_window false or sliding_window null)");
    out[i] = t == "sliding_attention";
  }
  return out;
}

// Gemma3TextConfig.convert_rope_params_to_dict: one RoPE per layer type, the global layers' from
// rope_parameters.full_attention (or the legacy rope_scaling, theta rope_theta, default 1e6), the
// sliding layers' from rope_parameters.sliding_attention (theta rope_local_base_freq, default 1e4).
// Only the types some layer has get buffers, in the order of Python's set of the layer types, which
// follows the process's string hash seed: here that of PYTHONHASHSEED=0, full before sliding.
std::vector<std::pair<std::string, lm::Rope>> gemma3_ropes(const Config& c, const std::vector<bool>& sliding,
                                                           int64_t max_positions) {
  std::vector<std::pair<std::string, lm::Rope>> out;
  const auto one = [&](const char* type, const char* theta_key, double theta_default) {
    lm::Rope base;
    base.theta = c.get_double(theta_key, theta_default);
    const bool nested = !c.is_null("rope_parameters") && !c.sub("rope_parameters").is_null(type);
    if (nested) {
      const std::string key = std::string("rope_parameters.") + type;
      return lm::parse_rope_dict(c, c.sub("rope_parameters").sub(type), key, base, max_positions);
    }
    if (std::string_view(type) == "full_attention" && !c.is_null("rope_scaling") && c.size_of("rope_scaling", 0) > 0)
      return lm::parse_rope_dict(c, c.sub("rope_scaling"), "rope_scaling", base, max_positions);
    return base;
  };
  if (std::find(sliding.begin(), sliding.end(), false) != sliding.end())
    out.emplace_back("full_attention", one("full_attention", "rope_theta", 1'000'000.0));
  if (std::find(sliding.begin(), sliding.end(), true) != sliding.end())
    out.emplace_back("sliding_attention", one("sliding_attention", "rope_local_base_freq", 10'000.0));
  return out;
}

}  // namespace

lm::Arch lm::llama_arch(const Config& c) {
  const std::string mt = c.model_type();
  lm::Arch a;
  a.naming = naming_for(mt);
  lm::parse_dims(c, a);
  a.rms_eps = c.get_double("rms_norm_eps", 1e-6);
  a.tie_embeddings = c.get_bool("tie_word_embeddings", false);
  int64_t window = 0;
  if (mt == "llama") {
    // LlamaConfig.validate_architecture.
    FE_CHECK(a.hidden % a.heads == 0, ValueError, c.origin(), ": field 'hidden_size' value ", a.hidden,
             " is not a multiple of num_attention_heads (", a.heads, ")");
    a.kv_heads = lm::parse_kv_heads(c, a.heads, a.heads);
    a.max_positions = c.get_int("max_position_embeddings", 2048);
    a.qkv_bias = a.o_bias = c.get_bool("attention_bias", false);
    a.mlp_bias = c.get_bool("mlp_bias", false);
  } else if (mt == "gemma" || mt == "gemma2" || mt == "gemma3_text") {
    a.kv_heads = lm::parse_kv_heads(c, a.heads, mt == "gemma" ? 16 : 4);
    a.max_positions = c.get_int("max_position_embeddings", mt == "gemma3_text" ? 131072 : 8192);
    a.head_dim = c.has("head_dim") && !c.is_null("head_dim") ? c.get_int("head_dim") : 256;
    a.qkv_bias = a.o_bias = c.get_bool("attention_bias", false);
    a.tie_embeddings = c.get_bool("tie_word_embeddings", true);
    if (!c.has("pad_token_id")) a.pad_token_id = 0;
    a.gemma_norm = true;
    a.embed_scale = std::sqrt(static_cast<double>(a.hidden));
    if (mt == "gemma2" || mt == "gemma3_text") {
      a.sandwich_norms = true;
      a.both_masks = true;  // Gemma2Model / Gemma3TextModel build the full and the sliding mask
      a.attn_scaling = std::pow(c.get_double("query_pre_attn_scalar", 256), -0.5);
      // Gemma 2 soft-caps its logits at 30 by default, Gemma 3 only when the field is set.
      if (!c.is_null("final_logit_softcapping") || (mt == "gemma2" && !c.has("final_logit_softcapping")))
        a.final_logit_softcap = c.get_double("final_logit_softcapping", 30.0);
      window = c.has("sliding_window") ? c.get_int("sliding_window", 0) : 4096;
    }
    if (mt == "gemma3_text") {
      FE_CHECK(!c.get_bool("use_bidirectional_attention", false), ValueError, c.origin(),
               ": field 'use_bidirectional_attention' value true is not supported");
      a.qk_norm = a.qk_norm_after_transpose = true;
      a.base_model_suffix = "TextModel";
    }
  } else if (mt == "phi3") {
    a.kv_heads = lm::parse_kv_heads(c, a.heads, a.heads);
    a.max_positions = c.get_int("max_position_embeddings", 4096);
    a.rms_eps = c.get_double("rms_norm_eps", 1e-5);
    if (!c.has("pad_token_id")) a.pad_token_id = 32000;
    window = c.get_int("sliding_window", 0);  // null: the full causal mask
    a.fused_qkv = a.rotary_slices = true;
    a.resid_dropout = c.get_double("resid_pdrop", 0.0);
  } else if (mt == "mistral") {
    a.kv_heads = lm::parse_kv_heads(c, a.heads, 8);
    a.max_positions = c.get_int("max_position_embeddings", 4096 * 32);
    window = c.has("sliding_window") ? c.get_int("sliding_window", 0) : 4096;
  } else {  // qwen2, qwen3, qwen2_moe, qwen3_moe
    a.kv_heads = lm::parse_kv_heads(c, a.heads, mt == "qwen3_moe" ? 4 : mt == "qwen2_moe" ? 16 : 32);
    a.max_positions = c.get_int("max_position_embeddings", 32768);
    a.qkv_bias = mt == "qwen2_moe" ? c.get_bool("qkv_bias", true) : true;
    a.both_masks = mt == "qwen2_moe";
    // Qwen2Model / Qwen3Model: create_causal_mask always, the sliding one if has_sliding_layers.
    a.full_mask_always = mt == "qwen2" || mt == "qwen3";
    if (mt == "qwen3" || mt == "qwen3_moe") {
      a.qkv_bias = a.o_bias = c.get_bool("attention_bias", false);
      // Qwen3MoeAttention: getattr(config, "head_dim", hidden // heads), which parse_dims computed
      if (mt == "qwen3") a.head_dim = c.has("head_dim") && !c.is_null("head_dim") ? c.get_int("head_dim") : 128;
      a.qk_norm = true;
    }
    if (c.get_bool("use_sliding_window", false))
      window = c.has("sliding_window") ? c.get_int("sliding_window", 0) : 4096;
  }
  FE_CHECK(window >= 0, ValueError, c.origin(), ": field 'sliding_window' value ", window, " must be positive");
  a.sliding_window = window;
  // Qwen3-MoE builds one mask for every layer: the sliding one whenever there is a window.
  if (mt == "qwen2" || mt == "qwen3" || mt == "qwen2_moe" || mt == "gemma2" || mt == "gemma3_text")
    a.layer_sliding = qwen2_layer_sliding(c, a.layers, window > 0, mt == "qwen2_moe" || mt == "gemma2");
  else a.layer_sliding.assign(static_cast<size_t>(a.layers), window > 0);
  if (mt == "gemma3_text") a.rope_by_type = gemma3_ropes(c, a.layer_sliding, a.max_positions);
  else a.rope = lm::parse_rope(c, 10000.0, a.max_positions);
  lm::check_arch(c, a);
  return a;
}

std::unique_ptr<Model> build_llama(const Config& c) {
  return std::make_unique<lm::CausalLM>(lm::llama_arch(c), [](const lm::Arch& a, int64_t) -> std::shared_ptr<nn::UnaryModule> {
    return std::make_shared<lm::MLP>(a);
  });
}

std::unique_ptr<Model> build_phi3(const Config& c) {
  return std::make_unique<lm::CausalLM>(lm::llama_arch(c), [](const lm::Arch& a, int64_t) -> std::shared_ptr<nn::UnaryModule> {
    return std::make_shared<lm::FusedGateUpMLP>(a);
  });
}

// Phi-3 at toy size: MHA 4 heads (Phi-3-mini's shape, small), no padding_idx inside the toy vocab.
std::string_view default_config_phi3() {
  return R"({"model_type": "phi3", "vocab_size": 1024, "hidden_size": 64, "intermediate_size": 192,
  "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 4, "max_position_embeddings": 4096,
  "rms_norm_eps": 1e-05, "pad_token_id": null})";
}

// Llama 3 at toy size: GQA 4/2, rope_theta 500000 with Llama 3.1's llama3 rope scaling.
std::string_view default_config_llama() {
  return R"({"model_type": "llama", "vocab_size": 1024, "hidden_size": 64, "intermediate_size": 192,
  "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 4096,
  "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "rope_scaling": {"rope_type": "llama3", "factor": 8.0,
  "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 1024}})";
}

// Mistral at toy size: GQA 4/2 and a 256-token sliding window.
std::string_view default_config_mistral() {
  return R"({"model_type": "mistral", "vocab_size": 1024, "hidden_size": 64, "intermediate_size": 224,
  "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 4096,
  "rms_norm_eps": 1e-05, "sliding_window": 256})";
}

// Qwen2 at toy size: GQA 4/2, q/k/v bias, tied embeddings (as Qwen2-0.5B).
std::string_view default_config_qwen2() {
  return R"({"model_type": "qwen2", "vocab_size": 1024, "hidden_size": 64, "intermediate_size": 176,
  "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 4096,
  "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "tie_word_embeddings": true})";
}

// Gemma at toy size: GQA 4/2, head_dim 32, tied (as Gemma 2B's shape, small).
std::string_view default_config_gemma() {
  return R"({"model_type": "gemma", "vocab_size": 1024, "hidden_size": 64, "intermediate_size": 192,
  "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 32,
  "max_position_embeddings": 4096, "rms_norm_eps": 1e-06})";
}

// Gemma 2 at toy size: GQA 4/2, head_dim 32, sliding windows of 256 on the even layers, soft-capped logits.
std::string_view default_config_gemma2() {
  return R"({"model_type": "gemma2", "vocab_size": 1024, "hidden_size": 64, "intermediate_size": 192,
  "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 32,
  "query_pre_attn_scalar": 32, "sliding_window": 256, "max_position_embeddings": 4096, "rms_norm_eps": 1e-06})";
}

// Gemma 3 (text) at toy size: GQA 4/1, head_dim 32, five sliding layers of window 256 then a global
// one (Gemma 3 1B's pattern), local rope base 1e4, global 1e6.
std::string_view default_config_gemma3_text() {
  return R"({"model_type": "gemma3_text", "vocab_size": 1024, "hidden_size": 64, "intermediate_size": 192,
  "num_hidden_layers": 6, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 32,
  "query_pre_attn_scalar": 32, "sliding_window": 256, "sliding_window_pattern": 6, "rope_theta": 1000000.0,
  "rope_local_base_freq": 10000.0, "max_position_embeddings": 4096, "rms_norm_eps": 1e-06})";
}

// Qwen3 at toy size: GQA 4/2, head_dim 32 (not hidden / heads), q/k norms, tied embeddings.
std::string_view default_config_qwen3() {
  return R"({"model_type": "qwen3", "vocab_size": 1024, "hidden_size": 64, "intermediate_size": 192,
  "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 32,
  "max_position_embeddings": 4096, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "tie_word_embeddings": true})";
}

}  // namespace fe::zoo
