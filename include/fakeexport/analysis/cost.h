// Cost: how fast could the program run, and where does the time go? Per node FLOPs (our complete
// count, and what PyTorch's FlopCounterMode counts when the program runs on its device), bytes read
// and written, and a roofline time on the device it is placed on, from the device catalogue. Pure:
// reads the program (at its example sizes).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fakeexport/analysis/devices.h"
#include "fakeexport/analysis/kv_layout.h"
#include "fakeexport/export/exported_program.h"

namespace fe::analysis {

/// What a node computes, as far as cost goes.
enum class CostKind : uint8_t {
  None,         ///< placeholders, views, sym arithmetic, asserts: no work
  Matmul,       ///< mm, addmm, bmm, baddbmm, linear, matmul, einsum, convolutions
  Attention,    ///< scaled_dot_product_attention and its fused kernels
  Elementwise,  ///< one operation per output element
  Reduction,    ///< one operation per input element
  Normalization,///< softmax, layer/group/batch norm: a few operations per element
  Memory,       ///< copies, gathers, concatenations, factories, conversions: bytes, no FLOPs
  Subgraph,     ///< a higher-order op: the cost of its subgraphs' nodes
};
std::string_view cost_kind_name(CostKind k);  ///< "matmul", "attention", ...

/// The cost of one node (of the top graph or a subgraph).
struct NodeCost {
  const Node* node = nullptr;
  std::string graph;            ///< "" for the top graph, else the subgraph's name
  std::string target;           ///< "aten.mm.default"
  CostKind kind = CostKind::None;
  Device device;
  DType dtype = DType::Float32;  ///< of its first output (or input)
  int64_t flops = 0;             ///< our count: matmuls 2·m·n·k as FlopCounterMode, plus the ops it leaves out
  int64_t flop_counter_flops = 0;  ///< what FlopCounterMode counts while the node runs eagerly on its device
  int64_t bytes_read = 0, bytes_written = 0;
  double compute_s = 0, memory_s = 0;  ///< roofline terms on its device (0 without a catalogue entry)
  double time_s() const { return compute_s > memory_s ? compute_s : memory_s; }
  bool compute_bound() const { return compute_s >= memory_s && compute_s > 0; }
};

/// Totals of one op target.
struct OpCost {
  int64_t count = 0, flops = 0, flop_counter_flops = 0, bytes = 0;
  double time_s = 0;
};

/// Totals of one device: its busy time is the sum of its nodes' roofline times.
struct DeviceCost {
  Device device;
  const DeviceSpec* spec = nullptr;  ///< null: no roofline (cpu, or a --cap device)
  int64_t flops = 0, bytes = 0;
  double time_s = 0, compute_bound_s = 0, memory_bound_s = 0;
  std::string_view bound() const { return compute_bound_s >= memory_bound_s ? "compute" : "memory"; }
};

struct CostReport {
  std::vector<NodeCost> nodes;  ///< every node with work, in program order (subgraphs after their caller)
  int64_t flops = 0, flop_counter_flops = 0, bytes = 0;
  std::map<std::string, OpCost> by_op;         ///< by target
  std::map<std::string, OpCost> by_module;     ///< by innermost module path ("" for the root)
  std::vector<DeviceCost> devices;             ///< in order of first appearance
  int64_t transfer_bytes = 0;
  double transfer_s = 0;                       ///< over the link between the devices (catalogue)
  /// One forward pass through the pipeline (no micro-batching): each device's busy time and each
  /// transfer, one after the other.
  double latency_s = 0;
};

/// The cost of `ep` at its example sizes; `devices` gives each device its catalogue entry for the
/// roofline (devices without one get FLOPs and bytes but no time).
CostReport program_cost(const ExportedProgram& ep, const std::vector<DeviceCap>& devices = {});

/// One decode step with a key/value cache of `length` tokens. `r` is the cost of the program run
/// on one new token per sequence (seq 1, `batch` sequences); this adds, on each attention layer's
/// device (found by its key/value projections, as kv_cache_bytes finds them), reading that
/// layer's cache and attending over it (2 x 2·batch·length·query width FLOPs; the query width is
/// q_proj's, else the key/value width), then updates the device times and the latency.
void add_decode_attention(CostReport& r, const ExportedProgram& ep, int64_t length, int64_t batch,
                          const std::vector<DeviceCap>& devices, const KvLayout& layout = {});

}  // namespace fe::analysis
