// Device lint: will this program run on the devices it is meant for? Every place a program pins a
// device (seed 002: `device="cpu"` baked in by export on CPU, failing on the GPU with "Expected all
// tensors to be on the same device"), found by reading the graph, not by running it.
#pragma once
#include <string>
#include <vector>

#include "fakeexport/core/device.h"
#include "fakeexport/export/exported_program.h"

namespace fe::analysis {

/// How a site pins its device.
enum class PinKind : uint8_t {
  Factory,    ///< a tensor created with an explicit device (arange, zeros, full, empty, scalar_tensor, ...)
  Transfer,   ///< to / _to_copy / copy to a fixed device
  Assertion,  ///< _assert_tensor_metadata(..., device=...): fails when the tensor is elsewhere
  Constant,   ///< a lifted tensor constant: ep.module().to(device) moves parameters and buffers, not it
  Mixed,      ///< operands recorded on two devices (0-dim cpu tensors aside, as PyTorch allows)
};
std::string_view pin_kind_name(PinKind k);  ///< "factory", "transfer", "assertion", "constant", "mixed"

/// One node that pins a device outside the targets.
struct DeviceSite {
  const Node* node;
  std::string graph;   ///< "" for the top graph, else the subgraph path
  std::string target;  ///< "aten.arange.default"; "" for a placeholder
  Device device;       ///< the device it pins
  PinKind kind;
  std::string source;  ///< "File: f.py:12 in forward, code: ..." (empty when unknown)
  std::string module;  ///< innermost nn_module_stack path
  std::string fix;     ///< "device follows input `input_ids`"
};

/// Every site (not the first) where `ep` pins a device that is not one of `targets` (the devices
/// the program is meant to run on; its inputs live on targets[0]). Device arguments equal to a
/// target are intended placement (a pipeline split) and not reported. Pure: reads the program only.
std::vector<DeviceSite> lint_devices(const ExportedProgram& ep, const std::vector<Device>& targets);

}  // namespace fe::analysis
