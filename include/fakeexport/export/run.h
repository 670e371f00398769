// Running an ExportedProgram on real CPU tensors: the C++ analogue of `ep.module()(*inputs)`.
#pragma once
#include <vector>

#include "fakeexport/export/exported_program.h"

namespace fe {

/// Interprets `ep.graph` node by node with the reference CPU kernels and returns the user outputs.
///  - `inputs` are checked first with check_inputs(ep, inputs) (ShapeError "Guard failed: ..." /
///    DTypeError / ValueError), then bound to the user-input placeholders; they must hold data
///    (DataAccessError for fake or meta tensors).
///  - Parameters and buffers come from ep.state_dict, lifted constants and non-persistent buffers
///    from ep.constants, by the signature's targets; a tensor without data there (a program exported
///    from a fake model) is a DataAccessError naming it ("weights absent: ...").
///  - Symbolic programs run on any sizes their range constraints allow: sym_size.int and Python
///    operator nodes evaluate to concrete ints, which replace the symbolic int arguments of later
///    nodes. Recorded TensorMetas (the example's sizes) are never used for the computation.
///  - cond runs the chosen branch's subgraph; in-place ops write into their real inputs (so a
///    buffer mutated by `add_` is updated in ep.state_dict, as in PyTorch); BUFFER_MUTATION /
///    PARAMETER_MUTATION / USER_INPUT_MUTATION outputs are copied into the buffer, parameter or
///    input they name and are not returned.
///  - An error while running a node keeps its type and gains the node's context:
///    "while running node 'linear' (aten::linear.default): <original message>".
/// Must not be called under FakeTensorMode (UserError): the computation is real.
std::vector<Tensor> run(const ExportedProgram& ep, const std::vector<Tensor>& inputs);

}  // namespace fe
