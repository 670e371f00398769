// model_type "clip": transformers 5.12's CLIPModel, statement for statement as modeling_clip.py
// records under torch.export (eval, sdpa attention): a causal text tower pooled at the first eos
// token (or, for configs with eos_token_id 2, at the largest token id), a ViT-like vision tower
// pooled at its class token, both projected, normalized and compared by a scaled dot product.
// Outputs as export returns the CLIPOutput: logits_per_image, logits_per_text, text_embeds,
// image_embeds, the text model's (last_hidden_state, pooler_output), the vision model's.
#include <cmath>

#include "fakeexport/core/error.h"
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "nn/zoo/bert_common.h"
#include "nn/zoo/families.h"
#include "nn/zoo/masking.h"
#include "nn/zoo/vit_parts.h"

namespace fe::zoo {
namespace {

constexpr const char* kPrefix = "transformers.models.clip.modeling_clip.";

/// The fields of one tower's config (CLIPTextConfig / CLIPVisionConfig) the modules read.
struct TowerOptions {
  int64_t hidden = 0, intermediate = 0, layers = 0, heads = 0;
  double eps = 1e-5;
  std::string act = "quick_gelu";
  // text
  int64_t vocab = 0, max_positions = 0, eos_token_id = 0;
  // vision
  int64_t image_size = 0, patch_size = 0, channels = 3;

  static TowerOptions from(const Config& c, const std::string& prefix, bool text) {
    TowerOptions o;
    o.hidden = c.get_int("hidden_size", text ? 512 : 768);
    o.intermediate = c.get_int("intermediate_size", text ? 2048 : 3072);
    o.layers = c.get_int("num_hidden_layers", 12);
    o.heads = c.get_int("num_attention_heads", text ? 8 : 12);
    o.eps = c.get_double("layer_norm_eps", 1e-5);
    o.act = c.get_string("hidden_act", "quick_gelu");
    check_activation(o.act, c.origin(), prefix + "hidden_act");
    const std::pair<const char*, int64_t> sizes[] = {
        {"hidden_size", o.hidden}, {"intermediate_size", o.intermediate}, {"num_attention_heads", o.heads}};
    for (const auto& [name, v] : sizes)
      FE_CHECK(v > 0, ValueError, c.origin(), ": field '", prefix, name, "' value ", v, " must be positive");
    FE_CHECK(o.layers >= 0, ValueError, c.origin(), ": field '", prefix, "num_hidden_layers' value ", o.layers,
             " must not be negative");
    hf::check_divisible(c, prefix + "hidden_size", o.hidden, prefix + "num_attention_heads", o.heads);
    if (text) {
      o.vocab = c.get_int("vocab_size", 49408);
      o.max_positions = c.get_int("max_position_embeddings", 77);
      FE_CHECK(o.vocab > 0 && o.max_positions > 0, ValueError, c.origin(), ": fields '", prefix, "vocab_size' (",
               o.vocab, ") and '", prefix, "max_position_embeddings' (", o.max_positions, ") must be positive");
      o.eos_token_id = c.get_int("eos_token_id", 49407);
    } else {
      o.image_size = c.get_int("image_size", 224);  // a [h, w] list is an "must be an integer" error naming it
      o.patch_size = c.get_int("patch_size", 32);
      o.channels = c.get_int("num_channels", 3);
      FE_CHECK(o.patch_size > 0 && o.image_size >= o.patch_size && o.channels > 0, ValueError, c.origin(),
               ": field '", prefix, "patch_size' = ", o.patch_size, " must be in [1, image_size = ", o.image_size,
               "] and num_channels (", o.channels, ") positive");
    }
    return o;
  }
  int64_t num_positions() const { return (image_size / patch_size) * (image_size / patch_size) + 1; }
};

class CLIPTextEmbeddings : public nn::Module {
 public:
  explicit CLIPTextEmbeddings(const TowerOptions& o)
      : token_embedding(register_module("token_embedding", std::make_shared<nn::Embedding>(o.vocab, o.hidden))),
        position_embedding(
            register_module("position_embedding", std::make_shared<nn::Embedding>(o.max_positions, o.hidden))),
        // torch.arange(max_position_embeddings).expand((1, -1)), non-persistent
        position_ids(register_buffer(
            "position_ids", known_buffer([&] { return arange(Scalar(o.max_positions)).expand({1, -1}); }), false)) {}
  std::string type_name() const override { return std::string(kPrefix) + "CLIPTextEmbeddings"; }
  Tensor operator()(const Tensor& input_ids) {
    nn::ModuleCallScope scope(*this);
    const SymInt seq = input_ids.size(-1);
    const int64_t max_positions = position_embedding->weight.size(0).expect_int();
    FE_CHECK(!(seq > max_positions), ValueError, "Sequence length must be less than max_position_embeddings (got "
             "`sequence length`: ", seq, " and max_position_embeddings: ", max_positions);
    // self.position_ids[:, :seq_length]: export records the omitted start as 0, or as None when
    // seq_length is symbolic.
    static const OpDef& slice = op("aten::slice.Tensor");
    Tensor pos = seq.is_symbolic()
                     ? dispatch1(slice, {position_ids, SymInt(1), IValue(), IValue(seq), SymInt(1)}, SrcLocArg::current())
                     : hf::slice_to(position_ids, 1, 0, seq);
    Tensor inputs_embeds = (*token_embedding)(input_ids);
    Tensor position_embeddings = (*position_embedding)(pos);
    return inputs_embeds + position_embeddings;
  }
  std::shared_ptr<nn::Embedding> token_embedding, position_embedding;
  Tensor& position_ids;
};

class CLIPVisionEmbeddings : public nn::Module {
 public:
  explicit CLIPVisionEmbeddings(const TowerOptions& o)
      : image_size(o.image_size),
        class_embedding(register_parameter("class_embedding", randn({o.hidden}))),
        patch_embedding(register_module(
            "patch_embedding", std::make_shared<Conv2d>(o.channels, o.hidden, o.patch_size, o.patch_size, false))),
        position_embedding(
            register_module("position_embedding", std::make_shared<nn::Embedding>(o.num_positions(), o.hidden))),
        position_ids(register_buffer(
            "position_ids", known_buffer([&] { return arange(Scalar(o.num_positions())).expand({1, -1}); }), false)) {}
  std::string type_name() const override { return std::string(kPrefix) + "CLIPVisionEmbeddings"; }
  Tensor operator()(const Tensor& pixel_values) {
    nn::ModuleCallScope scope(*this);
    FE_CHECK(pixel_values.dim() == 4 && pixel_values.size(1) == patch_embedding->in_channels, ValueError,
             "CLIP: pixel_values must be [batch, ", patch_embedding->in_channels, ", ", image_size, ", ", image_size,
             "], got ", pixel_values.dim(), " dims");
    const SymInt batch_size = pixel_values.size(0);
    // interpolate_pos_encoding is not an input: HF then requires the configured image size.
    FE_CHECK(pixel_values.size(2) == image_size && pixel_values.size(3) == image_size, ValueError,
             "Input image size (", pixel_values.size(2), "*", pixel_values.size(3), ") doesn't match model (",
             image_size, "*", image_size, ").");
    Tensor patch_embeds = (*patch_embedding)(pixel_values.to(patch_embedding->weight.dtype()));
    patch_embeds = patch_embeds.flatten(2).transpose(1, 2);
    Tensor class_embeds = class_embedding.expand({batch_size, 1, -1});
    Tensor embeddings = cat({class_embeds, patch_embeds}, 1);
    return embeddings + (*position_embedding)(position_ids);
  }
  const int64_t image_size;
  Tensor& class_embedding;
  std::shared_ptr<Conv2d> patch_embedding;
  std::shared_ptr<nn::Embedding> position_embedding;
  Tensor& position_ids;
};

class CLIPAttention : public nn::Module {
 public:
  explicit CLIPAttention(const TowerOptions& o)
      : head_dim(o.hidden / o.heads),
        scale(std::pow(static_cast<double>(o.hidden / o.heads), -0.5)),
        // CLIPAttention registers k, v, q, then out_proj
        k_proj(register_module("k_proj", std::make_shared<nn::Linear>(o.hidden, o.hidden))),
        v_proj(register_module("v_proj", std::make_shared<nn::Linear>(o.hidden, o.hidden))),
        q_proj(register_module("q_proj", std::make_shared<nn::Linear>(o.hidden, o.hidden))),
        out_proj(register_module("out_proj", std::make_shared<nn::Linear>(o.hidden, o.hidden))) {}
  std::string type_name() const override { return std::string(kPrefix) + "CLIPAttention"; }
  Tensor operator()(const Tensor& h, const Tensor& mask) {
    nn::ModuleCallScope scope(*this);
    const SymInt b = h.size(0), n = h.size(1);
    Tensor queries = (*q_proj)(h);
    Tensor keys = (*k_proj)(h);
    Tensor values = (*v_proj)(h);
    queries = queries.view({b, n, -1, head_dim}).transpose(1, 2);
    keys = keys.view({b, n, -1, head_dim}).transpose(1, 2);
    values = values.view({b, n, -1, head_dim}).transpose(1, 2);
    // sdpa_attention_forward: the vision tower passes no mask and is not causal.
    masks::is_causal_probe(queries);
    Tensor out = scaled_dot_product_attention(queries, keys, values, mask, 0.0, false, scale);
    out = out.transpose(1, 2).contiguous();
    out = out.reshape({b, n, -1}).contiguous();
    return (*out_proj)(out);
  }
  const int64_t head_dim;
  const double scale;
  std::shared_ptr<nn::Linear> k_proj, v_proj, q_proj, out_proj;
};

class CLIPMLP : public nn::UnaryModule {
 public:
  explicit CLIPMLP(const TowerOptions& o)
      : activation_fn(register_module("activation_fn", std::make_shared<HFActivation>(o.act))),
        fc1(register_module("fc1", std::make_shared<nn::Linear>(o.hidden, o.intermediate))),
        fc2(register_module("fc2", std::make_shared<nn::Linear>(o.intermediate, o.hidden))) {}
  std::string type_name() const override { return std::string(kPrefix) + "CLIPMLP"; }
  Tensor forward(const Tensor& x) override { return (*fc2)((*activation_fn)((*fc1)(x))); }
  std::shared_ptr<HFActivation> activation_fn;
  std::shared_ptr<nn::Linear> fc1, fc2;
};

class CLIPEncoderLayer : public nn::Module {
 public:
  explicit CLIPEncoderLayer(const TowerOptions& o)
      : self_attn(register_module("self_attn", std::make_shared<CLIPAttention>(o))),
        layer_norm1(register_module("layer_norm1", std::make_shared<nn::LayerNorm>(o.hidden, o.eps))),
        mlp(register_module("mlp", std::make_shared<CLIPMLP>(o))),
        layer_norm2(register_module("layer_norm2", std::make_shared<nn::LayerNorm>(o.hidden, o.eps))) {}
  std::string type_name() const override { return std::string(kPrefix) + "CLIPEncoderLayer"; }
  Tensor operator()(const Tensor& x, const Tensor& mask) {
    nn::ModuleCallScope scope(*this);
    Tensor residual = x;
    Tensor h = (*self_attn)((*layer_norm1)(x), mask);
    h = residual + h;
    residual = h;
    h = (*mlp)((*layer_norm2)(h));
    return residual + h;
  }
  std::shared_ptr<CLIPAttention> self_attn;
  std::shared_ptr<nn::LayerNorm> layer_norm1;
  std::shared_ptr<CLIPMLP> mlp;
  std::shared_ptr<nn::LayerNorm> layer_norm2;
};

/// CLIPEncoder: `layers`; each layer's inputs follow its device.
class CLIPEncoder : public nn::Module {
 public:
  explicit CLIPEncoder(const TowerOptions& o) : layers(register_module("layers", std::make_shared<nn::ModuleList>())) {
    for (int64_t i = 0; i < o.layers; ++i) {
      layer_list.push_back(std::make_shared<CLIPEncoderLayer>(o));
      layers->push_back(layer_list.back());
      layer_dev_.emplace_back(*layer_list.back());
    }
  }
  std::string type_name() const override { return std::string(kPrefix) + "CLIPEncoder"; }
  Tensor operator()(Tensor h, Tensor mask) {
    nn::ModuleCallScope scope(*this);
    for (size_t i = 0; i < layer_list.size(); ++i) {
      h = layer_dev_[i].to(h);
      if (mask.defined()) mask = layer_dev_[i].to(mask);
      h = (*layer_list[i])(h, mask);
    }
    return h;
  }
  std::shared_ptr<nn::ModuleList> layers;
  std::vector<std::shared_ptr<CLIPEncoderLayer>> layer_list;

 private:
  std::vector<UnitDevice> layer_dev_;
};

/// (last_hidden_state, pooler_output) of a tower.
struct TowerOutput {
  Tensor last_hidden_state, pooler_output;
};

class CLIPTextTransformer : public nn::Module {
 public:
  explicit CLIPTextTransformer(const TowerOptions& o)
      : embeddings(register_module("embeddings", std::make_shared<CLIPTextEmbeddings>(o))),
        encoder(register_module("encoder", std::make_shared<CLIPEncoder>(o))),
        final_layer_norm(register_module("final_layer_norm", std::make_shared<nn::LayerNorm>(o.hidden, o.eps))),
        eos_token_id(o.eos_token_id),
        emb_dev_(*embeddings),
        norm_dev_(*final_layer_norm) {}
  std::string type_name() const override { return std::string(kPrefix) + "CLIPTextModel"; }
  TowerOutput operator()(const Tensor& input_ids_in, const Tensor& attention_mask) {
    nn::ModuleCallScope scope(*this);
    Tensor input_ids = emb_dev_.to(input_ids_in);
    input_ids = input_ids.view({-1, input_ids.size(-1)});
    Tensor h = (*embeddings)(input_ids);
    // create_causal_mask without position_ids: no packed-sequence check.
    Tensor mask = masks::create_causal_mask(h, attention_mask, Tensor());
    h = (*encoder)(h, mask);
    TowerOutput out;
    out.last_hidden_state = (*final_layer_norm)(norm_dev_.to(h));
    const Tensor& last = out.last_hidden_state;
    Tensor batch_index = arange(Scalar(last.size(0)), {.device = last.device()});
    Tensor token_index;
    if (eos_token_id == 2) {
      // Configs from before transformers PR #24773: the eot token is the largest id.
      token_index = input_ids.to(last.device(), DType::Int32).argmax(-1);
    } else {
      Tensor is_eos = input_ids.to(last.device(), DType::Int32).eq(Scalar(eos_token_id));
      token_index = is_eos.to(DType::Int32).argmax(-1);
    }
    out.pooler_output = last.index({batch_index, token_index});
    return out;
  }
  std::shared_ptr<CLIPTextEmbeddings> embeddings;
  std::shared_ptr<CLIPEncoder> encoder;
  std::shared_ptr<nn::LayerNorm> final_layer_norm;
  const int64_t eos_token_id;

 private:
  UnitDevice emb_dev_, norm_dev_;
};

class CLIPVisionTransformer : public nn::Module {
 public:
  explicit CLIPVisionTransformer(const TowerOptions& o)
      : embeddings(register_module("embeddings", std::make_shared<CLIPVisionEmbeddings>(o))),
        pre_layrnorm(register_module("pre_layrnorm", std::make_shared<nn::LayerNorm>(o.hidden, o.eps))),
        encoder(register_module("encoder", std::make_shared<CLIPEncoder>(o))),
        post_layernorm(register_module("post_layernorm", std::make_shared<nn::LayerNorm>(o.hidden, o.eps))),
        emb_dev_(*embeddings),
        pre_dev_(*pre_layrnorm),
        post_dev_(*post_layernorm) {}
  std::string type_name() const override { return std::string(kPrefix) + "CLIPVisionModel"; }
  TowerOutput operator()(const Tensor& pixel_values) {
    nn::ModuleCallScope scope(*this);
    Tensor h = (*embeddings)(emb_dev_.to(pixel_values));
    h = (*pre_layrnorm)(pre_dev_.to(h));
    h = (*encoder)(h, Tensor());
    TowerOutput out;
    out.last_hidden_state = h;
    Tensor pooled = masks::getitem(h, ":0:");  // last_hidden_state[:, 0, :]
    out.pooler_output = (*post_layernorm)(post_dev_.to(pooled));
    return out;
  }
  std::shared_ptr<CLIPVisionEmbeddings> embeddings;
  std::shared_ptr<nn::LayerNorm> pre_layrnorm;
  std::shared_ptr<CLIPEncoder> encoder;
  std::shared_ptr<nn::LayerNorm> post_layernorm;

 private:
  UnitDevice emb_dev_, pre_dev_, post_dev_;
};

/// _get_vector_norm: sum(x ** 2, dim=-1, keepdim=True) ** 0.5.
Tensor vector_norm(const Tensor& x) { return x.pow(Scalar(2)).sum({-1}, true).pow(Scalar(0.5)); }

class CLIPModel : public Model {
 public:
  explicit CLIPModel(const Config& c)
      : text_(TowerOptions::from(c.has("text_config") && !c.is_null("text_config") ? c.sub("text_config")
                                                                                   : Config::parse("{}", c.origin()),
                                 "text_config.", true)),
        vision_(TowerOptions::from(c.has("vision_config") && !c.is_null("vision_config")
                                       ? c.sub("vision_config")
                                       : Config::parse("{}", c.origin()),
                                   "vision_config.", false)),
        projection_dim_(c.get_int("projection_dim", 512)) {
    FE_CHECK(projection_dim_ > 0, ValueError, c.origin(), ": field 'projection_dim' value ", projection_dim_,
             " must be positive");
    text_model = register_module("text_model", std::make_shared<CLIPTextTransformer>(text_));
    vision_model = register_module("vision_model", std::make_shared<CLIPVisionTransformer>(vision_));
    visual_projection =
        register_module("visual_projection", std::make_shared<nn::Linear>(vision_.hidden, projection_dim_, false));
    text_projection =
        register_module("text_projection", std::make_shared<nn::Linear>(text_.hidden, projection_dim_, false));
    const double init = c.get_double("logit_scale_init_value", 2.6592);
    logit_scale = &register_parameter("logit_scale", known_buffer([&] { return full({}, init); }));
    visual_dev_ = UnitDevice(*visual_projection);
    text_dev_ = UnitDevice(*text_projection);
  }
  std::string type_name() const override { return std::string(kPrefix) + "CLIPModel"; }
  std::string model_type() const override { return "clip"; }
  std::vector<std::string> forward_arg_names() const override { return {"input_ids", "pixel_values"}; }
  std::vector<Unit> units() const override {
    std::vector<Unit> u;
    u.push_back({"vision_model.embeddings", false});
    u.push_back({"vision_model.pre_layrnorm", false});
    for (int64_t i = 0; i < vision_.layers; ++i)
      u.push_back({"vision_model.encoder.layers." + std::to_string(i), true});
    u.push_back({"vision_model.post_layernorm", false});
    u.push_back({"visual_projection", false});
    u.push_back({"text_model.embeddings", false});
    for (int64_t i = 0; i < text_.layers; ++i) u.push_back({"text_model.encoder.layers." + std::to_string(i), true});
    u.push_back({"text_model.final_layer_norm", false});
    u.push_back({"text_projection", false});
    return u;
  }

  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& args) override {
    FE_CHECK(args.size() == 2 || args.size() == 3, ValueError,
             "CLIPModel.forward() takes 2 or 3 tensor arguments (input_ids, pixel_values, attention_mask) but ",
             args.size(), " were given");
    nn::ModuleCallScope scope(*this);
    // get_image_features, then get_text_features: each pooler output replaced by its projection.
    TowerOutput vision = (*vision_model)(args[1]);
    vision.pooler_output = (*visual_projection)(visual_dev_.to(vision.pooler_output));
    TowerOutput text = (*text_model)(args[0], args.size() > 2 ? args[2] : Tensor());
    text.pooler_output = (*text_projection)(text_dev_.to(text.pooler_output));
    Tensor image_embeds = vision.pooler_output, text_embeds = text.pooler_output;
    image_embeds = image_embeds / vector_norm(image_embeds);
    text_embeds = text_embeds / vector_norm(text_embeds);
    // cosine similarity as logits
    Tensor logits_per_text = text_embeds.matmul(image_embeds.t().to(text_embeds.device()));
    logits_per_text = logits_per_text * logit_scale->exp().to(text_embeds.device());
    Tensor logits_per_image = logits_per_text.t();
    return {logits_per_image, logits_per_text,         text_embeds,
            image_embeds,     text.last_hidden_state,  text.pooler_output,
            vision.last_hidden_state, vision.pooler_output};
  }

  ExampleInputs example_inputs(const InputOptions& o) override {
    const int64_t b = batch_or(o, 2), s = seq_or(o, 8);
    ExampleInputs in;
    in.args.push_back(token_ids(b, s, text_.vocab, module_device(*text_model->embeddings)));
    // float32 whatever the model's dtype, as CLIPImageProcessor returns them (the model casts).
    in.args.push_back(randn({b, vision_.channels, vision_.image_size, vision_.image_size},
                            {.dtype = DType::Float32, .device = module_device(*vision_model->embeddings)}));
    if (o.dynamic_batch || o.dynamic_seq) {
      // One batch for texts and images; the texts' length up to the text positions.
      in.dynamic_shapes["input_ids"] = batch_seq_dims(o, text_.max_positions);
      const DimSpec batch = in.dynamic_shapes["input_ids"].at(0);
      in.dynamic_shapes["pixel_values"] = {batch, Dim::STATIC, Dim::STATIC, Dim::STATIC};
    }
    if (o.attention_mask) {
      in.args.push_back(ones({b, s}, {.dtype = DType::Int64, .device = in.args[0].device()}));
      if (o.dynamic_batch || o.dynamic_seq) in.dynamic_shapes["attention_mask"] = in.dynamic_shapes["input_ids"];
    }
    return in;
  }

  std::shared_ptr<CLIPTextTransformer> text_model;
  std::shared_ptr<CLIPVisionTransformer> vision_model;
  std::shared_ptr<nn::Linear> visual_projection, text_projection;
  Tensor* logit_scale = nullptr;

 private:
  TowerOptions text_, vision_;
  int64_t projection_dim_;
  UnitDevice visual_dev_, text_dev_;
};

}  // namespace

std::unique_ptr<Model> build_clip(const Config& c) { return std::make_unique<CLIPModel>(c); }

// CLIP ViT-B/32's layout at an eighth of the width: 2 + 2 layers, 224-pixel images in 32-pixel
// patches (50 tokens), 77 text positions, quick_gelu.
std::string_view default_config_clip() {
  return R"({"model_type": "clip", "projection_dim": 64,
 "text_config": {"vocab_size": 1024, "hidden_size": 64, "intermediate_size": 256, "num_hidden_layers": 2,
                 "num_attention_heads": 4, "max_position_embeddings": 77, "eos_token_id": 1023},
 "vision_config": {"hidden_size": 96, "intermediate_size": 384, "num_hidden_layers": 2, "num_attention_heads": 4,
                   "image_size": 224, "patch_size": 32}})";
}

}  // namespace fe::zoo
