// Public API, Activations (torch.nn.functional): relu, gelu, silu, softmax, log_softmax, dropout.
// Each function builds the argument list of one ATen op (as Python's arg parser would) and calls
// dispatch(); none computes metadata itself.
#pragma once
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "fakeexport/core/source_location.h"
#include "fakeexport/core/tensor.h"
#include "fakeexport/ops/scalar.h"

namespace fe {

/// F.relu; inplace=true records aten.relu_ and returns self.
Tensor relu(const Tensor& self, bool inplace = false, SrcLocArg loc = SrcLocArg::current());
Tensor relu_(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
/// F.gelu; approximate is "none" or "tanh".
Tensor gelu(const Tensor& self, std::string_view approximate = "none", SrcLocArg loc = SrcLocArg::current());
/// F.silu; inplace=true records aten.silu_ and returns self.
Tensor silu(const Tensor& self, bool inplace = false, SrcLocArg loc = SrcLocArg::current());
Tensor silu_(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
/// F.softmax(x, dim, dtype=dtype): aten.softmax.int.
Tensor softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype = {}, SrcLocArg loc = SrcLocArg::current());
/// F.log_softmax(x, dim, dtype=dtype): aten.log_softmax.int.
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype = {},
                   SrcLocArg loc = SrcLocArg::current());
/// F.dropout(x, p, training): aten.dropout; training=false returns x itself.
Tensor dropout(const Tensor& self, double p = 0.5, bool training = true, SrcLocArg loc = SrcLocArg::current());
/// torch.native_dropout: (output, bool keep-mask). Values for 0 < p < 1 come from our own generator.
std::pair<Tensor, Tensor> native_dropout(const Tensor& self, double p, std::optional<bool> train,
                                         SrcLocArg loc = SrcLocArg::current());

}  // namespace fe
