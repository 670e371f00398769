// model_type "falcon": transformers 5.12's FalconForCausalLM (Falcon-7B/40B/180B, Falcon-RW with
// rotary): transformer.{word_embeddings, h.N, ln_f, rotary_emb} + lm_head (tied). Its linears are
// FalconLinear (`x @ weight.T`, then `+ bias`: numpy_T and matmul, not linear). One fused
// query_key_value projection, split three ways:
//  - multi_query (7B): [b, s, heads + 2, hd]; q = [..., :-2, :], k and v by a list index
//    ([..., [-2], :], a lifted constant), one kv head that sdpa broadcasts;
//  - new_decoder_architecture (40B/180B): [b, s, kv, heads/kv + 2, hd], k and v broadcast to the
//    query groups, each flattened to `heads` heads;
//  - otherwise: [b, s, heads, 3, hd], selected.
// A layer is parallel (attention and MLP from one LayerNorm, or ln_attn/ln_mlp, MLP output `+=`
// attention) or sequential (post_attention_layernorm), with eval dropouts around the residuals. The
// causal mask is created with a custom and_mask_function, so transformers vmaps it (nn/zoo/vmap.h).
// With `alibi` (Falcon-RW) the per-head linear bias is folded into a float mask and no rotary is
// applied (the rotary embedding is still computed, and unused, as transformers does).
#include <cmath>

#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/nn/layers.h"
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "nn/zoo/activations.h"
#include "nn/zoo/bert_common.h"
#include "nn/zoo/families.h"
#include "nn/zoo/llama_parts.h"
#include "nn/zoo/masking.h"

namespace fe::zoo {
namespace {

const lm::Naming kNaming{"falcon", "transformers.models.falcon.modeling_falcon.Falcon"};

struct FalconDims {
  int64_t vocab, hidden, layers, heads, kv_heads, ffn, max_pos;
  double eps, hidden_dropout, attention_dropout;
  bool new_arch, multi_query, parallel, bias, alibi;
  int64_t ln_in_parallel;  ///< num_ln_in_parallel_attn (2: ln_attn and ln_mlp)
  lm::Rope rope;
  int64_t head_dim() const { return hidden / heads; }
};

/// x.T: aten.numpy_T.
Tensor numpy_T(const Tensor& x, SrcLocArg loc = SrcLocArg::current()) {
  static const OpDef& d = op("aten::numpy_T");
  return dispatch1(d, {x}, loc);
}

/// FalconLinear: `input @ self.weight.T`, then `+ self.bias` (not fused: the bfloat16 rounding
/// between them is part of the checkpoints' numerics).
class FalconLinear : public nn::Linear {
 public:
  using nn::Linear::Linear;
  std::string type_name() const override { return kNaming.cls("Linear"); }
  Tensor forward(const Tensor& x) override {
    Tensor h = matmul(x, numpy_T(weight));
    return bias.defined() ? h + bias : h;
  }
};

/// x[..., [i], :] of a 4D or 5D view (dim = the list's position): a lifted index tensor.
Tensor list_index(const Tensor& x, int64_t dim, int64_t i) {
  Tensor idx = known_buffer([&] { return full({1}, Scalar(i), {.dtype = DType::Int64}); });
  TensorIndices ix(static_cast<size_t>(dim));
  ix.emplace_back(lift_fresh_copy(idx));
  return index(x, ix);
}

/// build_alibi_tensor(attention_mask, num_heads, dtype): per-head slopes (powers of 2^(-8/n) for the
/// largest power of two n <= heads, odd powers of the next base for the rest) times each token's
/// position, [batch * heads, 1, seq], computed in bfloat16 then cast to `dtype`.
Tensor build_alibi_tensor(const Tensor& mask, int64_t heads, DType dtype) {
  const SymInt b = mask.size(0), s = mask.size(1);
  const int64_t closest = int64_t{1} << static_cast<int64_t>(std::floor(std::log2(static_cast<double>(heads))));
  const auto base_for = [](int64_t n) { return std::pow(2.0, -std::pow(2.0, -(std::log2(static_cast<double>(n)) - 3))); };
  const TensorOptions i32{.dtype = DType::Int32, .device = mask.device()};
  // In Python's order: the base, then the powers (C++ leaves argument order unspecified).
  Tensor base = tensor_constant(Scalar(base_for(closest)), DType::Float32);
  Tensor slopes = pow(base, arange(Scalar(int64_t{1}), Scalar(1 + closest), i32));
  if (closest != heads) {
    const int64_t remaining = std::min(closest, heads - closest);
    Tensor extra_base = tensor_constant(Scalar(base_for(2 * closest)), DType::Float32);
    Tensor extra = pow(extra_base, arange(Scalar(int64_t{1}), Scalar(1 + 2 * remaining), Scalar(int64_t{2}), i32));
    slopes = cat({slopes, extra}, 0);
  }
  Tensor positions = masks::getitem((mask.cumsum(-1) - 1) * mask, ":N:");  // [:, None, :]
  Tensor alibi = slopes.unsqueeze(1).to(DType::BFloat16) * positions;
  return alibi.reshape({b * heads, 1, s}).to(dtype);
}

class FalconAttention : public nn::Module {
 public:
  explicit FalconAttention(const FalconDims& d)
      : query_key_value(register_module(
            "query_key_value",
            std::make_shared<FalconLinear>(d.hidden,
                                           d.new_arch      ? (2 * d.kv_heads + d.heads) * d.head_dim()
                                           : d.multi_query ? d.hidden + 2 * d.head_dim()
                                                           : 3 * d.hidden,
                                           d.bias))),
        dense(register_module("dense", std::make_shared<FalconLinear>(d.hidden, d.hidden, d.bias))),
        attention_dropout(register_module("attention_dropout", std::make_shared<nn::Dropout>(d.attention_dropout))),
        d_(d) {}
  std::string type_name() const override { return kNaming.cls("Attention"); }

  Tensor operator()(const Tensor& h, const Tensor& mask, const Tensor& cos_in, const Tensor& sin_in) {
    nn::ModuleCallScope scope(*this);
    Tensor fused = (*query_key_value)(h);
    const int64_t heads = d_.heads, hd = d_.head_dim();
    const int64_t kv_heads = d_.new_arch ? heads : d_.multi_query ? 1 : d_.kv_heads;
    const SymInt b = fused.size(0), s = fused.size(1);
    Tensor q, k, v;
    if (d_.new_arch) {
      Tensor qkv = fused.view({b, s, -1, heads / d_.kv_heads + 2, hd});
      q = qkv.slice(3, 0, -2);
      k = list_index(qkv, 3, -2);
      v = list_index(qkv, 3, -1);
      const std::vector<SymInt> qs(q.sizes().begin(), q.sizes().end());
      k = broadcast_to(k, qs);
      v = broadcast_to(v, qs);
      q = q.flatten(2, 3), k = k.flatten(2, 3), v = v.flatten(2, 3);
    } else if (!d_.multi_query) {
      Tensor qkv = fused.view({b, s, heads, 3, hd});
      q = qkv.select(3, 0), k = qkv.select(3, 1), v = qkv.select(3, 2);
    } else {
      Tensor qkv = fused.view({b, s, heads + 2, hd});
      q = qkv.slice(2, 0, -2);
      k = list_index(qkv, 2, -2);
      v = list_index(qkv, 2, -1);
    }
    const SymInt ql = q.size(1);
    q = q.transpose(1, 2).reshape({b, heads, ql, hd});
    k = k.transpose(1, 2).reshape({b, kv_heads, ql, hd});
    v = v.transpose(1, 2).reshape({b, kv_heads, ql, hd});
    if (d_.alibi) {  // the ALiBi bias is folded into the float mask; no rotary
      Tensor o = scaled_dot_product_attention(q, k, v, mask);
      return (*dense)(o.transpose(1, 2).reshape({b, ql, heads * hd}));
    }
    Tensor cos = cos_in.unsqueeze(1), sin = sin_in.unsqueeze(1);
    q = lm::apply_rotary(q, cos, sin);
    k = lm::apply_rotary(k, cos, sin);
    if (cache) std::tie(k, v) = cache->update(k, v);  // layer_past.update (a decode step's StaticCache)
    Tensor o = scaled_dot_product_attention(q, k, v, mask);
    o = o.view({b, heads, ql, hd}).permute({0, 2, 1, 3}).reshape({b, ql, heads * hd});
    return (*dense)(o);
  }
  std::shared_ptr<FalconLinear> query_key_value, dense;
  std::shared_ptr<nn::Dropout> attention_dropout;
  const lm::StaticCacheLayer* cache = nullptr;  ///< set by a decode step's wrapper

 private:
  const FalconDims d_;
};

class FalconMLP : public nn::UnaryModule {
 public:
  FalconMLP(const Config& c, const FalconDims& d)
      : dense_h_to_4h(register_module("dense_h_to_4h", std::make_shared<FalconLinear>(d.hidden, d.ffn, d.bias))),
        act(register_module("act", activation_from_config(c, "activation", "gelu"))),
        dense_4h_to_h(register_module("dense_4h_to_h", std::make_shared<FalconLinear>(d.ffn, d.hidden, d.bias))) {}
  std::string type_name() const override { return kNaming.cls("MLP"); }
  Tensor forward(const Tensor& x) override { return (*dense_4h_to_h)((*act)((*dense_h_to_4h)(x))); }
  std::shared_ptr<FalconLinear> dense_h_to_4h;
  std::shared_ptr<HFActivation> act;
  std::shared_ptr<FalconLinear> dense_4h_to_h;
};

/// dropout_add: residual + F.dropout(x, p, training=False) (recorded whatever p).
Tensor dropout_add(const Tensor& x, const Tensor& residual, double p) { return residual + dropout(x, p, false); }

class FalconDecoderLayer : public nn::Module {
 public:
  FalconDecoderLayer(const Config& c, const FalconDims& d)
      : self_attention(register_module("self_attention", std::make_shared<FalconAttention>(d))),
        mlp(register_module("mlp", std::make_shared<FalconMLP>(c, d))),
        d_(d) {
    auto ln = [&](const char* name) { return register_module(name, std::make_shared<nn::LayerNorm>(d.hidden, d.eps)); };
    if (!d.parallel) {
      post_attention_layernorm = ln("post_attention_layernorm");
      input_layernorm = ln("input_layernorm");
    } else if (d.ln_in_parallel == 2) {
      ln_attn = ln("ln_attn");
      ln_mlp = ln("ln_mlp");
    } else {
      input_layernorm = ln("input_layernorm");
    }
  }
  std::string type_name() const override { return kNaming.cls("DecoderLayer"); }

  Tensor operator()(const Tensor& x, const Tensor& mask, const Tensor& cos, const Tensor& sin) {
    nn::ModuleCallScope scope(*this);
    Tensor residual = x, attn_in, mlp_in;
    const bool two_ln = d_.new_arch && d_.ln_in_parallel == 2;
    if (two_ln) {
      attn_in = (*ln_attn)(x);
      mlp_in = (*ln_mlp)(x);
    } else {
      attn_in = (*input_layernorm)(x);
    }
    Tensor attn = (*self_attention)(attn_in, mask, cos, sin);
    if (!d_.new_arch) {
      if (d_.parallel) {
        mlp_in = attn_in;
      } else {
        residual = dropout_add(attn, residual, d_.attention_dropout);
        mlp_in = (*post_attention_layernorm)(residual);
      }
    }
    if (d_.new_arch && d_.parallel && d_.ln_in_parallel == 1) mlp_in = attn_in;
    Tensor m = (*mlp)(mlp_in);
    if (d_.new_arch || d_.parallel) m = m.add_(attn);
    return dropout_add(m, residual, d_.hidden_dropout);
  }
  std::shared_ptr<FalconAttention> self_attention;
  std::shared_ptr<FalconMLP> mlp;
  std::shared_ptr<nn::LayerNorm> post_attention_layernorm, input_layernorm, ln_attn, ln_mlp;

 private:
  const FalconDims d_;
};

class FalconModel : public nn::Module {
 public:
  FalconModel(const Config& c, const FalconDims& d)
      : d_(d),
        word_embeddings(register_module("word_embeddings", std::make_shared<nn::Embedding>(d.vocab, d.hidden))),
        h(register_module("h", std::make_shared<nn::ModuleList>())) {
    for (int64_t i = 0; i < d.layers; ++i) h->push_back(std::make_shared<FalconDecoderLayer>(c, d));
    ln_f = register_module("ln_f", std::make_shared<nn::LayerNorm>(d.hidden, d.eps));
    rotary_emb = register_module("rotary_emb", std::make_shared<lm::RotaryEmbedding>(kNaming, d.rope, d.head_dim()));
  }
  std::string type_name() const override { return kNaming.cls("Model"); }

  /// With `cache` (a decode step; rotary layouts only): positions from the cache's length, the mask
  /// over the cache.
  Tensor operator()(const Tensor& input_ids, const lm::StaticCache* cache = nullptr) {
    nn::ModuleCallScope scope(*this);
    Tensor inputs_embeds = (*word_embeddings)(to_module_device(input_ids, *word_embeddings));
    const Device dev = inputs_embeds.device();
    const SymInt batch = inputs_embeds.size(0), seq = inputs_embeds.size(1);
    const DType dtype = inputs_embeds.dtype();
    Tensor alibi;
    if (d_.alibi)
      // torch.ones((batch_size, seq_length + past_key_values_length)): the `+ 0` is traced.
      alibi = build_alibi_tensor(ones({batch, seq + 0}, {.dtype = DType::Int64, .device = dev}), d_.heads, dtype);
    Tensor position_ids = lm::past_positions(inputs_embeds, cache);
    // and_mask_function=lambda *args: torch.tensor(True, dtype=torch.bool) ("force mask creation
    // for alibi"): a lifted constant read inside the vmapped mask function. It names no device, so it
    // is a cpu tensor whatever the model's device (PyTorch 2.11's cuda:0 export asserts cpu on it).
    const masks::MaskFunction always = [](const masks::Indices&) {
      DeviceScope host(kCPU);
      return tensor_constant(Scalar(true), DType::Bool);
    };
    Tensor mask = cache ? masks::create_causal_mask_cached(inputs_embeds, cache->past_seen(), cache->max_cache_len,
                                                           nullptr, always)
                        : masks::create_causal_mask_and(inputs_embeds, Tensor(), always);
    if (alibi.defined()) {
      // The boolean mask made additive (0 or finfo.min), then the scaled bias where it is open.
      const double min = finfo_min(dtype);
      mask = where(mask, tensor_constant(Scalar(0.0), dtype), Scalar(min));
      std::vector<SymInt> shape{batch, -1};
      shape.insert(shape.end(), alibi.sizes().begin() + 1, alibi.sizes().end());
      Tensor bias = alibi.reshape(shape) / std::sqrt(static_cast<double>(d_.hidden / d_.heads));
      mask = bias.masked_fill(mask < -1, Scalar(min));
    }
    Tensor x = inputs_embeds;
    auto [cos, sin] = (*rotary_emb)(x, position_ids);
    for (size_t i = 0; i < h->size(); ++i) {
      FalconDecoderLayer& l = h->at<FalconDecoderLayer>(i);
      x = to_module_device(x, l);
      mask = to_module_device(mask, l);
      cos = to_module_device(cos, l);
      sin = to_module_device(sin, l);
      const Tensor ins[] = {x, mask, cos, sin};  // layers alike may be replayed (nn::call_repeated)
      x = nn::call_repeated(l, ins, 0, [&] { return std::vector<Tensor>{l(x, mask, cos, sin)}; })[0];
    }
    return (*ln_f)(to_module_device(x, *ln_f));
  }
  const FalconDims d_;
  std::shared_ptr<nn::Embedding> word_embeddings;
  std::shared_ptr<nn::ModuleList> h;
  std::shared_ptr<nn::LayerNorm> ln_f;
  std::shared_ptr<lm::RotaryEmbedding> rotary_emb;
};

FalconDims read_dims(const Config& c) {
  FalconDims d{};
  d.vocab = c.get_int("vocab_size", 65024);
  d.hidden = c.get_int("hidden_size", 4544);
  d.layers = c.get_int("num_hidden_layers", 32);
  d.heads = c.get_int("num_attention_heads", 71);
  d.new_arch = c.get_bool("new_decoder_architecture", false);
  d.multi_query = c.get_bool("multi_query", true);
  d.parallel = c.get_bool("parallel_attn", true);
  d.bias = c.get_bool("bias", false);
  d.kv_heads = c.is_null("num_kv_heads") ? d.heads : c.get_int("num_kv_heads", d.heads);
  d.ffn = c.is_null("ffn_hidden_size") ? 4 * d.hidden : c.get_int("ffn_hidden_size", 4 * d.hidden);
  d.max_pos = c.get_int("max_position_embeddings", 2048);
  d.eps = c.get_double("layer_norm_epsilon", 1e-5);
  d.hidden_dropout = c.get_double("hidden_dropout", 0.0);
  d.attention_dropout = c.get_double("attention_dropout", 0.0);
  d.ln_in_parallel = c.is_null("num_ln_in_parallel_attn") ? (d.new_arch ? 2 : 1) : c.get_int("num_ln_in_parallel_attn", 1);
  // The layer norms FalconDecoderLayer registers (parallel_attn, num_ln_in_parallel_attn) must be
  // the ones its forward calls (new_decoder_architecture too); transformers fails in forward on
  // the other combinations (no input_layernorm / ln_attn, or no MLP input): refused here, at build.
  const bool two_ln_registered = d.parallel && d.ln_in_parallel == 2;
  const bool two_ln_called = d.new_arch && d.ln_in_parallel == 2;
  const bool mlp_input = !d.new_arch || (d.parallel && (d.ln_in_parallel == 1 || d.ln_in_parallel == 2));
  FE_CHECK(two_ln_registered == two_ln_called && mlp_input, ValueError, c.origin(),
           ": fields 'new_decoder_architecture' ", d.new_arch ? "true" : "false", ", 'parallel_attn' ",
           d.parallel ? "true" : "false", " and 'num_ln_in_parallel_attn' ", d.ln_in_parallel,
           " do not make a Falcon layer transformers can run (its layer norms are registered by parallel_attn "
           "and num_ln_in_parallel_attn, and called by new_decoder_architecture)");
  hf::check_divisible(c, "hidden_size", d.hidden, "num_attention_heads", d.heads);
  if (d.new_arch) hf::check_divisible(c, "num_attention_heads", d.heads, "num_kv_heads", d.kv_heads);
  d.alibi = c.get_bool("alibi", false);
  FE_CHECK(c.get_bool("tie_word_embeddings", true), ValueError, c.origin(),
           ": field 'tie_word_embeddings' value false is not supported");
  d.rope = lm::parse_rope(c, c.get_double("rope_theta", 10000.0), d.max_pos);
  return d;
}

class FalconForCausalLM : public Model, public lm::CacheableLM {
 public:
  FalconForCausalLM(const Config& c, const FalconDims& d)
      : dims(d),
        transformer(register_module("transformer", std::make_shared<FalconModel>(c, d))),
        lm_head(register_module("lm_head", std::make_shared<nn::Linear>(d.hidden, d.vocab, false))) {
    lm_head->weight = transformer->word_embeddings->weight;  // _tied_weights_keys
  }
  std::string type_name() const override { return kNaming.cls("ForCausalLM"); }
  std::string model_type() const override { return "falcon"; }
  std::vector<std::string> forward_arg_names() const override { return {"input_ids"}; }
  std::vector<Unit> units() const override {
    std::vector<Unit> u{{"transformer.word_embeddings", false}};
    for (int64_t i = 0; i < dims.layers; ++i) u.push_back({"transformer.h." + std::to_string(i), true});
    u.push_back({"transformer.ln_f", false});
    u.push_back({"transformer.rotary_emb", false});
    u.push_back({"lm_head", false});
    return u;
  }
  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& args) override {
    FE_CHECK(args.size() == 1, ValueError, "FalconForCausalLM.forward() takes 1 tensor argument (input_ids) but ",
             args.size(), " were given");
    nn::ModuleCallScope scope(*this);
    return {logits_of((*transformer)(args[0]))};
  }
  Tensor forward_cached(const Tensor& input_ids, const lm::StaticCache& cache) override {
    nn::ModuleCallScope scope(*this);
    return logits_of((*transformer)(input_ids, &cache));
  }
  /// The cache holds the keys as attention reads them: one per query head (new_decoder_architecture
  /// broadcasts its kv heads first, Falcon-RW's layout has a kv head per head), one in all for
  /// Falcon-7B's multi-query layout.
  std::vector<LayerCache> cache_layers() const override {
    const int64_t kv_heads = !dims.new_arch && dims.multi_query ? 1 : dims.heads;
    std::vector<LayerCache> out;
    for (size_t i = 0; i < transformer->h->size(); ++i) {
      const Tensor& w = transformer->h->at<FalconDecoderLayer>(i).self_attention->dense->weight;
      out.push_back({kv_heads, dims.head_dim(), w.dtype(), w.device()});
    }
    return out;
  }
  /// Falcon-7B's multi-query layout: transformers' own export fails on it. ALiBi: its export reads
  /// the cache's length with .item() and asserts it equals the cache's size, so PyTorch's program
  /// runs only when the cache fills up.
  std::string static_cache_refusal() const override {
    if (dims.alibi)
      return "Falcon with alibi is not supported (transformers' export reads the cache's length with .item() and "
             "asserts it equals max_cache_len, so PyTorch's program only runs once the cache is full)";
    if (!dims.new_arch && dims.multi_query)
      return "Falcon's multi_query layout (Falcon-7B) is not supported (transformers' convert_and_export_with_cache "
             "fails on it too)";
    return {};
  }
  analysis::KvLayout generation_cache() const override { return lm::generation_cache_of(*this); }
  void attach_cache(size_t layer, const lm::StaticCacheLayer* cache) override {
    transformer->h->at<FalconDecoderLayer>(layer).self_attention->cache = cache;
  }
  Device input_device() const override { return transformer->word_embeddings->weight.device(); }
  int64_t vocab_size() const override { return dims.vocab; }
  ExampleInputs example_inputs(const InputOptions& o) override {
    FE_CHECK(!o.attention_mask, ValueError,
             "falcon: --attention-mask is not supported (transformers indexes the padding mask inside its vmapped "
             "mask function, which export records as a flat_apply higher-order op that torch.export.save cannot "
             "serialize either)");
    ExampleInputs in;
    in.args.push_back(token_ids(batch_or(o, 2), seq_or(o, 8), dims.vocab, module_device(*transformer->word_embeddings)));
    if (o.dynamic_batch || o.dynamic_seq) in.dynamic_shapes["input_ids"] = batch_seq_dims(o, dims.max_pos);
    return in;
  }

  const FalconDims dims;
  std::shared_ptr<FalconModel> transformer;
  std::shared_ptr<nn::Linear> lm_head;

 private:
  Tensor logits_of(const Tensor& h) {
    Tensor kept = masks::getitem(h, ":::");  // hidden_states[:, slice(-0, None), :]
    return (*lm_head)(to_module_device(kept, *lm_head));
  }
};

}  // namespace

std::unique_ptr<Model> build_falcon(const Config& c) { return std::make_unique<FalconForCausalLM>(c, read_dims(c)); }

// Falcon at toy size (Falcon-7B's shape, small): multi-query, parallel attention, rotary.
std::string_view default_config_falcon() {
  return R"({"model_type": "falcon", "vocab_size": 1024, "hidden_size": 64, "num_hidden_layers": 4,
  "num_attention_heads": 4, "max_position_embeddings": 2048, "multi_query": true, "parallel_attn": true,
  "new_decoder_architecture": false, "alibi": false, "bias": false})";
}

}  // namespace fe::zoo
