// GPT-2 building blocks shared by the gpt2 family and the vision-encoder-decoder decoder, plus the
// HuggingFace activations (ACT2FN) and the cached unit-device helper the vit pieces use too.
// Private to src/nn/zoo: names, registration order and math follow transformers 5.12's
// modeling_gpt2.py (GPT2Attention, GPT2MLP, GPT2Block, GPT2Model) and activations.py.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fakeexport/nn/layers.h"
#include "fakeexport/nn/zoo.h"
#include "nn/zoo/activations.h"

namespace fe::zoo {
namespace lm {
struct StaticCacheLayer;
struct StaticCache;
}  // namespace lm

/// Where a unit lives: its first parameter/buffer slot (Module::first_tensor_slot), kept from build
/// (slots are stable; place() and load_weights rewrite them in place). `to(t)` = zoo::to_module_device.
class UnitDevice {
 public:
  UnitDevice() = default;
  explicit UnitDevice(const nn::Module& m) : slot_(m.first_tensor_slot()) {}
  Device device() const { return slot_ ? slot_->device() : Device(); }
  Tensor to(const Tensor& t) const { return slot_ ? move_to(t, slot_->device()) : t; }

 private:
  const Tensor* slot_ = nullptr;
};

/// transformers.pytorch_utils.Conv1D: weight [nx, nf] (transposed vs Linear), y = addmm(b, x, W).
class Conv1D : public nn::UnaryModule {
 public:
  Conv1D(int64_t nf, int64_t nx);
  std::string type_name() const override { return "transformers.pytorch_utils.Conv1D"; }
  Tensor forward(const Tensor& x) override;
  const int64_t nf, nx;
  Tensor& weight;
  Tensor& bias;
};

/// GPT2Config fields the modules read (aliases hidden_size/n_embd etc. as attribute_map allows).
struct GPT2Options {
  int64_t vocab_size, n_positions, n_embd, n_layer, n_head, n_inner;
  std::string activation_function;
  double layer_norm_epsilon;
  double embd_pdrop = 0.1, attn_pdrop = 0.1, resid_pdrop = 0.1;  ///< recorded as eval-mode dropout nodes
  bool scale_attn_weights, scale_attn_by_inverse_layer_idx, add_cross_attention, tie_word_embeddings;
  /// `prefix` names nested configs in errors ("decoder.").
  static GPT2Options from(const Config& c, const std::string& prefix = "");
};

class GPT2Attention : public nn::Module {
 public:
  GPT2Attention(const GPT2Options& o, bool is_cross_attention, int64_t layer_idx);
  std::string type_name() const override { return "transformers.models.gpt2.modeling_gpt2.GPT2Attention"; }
  /// Self-attention under `mask` (the boolean causal mask) when `encoder_hidden_states` is
  /// undefined, else cross-attention under `mask` (the bidirectional encoder mask).
  Tensor operator()(const Tensor& hidden_states, const Tensor& mask, const Tensor& encoder_hidden_states = Tensor());

  const int64_t embed_dim, num_heads, head_dim;
  const bool is_cross_attention;
  double scaling = 1.0;
  std::shared_ptr<Conv1D> c_attn, q_attn, c_proj;  ///< q_attn only for cross-attention
  std::shared_ptr<nn::Dropout> attn_dropout, resid_dropout;
  const lm::StaticCacheLayer* cache = nullptr;  ///< self-attention's layer of a decode step's StaticCache
};

class GPT2MLP : public nn::Module {
 public:
  GPT2MLP(int64_t intermediate_size, const GPT2Options& o);
  std::string type_name() const override { return "transformers.models.gpt2.modeling_gpt2.GPT2MLP"; }
  Tensor operator()(const Tensor& x);
  std::shared_ptr<Conv1D> c_fc, c_proj;
  std::shared_ptr<HFActivation> act;
  std::shared_ptr<nn::Dropout> dropout;
};

class GPT2Block : public nn::Module {
 public:
  GPT2Block(const GPT2Options& o, int64_t layer_idx);
  std::string type_name() const override { return "transformers.models.gpt2.modeling_gpt2.GPT2Block"; }
  Tensor operator()(const Tensor& hidden_states, const Tensor& mask, const Tensor& encoder_hidden_states = Tensor(),
                    const Tensor& encoder_mask = Tensor());
  std::shared_ptr<nn::LayerNorm> ln_1;
  std::shared_ptr<GPT2Attention> attn;
  std::shared_ptr<nn::LayerNorm> ln_2;
  std::shared_ptr<GPT2Attention> crossattention;  ///< add_cross_attention only
  std::shared_ptr<nn::LayerNorm> ln_cross_attn;
  std::shared_ptr<GPT2MLP> mlp;
};

/// GPT2Model ("transformer"): wte, wpe, h.N, ln_f. Each of them is a unit: activations move to a
/// unit's device on entry (encoder states only when the device changes, so once per cut).
class GPT2Model : public nn::Module {
 public:
  explicit GPT2Model(const GPT2Options& o);
  std::string type_name() const override { return "transformers.models.gpt2.modeling_gpt2.GPT2Model"; }
  /// last_hidden_state for input_ids [batch, seq]; encoder_hidden_states feeds the cross-attention.
  /// With `cache` (a decode step): positions from the cache's length, the mask over the cache.
  Tensor operator()(const Tensor& input_ids, const Tensor& encoder_hidden_states = Tensor(),
                    const lm::StaticCache* cache = nullptr);
  /// Units under `prefix` ("transformer." or "decoder.transformer.") in forward order.
  void append_units(std::vector<Unit>& out, const std::string& prefix) const;

  GPT2Options opts;
  std::shared_ptr<nn::Embedding> wte, wpe;
  std::shared_ptr<nn::Dropout> drop;
  std::shared_ptr<nn::ModuleList> h;
  std::shared_ptr<nn::LayerNorm> ln_f;
  std::vector<std::shared_ptr<GPT2Block>> blocks;

 private:
  UnitDevice wte_dev_, wpe_dev_, ln_f_dev_;
  std::vector<UnitDevice> block_dev_;
};

/// lm_head of GPT2LMHeadModel: bias-free Linear(n_embd, vocab), its weight tied to wte's unless
/// tie_word_embeddings is false (a tied head lives, and computes, on wte's device).
std::shared_ptr<nn::Linear> make_gpt2_lm_head(const GPT2Options& o, GPT2Model& transformer);

/// GPT2LMHeadModel's logits: lm_head(hidden_states[:, slice(-logits_to_keep, None), :]) with
/// logits_to_keep = 0 (every index: an alias), on the head's device.
Tensor gpt2_logits(nn::Linear& lm_head, const UnitDevice& head_dev, const Tensor& hidden);

}  // namespace fe::zoo
