// model_type "t5": transformers 5.12's T5ForConditionalGeneration (T5, T5 v1.1, Flan-T5). Encoder
// and decoder stacks of pre-norm blocks (T5LayerNorm: RMS, no bias), eager attention without
// scaling, a relative position bias (log-spaced buckets, bidirectional in the encoder) computed by
// each stack's first block and added to every block's scores with the float mask, feed-forward
// relu (T5) or gated gelu_new (v1.1), eval dropouts recorded. The embeddings and lm_head are one
// tied weight (5.12 ties always); the decoder output is scaled by d_model ** -0.5 unless the config
// says tie_word_embeddings false (scale_decoder_outputs). Forward(input_ids, decoder_input_ids) ->
// (logits, encoder_last_hidden_state), as return_dict=False with use_cache=False.
#include <cmath>
#include <limits>

#include "fakeexport/core/error.h"
#include "fakeexport/nn/layers.h"
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "nn/zoo/activations.h"
#include "nn/zoo/families.h"
#include "nn/zoo/masking.h"

namespace fe::zoo {
namespace {

constexpr const char* kPrefix = "transformers.models.t5.modeling_t5.T5";

/// torch.min(a, b): aten.min.other.
Tensor torch_min(const Tensor& a, const Tensor& b, SrcLocArg loc = SrcLocArg::current()) {
  static const OpDef& d = op("aten::min.other");
  return dispatch1(d, {a, b}, loc);
}

/// x[:, :, :, :end] as Python indexing records it: alias for a static end, else slice(x, 3, None, end).
Tensor slice_to(const Tensor& x, const SymInt& end, SrcLocArg loc = SrcLocArg::current()) {
  if (!end.is_symbolic()) return alias(x, loc);
  static const OpDef& d = op("aten::slice.Tensor");
  return dispatch1(d, {x, SymInt(3), None{}, end, SymInt(1)}, loc);
}


struct Dims {
  int64_t vocab, d_model, d_kv, d_ff, enc_layers, dec_layers, heads, buckets, max_distance;
  double dropout, eps;
  bool gated, scale_outputs;
  std::string act;  ///< ACT2FN name (dense_act_fn)
};

/// T5LayerNorm: x * rsqrt(mean(x.float()^2) + eps), cast to a half weight's dtype, times weight.
class T5LayerNorm : public nn::UnaryModule {
 public:
  T5LayerNorm(int64_t size, double eps) : weight(register_parameter("weight", ones({size}))), eps_(eps) {}
  std::string type_name() const override { return std::string(kPrefix) + "LayerNorm"; }
  Tensor forward(const Tensor& x) override {
    Tensor h = x.to(DType::Float32);
    // x.to(float32) is x itself for a float32 x: the rest reads what the cast returned.
    const Tensor& in = x.dtype() == DType::Float32 ? h : x;
    Tensor variance = h.pow(2).mean({-1}, true);
    Tensor r = rsqrt(variance + eps_);
    Tensor out = in * r;
    if (weight.dtype() == DType::Float16 || weight.dtype() == DType::BFloat16) out = out.to(weight.dtype());
    return weight * out;
  }
  Tensor& weight;

 private:
  double eps_;
};

/// T5DenseActDense (wi, act, wo) or T5DenseGatedActDense (act(wi_0) * wi_1, wo); dropout between.
class DenseActDense : public nn::UnaryModule {
 public:
  explicit DenseActDense(const Dims& d) : gated_(d.gated) {
    if (gated_) {
      wi_0 = register_module("wi_0", std::make_shared<nn::Linear>(d.d_model, d.d_ff, false));
      wi_1 = register_module("wi_1", std::make_shared<nn::Linear>(d.d_model, d.d_ff, false));
    } else {
      wi = register_module("wi", std::make_shared<nn::Linear>(d.d_model, d.d_ff, false));
    }
    wo = register_module("wo", std::make_shared<nn::Linear>(d.d_ff, d.d_model, false));
    dropout = register_module("dropout", std::make_shared<nn::Dropout>(d.dropout));
    act = register_module("act", std::make_shared<HFActivation>(d.act));
  }
  std::string type_name() const override {
    return std::string(kPrefix) + (gated_ ? "DenseGatedActDense" : "DenseActDense");
  }
  Tensor forward(const Tensor& x) override {
    Tensor h;
    if (gated_) {
      Tensor g = (*act)((*wi_0)(x));
      Tensor lin = (*wi_1)(x);
      h = g * lin;
    } else {
      h = (*act)((*wi)(x));
    }
    h = (*dropout)(h);
    if (h.dtype() != wo->weight.dtype()) h = h.to(wo->weight.dtype());
    return (*wo)(h);
  }
  std::shared_ptr<nn::Linear> wi, wi_0, wi_1, wo;
  std::shared_ptr<nn::Dropout> dropout;
  std::shared_ptr<HFActivation> act;

 private:
  bool gated_;
};

/// T5LayerFF: x + dropout(DenseReluDense(layer_norm(x))).
class LayerFF : public nn::UnaryModule {
 public:
  explicit LayerFF(const Dims& d)
      : DenseReluDense(register_module("DenseReluDense", std::make_shared<DenseActDense>(d))),
        layer_norm(register_module("layer_norm", std::make_shared<T5LayerNorm>(d.d_model, d.eps))),
        dropout(register_module("dropout", std::make_shared<nn::Dropout>(d.dropout))) {}
  std::string type_name() const override { return std::string(kPrefix) + "LayerFF"; }
  Tensor forward(const Tensor& x) override {
    Tensor h = (*layer_norm)(x);
    h = (*DenseReluDense)(h);
    Tensor dropped = (*dropout)(h);
    return x + dropped;
  }
  std::shared_ptr<DenseActDense> DenseReluDense;
  std::shared_ptr<T5LayerNorm> layer_norm;
  std::shared_ptr<nn::Dropout> dropout;
};

/// T5Attention: q, k, v, o (no bias, no softmax scaling) and, in a stack's first block,
/// relative_attention_bias [buckets, heads].
class T5Attention : public nn::Module {
 public:
  T5Attention(const Dims& d, bool decoder, bool has_bias)
      : d_(d),
        decoder_(decoder),
        q(register_module("q", std::make_shared<nn::Linear>(d.d_model, d.heads * d.d_kv, false))),
        k(register_module("k", std::make_shared<nn::Linear>(d.d_model, d.heads * d.d_kv, false))),
        v(register_module("v", std::make_shared<nn::Linear>(d.d_model, d.heads * d.d_kv, false))),
        o(register_module("o", std::make_shared<nn::Linear>(d.heads * d.d_kv, d.d_model, false))) {
    if (has_bias) relative_attention_bias = register_module("relative_attention_bias", std::make_shared<nn::Embedding>(d.buckets, d.heads));
  }
  std::string type_name() const override { return std::string(kPrefix) + "Attention"; }

  /// (output, position bias): the bias is computed (and the mask added) when `position_bias` is
  /// undefined, else used as given. `kv`: the encoder output for cross-attention.
  std::pair<Tensor, Tensor> operator()(const Tensor& h, const Tensor& mask, const Tensor& kv, Tensor position_bias) {
    nn::ModuleCallScope scope(*this);
    const SymInt b = h.size(0), s = h.size(1);
    Tensor query = (*q)(h).view({b, s, -1, d_.d_kv}).transpose(1, 2);
    const Tensor& cur = kv.defined() ? kv : h;
    Tensor key = (*k)(cur).view({cur.size(0), cur.size(1), -1, d_.d_kv}).transpose(1, 2);
    Tensor value = (*v)(cur).view({cur.size(0), cur.size(1), -1, d_.d_kv}).transpose(1, 2);
    Tensor scores = matmul(query, key.transpose(3, 2));
    if (!position_bias.defined()) {
      const SymInt key_length = key.size(-2);
      position_bias = relative_attention_bias
                          ? compute_bias(s, key_length)
                          : zeros({1, query.size(1), s, key_length}, {.dtype = scores.dtype(), .device = scores.device()});
      // mask[:, :, :, : key_states.shape[-2]]: a static end spans the mask, an alias; a symbolic
      // end is recorded as slice(mask, 3, None, end) (the other `:` are dropped then).
      if (mask.defined()) position_bias = position_bias + slice_to(mask, key_length);
    }
    scores.add_(position_bias);
    Tensor s32 = scores.to(DType::Float32);
    // scores.float() is scores itself in float32: type_as reads the cast's result.
    const Tensor& like = scores.dtype() == DType::Float32 ? s32 : scores;
    Tensor weights = softmax(s32, -1).type_as(like);
    weights = fe::dropout(weights, d_.dropout, false);
    Tensor out = matmul(weights, value);
    out = out.transpose(1, 2).contiguous();
    out = out.reshape({b, s, -1});
    return {(*o)(out), position_bias};
  }

  const Dims d_;  // before the linears: their initializers follow declaration order
  const bool decoder_;
  std::shared_ptr<nn::Linear> q, k, v, o;
  std::shared_ptr<nn::Embedding> relative_attention_bias;

 private:
  // compute_bias: the bucket of memory - context position, embedded, as [1, heads, q, k].
  Tensor compute_bias(const SymInt& query_length, const SymInt& key_length) {
    const Device dev = relative_attention_bias->weight.device();
    // arange(q)[:, None] + past_seen_tokens (0), arange(k)[None, :]
    Tensor context = masks::full_slice(arange(Scalar(query_length), {.dtype = DType::Int64, .device = dev}), 0);
    context = context.unsqueeze(1) + 0;
    Tensor memory = arange(Scalar(key_length), {.dtype = DType::Int64, .device = dev}).unsqueeze(0);
    memory = masks::full_slice(memory, 1);
    Tensor bucket = relative_position_bucket(memory - context);
    Tensor values = (*relative_attention_bias)(bucket);
    return values.permute({2, 0, 1}).unsqueeze(0);
  }

  // _relative_position_bucket: half the buckets per direction (encoder), exact below max_exact,
  // log-spaced up to max_distance.
  Tensor relative_position_bucket(Tensor rp) const {
    int64_t num_buckets = d_.buckets;
    Tensor buckets;  // the Python int 0 until a tensor is added to it
    if (!decoder_) {
      num_buckets /= 2;
      Tensor positive = gt(rp, 0).to(DType::Int64);
      buckets = positive * num_buckets + 0;
      rp = abs(rp);
    } else {
      Tensor z = zeros_like(rp);
      rp = -torch_min(rp, z);
    }
    const int64_t max_exact = num_buckets / 2;
    Tensor is_small = lt(rp, max_exact);
    Tensor large = rp.to(DType::Float32) / max_exact;
    large = log(large);
    large = large / std::log(static_cast<double>(d_.max_distance) / static_cast<double>(max_exact));
    large = large * (num_buckets - max_exact);
    large = large.to(DType::Int64) + max_exact;
    Tensor cap = full_like(large, num_buckets - 1);
    large = torch_min(large, cap);
    Tensor picked = where(is_small, rp, large);
    if (!buckets.defined()) return picked + 0;
    return buckets.add_(picked);
  }
};

/// T5LayerSelfAttention / T5LayerCrossAttention: x + dropout(attention(layer_norm(x))).
class AttentionLayer : public nn::Module {
 public:
  AttentionLayer(const Dims& d, bool decoder, bool cross, bool has_bias)
      : cross_(cross),
        attention(register_module(cross ? "EncDecAttention" : "SelfAttention",
                                  std::make_shared<T5Attention>(d, decoder, has_bias))),
        layer_norm(register_module("layer_norm", std::make_shared<T5LayerNorm>(d.d_model, d.eps))),
        dropout(register_module("dropout", std::make_shared<nn::Dropout>(d.dropout))) {}
  std::string type_name() const override {
    return std::string(kPrefix) + (cross_ ? "LayerCrossAttention" : "LayerSelfAttention");
  }
  std::pair<Tensor, Tensor> operator()(const Tensor& x, const Tensor& mask, const Tensor& kv, const Tensor& bias) {
    nn::ModuleCallScope scope(*this);
    Tensor normed = (*layer_norm)(x);
    auto [out, position_bias] = (*attention)(normed, mask, kv, bias);
    Tensor dropped = (*dropout)(out);
    return {x + dropped, position_bias};
  }

 private:
  const bool cross_;

 public:
  std::shared_ptr<T5Attention> attention;
  std::shared_ptr<T5LayerNorm> layer_norm;
  std::shared_ptr<nn::Dropout> dropout;
};

/// float16 only: hidden states clamped to +-(finfo.max - 1000) where any overflowed, else +-finfo.max
/// ("clamp inf values to enable fp16 training").
Tensor clamp_inf(const Tensor& h) {
  if (h.dtype() != DType::Float16) return h;
  Tensor any_inf = any(isinf(h));
  Tensor bound = where(any_inf, Scalar(65504.0 - 1000.0), Scalar(65504.0));
  Tensor low = -bound;
  return clamp(h, std::optional<Tensor>(low), std::optional<Tensor>(bound));
}

/// T5Block: layer = [self-attention, (cross-attention), feed-forward].
class T5Block : public nn::Module {
 public:
  T5Block(const Dims& d, bool decoder, bool first) : layer(register_module("layer", std::make_shared<nn::ModuleList>())) {
    self_ = std::make_shared<AttentionLayer>(d, decoder, false, first);
    layer->push_back(self_);
    if (decoder) {
      cross_ = std::make_shared<AttentionLayer>(d, decoder, true, false);
      layer->push_back(cross_);
    }
    ff_ = std::make_shared<LayerFF>(d);
    layer->push_back(ff_);
  }
  std::string type_name() const override { return std::string(kPrefix) + "Block"; }

  /// Updates the self- and cross-attention position biases (set by the first block).
  Tensor operator()(Tensor x, const Tensor& mask, Tensor& bias, const Tensor& enc, const Tensor& enc_mask,
                    Tensor& enc_bias) {
    nn::ModuleCallScope scope(*this);
    std::tie(x, bias) = (*self_)(x, mask, Tensor(), bias);
    x = clamp_inf(x);
    if (cross_ && enc.defined()) {
      std::tie(x, enc_bias) = (*cross_)(x, enc_mask, enc, enc_bias);
      x = clamp_inf(x);
    }
    return clamp_inf((*ff_)(x));
  }
  std::shared_ptr<nn::ModuleList> layer;

 private:
  std::shared_ptr<AttentionLayer> self_, cross_;
  std::shared_ptr<LayerFF> ff_;
};

/// masking_utils' eager_mask: the boolean mask as 0.0 (a torch.tensor constant) where attended,
/// the dtype's lowest value elsewhere.
Tensor eager_mask(const Tensor& mask, DType dtype) {
  return where(mask, tensor_constant(Scalar(0.0), dtype), Scalar(finfo_min(dtype)));
}

/// T5Stack: embed_tokens (tied), block, final_layer_norm, dropout.
class T5Stack : public nn::Module {
 public:
  T5Stack(const Dims& d, bool decoder, int64_t n)
      : decoder_(decoder),
        embed_tokens(register_module("embed_tokens", std::make_shared<nn::Embedding>(d.vocab, d.d_model))),
        block(register_module("block", std::make_shared<nn::ModuleList>())) {
    for (int64_t i = 0; i < n; ++i) block->push_back(std::make_shared<T5Block>(d, decoder, i == 0));
    final_layer_norm = register_module("final_layer_norm", std::make_shared<T5LayerNorm>(d.d_model, d.eps));
    dropout = register_module("dropout", std::make_shared<nn::Dropout>(d.dropout));
  }
  std::string type_name() const override { return std::string(kPrefix) + "Stack"; }

  Tensor operator()(const Tensor& ids, const Tensor& enc = Tensor()) {
    nn::ModuleCallScope scope(*this);
    Tensor x = ids.view({-1, ids.size(-1)});
    x = (*embed_tokens)(to_module_device(x, *embed_tokens));
    Tensor mask = decoder_ ? masks::create_causal_mask(x, Tensor(), Tensor()) : masks::create_bidirectional_mask(x, Tensor());
    mask = eager_mask(mask, x.dtype());
    Tensor enc_mask;
    if (decoder_ && enc.defined()) enc_mask = eager_mask(masks::create_bidirectional_mask(x, Tensor(), enc), x.dtype());
    x = (*dropout)(x);
    Tensor bias, enc_bias, e = enc;
    for (size_t i = 0; i < block->size(); ++i) {
      T5Block& blk = block->at<T5Block>(i);
      // The block's inputs in its argument order (hidden_states, attention_mask, position_bias,
      // encoder_hidden_states, encoder_attention_mask, encoder_decoder_position_bias).
      x = to_module_device(x, blk);
      mask = to_module_device(mask, blk);
      if (bias.defined()) bias = to_module_device(bias, blk);
      if (e.defined()) {
        e = to_module_device(e, blk);
        enc_mask = to_module_device(enc_mask, blk);
        if (enc_bias.defined()) enc_bias = to_module_device(enc_bias, blk);
      }
      x = blk(x, mask, bias, e, enc_mask, enc_bias);
    }
    x = (*final_layer_norm)(to_module_device(x, *final_layer_norm));
    return (*dropout)(x);
  }

  const bool decoder_;
  std::shared_ptr<nn::Embedding> embed_tokens;
  std::shared_ptr<nn::ModuleList> block;
  std::shared_ptr<T5LayerNorm> final_layer_norm;
  std::shared_ptr<nn::Dropout> dropout;
};

Dims read_dims(const Config& c) {
  const int64_t layers = c.get_int("num_layers", 6);
  Dims d{.vocab = c.get_int("vocab_size", 32128),
         .d_model = c.get_int("d_model", 512),
         .d_kv = c.get_int("d_kv", 64),
         .d_ff = c.get_int("d_ff", 2048),
         .enc_layers = layers,
         .dec_layers = c.is_null("num_decoder_layers") ? layers : c.get_int("num_decoder_layers", layers),
         .heads = c.get_int("num_heads", 8),
         .buckets = c.get_int("relative_attention_num_buckets", 32),
         .max_distance = c.get_int("relative_attention_max_distance", 128),
         .dropout = c.get_double("dropout_rate", 0.1),
         .eps = c.get_double("layer_norm_epsilon", 1e-6),
         .gated = false,
         .scale_outputs = true,
         .act = "relu"};
  const std::pair<const char*, int64_t> sizes[] = {{"vocab_size", d.vocab},   {"d_model", d.d_model},
                                                   {"d_kv", d.d_kv},          {"d_ff", d.d_ff},
                                                   {"num_layers", d.enc_layers}, {"num_decoder_layers", d.dec_layers},
                                                   {"num_heads", d.heads},    {"relative_attention_num_buckets", d.buckets}};
  for (const auto& [name, v] : sizes)
    FE_CHECK(v > 0, ValueError, c.origin(), ": field '", name, "' value ", v, " must be positive");
  // Half the buckets per direction in the encoder, half of those exact: at least 4.
  FE_CHECK(d.buckets >= 4, ValueError, c.origin(), ": field 'relative_attention_num_buckets' value ", d.buckets,
           " must be at least 4");
  FE_CHECK(d.max_distance > d.buckets / 2, ValueError, c.origin(), ": field 'relative_attention_max_distance' value ",
           d.max_distance, " must exceed relative_attention_num_buckets / 2 (", d.buckets / 2, ")");
  // T5Config: "gated-ACT" or "ACT"; gated-gelu means gelu_new.
  const std::string proj = c.get_string("feed_forward_proj", "relu");
  const size_t dash = proj.find('-');
  FE_CHECK(dash == std::string::npos || (proj.substr(0, dash) == "gated" && proj.find('-', dash + 1) == std::string::npos),
           ValueError, c.origin(), ": `feed_forward_proj`: ", proj,
           " is not a valid activation function of the dense layer. Please make sure `feed_forward_proj` is of the "
           "format `gated-{ACT_FN}` or `{ACT_FN}`, e.g. 'gated-gelu' or 'relu'");
  d.gated = dash != std::string::npos;
  d.act = d.gated ? proj.substr(dash + 1) : proj;
  if (proj == "gated-gelu") d.act = "gelu_new";
  check_activation(d.act, c.origin(), "feed_forward_proj");
  // 5.12 ties the embeddings and lm_head always; a config's tie_word_embeddings false (T5 v1.1)
  // only turns off the output scaling (scale_decoder_outputs in the config it writes).
  d.scale_outputs = c.has("scale_decoder_outputs") ? c.get_bool("scale_decoder_outputs", true)
                                                   : c.get_bool("tie_word_embeddings", true);
  return d;
}

class T5ForConditionalGeneration : public Model {
 public:
  explicit T5ForConditionalGeneration(const Dims& d)
      : dims(d),
        shared(register_module("shared", std::make_shared<nn::Embedding>(d.vocab, d.d_model))),
        encoder(register_module("encoder", std::make_shared<T5Stack>(d, false, d.enc_layers))),
        decoder(register_module("decoder", std::make_shared<T5Stack>(d, true, d.dec_layers))),
        lm_head(register_module("lm_head", std::make_shared<nn::Linear>(d.d_model, d.vocab, false))) {
    encoder->embed_tokens->weight = decoder->embed_tokens->weight = lm_head->weight = shared->weight;
  }
  std::string type_name() const override { return std::string(kPrefix) + "ForConditionalGeneration"; }
  std::string model_type() const override { return "t5"; }
  std::vector<std::string> forward_arg_names() const override { return {"input_ids", "decoder_input_ids"}; }

  std::vector<Unit> units() const override {
    std::vector<Unit> u{{"shared", false}};
    for (int64_t i = 0; i < dims.enc_layers; ++i) u.push_back({"encoder.block." + std::to_string(i), true});
    u.push_back({"encoder.final_layer_norm", false});
    for (int64_t i = 0; i < dims.dec_layers; ++i) u.push_back({"decoder.block." + std::to_string(i), true});
    u.push_back({"decoder.final_layer_norm", false});
    u.push_back({"lm_head", false});
    return u;
  }

  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& args) override {
    FE_CHECK(args.size() == 2, ValueError,
             "T5ForConditionalGeneration.forward() takes 2 tensor arguments (input_ids, decoder_input_ids) but ",
             args.size(), " were given");
    nn::ModuleCallScope scope(*this);
    Tensor enc_out = (*encoder)(args[0]);
    Tensor h = (*decoder)(args[1], enc_out);
    if (dims.scale_outputs) h = h * std::pow(static_cast<double>(dims.d_model), -0.5);
    return {(*lm_head)(to_module_device(h, *lm_head)), enc_out};
  }

  ExampleInputs example_inputs(const InputOptions& o) override {
    ExampleInputs in;
    const Device dev = module_device(*shared);
    const int64_t b = batch_or(o, 2), s = seq_or(o, 8);
    in.args.push_back(token_ids(b, s, dims.vocab, dev));
    in.args.push_back(token_ids(b, s, dims.vocab, dev));
    // Relative positions: no length bound (Dim's default max).
    in.dynamic_shapes["input_ids"] = batch_seq_dims(o, kIntOo);
    std::vector<DimSpec> dec = batch_seq_dims(o, kIntOo);
    dec[1] = seq_dim(o, "decoder_seq", kIntOo);
    in.dynamic_shapes["decoder_input_ids"] = dec;
    return in;
  }

  const Dims dims;
  std::shared_ptr<nn::Embedding> shared;
  std::shared_ptr<T5Stack> encoder, decoder;
  std::shared_ptr<nn::Linear> lm_head;
};

}  // namespace

std::unique_ptr<Model> build_t5(const Config& c) { return std::make_unique<T5ForConditionalGeneration>(read_dims(c)); }

// A 2+2-layer T5 (t5-small's shape, narrower): d_model 64, 4 heads of 16, d_ff 256, 32 buckets.
std::string_view default_config_t5() {
  return R"({"model_type": "t5", "vocab_size": 1024, "d_model": 64, "d_kv": 16, "d_ff": 256, "num_layers": 2,
  "num_heads": 4, "relative_attention_num_buckets": 32, "relative_attention_max_distance": 128})";
}

}  // namespace fe::zoo
