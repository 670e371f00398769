// model_type "vit": transformers 5.12's ViTForImageClassification (vit = ViTModel without pooler,
// classifier on the [CLS] token), and the ViT pieces of vit_parts.h the vision-encoder-decoder
// reuses. Attention is HF's default "sdpa" path: bidirectional, no mask, scale = head_dim ** -0.5.
#include <cmath>

#include "fakeexport/core/error.h"
#include "fakeexport/ops/api.h"
#include "nn/zoo/families.h"
#include "nn/zoo/masking.h"
#include "nn/zoo/vit_parts.h"

namespace fe::zoo {

// ---- Conv2d

Conv2d::Conv2d(int64_t in, int64_t out, int64_t k, int64_t s, bool has_bias)
    : in_channels(in),
      out_channels(out),
      kernel_size(k),
      stride(s),
      weight(register_parameter("weight", randn({out, in, k, k}))),
      bias(register_parameter("bias", has_bias ? zeros({out}) : Tensor())) {}

Tensor Conv2d::forward(const Tensor& x) { return conv2d(x, weight, bias, {stride, stride}, {0, 0}, {1, 1}, 1); }

// ---- ViTConfig

ViTOptions ViTOptions::from(const Config& c, const std::string& prefix) {
  ViTOptions o;
  o.hidden_size = c.get_int("hidden_size");
  o.num_hidden_layers = c.get_int("num_hidden_layers");
  o.num_attention_heads = c.get_int("num_attention_heads");
  o.intermediate_size = c.get_int("intermediate_size");
  FE_CHECK(o.num_attention_heads > 0, ValueError, c.origin(), ": field '", prefix, "num_attention_heads' = ",
           o.num_attention_heads, " must be positive");
  // ViTAttention: getattr(config, "head_dim", hidden_size // num_attention_heads)
  o.head_dim = c.get_int("head_dim", o.hidden_size / o.num_attention_heads);
  o.image_size = c.get_int("image_size");  // a [h, w] list is an "must be an integer" error naming the field
  o.patch_size = c.get_int("patch_size");
  FE_CHECK(o.patch_size > 0 && o.image_size >= o.patch_size, ValueError, c.origin(), ": field '", prefix,
           "patch_size' = ", o.patch_size, " must be in [1, image_size = ", o.image_size, "]");
  o.num_channels = c.get_int("num_channels", 3);
  o.pooler_output_size = c.get_int("pooler_output_size", o.hidden_size);
  o.hidden_act = c.get_string("hidden_act", "gelu");
  check_activation(o.hidden_act, c.origin(), prefix + "hidden_act");
  o.pooler_act = c.get_string("pooler_act", "tanh");
  check_activation(o.pooler_act, c.origin(), prefix + "pooler_act");
  o.layer_norm_eps = c.get_double("layer_norm_eps", 1e-12);
  o.qkv_bias = c.get_bool("qkv_bias", true);
  o.hidden_dropout_prob = c.get_double("hidden_dropout_prob", 0.0);
  return o;
}

// ---- embeddings

ViTPatchEmbeddings::ViTPatchEmbeddings(const ViTOptions& o)
    : projection(register_module("projection",
                                 std::make_shared<Conv2d>(o.num_channels, o.hidden_size, o.patch_size, o.patch_size))) {}

Tensor ViTPatchEmbeddings::operator()(const Tensor& pixel_values) {
  nn::ModuleCallScope scope(*this);
  FE_CHECK(pixel_values.dim() == 4 && pixel_values.size(1) == projection->in_channels, ValueError,
           "Make sure that the channel dimension of the pixel values match with the one set in the configuration. "
           "Expected ", projection->in_channels, " but got ", pixel_values.dim() == 4 ? pixel_values.size(1) : SymInt(-1), ".");
  return (*projection)(pixel_values).flatten(2).transpose(1, 2);
}

ViTEmbeddings::ViTEmbeddings(const ViTOptions& o)
    : image_size(o.image_size),
      cls_token(register_parameter("cls_token", randn({1, 1, o.hidden_size}))),
      patch_embeddings(register_module("patch_embeddings", std::make_shared<ViTPatchEmbeddings>(o))),
      position_embeddings(register_parameter("position_embeddings", randn({1, o.num_patches() + 1, o.hidden_size}))),
      dropout(register_module("dropout", std::make_shared<nn::Dropout>(o.hidden_dropout_prob))) {}

Tensor ViTEmbeddings::operator()(const Tensor& pixel_values) {
  nn::ModuleCallScope scope(*this);
  const SymInt batch_size = pixel_values.size(0);
  // interpolate_pos_encoding is not an input here: HF then requires the configured image size.
  FE_CHECK(pixel_values.size(2) == image_size && pixel_values.size(3) == image_size, ValueError,
           "Input image size (", pixel_values.size(2), "*", pixel_values.size(3), ") doesn't match model (",
           image_size, "*", image_size, ").");
  Tensor embeddings = (*patch_embeddings)(pixel_values);
  Tensor cls_tokens = cls_token.expand({batch_size, -1, -1});
  embeddings = cat({cls_tokens, embeddings}, 1);
  embeddings = embeddings + position_embeddings;
  return (*dropout)(embeddings);
}

// ---- encoder layer

ViTAttention::ViTAttention(const ViTOptions& o)
    : head_dim(o.head_dim),
      scaling(std::pow(static_cast<double>(o.head_dim), -0.5)),
      q_proj(register_module("q_proj", std::make_shared<nn::Linear>(o.hidden_size, o.num_attention_heads * o.head_dim, o.qkv_bias))),
      k_proj(register_module("k_proj", std::make_shared<nn::Linear>(o.hidden_size, o.num_attention_heads * o.head_dim, o.qkv_bias))),
      v_proj(register_module("v_proj", std::make_shared<nn::Linear>(o.hidden_size, o.num_attention_heads * o.head_dim, o.qkv_bias))),
      o_proj(register_module("o_proj", std::make_shared<nn::Linear>(o.num_attention_heads * o.head_dim, o.hidden_size, true))) {}

Tensor ViTAttention::operator()(const Tensor& hidden_states, const Tensor& mask) {
  nn::ModuleCallScope scope(*this);
  // hidden_shape = (*input_shape, -1, self.head_dim)
  const SymInt b = hidden_states.size(0), n = hidden_states.size(1);
  Tensor q = (*q_proj)(hidden_states).view({b, n, -1, head_dim}).transpose(1, 2);
  Tensor k = (*k_proj)(hidden_states).view({b, n, -1, head_dim}).transpose(1, 2);
  Tensor v = (*v_proj)(hidden_states).view({b, n, -1, head_dim}).transpose(1, 2);
  masks::is_causal_probe(q);
  Tensor out = scaled_dot_product_attention(q, k, v, mask, 0.0, false, scaling);
  out = out.transpose(1, 2).contiguous();
  out = out.reshape({b, n, -1}).contiguous();
  return (*o_proj)(out);
}

ViTMLP::ViTMLP(const ViTOptions& o)
    : activation_fn(register_module("activation_fn", std::make_shared<HFActivation>(o.hidden_act))),
      fc1(register_module("fc1", std::make_shared<nn::Linear>(o.hidden_size, o.intermediate_size))),
      fc2(register_module("fc2", std::make_shared<nn::Linear>(o.intermediate_size, o.hidden_size))) {}

Tensor ViTMLP::operator()(const Tensor& x) {
  nn::ModuleCallScope scope(*this);
  return (*fc2)((*activation_fn)((*fc1)(x)));
}

ViTLayer::ViTLayer(const ViTOptions& o)
    : attention(register_module("attention", std::make_shared<ViTAttention>(o))),
      layernorm_before(register_module("layernorm_before", std::make_shared<nn::LayerNorm>(o.hidden_size, o.layer_norm_eps))),
      layernorm_after(register_module("layernorm_after", std::make_shared<nn::LayerNorm>(o.hidden_size, o.layer_norm_eps))),
      mlp(register_module("mlp", std::make_shared<ViTMLP>(o))),
      dropout(register_module("dropout", std::make_shared<nn::Dropout>(o.hidden_dropout_prob))) {}

Tensor ViTLayer::operator()(const Tensor& hidden_states, const Tensor& mask) {
  nn::ModuleCallScope scope(*this);
  Tensor residual = hidden_states;
  Tensor h = (*attention)((*layernorm_before)(hidden_states), mask);
  h = (*dropout)(h);
  h = h + residual;
  residual = h;
  h = (*mlp)((*layernorm_after)(h));
  h = (*dropout)(h);
  return h + residual;
}

ViTPooler::ViTPooler(const ViTOptions& o)
    : dense(register_module("dense", std::make_shared<nn::Linear>(o.hidden_size, o.pooler_output_size))),
      activation(register_module("activation", std::make_shared<HFActivation>(o.pooler_act))) {}

Tensor ViTPooler::operator()(const Tensor& hidden_states) {
  nn::ModuleCallScope scope(*this);
  Tensor first_token_tensor = masks::getitem(hidden_states, ":0");  // hidden_states[:, 0]
  return (*activation)((*dense)(first_token_tensor));
}

// ---- ViTModel

ViTModel::ViTModel(const ViTOptions& o, bool add_pooling_layer) : opts(o) {
  embeddings = register_module("embeddings", std::make_shared<ViTEmbeddings>(o));
  layers = register_module("layers", std::make_shared<nn::ModuleList>());
  for (int64_t i = 0; i < o.num_hidden_layers; ++i) {
    layer_list.push_back(std::make_shared<ViTLayer>(o));
    layers->push_back(layer_list.back());
  }
  layernorm = register_module("layernorm", std::make_shared<nn::LayerNorm>(o.hidden_size, o.layer_norm_eps));
  if (add_pooling_layer) pooler = register_module("pooler", std::make_shared<ViTPooler>(o));
  emb_dev_ = UnitDevice(*embeddings);
  norm_dev_ = UnitDevice(*layernorm);
  if (pooler) pool_dev_ = UnitDevice(*pooler);
  for (auto& l : layer_list) layer_dev_.emplace_back(*l);
}

void ViTModel::append_units(std::vector<Unit>& out, const std::string& prefix) const {
  out.push_back({prefix + "embeddings", false});
  for (int64_t i = 0; i < opts.num_hidden_layers; ++i) out.push_back({prefix + "layers." + std::to_string(i), true});
  out.push_back({prefix + "layernorm", false});
  if (pooler) out.push_back({prefix + "pooler", false});
}

ViTModel::Output ViTModel::operator()(const Tensor& pixel_values_in) {
  nn::ModuleCallScope scope(*this);
  Tensor pixel_values = emb_dev_.to(pixel_values_in);
  // Kept for BC in HF: pixel values are cast to the projection's dtype.
  const DType expected = embeddings->patch_embeddings->projection->weight.dtype();
  if (pixel_values.dtype() != expected) pixel_values = pixel_values.to(expected);
  Tensor hidden = (*embeddings)(pixel_values);
  // create_bidirectional_mask(config, embedding_output, attention_mask=None)
  Tensor mask = masks::create_bidirectional_mask(hidden, Tensor());
  for (size_t i = 0; i < layer_list.size(); ++i) {
    // The layer's inputs in its argument order (hidden_states, attention_mask).
    hidden = layer_dev_[i].to(hidden);
    mask = layer_dev_[i].to(mask);
    hidden = (*layer_list[i])(hidden, mask);
  }
  Output out;
  out.last_hidden_state = (*layernorm)(norm_dev_.to(hidden));
  if (pooler) out.pooler_output = (*pooler)(pool_dev_.to(out.last_hidden_state));
  return out;
}

std::string vit_state_dict_key(std::string_view key, std::string_view prefix) {
  if (key.substr(0, prefix.size()) != prefix) return std::string(key);
  // In HF's order: the first renaming that applies to a piece wins over later ones
  // ("attention.output.dense" before "output.dense").
  static const std::pair<std::string_view, std::string_view> kRenames[] = {
      {"encoder.layer.", "layers."},          {"attention.query", "q_proj"},   {"attention.key", "k_proj"},
      {"attention.value", "v_proj"},          {"attention.output.dense", "attention.o_proj"},
      {"intermediate.dense", "mlp.fc1"},      {"output.dense", "mlp.fc2"},
  };
  std::string rest(key.substr(prefix.size()));
  for (const auto& [from, to] : kRenames)
    if (size_t at = rest.find(from); at != std::string::npos) rest.replace(at, from.size(), to);
  return std::string(prefix) + rest;
}

Tensor example_pixels(int64_t batch, const ViTOptions& o, Device device) {
  // float32 whatever the model's dtype, as image processors return them (the model casts).
  return randn({batch, o.num_channels, o.image_size, o.image_size}, {.dtype = DType::Float32, .device = device});
}

// ---- the vit family: ViTForImageClassification

namespace {

// PreTrainedConfig: num_labels = len(id2label), else the num_labels argument, else 2.
int64_t num_labels_of(const Config& c) {
  if (!c.is_null("id2label")) return c.size_of("id2label", 2);
  return c.get_int("num_labels", 2);
}

class ViTForImageClassification : public Model {
 public:
  explicit ViTForImageClassification(const Config& c) : opts_(ViTOptions::from(c)), num_labels_(num_labels_of(c)) {
    vit = register_module("vit", std::make_shared<ViTModel>(opts_, false));
    // num_labels == 0: nn.Identity() (no parameters); the logits are the [CLS] features.
    if (num_labels_ > 0) {
      classifier = register_module("classifier", std::make_shared<nn::Linear>(opts_.hidden_size, num_labels_));
      head_dev_ = UnitDevice(*classifier);
    }
  }
  std::string type_name() const override {
    return "transformers.models.vit.modeling_vit.ViTForImageClassification";
  }
  std::string model_type() const override { return "vit"; }
  std::vector<std::string> forward_arg_names() const override { return {"pixel_values"}; }
  std::vector<Unit> units() const override {
    std::vector<Unit> u;
    vit->append_units(u, "vit.");
    if (classifier) u.push_back({"classifier", false});
    return u;
  }

  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& args) override {
    FE_CHECK(args.size() == 1, ValueError, "ViTForImageClassification.forward() takes 1 tensor argument "
             "(pixel_values) but ", args.size(), " were given");
    nn::ModuleCallScope scope(*this);
    Tensor sequence_output = (*vit)(args[0]).last_hidden_state;
    Tensor pooled_output = masks::getitem(sequence_output, ":0:");  // sequence_output[:, 0, :]
    if (!classifier) return {pooled_output};
    return {(*classifier)(head_dev_.to(pooled_output))};
  }

  // Checkpoints keep ViT's pre-5.x names (vit.encoder.layer.N.attention.attention.query...).
  std::string checkpoint_key(std::string_view k) const override { return vit_state_dict_key(k, "vit."); }

  ExampleInputs example_inputs(const InputOptions& o) override {
    ExampleInputs in;
    in.args.push_back(example_pixels(batch_or(o, 2), opts_, module_device(*vit->embeddings)));
    if (o.dynamic_batch)
      in.dynamic_shapes["pixel_values"] = {Dim("batch", o.batch_min, o.batch_max), Dim::STATIC, Dim::STATIC,
                                           Dim::STATIC};
    return in;
  }

  std::shared_ptr<ViTModel> vit;
  std::shared_ptr<nn::Linear> classifier;

 private:
  ViTOptions opts_;
  int64_t num_labels_;
  UnitDevice head_dev_;
};

}  // namespace

std::unique_ptr<Model> build_vit(const Config& c) { return std::make_unique<ViTForImageClassification>(c); }

// ViT-Base's layout at a twelfth of the width: 4 layers of 64 wide, 4 heads, 224-pixel images in
// 16-pixel patches (197 tokens), 10 classes.
std::string_view default_config_vit() {
  return R"({"model_type": "vit", "hidden_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4,
 "intermediate_size": 256, "image_size": 224, "patch_size": 16, "num_channels": 3, "num_labels": 10})";
}

}  // namespace fe::zoo
