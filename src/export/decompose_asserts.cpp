// The retrace's last step, as PyTorch's insert_deferred_runtime_asserts leaves the program: each
// assertion made again after its symbols' binding, with fresh names (export/decompose_asserts.h).
#include "export/decompose_asserts.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "fakeexport/core/error.h"
#include "fakeexport/ops/registry.h"
#include "fakeexport/sym/shape_env.h"

namespace fe::detail {
namespace {

/// Puts `nodes`, in order, right after `anchor` (a node already in its place stays).
void place_after(Graph& g, const Node* anchor, const std::vector<Node*>& nodes) {
  for (Node* x : nodes) {
    Node* next = nullptr;
    for (size_t k = 0; k + 1 < g.nodes().size() && !next; ++k)
      if (g.nodes()[k].get() == anchor) next = g.nodes()[k + 1].get();
    if (!next) return;
    if (next != x) g.move_before(x, next);
    anchor = x;
  }
}

/// An assertion over one unbacked size (`u0 >= 0` of repeat_interleave's total) goes right after
/// the first node holding that size, reading it there: insert_deferred_runtime_asserts places it
/// at the symbol's binding, which in a decomposition is an intermediate (repeat_interleave.Tensor
/// before the index_select the original node became).
void hoist_to_binding(Graph& g, Node* cond) {
  static const OpDef& assert_scalar = op("aten::_assert_scalar");
  static const OpDef& sym_size = op("aten::sym_size.int");
  const std::vector<Node*> ins = cond->inputs();
  if (ins.size() != 1 || ins[0]->target() != &sym_size || ins[0]->args().size() != 2 || ins[0]->users().size() != 1)
    return;
  Node* size = ins[0];
  Node* const* of = std::get_if<Node*>(&size->args()[0]);
  const SymInt* dim = std::get_if<SymInt>(&size->args()[1]);
  if (!of || !dim || (*of)->val.size() != 1 || !dim->maybe_int()) return;
  const auto& sizes = (*of)->val[0].sizes;
  const int64_t d = *dim->maybe_int();
  if (d < 0 || d >= static_cast<int64_t>(sizes.size()) || !sym::is_unbacked_symbol(sizes[d])) return;
  const SymInt u = sizes[d];
  for (size_t i = 0; i + 1 < g.nodes().size(); ++i) {
    Node* b = g.nodes()[i].get();
    if (b == *of) return;
    if (b->op() != NodeOp::CallFunction || b->val.size() != 1 || b->multi_output()) continue;
    const auto& bs = b->val[0].sizes;
    for (size_t j = 0; j < bs.size(); ++j) {
      if (!bs[j].same_as(u)) continue;
      g.set_args(size, {b, SymInt(static_cast<int64_t>(j))});
      std::vector<Node*> moved = {size, cond};
      for (Node* user : cond->users())
        if (user->target() == &assert_scalar) moved.push_back(user);
      place_after(g, b, moved);
      return;
    }
  }
}

/// The left-folded chain of one arithmetic (`add_9 = u0 + u1; add_10 = add_9 + u2; add_11 = add_10 +
/// u3`) an assertion's comparison reads as its first operand, innermost first; each link used only
/// by the next. Empty for a comparison of anything else.
std::vector<Node*> fold_chain(Node* cond) {
  std::vector<Node*> chain;
  const NodeArg* at = cond->args().empty() ? nullptr : &cond->args()[0];
  std::optional<PyOp> kind;
  while (at) {
    Node* n = nullptr;  // a symbolic operand is a handle of the node computing it
    if (auto* p = std::get_if<Node*>(at)) n = *p;
    else if (auto* v = std::get_if<SymInt>(at)) n = graph_node_of(*v);
    if (!n || n->op() != NodeOp::SymOp || n->users().size() != 1 || n->args().size() != 2 || !n->sym_val) break;
    const PyOp k = n->py_op();
    if ((k != PyOp::Add && k != PyOp::Mul) || (kind && *kind != k)) break;
    kind = k;
    chain.insert(chain.begin(), n);
    at = &n->args()[0];
  }
  return chain;
}

/// insert_deferred_runtime_asserts makes an assertion's expression again from sympy, which holds
/// `u0 + u1 + u2 + u3` as one flat Add: a new chain (fresh names) feeds the comparison, it replaces
/// only the retrace's node of the whole sum, and the retrace's partial sums (`add_9 = u0 + u1`,
/// `add_10 = add_9 + u2`) stay, unused, after the assertion (no dead-code elimination follows the
/// pass). `chain` is fold_chain(cond).
void remake_chain(Graph& g, const std::vector<Node*>& chain, Node* cond, Node* assertion) {
  if (chain.size() < 2) return;
  const auto handle = [](Node* n) { return NodeArg(n->sym_val->node()->env->make_handle(*n->sym_val, n)); };
  Node* prev = nullptr;
  for (Node* link : chain) {
    std::vector<NodeArg> args = link->args();
    if (prev) args[0] = handle(prev);
    Node* made = g.sym_op(link->py_op(), std::move(args), link->sym_val, cond);
    made->loc = link->loc;
    made->module_stack = link->module_stack;
    made->stack_trace = link->stack_trace;
    made->serialized_meta = link->serialized_meta;
    prev = made;
  }
  std::vector<NodeArg> args = cond->args();
  args[0] = std::holds_alternative<Node*>(args[0]) ? NodeArg(prev) : handle(prev);
  g.set_args(cond, std::move(args));
  g.erase(chain.back());
  place_after(g, assertion, {chain.begin(), chain.end() - 1});
}

}  // namespace

/// PyTorch's retrace ends with insert_deferred_runtime_asserts, which removes the assertions the
/// retrace recorded and makes them again after every other node: each comparison an _assert_scalar
/// reads (and a size read of a tensor it compares, `sym_size(slice_1, 0)` for an unbacked u1) takes
/// the next free name of its kind (`ge` -> `ge_1`, after `ge`s the retrace used up), and the
/// assertion's message names it so.
void recreate_runtime_asserts(Graph& g) {
  static const OpDef& assert_scalar = op("aten::_assert_scalar");
  static const OpDef& sym_size = op("aten::sym_size.int");
  std::unordered_set<const Node*> renamed;
  const auto base_of = [](const std::string& name) {
    const size_t us = name.rfind('_');
    const bool numbered = us != std::string::npos && us + 1 < name.size() &&
                          std::all_of(name.begin() + static_cast<long>(us) + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; });
    return numbered ? name.substr(0, us) : name;
  };
  // The assertions as the retrace left them (the loop moves and adds nodes).
  std::vector<Node*> asserts;
  for (const auto& up : g.nodes())
    if (up->op() == NodeOp::CallFunction && up->target() == &assert_scalar && up->args().size() == 2)
      asserts.push_back(up.get());
  for (Node* a : asserts) {
    Node* const* arg = std::get_if<Node*>(&a->args()[0]);
    Node* cond = arg ? *arg : nullptr;
    if (!cond || cond->op() != NodeOp::SymOp || !renamed.insert(cond).second) continue;
    for (Node* in : cond->inputs())
      if (in->op() == NodeOp::CallFunction && in->target() == &sym_size && !in->inputs().empty() &&
          in->inputs()[0]->op() != NodeOp::Placeholder && renamed.insert(in).second)
        g.rename_fresh(in, "sym_size_int");
    remake_chain(g, fold_chain(cond), cond, a);
    const std::string old_name = cond->name();
    g.rename_fresh(cond, base_of(old_name));
    hoist_to_binding(g, cond);
    for (Node* user : std::vector<Node*>(cond->users())) {
      if (user->target() != &assert_scalar || user->args().size() != 2) continue;
      const std::string* msg = std::get_if<std::string>(&user->args()[1]);
      const std::string tail = "on node '" + old_name + "'";
      if (!msg || !msg->ends_with(tail)) continue;
      std::vector<NodeArg> args = user->args();
      std::string m = *msg;
      m.replace(m.size() - tail.size(), tail.size(), "on node '" + cond->name() + "'");
      args[1] = std::move(m);
      g.set_args(user, std::move(args));
    }
  }
}

void check_ranges_kept(const ExportedProgram& out) {
  std::set<std::string> symbols;
  for (Node* p : out.graph.placeholders())
    for (const TensorMeta& m : p->val)
      for (const SymInt& d : m.sizes)
        if (d.is_symbolic())
          for (const std::string& f : d.expr().free_symbols()) symbols.insert(f);
  for (const auto& [name, range] : out.range_constraints) {
    if (symbols.count(name) || sym::is_unbacked_name(name) || name.find_first_of("*+-/() ") != std::string::npos) continue;
    std::string why;
    if (out.shape_env)
      for (const sym::ModularGuard& m : out.shape_env->modular_guards())
        if (m.symbol == name)
          why = cat(" (it must be a multiple of ", m.modulus, ": export that dim as ", m.modulus, "*_dim, --seq-multiple ",
                    m.modulus, ")");
    throw ConstraintViolationError(cat("decompose: lowering this program constrains its dynamic size ", name,
                                       " beyond its range: the lowered program would not take every size the range "
                                       "allows",
                                       why));
  }
}

}  // namespace fe::detail
