// The zoo's families: one builder and one small default config (JSON text) per source file.
#pragma once
#include <limits>
#include <functional>
#include <memory>
#include <string_view>

#include "fakeexport/nn/zoo.h"

namespace fe::zoo {

using Builder = std::unique_ptr<Model> (*)(const Config&);

std::unique_ptr<Model> build_mlp(const Config& c);
std::string_view default_config_mlp();
std::unique_ptr<Model> build_gpt2(const Config& c);
std::string_view default_config_gpt2();
std::unique_ptr<Model> build_vit(const Config& c);
std::string_view default_config_vit();
std::unique_ptr<Model> build_vision_encoder_decoder(const Config& c);
std::string_view default_config_vision_encoder_decoder();
std::unique_ptr<Model> build_bert(const Config& c);
std::string_view default_config_bert();
std::unique_ptr<Model> build_blenderbot(const Config& c);
std::string_view default_config_blenderbot();
std::unique_ptr<Model> build_llama(const Config& c);  // llama, mistral, qwen2, qwen3, gemma, gemma2
std::string_view default_config_llama();
std::string_view default_config_mistral();
std::string_view default_config_qwen2();
std::string_view default_config_qwen3();
std::string_view default_config_gemma();
std::string_view default_config_gemma2();
std::string_view default_config_gemma3_text();
std::unique_ptr<Model> build_clip(const Config& c);
std::string_view default_config_clip();
std::unique_ptr<Model> build_whisper(const Config& c);
std::string_view default_config_whisper();
std::unique_ptr<Model> build_mixtral(const Config& c);
std::string_view default_config_mixtral();
std::unique_ptr<Model> build_gpt_neox(const Config& c);
std::string_view default_config_gpt_neox();
std::unique_ptr<Model> build_falcon(const Config& c);
std::string_view default_config_falcon();
std::unique_ptr<Model> build_phi3(const Config& c);
std::string_view default_config_phi3();
std::unique_ptr<Model> build_qwen2_moe(const Config& c);
std::string_view default_config_qwen2_moe();
std::unique_ptr<Model> build_qwen3_moe(const Config& c);
std::string_view default_config_qwen3_moe();
std::unique_ptr<Model> build_deepseek_v3(const Config& c);
std::string_view default_config_deepseek_v3();
std::unique_ptr<Model> build_t5(const Config& c);
std::string_view default_config_t5();

/// A non-persistent buffer computed from the config (rotary tables, id buffers): `make` runs on real
/// CPU tensors; under FakeTensorMode the buffer is fake on the scope's device and keeps the values
/// (FakeTensor.constant), so saved programs carry them.
Tensor known_buffer(const std::function<Tensor()>& make);

/// torch.tensor(value, dtype=dtype) inside a forward: a lifted constant, read through
/// lift_fresh_copy + detach_ as export records it.
Tensor tensor_constant(Scalar value, DType dtype);

/// torch.finfo(dtype).min for the floating dtypes a model computes in.
inline double finfo_min(DType t) {
  switch (t) {
    case DType::Float16: return -65504.0;
    case DType::BFloat16: return -3.3895313892515355e+38;
    case DType::Float64: return std::numeric_limits<double>::lowest();
    default: return static_cast<double>(std::numeric_limits<float>::lowest());
  }
}

/// Example token ids [batch, seq] spread over [0, vocab) on `device`: deterministic (an LCG written
/// into the tensor, no op dispatched); fake under FakeTensorMode. Every family's example input_ids.
Tensor token_ids(int64_t batch, int64_t seq, int64_t vocab, Device device);

/// Resolved example sizes: opts' value, else the family default.
inline int64_t batch_or(const InputOptions& o, int64_t dflt) { return o.batch > 0 ? o.batch : dflt; }
inline int64_t seq_or(const InputOptions& o, int64_t dflt) { return o.seq > 0 ? o.seq : dflt; }

/// dynamic_shapes entry for a [batch, seq] token tensor: Dim("batch"), Dim("seq") as requested
/// (gen_zoo_golden.py's names, so a refusal names the dims PyTorch's does); seq_max = -1 takes
/// `max_positions`. Static dims are Dim::STATIC.
std::vector<DimSpec> batch_seq_dims(const InputOptions& o, int64_t max_positions);
/// The dynamic_shapes entry of a sequence length named `name`: Dim(name), or m*_name with
/// o.seq_multiple = m; Dim::STATIC unless o.dynamic_seq.
DimSpec seq_dim(const InputOptions& o, const std::string& name, int64_t max_positions);

}  // namespace fe::zoo
