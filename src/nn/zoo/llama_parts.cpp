// The llama-style decoder pieces of llama_parts.h, statement for statement as transformers 5.12's
// modeling_llama.py (sdpa attention, eval mode, use_cache=False, no attention_mask input).
#include "nn/zoo/llama_parts.h"

#include "nn/zoo/activations.h"
#include "nn/zoo/masking.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>

#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "nn/zoo/families.h"

namespace fe::zoo::lm {

// ---- config helpers

Rope parse_rope(const Config& c, double default_theta, int64_t max_positions) {
  // HF: `rope_scaling or rope_parameters`; rope_theta from that dict, else the top-level field.
  const char* key = nullptr;
  if (!c.is_null("rope_scaling") && c.size_of("rope_scaling", 0) > 0) key = "rope_scaling";
  else if (!c.is_null("rope_parameters") && c.size_of("rope_parameters", 0) > 0) key = "rope_parameters";
  Rope r;
  r.theta = c.get_double("rope_theta", default_theta);
  r.partial_rotary_factor = c.get_double("partial_rotary_factor", 1.0);
  if (key == nullptr) return r;
  const Config rp = c.sub(key);
  FE_CHECK(!rp.has("full_attention") && !rp.has("sliding_attention"), ValueError, c.origin(), ": field '", key,
           "' holds per-layer-type RoPE parameters, which only gemma3_text supports");
  return parse_rope_dict(c, rp, key, r, max_positions);
}

Rope parse_rope_dict(const Config& c, const Config& rp, std::string_view key, Rope r, int64_t max_positions) {
  r.type = rp.get_string("rope_type", rp.get_string("type", "default"));
  r.theta = rp.get_double("rope_theta", r.theta);
  r.partial_rotary_factor = rp.get_double("partial_rotary_factor", r.partial_rotary_factor);
  if (r.type == "default") return r;
  if (r.type == "linear") {
    r.factor = rp.get_double("factor");
    return r;
  }
  if (r.type == "llama3") {
    r.factor = rp.get_double("factor");
    r.low_freq_factor = rp.get_double("low_freq_factor");
    r.high_freq_factor = rp.get_double("high_freq_factor");
    // standardize_rope_params: a top-level original_max_position_embeddings wins, else the dict's,
    // else max_position_embeddings.
    r.original_max_positions = c.has("original_max_position_embeddings")
                                   ? c.get_int("original_max_position_embeddings")
                                   : rp.get_int("original_max_position_embeddings", max_positions);
    return r;
  }
  if (r.type == "yarn") {
    r.original_max_positions = c.has("original_max_position_embeddings")
                                   ? c.get_int("original_max_position_embeddings")
                                   : rp.get_int("original_max_position_embeddings", max_positions);
    FE_CHECK(r.original_max_positions > 0, ValueError, c.origin(), ": field '", key,
             ".original_max_position_embeddings' value ", r.original_max_positions, " must be positive");
    // factor None: max_position_embeddings / original_max_position_embeddings
    r.factor = rp.is_null("factor") ? static_cast<double>(max_positions) / static_cast<double>(r.original_max_positions)
                                    : rp.get_double("factor");
    // `or`: a null or zero beta takes the default
    if (!rp.is_null("beta_fast") && rp.get_double("beta_fast") != 0) r.beta_fast = rp.get_double("beta_fast");
    if (!rp.is_null("beta_slow") && rp.get_double("beta_slow") != 0) r.beta_slow = rp.get_double("beta_slow");
    if (!rp.is_null("attention_factor")) r.attention_factor = rp.get_double("attention_factor");
    if (!rp.is_null("mscale")) r.mscale = rp.get_double("mscale");
    if (!rp.is_null("mscale_all_dim")) r.mscale_all_dim = rp.get_double("mscale_all_dim");
    r.truncate = rp.get_bool("truncate", true);
    return r;
  }
  // transformers' dynamic_rope_update compares max(position_ids) + 1 with the cached length in Python:
  // PyTorch 2.14's torch.export of such a model fails with GuardOnDataDependentSymNode (checked with
  // a Llama "dynamic" and a Phi-3 "longrope" config), so there is no program to equal.
  const bool data_dependent = r.type == "dynamic" || r.type == "longrope";
  throw ValueError(detail::cat(c.origin(), ": field '", key, ".rope_type' value '", r.type,
                               "' is not supported (supported: default, linear, llama3, yarn)",
                               data_dependent ? "; torch.export cannot export it either: its rotary embedding branches "
                                                "on max(position_ids) + 1 (GuardOnDataDependentSymNode)"
                                              : ""));
}

std::string parse_act(const Config& c) {
  // Gemma 2 names the MLP's activation hidden_activation.
  const char* key = c.model_type() == "gemma2" || c.model_type() == "gemma3_text" ? "hidden_activation" : "hidden_act";
  std::string act = c.get_string(key, c.model_type().starts_with("gemma") ? "gelu_pytorch_tanh" : "silu");
  check_activation(act, c.origin(), key);
  return act;
}

int64_t parse_kv_heads(const Config& c, int64_t heads, int64_t absent_default) {
  if (!c.has("num_key_value_heads")) return absent_default;
  return c.is_null("num_key_value_heads") ? heads : c.get_int("num_key_value_heads");
}

void parse_dims(const Config& c, Arch& a) {
  a.vocab = c.get_int("vocab_size");
  a.hidden = c.get_int("hidden_size");
  a.intermediate = c.get_int("intermediate_size");
  a.layers = c.get_int("num_hidden_layers");
  a.heads = c.get_int("num_attention_heads");
  a.head_dim = parse_head_dim(c, a.hidden, a.heads);
  a.act = parse_act(c);
  // nn.Embedding(vocab, hidden, padding_idx=config.pad_token_id)
  if (c.has("pad_token_id") && !c.is_null("pad_token_id")) a.pad_token_id = c.get_int("pad_token_id");
}

int64_t parse_head_dim(const Config& c, int64_t hidden, int64_t heads) {
  FE_CHECK(heads > 0, ValueError, c.origin(), ": field 'num_attention_heads' value ", heads, " must be positive");
  const int64_t hd = c.get_int("head_dim", 0);
  return hd > 0 ? hd : hidden / heads;
}

void check_arch(const Config& c, const Arch& a) {
  const std::pair<const char*, int64_t> sizes[] = {
      {"vocab_size", a.vocab}, {"hidden_size", a.hidden}, {"intermediate_size", a.intermediate},
      {"num_hidden_layers", a.layers}, {"num_key_value_heads", a.kv_heads}};
  for (const auto& [name, v] : sizes)
    FE_CHECK(v > 0, ValueError, c.origin(), ": field '", name, "' value ", v, " must be positive");
  FE_CHECK(a.heads % a.kv_heads == 0, ValueError, c.origin(), ": field 'num_key_value_heads' value ", a.kv_heads,
           " must divide num_attention_heads (", a.heads, ")");
  FE_CHECK(a.head_dim > 0, ValueError, c.origin(), ": head_dim ", a.head_dim, " must be positive (hidden_size ",
           a.hidden, " / num_attention_heads ", a.heads, "); set field 'head_dim' or 'hidden_size'");
  FE_CHECK(a.head_dim % 2 == 0, ValueError, c.origin(), ": head_dim ", a.head_dim,
           " must be even (rotary embedding); set field 'head_dim' or 'hidden_size'");
  // Only Phi-3's attention rotates part of each head (the others would need its slicing).
  const double partial = a.rope.partial_rotary_factor;
  const int64_t rotary_dim = static_cast<int64_t>(static_cast<double>(a.head_dim) * partial);
  FE_CHECK(partial == 1.0 || (a.rotary_slices && partial > 0 && partial < 1 && rotary_dim > 0 && rotary_dim % 2 == 0),
           ValueError, c.origin(), ": field 'partial_rotary_factor' value ", partial, " is not supported",
           a.rotary_slices ? " (head_dim * factor must be a positive even number)" : " (only 1.0)");
}

std::vector<float> rope_inv_freq(const Rope& rope, int64_t head_dim) {
  // 1.0 / (base ** (arange(0, dim, 2).float() / dim)), every step in float32 as torch computes it
  // (`1.0 / t` is t.reciprocal() * 1.0; `x / t` with a Python scalar x likewise).
  const int64_t n = head_dim / 2;
  const float base = static_cast<float>(rope.theta), dim = static_cast<float>(head_dim);
  std::vector<float> inv(static_cast<size_t>(n));
  // pow rounded once to float32 (torch's vectorized powf is within 1 ulp of this; checked bitwise
  // equal for the llama configs here, one entry 1 ulp apart for Mixtral-8x7B's theta 1e6).
  for (int64_t i = 0; i < n; ++i) {
    const float exponent = static_cast<float>(2 * i) / dim;
    inv[i] = 1.0f / static_cast<float>(std::pow(static_cast<double>(base), static_cast<double>(exponent)));
  }
  if (rope.type == "yarn") {
    // _compute_yarn_parameters: interpolated and extrapolated frequencies blended by a linear ramp
    // over the dims between the correction range's bounds, each step in float32 as torch computes it.
    const double theta = rope.theta, dimd = static_cast<double>(head_dim);
    const auto correction_dim = [&](double rotations) {
      return (dimd * std::log(static_cast<double>(rope.original_max_positions) / (rotations * 2 * std::numbers::pi))) /
             (2 * std::log(theta));
    };
    double low = correction_dim(rope.beta_fast), high = correction_dim(rope.beta_slow);
    if (rope.truncate) {
      low = std::floor(low);
      high = std::ceil(high);
    }
    low = std::max(low, 0.0);
    high = std::min(high, dimd - 1);
    if (low == high) high += 0.001;  // prevent a singular ramp
    const float factor = static_cast<float>(rope.factor);
    for (int64_t i = 0; i < n; ++i) {
      // base ** (arange(0, dim, 2).float() / dim), rounded once to float32 as for the default rope
      const float exponent = static_cast<float>(2 * i) / static_cast<float>(head_dim);
      const float pos_freq = static_cast<float>(std::pow(static_cast<double>(base), static_cast<double>(exponent)));
      const float extrapolation = inv[i];
      const float interpolation = 1.0f / (factor * pos_freq);
      const float ramp = std::clamp((static_cast<float>(i) - static_cast<float>(low)) / static_cast<float>(high - low),
                                    0.0f, 1.0f);
      const float extrapolation_factor = 1.0f - ramp;
      inv[i] = interpolation * (1.0f - extrapolation_factor) + extrapolation * extrapolation_factor;
    }
  } else if (rope.type == "linear") {
    for (float& f : inv) f = f / static_cast<float>(rope.factor);
  } else if (rope.type == "llama3") {
    // _compute_llama3_parameters.
    const float factor = static_cast<float>(rope.factor), low = static_cast<float>(rope.low_freq_factor),
                high = static_cast<float>(rope.high_freq_factor);
    const double old = static_cast<double>(rope.original_max_positions);
    const float low_wl = static_cast<float>(old / rope.low_freq_factor);
    const float high_wl = static_cast<float>(old / rope.high_freq_factor);
    const float two_pi = static_cast<float>(2 * std::numbers::pi), oldf = static_cast<float>(old);
    for (float& f : inv) {
      const float wavelen = (1.0f / f) * two_pi;
      const float llama = wavelen > low_wl ? f / factor : f;
      const float smooth = ((1.0f / wavelen) * oldf - low) / (high - low);
      const float smoothed = (1.0f - smooth) * llama / factor + smooth * llama;
      const bool medium = !(wavelen < high_wl) && !(wavelen > low_wl);
      f = medium ? smoothed : llama;
    }
  }
  return inv;
}

double Rope::attention_scaling() const {
  if (type != "yarn") return 1.0;
  if (attention_factor) return *attention_factor;
  // get_mscale(scale, mscale=1): 0.1 * mscale * log(scale) + 1, or 1 for scale <= 1
  const auto get_mscale = [](double scale, double m) { return scale <= 1 ? 1.0 : 0.1 * m * std::log(scale) + 1.0; };
  if (mscale && mscale_all_dim && *mscale != 0 && *mscale_all_dim != 0)
    return get_mscale(factor, *mscale) / get_mscale(factor, *mscale_all_dim);
  return get_mscale(factor, 1.0);
}

// ---- modules

std::shared_ptr<nn::UnaryModule> make_activation(const std::string& name) { return std::make_shared<HFActivation>(name); }

RMSNorm::RMSNorm(const Naming& n, int64_t size, double eps, bool gemma)
    : weight(register_parameter("weight", gemma ? zeros({size}) : ones({size}))),
      type_(n.cls("RMSNorm")),
      eps_(eps),
      gemma_(gemma) {}

Tensor RMSNorm::forward(const Tensor& x) {
  const DType input_dtype = x.dtype();
  Tensor h = x.to(DType::Float32);
  Tensor variance = h.pow(2).mean({-1}, true);
  h = h * rsqrt(variance + eps_);
  if (gemma_) {
    // Gemma: (x * w).to(dtype) with w = 1 + weight, where Llama does x.to(dtype) * w.
    Tensor w = weight.to(DType::Float32) + 1.0;
    return (h * w).type_as(x);
  }
  return weight * h.to(input_dtype);
}

namespace {
// A float32 buffer holding `values` (fake ones remember them).
Tensor float_buffer(const std::vector<float>& values) {
  return known_buffer([&] {
    Tensor t = empty({static_cast<int64_t>(values.size())}, {.dtype = DType::Float32});
    if (!values.empty()) std::memcpy(t.data_ptr(), values.data(), values.size() * sizeof(float));
    return t;
  });
}
}  // namespace

ScaledWordEmbedding::ScaledWordEmbedding(const Naming& n, int64_t vocab, int64_t hidden, std::optional<int64_t> pad,
                                         double scale)
    : nn::Embedding(vocab, hidden, pad),
      // torch.tensor(embed_scale): the default dtype (bfloat16 under from_config(dtype=bfloat16))
      embed_scale(register_buffer("embed_scale", known_buffer([&] { return full({}, scale, {.dtype = default_dtype()}); }),
                                  false)),
      type_(n.cls("TextScaledWordEmbedding")) {}

Tensor ScaledWordEmbedding::forward(const Tensor& ids) {
  Tensor e = nn::Embedding::forward(ids);
  return e * embed_scale.to(weight.dtype());
}

// dim = int(head_dim * partial_rotary_factor): the rotated part of each head.
RotaryEmbedding::RotaryEmbedding(const Naming& n, const Rope& rope, int64_t head_dim)
    : RotaryEmbedding(n, {{"", rope}}, head_dim) {}

RotaryEmbedding::RotaryEmbedding(const Naming& n, const std::vector<std::pair<std::string, Rope>>& by_type,
                                 int64_t head_dim)
    : type_(n.cls("RotaryEmbedding")) {
  for (const auto& [layer_type, rope] : by_type) {
    const std::string prefix = layer_type.empty() ? "" : layer_type + "_";
    const std::vector<float> inv = rope_inv_freq(rope, static_cast<int64_t>(head_dim * rope.partial_rotary_factor));
    inv_freqs_.push_back(&register_buffer(prefix + "inv_freq", float_buffer(inv), false));
    attention_scalings_.push_back(rope.attention_scaling());
    register_buffer(prefix + "original_inv_freq", float_buffer(inv), false);
  }
}

std::pair<Tensor, Tensor> RotaryEmbedding::operator()(const Tensor& x, const Tensor& position_ids, size_t type) {
  const Tensor& inv_freq = *inv_freqs_.at(type);
  // forward is decorated with @torch.no_grad(): export records it as a wrap_with_set_grad_enabled
  // subgraph. attention_scaling is 1.0 for default, linear and llama3 rope.
  NoGradScope no_grad;
  nn::ModuleCallScope scope(*this);
  // inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1).to(x.device)
  Tensor inv = inv_freq.unsqueeze(0).unsqueeze(2).to(DType::Float32).expand({position_ids.size(0), -1, 1}).to(x.device());
  Tensor pos = masks::getitem(position_ids, ":N:").to(DType::Float32);
  // with autocast disabled: (inv.float() @ pos.float()).transpose(1, 2)
  Tensor a = inv.to(DType::Float32);
  Tensor b = pos.to(DType::Float32);
  Tensor freqs = a.matmul(b).transpose(1, 2);
  Tensor emb = cat({freqs, freqs}, -1);
  Tensor cos = emb.cos() * attention_scalings_.at(type);
  Tensor sin = emb.sin() * attention_scalings_.at(type);
  Tensor c = cos.to(x.dtype());
  return {c, sin.to(x.dtype())};
}

MLP::MLP(const Arch& a)
    : gate_proj(register_module("gate_proj", std::make_shared<nn::Linear>(a.hidden, a.intermediate, a.mlp_bias))),
      up_proj(register_module("up_proj", std::make_shared<nn::Linear>(a.hidden, a.intermediate, a.mlp_bias))),
      down_proj(register_module("down_proj", std::make_shared<nn::Linear>(a.intermediate, a.hidden, a.mlp_bias))),
      act_fn(register_module("act_fn", make_activation(a.act))),
      type_(a.naming.cls("MLP")) {}

FusedGateUpMLP::FusedGateUpMLP(const Arch& a)
    : gate_up_proj(register_module("gate_up_proj", std::make_shared<nn::Linear>(a.hidden, 2 * a.intermediate, false))),
      down_proj(register_module("down_proj", std::make_shared<nn::Linear>(a.intermediate, a.hidden, false))),
      activation_fn(register_module("activation_fn", make_activation(a.act))),
      type_(a.naming.cls("MLP")) {}

Tensor FusedGateUpMLP::forward(const Tensor& x) {
  Tensor up_states = (*gate_up_proj)(x);
  std::vector<Tensor> gate_up = up_states.chunk(2, -1);
  Tensor act = (*activation_fn)(gate_up[0]);
  up_states = gate_up[1] * act;
  return (*down_proj)(up_states);
}

Tensor MLP::forward(const Tensor& x) {
  // One statement per call: C++ leaves operand order unspecified, Python evaluates left to right.
  Tensor gate = (*act_fn)((*gate_proj)(x));
  Tensor up = (*up_proj)(x);
  return (*down_proj)(gate * up);
}

Attention::Attention(const Arch& a)
    : type_(a.naming.cls("Attention")),
      heads_(a.heads),
      kv_heads_(a.kv_heads),
      head_dim_(a.head_dim),
      groups_(a.heads / a.kv_heads),
      scaling_(a.attn_scaling ? *a.attn_scaling : std::pow(static_cast<double>(a.head_dim), -0.5)),
      rotary_slices_(a.rotary_slices),
      qk_norm_after_transpose_(a.qk_norm && a.qk_norm_after_transpose) {
  if (a.fused_qkv) {
    // Phi3Attention registers o_proj before qkv_proj.
    o_proj = register_module("o_proj", std::make_shared<nn::Linear>(a.heads * a.head_dim, a.hidden, a.o_bias));
    const int64_t op_size = (a.heads + 2 * a.kv_heads) * a.head_dim;
    qkv_proj = register_module("qkv_proj", std::make_shared<nn::Linear>(a.hidden, op_size, a.qkv_bias));
  } else {
    q_proj = register_module("q_proj", std::make_shared<nn::Linear>(a.hidden, a.heads * a.head_dim, a.qkv_bias));
    k_proj = register_module("k_proj", std::make_shared<nn::Linear>(a.hidden, a.kv_heads * a.head_dim, a.qkv_bias));
    v_proj = register_module("v_proj", std::make_shared<nn::Linear>(a.hidden, a.kv_heads * a.head_dim, a.qkv_bias));
    o_proj = register_module("o_proj", std::make_shared<nn::Linear>(a.heads * a.head_dim, a.hidden, a.o_bias));
  }
  // Qwen3: RMSNorm over head_dim on the queries and keys, registered after o_proj.
  if (a.qk_norm) {
    q_norm = register_module("q_norm", std::make_shared<RMSNorm>(a.naming, a.head_dim, a.rms_eps, a.gemma_norm));
    k_norm = register_module("k_norm", std::make_shared<RMSNorm>(a.naming, a.head_dim, a.rms_eps, a.gemma_norm));
  }
}

Tensor rotate_half(const Tensor& x) {
  // x[..., : x.shape[-1] // 2]: Python's Ellipsis indexing records the dim counted from the front.
  const int64_t last = x.dim() - 1, half = x.size(-1).expect_int() / 2;
  Tensor x1 = x.slice(last, 0, half);
  Tensor x2 = x.slice(last, half);
  return cat({-x2, x1}, -1);
}

Tensor apply_rotary(const Tensor& x, const Tensor& cos, const Tensor& sin) {
  Tensor a = x * cos;
  Tensor b = rotate_half(x) * sin;
  return a + b;
}

Tensor repeat_kv(const Tensor& x, int64_t n_rep) {
  if (n_rep == 1) return x;
  const SymInt b = x.size(0), kv = x.size(1), s = x.size(2), hd = x.size(3);
  return masks::getitem(x, "::N::").expand({b, kv, n_rep, s, hd}).reshape({b, kv * n_rep, s, hd});
}

std::pair<Tensor, Tensor> apply_rotary_slices(const Tensor& q, const Tensor& k, const Tensor& cos, const Tensor& sin,
                                              bool rotate_both_first) {
  const int64_t rotary_dim = cos.size(-1).expect_int(), last = q.dim() - 1;
  const auto head = [&](const Tensor& x) {
    return rotary_dim == x.size(-1).expect_int() ? alias(x) : x.slice(last, 0, rotary_dim);
  };
  Tensor q_rot = head(q);
  Tensor q_pass = q.slice(last, rotary_dim);
  Tensor k_rot = head(k);
  Tensor k_pass = k.slice(last, rotary_dim);
  if (rotate_both_first) {
    Tensor q_embed = apply_rotary(q_rot, cos, sin);
    Tensor k_embed = apply_rotary(k_rot, cos, sin);
    q_embed = cat({q_embed, q_pass}, -1);
    return {q_embed, cat({k_embed, k_pass}, -1)};
  }
  Tensor q_embed = cat({apply_rotary(q_rot, cos, sin), q_pass}, -1);
  Tensor k_embed = cat({apply_rotary(k_rot, cos, sin), k_pass}, -1);
  return {q_embed, k_embed};
}

Tensor Attention::operator()(const Tensor& h, const Tensor& cos_in, const Tensor& sin_in, const Tensor& mask) {
  nn::ModuleCallScope scope(*this);
  const SymInt b = h.size(0), s = h.size(1);
  Tensor q, k, v;
  if (qkv_proj) {
    // qkv[..., :query_pos], qkv[..., query_pos : query_pos + kv], qkv[..., query_pos + kv :]
    Tensor qkv = (*qkv_proj)(h);
    const int64_t last = qkv.dim() - 1, qp = heads_ * head_dim_, kvd = kv_heads_ * head_dim_;
    q = qkv.slice(last, 0, qp);
    k = qkv.slice(last, qp, qp + kvd);
    v = qkv.slice(last, qp + kvd);
    q = q.view({b, s, -1, head_dim_}).transpose(1, 2);
    k = k.view({b, s, -1, head_dim_}).transpose(1, 2);
    v = v.view({b, s, -1, head_dim_}).transpose(1, 2);
  } else if (qk_norm_after_transpose_) {
    // Gemma 3: the three projections, then the norms on [b, heads, s, d].
    q = (*q_proj)(h).view({b, s, -1, head_dim_}).transpose(1, 2);
    k = (*k_proj)(h).view({b, s, -1, head_dim_}).transpose(1, 2);
    v = (*v_proj)(h).view({b, s, -1, head_dim_}).transpose(1, 2);
    q = (*q_norm)(q);
    k = (*k_norm)(k);
  } else {
    q = (*q_proj)(h).view({b, s, -1, head_dim_});
    if (q_norm) q = (*q_norm)(q);
    q = q.transpose(1, 2);
    k = (*k_proj)(h).view({b, s, -1, head_dim_});
    if (k_norm) k = (*k_norm)(k);
    k = k.transpose(1, 2);
    v = (*v_proj)(h).view({b, s, -1, head_dim_}).transpose(1, 2);
  }
  // apply_rotary_pos_emb (unsqueeze_dim=1).
  Tensor cos = cos_in.unsqueeze(1), sin = sin_in.unsqueeze(1);
  if (rotary_slices_) {
    std::tie(q, k) = apply_rotary_slices(q, k, cos, sin);
  } else {
    q = apply_rotary(q, cos, sin);
    k = apply_rotary(k, cos, sin);
  }
  if (cache) std::tie(k, v) = cache->update(k, v);
  // transformers 5.12's sdpa_attention_forward under export: repeat_kv, then sdpa with the
  // materialized boolean mask (is_causal False) and the explicit scale.
  Tensor key = repeat_kv(k, groups_);
  Tensor value = repeat_kv(v, groups_);
  masks::is_causal_probe(q);
  Tensor o = scaled_dot_product_attention(q, key, value, mask, 0.0, false, scaling_);
  // .transpose(1, 2).contiguous(): recorded only when sdpa's output (laid out like the query) is
  // not already in that order, e.g. after Phi-3's cat.
  o = o.transpose(1, 2).contiguous();
  o = o.reshape({b, s, -1}).contiguous();
  return (*o_proj)(o);
}

DecoderLayer::DecoderLayer(const Arch& a, int64_t idx, const MlpFactory& make_mlp, const AttentionFactory& make_attn)
    : self_attn(register_module("self_attn", make_attn ? make_attn(a) : std::make_shared<Attention>(a))),
      mlp(register_module("mlp", make_mlp(a, idx))),
      input_layernorm(
          register_module("input_layernorm", std::make_shared<RMSNorm>(a.naming, a.hidden, a.rms_eps, a.gemma_norm))),
      post_attention_layernorm(register_module(
          "post_attention_layernorm", std::make_shared<RMSNorm>(a.naming, a.hidden, a.rms_eps, a.gemma_norm))),
      sliding(a.layer_sliding.at(static_cast<size_t>(idx))),
      type_(a.naming.cls("DecoderLayer")) {
  if (a.sandwich_norms) {
    pre_feedforward_layernorm = register_module(
        "pre_feedforward_layernorm", std::make_shared<RMSNorm>(a.naming, a.hidden, a.rms_eps, a.gemma_norm));
    post_feedforward_layernorm = register_module(
        "post_feedforward_layernorm", std::make_shared<RMSNorm>(a.naming, a.hidden, a.rms_eps, a.gemma_norm));
  }
  if (a.resid_dropout >= 0) {
    resid_attn_dropout = register_module("resid_attn_dropout", std::make_shared<nn::Dropout>(a.resid_dropout));
    resid_mlp_dropout = register_module("resid_mlp_dropout", std::make_shared<nn::Dropout>(a.resid_dropout));
  }
}

Tensor DecoderLayer::operator()(const Tensor& x, const Tensor& cos, const Tensor& sin, const Tensor& mask) {
  nn::ModuleCallScope scope(*this);
  Tensor residual = x;
  Tensor h = (*input_layernorm)(x);
  h = (*self_attn)(h, cos, sin, mask);
  if (pre_feedforward_layernorm) {
    // Gemma 2: each block normed before and after, then added.
    h = (*post_attention_layernorm)(h);
    h = residual + h;
    residual = h;
    h = (*pre_feedforward_layernorm)(h);
    h = (*mlp)(h);
    h = (*post_feedforward_layernorm)(h);
    return residual + h;
  }
  if (resid_attn_dropout) h = (*resid_attn_dropout)(h);
  h = residual + h;
  residual = h;
  h = (*post_attention_layernorm)(h);
  h = (*mlp)(h);
  if (resid_mlp_dropout) h = (*resid_mlp_dropout)(h);
  return residual + h;
}

BaseModel::BaseModel(const Arch& a, const MlpFactory& make_mlp, const AttentionFactory& make_attn)
    : embed_tokens(register_module(
          "embed_tokens", a.embed_scale > 0 ? std::shared_ptr<nn::Embedding>(std::make_shared<ScaledWordEmbedding>(
                                                  a.naming, a.vocab, a.hidden, a.pad_token_id, a.embed_scale))
                                            : std::make_shared<nn::Embedding>(a.vocab, a.hidden, a.pad_token_id))),
      layers(register_module("layers", std::make_shared<nn::ModuleList>())),
      type_(a.naming.cls(a.base_model_suffix)),
      sliding_window_(a.sliding_window),
      any_sliding_(false),
      both_masks_(a.both_masks),
      full_always_(a.full_mask_always) {
  all_sliding_ = a.layers > 0;
  for (int64_t i = 0; i < a.layers; ++i) {
    auto layer = std::make_shared<DecoderLayer>(a, i, make_mlp, make_attn);
    any_sliding_ = any_sliding_ || layer->sliding;
    all_sliding_ = all_sliding_ && layer->sliding;
    layers->push_back(layer);
    layer_ptrs.push_back(std::move(layer));
  }
  norm = register_module("norm", std::make_shared<RMSNorm>(a.naming, a.hidden, a.rms_eps, a.gemma_norm));
  rotary_emb = register_module("rotary_emb", a.rope_by_type.empty()
                                                 ? std::make_shared<RotaryEmbedding>(a.naming, a.rope, a.head_dim)
                                                 : std::make_shared<RotaryEmbedding>(a.naming, a.rope_by_type, a.head_dim));
  // Gemma 3: each layer takes the rotary pair of its type.
  for (const auto& [layer_type, rope] : a.rope_by_type) rope_is_sliding_.push_back(layer_type == "sliding_attention");
}

size_t BaseModel::pair_of(bool sliding) const {
  for (size_t t = 0; t < rope_is_sliding_.size(); ++t)
    if (rope_is_sliding_[t] == sliding) return t;
  return 0;
}

Tensor BaseModel::operator()(const Tensor& input_ids, const Tensor& attention_mask, const StaticCache* cache) {
  nn::ModuleCallScope scope(*this);
  Tensor h = (*embed_tokens)(input_ids);
  Device dev = h.device();
  Tensor position_ids = past_positions(h, cache);
  const Tensor past = cache ? cache->past_seen() : Tensor();
  // transformers.masking_utils: the full causal mask unless every layer slides (Qwen2/Qwen3: even
  // then, unused), then the sliding one (kv > q - window on top of causal) when some layer does;
  // Qwen2-MoE and Gemma 2/3 build both always.
  Tensor full, sliding;
  const masks::MaskFunction window = masks::sliding_window_overlay(sliding_window_);
  if (cache) {  // each mask reads layer 0's length again: the same tensor object as `past`
    if (!all_sliding_ || both_masks_ || full_always_) full = masks::create_causal_mask_cached(h, past, cache->max_cache_len);
    if (any_sliding_ || both_masks_) sliding = masks::create_causal_mask_cached(h, past, cache->max_cache_len, window);
  } else {
    if (!all_sliding_ || both_masks_ || full_always_) full = masks::create_causal_mask(h, attention_mask, position_ids);
    if (any_sliding_ || both_masks_) sliding = masks::create_causal_mask(h, attention_mask, position_ids, window);
  }
  // One (cos, sin) per rotary pair (Gemma 3: per layer type, in the order of
  // `set(config.layer_types)`: the registration order (PYTHONHASHSEED=0's) in Python, the order of
  // first appearance under TorchDynamo, whose sets keep insertion order).
  std::vector<size_t> pair_order;
  const TraceSink* sink = active_trace_sink();
  if (sink && sink->strict())
    for (const auto& layer : layer_ptrs) {
      const size_t t = pair_of(layer->sliding);
      if (std::find(pair_order.begin(), pair_order.end(), t) == pair_order.end()) pair_order.push_back(t);
    }
  for (size_t t = 0; t < rotary_emb->types(); ++t)
    if (std::find(pair_order.begin(), pair_order.end(), t) == pair_order.end()) pair_order.push_back(t);
  std::vector<std::pair<Tensor, Tensor>> rotary(rotary_emb->types());
  for (size_t t : pair_order) rotary[t] = (*rotary_emb)(h, position_ids, t);
  for (const auto& layer : layer_ptrs) {
    auto& [cos, sin] = rotary[pair_of(layer->sliding)];
    // Layer inputs follow the layer's device, in the order accelerate's hooks move the layer's
    // arguments (hidden_states, attention_mask, position_embeddings): one transfer each at a cut.
    const Device d = layer->input_layernorm->weight.device();
    Tensor& mask = layer->sliding ? sliding : full;
    if (d != dev) h = h.to(d);
    if (mask.device() != d) mask = mask.to(d);
    if (cos.device() != d) {
      cos = cos.to(d);
      sin = sin.to(d);
    }
    dev = d;
    // Layers differ beyond their structure and inputs only in sliding (its mask and rotary pair).
    const Tensor ins[] = {h, cos, sin, mask};
    h = nn::call_repeated(*layer, ins, layer->sliding, [&] { return std::vector<Tensor>{(*layer)(h, cos, sin, mask)}; })[0];
  }
  h = move_to(h, norm->weight.device());
  return (*norm)(h);
}

CausalLM::CausalLM(Arch a, const MlpFactory& make_mlp, const AttentionFactory& make_attn)
    : model(register_module("model", std::make_shared<BaseModel>(a, make_mlp, make_attn))),
      lm_head(register_module("lm_head", std::make_shared<nn::Linear>(a.hidden, a.vocab, false))),
      arch_(std::move(a)),
      type_(arch_.naming.cls("ForCausalLM")) {
  if (arch_.tie_embeddings) lm_head->weight = model->embed_tokens->weight;
}

std::vector<Unit> CausalLM::units() const {
  std::vector<Unit> u;
  u.reserve(static_cast<size_t>(arch_.layers) + 4);
  u.push_back({"model.embed_tokens", false});
  u.push_back({"model.rotary_emb", false});
  for (int64_t i = 0; i < arch_.layers; ++i) u.push_back({"model.layers." + std::to_string(i), true});
  u.push_back({"model.norm", false});
  u.push_back({"lm_head", false});
  return u;
}

std::vector<Tensor> CausalLM::forward_dyn(const std::vector<Tensor>& args) {
  FE_CHECK(args.size() == 1 || args.size() == 2, ValueError, type_,
           ".forward() takes 1 or 2 tensor arguments (input_ids, attention_mask) but ", args.size(), " were given");
  nn::ModuleCallScope scope(*this);
  return {logits_of((*model)(args[0], args.size() > 1 ? args[1] : Tensor()))};
}

Tensor CausalLM::logits_of(Tensor h) {
  h = move_to(h, lm_head->weight.device());
  // hidden_states[:, slice(-logits_to_keep, None), :] with logits_to_keep = 0: every index, an alias.
  Tensor logits = (*lm_head)(masks::getitem(h, ":::"));
  if (arch_.final_logit_softcap) {
    const double cap = *arch_.final_logit_softcap;
    logits = logits / cap;
    logits = tanh(logits);
    logits = logits * cap;
  }
  return logits;
}

Tensor CausalLM::forward_cached(const Tensor& input_ids, const StaticCache& cache) {
  nn::ModuleCallScope scope(*this);
  return logits_of((*model)(input_ids, Tensor(), &cache));
}

std::vector<CacheableLM::LayerCache> CausalLM::cache_layers() const {
  std::vector<LayerCache> out;
  for (size_t i = 0; i < model->layer_ptrs.size(); ++i) {
    const auto& layer = model->layer_ptrs[i];
    const Tensor& w = layer->input_layernorm->weight;
    const auto [heads, key_dim, value_dim] = layer->self_attn->cache_dims();
    const bool sliding = i < arch_.layer_sliding.size() && arch_.layer_sliding[i];
    out.push_back({heads, key_dim, w.dtype(), w.device(), value_dim, sliding ? arch_.sliding_window : 0});
  }
  return out;
}

std::string CausalLM::static_cache_refusal() const {
  for (const auto& layer : model->layer_ptrs)
    if (!dynamic_cast<const Attention*>(layer->self_attn.get()))
      return detail::cat("model_type '", model_type(), "' has its own attention (", layer->self_attn->type_name(),
                         "), whose cache layout transformers' StaticCache does not fit (its convert_and_export_with_cache "
                         "fails on it too)");
  // transformers' _can_use_grouped_mm, under dynamo, asks is_torch_less_or_equal for bfloat16
  // experts on cpu, which imports a module: dynamo breaks the graph there (probed in 2.14).
  for (const auto& [name, w] : const_cast<CausalLM*>(this)->named_parameters())
    if (name.ends_with("experts.gate_up_proj") && w->dtype() == DType::BFloat16 && w->device().is_cpu())
      return detail::cat("its bfloat16 experts on cpu: transformers' _can_use_grouped_mm calls is_torch_less_or_equal, "
                         "which imports a module, and dynamo stops there (\"Attempted to call function marked as "
                         "skipped\": importlib.import_module), so convert_and_export_with_cache fails on it too; "
                         "export the decode step in float32");
  return {};
}

analysis::KvLayout generation_cache_of(const CacheableLM& lm) {
  analysis::KvLayout out;
  for (const CacheableLM::LayerCache& c : lm.cache_layers())
    out.push_back({c.kv_heads * (c.head_dim + (c.value_head_dim > 0 ? c.value_head_dim : c.head_dim)),
                   c.sliding_window > 0 ? c.sliding_window - 1 : 0});
  return out;
}

Tensor past_positions(const Tensor& inputs_embeds, const StaticCache* cache) {
  Tensor p = arange(Scalar(inputs_embeds.size(1)), {.device = inputs_embeds.device()});
  return (cache ? p + cache->past_seen() : p + 0).unsqueeze(0);
}

std::pair<Tensor, Tensor> StaticCacheLayer::update(const Tensor& k, const Tensor& v) const {
  const SymInt kv_length = k.size(-2);
  // cache_position = torch.arange(kv_length, device=self.device) + self.cumulative_length
  Tensor position = arange(Scalar(kv_length), {.device = keys->device()}) + *cumulative_length;
  cumulative_length->add_(Scalar(kv_length));
  keys->index_copy_(2, position, k);
  values->index_copy_(2, position, v);
  return {*keys, *values};
}

ExampleInputs CausalLM::example_inputs(const InputOptions& o) {
  const int64_t b = batch_or(o, 2), s = seq_or(o, 8);
  Tensor ids = token_ids(b, s, arch_.vocab, model->embed_tokens->weight.device());
  ExampleInputs in;
  in.args.push_back(ids);
  if (o.dynamic_batch || o.dynamic_seq) in.dynamic_shapes["input_ids"] = batch_seq_dims(o, arch_.max_positions);
  if (o.attention_mask) {
    // All ones (nothing padded), as a tokenizer returns for unpadded sequences.
    in.args.push_back(ones({b, s}, {.dtype = DType::Int64, .device = ids.device()}));
    if (o.dynamic_batch || o.dynamic_seq) in.dynamic_shapes["attention_mask"] = batch_seq_dims(o, arch_.max_positions);
  }
  return in;
}

}  // namespace fe::zoo::lm
