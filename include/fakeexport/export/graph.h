// Graph IR: an ordered list of nodes (placeholder / call_function / output) in FX's model.
// The graph keeps use-lists itself; every mutation goes through Graph so they stay exact.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fakeexport/core/source_location.h"
#include "fakeexport/export/name_table.h"
#include "fakeexport/ops/registry.h"
#include "fakeexport/sym/shape_env.h"

namespace fe {

class Node;
class Module;
using NodeArg = ValueT<Node*>;

/// One frame of nn_module_stack: the module's dotted path ("" for root) and its type name.
struct ModuleFrame {
  std::string path;
  std::string type_name;
  friend bool operator==(const ModuleFrame&, const ModuleFrame&) = default;
};
using ModuleStack = std::vector<ModuleFrame>;

/// FX node kinds. GetItem is FX's call_function on operator.getitem: element `index()` of a
/// multi-output op's result (split, max.dim, native_layer_norm). SymOp is a call_function on a
/// Python operator over symbolic ints (`sym_size_int * 2`, `sym_size_int == 4`).
/// GetAttr reads a submodule (`true_graph_0 = self.true_graph_0`). CallOther is a call_function
/// whose target is not an OpOverload: a higher-order op (`torch.ops.higher_order.cond(pred,
/// true_graph_0, false_graph_0, (x,))`, its subgraphs passed as GetAttr nodes) or another Python
/// callable (functorch's `_add_batch_dim`); see Callable.
enum class NodeOp : uint8_t { Placeholder, CallFunction, GetItem, Output, SymOp, GetAttr, CallOther };

/// What a CallOther node calls. Known higher-order ops have a kind that the verifier and the
/// interpreter implement (export/verifier.cpp, export/run.cpp); anything else is Opaque: its
/// recorded outputs stand, and running it is an error naming it.
enum class CallableKind : uint8_t {
  Opaque, Cond, WhileLoop, MapImpl, Scan, WrapWithSetGradEnabled, WrapWithAutocast, InvokeSubgraph,
  AutoFunctionalized, AutoFunctionalizedV2, WithEffects,
  // functorch's vmap traced inline (torch._functorch.predispatch.*, transformers' vmapped masks):
  VmapNesting,     ///< lazy_load_decompositions / _vmap_increment_nesting / _vmap_decrement_nesting: no value
  AddBatchDim,     ///< _add_batch_dim(x, in_dim, level)
  RemoveBatchDim,  ///< _remove_batch_dim(x, level, batch_size, out_dim)
};
/// Argument positions of the vmap calls, one place for every reader (verifier, run, decompose, memory).
namespace vmap_arg {
inline constexpr size_t kX = 0, kAddInDim = 1, kAddLevel = 2, kRemoveLevel = 1, kRemoveSize = 2, kRemoveOutDim = 3;
}
struct Callable {
  std::string target;     ///< as serialized and printed: "torch.ops.higher_order.cond"
  std::string node_name;  ///< FX's default node name: "cond", "wrap_with_set_grad_enabled"
  CallableKind kind = CallableKind::Opaque;
  bool higher_order() const { return target.starts_with("torch.ops.higher_order."); }
};
/// The known higher-order op or callable serialized as `target`; null when unknown.
const Callable* find_callable(std::string_view target);
/// torch.ops.higher_order.cond.
const Callable& cond_callable();

/// How a loaded node's schema argument was given in the serialized program (PyTorch keeps args and
/// kwargs apart; the printer reproduces them). Traced nodes leave Node::arg_given empty.
enum class ArgGiven : uint8_t { Absent, Positional, Keyword };

/// The Python operator of a SymOp node.
/// Python operators on sizes. Neg is the one unary operator (`-x`: one operand).
enum class PyOp : uint8_t { Add, Sub, Mul, FloorDiv, Mod, SymMin, SymMax, Eq, Ne, Lt, Le, Gt, Ge, Neg };
/// How many operands a node of `op` has.
inline size_t py_op_arity(PyOp op) { return op == PyOp::Neg ? 1 : 2; }
std::string_view py_op_name(PyOp op);    ///< "add", "sym_max", "eq": the node's name hint
std::string_view py_op_symbol(PyOp op);  ///< "+", "//", "==" (empty for sym_min/sym_max)

class Node {
 public:
  NodeOp op() const { return op_; }
  const std::string& name() const { return name_; }
  /// Placeholder: the forward argument it binds (FX's target). Differs from name() when the
  /// argument is a Python builtin (`input` -> node `input_1`, printed `input_1 = input`).
  const std::string& target_name() const { return target_name_.empty() ? name_ : target_name_; }
  /// The operator of a call_function node; null otherwise.
  const OpDef* target() const { return target_; }
  /// GetItem: which element of its single input's outputs.
  int64_t index() const { return index_; }
  /// SymOp: the operator.
  PyOp py_op() const { return py_op_; }
  /// CallOther: what it calls; null otherwise.
  const Callable* callable() const { return callable_; }
  /// CallOther: names of the keyword arguments, which are the last kwarg_names().size() args().
  const std::vector<std::string>& kwarg_names() const { return kwarg_names_; }
  /// CallOther: whether positional argument i is a tuple (printed `(x,)`) rather than a list.
  bool arg_is_tuple(size_t i) const { return i < 32 && (tuple_args_ >> i) & 1u; }
  /// GetAttr: the attribute (submodule) it reads.
  const std::string& attr() const { return target_name_; }
  /// Whether the node's value is a tuple/list of tensors (consumed only through GetItem nodes).
  bool multi_output() const;
  /// call_function: all arguments in schema order; output: one TensorList of returned nodes.
  const std::vector<NodeArg>& args() const { return args_; }
  /// Nodes using this one, each once, in order of first use (FX's `users`).
  const std::vector<Node*>& users() const { return users_; }
  /// Input nodes in argument order, each once (FX's `all_input_nodes`).
  std::vector<Node*> inputs() const;
  /// inputs() into a caller's buffer (cleared first): no allocation per node on hot walks.
  void inputs_into(std::vector<Node*>& out) const;

  /// Output metadata: one entry per tensor output; empty for ops returning nothing.
  std::vector<TensorMeta> val;
  /// The symbolic int a sym_size.int or arithmetic SymOp node computes (printed "Sym(s77)").
  std::optional<SymInt> sym_val;
  /// A placeholder of a user input export specialized to a constant: its recorded value.
  Opaque constant;
  /// Where the op was called (std::source_location); absent for placeholders and output.
  std::optional<SrcLocArg> loc;
  /// nn_module_stack at the time of the call (shared among nodes of the same module call).
  std::shared_ptr<const ModuleStack> module_stack;
  /// A loaded node's Python stack trace text (PyTorch's meta["stack_trace"]); when set, the printer
  /// summarizes its innermost frame ("# File: f.py:12 in forward, code: ...") instead of `loc`.
  std::optional<std::string> stack_trace;
  /// Loaded call_function nodes: per schema argument, whether and how it was given (printing shows
  /// exactly those); empty for traced nodes, whose printing derives it from the defaults.
  std::vector<ArgGiven> arg_given;
  /// Loaded nodes: the serialized metadata other than stack_trace (nn_module_stack, torch_fn, ...),
  /// kept verbatim in file order so writing the program back reproduces it.
  std::vector<std::pair<std::string, std::string>> serialized_meta;
  /// Loaded multi-output op nodes whose results mix kinds (CUDA attention's: tensors, None, sizes),
  /// one entry per result as the file recorded it, so writing the program back reproduces it; their
  /// `val` entries for None and SymInt results are empty placeholders. Empty when all are tensors.
  using OutputElem = fe::OutputElem;
  std::vector<OutputElem> out_elems;

 private:
  friend class Graph;
  NodeOp op_ = NodeOp::CallFunction;
  std::string name_;
  std::string target_name_;
  const OpDef* target_ = nullptr;
  int64_t index_ = 0;
  PyOp py_op_ = PyOp::Add;
  const Callable* callable_ = nullptr;
  std::vector<std::string> kwarg_names_;
  uint32_t tuple_args_ = 0;
  bool returns_tuple_ = false;
  std::vector<NodeArg> args_;
  std::vector<Node*> users_;
  /// lint()'s scratch: (pass << 32) | position + 1 while a lint pass runs over this node's graph,
  /// so def-before-use is a compare, not a hash-set lookup per input.
  mutable uint64_t lint_mark_ = 0;
};

/// The sym node a symbolic int argument refers to (set by the tracer); null for constants.
inline Node* graph_node_of(const SymInt& s) {
  return s.is_symbolic() ? static_cast<Node*>(s.node()->graph_node) : nullptr;
}

/// Visits every Node* inside an argument value (tensors, and sym nodes behind symbolic ints);
/// the None elements of a `Tensor?[]` list (nullptr) are skipped.
template <class F>
void for_each_node(const NodeArg& a, F&& f) {
  if (auto* n = std::get_if<Node*>(&a)) return f(*n);
  if (auto* l = std::get_if<std::vector<Node*>>(&a))
    for (Node* n : *l)
      if (n) f(n);
  if (auto* s = std::get_if<SymInt>(&a)) {
    if (Node* n = graph_node_of(*s)) f(n);
  }
  if (auto* l = std::get_if<std::vector<SymInt>>(&a))
    for (const SymInt& s : *l)
      if (Node* n = graph_node_of(s)) f(n);
}

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  Graph(Graph&&) = default;
  Graph& operator=(Graph&&) = default;

  /// Appends (or inserts before `before`) a placeholder named `name` (made unique FX-style).
  Node* placeholder(std::string_view name, TensorMeta val, Node* before = nullptr);
  /// Appends (or inserts before `before`) a call of `op`; `name_hint` defaults to op.node_name.
  Node* call(const OpDef& op, std::vector<NodeArg> args, std::string_view name_hint = {},
             Node* before = nullptr);
  /// Appends `src[index]` (FX: operator.getitem), named "getitem", "getitem_1", ...
  Node* getitem(Node* src, int64_t index, Node* before = nullptr, std::string_view name_hint = "getitem");
  /// Appends (or inserts before `before`) `a op b` over symbolic ints; named after the operator.
  Node* sym_op(PyOp op, std::vector<NodeArg> args, std::optional<SymInt> val, Node* before = nullptr);
  /// Appends the output node returning `values`.
  Node* output(std::vector<Node*> values);
  /// Appends (or inserts before `before`) `name = self.<attr>` reading the subgraph `attr`.
  Node* get_attr(const std::string& attr, Node* before = nullptr);
  /// Appends a call of a higher-order op or callable: `args` positional then keyword (named by
  /// `kwarg_names`); `tuple_args` marks positional tuples; `returns_tuple`: its value is a tuple
  /// read through GetItem nodes (`val` one entry per element), else `val` is its single tensor.
  Node* call_other(const Callable& c, std::vector<NodeArg> args, std::vector<std::string> kwarg_names,
                   uint32_t tuple_args, bool returns_tuple, std::vector<TensorMeta> vals,
                   std::string_view name_hint = {}, Node* before = nullptr);
  /// Appends a cond node; `vals` are the branches' (equal) output metadata.
  Node* cond(Node* pred, Node* true_graph, Node* false_graph, std::vector<Node*> operands, std::vector<TensorMeta> vals);

  /// A higher-order op's subgraph serialized with is_single_tensor_return: its output is the
  /// tensor itself (`return x`), not a 1-tuple.
  bool single_return = false;

  /// A new subgraph (a submodule of the GraphModule, e.g. cond's `true_graph_0`).
  Graph& add_subgraph(const std::string& name);
  const std::vector<std::pair<std::string, std::unique_ptr<Graph>>>& subgraphs() const { return subgraphs_; }

  /// Replaces the arguments of `n` (use-lists follow).
  void set_args(Node* n, std::vector<NodeArg> args);
  /// Replaces every use of `from` by `to`; afterwards from->users() is empty.
  void replace_all_uses_with(Node* from, Node* to);
  /// Gives `n` exactly this name (a loaded program's names are kept as written); InternalError if
  /// another node has it. A placeholder named like its target loses its `name = target` line.
  void set_name(Node* n, std::string_view name);
  /// Gives `n` a new name made from `base` as unique_name makes one, its old name staying taken
  /// (a pass that re-creates a node, as insert_deferred_runtime_asserts re-creates assertions).
  void rename_fresh(Node* n, std::string_view base);
  /// Removes a node that has no users (InternalError otherwise); its name is free again unless
  /// `keep_name`.
  void erase(Node* n, bool keep_name = false);
  /// Moves `n` to just before `before` (InternalError if an input of `n` would then come after it).
  void move_before(Node* n, Node* before);
  /// Puts the placeholders in `order` (every placeholder, each once) at the head of the graph.
  void reorder_placeholders(const std::vector<Node*>& order);
  /// Names every node again in graph order from its base name (`add_7` -> `add`, then numbered as
  /// FX numbers them), as if nodes erased since had never been made; placeholders keep theirs.
  void renumber_names();
  /// Erases, last to first, every node `dead` holds for which nothing is left using it once the
  /// later ones are gone (chains go in one pass); one compaction of the node list, not one per node.
  /// Returns how many were erased.
  size_t erase_unused(const std::function<bool(const Node&)>& dead);

  const std::vector<std::unique_ptr<Node>>& nodes() const { return nodes_; }
  std::vector<Node*> placeholders() const;
  Node* output_node() const;
  size_t size() const { return nodes_.size(); }

  /// FX's _Namespace.create_name: sanitizes, avoids Python keywords/builtins, adds _1, _2, ...
  std::string unique_name(std::string_view candidate);

  /// Structural checks (def before use, exact use-lists, unique names, one trailing output);
  /// throws InternalError describing the first violation.
  void lint() const;

  /// A name unique_name gave: the candidate asked for and the name made.
  struct NameTaken {
    std::string candidate, name;
  };
  /// While set, every unique_name call is listed here (a repeated block's record, replayed later).
  std::vector<NameTaken>* name_journal = nullptr;
  /// How many mutations other than appends (inserts before a node, erases, new arguments or names
  /// of existing nodes) the graph has had: a record of appended nodes holds while this is unchanged.
  uint64_t edits() const { return edits_; }
  /// Appends a node like `src` (its kind, target, metadata and values) with `args` in place of its
  /// arguments, named from `candidate` by unique_name.
  Node* append_like(const Node& src, std::vector<NodeArg> args, std::string_view candidate);
  /// Whether `a` and `b` are the same kind of node with the same target and calling convention
  /// (what append_like copies, besides the public metadata).
  static bool same_call(const Node& a, const Node& b);

 private:
  Node* insert(std::unique_ptr<Node> n, Node* before);
  void add_uses(Node* n);
  void drop_uses(Node* n);

  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<std::pair<std::string, std::unique_ptr<Graph>>> subgraphs_;
  Namespace names_;  ///< the names taken, and the numbering per base
  uint64_t edits_ = 0;
};

}  // namespace fe
