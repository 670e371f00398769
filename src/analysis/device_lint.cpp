// Device lint (analysis/device_lint.h): a walk over every graph of the program reading device
// arguments and recorded operand devices. What counts as a pin follows how PyTorch runs a loaded
// program on another device: ep.module().to(dev) moves parameters and buffers (persistent or not)
// but not lifted tensor constants, and never rewrites device arguments recorded in the graph.
#include "fakeexport/analysis/device_lint.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "fakeexport/export/check.h"
#include "fakeexport/export/retarget.h"

namespace fe::analysis {
namespace {

bool in(const std::vector<Device>& targets, const Device& d) {
  return std::find(targets.begin(), targets.end(), d.normalized()) != targets.end();
}

PinKind kind_of_call(const OpDef& op) {
  const std::string& name = op.schema.name;
  if (name == "_assert_tensor_metadata") return PinKind::Assertion;
  if (name == "to" || name == "_to_copy" || name == "copy" || name == "copy_" || name == "_to_dtype_layout")
    return PinKind::Transfer;
  return PinKind::Factory;
}

class Linter {
 public:
  Linter(const ExportedProgram& ep, const std::vector<Device>& targets) : ep_(ep) {
    for (const Device& d : targets) targets_.push_back(d.normalized());
    for (const InputSpec& s : ep.signature.inputs)
      if (s.kind == InputKind::UserInput && !s.constant) user_inputs_.insert(s.name);
    for (const InputSpec& s : ep.signature.inputs)
      if (user_inputs_.count(s.name)) {
        first_input_ = s.name;
        break;
      }
  }

  std::vector<DeviceSite> run() {
    lint_constants();
    lint_graph(ep_.graph, "");
    return std::move(sites_);
  }

 private:
  void add(const Node& n, const std::string& graph, Device d, PinKind k) {
    sites_.push_back({&n, graph, node_target(n), d, k, node_source(n), node_module(n), fix_for(n)});
  }

  /// The fix for a site: the user input whose values or sizes reach `n` (its first operand's
  /// anchor, found in one forward pass per graph), which the pinned device should follow; the
  /// first user input when none does (a constant-sized `arange(17)`).
  std::string fix_for(const Node& n) const {
    auto it = anchor_.find(&n);
    if (it != anchor_.end() && it->second) return follows(*it->second);
    return first_input_.empty() ? "create it on the target device" : follows(first_input_);
  }
  void note_anchor(const Node& n) {
    const std::string* a = nullptr;
    if (n.op() == NodeOp::Placeholder) {
      if (auto u = user_inputs_.find(n.name()); u != user_inputs_.end()) a = &*u;
    } else {
      for_each_input(n, [&](const Node* in) {
        if (a) return;
        if (auto it = anchor_.find(in); it != anchor_.end()) a = it->second;
      });
    }
    anchor_.emplace(&n, a);
  }
  template <class F>
  static void for_each_input(const Node& n, F&& f) {
    for (const NodeArg& x : n.args()) for_each_node(x, f);
  }
  static std::string follows(const std::string& input) { return "device follows input `" + input + "`"; }

  // Lifted constants stay where export made them; buffers and parameters move with the module.
  void lint_constants() {
    const auto phs = ep_.graph.placeholders();
    for (const Node* p : phs) note_anchor(*p);
    for (size_t i = 0; i < phs.size() && i < ep_.signature.inputs.size(); ++i) {
      const InputSpec& s = ep_.signature.inputs[i];
      if (s.kind != InputKind::ConstantTensor || phs[i]->val.size() != 1) continue;
      // Moved by the program itself (torch.tensor(True).to(x.device)): only its transfer can pin.
      if (const std::vector<const Node*> nodes = self_moved_constant(*phs[i]); !nodes.empty()) {
        exempt_.insert(nodes.begin(), nodes.end());
        continue;
      }
      if (!in(targets_, phs[i]->val[0].device)) add(*phs[i], "", phs[i]->val[0].device, PinKind::Constant);
    }
  }

  void lint_graph(const Graph& g, const std::string& path) {
    for (const auto& up : g.nodes()) {
      const Node& n = *up;
      note_anchor(n);
      if (n.op() != NodeOp::CallFunction || exempt_.count(&n)) continue;
      bool pinned = false;
      for (const NodeArg& a : n.args())
        if (auto* d = std::get_if<Device>(&a); d && !in(targets_, *d)) {
          add(n, path, *d, kind_of_call(*n.target()));
          pinned = true;
          break;
        }
      if (!pinned && n.target()->device_rule == DeviceRule::SameDevice) lint_operands(n, path);
    }
    for (const auto& [name, sub] : g.subgraphs()) lint_graph(*sub, path.empty() ? name : path + "." + name);
  }

  // PyTorch's rule for ordinary ops: one device for all tensor operands, 0-dim cpu tensors exempt.
  void lint_operands(const Node& n, const std::string& path) {
    std::optional<Device> first, other;
    for_each_input(n, [&](const Node* in) {
      if (other || in->val.size() != 1 || in->multi_output() || in->sym_val) return;
      const TensorMeta& m = in->val[0];
      if (m.dim() == 0 && m.device.is_cpu()) return;
      if (!first) first = m.device;
      else if (m.device != *first) other = m.device;
    });
    if (other) add(n, path, in_targets_first(*first, *other), PinKind::Mixed);
  }
  Device in_targets_first(const Device& a, const Device& b) const { return in(targets_, a) ? b : a; }

  const ExportedProgram& ep_;
  std::vector<Device> targets_;
  std::unordered_set<std::string> user_inputs_;
  std::string first_input_;
  std::unordered_map<const Node*, const std::string*> anchor_;  ///< node -> user input reaching it
  std::unordered_set<const Node*> exempt_;  ///< a self-moved constant's chain and assertions
  std::vector<DeviceSite> sites_;
};

}  // namespace

std::string_view pin_kind_name(PinKind k) {
  static constexpr std::string_view names[] = {"factory", "transfer", "assertion", "constant", "mixed"};
  return names[static_cast<size_t>(k)];
}

std::vector<DeviceSite> lint_devices(const ExportedProgram& ep, const std::vector<Device>& targets) {
  return Linter(ep, targets).run();
}

}  // namespace fe::analysis
