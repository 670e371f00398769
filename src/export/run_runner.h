// The interpreter behind fe::run, shared by its files: run.cpp (inputs, ops, Python operators,
// the graph walk, outputs), run_hops.cpp (higher-order ops: subgraphs, loops, effects,
// functionalized custom ops) and run_vmap.cpp (functorch vmap traced inline).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "fakeexport/export/exported_program.h"

namespace fe::run_detail {

/// What a node evaluates to: nothing (get_attr, ops returning nothing), a tensor, a tuple of
/// tensors (multi-output ops, cond), a concrete int (sym nodes) or a bool (comparisons).
using Value = std::variant<std::monostate, Tensor, std::vector<Tensor>, int64_t, bool, double>;
/// Values of the nodes computed so far in one graph.
using Vals = std::unordered_map<const Node*, Value>;
/// The graphs enclosing the one running, outermost first (subgraphs are looked up inside out).
using Scopes = std::vector<const Graph*>;

inline const char* kind_text(const Value& v) {
  static constexpr const char* names[] = {"nothing", "a tensor", "a tuple of tensors", "an int", "a bool", "a float"};
  return names[v.index()];
}

class Runner {
 public:
  explicit Runner(const ExportedProgram& ep) : ep_(ep) {}

  std::vector<Tensor> run(const std::vector<Tensor>& inputs);

 private:
  /// The tensor a PARAMETER / BUFFER / CONSTANT_TENSOR input reads, which must hold data.
  Tensor state_tensor(const InputSpec& s) const;
  static const Tensor* find(const std::vector<std::pair<std::string, Tensor>>& v, const std::string& name);
  /// Splits the root graph's outputs by the signature: user outputs are returned, mutations are
  /// written into the tensors they name.
  std::vector<Tensor> finish(const std::vector<Value>& outs, const std::vector<Tensor>& inputs);
  static void write_back(const Tensor& dst, const Tensor& value, const OutputSpec& s);
  /// Binds each symbol that is a placeholder's size to the actual size (for expressions that no
  /// node computes).
  void bind_symbols(const std::vector<Node*>& phs, const std::vector<Value>& vals);
  /// The concrete value of an int argument: its node's value, else its expression over the
  /// symbols bound from the inputs.
  int64_t int_of(const SymInt& s, const Vals& vals) const;
  static const Value& value_of(const Node* n, const Vals& vals);
  static Tensor tensor_of(const Node* n, const Vals& vals);
  IValue arg_value(const NodeArg& a, const Vals& vals) const;
  Value call(const Node& n, const Vals& vals);
  /// Dispatches `op` on real values (lower-precision ops cast inside an autocast region); an op
  /// without outputs that has a kernel (`_print`) is called for its effect.
  std::vector<Tensor> call_op(const OpDef& op, std::vector<IValue> args, const Node& n);
  Value sym_op(const Node& n, const Vals& vals) const;
  /// Runs `g` with its placeholders bound to `args`; returns the output node's values.
  std::vector<Value> run_graph(const Graph& g, Scopes scopes, const std::vector<Value>& args);
  Value eval(const Node& n, const Vals& vals, const Scopes& scopes);

  // ---- higher-order ops (run_hops.cpp)
  /// A predicate's truth: a one-element tensor, a bool or an int (`what` names it in errors).
  static bool truth(const Value& v, const char* what);
  /// Subgraph results that must be tensors (`what` names the subgraph in errors).
  static std::vector<Tensor> tensors(const Node& n, const std::vector<Value>& outs, const char* what);
  /// A higher-order node's value: the tuple, or its one tensor when the node returns one value.
  static Value node_result(const Node& n, std::vector<Tensor> ts);
  /// The values one higher-order argument holds: a tensor, a size, or each element of a list.
  void append_values(const NodeArg& a, const Vals& vals, std::vector<Value>& out);
  /// cond(pred, true_graph, false_graph, operands): runs one branch's subgraph on the operands.
  Value cond(const Node& n, const Vals& vals,
             const Scopes& scopes);
  /// The subgraph a get_attr argument names, looked up from the innermost graph outwards.
  const Graph& subgraph_of(const Node* attr, const Scopes& scopes) const;
  /// Runs the subgraph `attr` on `operands`; a tuple of tensors, or the tensor itself when the
  /// calling node returns a single value.
  Value call_subgraph(const Node& n, const Node* attr, const std::vector<Value>& operands,
                      const Scopes& scopes);
  /// Values of arguments [from, end) of a higher-order call (its subgraph operands: tensors and sizes).
  std::vector<Value> operands_from(const Node& n, size_t from, const Vals& vals);
  /// map_impl(body, xs, pos_args): the body on each slice of xs along dim 0, results stacked.
  Value map_impl(const Node& n, const Vals& vals,
                 const Scopes& scopes);
  /// while_loop(cond_graph, body_graph, carried, additional): the final carried values.
  Value while_loop(const Node& n, const Vals& vals, const Scopes& scopes);
  /// scan(combine_graph, init, xs, additional): the final carry, then the stacked per-step outputs.
  Value scan(const Node& n, const Vals& vals, const Scopes& scopes);
  /// with_effects(token, op, *args): a fresh token, then the op's outputs.
  Value with_effects(const Node& n, const Vals& vals);
  /// auto_functionalized(_v2)(op, ...): the op on clones of the tensors it mutates; its outputs,
  /// then the clones (export/auto_functionalized.h).
  Value auto_functionalized(const Node& n, const Vals& vals);
  /// Any node calling something other than a registered op (higher-order ops, functorch).
  Value call_other(const Node& n, const Vals& vals, const Scopes& scopes);

  // ---- functorch vmap traced inline (run_vmap.cpp; transformers' mask functions). A batched
  // value is a real tensor whose leading dims are its vmap levels (ascending), then its
  // per-example dims; the graph's nodes between _add_batch_dim and _remove_batch_dim compute on
  // those per example.
  using Levels = std::vector<int64_t>;
  const Levels* levels_of(const Node* n) const;
  int64_t int_arg(const Node& n, size_t i, const Vals& vals) const;
  Value vmap_call(const Node& n, const Vals& vals);
  /// An op with batched operands. Pointwise ops run on the physical tensors, each operand's
  /// levels and per-example dims aligned (size 1 where absent); new_* factories and metadata
  /// asserts do not depend on the batch. Anything else has no batching rule here.
  std::optional<Value> call_batched(const Node& n, std::vector<IValue>& args);

  const ExportedProgram& ep_;
  std::map<std::string, int64_t, std::less<>> symbols_;
  std::unordered_map<const Node*, Levels> batched_;  ///< vmap levels of batched values
  std::optional<DType> autocast_;  ///< inside an enabled wrap_with_autocast region: its dtype
};

}  // namespace fe::run_detail
