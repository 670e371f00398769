// dynamic_shapes for export_program: symbolic input sizes before the trace, then PyTorch's
// produce_guards checks (constraint violations with suggested fixes) and range constraints after it.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fakeexport/core/tensor_meta.h"
#include "fakeexport/export/graph.h"
#include "fakeexport/sym/dims.h"
#include "fakeexport/sym/shape_env.h"

namespace fe::detail {

/// One dim of one user input, with its spec and the value it was traced with.
struct InputDim {
  std::string input;   ///< forward argument name
  int64_t dim = 0;
  std::string source;  ///< "L['x'].size()[0]"
  DimSpec spec;
  SymInt value;        ///< symbolic unless static or 0/1-specialized
};

/// Validates `shapes` against the inputs (names, lengths, ints, ranges): UserError naming the input.
void validate_dynamic_shapes(const DynamicShapes& shapes, const std::vector<std::string>& names,
                             const std::vector<const TensorMeta*>& inputs);

/// The traced sizes of input `name` (symbols for its dynamic dims, in PyTorch's allocation order);
/// appends its dims to `dims`.
/// `flat_index`: strict export (TorchDynamo) names a size by the input's leaf position,
/// `L['flat_args'][k].size()[d]`, instead of its parameter name.
DimVector make_input_sizes(sym::ShapeEnv& env, const std::string& name, const TensorMeta& example,
                           const std::vector<DimSpec>* spec, std::vector<InputDim>& dims,
                           std::optional<size_t> flat_index = std::nullopt);

/// Equalities the spec implies: dims sharing a named Dim, derived dims `A*dim + B` (phantom roots
/// get their own symbol, sourced by the Dim's name).
void apply_spec_equalities(sym::ShapeEnv& env, const std::vector<InputDim>& dims);

/// ConstraintViolationError when the program specialized a dynamic dim, related two distinct
/// named Dims, or narrowed a named Dim's range; the message ends with PyTorch's "Suggested fixes".
void check_constraints(const sym::ShapeEnv& env, const std::vector<InputDim>& dims);

/// ExportedProgram.range_constraints in PyTorch's order.
std::vector<std::pair<std::string, sym::ValueRange>> range_constraints(const sym::ShapeEnv& env,
                                                                       const std::vector<InputDim>& dims);

/// Re-expresses symbolic ints from the inputs' sizes (PyTorch's insert_deferred_runtime_asserts):
/// hoisted sym_size.int nodes per input symbol, duplicates replaced, unused sym nodes removed.
/// `last_input_wins`: a symbol several inputs share is read from the last of them (export, where
/// every placeholder re-tracks its sizes); else from the first (run_decompositions' retrace).
/// `trace_from_user`: a rebuilt operator node takes the stack trace of the node it is made for
/// (run_decompositions'), else none (export's).
void fold_symbolic_nodes(Graph& g, sym::ShapeEnv& env, bool last_input_wins = false, bool trace_from_user = false);

}  // namespace fe::detail
