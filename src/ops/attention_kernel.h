// The reference kernel both attention overloads run on cpu (scaled_dot_product_attention and
// _scaled_dot_product_flash_attention_for_cpu): in double, or in the fused CPU kernel's own float
// arithmetic where PyTorch takes that kernel, so values compare with PyTorch's bit for bit or close.
#pragma once
#include <optional>

#include "fakeexport/core/tensor.h"

namespace fe::ops {

/// The reference attention both overloads run: out = softmax(q k^T * scale + mask) v, and, when
/// `lse` is given, its row's log-sum-exp (natural log, over the scaled and masked scores; -inf for a
/// fully masked row) at [batch dims..., l].
struct SdpaCall {
  const Tensor& q;
  const Tensor& k;
  const Tensor& v;
  const Tensor* mask;
  bool causal;
  std::optional<double> scale;
  bool gqa;
  bool flash;  ///< the fused CPU kernel's arithmetic (see sdpa_reference), else exact
};

/// Runs `c` into `out` (and its log-sum-exp into `lse` when given).
void sdpa_reference(const SdpaCall& c, Tensor& out, Tensor* lse);

}  // namespace fe::ops
