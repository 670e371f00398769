// model_type "gpt_neox": transformers 5.12's GPTNeoXForCausalLM (Pythia, GPT-NeoX-20B):
// gpt_neox.{embed_in, emb_dropout, layers.N, final_layer_norm, rotary_emb} + embed_out. A layer is
// LayerNorm'd attention and MLP, summed with the input in parallel (use_parallel_residual) or in
// sequence; attention reads one query_key_value projection viewed [b, s, heads, 3 * head_size] and
// chunked, rotates the first int(head_size * partial_rotary_factor) dims (rotary_pct, 0.25 by
// default), and runs sdpa under masking_utils' causal mask. Eval-mode dropouts are recorded.
#include <cmath>

#include "fakeexport/core/error.h"
#include "fakeexport/nn/layers.h"
#include "fakeexport/ops/api.h"
#include "nn/zoo/bert_common.h"
#include "nn/zoo/families.h"
#include "nn/zoo/llama_parts.h"
#include "nn/zoo/masking.h"

namespace fe::zoo {
namespace {

const lm::Naming kNaming{"gpt_neox", "transformers.models.gpt_neox.modeling_gpt_neox.GPTNeoX"};

struct NeoXDims {
  int64_t vocab, hidden, layers, heads, intermediate, max_pos;
  double eps, hidden_dropout;
  bool parallel_residual, bias, tie;
  lm::Rope rope;
  int64_t head_size() const { return hidden / heads; }
};

class NeoXAttention : public nn::Module {
 public:
  explicit NeoXAttention(const NeoXDims& d)
      : query_key_value(register_module("query_key_value", std::make_shared<nn::Linear>(d.hidden, 3 * d.hidden, d.bias))),
        dense(register_module("dense", std::make_shared<nn::Linear>(d.hidden, d.hidden, d.bias))),
        head_size_(d.head_size()) {}
  std::string type_name() const override { return kNaming.cls("Attention"); }
  Tensor operator()(const Tensor& h, const Tensor& mask, const Tensor& cos_in, const Tensor& sin_in) {
    nn::ModuleCallScope scope(*this);
    const SymInt b = h.size(0), s = h.size(1);
    Tensor qkv = (*query_key_value)(h).view({b, s, -1, 3 * head_size_}).transpose(1, 2);
    std::vector<Tensor> parts = qkv.chunk(3, -1);
    Tensor cos = cos_in.unsqueeze(1), sin = sin_in.unsqueeze(1);
    auto [q, k] = lm::apply_rotary_slices(parts[0], parts[1], cos, sin, /*rotate_both_first=*/true);
    Tensor v = parts[2];
    if (cache) std::tie(k, v) = cache->update(k, v);  // layer_past.update (a decode step's StaticCache)
    masks::is_causal_probe(q);
    Tensor o = scaled_dot_product_attention(q, k, v, mask, 0.0, false, std::pow(double(head_size_), -0.5));
    o = o.transpose(1, 2).contiguous();
    o = o.reshape({b, s, -1}).contiguous();
    return (*dense)(o);
  }
  std::shared_ptr<nn::Linear> query_key_value, dense;
  const lm::StaticCacheLayer* cache = nullptr;  ///< set by a decode step's wrapper

 private:
  int64_t head_size_;
};

class NeoXMLP : public nn::UnaryModule {
 public:
  NeoXMLP(const Config& c, const NeoXDims& d)
      : dense_h_to_4h(register_module("dense_h_to_4h", std::make_shared<nn::Linear>(d.hidden, d.intermediate))),
        dense_4h_to_h(register_module("dense_4h_to_h", std::make_shared<nn::Linear>(d.intermediate, d.hidden))),
        act(register_module("act", activation_from_config(c, "hidden_act", "gelu"))) {}
  std::string type_name() const override { return kNaming.cls("MLP"); }
  Tensor forward(const Tensor& x) override { return (*dense_4h_to_h)((*act)((*dense_h_to_4h)(x))); }
  std::shared_ptr<nn::Linear> dense_h_to_4h, dense_4h_to_h;
  std::shared_ptr<HFActivation> act;
};

class NeoXLayer : public nn::Module {
 public:
  NeoXLayer(const Config& c, const NeoXDims& d)
      : input_layernorm(register_module("input_layernorm", std::make_shared<nn::LayerNorm>(d.hidden, d.eps))),
        post_attention_layernorm(
            register_module("post_attention_layernorm", std::make_shared<nn::LayerNorm>(d.hidden, d.eps))),
        post_attention_dropout(register_module("post_attention_dropout", std::make_shared<nn::Dropout>(d.hidden_dropout))),
        post_mlp_dropout(register_module("post_mlp_dropout", std::make_shared<nn::Dropout>(d.hidden_dropout))),
        attention(register_module("attention", std::make_shared<NeoXAttention>(d))),
        mlp(register_module("mlp", std::make_shared<NeoXMLP>(c, d))),
        parallel_(d.parallel_residual) {}
  std::string type_name() const override { return kNaming.cls("Layer"); }
  Tensor operator()(const Tensor& x, const Tensor& mask, const Tensor& cos, const Tensor& sin) {
    nn::ModuleCallScope scope(*this);
    Tensor attn = (*attention)((*input_layernorm)(x), mask, cos, sin);
    attn = (*post_attention_dropout)(attn);
    if (parallel_) {
      Tensor m = (*mlp)((*post_attention_layernorm)(x));
      m = (*post_mlp_dropout)(m);
      Tensor sum = m + attn;
      return sum + x;
    }
    attn = attn + x;
    Tensor m = (*mlp)((*post_attention_layernorm)(attn));
    m = (*post_mlp_dropout)(m);
    return m + attn;
  }
  std::shared_ptr<nn::LayerNorm> input_layernorm, post_attention_layernorm;
  std::shared_ptr<nn::Dropout> post_attention_dropout, post_mlp_dropout;
  std::shared_ptr<NeoXAttention> attention;
  std::shared_ptr<NeoXMLP> mlp;

 private:
  bool parallel_;
};

class NeoXModel : public nn::Module {
 public:
  NeoXModel(const Config& c, const NeoXDims& d)
      : embed_in(register_module("embed_in", std::make_shared<nn::Embedding>(d.vocab, d.hidden))),
        emb_dropout(register_module("emb_dropout", std::make_shared<nn::Dropout>(d.hidden_dropout))),
        layers(register_module("layers", std::make_shared<nn::ModuleList>())) {
    for (int64_t i = 0; i < d.layers; ++i) layers->push_back(std::make_shared<NeoXLayer>(c, d));
    final_layer_norm = register_module("final_layer_norm", std::make_shared<nn::LayerNorm>(d.hidden, d.eps));
    rotary_emb = register_module("rotary_emb", std::make_shared<lm::RotaryEmbedding>(kNaming, d.rope, d.head_size()));
  }
  std::string type_name() const override { return kNaming.cls("Model"); }
  /// With `cache` (a decode step): positions from the cache's length, the mask over the cache.
  Tensor operator()(const Tensor& input_ids, const lm::StaticCache* cache = nullptr) {
    nn::ModuleCallScope scope(*this);
    Tensor inputs_embeds = (*embed_in)(to_module_device(input_ids, *embed_in));
    Tensor position_ids = lm::past_positions(inputs_embeds, cache);
    Tensor mask = cache ? masks::create_causal_mask_cached(inputs_embeds, cache->past_seen(),
                                                           cache->max_cache_len)
                        : masks::create_causal_mask(inputs_embeds, Tensor(), position_ids);
    Tensor h = (*emb_dropout)(inputs_embeds);
    auto [cos, sin] = (*rotary_emb)(h, position_ids);
    for (size_t i = 0; i < layers->size(); ++i) {
      // The layer's inputs in its argument order (hidden_states, attention_mask, position_embeddings).
      NeoXLayer& l = layers->at<NeoXLayer>(i);
      h = to_module_device(h, l);
      mask = to_module_device(mask, l);
      cos = to_module_device(cos, l);
      sin = to_module_device(sin, l);
      const Tensor ins[] = {h, mask, cos, sin};  // layers alike may be replayed (nn::call_repeated)
      h = nn::call_repeated(l, ins, 0, [&] { return std::vector<Tensor>{l(h, mask, cos, sin)}; })[0];
    }
    return (*final_layer_norm)(to_module_device(h, *final_layer_norm));
  }
  std::shared_ptr<nn::Embedding> embed_in;
  std::shared_ptr<nn::Dropout> emb_dropout;
  std::shared_ptr<nn::ModuleList> layers;
  std::shared_ptr<nn::LayerNorm> final_layer_norm;
  std::shared_ptr<lm::RotaryEmbedding> rotary_emb;
};

NeoXDims read_dims(const Config& c) {
  NeoXDims d{c.get_int("vocab_size"), c.get_int("hidden_size"), c.get_int("num_hidden_layers"),
             c.get_int("num_attention_heads"), c.get_int("intermediate_size"),
             c.get_int("max_position_embeddings", 2048), c.get_double("layer_norm_eps", 1e-5),
             c.get_double("hidden_dropout", 0.0), c.get_bool("use_parallel_residual", true),
             c.get_bool("attention_bias", true), c.get_bool("tie_word_embeddings", false), {}};
  hf::check_divisible(c, "hidden_size", d.hidden, "num_attention_heads", d.heads);
  // Legacy fields (Pythia's config.json): rotary_emb_base, rotary_pct.
  d.rope = lm::parse_rope(c, c.get_double("rotary_emb_base", 10000.0), d.max_pos);
  // rope_parameters.setdefault("partial_rotary_factor", rotary_pct or 0.25): the rope dict's own
  // value (even 1.0) wins.
  const auto in_rope = [&](const char* key) { return !c.is_null(key) && c.size_of(key, 0) > 0 && c.sub(key).has("partial_rotary_factor"); };
  if (!c.has("partial_rotary_factor") && !in_rope("rope_scaling") && !in_rope("rope_parameters"))
    d.rope.partial_rotary_factor = c.get_double("rotary_pct", 0.25);
  const int64_t rotary = static_cast<int64_t>(static_cast<double>(d.head_size()) * d.rope.partial_rotary_factor);
  FE_CHECK(rotary > 0 && rotary % 2 == 0 && d.rope.partial_rotary_factor <= 1.0, ValueError, c.origin(),
           ": field 'rotary_pct' value ", d.rope.partial_rotary_factor, " must rotate a positive even part of head_dim ",
           d.head_size());
  FE_CHECK(!d.tie, ValueError, c.origin(), ": field 'tie_word_embeddings' value true is not supported");
  return d;
}

class GPTNeoXForCausalLM : public Model, public lm::CacheableLM {
 public:
  GPTNeoXForCausalLM(const Config& c, const NeoXDims& d)
      : dims(d),
        gpt_neox(register_module("gpt_neox", std::make_shared<NeoXModel>(c, d))),
        embed_out(register_module("embed_out", std::make_shared<nn::Linear>(d.hidden, d.vocab, false))) {}
  std::string type_name() const override { return kNaming.cls("ForCausalLM"); }
  std::string model_type() const override { return "gpt_neox"; }
  std::vector<std::string> forward_arg_names() const override { return {"input_ids"}; }
  std::vector<Unit> units() const override {
    std::vector<Unit> u{{"gpt_neox.embed_in", false}};
    for (int64_t i = 0; i < dims.layers; ++i) u.push_back({"gpt_neox.layers." + std::to_string(i), true});
    u.push_back({"gpt_neox.final_layer_norm", false});
    u.push_back({"gpt_neox.rotary_emb", false});
    u.push_back({"embed_out", false});
    return u;
  }
  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& args) override {
    FE_CHECK(args.size() == 1, ValueError, "GPTNeoXForCausalLM.forward() takes 1 tensor argument (input_ids) but ",
             args.size(), " were given");
    nn::ModuleCallScope scope(*this);
    return {logits_of((*gpt_neox)(args[0]))};
  }
  Tensor forward_cached(const Tensor& input_ids, const lm::StaticCache& cache) override {
    nn::ModuleCallScope scope(*this);
    return logits_of((*gpt_neox)(input_ids, &cache));
  }
  std::vector<LayerCache> cache_layers() const override {
    std::vector<LayerCache> out;
    for (size_t i = 0; i < gpt_neox->layers->size(); ++i) {
      const Tensor& w = gpt_neox->layers->at<NeoXLayer>(i).input_layernorm->weight;
      out.push_back({dims.heads, dims.head_size(), w.dtype(), w.device()});
    }
    return out;
  }
  analysis::KvLayout generation_cache() const override { return lm::generation_cache_of(*this); }
  void attach_cache(size_t layer, const lm::StaticCacheLayer* cache) override {
    gpt_neox->layers->at<NeoXLayer>(layer).attention->cache = cache;
  }
  Device input_device() const override { return gpt_neox->embed_in->weight.device(); }
  int64_t vocab_size() const override { return dims.vocab; }
  ExampleInputs example_inputs(const InputOptions& o) override {
    ExampleInputs in;
    in.args.push_back(token_ids(batch_or(o, 2), seq_or(o, 8), dims.vocab, module_device(*gpt_neox->embed_in)));
    if (o.dynamic_batch || o.dynamic_seq) in.dynamic_shapes["input_ids"] = batch_seq_dims(o, dims.max_pos);
    return in;
  }

  const NeoXDims dims;
  std::shared_ptr<NeoXModel> gpt_neox;
  std::shared_ptr<nn::Linear> embed_out;

 private:
  Tensor logits_of(const Tensor& h) {
    // hidden_states[:, slice(-logits_to_keep, None), :] with logits_to_keep = 0: an alias.
    Tensor kept = masks::getitem(h, ":::");
    return (*embed_out)(to_module_device(kept, *embed_out));
  }
};

}  // namespace

std::unique_ptr<Model> build_gpt_neox(const Config& c) {
  return std::make_unique<GPTNeoXForCausalLM>(c, read_dims(c));
}

// GPT-NeoX at toy size (Pythia's shape, small): 4 heads of 16, a quarter of each rotated.
std::string_view default_config_gpt_neox() {
  return R"({"model_type": "gpt_neox", "vocab_size": 1024, "hidden_size": 64, "intermediate_size": 256,
  "num_hidden_layers": 4, "num_attention_heads": 4, "max_position_embeddings": 2048, "rotary_pct": 0.25})";
}

}  // namespace fe::zoo
