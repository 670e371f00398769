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
/// F.leaky_relu(x, negative_slope, inplace): aten.leaky_relu (leaky_relu_ when inplace).
Tensor leaky_relu(const Tensor& self, double negative_slope = 0.01, bool inplace = false,
                  SrcLocArg loc = SrcLocArg::current());
/// F.hardtanh(x, min_val, max_val, inplace): aten.hardtanh(x, min_val, max_val) (hardtanh_ when inplace).
Tensor hardtanh(const Tensor& self, double min_val = -1.0, double max_val = 1.0, bool inplace = false,
                SrcLocArg loc = SrcLocArg::current());
/// F.elu(x, alpha): aten.elu(x, alpha).
Tensor elu(const Tensor& self, double alpha = 1.0, SrcLocArg loc = SrcLocArg::current());
/// F.elu_(x, alpha) / F.elu(x, alpha, inplace=True): aten.elu_(x, alpha); returns self.
Tensor elu_(const Tensor& self, double alpha = 1.0, SrcLocArg loc = SrcLocArg::current());
/// F.relu6(x): aten.relu6(x) (min(max(x, 0), 6)).
Tensor relu6(const Tensor& self, SrcLocArg loc = SrcLocArg::current());
/// F.softplus(x, beta, threshold): aten.softplus; the defaults are the schema's (int 1 and 20).
Tensor softplus(const Tensor& self, Scalar beta = 1, Scalar threshold = 20, SrcLocArg loc = SrcLocArg::current());

}  // namespace fe
