// `fakeexport memory --plan`: a placement of the repeated layers over the given devices such that
// every device's peak (weights + activations + KV cache) fits its capacity, minimizing the largest.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "cli/model_export.h"
#include "fakeexport/analysis/devices.h"
#include "fakeexport/analysis/memory.h"

namespace fe::cli {

struct PlanRequest {
  const ExportArgs* model;                      ///< MODEL and its shapes (placement flags ignored)
  const zoo::Config* config;
  std::vector<analysis::DeviceCap> caps;        ///< the devices, in pipeline order
  int64_t reserve = 0;                          ///< bytes per device outside the program
  int64_t kv_cache = -1;                        ///< --kv-cache LEN, -1: none
};

struct Plan {
  bool fits = false;
  std::vector<std::string> place;  ///< PREFIX=DEV, as `--place` takes them (contiguous layer ranges)
  std::string why;                 ///< when it does not fit: what is missing, plainly
};

/// The ledger of `ep` plus the KV cache of `kv_len` tokens (none when < 0) at the program's batch,
/// its formula growing with a dynamic batch; `layout`: the model's (zoo::Model::generation_cache),
/// empty for an archive. ValueError when no attention layer is recognized.
analysis::MemoryLedger ledger_with_kv(const ExportedProgram& ep, int64_t kv_len, const analysis::KvLayout& layout,
                                      const analysis::MemoryOptions& opts = {});

/// Bytes a device must hold: its peak with requests rounded as its allocator rounds them, plus
/// the reserve (CUDA context, workspaces).
int64_t required_bytes(const analysis::DeviceMemory& d, int64_t reserve);

/// The capacity `caps` gives device `d`, or null.
const analysis::DeviceCap* cap_of(const std::vector<analysis::DeviceCap>& caps, const Device& d);

/// Whether every device of `l` with a capacity in `caps` holds what it requires.
bool ledger_fits(const analysis::MemoryLedger& l, const std::vector<analysis::DeviceCap>& caps, int64_t reserve);

/// Contiguous ranges of the repeated layers per device, in device order (units before the first
/// layer on the first device, units after the last with the last layer's device): the smallest
/// largest-peak split by bisection over per-layer costs measured from one export, then confirmed
/// by exporting the plan itself.
Plan plan_placement(const PlanRequest& r);

}  // namespace fe::cli
