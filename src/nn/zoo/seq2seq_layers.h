// The pre-LN encoder and decoder layers transformers' BART-derived encoder-decoders share
// (Blenderbot, Whisper): same modules, registration order and op order, differing only in their
// attention (a template argument: Attention(dim, heads, causal), called as (h, mask, kv)) and class
// names. Dropouts are F.dropout calls as HF makes them (identity in eval, recorded by export).
#pragma once
#include <memory>
#include <string>

#include "fakeexport/nn/layers.h"
#include "fakeexport/ops/api.h"
#include "nn/zoo/bert_common.h"

namespace fe::zoo::seq2seq {

/// One stack's layer sizes.
struct LayerSizes {
  int64_t d_model, heads, ffn;
  double dropout, activation_dropout;
};

/// The residual feed-forward block both layers end with: h + dropout(fc2(dropout(act(fc1(norm(h)))))).
inline Tensor residual_feed_forward(const Tensor& h, nn::LayerNorm& norm, HFActivation& act, nn::Linear& fc1,
                                    nn::Linear& fc2, double p, double p_act, bool training) {
  Tensor f = fe::dropout(act(fc1(norm(h))), p_act, training);
  return h + fe::dropout(fc2(f), p, training);
}

template <class Attention>
class EncoderLayer : public nn::Module {
 public:
  EncoderLayer(std::string type, const LayerSizes& s, std::shared_ptr<HFActivation> act)
      : self_attn(register_module("self_attn", std::make_shared<Attention>(s.d_model, s.heads, false))),
        self_attn_layer_norm(register_module("self_attn_layer_norm", std::make_shared<nn::LayerNorm>(s.d_model))),
        activation_fn(register_module("activation_fn", std::move(act))),
        fc1(register_module("fc1", std::make_shared<nn::Linear>(s.d_model, s.ffn))),
        fc2(register_module("fc2", std::make_shared<nn::Linear>(s.ffn, s.d_model))),
        final_layer_norm(register_module("final_layer_norm", std::make_shared<nn::LayerNorm>(s.d_model))),
        p(s.dropout),
        p_act(s.activation_dropout),
        type_(std::move(type)) {}
  std::string type_name() const override { return type_; }

  /// `mask`: the encoder's attention mask, or undefined (Whisper passes None).
  Tensor operator()(const Tensor& x, const Tensor& mask) {
    nn::ModuleCallScope scope(*this);
    const bool tr = is_training();
    Tensor h = x + fe::dropout((*self_attn)((*self_attn_layer_norm)(x), mask), p, tr);
    h = residual_feed_forward(h, *final_layer_norm, *activation_fn, *fc1, *fc2, p, p_act, tr);
    // HF clamps float16 activations to finfo.max - 1000 after each encoder layer.
    if (h.dtype() == DType::Float16) h = clamp(h, Scalar(-(65504.0 - 1000.0)), Scalar(65504.0 - 1000.0));
    return h;
  }

  std::shared_ptr<Attention> self_attn;
  std::shared_ptr<nn::LayerNorm> self_attn_layer_norm;
  std::shared_ptr<HFActivation> activation_fn;
  std::shared_ptr<nn::Linear> fc1, fc2;
  std::shared_ptr<nn::LayerNorm> final_layer_norm;
  const double p, p_act;

 private:
  std::string type_;
};

template <class Attention>
class DecoderLayer : public nn::Module {
 public:
  DecoderLayer(std::string type, const LayerSizes& s, std::shared_ptr<HFActivation> act)
      : self_attn(register_module("self_attn", std::make_shared<Attention>(s.d_model, s.heads, true))),
        activation_fn(register_module("activation_fn", std::move(act))),
        self_attn_layer_norm(register_module("self_attn_layer_norm", std::make_shared<nn::LayerNorm>(s.d_model))),
        encoder_attn(register_module("encoder_attn", std::make_shared<Attention>(s.d_model, s.heads, false))),
        encoder_attn_layer_norm(register_module("encoder_attn_layer_norm", std::make_shared<nn::LayerNorm>(s.d_model))),
        fc1(register_module("fc1", std::make_shared<nn::Linear>(s.d_model, s.ffn))),
        fc2(register_module("fc2", std::make_shared<nn::Linear>(s.ffn, s.d_model))),
        final_layer_norm(register_module("final_layer_norm", std::make_shared<nn::LayerNorm>(s.d_model))),
        p(s.dropout),
        p_act(s.activation_dropout),
        type_(std::move(type)) {}
  std::string type_name() const override { return type_; }

  /// Causal self-attention under `mask`, cross-attention on `enc` under `enc_mask` (may be undefined).
  Tensor operator()(const Tensor& x, const Tensor& mask, const Tensor& enc, const Tensor& enc_mask) {
    nn::ModuleCallScope scope(*this);
    const bool tr = is_training();
    Tensor h = x + fe::dropout((*self_attn)((*self_attn_layer_norm)(x), mask), p, tr);
    h = h + fe::dropout((*encoder_attn)((*encoder_attn_layer_norm)(h), enc_mask, enc), p, tr);
    return residual_feed_forward(h, *final_layer_norm, *activation_fn, *fc1, *fc2, p, p_act, tr);
  }

  std::shared_ptr<Attention> self_attn;
  std::shared_ptr<HFActivation> activation_fn;
  std::shared_ptr<nn::LayerNorm> self_attn_layer_norm;
  std::shared_ptr<Attention> encoder_attn;
  std::shared_ptr<nn::LayerNorm> encoder_attn_layer_norm;
  std::shared_ptr<nn::Linear> fc1, fc2;
  std::shared_ptr<nn::LayerNorm> final_layer_norm;
  const double p, p_act;

 private:
  std::string type_;
};

}  // namespace fe::zoo::seq2seq
