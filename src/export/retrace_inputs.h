// The signature of run_decompositions' retrace (export/decompose.cpp): the order it lifts a
// program's inputs in, and the outputs it returns.
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "fakeexport/export/exported_program.h"

namespace fe::detail {

/// The order retracing lifts inputs in (see run_decompositions): buffers and constant tensors
/// re-sorted by their module in pre-order, modules ordered by first appearance among all targets.
std::vector<size_t> retrace_input_order(const std::vector<InputSpec>& inputs);

/// The retrace's output specs: the final value of each input an in-place op wrote to (`mutated`:
/// position among `inputs`, returning node's name) leads, as the functional program PyTorch's
/// retrace makes returns them (BUFFER_MUTATION / USER_INPUT_MUTATION), then `outputs`.
/// UnknownOpError for a write to an input of another kind.
std::vector<OutputSpec> retraced_output_specs(const std::vector<InputSpec>& inputs,
                                              const std::vector<std::pair<size_t, std::string>>& mutated,
                                              const std::vector<OutputSpec>& outputs);

}  // namespace fe::detail
