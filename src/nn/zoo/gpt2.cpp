// model_type "gpt2": transformers 5.12's GPT2LMHeadModel (transformer.{wte, wpe, h.N, ln_f} + lm_head
// tied to wte), and the GPT-2 pieces of gpt2_parts.h that the vision-encoder-decoder reuses.
// Attention is HF's default "sdpa" path: F.scaled_dot_product_attention with scale=self.scaling,
// is_causal for self-attention (no mask input), bidirectional for cross-attention.
#include <cmath>
#include <numbers>

#include "fakeexport/core/error.h"
#include "fakeexport/ops/api.h"
#include "nn/zoo/families.h"
#include "nn/zoo/gpt2_parts.h"
#include "nn/zoo/llama_parts.h"
#include "nn/zoo/masking.h"

namespace fe::zoo {

// ---- Conv1D

Conv1D::Conv1D(int64_t nf_, int64_t nx_)
    : nf(nf_),
      nx(nx_),
      weight(register_parameter("weight", randn({nx_, nf_}))),
      bias(register_parameter("bias", zeros({nf_}))) {}

Tensor Conv1D::forward(const Tensor& x) {
  // size_out = x.size()[:-1] + (self.nf,); x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
  std::vector<SymInt> size_out(x.sizes().begin(), x.sizes().end() - 1);
  size_out.emplace_back(nf);
  Tensor y = addmm(bias, x.view({-1, x.size(-1)}), weight);
  return y.view(size_out);
}

// ---- GPT2Config

namespace {
// attribute_map: a config may name n_embd "hidden_size" etc.; errors name HF's own field.
int64_t get_aliased(const Config& c, std::string_view key, std::string_view alias) {
  if (c.is_null(key) && !c.is_null(alias)) return c.get_int(alias);
  return c.get_int(key);
}
}  // namespace

GPT2Options GPT2Options::from(const Config& c, const std::string& prefix) {
  GPT2Options o;
  o.vocab_size = c.get_int("vocab_size");
  o.n_positions = get_aliased(c, "n_positions", "max_position_embeddings");
  o.n_embd = get_aliased(c, "n_embd", "hidden_size");
  o.n_layer = get_aliased(c, "n_layer", "num_hidden_layers");
  o.n_head = get_aliased(c, "n_head", "num_attention_heads");
  FE_CHECK(o.n_head > 0 && o.n_embd % o.n_head == 0, ValueError, c.origin(), ": field '", prefix,
           "n_embd' = ", o.n_embd, " must be divisible by n_head = ", o.n_head);
  o.n_inner = c.get_int("n_inner", 4 * o.n_embd);
  o.activation_function = c.get_string("activation_function", "gelu_new");
  check_activation(o.activation_function, c.origin(), prefix + "activation_function");
  o.layer_norm_epsilon = c.get_double("layer_norm_epsilon", 1e-5);
  o.embd_pdrop = c.get_double("embd_pdrop", 0.1);
  o.attn_pdrop = c.get_double("attn_pdrop", 0.1);
  o.resid_pdrop = c.get_double("resid_pdrop", 0.1);
  o.scale_attn_weights = c.get_bool("scale_attn_weights", true);
  o.scale_attn_by_inverse_layer_idx = c.get_bool("scale_attn_by_inverse_layer_idx", false);
  o.add_cross_attention = c.get_bool("add_cross_attention", false);
  o.tie_word_embeddings = c.get_bool("tie_word_embeddings", true);
  // reorder_and_upcast_attn only changes HF's eager path; the sdpa path (the default) ignores it.
  return o;
}

// ---- GPT2Attention / GPT2MLP / GPT2Block

GPT2Attention::GPT2Attention(const GPT2Options& o, bool cross, int64_t layer_idx)
    : embed_dim(o.n_embd), num_heads(o.n_head), head_dim(o.n_embd / o.n_head), is_cross_attention(cross) {
  if (o.scale_attn_weights) scaling = std::pow(static_cast<double>(head_dim), -0.5);
  if (o.scale_attn_by_inverse_layer_idx) scaling /= static_cast<double>(layer_idx + 1);
  if (cross) {
    c_attn = register_module("c_attn", std::make_shared<Conv1D>(2 * embed_dim, embed_dim));
    q_attn = register_module("q_attn", std::make_shared<Conv1D>(embed_dim, embed_dim));
  } else {
    c_attn = register_module("c_attn", std::make_shared<Conv1D>(3 * embed_dim, embed_dim));
  }
  c_proj = register_module("c_proj", std::make_shared<Conv1D>(embed_dim, embed_dim));
  // attn_dropout only feeds sdpa's dropout_p in training; in eval it records nothing.
  attn_dropout = register_module("attn_dropout", std::make_shared<nn::Dropout>(o.attn_pdrop));
  resid_dropout = register_module("resid_dropout", std::make_shared<nn::Dropout>(o.resid_pdrop));
}

Tensor GPT2Attention::operator()(const Tensor& hidden_states, const Tensor& mask, const Tensor& encoder_hidden_states) {
  nn::ModuleCallScope scope(*this);
  Tensor q, k, v;
  if (encoder_hidden_states.defined()) {
    q = (*q_attn)(hidden_states);
    auto kv = (*c_attn)(encoder_hidden_states).split(embed_dim, 2);
    k = kv[0];
    v = kv[1];
  } else {
    auto qkv = (*c_attn)(hidden_states).split(embed_dim, 2);
    q = qkv[0];
    k = qkv[1];
    v = qkv[2];
  }
  // shape_kv = (*key_states.shape[:-1], -1, self.head_dim), then shape_q likewise.
  k = k.view({k.size(0), k.size(1), -1, head_dim}).transpose(1, 2);
  v = v.view({v.size(0), v.size(1), -1, head_dim}).transpose(1, 2);
  q = q.view({q.size(0), q.size(1), -1, head_dim}).transpose(1, 2);
  if (cache) std::tie(k, v) = cache->update(k, v);  // past_key_values.update (a decode step's StaticCache)
  // sdpa_attention_forward: is_causal = query.shape[2] > 1 and attention_mask is None and module.is_causal;
  // self-attention gets the materialized causal mask, cross-attention the encoder's bidirectional one.
  const bool causal = !is_cross_attention && !mask.defined() && q.size(2) > 1;
  masks::is_causal_probe(q);
  Tensor out = scaled_dot_product_attention(q, k, v, mask, 0.0, causal, scaling);
  out = out.transpose(1, 2).contiguous();
  out = out.reshape({out.size(0), out.size(1), -1}).contiguous();
  out = (*c_proj)(out);
  return (*resid_dropout)(out);
}

GPT2MLP::GPT2MLP(int64_t intermediate_size, const GPT2Options& o)
    : c_fc(register_module("c_fc", std::make_shared<Conv1D>(intermediate_size, o.n_embd))),
      c_proj(register_module("c_proj", std::make_shared<Conv1D>(o.n_embd, intermediate_size))),
      act(register_module("act", std::make_shared<HFActivation>(o.activation_function))),
      dropout(register_module("dropout", std::make_shared<nn::Dropout>(o.resid_pdrop))) {}

Tensor GPT2MLP::operator()(const Tensor& x) {
  nn::ModuleCallScope scope(*this);
  return (*dropout)((*c_proj)((*act)((*c_fc)(x))));
}

GPT2Block::GPT2Block(const GPT2Options& o, int64_t layer_idx) {
  ln_1 = register_module("ln_1", std::make_shared<nn::LayerNorm>(o.n_embd, o.layer_norm_epsilon));
  attn = register_module("attn", std::make_shared<GPT2Attention>(o, false, layer_idx));
  ln_2 = register_module("ln_2", std::make_shared<nn::LayerNorm>(o.n_embd, o.layer_norm_epsilon));
  if (o.add_cross_attention) {
    crossattention = register_module("crossattention", std::make_shared<GPT2Attention>(o, true, layer_idx));
    ln_cross_attn = register_module("ln_cross_attn", std::make_shared<nn::LayerNorm>(o.n_embd, o.layer_norm_epsilon));
  }
  mlp = register_module("mlp", std::make_shared<GPT2MLP>(o.n_inner, o));
}

Tensor GPT2Block::operator()(const Tensor& hidden_states, const Tensor& mask, const Tensor& encoder_hidden_states,
                             const Tensor& encoder_mask) {
  nn::ModuleCallScope scope(*this);
  Tensor residual = hidden_states;
  Tensor h = (*attn)((*ln_1)(hidden_states), mask);
  h = h + residual;  // attn_output + residual
  if (encoder_hidden_states.defined()) {
    FE_CHECK(crossattention != nullptr, ValueError, "If `encoder_hidden_states` are passed, GPT2Block has to be "
             "instantiated with cross-attention layers by setting `config.add_cross_attention=True`");
    residual = h;
    Tensor c = (*crossattention)((*ln_cross_attn)(h), encoder_mask, encoder_hidden_states);
    h = residual + c;
  }
  residual = h;
  Tensor ff = (*mlp)((*ln_2)(h));
  return residual + ff;
}

// ---- GPT2Model

GPT2Model::GPT2Model(const GPT2Options& o) : opts(o) {
  wte = register_module("wte", std::make_shared<nn::Embedding>(o.vocab_size, o.n_embd));
  wpe = register_module("wpe", std::make_shared<nn::Embedding>(o.n_positions, o.n_embd));
  drop = register_module("drop", std::make_shared<nn::Dropout>(o.embd_pdrop));
  h = register_module("h", std::make_shared<nn::ModuleList>());
  for (int64_t i = 0; i < o.n_layer; ++i) {
    blocks.push_back(std::make_shared<GPT2Block>(o, i));
    h->push_back(blocks.back());
  }
  ln_f = register_module("ln_f", std::make_shared<nn::LayerNorm>(o.n_embd, o.layer_norm_epsilon));
  wte_dev_ = UnitDevice(*wte);
  wpe_dev_ = UnitDevice(*wpe);
  ln_f_dev_ = UnitDevice(*ln_f);
  for (auto& b : blocks) block_dev_.emplace_back(*b);
}

void GPT2Model::append_units(std::vector<Unit>& out, const std::string& prefix) const {
  out.push_back({prefix + "wte", false});
  out.push_back({prefix + "wpe", false});
  for (int64_t i = 0; i < opts.n_layer; ++i) out.push_back({prefix + "h." + std::to_string(i), true});
  out.push_back({prefix + "ln_f", false});
}

Tensor GPT2Model::operator()(const Tensor& input_ids_in, const Tensor& encoder_hidden_states,
                             const lm::StaticCache* cache) {
  nn::ModuleCallScope scope(*this);
  // input_ids = input_ids.view(-1, input_shape[-1])
  const SymInt seq = input_ids_in.size(-1);
  Tensor input_ids = wte_dev_.to(input_ids_in).view({-1, seq});
  Tensor inputs_embeds = (*wte)(input_ids);
  Tensor position_ids = lm::past_positions(inputs_embeds, cache);
  Tensor position_embeds = (*wpe)(wpe_dev_.to(position_ids));
  // hidden_states = inputs_embeds + position_embeds.to(inputs_embeds.device) (recorded on one device too)
  position_embeds = position_embeds.to(inputs_embeds.device());
  Tensor hidden = inputs_embeds + position_embeds;
  // create_causal_mask(config, inputs_embeds, attention_mask=None, position_ids=position_ids)
  Tensor mask = cache ? masks::create_causal_mask_cached(inputs_embeds, cache->past_seen(), cache->max_cache_len)
                       : masks::create_causal_mask(inputs_embeds, Tensor(), position_ids);
  // The cross-attention's: create_bidirectional_mask(config, inputs_embeds, None, encoder_hidden_states).
  Tensor enc = encoder_hidden_states, enc_mask;
  if (enc.defined()) enc_mask = masks::create_bidirectional_mask(inputs_embeds, Tensor(), enc);
  hidden = (*drop)(hidden);
  for (size_t i = 0; i < blocks.size(); ++i) {
    // The block's inputs in its argument order (hidden_states, attention_mask, encoder states and mask).
    hidden = block_dev_[i].to(hidden);
    mask = block_dev_[i].to(mask);
    if (enc.defined()) {
      enc = block_dev_[i].to(enc);  // a no-op after the first block of a device
      enc_mask = block_dev_[i].to(enc_mask);
    }
    hidden = (*blocks[i])(hidden, mask, enc, enc_mask);
  }
  hidden = (*ln_f)(ln_f_dev_.to(hidden));
  // output_shape = (-1,) + input_shape[1:] + (hidden_states.size(-1),)
  return hidden.view({-1, seq, hidden.size(-1)});
}

Tensor gpt2_logits(nn::Linear& lm_head, const UnitDevice& head_dev, const Tensor& hidden) {
  Tensor kept = masks::getitem(hidden, ":::");
  return lm_head(head_dev.to(kept));
}

std::shared_ptr<nn::Linear> make_gpt2_lm_head(const GPT2Options& o, GPT2Model& transformer) {
  auto head = std::make_shared<nn::Linear>(o.n_embd, o.vocab_size, false);
  if (o.tie_word_embeddings) head->weight = transformer.wte->weight;
  return head;
}


// ---- the gpt2 family: GPT2LMHeadModel

namespace {

class GPT2LMHeadModel : public Model, public lm::CacheableLM {
 public:
  explicit GPT2LMHeadModel(const Config& c) : opts_(GPT2Options::from(c)) {
    transformer = register_module("transformer", std::make_shared<GPT2Model>(opts_));
    lm_head = register_module("lm_head", make_gpt2_lm_head(opts_, *transformer));
    head_dev_ = UnitDevice(*lm_head);
  }
  std::string type_name() const override { return "transformers.models.gpt2.modeling_gpt2.GPT2LMHeadModel"; }
  std::string model_type() const override { return "gpt2"; }
  std::vector<std::string> forward_arg_names() const override { return {"input_ids"}; }
  std::vector<Unit> units() const override {
    std::vector<Unit> u;
    transformer->append_units(u, "transformer.");
    u.push_back({"lm_head", false});
    return u;
  }

  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& args) override {
    FE_CHECK(args.size() == 1, ValueError, "GPT2LMHeadModel.forward() takes 1 tensor argument (input_ids) but ",
             args.size(), " were given");
    nn::ModuleCallScope scope(*this);
    Tensor hidden = (*transformer)(args[0]);
    return {gpt2_logits(*lm_head, head_dev_, hidden)};
  }
  Tensor forward_cached(const Tensor& input_ids, const lm::StaticCache& cache) override {
    nn::ModuleCallScope scope(*this);
    return gpt2_logits(*lm_head, head_dev_, (*transformer)(input_ids, Tensor(), &cache));
  }
  std::vector<LayerCache> cache_layers() const override {
    std::vector<LayerCache> out;
    for (const auto& b : transformer->blocks) {
      const Tensor& w = b->ln_1->weight;
      out.push_back({opts_.n_head, opts_.n_embd / opts_.n_head, w.dtype(), w.device()});
    }
    return out;
  }
  analysis::KvLayout generation_cache() const override { return lm::generation_cache_of(*this); }
  void attach_cache(size_t layer, const lm::StaticCacheLayer* cache) override {
    transformer->blocks.at(layer)->attn->cache = cache;
  }
  Device input_device() const override { return transformer->wte->weight.device(); }
  int64_t vocab_size() const override { return opts_.vocab_size; }

  // Hub checkpoints (saved from GPT2Model) lack the "transformer." prefix and carry the causal-mask
  // buffers HF ignores on load (_keys_to_ignore_on_load_unexpected).
  std::string checkpoint_key(std::string_view k) const override {
    for (std::string_view ignored : {".attn.bias", ".attn.masked_bias", ".crossattention.bias", ".crossattention.masked_bias"})
      if (k.ends_with(ignored)) return "";
    if (k.starts_with("transformer.") || k.starts_with("lm_head.")) return std::string(k);
    return "transformer." + std::string(k);
  }

  ExampleInputs example_inputs(const InputOptions& o) override {
    ExampleInputs in;
    in.args.push_back(token_ids(batch_or(o, 2), seq_or(o, 8), opts_.vocab_size, module_device(*transformer->wte)));
    if (o.dynamic_batch || o.dynamic_seq) in.dynamic_shapes["input_ids"] = batch_seq_dims(o, opts_.n_positions);
    return in;
  }

  std::shared_ptr<GPT2Model> transformer;
  std::shared_ptr<nn::Linear> lm_head;

 private:
  GPT2Options opts_;
  UnitDevice head_dev_;
};

}  // namespace

std::unique_ptr<Model> build_gpt2(const Config& c) { return std::make_unique<GPT2LMHeadModel>(c); }

// GPT-2 small's shape at a tenth of the width: 4 layers of 64 wide, 4 heads, 1024 positions.
std::string_view default_config_gpt2() {
  return R"({"model_type": "gpt2", "vocab_size": 50257, "n_positions": 1024, "n_embd": 64, "n_layer": 4,
 "n_head": 4, "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05})";
}

}  // namespace fe::zoo
