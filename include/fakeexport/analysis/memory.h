// Memory ledger: will the program fit? Per device, the bytes of parameters, buffers, constants and
// inputs, and the peak of activation bytes by liveness over the program's node order, as
// ep.module()(*inputs) holds them when it runs (FX's generated code drops each value after its last
// use). Storage-aware: views and in-place results share their base's storage; a storage is freed
// after the last use of any tensor on it; program outputs live to the end. Pure: reads the program.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fakeexport/analysis/kv_layout.h"
#include "fakeexport/core/device.h"
#include "fakeexport/export/exported_program.h"
#include "fakeexport/sym/expr.h"

namespace fe::analysis {

/// One activation storage: who created it, where, how big, and the top-graph steps it lives
/// [first, last] (node positions in ep.graph; last = kEnd for program outputs).
struct Lifetime {
  static constexpr int kEnd = 1 << 30;
  const Node* node = nullptr;  ///< the node whose output it is (a higher-order op for its body's peak)
  int out = 0;                 ///< which output of the node
  Device device;
  int64_t bytes = 0;           ///< at the evaluation point
  int first = 0, last = 0;
  bool body = false;           ///< the transient peak of a higher-order op's subgraphs, at one step
};

/// An activation live at a device's peak.
struct LiveTensor {
  const Node* node = nullptr;
  int64_t bytes = 0;
  std::string annotation;  ///< "f32[2, 8, 128]"
  std::string module;      ///< innermost nn_module_stack path
};

/// The ledger of one device. Bytes are at the evaluation point (MemoryOptions::values, else the
/// example the program was exported with); the *_formula fields hold them as expressions in the
/// program's symbols (constants for static programs).
struct DeviceMemory {
  Device device;
  int64_t parameter_bytes = 0, buffer_bytes = 0, constant_bytes = 0, input_bytes = 0;
  int64_t activation_peak_bytes = 0;
  int64_t kv_cache_bytes = 0;
  /// Everything live on the device at its peak: weights, inputs, KV cache and activations.
  int64_t peak_bytes() const {
    return parameter_bytes + buffer_bytes + constant_bytes + input_bytes + kv_cache_bytes + activation_peak_bytes;
  }
  const Node* peak_node = nullptr;   ///< null when no activation lives on the device
  std::string peak_source, peak_module;
  std::vector<LiveTensor> largest_live;  ///< the ten largest activations live at the peak, largest first
  sym::Expr input_formula = 0, activation_peak_formula = 0;
  /// The KV cache as an expression (it grows with a dynamic batch); set with kv_cache_bytes.
  sym::Expr kv_cache_formula = 0;
  /// Activation peak with every allocation rounded as PyTorch's CUDA caching allocator rounds a
  /// request (up to a multiple of 512 bytes, at least 512); equals the raw peak on cpu.
  int64_t activation_peak_allocated_bytes = 0;
  /// weights + inputs + KV cache + activation_peak_formula, in the program's symbols.
  sym::Expr peak_formula() const;
};

struct MemoryLedger {
  std::vector<DeviceMemory> devices;  ///< in order of first appearance (weights, inputs, then nodes)
  int64_t transfer_bytes = 0;         ///< bytes moved between devices by transfer nodes
  std::vector<Lifetime> lifetimes;    ///< every activation of the top graph, in allocation order
  /// Program symbols by the name users know them ("s77" -> "batch"), for printing formulas.
  std::map<std::string, std::string, std::less<>> symbol_names;
  DeviceMemory* find(const Device& d);
  const DeviceMemory* find(const Device& d) const;
};

struct MemoryOptions {
  /// Values of the program's symbols ("s77" -> 8) to evaluate at; others take their example value.
  std::map<std::string, int64_t, std::less<>> values;
  /// Compute the *_formula fields (symbolic programs only; static ones get constants).
  bool formulas = true;
};

/// The memory ledger of `ep` (inference: ep.module() under no_grad, as torch.export's program
/// runs). Higher-order ops add their subgraphs' peak at their step (cond: the larger branch).
MemoryLedger memory_ledger(const ExportedProgram& ep, const MemoryOptions& opts = {});

/// For each output of call node `n`, the schema argument whose storage it shares (a view, an
/// in-place result, an op returning its input), or -1 for a new storage: in-place `Tensor(a!)`
/// returns are their argument; view-like returns ask the op's meta function.
std::vector<int> aliased_args(const Node& n);

/// A tensor input of the program (a placeholder holding one tensor), in signature order.
struct TensorInput {
  const InputSpec* spec = nullptr;
  const TensorMeta* meta = nullptr;
  /// A weight sharing its storage with an earlier one (tied embeddings): its bytes count there.
  bool tied = false;
};
/// The program's tensor inputs: user inputs, parameters, buffers and constants, tied weights marked.
std::vector<TensorInput> tensor_inputs(const ExportedProgram& ep);

/// A key/value projection parameter (as kv_cache_bytes recognizes them) and the cache it stands
/// for: elements per token of one sequence and the tokens its layer keeps.
struct KvProjection {
  const InputSpec* spec = nullptr;
  const TensorMeta* meta = nullptr;
  KvLayer cache;
  /// How many projections share the layer's cache: 2 for a k_proj/v_proj pair read without a
  /// layout (each carries its own half), 1 when this one stands for the whole layer.
  int parts = 1;
  /// For k_proj/v_proj, the layer's attention prefix ("model.layers.3.self_attn."), where its
  /// q_proj lives; empty for fused and MLA projections.
  std::string_view prefix;
};
std::vector<KvProjection> kv_projections(const ExportedProgram& ep, const KvLayout& layout = {});

/// The device a copy node moves its result from (to/_to_copy: argument 0; copy/copy_/_copy_from:
/// argument 1), when that is another device than the result's; nullopt for every other node.
std::optional<Device> transfer_source(const Node& n);

/// The key/value cache a generation loop of `length` tokens holds at `batch`, per device: for each
/// attention layer (found by its key/value projection parameters: `k_proj`/`v_proj`, GPT-2's
/// `c_attn`, GPT-NeoX's and Falcon's `query_key_value`, Phi-3's `qkv_proj`; with a layout also
/// MLA's `kv_b_proj`), batch x tokens x (key + value width) x itemsize, on the device of that
/// layer's weights. `layout` (the model's: zoo::Model::generation_cache) gives each layer's width
/// and window where the weights do not (fused projections, MLA, sliding windows); without one the
/// width is read from the projections (a fused one taken as multi-head).
std::vector<std::pair<Device, int64_t>> kv_cache_bytes(const ExportedProgram& ep, int64_t length, int64_t batch,
                                                       const KvLayout& layout = {});

/// Cache elements per sequence that the parameter `name` (a key/value projection weight of
/// metadata `m`, as kv_cache_bytes recognizes them) adds for a `length`-token generation; 0 for
/// other parameters.
int64_t kv_cache_elements(std::string_view name, const TensorMeta& m, int64_t length, const KvLayout& layout = {});

/// The program's batch and sequence symbols, named as users know them: the first user input's
/// dim 0 ("batch") and dim 1 ("seq") when symbolic. Empty names for static programs.
std::map<std::string, std::string, std::less<>> user_symbol_names(const ExportedProgram& ep);

/// The example value of symbol `sym` ("s77"): what the program was exported with; 0 when unknown.
int64_t example_value(const ExportedProgram& ep, std::string_view sym);

/// `e` with the program's symbols renamed ("s77" -> "batch").
std::string formula_str(const sym::Expr& e, const std::map<std::string, std::string, std::less<>>& names);

/// PyTorch's CUDA caching allocator's request rounding (c10/cuda/CUDACachingAllocator.cpp
/// round_size: kMinBlockSize = 512).
int64_t cuda_round(int64_t bytes);

/// What PyTorch's CUDA caching allocator reserves (torch.cuda.memory_reserved()) on each cuda
/// device after one run: the weights and inputs allocated first, then every activation of the
/// ledger's lifetimes in step order, through a simulation of its pools, segment sizes, best-fit
/// splitting and merging (src/analysis/allocator.cpp lists the rules and their source).
std::vector<std::pair<Device, int64_t>> cuda_reserved(const ExportedProgram& ep, const MemoryLedger& ledger);

/// A static memory plan (ExecuTorch's memory planning: one arena per device, every activation at
/// an offset, lifetimes from the ledger): greedy by size, each tensor at the lowest offset that no
/// tensor with an overlapping lifetime occupies.
struct ArenaSlot {
  const Node* node = nullptr;
  int out = 0;
  int64_t offset = 0, bytes = 0;
  int first = 0, last = 0;
};
struct Arena {
  Device device;
  int64_t size = 0;  ///< bytes of the arena (>= the liveness peak)
  std::vector<ArenaSlot> slots;
};
std::vector<Arena> plan_arenas(const MemoryLedger& ledger, int64_t alignment = 16);

}  // namespace fe::analysis
