// torch.autocast's cast policy, shared by `check` (programs exported under autocast record
// lower-precision outputs of float32 inputs) and `run` (wrap_with_autocast regions).
#pragma once
#include "fakeexport/ops/registry.h"

namespace fe {

/// Ops autocast runs in its lower-precision dtype (autocast_mode.cpp's lower_precision_fp lists,
/// CPU and CUDA): their floating inputs are cast to the autocast dtype first.
bool autocast_lower_precision(const OpDef& op);

}  // namespace fe
