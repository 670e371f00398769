// Pieces shared by the bert and blenderbot families: nn.Embedding with padding_idx, nn.Tanh, a slice with a symbolic end, token-id example inputs.
#pragma once
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "fakeexport/core/error.h"
#include "fakeexport/nn/layers.h"
#include "fakeexport/nn/zoo.h"
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "nn/zoo/activations.h"

namespace fe::zoo::hf {

/// torch.nn.Tanh (BertPooler.activation).
class Tanh : public nn::UnaryModule {
 public:
  std::string type_name() const override { return "torch.nn.modules.activation.Tanh"; }
  Tensor forward(const Tensor& x) override { return tanh(x); }
};

/// nn.Embedding(num, dim, padding_idx): F.embedding records padding_idx in aten.embedding.
class PaddedEmbedding : public nn::Embedding {
 public:
  PaddedEmbedding(int64_t num, int64_t dim, std::optional<int64_t> pad, std::string type = "torch.nn.modules.sparse.Embedding")
      : nn::Embedding(num, dim), padding_idx(pad), type_(std::move(type)) {}
  std::string type_name() const override { return type_; }
  Tensor forward(const Tensor& ids) override { return embedding(ids, weight, padding_idx); }
  const std::optional<int64_t> padding_idx;

 private:
  std::string type_;
};

/// `pad_token_id` as HF passes it to nn.Embedding (null: no padding row).
inline std::optional<int64_t> pad_token_id(const Config& c, int64_t dflt) {
  if (c.has("pad_token_id") && c.is_null("pad_token_id")) return std::nullopt;
  return c.get_int("pad_token_id", dflt);
}

/// x[:, start:end] along `dim` with a possibly symbolic end (Tensor::slice takes int64 bounds only).
inline Tensor slice_to(const Tensor& x, int64_t dim, int64_t start, const SymInt& end,
                       SrcLocArg loc = SrcLocArg::current()) {
  static const OpDef& d = op("aten::slice.Tensor");
  return dispatch1(d, {x, SymInt(dim), IValue(SymInt(start)), IValue(end), SymInt(1)}, loc);
}


/// ValueError unless `a` divides by `b` (HF raises the same at construction).
inline void check_divisible(const Config& c, std::string_view a_field, int64_t a, std::string_view b_field, int64_t b) {
  FE_CHECK(b > 0 && a % b == 0, ValueError, c.origin(), ": field '", a_field, "' = ", a, " is not a multiple of '",
           b_field, "' = ", b);
}

}  // namespace fe::zoo::hf
