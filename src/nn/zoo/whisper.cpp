// model_type "whisper": transformers 5.12's WhisperForConditionalGeneration, statement for statement
// as modeling_whisper.py records under torch.export (eval, sdpa, use_cache=False): a conv front end
// over log-mel features, learned encoder positions, pre-LN encoder and decoder layers with
// cross-attention, proj_out tied to the decoder's embeddings.
// Forward(input_features, decoder_input_ids) -> (logits, encoder_last_hidden_state).
// Whisper's attention differs from Blenderbot's in what export records: the query is scaled before
// its view, every transposed q/k/v is made contiguous, sdpa runs with scale 1.0, k_proj has no bias.
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

constexpr const char* kPrefix = "transformers.models.whisper.modeling_whisper.";

struct Dims {
  int64_t vocab, d_model, enc_layers, dec_layers, enc_heads, dec_heads, enc_ffn, dec_ffn;
  int64_t mel_bins, max_source, max_target;
  std::optional<int64_t> pad;
  bool tie;
  double dropout, activation_dropout;  // F.dropout calls as HF makes them (identity in eval)
};

/// torch.nn.Conv1d with int padding: weight [out, in, k], bias [out].
class Conv1d : public nn::UnaryModule {
 public:
  Conv1d(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t padding)
      : weight(register_parameter("weight", randn({out, in, k}))),
        bias(register_parameter("bias", zeros({out}))),
        stride_(stride),
        padding_(padding) {}
  std::string type_name() const override { return "torch.nn.modules.conv.Conv1d"; }
  Tensor forward(const Tensor& x) override { return conv1d(x, weight, bias, {stride_}, {padding_}); }
  Tensor& weight;
  Tensor& bias;
  const int64_t stride_, padding_;
};

class WhisperAttention : public nn::Module {
 public:
  /// `causal` is unused: the decoder's self-attention gets its causal mask, the others none.
  WhisperAttention(int64_t dim, int64_t heads, bool /*causal*/)
      : heads(heads),
        head_dim(dim / heads),
        scaling(std::pow(static_cast<double>(dim / heads), -0.5)),
        k_proj(register_module("k_proj", std::make_shared<nn::Linear>(dim, dim, false))),
        v_proj(register_module("v_proj", std::make_shared<nn::Linear>(dim, dim))),
        q_proj(register_module("q_proj", std::make_shared<nn::Linear>(dim, dim))),
        out_proj(register_module("out_proj", std::make_shared<nn::Linear>(dim, dim))) {}
  std::string type_name() const override { return std::string(kPrefix) + "WhisperAttention"; }

  /// Self-attention when `kv` is undefined, else cross-attention on kv (the encoder output); `mask`
  /// may be undefined (the encoder and the cross-attention pass None, and are not causal).
  Tensor operator()(const Tensor& h, const Tensor& mask, const Tensor& kv = Tensor()) {
    nn::ModuleCallScope scope(*this);
    const SymInt B = h.size(0), T = h.size(1);
    Tensor q = ((*q_proj)(h) * scaling).view({B, T, -1, head_dim}).transpose(1, 2).contiguous();
    const Tensor& cur = kv.defined() ? kv : h;
    // kv_shape = (input_shape[0], -1, num_heads, head_dim): the query's batch.
    Tensor k = (*k_proj)(cur).view({B, -1, heads, head_dim}).transpose(1, 2).contiguous();
    Tensor v = (*v_proj)(cur).view({B, -1, heads, head_dim}).transpose(1, 2).contiguous();
    masks::is_causal_probe(q);
    Tensor o = scaled_dot_product_attention(q, k, v, mask, 0.0, false, 1.0);
    o = o.transpose(1, 2).contiguous();
    return (*out_proj)(o.reshape({B, T, -1}).contiguous());
  }

  const int64_t heads, head_dim;
  const double scaling;
  std::shared_ptr<nn::Linear> k_proj, v_proj, q_proj, out_proj;
};

using EncoderLayer = seq2seq::EncoderLayer<WhisperAttention>;
using DecoderLayer = seq2seq::DecoderLayer<WhisperAttention>;

/// WhisperPositionalEmbedding: weight[position_ids].
class PositionalEmbedding : public nn::Embedding {
 public:
  explicit PositionalEmbedding(const Dims& d) : nn::Embedding(d.max_target, d.d_model) {}
  std::string type_name() const override { return std::string(kPrefix) + "WhisperPositionalEmbedding"; }
  Tensor positions(const Tensor& position_ids) {
    nn::ModuleCallScope scope(*this);
    return weight.index({position_ids});
  }
};

class WhisperEncoder : public nn::Module {
 public:
  WhisperEncoder(const Config& c, const Dims& d)
      : conv1(register_module("conv1", std::make_shared<Conv1d>(d.mel_bins, d.d_model, 3, 1, 1))),
        conv2(register_module("conv2", std::make_shared<Conv1d>(d.d_model, d.d_model, 3, 2, 1))),
        embed_positions(register_module("embed_positions", std::make_shared<nn::Embedding>(d.max_source, d.d_model))),
        layers(register_module("layers", std::make_shared<nn::ModuleList>())),
        dims(d) {
    for (int64_t i = 0; i < d.enc_layers; ++i)
      layers->push_back(std::make_shared<EncoderLayer>(
          std::string(kPrefix) + "WhisperEncoderLayer",
          seq2seq::LayerSizes{d.d_model, d.enc_heads, d.enc_ffn, d.dropout, d.activation_dropout},
          activation_from_config(c, "activation_function", "gelu")));
    layer_norm = register_module("layer_norm", std::make_shared<nn::LayerNorm>(d.d_model));
  }
  std::string type_name() const override { return std::string(kPrefix) + "WhisperEncoder"; }

  Tensor operator()(const Tensor& features_in) {
    nn::ModuleCallScope scope(*this);
    Tensor features = to_module_device(features_in, *conv1);
    // max_source_positions * conv1.stride * conv2.stride frames, as HF checks.
    const int64_t expected = dims.max_source * 2;
    FE_CHECK(features.dim() == 3 && features.size(1) == dims.mel_bins && features.size(-1) == expected, ValueError,
             "Whisper expects the mel input features to be of length ", expected, " and ", dims.mel_bins,
             " mel bins, but found ", features.dim() == 3 ? features.size(-1) : SymInt(-1), ". Make sure to pad the "
             "input mel features to ", expected, ".");
    Tensor x = gelu((*conv1)(features));
    x = gelu((*conv2)(x));
    x = x.permute({0, 2, 1});
    x = to_module_device(x, *embed_positions);
    Tensor all_positions = arange(Scalar(embed_positions->weight.size(0)), {.device = x.device()});
    x = x + (*embed_positions)(all_positions);
    x = fe::dropout(x, dims.dropout, is_training());
    for (size_t i = 0; i < layers->size(); ++i) {
      EncoderLayer& l = layers->at<EncoderLayer>(i);
      x = l(to_module_device(x, l), Tensor());  // WhisperEncoder passes attention_mask None
    }
    return (*layer_norm)(to_module_device(x, *layer_norm));
  }

  std::shared_ptr<Conv1d> conv1, conv2;
  std::shared_ptr<nn::Embedding> embed_positions;
  std::shared_ptr<nn::ModuleList> layers;
  std::shared_ptr<nn::LayerNorm> layer_norm;
  const Dims dims;
};

class WhisperDecoder : public nn::Module {
 public:
  WhisperDecoder(const Config& c, const Dims& d)
      : embed_tokens(register_module("embed_tokens", std::make_shared<hf::PaddedEmbedding>(d.vocab, d.d_model, d.pad))),
        embed_positions(register_module("embed_positions", std::make_shared<PositionalEmbedding>(d))),
        layers(register_module("layers", std::make_shared<nn::ModuleList>())),
        dims(d) {
    for (int64_t i = 0; i < d.dec_layers; ++i)
      layers->push_back(std::make_shared<DecoderLayer>(
          std::string(kPrefix) + "WhisperDecoderLayer",
          seq2seq::LayerSizes{d.d_model, d.dec_heads, d.dec_ffn, d.dropout, d.activation_dropout},
          activation_from_config(c, "activation_function", "gelu")));
    layer_norm = register_module("layer_norm", std::make_shared<nn::LayerNorm>(d.d_model));
  }
  std::string type_name() const override { return std::string(kPrefix) + "WhisperDecoder"; }

  Tensor operator()(const Tensor& ids, const Tensor& enc_out) {
    nn::ModuleCallScope scope(*this);
    Tensor inputs_embeds = (*embed_tokens)(to_module_device(ids, *embed_tokens));
    // position_ids = (arange(seq, device=inputs_embeds.device) + 0).unsqueeze(0).repeat(batch, 1)
    Tensor position_ids = (arange(Scalar(inputs_embeds.size(1)), {.device = inputs_embeds.device()}) + 0).unsqueeze(0);
    position_ids = position_ids.repeat({inputs_embeds.size(0), 1});
    Tensor positions = embed_positions->positions(to_module_device(position_ids, *embed_positions));
    Tensor x = inputs_embeds + positions.to(inputs_embeds.device());
    x = fe::dropout(x, dims.dropout, is_training());
    // create_causal_mask with position_ids: the packed-sequence check too.
    Tensor mask = masks::create_causal_mask(inputs_embeds, Tensor(), position_ids);
    // The layer's inputs in its argument order (hidden_states, attention_mask, encoder_hidden_states).
    Tensor enc = enc_out;
    for (size_t i = 0; i < layers->size(); ++i) {
      DecoderLayer& l = layers->at<DecoderLayer>(i);
      x = to_module_device(x, l);
      mask = to_module_device(mask, l);
      enc = to_module_device(enc, l);
      x = l(x, mask, enc, Tensor());  // encoder_attention_mask=None
    }
    return (*layer_norm)(to_module_device(x, *layer_norm));
  }

  std::shared_ptr<hf::PaddedEmbedding> embed_tokens;
  std::shared_ptr<PositionalEmbedding> embed_positions;
  std::shared_ptr<nn::ModuleList> layers;
  std::shared_ptr<nn::LayerNorm> layer_norm;
  const Dims dims;
};

class WhisperModel : public nn::Module {
 public:
  WhisperModel(const Config& c, const Dims& d)
      : encoder(register_module("encoder", std::make_shared<WhisperEncoder>(c, d))),
        decoder(register_module("decoder", std::make_shared<WhisperDecoder>(c, d))) {}
  std::string type_name() const override { return std::string(kPrefix) + "WhisperModel"; }
  std::shared_ptr<WhisperEncoder> encoder;
  std::shared_ptr<WhisperDecoder> decoder;
};

Dims read_dims(const Config& c) {
  Dims d{c.get_int("vocab_size", 51865),
         c.get_int("d_model", 384),
         c.get_int("encoder_layers", 4),
         c.get_int("decoder_layers", 4),
         c.get_int("encoder_attention_heads", 6),
         c.get_int("decoder_attention_heads", 6),
         c.get_int("encoder_ffn_dim", 1536),
         c.get_int("decoder_ffn_dim", 1536),
         c.get_int("num_mel_bins", 80),
         c.get_int("max_source_positions", 1500),
         c.get_int("max_target_positions", 448),
         hf::pad_token_id(c, 50256),
         c.get_bool("tie_word_embeddings", true),
         c.get_double("dropout", 0.0),
         c.get_double("activation_dropout", 0.0)};
  hf::check_divisible(c, "d_model", d.d_model, "encoder_attention_heads", d.enc_heads);
  hf::check_divisible(c, "d_model", d.d_model, "decoder_attention_heads", d.dec_heads);
  activation_from_config(c, "activation_function", "gelu");  // rejects an unsupported one up front
  FE_CHECK(!c.get_bool("apply_spec_augment", false), ValueError, c.origin(),
           ": field 'apply_spec_augment' value true is not supported");
  return d;
}

class WhisperForConditionalGeneration : public Model {
 public:
  WhisperForConditionalGeneration(const Config& c, const Dims& d)
      : dims(d),
        model(register_module("model", std::make_shared<WhisperModel>(c, d))),
        proj_out(register_module("proj_out", std::make_shared<nn::Linear>(d.d_model, d.vocab, false))) {
    if (d.tie) proj_out->weight = model->decoder->embed_tokens->weight;
  }
  std::string type_name() const override { return std::string(kPrefix) + "WhisperForConditionalGeneration"; }
  std::string model_type() const override { return "whisper"; }
  std::vector<std::string> forward_arg_names() const override { return {"input_features", "decoder_input_ids"}; }

  std::vector<Unit> units() const override {
    std::vector<Unit> u{{"model.encoder.conv1", false}, {"model.encoder.conv2", false},
                        {"model.encoder.embed_positions", false}};
    for (int64_t i = 0; i < dims.enc_layers; ++i) u.push_back({"model.encoder.layers." + std::to_string(i), true});
    u.push_back({"model.encoder.layer_norm", false});
    u.push_back({"model.decoder.embed_tokens", false});
    u.push_back({"model.decoder.embed_positions", false});
    for (int64_t i = 0; i < dims.dec_layers; ++i) u.push_back({"model.decoder.layers." + std::to_string(i), true});
    u.push_back({"model.decoder.layer_norm", false});
    if (!dims.tie) u.push_back({"proj_out", false});
    return u;
  }

  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& args) override {
    FE_CHECK(args.size() == 2, ValueError,
             "WhisperForConditionalGeneration.forward() takes 2 tensor arguments (input_features, decoder_input_ids) "
             "but ", args.size(), " were given");
    nn::ModuleCallScope scope(*this);
    Tensor enc_out, h;
    {
      nn::ModuleCallScope ms(*model);
      enc_out = (*model->encoder)(args[0]);
      h = (*model->decoder)(args[1], enc_out);
    }
    Tensor logits = (*proj_out)(to_module_device(h, *proj_out));
    return {logits, enc_out};
  }

  ExampleInputs example_inputs(const InputOptions& o) override {
    ExampleInputs in;
    const int64_t b = batch_or(o, 2), s = seq_or(o, 8);
    in.args.push_back(randn({b, dims.mel_bins, 2 * dims.max_source}, {.device = module_device(*model->encoder->conv1)}));
    in.args.push_back(token_ids(b, s, dims.vocab, module_device(*model->decoder->embed_tokens)));
    // One batch; the features' length is fixed by max_source_positions, the decoder's tokens are the seq.
    std::vector<DimSpec> dec = batch_seq_dims(o, dims.max_target);
    in.dynamic_shapes["input_features"] = {dec.at(0), Dim::STATIC, Dim::STATIC};
    in.dynamic_shapes["decoder_input_ids"] = dec;
    return in;
  }

 private:
  const Dims dims;

 public:
  std::shared_ptr<WhisperModel> model;
  std::shared_ptr<nn::Linear> proj_out;
};

}  // namespace

std::unique_ptr<Model> build_whisper(const Config& c) {
  return std::make_unique<WhisperForConditionalGeneration>(c, read_dims(c));
}

// whisper-tiny's layout at a sixth of the width: 2+2 layers, d_model 64, 80 mel bins, 1500
// encoder positions (30 s of audio), 448 decoder positions.
std::string_view default_config_whisper() {
  return R"({"model_type": "whisper", "vocab_size": 1024, "d_model": 64, "encoder_layers": 2, "decoder_layers": 2,
  "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 256, "decoder_ffn_dim": 256,
  "num_mel_bins": 80, "max_source_positions": 1500, "max_target_positions": 448, "pad_token_id": 1023})";
}

}  // namespace fe::zoo
