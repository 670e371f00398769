// transformers 5.12's decode step: integrations.executorch.TorchExportableModuleWithStaticCache, the
// decoder LM with a StaticCache registered as non-persistent buffers, as convert_and_export_with_cache
// exports it (strict, under torch.no_grad()). Memory and cost analyses then see the cache.
#include <memory>
#include <string>

#include "fakeexport/core/error.h"
#include "fakeexport/ops/api.h"
#include "nn/zoo/families.h"
#include "nn/zoo/llama_parts.h"

namespace fe::zoo {
namespace {

class StaticCacheDecoder : public Model {
 public:
  StaticCacheDecoder(std::shared_ptr<Model> m, lm::CacheableLM& lm, int64_t batch, int64_t max_cache_len)
      : model(register_module("model", std::move(m))), lm_(lm), batch_(batch) {
    const std::vector<lm::CacheableLM::LayerCache> shapes = lm_.cache_layers();
    cache_.max_cache_len = max_cache_len;
    cache_.layers.reserve(shapes.size());  // attention blocks point into it
    // StaticCache.early_initialization(batch, kv heads, head_dim, model dtype, device): per layer
    // keys and values [batch, kv_heads, max_cache_len, head_dim] and a length, on the layer's device.
    for (size_t i = 0; i < shapes.size(); ++i) {
      const lm::CacheableLM::LayerCache& s = shapes[i];
      const TensorOptions on{.dtype = s.dtype, .device = s.device};
      const std::string n = std::to_string(i);
      lm::StaticCacheLayer l;
      l.keys = &register_buffer("key_cache_" + n, zeros({batch, s.kv_heads, max_cache_len, s.head_dim}, on), false);
      l.values = &register_buffer("value_cache_" + n, zeros({batch, s.kv_heads, max_cache_len, s.value_head_dim > 0 ? s.value_head_dim : s.head_dim}, on), false);
      l.cumulative_length =
          &register_buffer("cumulative_length_" + n, zeros({1}, {.dtype = DType::Int64, .device = s.device}), false);
      cache_.layers.push_back(l);
      access_["key_cache_" + n] = "static_cache.layers." + n + ".keys";
      access_["value_cache_" + n] = "static_cache.layers." + n + ".values";
      access_["cumulative_length_" + n] = "static_cache.layers." + n + ".cumulative_length";
    }
    for (size_t i = 0; i < cache_.layers.size(); ++i) lm_.attach_cache(i, &cache_.layers[i]);
  }
  std::string type_name() const override {
    return "transformers.integrations.executorch.TorchExportableModuleWithStaticCache";
  }
  std::string model_type() const override { return model->model_type(); }
  std::vector<std::string> forward_arg_names() const override { return {"input_ids", "cache_position"}; }
  std::vector<Unit> units() const override {
    std::vector<Unit> u = model->units();
    for (Unit& x : u) x.path = "model." + x.path;
    return u;
  }
  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& args) override {
    FE_CHECK(args.size() == 2, ValueError, type_name(),
             ".forward() takes 2 tensor arguments (input_ids, cache_position) but ", args.size(), " were given");
    nn::ModuleCallScope scope(*this);
    // Each generation starts from the cache position given: layer.cumulative_length.copy_(cache_position[0:1]).
    for (const lm::StaticCacheLayer& l : cache_.layers) l.cumulative_length->copy_(args[1].slice(0, 0, 1));
    return {lm_.forward_cached(args[0], cache_)};
  }
  ExampleInputs example_inputs(const InputOptions& o) override {
    // The cache's batch is fixed; the tokens of a step may vary (a prefill chunk or one token), as
    // transformers exports its text decoders: Dim("seq_length_dim", max=max_cache_len - 1) over
    // input_ids' dim 1 and cache_position's dim 0.
    FE_CHECK(!o.dynamic_batch, ValueError, "a decode step's batch is its static cache's: --dynamic batch does not apply");
    FE_CHECK(!o.attention_mask, ValueError, "a decode step with a static cache takes no attention_mask");
    const int64_t s = seq_or(o, 1);
    FE_CHECK(s <= cache_.max_cache_len, ValueError, "--seq ", s, " exceeds the cache's ", cache_.max_cache_len,
             " tokens");
    const Device d = lm_.input_device();
    ExampleInputs in;
    in.args.push_back(token_ids(batch_, s, lm_.vocab_size(), d));
    in.args.push_back(arange(Scalar(s), {.dtype = DType::Int64, .device = d}));
    if (o.dynamic_seq) {
      const int64_t hi = o.seq_max > 0 ? std::min(o.seq_max, cache_.max_cache_len - 1) : cache_.max_cache_len - 1;
      const Dim seq("seq_length_dim", 0, hi);
      in.dynamic_shapes["input_ids"] = {Dim::STATIC, seq};
      in.dynamic_shapes["cache_position"] = {seq};
    }
    return in;
  }
  // convert_and_export_with_cache: export(wrapper, args=(), kwargs={input_ids, cache_position}).
  ExportHints export_hints() const override {
    return {.strict = true, .no_grad = true, .state_access_paths = access_, .kwarg_inputs = 2};
  }

  std::shared_ptr<Model> model;

 private:
  lm::CacheableLM& lm_;
  int64_t batch_;
  lm::StaticCache cache_;
  std::map<std::string, std::string> access_;
};

}  // namespace

std::unique_ptr<Model> with_static_cache(std::unique_ptr<Model> m, int64_t batch, int64_t max_cache_len) {
  FE_CHECK(batch >= 1 && max_cache_len >= 1, ValueError, "a static cache needs batch >= 1 and a length >= 1, got ",
           batch, " and ", max_cache_len);
  auto* lm = dynamic_cast<lm::CacheableLM*>(m.get());
  FE_CHECK(lm, ValueError, "a decode step with a static cache is built for the decoder families on the llama blocks "
           "(llama, mistral, mixtral, qwen2, qwen3, gemma, gemma2, gemma3_text, phi3, qwen2_moe, qwen3_moe) and "
           "gpt_neox, gpt2 and falcon, not model_type '", m->model_type(), "'");
  const std::string refusal = lm->static_cache_refusal();
  FE_CHECK(refusal.empty(), ValueError, "a decode step with a static cache: ", refusal);
  std::shared_ptr<Model> owned(std::move(m));
  auto out = std::make_unique<StaticCacheDecoder>(owned, *lm, batch, max_cache_len);
  out->eval();
  return out;
}

}  // namespace fe::zoo
