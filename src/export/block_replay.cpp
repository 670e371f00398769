// Replaying repeated blocks (export/block_replay.h).
#include "export/block_replay.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace fe::detail {
namespace {

constexpr uint32_t kMade = 0u << 29, kInput = 1u << 29, kSlot = 2u << 29, kShared = 3u << 29, kPrev = 4u << 29,
                   kTag = 7u << 29;

/// Visits every node argument (null entries of a `Tensor?[]` included) in argument order.
template <class F>
void for_each_ref(const std::vector<NodeArg>& args, F&& f) {
  for (const NodeArg& a : args) {
    if (auto* n = std::get_if<Node*>(&a)) f(*n);
    else if (auto* l = std::get_if<std::vector<Node*>>(&a))
      for (Node* n : *l) f(n);
  }
}

/// Whether every symbolic int of `a` names a graph node (a handle): a node made before the block
/// (a batch size every layer reads, `sym_size_int_12`) is copied as it is, one of the block's own
/// (a size read from a tensor the block made) re-targeted to its counterpart.
bool handled_ints(const NodeArg& a) {
  const auto ok = [](const SymInt& x) { return !x.is_symbolic() || graph_node_of(x); };
  if (const auto* s = std::get_if<SymInt>(&a)) return ok(*s);
  if (const auto* l = std::get_if<std::vector<SymInt>>(&a)) return std::all_of(l->begin(), l->end(), ok);
  return true;
}

/// Equal ints: the same constants, or symbolic values naming the same graph node.
bool same_ints(const std::vector<SymInt>& a, const std::vector<SymInt>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].is_symbolic() != b[i].is_symbolic() || a[i].hint() != b[i].hint()) return false;
    if (a[i].is_symbolic() && graph_node_of(a[i]) != graph_node_of(b[i])) return false;
  }
  return true;
}

bool same_loc(const std::optional<SrcLocArg>& a, const std::optional<SrcLocArg>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  return a->line() == b->line() && a->column() == b->column() && std::strcmp(a->file_name(), b->file_name()) == 0 &&
         std::strcmp(a->function_name(), b->function_name()) == 0;
}

/// A record's terms re-targeted to another call: its nodes to `made` (those made for that call so
/// far, or another record's), its inputs, parameters, device and module path to the call's.
class Retarget {
 public:
  Retarget(const BlockRecord& rec, const BlockCall& to, const std::vector<Node*>& made, const std::vector<Node*>& prev)
      : rec_(rec), to_(to), made_(made), prev_(prev) {
    for (const auto& s : rec.stacks) stacks_.push_back(stack(s));
  }
  Device device(Device d) const { return d == rec_.call.device ? to_.device : d; }
  /// Node k's module stack, re-targeted.
  const std::shared_ptr<const ModuleStack>& stack_of(size_t k) const { return stacks_[rec_.stack_of[k]]; }
  /// Node k's arguments, re-targeted, into `out` (cleared first).
  void args(size_t k, std::vector<NodeArg>& out) const {
    const Node& src = *rec_.nodes[k];
    out.clear();
    out.reserve(src.args().size());
    const uint32_t* ref = rec_.refs.data() + rec_.node_refs[k];
    // A null node argument is an absent optional tensor: it stays null.
    for (const NodeArg& a : src.args()) {
      if (const auto* n = std::get_if<Node*>(&a)) {
        out.emplace_back(*n ? resolve(*ref) : nullptr);
        ++ref;
      } else if (const auto* l = std::get_if<std::vector<Node*>>(&a)) {
        std::vector<Node*> nodes(l->size());
        for (size_t j = 0; j < l->size(); ++j, ++ref) nodes[j] = (*l)[j] ? resolve(*ref) : nullptr;
        out.emplace_back(std::move(nodes));
      } else if (const auto* d = std::get_if<Device>(&a)) {
        out.emplace_back(device(*d));
      } else if (const auto* s = std::get_if<SymInt>(&a)) {
        out.emplace_back(handle(*s));
      } else if (const auto* l = std::get_if<std::vector<SymInt>>(&a)) {
        std::vector<SymInt> v(*l);
        for (SymInt& x : v) x = handle(x);
        out.emplace_back(std::move(v));
      } else {
        out.push_back(a);
      }
    }
  }

 private:
  Node* resolve(uint32_t ref) const {
    const uint32_t i = ref & ~kTag;
    switch (ref & kTag) {
      case kMade: return made_[i];
      case kInput: return to_.inputs[i];
      case kSlot: return to_.slots[i];
      case kPrev: return prev_[i];
      default: return rec_.shared[i];  // shared by every block: the rotary pair, a size
    }
  }
  /// A symbolic int naming one of the record's nodes names its counterpart instead (a handle of
  /// its own, as a trace makes one per argument).
  SymInt handle(const SymInt& x) const {
    if (!x.is_symbolic()) return x;
    const auto it = rec_.made_index.find(graph_node_of(x));
    return it == rec_.made_index.end() ? x : x.node()->env->make_handle(x, made_[it->second]);
  }
  std::shared_ptr<const ModuleStack> stack(const std::shared_ptr<const ModuleStack>& s) const {
    if (!s) return s;
    auto out = std::make_shared<ModuleStack>(*s);
    const std::string& from = rec_.call.path;
    for (ModuleFrame& f : *out)
      if (f.path.starts_with(from) && (f.path.size() == from.size() || f.path[from.size()] == '.'))
        f.path = to_.path + f.path.substr(from.size());
    return out;
  }

  const BlockRecord& rec_;
  const BlockCall& to_;
  const std::vector<Node*>& made_;
  const std::vector<Node*>& prev_;
  std::vector<std::shared_ptr<const ModuleStack>> stacks_;
};

bool same_arg(const NodeArg& a, const NodeArg& b) {
  if (a.index() != b.index()) return false;
  switch (kind_of(a)) {
    case ValueKind::Int: return same_ints({std::get<SymInt>(a)}, {std::get<SymInt>(b)});
    case ValueKind::IntList: return same_ints(std::get<std::vector<SymInt>>(a), std::get<std::vector<SymInt>>(b));
    case ValueKind::Tensor: return std::get<Node*>(a) == std::get<Node*>(b);
    case ValueKind::TensorList: return std::get<std::vector<Node*>>(a) == std::get<std::vector<Node*>>(b);
    case ValueKind::Opaque: {
      const Opaque& x = std::get<Opaque>(a);
      const Opaque& y = std::get<Opaque>(b);
      return x == y || (x && y && *x == *y);
    }
    case ValueKind::None: return true;
    case ValueKind::Bool: return std::get<bool>(a) == std::get<bool>(b);
    case ValueKind::Double: return std::get<double>(a) == std::get<double>(b);
    case ValueKind::String: return std::get<std::string>(a) == std::get<std::string>(b);
    case ValueKind::DType: return std::get<DType>(a) == std::get<DType>(b);
    case ValueKind::Layout: return std::get<Layout>(a) == std::get<Layout>(b);
    case ValueKind::Device: return std::get<Device>(a) == std::get<Device>(b);
    case ValueKind::MemoryFormat: return std::get<MemoryFormat>(a) == std::get<MemoryFormat>(b);
    case ValueKind::FloatList: return std::get<std::vector<double>>(a) == std::get<std::vector<double>>(b);
    case ValueKind::BoolList: return std::get<std::vector<bool>>(a) == std::get<std::vector<bool>>(b);
  }
  return false;
}

}  // namespace

std::optional<BlockRecord> make_block_record(const Graph& g, size_t first, BlockCall call,
                                             const std::vector<Graph::NameTaken>& names,
                                             const std::vector<Node*>& results, const std::vector<Node*>& prev) {
  BlockRecord rec;
  rec.call = std::move(call);
  auto& index = rec.made_index;
  for (size_t i = first; i < g.nodes().size(); ++i) {
    Node* n = g.nodes()[i].get();
    // Plain calls, their getitems and size arithmetic (`sym_size_int`, `mul`: sizes the block reads
    // from its own tensors), every symbolic argument naming its node: what a replay copies faithfully.
    if (n->op() != NodeOp::CallFunction && n->op() != NodeOp::GetItem && n->op() != NodeOp::SymOp) return std::nullopt;
    if (n->constant || !std::all_of(n->args().begin(), n->args().end(), handled_ints)) return std::nullopt;
    index.emplace(n, static_cast<uint32_t>(rec.nodes.size()));
    rec.nodes.push_back(n);
  }
  size_t k = 0;
  for (const Graph::NameTaken& t : names) {
    const bool is_node = k < rec.nodes.size() && rec.nodes[k]->name() == t.name;
    rec.names.push_back({t.candidate, is_node ? static_cast<int32_t>(k++) : -1});
  }
  if (k != rec.nodes.size()) return std::nullopt;
  for (Node* r : results) {
    auto it = index.find(r);
    if (it == index.end()) return std::nullopt;
    rec.outputs.push_back(it->second);
  }
  std::unordered_map<const Node*, uint32_t> external, shared, previous;
  for (size_t i = 0; i < prev.size(); ++i) previous.try_emplace(prev[i], static_cast<uint32_t>(i));
  for (size_t i = 0; i < rec.call.inputs.size(); ++i)
    if (rec.call.inputs[i]) external.try_emplace(rec.call.inputs[i], kInput | static_cast<uint32_t>(i));
  for (size_t i = 0; i < rec.call.slots.size(); ++i) external.try_emplace(rec.call.slots[i], kSlot | static_cast<uint32_t>(i));
  std::unordered_map<const ModuleStack*, uint32_t> stack_ids;
  for (const Node* n : rec.nodes) {
    rec.node_refs.push_back(static_cast<uint32_t>(rec.refs.size()));
    for_each_ref(n->args(), [&](Node* in) {
      if (auto i = index.find(in); i != index.end()) return rec.refs.push_back(kMade | i->second);
      if (auto e = external.find(in); e != external.end()) return rec.refs.push_back(e->second);
      if (auto p = previous.find(in); p != previous.end()) return rec.refs.push_back(kPrev | p->second);
      auto [it, fresh] = shared.try_emplace(in, kShared | static_cast<uint32_t>(rec.shared.size()));
      if (fresh) rec.shared.push_back(in);
      rec.refs.push_back(it->second);
    });
    auto [it, fresh] = stack_ids.try_emplace(n->module_stack.get(), static_cast<uint32_t>(rec.stacks.size()));
    if (fresh) rec.stacks.push_back(n->module_stack);
    rec.stack_of.push_back(it->second);
  }
  rec.node_refs.push_back(static_cast<uint32_t>(rec.refs.size()));
  return rec;
}

bool same_block_record(const BlockRecord& earlier, const BlockRecord& later) {
  if (earlier.nodes.size() != later.nodes.size() || earlier.names.size() != later.names.size() ||
      earlier.outputs != later.outputs || earlier.call.inputs.size() != later.call.inputs.size() ||
      earlier.call.slots.size() != later.call.slots.size())
    return false;
  for (size_t i = 0; i < earlier.names.size(); ++i)
    if (earlier.names[i].candidate != later.names[i].candidate || earlier.names[i].node != later.names[i].node)
      return false;
  const Retarget sub(earlier, later.call, later.nodes, earlier.nodes);
  std::vector<NodeArg> args;
  for (size_t i = 0; i < earlier.nodes.size(); ++i) {
    const Node& a = *earlier.nodes[i];
    const Node& b = *later.nodes[i];
    if (!Graph::same_call(a, b) || !same_loc(a.loc, b.loc) || a.stack_trace != b.stack_trace ||
        a.serialized_meta != b.serialized_meta || a.arg_given != b.arg_given || a.out_elems.size() != b.out_elems.size() ||
        !b.out_elems.empty() || a.args().size() != b.args().size() || a.val.size() != b.val.size() ||
        a.sym_val.has_value() != b.sym_val.has_value() || (a.sym_val && !a.sym_val->same_as(*b.sym_val)))
      return false;
    sub.args(i, args);
    for (size_t j = 0; j < args.size(); ++j)
      if (!same_arg(args[j], b.args()[j])) return false;
    for (size_t j = 0; j < a.val.size(); ++j) {
      TensorMeta m = a.val[j];
      m.device = sub.device(m.device);
      if (!(m == b.val[j])) return false;
    }
    const auto& sa = sub.stack_of(i);
    if (!sa != !b.module_stack || (sa && *sa != *b.module_stack)) return false;
  }
  return true;
}

std::vector<Node*> replay_block(Graph& g, const BlockRecord& rec, const BlockCall& to, const std::vector<Node*>& prev) {
  std::vector<Node*> made;
  made.reserve(rec.nodes.size());
  const Retarget sub(rec, to, made, prev);
  std::vector<NodeArg> args;
  for (const BlockRecord::Name& name : rec.names) {
    if (name.node < 0) {
      (void)g.unique_name(name.candidate);
      continue;
    }
    const size_t k = static_cast<size_t>(name.node);
    sub.args(k, args);
    Node* n = g.append_like(*rec.nodes[k], std::move(args), name.candidate);
    for (TensorMeta& m : n->val) m.device = sub.device(m.device);
    n->module_stack = sub.stack_of(k);
    made.push_back(n);
  }
  return made;
}

}  // namespace fe::detail
