// ViT building blocks shared by the vit family (ViTForImageClassification's "vit") and the
// vision-encoder-decoder's encoder (ViTModel with its pooler). Private to src/nn/zoo; names,
// registration order and math follow transformers 5.12's modeling_vit.py, whose layers are
// `layers.N.{attention.{q,k,v,o}_proj, layernorm_before, layernorm_after, mlp.fc1/fc2}`.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "fakeexport/nn/layers.h"
#include "nn/zoo/gpt2_parts.h"

namespace fe::zoo {

/// torch.nn.Conv2d (padding 0, dilation 1, groups 1): weight [out, in, kh, kw], bias [out].
class Conv2d : public nn::UnaryModule {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride, bool bias = true);
  std::string type_name() const override { return "torch.nn.modules.conv.Conv2d"; }
  Tensor forward(const Tensor& x) override;
  const int64_t in_channels, out_channels, kernel_size, stride;
  Tensor& weight;
  Tensor& bias;
};

/// ViTConfig fields the modules read, with HF's defaults.
struct ViTOptions {
  int64_t hidden_size, num_hidden_layers, num_attention_heads, head_dim, intermediate_size;
  int64_t image_size, patch_size, num_channels, pooler_output_size;
  std::string hidden_act, pooler_act;
  double layer_norm_eps;
  double hidden_dropout_prob = 0.0;  ///< recorded as eval-mode dropout nodes
  bool qkv_bias;
  /// `prefix` names nested configs in errors ("encoder.").
  static ViTOptions from(const Config& c, const std::string& prefix = "");
  int64_t num_patches() const { return (image_size / patch_size) * (image_size / patch_size); }
};

class ViTPatchEmbeddings : public nn::Module {
 public:
  explicit ViTPatchEmbeddings(const ViTOptions& o);
  std::string type_name() const override { return "transformers.models.vit.modeling_vit.ViTPatchEmbeddings"; }
  Tensor operator()(const Tensor& pixel_values);
  std::shared_ptr<Conv2d> projection;
};

class ViTEmbeddings : public nn::Module {
 public:
  explicit ViTEmbeddings(const ViTOptions& o);
  std::string type_name() const override { return "transformers.models.vit.modeling_vit.ViTEmbeddings"; }
  Tensor operator()(const Tensor& pixel_values);
  const int64_t image_size;
  Tensor& cls_token;
  std::shared_ptr<ViTPatchEmbeddings> patch_embeddings;
  Tensor& position_embeddings;
  std::shared_ptr<nn::Dropout> dropout;
};

class ViTAttention : public nn::Module {
 public:
  explicit ViTAttention(const ViTOptions& o);
  std::string type_name() const override { return "transformers.models.vit.modeling_vit.ViTAttention"; }
  Tensor operator()(const Tensor& hidden_states, const Tensor& mask);
  const int64_t head_dim;
  const double scaling;
  std::shared_ptr<nn::Linear> q_proj, k_proj, v_proj, o_proj;
};

class ViTMLP : public nn::Module {
 public:
  explicit ViTMLP(const ViTOptions& o);
  std::string type_name() const override { return "transformers.models.vit.modeling_vit.ViTMLP"; }
  Tensor operator()(const Tensor& x);
  std::shared_ptr<HFActivation> activation_fn;
  std::shared_ptr<nn::Linear> fc1, fc2;
};

class ViTLayer : public nn::Module {
 public:
  explicit ViTLayer(const ViTOptions& o);
  std::string type_name() const override { return "transformers.models.vit.modeling_vit.ViTLayer"; }
  Tensor operator()(const Tensor& hidden_states, const Tensor& mask);
  std::shared_ptr<ViTAttention> attention;
  std::shared_ptr<nn::LayerNorm> layernorm_before, layernorm_after;
  std::shared_ptr<ViTMLP> mlp;
  std::shared_ptr<nn::Dropout> dropout;
};

class ViTPooler : public nn::Module {
 public:
  explicit ViTPooler(const ViTOptions& o);
  std::string type_name() const override { return "transformers.models.vit.modeling_vit.ViTPooler"; }
  Tensor operator()(const Tensor& hidden_states);
  std::shared_ptr<nn::Linear> dense;
  std::shared_ptr<HFActivation> activation;
};

/// ViTModel: embeddings, layers.N, layernorm, pooler (add_pooling_layer). Each is a unit.
class ViTModel : public nn::Module {
 public:
  ViTModel(const ViTOptions& o, bool add_pooling_layer);
  std::string type_name() const override { return "transformers.models.vit.modeling_vit.ViTModel"; }
  struct Output {
    Tensor last_hidden_state, pooler_output;  ///< pooler_output undefined without a pooler
  };
  Output operator()(const Tensor& pixel_values);
  /// Units under `prefix` ("vit." or "encoder.") in forward order.
  void append_units(std::vector<Unit>& out, const std::string& prefix) const;

  ViTOptions opts;
  std::shared_ptr<ViTEmbeddings> embeddings;
  std::shared_ptr<nn::ModuleList> layers;
  std::shared_ptr<nn::LayerNorm> layernorm;
  std::shared_ptr<ViTPooler> pooler;
  std::vector<std::shared_ptr<ViTLayer>> layer_list;

 private:
  UnitDevice emb_dev_, norm_dev_, pool_dev_;
  std::vector<UnitDevice> layer_dev_;
};

/// The 5.12 state_dict name of a ViT checkpoint key: HF's ViTModel WeightRenaming (conversion_mapping.py),
/// applied under `prefix` ("vit." / "encoder.") as from_pretrained does. Hub checkpoints, and what
/// save_pretrained writes, keep the legacy names ("vit.encoder.layer.0.attention.attention.query.weight"
/// -> "vit.layers.0.attention.q_proj.weight"); other keys are returned unchanged.
std::string vit_state_dict_key(std::string_view checkpoint_key, std::string_view prefix);

/// randn [batch, C, image_size, image_size] on `device` (the default dtype).
Tensor example_pixels(int64_t batch, const ViTOptions& o, Device device);

}  // namespace fe::zoo
