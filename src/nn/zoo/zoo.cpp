// The zoo's table: model_type -> builder, built-in name -> default config.
#include <algorithm>
#include <optional>

#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "nn/zoo/families.h"

namespace fe::zoo {
namespace {

struct Family {
  std::string_view model_type;  // as in config.json
  Builder build;
  std::string_view (*default_config)();  // the built-in of the same name
};

// One line per model_type; llama, mistral, qwen2, qwen3, gemma and gemma2 share one family.
constexpr Family kFamilies[] = {
    {"mlp", build_mlp, default_config_mlp},
    {"gpt2", build_gpt2, default_config_gpt2},
    {"llama", build_llama, default_config_llama},
    {"mistral", build_llama, default_config_mistral},
    {"qwen2", build_llama, default_config_qwen2},
    {"qwen3", build_llama, default_config_qwen3},
    {"gemma", build_llama, default_config_gemma},
    {"gemma2", build_llama, default_config_gemma2},
    {"gemma3_text", build_llama, default_config_gemma3_text},
    {"clip", build_clip, default_config_clip},
    {"whisper", build_whisper, default_config_whisper},
    {"mixtral", build_mixtral, default_config_mixtral},
    {"phi3", build_phi3, default_config_phi3},
    {"gpt_neox", build_gpt_neox, default_config_gpt_neox},
    {"falcon", build_falcon, default_config_falcon},
    {"qwen2_moe", build_qwen2_moe, default_config_qwen2_moe},
    {"qwen3_moe", build_qwen3_moe, default_config_qwen3_moe},
    {"deepseek_v3", build_deepseek_v3, default_config_deepseek_v3},
    {"t5", build_t5, default_config_t5},
    {"bert", build_bert, default_config_bert},
    {"vit", build_vit, default_config_vit},
    {"vision-encoder-decoder", build_vision_encoder_decoder, default_config_vision_encoder_decoder},
    {"blenderbot", build_blenderbot, default_config_blenderbot},
};

std::string known_types() {
  std::string s;
  for (const Family& f : kFamilies) s += (s.empty() ? "" : ", ") + std::string(f.model_type);
  return s;
}

/// Every layer count of the config and of the sub-configs models read (encoder/decoder, text and
/// vision towers) against the limit: a config asking for 10^8 layers is refused before it is built.
void check_layer_counts(const Config& c, const BuildLimits& limits, int depth = 0) {
  static constexpr const char* kCounts[] = {"num_hidden_layers", "n_layer",       "num_layers",
                                            "n_layers",          "encoder_layers", "decoder_layers",
                                            "num_decoder_layers"};
  for (const char* key : kCounts) {
    if (c.is_null(key)) continue;
    const int64_t n = c.get_int(key);
    FE_CHECK(n >= 0, ValueError, c.origin(), ": field '", c.field_name(key), "' = ", n, " must be >= 0");
    if (n > limits.max_layers)
      throw LimitError(detail::cat(c.origin(), ": ", c.field_name(key), " = ", n, " is over the limit of ", limits.max_layers,
                                   " layers (raise it with --max-layers)"));
  }
  // Widths, head counts and vocabularies are positive: a zero or negative one would surface as a
  // misleading divisibility or tensor-creation error far from the field.
  static constexpr const char* kSizes[] = {
      "hidden_size", "intermediate_size", "num_attention_heads", "num_key_value_heads", "head_dim", "vocab_size",
      "max_position_embeddings", "n_embd", "n_head", "n_inner", "n_positions", "d_model", "encoder_attention_heads",
      "decoder_attention_heads", "encoder_ffn_dim", "decoder_ffn_dim", "num_local_experts", "num_experts_per_tok",
      "moe_intermediate_size", "image_size", "patch_size", "num_channels"};
  for (const char* key : kSizes) {
    if (c.is_null(key)) continue;
    int64_t n = 0;
    try {
      n = c.get_int(key);
    } catch (const ValueError&) {
      continue;  // not an integer (some configs give [h, w]): the family's own reading decides
    }
    FE_CHECK(n >= 1, ValueError, c.origin(), ": field '", c.field_name(key), "' = ", n, " must be >= 1");
  }
  if (depth >= 2) return;
  for (const char* sub : {"text_config", "vision_config", "audio_config", "encoder", "decoder"}) {
    if (c.is_null(sub)) continue;
    std::optional<Config> s;
    try {
      s = c.sub(sub);
    } catch (const ValueError&) {
      continue;  // not an object: the family's own reading rejects it, with its message
    }
    check_layer_counts(*s, limits, depth + 1);
  }
}

}  // namespace

std::unique_ptr<Model> build(const Config& config, const BuildLimits& limits) {
  check_layer_counts(config, limits);
  const std::string mt = config.model_type();
  for (const Family& f : kFamilies)
    if (f.model_type == mt) {
      std::unique_ptr<Model> m;
      try {
        m = f.build(config);
      } catch (const UserError& e) {
        // A size no tensor can have (an overflowing vocabulary...) surfaces in a tensor op: name the config.
        if (std::string_view(e.what()).starts_with(config.origin())) throw;
        rethrow_with_prefix(e, detail::cat(config.origin(), ": building the ", mt, " model: "));
      }
      m->eval();
      return m;
    }
  throw ValueError(detail::cat(config.origin(), ": unknown model_type '", mt, "' (known: ", known_types(), ")"));
}

std::vector<std::string> builtin_names() {
  std::vector<std::string> out;
  for (const Family& f : kFamilies) out.emplace_back(f.model_type);
  return out;
}

Config builtin_config(std::string_view name) {
  for (const Family& f : kFamilies)
    if (f.model_type == name) return Config::parse(f.default_config(), "built-in " + std::string(name));
  throw ValueError(detail::cat("unknown model '", name, "': not a built-in (", known_types(),
                               ") and not a config.json path"));
}

Tensor token_ids(int64_t batch, int64_t seq, int64_t vocab, Device device) {
  FE_CHECK(vocab > 0, ValueError, "example input_ids: the vocabulary size must be positive, got ", vocab);
  Tensor ids = empty({batch, seq}, {.dtype = DType::Int64, .device = device});
  if (ids.has_storage()) {
    uint64_t x = 0x9E3779B97F4A7C15ull;
    auto* p = ids.data<int64_t>();
    for (int64_t i = 0; i < batch * seq; ++i) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      p[i] = static_cast<int64_t>((x >> 33) % static_cast<uint64_t>(vocab));
    }
  }
  return ids;
}

Tensor known_buffer(const std::function<Tensor()>& make) {
  const bool fake = FakeTensorMode::active();
  const Device d = default_device();
  Tensor v;
  {
    UnsetFakeTemporarily real;
    DeviceScope cpu(kCPU);
    TraceScope untraced(nullptr);  // a constant's values (torch.tensor(...) while tracing) are no ops
    v = make().contiguous();
  }
  if (fake) return fake_constant(v, d);
  return d.is_cpu() ? v : v.to(d);
}

Tensor tensor_constant(Scalar value, DType dtype) {
  Tensor t = known_buffer([&] { return full({}, value, {.dtype = dtype}); });
  return detach_(lift_fresh_copy(t));
}

DimSpec seq_dim(const InputOptions& o, const std::string& name, int64_t max_positions) {
  if (!o.dynamic_seq) return Dim::STATIC;
  const int64_t hi = o.seq_max > 0 ? o.seq_max : max_positions, m = o.seq_multiple;
  if (m <= 1) return Dim(name, o.seq_min, hi);
  // m*_name over the multiples of m in [seq_min, hi] (as PyTorch words its suggested fix).
  return DerivedDim(Dim("_" + name, (std::max<int64_t>(o.seq_min, 2) + m - 1) / m, hi / m), m, 0);
}

std::vector<DimSpec> batch_seq_dims(const InputOptions& o, int64_t max_positions) {
  std::vector<DimSpec> dims;
  dims.push_back(o.dynamic_batch ? DimSpec(Dim("batch", o.batch_min, o.batch_max)) : DimSpec(Dim::STATIC));
  dims.push_back(seq_dim(o, "seq", max_positions));
  return dims;
}

}  // namespace fe::zoo
