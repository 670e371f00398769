// Decompositions: PyTorch's ep.run_decompositions(), lowering a program to Core ATen by retracing
// it with each listed op replaced by its decomposition (OpDef::decomp, declared with the op).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "fakeexport/export/exported_program.h"
#include "fakeexport/ops/dispatch.h"

namespace fe {

/// PyTorch 2.14's default table (`torch.export.default_decompositions()`): every registered op
/// that has a decomposition.
DecompTable default_decompositions();

/// The ops `names` denote, as `get_decompositions([...])` takes them: "aten.linear" or
/// "aten::linear" (every overload of the packet), "aten.transpose.int" / "aten::transpose.int"
/// (one overload). UnknownOpError names an op the registry lacks; ValueError one that has no
/// decomposition (nothing to lower it to).
DecompTable decompositions_of(const std::vector<std::string>& names);

/// PyTorch's `get_decompositions([...])`: of the ops `names` denote (as for decompositions_of), only
/// those PyTorch 2.14 has a Python decomposition for (torch._decomp.decomposition_table). A
/// CompositeImplicit op such as aten.linear is not among them, so run_decompositions keeps it whole.
/// The table also holds the CompositeImplicit ops export cannot preserve (aliasing or mutating:
/// to.dtype, reshape, dropout, ...), which PyTorch's run_decompositions lowers whatever the table:
/// the result is the table that run_decompositions(ep, get_decompositions([...])) applies.
DecompTable get_decompositions(const std::vector<std::string>& names);

/// The functional op functionalization replaces an in-place op with: the op of the same name less
/// its trailing `_` and the same argument types, as native_functions.yaml groups them whatever the
/// overload names (`add_.Tensor` -> `add.Tensor`, `pow_.Scalar` -> `pow.Tensor_Scalar`,
/// `floor_divide_.Tensor` -> `floor_divide`); null when the registry has none.
const OpDef* functional_variant(const OpDef& inplace);

/// Parses a comma-separated op list ("aten.linear,aten.t") into names for decompositions_of.
std::vector<std::string> split_op_list(std::string_view list);

/// What run_decompositions did, for reports.
struct DecomposeReport {
  size_t nodes_before = 0, nodes_after = 0;  ///< call_function nodes of the root graph
  size_t decomposed = 0;                     ///< calls replaced by their decomposition
};

/// The program retraced under `table`, as `ep.run_decompositions(table)`: every call of an op in
/// the table (and of the ops its decomposition calls, recursively) is replaced by what its
/// decomposition calls; nodes keep the stack_trace and nn_module_stack of the node they came
/// from; placeholders, signature, state and range constraints are kept; dead pure nodes are
/// removed. The result is verified. Higher-order ops whose subgraphs PyTorch inlines when
/// retracing (wrap_with_set_grad_enabled, wrap_with_autocast) are inlined; other higher-order
/// ops are an UnsupportedError naming the node.
ExportedProgram run_decompositions(const ExportedProgram& ep, const DecompTable& table,
                                   DecomposeReport* report = nullptr);

}  // namespace fe
