// The order run_decompositions' retrace lifts a program's inputs in (export/decompose.cpp).
#pragma once
#include <cstddef>
#include <vector>

#include "fakeexport/export/exported_program.h"

namespace fe::detail {

/// The order retracing lifts inputs in (see run_decompositions): buffers and constant tensors
/// re-sorted by their module in pre-order, modules ordered by first appearance among all targets.
std::vector<size_t> retrace_input_order(const std::vector<InputSpec>& inputs);

}  // namespace fe::detail
