// The example inputs a .pt2 archive carries (data/sample_inputs/model.pt: a torch.save of
// `(args, kwargs)`), bound to the program's user inputs by the pytree order of its in_spec.
// Read by the restricted pickle reader of torch_save.h: tensors, tuples, lists, dicts and scalars;
// nothing in the file is executed.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "fakeexport/export/exported_program.h"

namespace fe::serde {

/// One tensor per tensor user input of `ep` (constants specialized by export are skipped), named
/// by its placeholder, in signature order. FormatError when the archive has no sample inputs,
/// they were saved from fake tensors, or they do not match the program's in_spec.
std::vector<std::pair<std::string, Tensor>> read_sample_inputs(const std::string& archive, const ExportedProgram& ep);

/// The pytree leaf paths of a serialized TreeSpec (treespec_dumps' JSON, as in a module call
/// signature's in_spec), in flattening order: "0.1" for args[1], "1.input_ids" for a kwarg, "1.cache.0.1"
/// below it. FormatError naming `what` when the text is not a TreeSpec.
std::vector<std::string> treespec_leaf_paths(const std::string& in_spec, const std::string& what);

}  // namespace fe::serde
