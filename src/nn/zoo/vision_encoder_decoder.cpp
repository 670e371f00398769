// model_type "vision-encoder-decoder": transformers 5.12's VisionEncoderDecoderModel for a ViT
// encoder and a GPT-2 decoder (the pairing of ../shared/seeds/002): encoder = AutoModel(vit) =
// ViTModel WITH its pooler, decoder = AutoModelForCausalLM(gpt2) = GPT2LMHeadModel with
// cross-attention, enc_to_dec_proj when the widths differ. forward(pixel_values, decoder_input_ids)
// returns what torch.export returns of HF's Seq2SeqLMOutput: (logits, encoder_last_hidden_state).
#include "fakeexport/core/error.h"
#include "fakeexport/ops/api.h"
#include "nn/zoo/families.h"
#include "nn/zoo/gpt2_parts.h"
#include "nn/zoo/vit_parts.h"

namespace fe::zoo {
namespace {

Config checked_sub(const Config& c, std::string_view key, std::string_view want) {
  Config s = c.sub(key);
  const std::string mt = s.model_type();
  FE_CHECK(mt == want, ValueError, c.origin(), ": field '", key, ".model_type' = '", mt,
           "' is not supported (the vision-encoder-decoder family implements a ", want, " ", key, ")");
  return s;
}

/// GPT2LMHeadModel as the "decoder" child (the gpt2 family's root is a zoo::Model instead).
class GPT2LMHeadDecoder : public nn::Module {
 public:
  explicit GPT2LMHeadDecoder(const GPT2Options& o) {
    transformer = register_module("transformer", std::make_shared<GPT2Model>(o));
    lm_head = register_module("lm_head", make_gpt2_lm_head(o, *transformer));
    head_dev_ = UnitDevice(*lm_head);
  }
  std::string type_name() const override { return "transformers.models.gpt2.modeling_gpt2.GPT2LMHeadModel"; }
  Tensor operator()(const Tensor& input_ids, const Tensor& encoder_hidden_states) {
    nn::ModuleCallScope scope(*this);
    Tensor hidden = (*transformer)(input_ids, encoder_hidden_states);
    return gpt2_logits(*lm_head, head_dev_, hidden);
  }
  std::shared_ptr<GPT2Model> transformer;
  std::shared_ptr<nn::Linear> lm_head;

 private:
  UnitDevice head_dev_;
};

class VisionEncoderDecoderModel : public Model {
 public:
  explicit VisionEncoderDecoderModel(const Config& c)
      : enc_(ViTOptions::from(checked_sub(c, "encoder", "vit"), "encoder.")),
        dec_(GPT2Options::from(checked_sub(c, "decoder", "gpt2"), "decoder.")) {
    const Config dc = c.sub("decoder");
    // from_encoder_decoder_configs sets add_cross_attention; without it the decoder ignores the image.
    FE_CHECK(dec_.add_cross_attention, ValueError, c.origin(), ": field 'decoder.add_cross_attention' = false is "
             "not supported (GPT2Block needs cross-attention layers to take encoder_hidden_states)");
    const bool has_cross_size = !dc.is_null("cross_attention_hidden_size");
    if (has_cross_size) {
      const int64_t cs = dc.get_int("cross_attention_hidden_size");
      FE_CHECK(cs == enc_.hidden_size, ValueError, c.origin(), ": field 'decoder.cross_attention_hidden_size' = ",
               cs, " must equal encoder.hidden_size = ", enc_.hidden_size);
      // GPT2's cross-attention reads n_embd-wide states: without a projection the widths must agree.
      FE_CHECK(cs == dec_.n_embd, ValueError, c.origin(), ": field 'decoder.cross_attention_hidden_size' = ", cs,
               " is not supported (GPT2 cross-attention needs n_embd = ", dec_.n_embd, ")");
    }
    encoder = register_module("encoder", std::make_shared<ViTModel>(enc_, true));
    decoder = register_module("decoder", std::make_shared<GPT2LMHeadDecoder>(dec_));
    if (enc_.hidden_size != dec_.n_embd && !has_cross_size) {
      enc_to_dec_proj = register_module("enc_to_dec_proj", std::make_shared<nn::Linear>(enc_.hidden_size, dec_.n_embd));
      proj_dev_ = UnitDevice(*enc_to_dec_proj);
    }
  }
  std::string type_name() const override {
    return "transformers.models.vision_encoder_decoder.modeling_vision_encoder_decoder.VisionEncoderDecoderModel";
  }
  std::string model_type() const override { return "vision-encoder-decoder"; }
  std::vector<std::string> forward_arg_names() const override { return {"pixel_values", "decoder_input_ids"}; }

  // The projection runs between encoder and decoder, so it is a unit there (registered last in HF).
  std::vector<Unit> units() const override {
    std::vector<Unit> u;
    encoder->append_units(u, "encoder.");
    if (enc_to_dec_proj) u.push_back({"enc_to_dec_proj", false});
    decoder->transformer->append_units(u, "decoder.transformer.");
    u.push_back({"decoder.lm_head", false});
    return u;
  }

  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& args) override {
    FE_CHECK(args.size() == 2, ValueError, "VisionEncoderDecoderModel.forward() takes 2 tensor arguments "
             "(pixel_values, decoder_input_ids) but ", args.size(), " were given");
    nn::ModuleCallScope scope(*this);
    ViTModel::Output enc = (*encoder)(args[0]);
    Tensor encoder_hidden_states = enc.last_hidden_state;
    if (enc_to_dec_proj) encoder_hidden_states = (*enc_to_dec_proj)(proj_dev_.to(encoder_hidden_states));
    Tensor logits = (*decoder)(args[1], encoder_hidden_states);
    // Seq2SeqLMOutput's tensors, as export returns them: logits, encoder_last_hidden_state (the
    // encoder's pooler_output is computed but not returned).
    return {logits, enc.last_hidden_state};
  }

  // Checkpoints keep ViT's pre-5.x names (encoder.encoder.layer.N.attention.attention.query...).
  std::string checkpoint_key(std::string_view k) const override { return vit_state_dict_key(k, "encoder."); }

  ExampleInputs example_inputs(const InputOptions& o) override {
    ExampleInputs in;
    const int64_t b = batch_or(o, 2);
    in.args.push_back(example_pixels(b, enc_, module_device(*encoder->embeddings)));
    in.args.push_back(token_ids(b, seq_or(o, 8), dec_.vocab_size, module_device(*encoder->embeddings)));
    if (o.dynamic_batch || o.dynamic_seq) {
      DimSpec batch = o.dynamic_batch ? DimSpec(Dim("batch", o.batch_min, o.batch_max)) : DimSpec(Dim::STATIC);
      in.dynamic_shapes["pixel_values"] = {batch, Dim::STATIC, Dim::STATIC, Dim::STATIC};
      in.dynamic_shapes["decoder_input_ids"] = batch_seq_dims(o, dec_.n_positions);
    }
    return in;
  }

  std::shared_ptr<ViTModel> encoder;
  std::shared_ptr<GPT2LMHeadDecoder> decoder;
  std::shared_ptr<nn::Linear> enc_to_dec_proj;

 private:
  ViTOptions enc_;
  GPT2Options dec_;
  UnitDevice proj_dev_;
};

}  // namespace

std::unique_ptr<Model> build_vision_encoder_decoder(const Config& c) {
  return std::make_unique<VisionEncoderDecoderModel>(c);
}

// A small image captioner: a 2-layer, 64-wide ViT over 224-pixel images in 16-pixel patches and a
// 2-layer, 64-wide GPT-2 decoder over the seed's 1024-token vocabulary.
std::string_view default_config_vision_encoder_decoder() {
  return R"({"model_type": "vision-encoder-decoder", "is_encoder_decoder": true,
 "encoder": {"model_type": "vit", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
             "intermediate_size": 256, "image_size": 224, "patch_size": 16, "num_channels": 3},
 "decoder": {"model_type": "gpt2", "vocab_size": 1024, "n_positions": 256, "n_embd": 64, "n_layer": 2,
             "n_head": 4, "add_cross_attention": true, "is_decoder": true}})";
}

}  // namespace fe::zoo
