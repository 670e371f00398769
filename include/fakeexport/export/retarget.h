// Retarget: the program the user would have got by exporting on another device. A CPU export
// (seed 002) bakes `cpu` into factories, transfers and device assertions; retargeting moves every
// device through a map (pins follow the inputs), moves state and constants, and re-derives each
// node's metadata with the target's meta functions (device-specific strides, e.g. attention),
// then the result is re-verified. No data is read or moved: tensors keep their bytes.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fakeexport/core/device.h"
#include "fakeexport/export/exported_program.h"

namespace fe {

/// Where each device of a program goes: explicit pairs first, else `all` (when set), else stays.
struct DeviceMap {
  std::optional<Device> all;                       ///< --device cuda:0: every device
  std::vector<std::pair<Device, Device>> pairs;    ///< --map cpu=cuda:0,cuda:1=cuda:0
  Device operator()(const Device& d) const;
  /// "cpu=cuda:0,cuda:1=cuda:0" -> pairs; ValueError naming the item for a malformed one.
  static std::vector<std::pair<Device, Device>> parse_pairs(std::string_view s);
};

/// What retarget changed.
struct RetargetReport {
  size_t device_args = 0;  ///< device arguments rewritten (factories, transfers, assertions)
  size_t tensors = 0;      ///< recorded tensor metadata moved (node outputs, placeholders)
  size_t state = 0;        ///< parameters, buffers and constants moved
  size_t rederived = 0;    ///< nodes whose strides the target's meta functions changed
  size_t dropped = 0;      ///< `contiguous` nodes that are no-ops on the target (not recorded there)
};

/// The nodes of a lifted tensor constant the program moves itself, as `torch.tensor(True).to(x.device)`
/// records it: the placeholder, the lift_fresh_copy / detach_ / clone chain read from it and the
/// `_assert_tensor_metadata` calls on that chain, when every other use of the chain is a transfer
/// with an explicit device (at least one); empty otherwise. Export records such a constant where it
/// was made whatever the model's device (PyTorch 2.11 exports Falcon on cuda:0 with it on cpu), so
/// retarget moves only the transfer, and the device lint finds nothing pinned in it.
std::vector<const Node*> self_moved_constant(const Node& placeholder);

/// Rewrites `ep` in place for the devices `map` gives (subgraphs included). Nodes whose meta
/// function rejects the moved arguments keep their moved metadata (the verifier then says why).
RetargetReport retarget(ExportedProgram& ep, const DeviceMap& map);

}  // namespace fe
