// insert_deferred_runtime_asserts as it shapes a retraced program (run_decompositions' last step).
#pragma once
#include "fakeexport/export/graph.h"

namespace fe::detail {

/// PyTorch's retrace ends with insert_deferred_runtime_asserts, which removes the assertions the
/// retrace recorded and makes them again: each comparison takes the next free name of its kind, an
/// assertion over an unbacked size moves to the symbol's binding, a chain of sums is made again
/// with the retrace's partial sums left unused. Applied to the retraced graph in place.
void recreate_runtime_asserts(Graph& g);

}  // namespace fe::detail
