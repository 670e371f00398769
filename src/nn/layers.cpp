#include "fakeexport/nn/layers.h"

#include <cmath>

#include "fakeexport/core/error.h"
#include "fakeexport/ops/api.h"
#include "core/strided.h"
#include "ops/cpu_util.h"

namespace fe::nn {
namespace {
/// nn.init.uniform_ for real tensors; a no-op for fake ones (they have no data), as in FakeTensorMode.
void init_uniform(const Tensor& t, double bound) {
  if (!t.has_storage()) return;
  Tensor r = rand(std::vector<SymInt>(t.sizes().begin(), t.sizes().end()), {.dtype = DType::Float64});
  detail::for_each_offset(t.meta(), [&, k = int64_t{0}](int64_t off) mutable {
    ops::cpu::store_at(t, off, (2.0 * r.data<double>()[k++] - 1.0) * bound);
  });
}
}  // namespace

Linear::Linear(int64_t in, int64_t out, bool bias)
    : in_features(in),
      out_features(out),
      weight(register_parameter("weight", empty({out, in}))),
      bias(register_parameter("bias", bias ? empty({out}) : Tensor())) {
  FE_CHECK(in >= 0 && out >= 0, ValueError, "Linear: in_features and out_features must be >= 0, got ", in, " and ", out);
  // reset_parameters(): kaiming_uniform_(a=sqrt(5)) and the bias rule both give U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
  const double bound = in > 0 ? 1.0 / std::sqrt(static_cast<double>(in)) : 0.0;
  init_uniform(weight, bound);
  if (this->bias.defined()) init_uniform(this->bias, bound);
}

Tensor Linear::forward(const Tensor& x) { return linear(x, weight, bias); }

Embedding::Embedding(int64_t num, int64_t dim, std::optional<int64_t> pad)
    : num_embeddings(num), embedding_dim(dim), padding_idx(pad), weight(register_parameter("weight", randn({num, dim}))) {
  FE_CHECK(num >= 0 && dim >= 0, ValueError, "Embedding: sizes must be >= 0, got ", num, " and ", dim);
}
Tensor Embedding::forward(const Tensor& indices) { return embedding(indices, weight, padding_idx); }

LayerNorm::LayerNorm(int64_t n, double eps_, bool affine, bool bias_)
    : normalized_shape(n),
      eps(eps_),
      weight(register_parameter("weight", affine ? ones({n}) : Tensor())),
      bias(register_parameter("bias", affine && bias_ ? zeros({n}) : Tensor())) {}
Tensor Dropout::forward(const Tensor& x) { return dropout(x, p, false); }

Tensor LayerNorm::forward(const Tensor& x) { return layer_norm(x, {normalized_shape}, weight, bias, eps); }

GELU::GELU(std::string approx) : approximate(std::move(approx)) {
  FE_CHECK(approximate == "none" || approximate == "tanh", ValueError,
           "GELU: approximate must be 'none' or 'tanh', got '", approximate, "'");
}
Tensor GELU::forward(const Tensor& x) { return gelu(x, approximate); }

Tensor ReLU::forward(const Tensor& x) { return relu(x); }

Sequential::Sequential(std::vector<std::shared_ptr<UnaryModule>> mods) {
  for (auto& m : mods) push_back(std::move(m));
}
void Sequential::push_back(std::shared_ptr<UnaryModule> m) {
  mods_.push_back(register_module(std::to_string(mods_.size()), std::move(m)));
}
Tensor Sequential::forward(const Tensor& x) {
  Tensor h = x;
  for (auto& m : mods_) h = (*m)(h);
  return h;
}

void ModuleList::push_back(std::shared_ptr<Module> m) {
  mods_.push_back(register_module(std::to_string(mods_.size()), std::move(m)));
}

}  // namespace fe::nn
