// Public API, Convolution and pooling (torch.nn.functional): conv1d, conv2d, max_pool2d, avg_pool2d, ...
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



}  // namespace fe
