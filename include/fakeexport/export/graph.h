// Graph IR: an ordered list of nodes (placeholder / call_function / output) in FX's model.
// The graph keeps use-lists itself; every mutation goes through Graph so they stay exact.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fakeexport/core/source_location.h"
#include "fakeexport/ops/registry.h"

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
/// multi-output op's result (split, max.dim, native_layer_norm).
enum class NodeOp : uint8_t { Placeholder, CallFunction, GetItem, Output };

class Node {
 public:
  NodeOp op() const { return op_; }
  const std::string& name() const { return name_; }
  /// The operator of a call_function node; null otherwise.
  const OpDef* target() const { return target_; }
  /// GetItem: which element of its single input's outputs.
  int64_t index() const { return index_; }
  /// Whether the node's value is a tuple/list of tensors (consumed only through GetItem nodes).
  bool multi_output() const;
  /// call_function: all arguments in schema order; output: one TensorList of returned nodes.
  const std::vector<NodeArg>& args() const { return args_; }
  /// Nodes using this one, each once, in order of first use (FX's `users`).
  const std::vector<Node*>& users() const { return users_; }
  /// Input nodes in argument order, each once (FX's `all_input_nodes`).
  std::vector<Node*> inputs() const;

  /// Output metadata: one entry per tensor output; empty for ops returning nothing.
  std::vector<TensorMeta> val;
  /// Where the op was called (std::source_location); absent for placeholders and output.
  std::optional<SrcLocArg> loc;
  /// nn_module_stack at the time of the call (shared among nodes of the same module call).
  std::shared_ptr<const ModuleStack> module_stack;

 private:
  friend class Graph;
  NodeOp op_ = NodeOp::CallFunction;
  std::string name_;
  const OpDef* target_ = nullptr;
  int64_t index_ = 0;
  std::vector<NodeArg> args_;
  std::vector<Node*> users_;
};

/// Visits every Node* inside an argument value.
template <class F>
void for_each_node(const NodeArg& a, F&& f) {
  if (auto* n = std::get_if<Node*>(&a)) return f(*n);
  if (auto* l = std::get_if<std::vector<Node*>>(&a))
    for (Node* n : *l) f(n);
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
  Node* getitem(Node* src, int64_t index, Node* before = nullptr);
  /// Appends the output node returning `values`.
  Node* output(std::vector<Node*> values);

  /// Replaces every use of `from` by `to`; afterwards from->users() is empty.
  void replace_all_uses_with(Node* from, Node* to);
  /// Removes a node that has no users (InternalError otherwise).
  void erase(Node* n);

  const std::vector<std::unique_ptr<Node>>& nodes() const { return nodes_; }
  std::vector<Node*> placeholders() const;
  Node* output_node() const;
  size_t size() const { return nodes_.size(); }

  /// FX's _Namespace.create_name: sanitizes, avoids Python keywords/builtins, adds _1, _2, ...
  std::string unique_name(std::string_view candidate);

  /// Structural checks (def before use, exact use-lists, unique names, one trailing output);
  /// throws InternalError describing the first violation.
  void lint() const;

 private:
  Node* insert(std::unique_ptr<Node> n, Node* before);
  void add_uses(Node* n);
  void drop_uses(Node* n);

  std::vector<std::unique_ptr<Node>> nodes_;
  std::unordered_set<std::string> used_names_;
  std::unordered_map<std::string, int64_t> base_count_;
};

}  // namespace fe
