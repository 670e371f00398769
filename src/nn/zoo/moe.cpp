// See moe.h.
#include "nn/zoo/moe.h"

#include <cctype>

#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/ops/api.h"
#include "fakeexport/sym/shape_env.h"
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
  // perm.size(0) is top_k_index's numel (reshape(-1) and sort keep it), which export reads from
  // there: sym_numel(top_k_index) where the inputs' sizes do not compute it (measured with
  // seq = 8*_seq on PyTorch 2.14 on cpu and 2.11 on cuda).
  const SymInt routed = perm.size(0);
  sym::SymTracer* tracer = routed.is_symbolic() ? routed.node()->env->user_tracer() : nullptr;
  if (tracer) tracer->on_numel_read(top_k_index.impl(), perm.size(0));
  Tensor positions = arange(perm.size(0), {.device = device});
  // inv_perm[perm] = positions: Python's setitem strips the value's leading size-1 dims first
  // (slicePrefix1sDims: a view to [] for one routed token), after comparing the value's sizes
  // (recorded on a symbolic count of routed tokens).
  if (positions.size(0).maybe_int() == 1) positions = positions.view({});
  if (tracer && !positions.size(0).maybe_int()) {
    const SymInt n[2] = {positions.size(0), 1};
    tracer->on_aten_check("ne", n);
    tracer->on_aten_check("eq", {});
  }
  inv_perm.index_put_({perm}, positions);
  weighted = weighted.index({inv_perm});
  Tensor per_token = weighted.view({num_tokens, num_top_k, hidden_dim});
  Tensor out = per_token.sum({1});
  return out.to(x.dtype());
}

TopKRouter::TopKRouter(std::string type, const ExpertsShape& s, const RouterOptions& o)
    : weight(register_parameter("weight", randn({s.experts, s.hidden}) * s.init_std)),
      type_(std::move(type)),
      hidden_(s.hidden),
      o_(o) {}

std::pair<Tensor, Tensor> TopKRouter::operator()(const Tensor& x) {
  nn::ModuleCallScope scope(*this);
  Tensor h = x.reshape({-1, hidden_});
  Tensor router_logits = linear(h, weight);
  Tensor probs = o_.softmax_dtype ? softmax(router_logits, -1, DType::Float32)
                                  : softmax(router_logits.to(DType::Float32), -1);
  auto [top_value, top_index] = topk(probs, o_.top_k, -1);
  if (o_.norm_topk_prob) {
    Tensor total = top_value.sum({-1}, true);
    top_value.div_(total);
  }
  if (o_.cast_back) top_value = top_value.to(router_logits.dtype());
  return {top_value, top_index};
}

SparseMoeBlock::SparseMoeBlock(const std::string& prefix, const ExpertsShape& s, const RouterOptions& o,
                               bool experts_first, std::shared_ptr<nn::UnaryModule> shared)
    : type_(prefix + "SparseMoeBlock") {
  const auto make_gate = [&] { gate = register_module("gate", std::make_shared<TopKRouter>(prefix + "TopKRouter", s, o)); };
  const auto make_experts = [&] {
    experts = register_module("experts", std::make_shared<Experts>(prefix + "Experts", s));
  };
  if (experts_first) make_experts(), make_gate();
  else make_gate(), make_experts();
  if (shared) {
    shared_expert = register_module("shared_expert", std::move(shared));
    shared_expert_gate = register_module("shared_expert_gate", std::make_shared<nn::Linear>(s.hidden, 1, false));
  }
}

Tensor SparseMoeBlock::forward(const Tensor& x) {
  const SymInt b = x.size(0), s = x.size(1), hidden = x.size(2);
  Tensor h = x.view({-1, hidden});
  Tensor shared_out;
  if (shared_expert) shared_out = (*shared_expert)(h);
  auto [top_weights, top_index] = (*gate)(h);
  Tensor out = (*experts)(h, top_index, top_weights);
  if (shared_expert) {
    Tensor g = (*shared_expert_gate)(h);
    Tensor weight = sigmoid(g);
    shared_out = weight * shared_out;
    out = out + shared_out;
  }
  return out.reshape({b, s, hidden});
}

void check_shape(const Config& c, const ExpertsShape& s, const RouterOptions& o, const char* experts_field) {
  FE_CHECK(s.experts > 0, ValueError, c.origin(), ": field '", experts_field, "' value ", s.experts, " must be positive");
  FE_CHECK(o.top_k > 0 && o.top_k <= s.experts, ValueError, c.origin(), ": field 'num_experts_per_tok' value ", o.top_k,
           " must be in [1, ", experts_field, " = ", s.experts, "]");
}

Tensor fused_experts_checkpoint(std::string_view name, const std::string& base, const SafetensorsFile& f,
                                const char* gate, const char* up, const char* down) {
  std::vector<const char*> parts;
  if (name.ends_with(".experts.gate_up_proj")) parts = {gate, up};
  else if (name.ends_with(".experts.down_proj")) parts = {down};
  else return Tensor();
  // Real CPU tensors from the file, also while the caller builds fake models (the CLI).
  UnsetFakeTemporarily real;
  DeviceScope cpu(kCPU);
  std::vector<Tensor> per_expert;
  for (int e = 0; f.contains(base + std::to_string(e) + "." + parts[0] + ".weight"); ++e) {
    std::vector<Tensor> rows;
    for (const char* p : parts) rows.push_back(f.load(base + std::to_string(e) + "." + p + ".weight"));
    per_expert.push_back(rows.size() == 1 ? rows[0] : cat(rows, 0));
  }
  return per_expert.empty() ? Tensor() : stack(per_expert, 0);
}

std::string PerExpertCheckpointLM::checkpoint_key(std::string_view k) const {
  const size_t at = k.find(".mlp.experts.");
  if (at != std::string_view::npos && k.size() > at + 13 && std::isdigit(static_cast<unsigned char>(k[at + 13])))
    return "";  // consumed by checkpoint_tensor
  return std::string(k);
}

Tensor PerExpertCheckpointLM::checkpoint_tensor(std::string_view name, const SafetensorsFile& f) const {
  const size_t at = name.find(".mlp.");
  if (at == std::string_view::npos) return Tensor();
  return fused_experts_checkpoint(name, std::string(name.substr(0, at)) + ".mlp.experts.", f, "gate_proj", "up_proj",
                                  "down_proj");
}

}  // namespace fe::zoo::moe
