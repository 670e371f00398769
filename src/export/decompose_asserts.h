// insert_deferred_runtime_asserts as it shapes a retraced program (run_decompositions' last step).
#pragma once
#include "fakeexport/export/exported_program.h"
#include "fakeexport/export/graph.h"

namespace fe::detail {

/// PyTorch's retrace ends with insert_deferred_runtime_asserts, which removes the assertions the
/// retrace recorded and makes them again: each comparison takes the next free name of its kind, an
/// assertion over an unbacked size moves to the symbol's binding, a chain of sums is made again
/// with the retrace's partial sums left unused. Applied to the retraced graph in place.
void recreate_runtime_asserts(Graph& g);

/// A lowering that constrains a dynamic input size beyond its range (CUDA's memory-efficient
/// attention pads a mask to 8 columns, and the padded size's guard re-expresses seq): PyTorch's
/// export on that device refuses the dim, and so does the retrace (ConstraintViolationError naming
/// the symbol and the fix export takes) when a range constraint's symbol is no longer an input dim.
void check_ranges_kept(const ExportedProgram& out);

}  // namespace fe::detail
