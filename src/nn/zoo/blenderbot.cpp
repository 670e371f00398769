// model_type "blenderbot": transformers' BlenderbotForConditionalGeneration. Pre-LN encoder and
// decoder (final layer_norm each), learned positions from 0, embeddings scaled by sqrt(d_model)
// when scale_embedding, causal decoder self-attention, cross-attention on the encoder output,
// lm_head tied to model.shared (tie_word_embeddings), logits + final_logits_bias.
// Forward(input_ids, decoder_input_ids) -> (logits, encoder_last_hidden_state), as return_dict=False
// with use_cache=False.
#include <cmath>

#include "fakeexport/core/error.h"
#include "fakeexport/nn/layers.h"
#include "fakeexport/ops/api.h"
#include "nn/zoo/bert_common.h"
#include "nn/zoo/families.h"
#include "nn/zoo/masking.h"
#include "nn/zoo/seq2seq_layers.h"

namespace fe::zoo {
namespace {

constexpr const char* kPrefix = "transformers.models.blenderbot.modeling_blenderbot.";

struct Dims {
  int64_t vocab, d_model, enc_layers, dec_layers, enc_heads, dec_heads, enc_ffn, dec_ffn, max_pos;
  double embed_scale;
  std::optional<int64_t> pad;
  bool tie;
  double dropout, activation_dropout;  // F.dropout calls as HF makes them (identity in eval)
};

/// BlenderbotScaledWordEmbedding: F.embedding(ids, weight, padding_idx) * embed_scale (1.0 recorded too).
class ScaledWordEmbedding : public hf::PaddedEmbedding {
 public:
  ScaledWordEmbedding(const Dims& d)
      : hf::PaddedEmbedding(d.vocab, d.d_model, d.pad, std::string(kPrefix) + "BlenderbotScaledWordEmbedding"),
        embed_scale(d.embed_scale) {}
  Tensor forward(const Tensor& ids) override { return hf::PaddedEmbedding::forward(ids) * embed_scale; }
  const double embed_scale;
};

class LearnedPositionalEmbedding : public nn::Embedding {
 public:
  explicit LearnedPositionalEmbedding(const Dims& d) : nn::Embedding(d.max_pos, d.d_model) {}
  std::string type_name() const override { return std::string(kPrefix) + "BlenderbotLearnedPositionalEmbedding"; }
  /// The encoder's call: positions 0..seq-1 made on the weight's device.
  Tensor positions(const SymInt& seq) {
    nn::ModuleCallScope scope(*this);
    // torch.arange(past_key_values_length, past_key_values_length + seq_len, ...): 0 + seq is traced.
    return embedding(arange(0, SymInt(0) + seq, {.dtype = DType::Int64, .device = weight.device()}), weight);
  }
};

class BlenderbotAttention : public nn::Module {
 public:
  BlenderbotAttention(int64_t dim, int64_t heads, bool causal)
      : head_dim(dim / heads),
        is_causal(causal),
        k_proj(register_module("k_proj", std::make_shared<nn::Linear>(dim, dim))),
        v_proj(register_module("v_proj", std::make_shared<nn::Linear>(dim, dim))),
        q_proj(register_module("q_proj", std::make_shared<nn::Linear>(dim, dim))),
        out_proj(register_module("out_proj", std::make_shared<nn::Linear>(dim, dim))) {}
  std::string type_name() const override { return std::string(kPrefix) + "BlenderbotAttention"; }

  /// Self-attention when `kv` is undefined, else cross-attention on kv (the encoder output), under
  /// `mask` (the materialized boolean mask).
  Tensor operator()(const Tensor& h, const Tensor& mask, const Tensor& kv = Tensor()) {
    nn::ModuleCallScope scope(*this);
    const SymInt B = h.size(0), T = h.size(1);
    const Tensor& cur = kv.defined() ? kv : h;
    const SymInt S = cur.size(1);
    Tensor q = (*q_proj)(h).view({B, T, -1, head_dim}).transpose(1, 2);
    // HF projects k and v before reshaping either.
    Tensor k = (*k_proj)(cur), v = (*v_proj)(cur);
    k = k.view({cur.size(0), S, -1, head_dim}).transpose(1, 2);
    v = v.view({cur.size(0), S, -1, head_dim}).transpose(1, 2);
    // sdpa_attention_forward: is_causal only without a mask and for more than one query (a symbolic
    // seq is >= 2).
    const auto t = T.maybe_int();
    const bool causal = is_causal && !mask.defined() && (!t || *t > 1);
    masks::is_causal_probe(q);
    Tensor o = scaled_dot_product_attention(q, k, v, mask, 0.0, causal, std::pow(double(head_dim), -0.5));
    o = o.transpose(1, 2).contiguous();
    return (*out_proj)(o.reshape({B, T, -1}).contiguous());
  }

  const int64_t head_dim;
  const bool is_causal;
  std::shared_ptr<nn::Linear> k_proj, v_proj, q_proj, out_proj;
};

using EncoderLayer = seq2seq::EncoderLayer<BlenderbotAttention>;
using DecoderLayer = seq2seq::DecoderLayer<BlenderbotAttention>;

/// BlenderbotEncoder / BlenderbotDecoder: embed_tokens, embed_positions, layers, layer_norm.
template <class Layer>
class Stack : public nn::Module {
 public:
  Stack(const Config& c, const Dims& d, int64_t n, const char* cls, const char* layer_cls,
        const seq2seq::LayerSizes& sizes)
      : embed_tokens(register_module("embed_tokens", std::make_shared<ScaledWordEmbedding>(d))),
        embed_positions(register_module("embed_positions", std::make_shared<LearnedPositionalEmbedding>(d))),
        layers(register_module("layers", std::make_shared<nn::ModuleList>())),
        cls_(cls) {
    for (int64_t i = 0; i < n; ++i)
      layers->push_back(std::make_shared<Layer>(std::string(kPrefix) + layer_cls, sizes,
                                                activation_from_config(c, "activation_function", "gelu")));
    layer_norm = register_module("layer_norm", std::make_shared<nn::LayerNorm>(d.d_model));
  }
  std::string type_name() const override { return std::string(kPrefix) + cls_; }
  Layer& layer(size_t i) { return layers->at<Layer>(i); }

  std::shared_ptr<ScaledWordEmbedding> embed_tokens;
  std::shared_ptr<LearnedPositionalEmbedding> embed_positions;
  std::shared_ptr<nn::ModuleList> layers;
  std::shared_ptr<nn::LayerNorm> layer_norm;

 private:
  const char* cls_;
};
using Encoder = Stack<EncoderLayer>;
using Decoder = Stack<DecoderLayer>;

class BlenderbotModel : public nn::Module {
 public:
  BlenderbotModel(const Config& c, const Dims& d)
      : shared(register_module("shared", std::make_shared<ScaledWordEmbedding>(d))),
        encoder(register_module("encoder", std::make_shared<Encoder>(c, d, d.enc_layers, "BlenderbotEncoder",
                                                                     "BlenderbotEncoderLayer",
                                                                     seq2seq::LayerSizes{d.d_model, d.enc_heads, d.enc_ffn,
                                                                                         d.dropout, d.activation_dropout}))),
        decoder(register_module("decoder", std::make_shared<Decoder>(c, d, d.dec_layers, "BlenderbotDecoder",
                                                                     "BlenderbotDecoderLayer",
                                                                     seq2seq::LayerSizes{d.d_model, d.dec_heads, d.dec_ffn,
                                                                                         d.dropout, d.activation_dropout}))) {
    // _tied_weights_keys: both embed_tokens share model.shared's weight (when tie_word_embeddings).
    if (d.tie) encoder->embed_tokens->weight = decoder->embed_tokens->weight = shared->weight;
  }
  std::string type_name() const override { return std::string(kPrefix) + "BlenderbotModel"; }
  std::shared_ptr<ScaledWordEmbedding> shared;
  std::shared_ptr<Encoder> encoder;
  std::shared_ptr<Decoder> decoder;
};

Dims read_dims(const Config& c) {
  Dims d{c.get_int("vocab_size"), c.get_int("d_model"), c.get_int("encoder_layers"), c.get_int("decoder_layers"),
         c.get_int("encoder_attention_heads"), c.get_int("decoder_attention_heads"), c.get_int("encoder_ffn_dim"),
         c.get_int("decoder_ffn_dim"), c.get_int("max_position_embeddings"), 1.0, hf::pad_token_id(c, 0),
         c.get_bool("tie_word_embeddings", true), c.get_double("dropout", 0.1),
         c.get_double("activation_dropout", 0.0)};
  if (c.get_bool("scale_embedding", false)) d.embed_scale = std::sqrt(double(d.d_model));
  hf::check_divisible(c, "d_model", d.d_model, "encoder_attention_heads", d.enc_heads);
  hf::check_divisible(c, "d_model", d.d_model, "decoder_attention_heads", d.dec_heads);
  activation_from_config(c, "activation_function", "gelu");  // rejects an unsupported one up front
  return d;
}

class BlenderbotForConditionalGeneration : public Model {
 public:
  BlenderbotForConditionalGeneration(const Config& c, const Dims& d)
      : dims(d),
        model(register_module("model", std::make_shared<BlenderbotModel>(c, d))),
        final_logits_bias(register_buffer("final_logits_bias", zeros({1, d.vocab}))),
        lm_head(register_module("lm_head", std::make_shared<nn::Linear>(d.d_model, d.vocab, false))) {
    if (d.tie) lm_head->weight = model->shared->weight;
  }
  std::string type_name() const override { return std::string(kPrefix) + "BlenderbotForConditionalGeneration"; }
  std::string model_type() const override { return "blenderbot"; }
  std::vector<std::string> forward_arg_names() const override { return {"input_ids", "decoder_input_ids"}; }

  std::vector<Unit> units() const override {
    // Tied embeddings compute on model.shared's device; untied ones are units of their own.
    std::vector<Unit> u{{"model.shared", false}};
    if (!dims.tie) u.push_back({"model.encoder.embed_tokens", false});
    u.push_back({"model.encoder.embed_positions", false});
    for (int64_t i = 0; i < dims.enc_layers; ++i) u.push_back({"model.encoder.layers." + std::to_string(i), true});
    u.push_back({"model.encoder.layer_norm", false});
    if (!dims.tie) u.push_back({"model.decoder.embed_tokens", false});
    u.push_back({"model.decoder.embed_positions", false});
    for (int64_t i = 0; i < dims.dec_layers; ++i) u.push_back({"model.decoder.layers." + std::to_string(i), true});
    u.push_back({"model.decoder.layer_norm", false});
    u.push_back({"lm_head", false});
    return u;
  }

  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& args) override {
    FE_CHECK(args.size() == 2, ValueError,
             "BlenderbotForConditionalGeneration.forward() takes 2 tensor arguments (input_ids, decoder_input_ids) but ",
             args.size(), " were given");
    nn::ModuleCallScope scope(*this);
    Tensor enc_out, h;
    {
      nn::ModuleCallScope ms(*model);
      enc_out = encode(args[0]);
      h = decode(args[1], enc_out);
    }
    Tensor logits = (*lm_head)(to_module_device(h, *lm_head));
    // HF's explicit `final_logits_bias.to(lm_logits.device)`: torch.export records it even as a no-op.
    Tensor bias = final_logits_bias.to(logits.device());
    return {logits + bias, enc_out};
  }

  ExampleInputs example_inputs(const InputOptions& o) override {
    ExampleInputs in;
    const Device dev = module_device(*model->shared);  // the first unit's
    const int64_t b = batch_or(o, 2), s = seq_or(o, 8);
    in.args.push_back(token_ids(b, s, dims.vocab, dev));
    in.args.push_back(token_ids(b, s, dims.vocab, dev));
    in.dynamic_shapes["input_ids"] = batch_seq_dims(o, dims.max_pos);
    // The decoder's length is its own dim ("decoder_seq"); the batch is shared.
    std::vector<DimSpec> dec = batch_seq_dims(o, dims.max_pos);
    dec[1] = seq_dim(o, "decoder_seq", dims.max_pos);
    in.dynamic_shapes["decoder_input_ids"] = dec;
    return in;
  }

 private:
  Tensor encode(const Tensor& ids) {
    Encoder& enc = *model->encoder;
    nn::ModuleCallScope scope(enc);
    Tensor x = (*enc.embed_tokens)(to_module_device(ids, *enc.embed_tokens));
    Tensor pos = enc.embed_positions->positions(x.size(1));
    const Tensor inputs_embeds = x;
    x = fe::dropout(to_module_device(x, *enc.embed_positions) + pos, dims.dropout, is_training());
    // create_bidirectional_mask(config, inputs_embeds, attention_mask=None)
    Tensor mask = masks::create_bidirectional_mask(inputs_embeds, Tensor());
    for (size_t i = 0; i < enc.layers->size(); ++i) {
      // The layer's inputs in its argument order (hidden_states, attention_mask).
      EncoderLayer& l = enc.layer(i);
      x = to_module_device(x, l);
      mask = to_module_device(mask, l);
      x = l(x, mask);
    }
    return (*enc.layer_norm)(to_module_device(x, *enc.layer_norm));
  }

  Tensor decode(const Tensor& ids, const Tensor& enc_out) {
    Decoder& dec = *model->decoder;
    nn::ModuleCallScope scope(dec);
    Tensor x = (*dec.embed_tokens)(to_module_device(ids, *dec.embed_tokens));
    x = to_module_device(x, *dec.embed_positions);
    // position_ids = arange(seq, device=inputs_embeds.device) + past_key_values_length (0).
    Tensor pos = arange(x.size(1), {.device = x.device()}) + 0;
    // create_causal_mask without position_ids (no packed-sequence check), then the cross-attention's
    // create_bidirectional_mask over the encoder output (under export no all-ones attention_mask).
    Tensor mask = masks::create_causal_mask(x, Tensor(), Tensor());
    Tensor enc_mask = masks::create_bidirectional_mask(x, Tensor(), enc_out);
    x = fe::dropout(x + (*dec.embed_positions)(pos), dims.dropout, is_training());
    // The layer's inputs in its argument order (hidden_states, attention_mask, encoder_hidden_states,
    // encoder_attention_mask); the encoder output and its mask move once to each device.
    Tensor enc = enc_out;
    for (size_t i = 0; i < dec.layers->size(); ++i) {
      DecoderLayer& l = dec.layer(i);
      x = to_module_device(x, l);
      mask = to_module_device(mask, l);
      enc = to_module_device(enc, l);
      enc_mask = to_module_device(enc_mask, l);
      x = l(x, mask, enc, enc_mask);
    }
    return (*dec.layer_norm)(to_module_device(x, *dec.layer_norm));
  }

  const Dims dims;

 public:
  std::shared_ptr<BlenderbotModel> model;
  Tensor& final_logits_bias;
  std::shared_ptr<nn::Linear> lm_head;
};

}  // namespace

std::unique_ptr<Model> build_blenderbot(const Config& c) {
  return std::make_unique<BlenderbotForConditionalGeneration>(c, read_dims(c));
}

// A 2+2-layer Blenderbot: d_model 64, 4 heads, ffn 256, vocab 1000, 128 positions.
std::string_view default_config_blenderbot() {
  return R"({"model_type": "blenderbot", "vocab_size": 1000, "d_model": 64, "encoder_layers": 2,
  "decoder_layers": 2, "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 256,
  "decoder_ffn_dim": 256, "max_position_embeddings": 128, "activation_function": "gelu",
  "scale_embedding": false, "pad_token_id": 0, "tie_word_embeddings": true})";
}

}  // namespace fe::zoo
