// Layers: Linear, Embedding, LayerNorm, GELU, ReLU and the containers Sequential and ModuleList.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "fakeexport/nn/module.h"

namespace fe::nn {

/// y = x W^T + b. Parameters are created on the current DeviceScope device, fake under FakeTensorMode.
class Linear : public UnaryModule {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  std::string type_name() const override { return "torch.nn.modules.linear.Linear"; }
  Tensor forward(const Tensor& x) override;

  const int64_t in_features, out_features;
  Tensor& weight;
  Tensor& bias;  ///< undefined when constructed with bias=false
};

/// Lookup table: weight[num_embeddings, embedding_dim] ~ N(0, 1), rows picked by integer indices.
class Embedding : public UnaryModule {
 public:
  /// `padding_idx`: the row F.embedding is told about (recorded as embedding's third argument).
  Embedding(int64_t num_embeddings, int64_t embedding_dim, std::optional<int64_t> padding_idx = std::nullopt);
  std::string type_name() const override { return "torch.nn.modules.sparse.Embedding"; }
  Tensor forward(const Tensor& indices) override;
  const int64_t num_embeddings, embedding_dim;
  const std::optional<int64_t> padding_idx;
  Tensor& weight;
};

/// Layer normalization over the last dim: weight = 1, bias = 0 (elementwise_affine).
class LayerNorm : public UnaryModule {
 public:
  explicit LayerNorm(int64_t normalized_shape, double eps = 1e-5, bool elementwise_affine = true, bool bias = true);
  std::string type_name() const override { return "torch.nn.modules.normalization.LayerNorm"; }
  Tensor forward(const Tensor& x) override;
  const int64_t normalized_shape;
  const double eps;
  Tensor& weight;  ///< undefined without elementwise_affine
  Tensor& bias;    ///< undefined without elementwise_affine or bias
};

class GELU : public UnaryModule {
 public:
  explicit GELU(std::string approximate = "none");
  std::string type_name() const override { return "torch.nn.modules.activation.GELU"; }
  Tensor forward(const Tensor& x) override;
  const std::string approximate;
};

/// torch.nn.Dropout(p) in eval mode: F.dropout(x, p, False), which export records as aten.dropout.
class Dropout : public UnaryModule {
 public:
  explicit Dropout(double p = 0.5) : p(p) {}
  std::string type_name() const override { return "torch.nn.modules.dropout.Dropout"; }
  Tensor forward(const Tensor& x) override;
  const double p;
};

class ReLU : public UnaryModule {
 public:
  std::string type_name() const override { return "torch.nn.modules.activation.ReLU"; }
  Tensor forward(const Tensor& x) override;
};

/// Children named "0", "1", ...; forward chains them.
class Sequential : public UnaryModule {
 public:
  Sequential() = default;
  explicit Sequential(std::vector<std::shared_ptr<UnaryModule>> mods);
  std::string type_name() const override { return "torch.nn.modules.container.Sequential"; }
  void push_back(std::shared_ptr<UnaryModule> m);
  Tensor forward(const Tensor& x) override;
  size_t size() const { return mods_.size(); }
  UnaryModule& operator[](size_t i) { return *mods_.at(i); }

 private:
  std::vector<std::shared_ptr<UnaryModule>> mods_;
};

/// Holds modules named "0", "1", ...; has no forward of its own.
class ModuleList : public Module {
 public:
  std::string type_name() const override { return "torch.nn.modules.container.ModuleList"; }
  void push_back(std::shared_ptr<Module> m);
  size_t size() const { return mods_.size(); }
  Module& operator[](size_t i) { return *mods_.at(i); }
  template <class M>
  M& at(size_t i) { return dynamic_cast<M&>(*mods_.at(i)); }

 private:
  std::vector<std::shared_ptr<Module>> mods_;
};

}  // namespace fe::nn
