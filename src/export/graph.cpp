#include "fakeexport/export/graph.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>

#include "fakeexport/core/error.h"

namespace fe {

std::vector<Node*> Node::inputs() const {
  std::vector<Node*> out;
  inputs_into(out);
  return out;
}

void Node::inputs_into(std::vector<Node*>& out) const {
  out.clear();
  for (const NodeArg& a : args_)
    for_each_node(a, [&](Node* n) {
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    });
}

bool Node::multi_output() const {
  if (op_ == NodeOp::CallOther) return returns_tuple_;
  if (op_ != NodeOp::CallFunction) return false;
  const auto& r = target_->schema.returns;
  return r.size() > 1 || (r.size() == 1 && r[0].type.is_list);
}

std::string Graph::unique_name(std::string_view cand) {
  std::string name = names_.create_name(cand);
  if (name_journal) name_journal->push_back({std::string(cand), name});
  return name;
}

void Graph::add_uses(Node* n) {
  // inputs() without its vector: n's own earlier push is the last user of an input it names twice.
  for (const NodeArg& a : n->args_)
    for_each_node(a, [&](Node* in) {
      if (in->users_.empty() || in->users_.back() != n) in->users_.push_back(n);
    });
}

void Graph::drop_uses(Node* n) {
  for (Node* in : n->inputs()) std::erase(in->users_, n);
}

Node* Graph::insert(std::unique_ptr<Node> n, Node* before) {
  Node* raw = n.get();
  if (!before) {
    nodes_.push_back(std::move(n));
  } else {
    ++edits_;
    auto it = std::find_if(nodes_.begin(), nodes_.end(), [&](const auto& p) { return p.get() == before; });
    FE_INTERNAL_ASSERT(it != nodes_.end(), "insert before a node not in this graph");
    nodes_.insert(it, std::move(n));
  }
  add_uses(raw);
  return raw;
}

Node* Graph::placeholder(std::string_view name, TensorMeta val, Node* before) {
  auto n = std::make_unique<Node>();
  n->op_ = NodeOp::Placeholder;
  n->name_ = unique_name(name);
  if (n->name_ != name) n->target_name_ = std::string(name);
  n->val.push_back(std::move(val));
  return insert(std::move(n), before);
}

Node* Graph::call(const OpDef& op, std::vector<NodeArg> args, std::string_view name_hint, Node* before) {
  auto n = std::make_unique<Node>();
  n->op_ = NodeOp::CallFunction;
  n->target_ = &op;
  n->name_ = unique_name(name_hint.empty() ? std::string_view(op.node_name) : name_hint);
  n->args_ = std::move(args);
  return insert(std::move(n), before);
}

Node* Graph::getitem(Node* src, int64_t index, Node* before, std::string_view name_hint) {
  FE_INTERNAL_ASSERT(src->multi_output() && index >= 0 && index < static_cast<int64_t>(src->val.size()),
                     "getitem ", index, " of '", src->name(), "' which has ", src->val.size(), " values");
  auto n = std::make_unique<Node>();
  n->op_ = NodeOp::GetItem;
  n->name_ = unique_name(name_hint);
  n->index_ = index;
  n->args_.push_back(src);
  n->val.push_back(src->val[static_cast<size_t>(index)]);
  return insert(std::move(n), before);
}

std::string_view py_op_name(PyOp op) {
  static constexpr std::string_view names[] = {"add", "sub", "mul", "floordiv", "mod", "sym_min", "sym_max",
                                               "eq",  "ne",  "lt",  "le",       "gt",  "ge",      "neg"};
  return names[static_cast<size_t>(op)];
}
std::string_view py_op_symbol(PyOp op) {
  static constexpr std::string_view syms[] = {"+", "-", "*", "//", "%", "", "", "==", "!=", "<", "<=", ">", ">=", "-"};
  return syms[static_cast<size_t>(op)];
}

Node* Graph::sym_op(PyOp op, std::vector<NodeArg> args, std::optional<SymInt> val, Node* before) {
  auto n = std::make_unique<Node>();
  n->op_ = NodeOp::SymOp;
  n->py_op_ = op;
  n->name_ = unique_name(py_op_name(op));
  n->args_ = std::move(args);
  n->sym_val = val;
  return insert(std::move(n), before);
}

Node* Graph::get_attr(const std::string& attr, Node* before) {
  auto n = std::make_unique<Node>();
  n->op_ = NodeOp::GetAttr;
  n->name_ = unique_name(attr);
  n->target_name_ = attr;
  return insert(std::move(n), before);
}

Node* Graph::call_other(const Callable& c, std::vector<NodeArg> args, std::vector<std::string> kwarg_names,
                        uint32_t tuple_args, bool returns_tuple, std::vector<TensorMeta> vals,
                        std::string_view name_hint, Node* before) {
  FE_INTERNAL_ASSERT(kwarg_names.size() <= args.size(), "call_other: ", kwarg_names.size(), " keyword names for ",
                     args.size(), " arguments");
  auto n = std::make_unique<Node>();
  n->op_ = NodeOp::CallOther;
  n->callable_ = &c;
  n->name_ = unique_name(name_hint.empty() ? std::string_view(c.node_name) : name_hint);
  n->args_ = std::move(args);
  n->kwarg_names_ = std::move(kwarg_names);
  n->tuple_args_ = tuple_args;
  n->returns_tuple_ = returns_tuple;
  n->val = std::move(vals);
  return insert(std::move(n), before);
}

Node* Graph::append_like(const Node& src, std::vector<NodeArg> args, std::string_view candidate) {
  auto n = std::make_unique<Node>();
  n->op_ = src.op_;
  n->target_name_ = src.target_name_;
  n->target_ = src.target_;
  n->index_ = src.index_;
  n->py_op_ = src.py_op_;
  n->callable_ = src.callable_;
  n->kwarg_names_ = src.kwarg_names_;
  n->tuple_args_ = src.tuple_args_;
  n->returns_tuple_ = src.returns_tuple_;
  n->name_ = unique_name(candidate);
  n->args_ = std::move(args);
  n->val = src.val;
  n->sym_val = src.sym_val;
  n->constant = src.constant;
  n->loc = src.loc;
  n->module_stack = src.module_stack;
  n->stack_trace = src.stack_trace;
  n->arg_given = src.arg_given;
  n->serialized_meta = src.serialized_meta;
  n->out_elems = src.out_elems;
  return insert(std::move(n), nullptr);
}

bool Graph::same_call(const Node& a, const Node& b) {
  return a.op_ == b.op_ && a.target_name_ == b.target_name_ && a.target_ == b.target_ && a.index_ == b.index_ &&
         a.py_op_ == b.py_op_ && a.callable_ == b.callable_ && a.kwarg_names_ == b.kwarg_names_ &&
         a.tuple_args_ == b.tuple_args_ && a.returns_tuple_ == b.returns_tuple_;
}

Node* Graph::cond(Node* pred, Node* true_graph, Node* false_graph, std::vector<Node*> operands,
                  std::vector<TensorMeta> vals) {
  return call_other(cond_callable(), {pred, true_graph, false_graph, std::move(operands)}, {}, 1u << 3, true,
                    std::move(vals));
}

namespace {
const std::vector<Callable>& known_callables() {
  static const std::vector<Callable> t = {
      {"torch.ops.higher_order.cond", "cond", CallableKind::Cond},
      {"torch.ops.higher_order.while_loop", "while_loop", CallableKind::WhileLoop},
      {"torch.ops.higher_order.map_impl", "map_impl", CallableKind::MapImpl},
      {"torch.ops.higher_order.scan", "scan", CallableKind::Scan},
      {"torch.ops.higher_order.wrap_with_set_grad_enabled", "wrap_with_set_grad_enabled",
       CallableKind::WrapWithSetGradEnabled},
      {"torch.ops.higher_order.wrap_with_autocast", "wrap_with_autocast", CallableKind::WrapWithAutocast},
      {"torch.ops.higher_order.invoke_subgraph", "invoke_subgraph", CallableKind::InvokeSubgraph},
      {"torch.ops.higher_order.auto_functionalized", "auto_functionalized", CallableKind::AutoFunctionalized},
      {"torch.ops.higher_order.auto_functionalized_v2", "auto_functionalized_v2", CallableKind::AutoFunctionalizedV2},
      {"torch.ops.higher_order.with_effects", "with_effects", CallableKind::WithEffects},
      // functorch's vmap as pre-dispatch tracing records it inline (transformers' vmapped masks)
      {"torch._functorch.predispatch.lazy_load_decompositions", "lazy_load_decompositions", CallableKind::VmapNesting},
      {"torch._functorch.predispatch._vmap_increment_nesting", "_vmap_increment_nesting", CallableKind::VmapNesting},
      {"torch._functorch.predispatch._vmap_decrement_nesting", "_vmap_decrement_nesting", CallableKind::VmapNesting},
      {"torch._functorch.predispatch._add_batch_dim", "_add_batch_dim", CallableKind::AddBatchDim},
      {"torch._functorch.predispatch._remove_batch_dim", "_remove_batch_dim", CallableKind::RemoveBatchDim},
  };
  return t;
}
}  // namespace

const Callable* find_callable(std::string_view target) {
  for (const Callable& c : known_callables())
    if (c.target == target) return &c;
  return nullptr;
}

const Callable& cond_callable() { return known_callables()[0]; }

Graph& Graph::add_subgraph(const std::string& name) {
  subgraphs_.emplace_back(name, std::make_unique<Graph>());
  return *subgraphs_.back().second;
}

Node* Graph::output(std::vector<Node*> values) {
  auto n = std::make_unique<Node>();
  n->op_ = NodeOp::Output;
  n->name_ = unique_name("output");
  n->args_.push_back(std::move(values));
  return insert(std::move(n), nullptr);
}

void Graph::set_args(Node* n, std::vector<NodeArg> args) {
  ++edits_;
  drop_uses(n);
  n->args_ = std::move(args);
  add_uses(n);
}

void Graph::replace_all_uses_with(Node* from, Node* to) {
  FE_INTERNAL_ASSERT(from != to, "replace_all_uses_with a node by itself");
  ++edits_;
  // As FX's replace_input_with: `from` loses its users, `to` gains those it lacks (at the end), and
  // every other input keeps its use-list as it was. (Dropping and re-adding each user's uses
  // rescanned the use-lists of all its inputs: quadratic when a size node read by thousands of
  // nodes was among them, a tenth of a dynamic 405B export.)
  std::vector<Node*> users = std::move(from->users_);
  from->users_.clear();
  for (Node* u : users) {
    // Whether u is already among `to`'s users: asked of u's few arguments, not `to`'s long list.
    bool uses_to = false;
    for (const NodeArg& a : u->args_) for_each_node(a, [&](Node* in) { uses_to |= in == to; });
    // A symbolic int argument names its sym node through a handle: re-point it with a new handle.
    auto repoint = [&](SymInt& s) {
      if (graph_node_of(s) == from) s = s.node()->env->make_handle(s, to);
    };
    for (NodeArg& a : u->args_) {
      if (auto* p = std::get_if<Node*>(&a); p && *p == from) *p = to;
      if (auto* l = std::get_if<std::vector<Node*>>(&a)) std::replace(l->begin(), l->end(), from, to);
      if (auto* si = std::get_if<SymInt>(&a)) repoint(*si);
      if (auto* sl = std::get_if<std::vector<SymInt>>(&a))
        for (SymInt& x : *sl) repoint(x);
    }
    if (!uses_to) to->users_.push_back(u);
  }
  FE_INTERNAL_ASSERT(from->users_.empty(), "users left after replace_all_uses_with");
}

void Graph::rename_fresh(Node* n, std::string_view base) {
  FE_INTERNAL_ASSERT(n->op_ != NodeOp::Placeholder, "rename_fresh: placeholder '", n->name_, "'");
  ++edits_;
  n->name_ = unique_name(base);
}

void Graph::set_name(Node* n, std::string_view name) {
  if (n->name_ == name) return;
  ++edits_;
  FE_INTERNAL_ASSERT(!names_.taken(name), "set_name: '", name, "' is already taken");
  names_.release(n->name_);
  if (n->op_ == NodeOp::Placeholder && n->target_name_.empty()) n->target_name_ = n->name_;
  n->name_ = std::string(name);
  names_.take(n->name_);
  if (n->target_name_ == n->name_) n->target_name_.clear();
}

size_t Graph::erase_unused(const std::function<bool(const Node&)>& dead) {
  std::vector<bool> gone(nodes_.size());
  size_t erased = 0;
  for (size_t i = nodes_.size(); i-- > 0;) {
    Node* n = nodes_[i].get();
    if (!n->users_.empty() || !dead(*n)) continue;
    drop_uses(n);  // its inputs may become unused in turn: they come earlier in this pass
    names_.release(n->name_);
    gone[i] = true;
    ++erased;
  }
  if (!erased) return 0;
  ++edits_;
  size_t k = 0;
  std::erase_if(nodes_, [&](const auto&) { return gone[k++]; });
  return erased;
}

void Graph::erase(Node* n, bool keep_name) {
  FE_INTERNAL_ASSERT(n->users_.empty(), "erasing node '", n->name_, "' which still has ", n->users_.size(), " users");
  ++edits_;
  drop_uses(n);
  if (!keep_name) names_.release(n->name_);
  std::erase_if(nodes_, [&](const auto& p) { return p.get() == n; });
}

void Graph::move_before(Node* n, Node* before) {
  if (n == before) return;
  ++edits_;
  const auto find = [&](const Node* x) {
    auto it = std::find_if(nodes_.begin(), nodes_.end(), [&](const auto& p) { return p.get() == x; });
    FE_INTERNAL_ASSERT(it != nodes_.end(), "move_before: node '", x->name_, "' is not in this graph");
    return it;
  };
  auto from = find(n);
  std::unique_ptr<Node> held = std::move(*from);
  nodes_.erase(from);
  auto to = find(before);
  for (auto it = to; it != nodes_.end(); ++it)
    for (const Node* in : n->inputs())
      FE_INTERNAL_ASSERT(it->get() != in, "move_before: node '", n->name_, "' would come before its input '", in->name_, "'");
  nodes_.insert(to, std::move(held));
}

void Graph::reorder_placeholders(const std::vector<Node*>& order) {
  size_t head = 0;
  while (head < nodes_.size() && nodes_[head]->op() == NodeOp::Placeholder) ++head;
  FE_INTERNAL_ASSERT(order.size() == head, "reorder_placeholders: ", order.size(), " given for ", head);
  ++edits_;
  std::unordered_map<const Node*, size_t> at;
  for (size_t i = 0; i < head; ++i) at.emplace(nodes_[i].get(), i);
  std::vector<std::unique_ptr<Node>> moved;
  moved.reserve(head);
  for (Node* n : order) {
    auto it = at.find(n);
    FE_INTERNAL_ASSERT(it != at.end() && nodes_[it->second], "reorder_placeholders: '", n->name(), "' is not a placeholder or is given twice");
    moved.push_back(std::move(nodes_[it->second]));
  }
  for (size_t i = 0; i < head; ++i) nodes_[i] = std::move(moved[i]);
}

void Graph::renumber_names() {
  ++edits_;
  names_.clear();
  for (auto& n : nodes_) {
    if (n->op_ == NodeOp::Placeholder || n->op_ == NodeOp::Output || n->op_ == NodeOp::GetAttr) {
      names_.take(n->name_);
      continue;
    }
    std::string_view base = n->name_;
    const size_t us = base.rfind('_');
    if (us != std::string_view::npos && us + 1 < base.size() &&
        std::all_of(base.begin() + static_cast<long>(us) + 1, base.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }))
      base = base.substr(0, us);
    n->name_ = unique_name(std::string(base));
  }
}

std::vector<Node*> Graph::placeholders() const {
  std::vector<Node*> out;
  for (const auto& n : nodes_)
    if (n->op() == NodeOp::Placeholder) out.push_back(n.get());
  return out;
}

Node* Graph::output_node() const {
  return !nodes_.empty() && nodes_.back()->op() == NodeOp::Output ? nodes_.back().get() : nullptr;
}

void Graph::lint() const {
  // One inputs() per node; positions are marked on the nodes instead of kept in a pointer map.
  static std::atomic<uint64_t> passes{0};
  const uint64_t pass = (passes.fetch_add(1, std::memory_order_relaxed) + 1) << 32;
  FE_INTERNAL_ASSERT(nodes_.size() < (uint64_t{1} << 32) - 1, "lint: too many nodes");
  for (size_t i = 0; i < nodes_.size(); ++i) nodes_[i]->lint_mark_ = pass | (i + 1);
  // Defined earlier in this graph: marked by this pass, at a smaller position.
  auto before = [&](const Node* in, size_t i) { return (in->lint_mark_ >> 32) == (pass >> 32) && (in->lint_mark_ & 0xffffffffu) <= i; };
  // Names seen so far: an open-addressed table of node positions (one allocation, not one per node).
  size_t cap = 16;
  while (cap < 2 * nodes_.size()) cap *= 2;
  std::vector<uint32_t> names(cap, 0);  // position + 1; 0: empty
  const auto fresh_name = [&](size_t i) {
    const std::string& name = nodes_[i]->name();
    for (size_t h = std::hash<std::string_view>{}(name) & (cap - 1);; h = (h + 1) & (cap - 1)) {
      if (names[h] == 0) {
        names[h] = static_cast<uint32_t>(i + 1);
        return true;
      }
      if (nodes_[names[h] - 1]->name() == name) return false;
    }
  };
  // Every (input, user) edge, bucketed by the input's position (a counting sort: O(N + E)): each
  // node's use-list must be exactly its bucket (no user missing, none extra, none twice), without
  // scanning each listed user's arguments (a size node read by every layer has thousands of users).
  // Within a bucket the users come in graph order.
  std::vector<std::pair<uint32_t, const Node*>> edges;
  edges.reserve(nodes_.size() * 3);
  bool past_placeholders = false;
  std::vector<Node*> ins;  // one buffer for every node's distinct inputs
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node* n = nodes_[i].get();
    FE_INTERNAL_ASSERT(fresh_name(i), "lint: duplicate node name '", n->name(), "'");
    if (n->op() == NodeOp::Placeholder) {
      FE_INTERNAL_ASSERT(!past_placeholders, "lint: placeholder '", n->name(), "' after non-placeholder nodes");
    } else {
      past_placeholders = true;
    }
    FE_INTERNAL_ASSERT(n->op() != NodeOp::Output || i + 1 == nodes_.size(), "lint: output node is not last");
    FE_INTERNAL_ASSERT(n->op() != NodeOp::CallFunction || n->target(), "lint: call_function '", n->name(),
                       "' without target");
    n->inputs_into(ins);
    FE_INTERNAL_ASSERT(n->op() != NodeOp::GetItem || (n->args().size() == 1 && ins.size() == 1 && ins[0]->multi_output()),
                       "lint: getitem '", n->name(), "' must take one multi-output node");
    for (const Node* in : ins) {
      FE_INTERNAL_ASSERT(n->op() == NodeOp::GetItem || !in->multi_output(), "lint: '", n->name(),
                         "' uses multi-output '", in->name(), "' directly instead of through getitem");
      FE_INTERNAL_ASSERT(before(in, i), "lint: node '", n->name(), "' uses '", in->name(), "' before its definition");
      edges.emplace_back(static_cast<uint32_t>((in->lint_mark_ & 0xffffffffu) - 1), n);
    }
  }
  std::vector<uint32_t> start(nodes_.size() + 1, 0);
  for (const auto& [at, user] : edges) ++start[at + 1];
  for (size_t i = 0; i < nodes_.size(); ++i) start[i + 1] += start[i];
  std::vector<const Node*> by_input(edges.size());
  {
    std::vector<uint32_t> next(start.begin(), start.end() - 1);
    for (const auto& [at, user] : edges) by_input[next[at]++] = user;
  }
  // A node's position in the graph (users are compared in graph order).
  auto pos = [](const Node* u) { return u->lint_mark_ & 0xffffffffu; };
  std::vector<const Node*> users;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node* n = nodes_[i].get();
    users.assign(n->users().begin(), n->users().end());
    for (const Node* u : users)
      FE_INTERNAL_ASSERT(before(u, nodes_.size()), "lint: '", n->name(), "' lists user '", u->name(),
                         "' which is not in this graph");
    std::sort(users.begin(), users.end(), [&](const Node* x, const Node* y) { return pos(x) < pos(y); });
    const auto dup = std::adjacent_find(users.begin(), users.end());
    FE_INTERNAL_ASSERT(dup == users.end(), "lint: '", n->name(), "' lists user '", (dup == users.end() ? n : *dup)->name(), "' twice");
    const size_t lo = start[i], count = start[i + 1] - lo;
    for (size_t k = 0; k < count; ++k) {
      FE_INTERNAL_ASSERT(k < users.size() && users[k] == by_input[lo + k], "lint: '", n->name(),
                         "' does not list user '", by_input[lo + k]->name(), "' (or lists one that does not use it)");
    }
    FE_INTERNAL_ASSERT(count == users.size(), "lint: '", n->name(), "' lists user '",
                       users[std::min(count, users.size() - 1)]->name(), "' which does not use it");
  }
  FE_INTERNAL_ASSERT(output_node(), "lint: graph has no output node");
}

}  // namespace fe
