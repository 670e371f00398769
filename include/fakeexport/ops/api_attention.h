// Public API, Attention: scaled_dot_product_attention.
// Each function builds the argument list of one ATen op (as Python's arg parser would) and calls
// dispatch(); none computes metadata itself.
#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "fakeexport/core/source_location.h"
#include "fakeexport/core/tensor.h"
#include "fakeexport/ops/scalar.h"

namespace fe {

/// torch.nn.functional.scaled_dot_product_attention -> aten::scaled_dot_product_attention.
/// query (..., L, E), key (..., S, E), value (..., S, Ev) -> (..., L, Ev); an undefined attn_mask is None.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = Tensor(), double dropout_p = 0.0,
                                    bool is_causal = false, std::optional<double> scale = std::nullopt,
                                    bool enable_gqa = false, SrcLocArg loc = SrcLocArg::current());

}  // namespace fe
