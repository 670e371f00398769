// See activations.h.
#include "nn/zoo/activations.h"

#include <cmath>
#include <numbers>

#include "fakeexport/core/error.h"
#include "fakeexport/ops/api.h"

namespace fe::zoo {

namespace {
struct ActInfo {
  std::string_view name, type;
};
constexpr ActInfo kActs[] = {
    {"gelu", "transformers.activations.GELUActivation"},
    {"gelu_new", "transformers.activations.NewGELUActivation"},
    {"gelu_pytorch_tanh", "transformers.activations.GELUTanh"},
    {"gelu_fast", "transformers.activations.FastGELUActivation"},
    {"quick_gelu", "transformers.activations.QuickGELUActivation"},
    {"relu", "torch.nn.modules.activation.ReLU"},
    {"silu", "transformers.activations.SiLUActivation"},
    {"swish", "torch.nn.modules.activation.SiLU"},
    {"tanh", "torch.nn.modules.activation.Tanh"},
};
const ActInfo* find_act(std::string_view name) {
  for (const ActInfo& a : kActs)
    if (a.name == name) return &a;
  return nullptr;
}
}  // namespace

void check_activation(const std::string& name, const std::string& origin, const std::string& field) {
  if (find_act(name)) return;
  std::string known;
  for (const ActInfo& a : kActs) known += (known.empty() ? "" : ", ") + std::string(a.name);
  throw ValueError(detail::cat(origin, ": field '", field, "' = '", name, "' is not supported (supported: ", known, ")"));
}

HFActivation::HFActivation(const std::string& n) : name(n) {
  const ActInfo* a = find_act(n);
  FE_CHECK(a != nullptr, ValueError, "unsupported activation '", n, "'");
  type_ = std::string(a->type);
}

// One op per statement: Python evaluates left to right, C++ operands in no fixed order.
Tensor HFActivation::forward(const Tensor& x) {
  if (name == "gelu") return gelu(x);
  if (name == "gelu_pytorch_tanh") return gelu(x, "tanh");
  if (name == "relu") return relu(x);
  if (name == "silu" || name == "swish") return silu(x);
  if (name == "tanh") return tanh(x);
  if (name == "quick_gelu") {
    Tensor s = sigmoid(mul(x, 1.702));
    return mul(x, s);
  }
  if (name == "gelu_fast") {
    // 0.5 * input * (1.0 + torch.tanh(input * 0.7978845608 * (1.0 + 0.044715 * input * input)))
    Tensor half = mul(x, 0.5);
    Tensor a = mul(x, 0.7978845608);
    Tensor b = mul(x, 0.044715);
    b = mul(b, x);
    b = add(b, 1.0);
    Tensor t = tanh(mul(a, b));
    return mul(half, add(t, 1.0));
  }
  // gelu_new: 0.5 * input * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (input + 0.044715 * torch.pow(input, 3.0))))
  Tensor half = mul(x, 0.5);
  Tensor p = pow(x, 3.0);
  p = mul(p, 0.044715);
  Tensor inner = add(x, p);
  inner = mul(inner, std::sqrt(2.0 / std::numbers::pi));
  Tensor t = tanh(inner);
  return mul(half, add(t, 1.0));
}

std::shared_ptr<HFActivation> activation_from_config(const Config& c, const std::string& field, const std::string& dflt) {
  const std::string name = c.get_string(field, dflt);
  check_activation(name, c.origin(), field);
  return std::make_shared<HFActivation>(name);
}

}  // namespace fe::zoo
