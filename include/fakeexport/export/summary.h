// The one-object JSON summary of an exported program printed by `fakeexport inspect --json` and
// `fakeexport export --json`: node and op counts, inputs/outputs, bytes per device, range constraints.
#pragma once
#include <string>

#include "fakeexport/export/exported_program.h"

namespace fe {

struct SummaryOptions {
  std::string schema_version = "8.20";   ///< of the archive read, or the one we write
  std::string torch_version = "2.14.1";  ///< of the archive read, or the one we target
  int indent = -1;                        ///< -1: one line
};

/// {"schema_version", "torch_version", "nodes", "ops", "opaque", "inputs", "outputs", "devices", "parameters",
/// "range_constraints"} as specified in issue 5: nodes counts every graph node (placeholders and
/// output included) like len(ep.graph.nodes); ops counts call_function targets by their serialized
/// name without `torch.ops.` ("aten.linear.default", "_operator.getitem"); opaque lists the targets
/// (in any subgraph) that load without a meta function of ours; shapes are ints, or strings
/// for symbolic dims; tied weights are counted once.
std::string program_summary_json(const ExportedProgram& ep, const SummaryOptions& opts = {});

/// A device transfer in the graph: a to/_to_copy node whose result lives on another device than
/// its input.
struct DeviceTransfer {
  std::string node;
  Device from, to;
};
/// The program's device transfers in graph order (what a pipeline's cut points cost).
std::vector<DeviceTransfer> device_transfers(const ExportedProgram& ep);

}  // namespace fe
