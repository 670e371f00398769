// Replaying a model's repeated blocks: the nodes one decoder layer's traced call added, added
// again for the next layer built and called alike, without tracing it (Llama-3.1-405B's 126
// identical layers are most of its export). The export tracer decides when (Tracer::repeated_block).
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "fakeexport/export/graph.h"

namespace fe::detail {

/// The parts of a block's call that differ between blocks alike: what a record is re-targeted to.
struct BlockCall {
  std::string path;           ///< the block's module path ("model.layers.7")
  Device device = kCPU;       ///< the device of all its parameters and buffers
  std::vector<Node*> inputs;  ///< the nodes of its input tensors (null: an undefined tensor)
  std::vector<Node*> slots;   ///< the placeholders of its parameters and buffers, pre-order
};

/// What one traced call of a block appended to the graph, in order, with every name it took.
struct BlockRecord {
  BlockCall call;
  std::vector<Node*> nodes;                         ///< the appended nodes
  std::unordered_map<const Node*, uint32_t> made_index;  ///< each of `nodes` -> its position
  struct Name {
    std::string candidate;  ///< what unique_name was asked for
    int32_t node;           ///< index in `nodes`; -1: a name taken without a node (an ATen check's)
  };
  std::vector<Name> names;
  std::vector<uint32_t> outputs;  ///< the block's results, as positions in `nodes`
  /// Each node's node arguments in argument order, as where a replay finds them (tag in the top
  /// three bits: one of `nodes`, of the call's inputs, of its slots, `shared[i]`, the same node for
  /// every block, or a node of the previous block alike: a size this block reads from a node
  /// of the block before, which made it); `node_refs[i]` is the first of node i's. Built once so a
  /// replay looks nothing up.
  std::vector<uint32_t> refs, node_refs;
  std::vector<Node*> shared;
  /// Each node's module stack as an index into `stacks`, the distinct ones.
  std::vector<uint32_t> stack_of;
  std::vector<std::shared_ptr<const ModuleStack>> stacks;
};

/// A record of the call `call` from the graph's nodes appended since position `first`, the names
/// journaled meanwhile and the results' nodes; `prev`: the nodes of the block alike called just
/// before (empty if none). nullopt when it holds something a replay cannot reproduce (a symbolic
/// value naming no node, a higher-order op, a result not made by the block).
std::optional<BlockRecord> make_block_record(const Graph& g, size_t first, BlockCall call,
                                             const std::vector<Graph::NameTaken>& names,
                                             const std::vector<Node*>& results, const std::vector<Node*>& prev);

/// Whether `later` appended what `earlier` did, node for node and name for name, with later's
/// inputs, parameters, device and module path in place of earlier's.
bool same_block_record(const BlockRecord& earlier, const BlockRecord& later);

/// Appends `rec`'s nodes again for the call `to` (its names taken as a trace would take them),
/// after `prev`, the nodes of the block alike called just before; returns them, in the record's
/// order (the results are `rec.outputs` of them).
std::vector<Node*> replay_block(Graph& g, const BlockRecord& rec, const BlockCall& to, const std::vector<Node*>& prev);

}  // namespace fe::detail
