// What a generation cache holds per decoder layer, where a program's weights do not show it: a
// zoo model says it (zoo::Model::generation_cache); memory --kv-cache and cost --decode read it.
#pragma once
#include <cstdint>
#include <vector>

namespace fe::analysis {

/// One decoder layer of transformers' DynamicCache.
struct KvLayer {
  int64_t width = 0;  ///< key plus value elements per token of one sequence
  int64_t keep = 0;   ///< tokens a sliding-window layer keeps (sliding_window - 1); 0: every token
  /// Tokens of a `length`-token generation the layer holds.
  int64_t tokens(int64_t length) const { return keep > 0 && keep < length ? keep : length; }
};
/// By layer index; empty: derived from the key/value projections' shapes alone.
using KvLayout = std::vector<KvLayer>;

}  // namespace fe::analysis
