// Graph passes: small objects with `bool run(Graph&)` returning whether anything changed.
#pragma once
#include "fakeexport/export/graph.h"

namespace fe {

/// Removes call_function nodes with no users and no side effects, to a fixed point.
struct DeadCodeElimination {
  /// Whether the erased nodes' names stay taken, as torch.fx's Graph.erase_node leaves them in
  /// the graph's namespace: a later node of the same base then gets the next number.
  bool keep_names = false;
  bool run(Graph& g);
};

}  // namespace fe
