// Retarget (export/retarget.h): devices through the map, then metadata re-derived node by node in
// graph order from the moved inputs, so a stride the target's meta functions give differently
// (fused CPU attention returns empty_like(query); elsewhere the math path is contiguous) flows on
// to the views after it, exactly as tracing on the target would have recorded it.
#include "fakeexport/export/retarget.h"

#include <algorithm>
#include <unordered_set>

#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/ops/registry.h"

namespace fe {

Device DeviceMap::operator()(const Device& d) const {
  const Device n = d.normalized();
  for (const auto& [from, to] : pairs)
    if (from.normalized() == n) return to.normalized();
  return all ? all->normalized() : n;
}

std::vector<std::pair<Device, Device>> DeviceMap::parse_pairs(std::string_view s) {
  std::vector<std::pair<Device, Device>> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = std::min(s.find(',', start), s.size());
    const std::string_view item = s.substr(start, end - start);
    const size_t eq = item.find('=');
    FE_CHECK(eq != std::string_view::npos && eq > 0 && eq + 1 < item.size(), ValueError, "--map: expected FROM=TO, got '",
             item, "' in '", s, "'");
    try {
      out.emplace_back(Device::parse(item.substr(0, eq)), Device::parse(item.substr(eq + 1)));
    } catch (const UserError& e) {
      rethrow_with_prefix(e, "--map: ");
    }
    start = end + 1;
  }
  return out;
}

std::vector<const Node*> self_moved_constant(const Node& placeholder) {
  std::vector<const Node*> keep{&placeholder};
  bool moved = false;
  for (size_t i = 0; i < keep.size(); ++i)
    for (const Node* u : keep[i]->users()) {
      if (u->op() != NodeOp::CallFunction || !u->target()) return {};
      const std::string& name = u->target()->schema.name;
      const bool first_arg = !u->args().empty() && std::holds_alternative<Node*>(u->args()[0]) &&
                             std::get<Node*>(u->args()[0]) == keep[i];
      if (!first_arg) return {};
      if (name == "lift_fresh_copy" || name == "detach_" || name == "detach" || name == "clone" ||
          name == "_assert_tensor_metadata") {
        if (std::find(keep.begin(), keep.end(), u) == keep.end()) keep.push_back(u);
      } else if ((name == "to" || name == "_to_copy") &&
                 std::any_of(u->args().begin(), u->args().end(), [](const NodeArg& a) { return std::holds_alternative<Device>(a); })) {
        moved = true;
      } else {
        return {};
      }
    }
  if (!moved) return {};
  return keep;
}

namespace {

class Retargeter {
 public:
  Retargeter(ExportedProgram& ep, const DeviceMap& map) : ep_(ep), map_(map) {}

  RetargetReport run() {
    // Constants the program moves itself stay where export made them (see self_moved_constant).
    std::unordered_set<std::string> stay;
    const auto phs = ep_.graph.placeholders();
    for (size_t i = 0; i < phs.size() && i < ep_.signature.inputs.size(); ++i) {
      const InputSpec& s = ep_.signature.inputs[i];
      if (s.kind != InputKind::ConstantTensor) continue;
      const std::vector<const Node*> nodes = self_moved_constant(*phs[i]);
      if (nodes.empty()) continue;
      stay.insert(s.target);
      keep_.insert(nodes.begin(), nodes.end());
    }
    for (auto& [name, t] : ep_.state_dict) t = moved(t);
    for (auto& [name, t] : ep_.constants)
      if (!stay.count(name)) t = moved(t);
    graph(ep_.graph);
    return r_;
  }

 private:
  /// The same tensor (same bytes, if any) recorded on its mapped device.
  Tensor moved(const Tensor& t) {
    if (!t.defined() || map_(t.device()) == t.device()) return t;
    auto impl = std::make_shared<TensorImpl>(*t.impl());
    impl->meta.device = map_(t.device());
    if (impl->view_base) impl->view_base = moved(Tensor(impl->view_base)).impl_ptr();
    ++r_.state;
    return Tensor(std::move(impl));
  }

  void graph(Graph& g) {
    std::vector<Node*> noop_contiguous;
    for (const auto& up : g.nodes()) {
      Node& n = *up;
      if (keep_.count(&n)) continue;
      for (TensorMeta& m : n.val)
        if (const Device d = map_(m.device); d != m.device) {
          m.device = d;
          ++r_.tensors;
        }
      if (n.op() == NodeOp::CallFunction || n.op() == NodeOp::CallOther) move_device_args(g, n);
      if (n.op() == NodeOp::CallFunction && n.target() && n.target()->meta && !n.sym_val && rederive(n))
        noop_contiguous.push_back(&n);
      if (n.op() == NodeOp::GetItem) follow_producer(n);
    }
    drop_noop_contiguous(g, noop_contiguous);
    for (const auto& [name, sub] : g.subgraphs()) graph(*sub);
  }

  /// `x.contiguous()` on a tensor already contiguous returns x, and export records nothing: a
  /// fused kernel whose output layout differs on the target (CUDA attention writes (B, L, H, D),
  /// so its transpose is contiguous) leaves such a node behind. It goes, and the remaining
  /// `contiguous` nodes are renumbered as tracing on the target would have named them.
  void drop_noop_contiguous(Graph& g, const std::vector<Node*>& noop) {
    if (noop.empty()) return;
    for (Node* n : noop) {
      auto* in = std::get_if<Node*>(&n->args()[0]);
      if (!in || !*in) continue;
      g.replace_all_uses_with(n, *in);
      g.erase(n);
      ++r_.dropped;
    }
    std::vector<Node*> rest;
    for (const auto& up : g.nodes())
      if (up->op() == NodeOp::CallFunction && up->target() && is_contiguous_op(*up->target())) rest.push_back(up.get());
    for (size_t i = 0; i < rest.size(); ++i) g.set_name(rest[i], "__fe_renumber_" + std::to_string(i));
    for (size_t i = 0; i < rest.size(); ++i) g.set_name(rest[i], i ? "contiguous_" + std::to_string(i) : "contiguous");
  }

  static bool is_contiguous_op(const OpDef& op) {
    return op.schema.ns == "aten" && op.schema.name == "contiguous" && (op.schema.overload.empty() || op.schema.overload == "default");
  }

  void move_device_args(Graph& g, Node& n) {
    bool changed = false;
    std::vector<NodeArg> args = n.args();
    for (NodeArg& a : args)
      if (auto* d = std::get_if<Device>(&a); d && map_(*d) != d->normalized()) {
        *d = map_(*d);  // as tracing on the target records it: the input's device, with its index
        changed = true;
        ++r_.device_args;
      }
    if (changed) g.set_args(&n, std::move(args));
  }

  /// Strides and offsets from the op's meta function on the moved inputs; sizes, dtype and grad
  /// stay as recorded (symbolic identity and autocast dtypes are not the device's business).
  /// True for a `contiguous` whose input is now contiguous (nothing to record on the target).
  bool rederive(Node& n) {
    std::vector<MetaValue> margs;
    margs.reserve(n.args().size());
    bool usable = true;
    for (const NodeArg& a : n.args()) {
      if (auto* p = std::get_if<Node*>(&a); p && *p && (*p)->val.empty() && !(*p)->multi_output()) {
        if (!(*p)->sym_val) return false;  // a symbolic truth value: nothing device-specific to learn
        margs.push_back(*(*p)->sym_val);
        continue;
      }
      margs.push_back(map_tensors<const TensorMeta*>(a, [&](Node* in) -> const TensorMeta* {
        if (!in) return nullptr;
        if (in->val.size() != 1 || in->multi_output()) usable = false;
        return in->val.empty() ? nullptr : &in->val[0];
      }));
    }
    if (!usable) return false;
    MetaOut mo;
    try {
      run_meta(*n.target(), margs, mo);
    } catch (const UserError&) {
      return false;
    }
    if (mo.outs.size() != n.val.size()) return false;
    bool changed = false;
    for (size_t k = 0; k < mo.outs.size(); ++k) {
      TensorMeta& rec = n.val[k];
      const TensorMeta& got = mo.outs[k];
      if (got.dtype != rec.dtype || got.sizes.size() != rec.sizes.size() || got.strides.size() != rec.strides.size())
        continue;
      bool same_sizes = true;
      for (size_t i = 0; i < got.sizes.size(); ++i) same_sizes &= got.sizes[i].same_as(rec.sizes[i]);
      if (!same_sizes) continue;
      bool same = got.storage_offset.same_as(rec.storage_offset);
      for (size_t i = 0; i < got.strides.size(); ++i) same &= got.strides[i].same_as(rec.strides[i]);
      if (same) continue;
      rec.strides = got.strides;
      rec.storage_offset = got.storage_offset;
      changed = true;
    }
    r_.rederived += changed;
    return mo.alias_input0 && is_contiguous_op(*n.target());
  }

  static void follow_producer(Node& n) {
    if (n.args().empty()) return;
    auto* p = std::get_if<Node*>(&n.args()[0]);
    if (!p || !*p || n.val.size() != 1 || n.index() < 0 || static_cast<size_t>(n.index()) >= (*p)->val.size()) return;
    const TensorMeta& src = (*p)->val[static_cast<size_t>(n.index())];
    n.val[0].strides = src.strides;
    n.val[0].storage_offset = src.storage_offset;
  }

  ExportedProgram& ep_;
  const DeviceMap& map_;
  RetargetReport r_;
  std::unordered_set<const Node*> keep_;  ///< self-moved constants' nodes: left as recorded
};

}  // namespace

RetargetReport retarget(ExportedProgram& ep, const DeviceMap& map) {
  ExportSemanticsScope export_semantics;  // the metas re-run as they run while exporting
  return Retargeter(ep, map).run();
}

}  // namespace fe
