// Private pieces of the llama-style decoders (llama, mistral, qwen2, qwen3 in llama.cpp; mixtral in
// mixtral.cpp): HF's RMSNorm, rotary embedding, attention, decoder layer, base model and causal-LM
// head, parameterized by the resolved config (Arch) and, for the feed-forward block, a factory.
#pragma once
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fakeexport/nn/layers.h"
#include "fakeexport/nn/zoo.h"

namespace fe::zoo::lm {

/// HF class names of one model_type: module path + class prefix ("...modeling_llama.Llama").
struct Naming {
  std::string model_type;  ///< "llama"
  std::string prefix;      ///< "transformers.models.llama.modeling_llama.Llama"
  std::string cls(std::string_view suffix) const { return prefix + std::string(suffix); }
};

/// Rotary parameters after HF's standardize_rope_params.
struct Rope {
  std::string type = "default";  ///< default, linear, llama3, yarn
  double theta = 10000.0;
  double factor = 1.0, low_freq_factor = 1.0, high_freq_factor = 4.0;
  int64_t original_max_positions = 0;
  double partial_rotary_factor = 1.0;  ///< the rotated share of head_dim (Phi-3 family only)
  // yarn (_compute_yarn_parameters): `factor`, `original_max_positions`, and these
  double beta_fast = 32, beta_slow = 1;
  std::optional<double> attention_factor, mscale, mscale_all_dim;
  bool truncate = true;
  /// The factor cos and sin are multiplied by (yarn's attention factor; 1.0 for the others).
  double attention_scaling() const;
};

/// The fields of a llama-style config, resolved with the model_type's HF defaults.
struct Arch {
  Naming naming;
  int64_t vocab = 0, hidden = 0, intermediate = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0;
  int64_t max_positions = 0;
  double rms_eps = 1e-6;
  bool qkv_bias = false, o_bias = false, mlp_bias = false, tie_embeddings = false;
  bool qk_norm = false;  ///< Qwen3: q_norm / k_norm over head_dim
  bool gemma_norm = false;  ///< Gemma's RMSNorm: weight from 0, (x * (1 + w)) in float32, type_as x
  double embed_scale = 0;   ///< Gemma: embeddings times this (sqrt(hidden)) from a buffer; 0: none
  std::string act = "silu";
  Rope rope;
  int64_t sliding_window = 0;       ///< 0: none
  std::optional<int64_t> pad_token_id;  ///< the embedding's padding_idx
  std::vector<bool> layer_sliding;  ///< per layer: whether it uses the sliding-window mask
  bool both_masks = false;  ///< build the full and the sliding mask whatever the layers use (Qwen2-MoE)
  /// Build the full mask even when every layer slides (Qwen2/Qwen3: the full one always, the
  /// sliding one when some layer slides).
  bool full_mask_always = false;
  bool fused_qkv = false;   ///< Phi-3: one qkv_proj (o_proj registered first), sliced into q, k, v
  bool rotary_slices = false;  ///< Phi-3's apply_rotary_pos_emb: rotate x[..., :rotary_dim], cat the rest
  double resid_dropout = -1;   ///< Phi-3: resid_{attn,mlp}_dropout modules (eval: recorded, p as given); < 0 none
  bool sandwich_norms = false;  ///< Gemma 2: post_attention_layernorm before the residual add, pre/post_feedforward_layernorm
  std::optional<double> attn_scaling;  ///< Gemma 2: query_pre_attn_scalar ** -0.5; else head_dim ** -0.5
  std::optional<double> final_logit_softcap;  ///< Gemma 2: logits = tanh(logits / cap) * cap
  bool qk_norm_after_transpose = false;  ///< Gemma 3: q/k norms on [b, heads, s, d] after all three projections
  /// Gemma 3: one rotary pair per layer type ("full_attention", "sliding_attention"), in the order
  /// Gemma3RotaryEmbedding registers and calls them; empty: one pair from `rope` for every layer.
  std::vector<std::pair<std::string, Rope>> rope_by_type;
  std::string base_model_suffix = "Model";  ///< Gemma 3: Gemma3TextModel
};

/// The Arch of a llama-style config (llama, mistral, qwen2, qwen3, gemma, qwen3_moe), with the
/// model_type's HF defaults.
Arch llama_arch(const Config& c);
/// Config-reading helpers shared by the families (errors name the field).
Rope parse_rope(const Config& c, double default_theta, int64_t max_positions);
/// One RoPE dict `rp` (field `key` of `c`, for errors) over `base` (its theta and partial factor are
/// the defaults).
Rope parse_rope_dict(const Config& c, const Config& rp, std::string_view key, Rope base, int64_t max_positions);
/// `hidden_act` (Gemma 2/3: `hidden_activation`): any ACT2FN name of activations.h.
std::string parse_act(const Config& c);
/// num_key_value_heads: absent -> `absent_default` (HF's dataclass default), null -> heads.
int64_t parse_kv_heads(const Config& c, int64_t heads, int64_t absent_default);
/// head_dim: the field when set and non-zero, else hidden_size / num_attention_heads.
int64_t parse_head_dim(const Config& c, int64_t hidden, int64_t heads);
/// The size fields every decoder config has (vocab, hidden, intermediate, layers, heads, head_dim) and
/// the activation; model-specific fields and defaults are read by each builder.
void parse_dims(const Config& c, Arch& a);
/// Checks the sizes every family needs (positive, heads divisible by kv heads).
void check_arch(const Config& c, const Arch& a);

/// HF's inv_freq (float32, head_dim / 2 entries) for `rope`, as the rope init function computes it.
std::vector<float> rope_inv_freq(const Rope& rope, int64_t head_dim);

/// ACT2FN[name] (activations.h).
std::shared_ptr<nn::UnaryModule> make_activation(const std::string& name);

/// <Prefix>TextScaledWordEmbedding (Gemma): an embedding times its non-persistent 0-dim buffer
/// embed_scale (cast to the weight's dtype).
class ScaledWordEmbedding : public nn::Embedding {
 public:
  ScaledWordEmbedding(const Naming& n, int64_t vocab, int64_t hidden, std::optional<int64_t> padding_idx, double scale);
  std::string type_name() const override { return type_; }
  Tensor forward(const Tensor& ids) override;
  Tensor& embed_scale;

 private:
  std::string type_;
};

/// <Prefix>RMSNorm: float32 upcast, x * rsqrt(mean(x^2) + eps), back to the input dtype, * weight;
/// Gemma's (`gemma`): weight from zeros, (normed * (1 + weight.float())).type_as(x).
class RMSNorm : public nn::UnaryModule {
 public:
  RMSNorm(const Naming& n, int64_t size, double eps, bool gemma = false);
  std::string type_name() const override { return type_; }
  Tensor forward(const Tensor& x) override;
  Tensor& weight;

 private:
  std::string type_;
  double eps_;
  bool gemma_;
};

/// <Prefix>RotaryEmbedding: non-persistent float32 buffers inv_freq and original_inv_freq, or with
/// per-layer-type parameters (Gemma 3) `<type>_inv_freq` and `<type>_original_inv_freq` per type.
class RotaryEmbedding : public nn::Module {
 public:
  RotaryEmbedding(const Naming& n, const Rope& rope, int64_t head_dim);
  /// One buffer pair per (layer type, rope), registered in this order.
  RotaryEmbedding(const Naming& n, const std::vector<std::pair<std::string, Rope>>& by_type, int64_t head_dim);
  std::string type_name() const override { return type_; }
  /// (cos, sin) of shape [1, seq, head_dim] in x's dtype for position_ids [1, seq], from the buffers of
  /// layer type `type` (0: the only pair).
  std::pair<Tensor, Tensor> operator()(const Tensor& x, const Tensor& position_ids, size_t type = 0);
  size_t types() const { return inv_freqs_.size(); }

 private:
  std::string type_;
  std::vector<Tensor*> inv_freqs_;
  std::vector<double> attention_scalings_;  ///< per pair: what cos and sin are multiplied by
};

/// <Prefix>MLP: down_proj(act(gate_proj(x)) * up_proj(x)).
class MLP : public nn::UnaryModule {
 public:
  explicit MLP(const Arch& a);
  std::string type_name() const override { return type_; }
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<nn::Linear> gate_proj, up_proj, down_proj;
  std::shared_ptr<nn::UnaryModule> act_fn;

 private:
  std::string type_;
};

/// apply_rotary_pos_emb over x[..., :rotary_dim] (rotary_dim = cos.size(-1); an alias when that is all
/// of x), the rest x[..., rotary_dim:] (possibly empty) concatenated back; q's and k's slices are taken
/// first. Phi-3 concatenates q before rotating k; `rotate_both_first` (GPT-NeoX) rotates both, then
/// concatenates. cos/sin come unsqueezed to broadcast over the heads.
std::pair<Tensor, Tensor> apply_rotary_slices(const Tensor& q, const Tensor& k, const Tensor& cos, const Tensor& sin,
                                              bool rotate_both_first = false);

/// <Prefix>MLP with one gate_up_proj (Phi-3): down_proj(up * act(gate)), gate and up chunks of it.
class FusedGateUpMLP : public nn::UnaryModule {
 public:
  explicit FusedGateUpMLP(const Arch& a);
  std::string type_name() const override { return type_; }
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<nn::Linear> gate_up_proj, down_proj;
  std::shared_ptr<nn::UnaryModule> activation_fn;

 private:
  std::string type_;
};

/// A decoder layer's attention block: (hidden states, cos, sin, mask) -> hidden states.
/// One layer of transformers' StaticCache (cache_utils.StaticLayer): slots of the buffers a decode
/// step's wrapper registers (nn/zoo/static_cache.cpp), read when the forward runs (export swaps
/// fake twins into them).
struct StaticCacheLayer {
  Tensor* keys = nullptr;               ///< [batch, kv_heads, max_cache_len, head_dim]
  Tensor* values = nullptr;
  Tensor* cumulative_length = nullptr;  ///< int64 [1]: the tokens written so far
  /// StaticLayer.update: k and v written at cumulative_length + arange(seq) (index_copy_ along the
  /// cache's length), the length advanced in place; the whole cache back.
  std::pair<Tensor, Tensor> update(const Tensor& k, const Tensor& v) const;
};
struct StaticCache {
  std::vector<StaticCacheLayer> layers;
  int64_t max_cache_len = 0;
  /// get_seq_length(): layer 0's cumulative_length (a tensor, read by the graph).
  const Tensor& past_seen() const { return *layers.at(0).cumulative_length; }
};
/// position_ids = torch.arange(seq, device=embeds.device) + past_seen_tokens, unsqueezed: past
/// is 0 without a cache (still recorded as an add), else the cache's length.
Tensor past_positions(const Tensor& inputs_embeds, const StaticCache* cache);

/// A decoder LM a decode step wraps (zoo::with_static_cache, nn/zoo/static_cache.cpp): each
/// layer's cache shape and place, the attention a cache layer belongs to, the forward with a cache.
class CacheableLM {
 public:
  struct LayerCache {
    int64_t kv_heads = 0, head_dim = 0;
    DType dtype = DType::Float32;
    Device device;
    int64_t value_head_dim = 0;  ///< 0: head_dim (MLA's values are narrower than its keys)
    int64_t sliding_window = 0;  ///< a sliding-window layer's window; 0: none
  };
  virtual ~CacheableLM() = default;
  /// Per layer: the keys and values attention caches (as StaticCache.early_initialization allocates
  /// them: the layer's dtype and device).
  virtual std::vector<LayerCache> cache_layers() const = 0;
  /// Why transformers' decode step cannot be exported for this model; empty when it can.
  virtual std::string static_cache_refusal() const { return {}; }
  virtual void attach_cache(size_t layer, const StaticCacheLayer* cache) = 0;
  /// The logits of input_ids [batch, seq] with the cache.
  virtual Tensor forward_cached(const Tensor& input_ids, const StaticCache& cache) = 0;
  virtual Device input_device() const = 0;
  virtual int64_t vocab_size() const = 0;
};

/// What a DynamicCache holds per layer of `lm` (zoo::Model::generation_cache): keys and values per
/// token, a sliding layer's last window - 1 tokens (DynamicSlidingWindowLayer).
analysis::KvLayout generation_cache_of(const CacheableLM& lm);

class AttentionBlock : public nn::Module {
 public:
  /// The keys and values it caches: heads, key head_dim, value head_dim.
  virtual std::array<int64_t, 3> cache_dims() const = 0;
  virtual Tensor operator()(const Tensor& h, const Tensor& cos, const Tensor& sin, const Tensor& mask) = 0;
  /// Set by a decode step's wrapper: the layer of the StaticCache this attention updates.
  const StaticCacheLayer* cache = nullptr;
};

/// <Prefix>Attention with HF's sdpa path: causal sdpa with enable_gqa when there is no mask, else
/// repeat_kv and the explicit (sliding-window) boolean mask.
class Attention : public AttentionBlock {
 public:
  explicit Attention(const Arch& a);
  std::string type_name() const override { return type_; }
  Tensor operator()(const Tensor& h, const Tensor& cos, const Tensor& sin, const Tensor& mask) override;
  std::array<int64_t, 3> cache_dims() const override { return {kv_heads_, head_dim_, head_dim_}; }
  std::shared_ptr<nn::Linear> q_proj, k_proj, v_proj, o_proj;
  std::shared_ptr<nn::Linear> qkv_proj;  ///< instead of q/k/v_proj with Arch::fused_qkv
  std::shared_ptr<RMSNorm> q_norm, k_norm;  ///< null unless Arch::qk_norm

 private:
  std::string type_;
  int64_t heads_, kv_heads_, head_dim_, groups_;
  double scaling_;
  bool rotary_slices_;
  bool qk_norm_after_transpose_;
};

/// The feed-forward block of layer `idx` (MoE families mix dense and sparse layers).
using MlpFactory = std::function<std::shared_ptr<nn::UnaryModule>(const Arch&, int64_t idx)>;
/// The attention block of each layer (DeepSeek's MLA); null: lm::Attention.
using AttentionFactory = std::function<std::shared_ptr<AttentionBlock>(const Arch&)>;

/// repeat_kv: (batch, kv_heads, seq, head_dim) -> (batch, kv_heads * n_rep, seq, head_dim).
Tensor repeat_kv(const Tensor& x, int64_t n_rep);
/// rotate_half(x): cat(-x[..., d/2:], x[..., :d/2]).
Tensor rotate_half(const Tensor& x);
/// (x * cos) + (rotate_half(x) * sin), in Python's evaluation order.
Tensor apply_rotary(const Tensor& x, const Tensor& cos, const Tensor& sin);

/// <Prefix>DecoderLayer: pre-norm attention and feed-forward blocks with residuals.
class DecoderLayer : public nn::Module {
 public:
  DecoderLayer(const Arch& a, int64_t idx, const MlpFactory& make_mlp, const AttentionFactory& make_attn = nullptr);
  std::string type_name() const override { return type_; }
  Tensor operator()(const Tensor& h, const Tensor& cos, const Tensor& sin, const Tensor& mask);
  std::shared_ptr<AttentionBlock> self_attn;
  std::shared_ptr<nn::UnaryModule> mlp;
  std::shared_ptr<RMSNorm> input_layernorm, post_attention_layernorm;
  std::shared_ptr<nn::Dropout> resid_attn_dropout, resid_mlp_dropout;  ///< null unless Arch::resid_dropout >= 0
  std::shared_ptr<RMSNorm> pre_feedforward_layernorm, post_feedforward_layernorm;  ///< null unless sandwich_norms
  const bool sliding;

 private:
  std::string type_;
};

/// <Prefix>Model: embed_tokens, layers, norm, rotary_emb (HF's registration order).
class BaseModel : public nn::Module {
 public:
  BaseModel(const Arch& a, const MlpFactory& make_mlp, const AttentionFactory& make_attn = nullptr);
  std::string type_name() const override { return type_; }
  /// `attention_mask`: the 2D padding mask, or undefined (None).
  /// With `cache` (a decode step): positions start at the cache's length and the masks cover the
  /// whole cache.
  Tensor operator()(const Tensor& input_ids, const Tensor& attention_mask = Tensor(), const StaticCache* cache = nullptr);
  std::shared_ptr<nn::Embedding> embed_tokens;
  std::shared_ptr<nn::ModuleList> layers;
  std::vector<std::shared_ptr<DecoderLayer>> layer_ptrs;
  std::shared_ptr<RMSNorm> norm;
  std::shared_ptr<RotaryEmbedding> rotary_emb;

 private:
  std::string type_;
  /// The rotary pair a layer takes: Gemma 3's of its type, else the only one.
  size_t pair_of(bool sliding) const;
  int64_t sliding_window_;
  bool any_sliding_, all_sliding_ = false, both_masks_, full_always_;
  std::vector<bool> rope_is_sliding_;  ///< per rotary pair (Gemma 3): whether it is the sliding layers'
};

/// <Prefix>ForCausalLM: the zoo model (input_ids -> logits).
class CausalLM : public Model, public CacheableLM {
 public:
  CausalLM(Arch a, const MlpFactory& make_mlp, const AttentionFactory& make_attn = nullptr);
  std::string type_name() const override { return type_; }
  std::string model_type() const override { return arch_.naming.model_type; }
  /// input_ids, then the optional attention_mask (InputOptions::attention_mask).
  std::vector<std::string> forward_arg_names() const override { return {"input_ids", "attention_mask"}; }
  std::vector<Unit> units() const override;
  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& args) override;
  Tensor forward_cached(const Tensor& input_ids, const StaticCache& cache) override;
  std::vector<LayerCache> cache_layers() const override;
  std::string static_cache_refusal() const override;
  analysis::KvLayout generation_cache() const override { return generation_cache_of(*this); }
  void attach_cache(size_t layer, const StaticCacheLayer* cache) override {
    model->layer_ptrs.at(layer)->self_attn->cache = cache;
  }
  Device input_device() const override { return model->embed_tokens->weight.device(); }
  int64_t vocab_size() const override { return arch_.vocab; }
  ExampleInputs example_inputs(const InputOptions& opts) override;
  const Arch& arch() const { return arch_; }
  std::shared_ptr<BaseModel> model;
  std::shared_ptr<nn::Linear> lm_head;

 private:
  /// The head: the hidden states moved to lm_head's device, its logits (soft-capped for Gemma 2).
  Tensor logits_of(Tensor h);
  Arch arch_;
  std::string type_;
};

}  // namespace fe::zoo::lm
