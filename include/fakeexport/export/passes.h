// Graph passes: small objects with `bool run(Graph&)` returning whether anything changed.
#pragma once
#include "fakeexport/export/graph.h"

namespace fe {

/// Removes call_function nodes with no users and no side effects, to a fixed point.
struct DeadCodeElimination {
  bool run(Graph& g);
};

}  // namespace fe
