// See moe.h.
#include "nn/zoo/moe.h"

#include "fakeexport/core/scopes.h"
#include "fakeexport/ops/api.h"
#include "nn/zoo/llama_parts.h"

namespace fe::zoo::moe {
namespace {

/// _grouped_mm: torch._grouped_mm when transformers may use it under export (bfloat16 weights;
/// CUDA devices are assumed sm80+), else its custom op.
Tensor grouped_mm(const Tensor& x, const Tensor& w, const Tensor& offs) {
  if (w.dtype() == DType::BFloat16) {
    Tensor xw = x.to(w.dtype());
    return _grouped_mm(xw, w, offs);
  }
  return grouped_mm_fallback(x, w, offs);
}

}  // namespace

Experts::Experts(std::string type, const ExpertsShape& s)
    : gate_up_proj(register_parameter("gate_up_proj", randn({s.experts, 2 * s.intermediate, s.hidden}) * s.init_std)),
      down_proj(register_parameter("down_proj", randn({s.experts, s.hidden, s.intermediate}) * s.init_std)),
      act_fn(register_module("act_fn", lm::make_activation(s.act))),
      type_(std::move(type)),
      s_(s) {}

Tensor Experts::operator()(const Tensor& x, const Tensor& top_k_index, const Tensor& top_k_weights) {
  nn::ModuleCallScope scope(*this);
  // One op per statement: the graph follows transformers' source order.
  const Device device = x.device();
  const SymInt num_top_k = top_k_index.size(-1);
  const SymInt num_tokens = x.size(0);
  const SymInt hidden_dim = x.size(-1);
  Tensor sample_weights = top_k_weights.reshape({-1});
  Tensor expert_ids = top_k_index.reshape({-1});
  auto [expert_ids_g, perm] = expert_ids.sort();
  Tensor token_of = floor_divide(perm, num_top_k);
  Tensor selected = x.index({token_of});
  Tensor sample_weights_g = sample_weights.index({perm});
  // histc counts float on cpu (and mps), int elsewhere (transformers' comment: deterministic kernels).
  Tensor histc_input = expert_ids_g.to(device.type() == DeviceType::CPU ? DType::Float32 : DType::Int32);
  Tensor tokens_per_expert = histc(histc_input, s_.experts, 0, s_.experts - 1);
  Tensor offsets = tokens_per_expert.cumsum(0, DType::Int32);
  // Expert-parallel sentinels (ids >= E) sort last and are masked; clamp keeps gathers in bounds.
  Tensor beyond = ge(expert_ids_g, s_.experts);
  Tensor sentinel_mask = beyond.unsqueeze(-1);
  clamp_(expert_ids_g, std::nullopt, s_.experts - 1);
  selected.masked_fill_(sentinel_mask, 0.0);
  Tensor gate_up_t = gate_up_proj.transpose(-2, -1);
  Tensor proj = grouped_mm(selected, gate_up_t, offsets);
  std::vector<Tensor> gate_up = proj.chunk(2, -1);
  Tensor gated = (*act_fn)(gate_up[0]);
  proj = gated * gate_up[1];
  Tensor down_t = down_proj.transpose(-2, -1);
  proj = grouped_mm(proj, down_t, offsets);
  Tensor w = sample_weights_g.unsqueeze(-1);
  Tensor weighted = proj * w;
  weighted.masked_fill_(sentinel_mask, 0.0);
  Tensor inv_perm = empty_like(perm);
  Tensor positions = arange(perm.size(0), {.device = device});
  inv_perm.index_put_({perm}, positions);
  weighted = weighted.index({inv_perm});
  Tensor per_token = weighted.view({num_tokens, num_top_k, hidden_dim});
  Tensor out = per_token.sum({1});
  return out.to(x.dtype());
}

}  // namespace fe::zoo::moe
