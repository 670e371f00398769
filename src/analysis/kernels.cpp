// Kernel availability (analysis/kernels.h): one binary search per node in PyTorch's dispatch table,
// compiled in from src/analysis/kernel_table.inc (sorted by overload name, byte order).
#include "fakeexport/analysis/kernels.h"

#include <algorithm>
#include <array>

#include "fakeexport/export/check.h"

namespace fe::analysis {
namespace {

struct Row {
  std::string_view overload;  ///< "linear.default"
  std::string_view kinds;     ///< one letter per backend, in kBackends order
};

constexpr std::array<std::string_view, 3> kBackends = {"CPU", "CUDA", "MPS"};

constexpr Row kTable[] = {
#define FE_KERNELS(name, kinds) {name, kinds},
#include "kernel_table.inc"
#undef FE_KERNELS
};

constexpr bool sorted_and_sized() {
  for (size_t i = 0; i < std::size(kTable); ++i) {
    if (kTable[i].kinds.size() != kBackends.size()) return false;
    if (i && !(kTable[i - 1].overload < kTable[i].overload)) return false;
  }
  return true;
}
static_assert(sorted_and_sized(), "kernel_table.inc must be sorted by overload with one letter per backend");

std::optional<KernelKind> kind_of_letter(char c) {
  switch (c) {
    case 'K': return KernelKind::Kernel;
    case 'E': return KernelKind::CompositeExplicit;
    case 'C': return KernelKind::CompositeImplicit;
    case 'D': return KernelKind::Decomposition;
    case '-': return KernelKind::None;
    default: return std::nullopt;
  }
}

/// The device of the first tensor a node produces, else of its first tensor operand.
std::optional<Device> node_device(const Node& n) {
  for (const TensorMeta& m : n.val) return m.device;
  std::optional<Device> d;
  for (const NodeArg& a : n.args())
    for_each_node(a, [&](const Node* in) {
      if (!d && !in->sym_val && !in->val.empty()) d = in->val[0].device;
    });
  return d;
}

class Finder {
 public:
  Finder(const std::vector<Device>& targets) {
    for (const Device& d : targets) targets_.push_back(d.normalized());
  }
  void graph(const Graph& g, const std::string& path) {
    for (const auto& up : g.nodes()) {
      const Node& n = *up;
      if (n.op() == NodeOp::CallFunction && n.target()) call(n, path);
    }
    for (const auto& [name, sub] : g.subgraphs()) graph(*sub, path.empty() ? name : path + "." + name);
  }
  std::vector<MissingKernel> out;

 private:
  void call(const Node& n, const std::string& path) {
    constexpr std::string_view ns = "aten::";
    const std::string_view q = n.target()->qualified;
    if (q.substr(0, ns.size()) != ns) return;
    const std::optional<Device> recorded = node_device(n);
    if (!recorded) return;
    const Device runs_on =
        std::find(targets_.begin(), targets_.end(), recorded->normalized()) != targets_.end() || targets_.empty()
            ? recorded->normalized()
            : targets_[0];
    const std::optional<std::string_view> backend = backend_of(runs_on);
    if (!backend) return;
    const std::optional<KernelKind> k = kernel_for(q.substr(ns.size()), *backend);
    if (!k || (*k != KernelKind::None && *k != KernelKind::Decomposition)) return;
    out.push_back({&n, path, node_target(n), runs_on, std::string(*backend), *k == KernelKind::Decomposition,
                   node_source(n), node_module(n)});
  }
  std::vector<Device> targets_;
};

}  // namespace

std::string_view kernel_kind_name(KernelKind k) {
  static constexpr std::string_view names[] = {"kernel", "composite_explicit", "composite_implicit", "decomposition",
                                               "none"};
  return names[static_cast<size_t>(k)];
}

std::optional<std::string_view> backend_of(const Device& d) {
  switch (d.type()) {
    case DeviceType::CPU: return kBackends[0];
    case DeviceType::CUDA: return kBackends[1];
    case DeviceType::MPS: return kBackends[2];
    default: return std::nullopt;
  }
}

std::optional<KernelKind> kernel_for(std::string_view overload, std::string_view backend) {
  const auto col = std::find(kBackends.begin(), kBackends.end(), backend);
  if (col == kBackends.end()) return std::nullopt;
  const Row* end = std::end(kTable);
  const Row* it = std::lower_bound(std::begin(kTable), end, overload,
                                   [](const Row& r, std::string_view key) { return r.overload < key; });
  if (it == end || it->overload != overload) return std::nullopt;
  return kind_of_letter(it->kinds[static_cast<size_t>(col - kBackends.begin())]);
}

std::vector<MissingKernel> missing_kernels(const ExportedProgram& ep, const std::vector<Device>& targets) {
  Finder f(targets);
  f.graph(ep.graph, "");
  return std::move(f.out);
}

}  // namespace fe::analysis
