// See grad_regions.h.
#include "export/grad_regions.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "fakeexport/core/error.h"
#include "fakeexport/sym/shape_env.h"

namespace fe::detail {
namespace {

/// `a` with every node replaced through `m` (sym handles re-pointed at the new node).
NodeArg remap(const NodeArg& a, const std::unordered_map<Node*, Node*>& m) {
  auto node = [&](Node* n) -> Node* {
    if (!n) return n;
    auto it = m.find(n);
    FE_INTERNAL_ASSERT(it != m.end(), "outline: node '", n->name(), "' has no counterpart in the subgraph");
    return it->second;
  };
  auto sym = [&](const SymInt& s) -> SymInt {
    Node* n = graph_node_of(s);
    return n ? s.node()->env->make_handle(s, node(n)) : s;
  };
  if (auto* n = std::get_if<Node*>(&a)) return node(*n);
  if (auto* l = std::get_if<std::vector<Node*>>(&a)) {
    std::vector<Node*> out;
    for (Node* n : *l) out.push_back(node(n));
    return out;
  }
  if (auto* s = std::get_if<SymInt>(&a)) return sym(*s);
  if (auto* l = std::get_if<std::vector<SymInt>>(&a)) {
    std::vector<SymInt> out;
    for (const SymInt& s : *l) out.push_back(sym(s));
    return out;
  }
  return a;
}

void copy_meta(const Node& from, Node& to) {
  to.val = from.val;
  to.sym_val = from.sym_val;
  to.loc = from.loc;
  to.module_stack = from.module_stack;
  to.stack_trace = from.stack_trace;
  to.arg_given = from.arg_given;
  to.serialized_meta = from.serialized_meta;
}

/// Outlines region `r`; returns the node now where its last node was (the call's last getitem, or
/// the call), null when the region was empty.
Node* outline(Graph& g, const GradRegion& r, const std::string& name, const std::string& attr_node_name) {
  std::vector<Node*> range;
  bool inside = r.before == nullptr;
  for (const auto& up : g.nodes()) {
    Node* n = up.get();
    if (inside) range.push_back(n);
    if (n == r.before) inside = true;
    if (n == r.last) break;
  }
  if (range.empty()) return nullptr;
  const std::unordered_set<Node*> in(range.begin(), range.end());
  std::vector<Node*> operands, outputs;
  for (Node* n : range) {
    for (Node* x : n->inputs())
      if (!in.count(x) && std::find(operands.begin(), operands.end(), x) == operands.end()) operands.push_back(x);
    for (Node* u : n->users())
      if (!in.count(u)) {
        outputs.push_back(n);
        break;
      }
  }

  Graph& sub = g.add_subgraph(name);
  std::unordered_map<Node*, Node*> m;
  for (Node* o : operands) {
    Node* p = sub.placeholder(o->name(), o->val.empty() ? TensorMeta{} : o->val[0]);
    p->val = o->val;
    p->sym_val = o->sym_val;
    m[o] = p;
  }
  for (Node* n : range) {
    std::vector<NodeArg> args;
    for (const NodeArg& a : n->args()) args.push_back(remap(a, m));
    Node* c = nullptr;
    switch (n->op()) {
      case NodeOp::CallFunction: c = sub.call(*n->target(), std::move(args)); break;
      case NodeOp::GetItem: c = sub.getitem(std::get<Node*>(args.at(0)), n->index()); break;
      case NodeOp::SymOp: c = sub.sym_op(n->py_op(), std::move(args), n->sym_val); break;
      default:
        throw UnknownOpError(detail::cat("export: node '", n->name(), "' inside a torch.no_grad() region is not ",
                                         "outlined into wrap_with_set_grad_enabled yet"));
    }
    copy_meta(*n, *c);
    sub.set_name(c, n->name());
    m[n] = c;
  }
  std::vector<Node*> outs;
  for (Node* o : outputs) outs.push_back(m.at(o));
  sub.output(outs);

  // The call, where the region was; no stack trace (PyTorch's pass makes it).
  Node* first = range.front();
  Node* attr = g.get_attr(name, first);
  g.set_name(attr, attr_node_name);
  attr->module_stack = first->module_stack;  // _replace_with_hop_helper: the block's nn_module_stack
  std::vector<NodeArg> call_args{r.enabled, attr};
  for (Node* o : operands) call_args.emplace_back(o);
  std::vector<TensorMeta> vals;
  for (Node* o : outputs) vals.push_back(o->val.at(0));
  static const Callable& hop = *find_callable("torch.ops.higher_order.wrap_with_set_grad_enabled");
  Node* call = g.call_other(hop, std::move(call_args), {}, 0, true, std::move(vals), {}, first);
  call->module_stack = first->module_stack;  // the module whose forward ran under no_grad
  std::vector<Node*> items;
  for (size_t k = 0; k < outputs.size(); ++k) {
    Node* gi = g.getitem(call, static_cast<int64_t>(k), first);
    gi->val = outputs[k]->val;
    gi->module_stack = outputs[k]->module_stack;  // the getitem takes the output's meta
    g.replace_all_uses_with(outputs[k], gi);
    items.push_back(gi);
  }
  // In one pass (last first, as erasing each would): one compaction of the node list, not one per node.
  const size_t erased = g.erase_unused([&](const Node& n) { return in.count(const_cast<Node*>(&n)) > 0; });
  FE_INTERNAL_ASSERT(erased == range.size(), "outline_grad_regions: ", range.size() - erased,
                     " nodes of the region are still used outside it");
  // The getitems take the names of the values they return (their nodes are gone from here).
  for (size_t k = 0; k < outputs.size(); ++k) g.set_name(items[k], outs[k]->name());
  return items.empty() ? call : items.back();
}

/// How many getitem nodes split_module makes: one per output of each part that has several
/// (values used in a later part or returned). Parts alternate: before region 0, region 0, ...
size_t split_getitems(const Graph& g, const std::vector<GradRegion>& regions) {
  std::unordered_map<const Node*, size_t> part;
  size_t p = 0, k = 0;
  bool inside = false;
  if (!regions.empty() && regions[0].before == nullptr) inside = true, p = 1;
  for (const auto& up : g.nodes()) {
    const Node* n = up.get();
    if (n->op() != NodeOp::Placeholder && n->op() != NodeOp::Output && n->op() != NodeOp::GetAttr) part[n] = p;
    if (k < regions.size() && !inside && n == regions[k].before) inside = true, p = 2 * k + 1;
    else if (k < regions.size() && inside && n == regions[k].last) inside = false, p = 2 * ++k;
  }
  std::vector<size_t> outputs(2 * regions.size() + 1, 0);
  for (const auto& [n, q] : part) {
    for (const Node* u : n->users()) {
      auto it = part.find(u);
      if (it == part.end() || it->second != q) {
        ++outputs[q];
        break;
      }
    }
  }
  size_t items = 0;
  for (size_t c : outputs) items += c > 1 ? c : 0;
  return items;
}

/// The names FX gives when the parts around the regions are inlined back into the split graph: its
/// namespace already holds the placeholders, the call_module nodes submod_0.. and split_module's
/// getitem .. getitem_<items-1>, so an inlined `getitem` becomes `getitem_<items>`, and so on.
void rename_as_inlined(Graph& g, size_t parts, size_t items) {
  Graph ns;  // a scratch namespace
  for (Node* p : g.placeholders()) ns.unique_name(p->name());
  for (size_t k = 0; k < parts; ++k) ns.unique_name("submod_" + std::to_string(k));
  for (size_t k = 0; k < items; ++k) ns.unique_name("getitem");
  std::vector<std::pair<Node*, std::string>> renamed;
  for (const auto& up : g.nodes()) {
    Node* n = up.get();
    if (n->op() == NodeOp::Placeholder || n->op() == NodeOp::Output) continue;
    std::string name = ns.unique_name(n->name());
    if (name != n->name()) renamed.emplace_back(n, std::move(name));
  }
  // Through temporary names: a new name may still be held by a later node.
  for (size_t k = 0; k < renamed.size(); ++k) g.set_name(renamed[k].first, "__fe_renaming_" + std::to_string(k));
  for (auto& [n, name] : renamed) g.set_name(n, name);
}

}  // namespace

void outline_grad_regions(Graph& g, const std::vector<GradRegion>& regions) {
  if (regions.empty()) return;
  // split_module leaves call_module nodes submod_0 .. submod_<2R> in the graph while the pass adds
  // the get_attr nodes, which FX therefore names submod_<2R+1>, ... (torch.export.load names them
  // after the attribute again).
  const size_t parts = 2 * regions.size() + 1;
  // Inlining renames a node only after one takes a name split_module's namespace already holds
  // (submod_<k>, getitem_<k>); a graph with no node of those bases keeps every name, and the
  // two whole-graph passes are skipped (most models: 126 layers of Llama have no getitem).
  bool may_rename = false;
  for (const auto& up : g.nodes())
    if (up->name().starts_with("getitem") || up->name().starts_with("submod")) {
      may_rename = true;
      break;
    }
  const size_t items = may_rename ? split_getitems(g, regions) : 0;
  std::vector<GradRegion> rs = regions;
  for (size_t k = 0; k < rs.size(); ++k) {
    Node* replaced = outline(g, rs[k], "submod_" + std::to_string(2 * k + 1), "submod_" + std::to_string(parts + k));
    // A region opened right after this one ended (two no_grad calls in a row, Gemma 3's rotary
    // pairs) starts after the node that took this one's last node's place.
    if (replaced && k + 1 < rs.size() && rs[k + 1].before == rs[k].last) rs[k + 1].before = replaced;
  }
  if (may_rename) rename_as_inlined(g, parts, items);
}

}  // namespace fe::detail
