// check_program: is a program internally true? Every node's recorded metadata re-derived (meta
// functions, sym arithmetic, higher-order subgraphs) and the graph's structure checked. One
// verifier for programs we trace and programs we load; verify() is its throwing form.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fakeexport/export/exported_program.h"

namespace fe {

/// A node whose recorded value differs from the computed one in one field ("shape", "stride",
/// "storage_offset", "dtype", "device", "layout", "outputs", "value").
struct MetaMismatch {
  const Node* node;
  std::string graph;  ///< "" for the top graph, else the subgraph path ("wrap_body_0")
  std::string field, recorded, computed;
};

/// A node that could not be checked (an operator we do not know, a callable we do not
/// interpret) and why; its recorded metadata stands.
struct Unverified {
  const Node* node;
  std::string graph;
  std::string reason;
};

struct CheckReport {
  size_t nodes = 0;     ///< nodes of every graph, subgraphs included
  size_t verified = 0;  ///< nodes whose value was re-derived and agreed (or needs none: placeholders)
  std::vector<MetaMismatch> mismatches;
  std::vector<Unverified> unverified;
  std::vector<std::string> graph_errors;  ///< structure: def-before-use, signature, range constraints
  bool ok() const { return verified == nodes && mismatches.empty() && graph_errors.empty(); }
};

/// Checks the whole program; problems are collected, never thrown (a program the checker cannot
/// follow at all yields graph_errors).
CheckReport check_program(const ExportedProgram& ep);

/// A check replays the metas from the inputs: it first forgets the facts over data (runtime
/// assertions) the ShapeEnv holds and learns them again in program order, as the export learned
/// them. While this scope is alive it keeps them instead: a retrace's program (decompose) is made
/// under all of them, as PyTorch's run_decompositions retraces in the export's ShapeEnv.
class KeepFactsScope {
 public:
  KeepFactsScope();
  ~KeepFactsScope();
  KeepFactsScope(const KeepFactsScope&) = delete;
  KeepFactsScope& operator=(const KeepFactsScope&) = delete;

 private:
  bool prev_;
};

/// The serialized call target without `torch.ops.`: "aten.linear.default", "higher_order.cond",
/// "_operator.getitem", "torch.sym_max"; empty for placeholders, get_attr and output.
std::string node_target(const Node& n);

/// FX's _parse_stack_trace: the innermost `File "f", line N, in fn` frame of a Python stack trace
/// that has a code line after it, as "File: f:N in fn, code: <code>"; nullopt when there is none.
std::optional<std::string> stack_trace_summary(std::string_view text);
/// Each call node of `g` with its line number and text in FX's `gm.code` (no type annotations):
/// what a stack trace into the graph's generated Python names.
std::unordered_map<const Node*, std::pair<int, std::string>> python_code_lines(const Graph& g);

/// "File: f.py:12 in forward, code: x = ..." of a node (loaded stack trace or traced C++ line);
/// empty when unknown.
std::string node_source(const Node& n);
/// The innermost module path of a node's nn_module_stack ("model.layers.0.self_attn"); empty at root.
std::string node_module(const Node& n);

}  // namespace fe
