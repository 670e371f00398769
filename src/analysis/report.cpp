// The data of `fakeexport report`'s page and the page itself (include/fakeexport/analysis/report.h).
// Nodes go column by column with shared strings (op targets, source lines) so a 9,000-node
// program stays a few MB; the page's script (report/report.js) rebuilds the module tree from the
// `modules` table and renders lazily.
#include "fakeexport/analysis/report.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>

#include "fakeexport/core/error.h"
#include "fakeexport/export/check.h"

namespace fe::analysis {
namespace {

using json = nlohmann::json;

/// The page's assets, compiled in by CMake from report/ (kReportHtml, kReportCss, kReportJs).
#include "report_assets.inc"

/// Strings stored once, referred to by index.
class StringTable {
 public:
  int of(const std::string& s) {
    if (s.empty()) return -1;
    auto [it, added] = index_.try_emplace(s, static_cast<int>(strings_.size()));
    if (added) strings_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::unordered_map<std::string, int> index_;
  std::vector<std::string> strings_;
};

/// Modules by path, each with its parent, in order of first appearance in the program.
class ModuleTable {
 public:
  ModuleTable() { add("", ""); }
  /// The innermost module of `stack` (0 for the root), adding the frames not yet seen.
  int of(const ModuleStack* stack) {
    if (!stack || stack->empty()) return 0;
    int parent = 0;
    for (const ModuleFrame& f : *stack) {
      auto it = index_.find(f.path);
      if (it == index_.end()) {
        const int i = add(f.path, f.type_name);
        parents_[static_cast<size_t>(i)] = parent;
        parent = i;
      } else {
        parent = it->second;
      }
    }
    return parent;
  }
  json to_json(const std::string& root_type) const {
    std::vector<std::string> types = types_;
    if (types[0].empty()) types[0] = root_type;
    return {{"path", paths_}, {"type", types}, {"parent", parents_}};
  }

 private:
  int add(const std::string& path, const std::string& type) {
    const int i = static_cast<int>(paths_.size());
    index_.emplace(path, i);
    paths_.push_back(path);
    types_.push_back(type);
    parents_.push_back(-1);
    return i;
  }
  std::unordered_map<std::string, int> index_;
  std::vector<std::string> paths_, types_;
  std::vector<int> parents_;
};

/// The node's cost kind; a higher-order op is a "subgraph" when its subgraphs do work.
std::string node_kind(const Node& n, const NodeCost* c, bool subgraph_work) {
  if (n.op() == NodeOp::CallOther) return subgraph_work ? "subgraph" : c ? std::string(cost_kind_name(c->kind)) : "none";
  if (c) return std::string(cost_kind_name(c->kind));
  switch (n.op()) {
    case NodeOp::Placeholder: return "placeholder";
    case NodeOp::Output: return "output";
    default: return "none";
  }
}

std::string meta_of(const Node& n) {
  if (n.val.empty()) return n.sym_val ? "Sym(" + n.sym_val->str() + ")" : "";
  if (n.val.size() == 1 && !n.multi_output()) return n.val[0].annotation();
  std::string s = "(";
  for (size_t i = 0; i < n.val.size(); ++i) s += (i ? ", " : "") + n.val[i].annotation();
  return s + ")";
}

}  // namespace

std::string report_json(const ReportInputs& in) {
  FE_CHECK(in.ep && in.ledger && in.cost, ValueError, "report: the program, its memory ledger and its cost are all needed");
  const ExportedProgram& ep = *in.ep;
  const Graph& g = ep.graph;
  const auto& nodes = g.nodes();
  const size_t n = nodes.size();
  std::unordered_map<const Node*, int> index;
  index.reserve(n);
  for (size_t i = 0; i < n; ++i) index.emplace(nodes[i].get(), static_cast<int>(i));

  // Devices: where memory is held, then where work runs, then any other node's.
  std::vector<Device> devices;
  auto device_index = [&](const Device& d) {
    const Device nd = d.normalized();
    for (size_t i = 0; i < devices.size(); ++i)
      if (devices[i] == nd) return static_cast<int>(i);
    devices.push_back(nd);
    return static_cast<int>(devices.size() - 1);
  };
  for (const DeviceMemory& d : in.ledger->devices) device_index(d.device);
  for (const DeviceCost& d : in.cost->devices) device_index(d.device);

  // Costs per top-graph node; a subgraph's nodes count for the higher-order op that runs them.
  struct Acc {
    const NodeCost* own = nullptr;
    int64_t flops = 0, bytes = 0;
    double time = 0, compute = 0, memory = 0;
  };
  std::vector<Acc> acc(n);
  std::unordered_map<std::string_view, int> by_name;
  for (size_t i = 0; i < n; ++i) by_name.emplace(nodes[i]->name(), static_cast<int>(i));
  for (const NodeCost& c : in.cost->nodes) {
    int i = -1;
    if (c.graph.empty()) {
      auto it = index.find(c.node);
      if (it != index.end()) i = it->second;
    } else {
      auto it = by_name.find(std::string_view(c.graph).substr(0, c.graph.find('/')));
      if (it != by_name.end()) i = it->second;
    }
    if (i < 0) continue;
    Acc& a = acc[static_cast<size_t>(i)];
    if (c.graph.empty()) a.own = &c;
    a.flops += c.flops;
    a.bytes += c.bytes_read + c.bytes_written;
    a.time += c.time_s();
    a.compute += c.compute_s;
    a.memory += c.memory_s;
  }

  StringTable strings;
  ModuleTable modules;
  json name = json::array(), op = json::array(), kind = json::array(), mod = json::array(), dev = json::array(),
       meta = json::array(), src = json::array(), flops = json::array(), bytes = json::array(), time = json::array(),
       bound = json::array(), transfer = json::array(), args = json::array();
  for (size_t i = 0; i < n; ++i) {
    const Node& nd = *nodes[i];
    const Acc& a = acc[i];
    name.push_back(nd.name());
    const bool call = nd.op() == NodeOp::CallFunction || nd.op() == NodeOp::CallOther || nd.op() == NodeOp::GetItem ||
                      nd.op() == NodeOp::SymOp;
    op.push_back(call ? strings.of(node_target(nd)) : -1);
    kind.push_back(strings.of(node_kind(nd, a.own, a.flops || a.bytes)));
    mod.push_back(modules.of(nd.module_stack.get()));
    dev.push_back(nd.val.empty() ? -1 : device_index(nd.val[0].device));
    meta.push_back(meta_of(nd));
    src.push_back(strings.of(node_source(nd)));
    flops.push_back(a.flops);
    bytes.push_back(a.bytes);
    time.push_back(a.time);
    bound.push_back(a.time <= 0 ? 0 : a.compute >= a.memory ? 1 : 2);
    const std::optional<Device> from = transfer_source(nd);
    transfer.push_back(from ? device_index(*from) + 1 : 0);
    json in_idx = json::array();
    for (const Node* p : nd.inputs())
      if (auto it = index.find(p); it != index.end()) in_idx.push_back(it->second);
    args.push_back(std::move(in_idx));
  }

  // Live activation bytes per device at every step where they change: each lifetime holds its
  // bytes from its first step through its last (program outputs to the end).
  std::vector<std::map<int, int64_t>> delta(devices.size());
  for (const Lifetime& l : in.ledger->lifetimes) {
    auto& d = delta[static_cast<size_t>(device_index(l.device))];
    d[l.first] += l.bytes;
    if (l.last < Lifetime::kEnd) d[l.last + 1] -= l.bytes;
  }
  json timeline = json::array();
  for (size_t di = 0; di < devices.size(); ++di) {
    json steps = json::array(), live = json::array();
    int64_t cur = 0;
    for (const auto& [step, b] : delta[di]) {
      if (b == 0) continue;
      cur += b;
      steps.push_back(std::min<int64_t>(step, static_cast<int64_t>(n)));
      live.push_back(cur);
    }
    if (!steps.empty()) timeline.push_back({{"device", di}, {"steps", steps}, {"bytes", live}});
  }

  json devs = json::array();
  // The roof drawn per device is the peak of the dtype doing most of the FLOPs (a bf16 model's
  // rotary embedding multiplies in f32, but its matmuls are bf16).
  const DType dtype = [&] {
    std::map<DType, int64_t> by;
    for (const NodeCost& c : in.cost->nodes) by[c.dtype] += c.flops;
    DType best = DType::Float32;
    int64_t most = -1;
    for (const auto& [t, f] : by)
      if (f > most) best = t, most = f;
    return best;
  }();
  for (const Device& d : devices) {
    const DeviceMemory* m = in.ledger->find(d);
    const DeviceCost* c = nullptr;
    for (const DeviceCost& x : in.cost->devices)
      if (x.device == d) c = &x;
    json o;
    o["name"] = d.str();
    const DeviceSpec* spec = c ? c->spec : nullptr;
    o["spec"] = spec ? json(spec->name) : json();
    o["peak_flops"] = spec && spec->peak_flops_for(dtype) > 0 ? json(spec->peak_flops_for(dtype)) : json();
    o["bandwidth"] = spec && spec->bandwidth_bytes_per_s > 0 ? json(spec->bandwidth_bytes_per_s) : json();
    o["parameter_bytes"] = m ? m->parameter_bytes : 0;
    o["buffer_bytes"] = m ? m->buffer_bytes : 0;
    o["constant_bytes"] = m ? m->constant_bytes : 0;
    o["input_bytes"] = m ? m->input_bytes : 0;
    o["kv_cache_bytes"] = m ? m->kv_cache_bytes : 0;
    o["activation_peak_bytes"] = m ? m->activation_peak_bytes : 0;
    o["peak_bytes"] = m ? m->peak_bytes() : 0;
    int peak_step = -1;
    if (m && m->peak_node)
      if (auto it = index.find(m->peak_node); it != index.end()) peak_step = it->second;
    o["peak_step"] = peak_step;
    o["peak_node"] = m && m->peak_node ? json(m->peak_node->name()) : json();
    o["flops"] = c ? c->flops : 0;
    o["bytes"] = c ? c->bytes : 0;
    o["time_s"] = spec ? json(c->time_s) : json();
    o["bound"] = spec ? json(std::string(c->bound())) : json();
    devs.push_back(std::move(o));
  }

  // Hotspots: the slowest nodes (by FLOPs where no device has a roofline), and per device the
  // largest tensors live at its peak.
  std::vector<int> order;
  for (size_t i = 0; i < n; ++i)
    if (acc[i].time > 0 || acc[i].flops > 0) order.push_back(static_cast<int>(i));
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    const Acc &a = acc[static_cast<size_t>(x)], &b = acc[static_cast<size_t>(y)];
    return a.time != b.time ? a.time > b.time : a.flops > b.flops;
  });
  if (order.size() > 30) order.resize(30);
  json mem = json::array();
  for (const DeviceMemory& d : in.ledger->devices) {
    json ts = json::array();
    for (const LiveTensor& t : d.largest_live) {
      auto it = index.find(t.node);
      ts.push_back({{"node", it == index.end() ? -1 : it->second}, {"name", t.node ? t.node->name() : ""},
                    {"bytes", t.bytes}, {"meta", t.annotation}, {"module", t.module}});
    }
    mem.push_back({{"device", device_index(d.device)}, {"tensors", ts}});
  }

  json verdict;
  verdict["exports"] = true;
  verdict["verifies"] = in.verifies;
  verdict["unverified"] = in.unverified;
  verdict["nodes"] = n;
  json targets = json::array();
  for (const Device& d : in.targets) targets.push_back(d.str());
  verdict["targets"] = targets;
  json sites = json::array();
  for (const DeviceSite& s : in.device_sites)
    sites.push_back({{"node", s.graph.empty() ? s.node->name() : s.graph + "." + s.node->name()}, {"target", s.target},
                     {"device", s.device.str()}, {"kind", std::string(pin_kind_name(s.kind))}, {"source", s.source},
                     {"module", s.module}, {"fix", s.fix}});
  verdict["device_sites"] = sites;
  json missing = json::array();
  for (const MissingKernel& k : in.missing_kernels)
    missing.push_back({{"node", k.graph.empty() ? k.node->name() : k.graph + "." + k.node->name()}, {"target", k.target},
                       {"backend", k.backend}, {"device", k.device.str()}, {"decomposes", k.decomposes}});
  verdict["missing_kernels"] = missing;
  json fits = json::array();
  for (const DeviceFit& f : in.fits)
    fits.push_back({{"device", f.device.str()}, {"required", f.required_bytes},
                    {"capacity", f.capacity_bytes ? json(*f.capacity_bytes) : json()},
                    {"fits", f.capacity_bytes ? json(f.required_bytes <= *f.capacity_bytes) : json()}});
  verdict["fits"] = fits;

  const bool timed = std::any_of(in.cost->devices.begin(), in.cost->devices.end(), [](const DeviceCost& d) { return d.spec; });
  json j;
  j["version"] = 1;
  j["title"] = in.title;
  j["generator"] = "fakeexport report";
  j["verdict"] = std::move(verdict);
  j["devices"] = std::move(devs);
  j["roof_dtype"] = std::string(dtype_name(dtype));
  j["latency_s"] = timed ? json(in.cost->latency_s) : json();
  j["transfer_bytes"] = in.ledger->transfer_bytes;
  j["transfer_s"] = in.cost->transfer_s;
  std::string root_type = "GraphModule";
  for (const auto& nd : nodes)
    if (nd->module_stack && !nd->module_stack->empty() && nd->module_stack->front().path.empty()) {
      root_type = nd->module_stack->front().type_name;
      break;
    }
  j["modules"] = modules.to_json(root_type);
  j["strings"] = strings.strings();
  j["nodes"] = {{"name", name}, {"op", op},     {"kind", kind},   {"mod", mod},           {"dev", dev},
                {"meta", meta}, {"src", src},   {"flops", flops}, {"bytes", bytes},       {"time", time},
                {"bound", bound}, {"transfer", transfer}, {"args", args}};
  j["timeline"] = std::move(timeline);
  j["hotspots"] = {{"time", order}, {"memory", mem}};
  j["assumptions"] = in.assumptions;
  // Inside <script> the text must neither close the element ("</script") nor open a comment
  // ("<!--"): every '<' is written as the JSON escape \u003c (it only occurs inside strings).
  const std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(s.size() + 256);
  for (char ch : s) {
    if (ch == '<') out += "\\u003c";
    else out += ch;
  }
  return out;
}

std::string report_html(const ReportInputs& in) {
  // The template's three placeholders, found in the template itself (the data and the script may
  // contain any text), then filled from the last to the first so earlier positions stay valid.
  const std::string_view page = kReportHtml;
  const std::string data = report_json(in);
  std::vector<std::pair<size_t, std::pair<std::string_view, std::string_view>>> fills;
  for (const auto& [placeholder, text] : {std::pair<std::string_view, std::string_view>{"/*@FE_STYLE@*/", kReportCss},
                                          {"/*@FE_SCRIPT@*/", kReportJs},
                                          {"/*@FE_DATA@*/", data}}) {
    const size_t at = page.find(placeholder);
    FE_CHECK(at != std::string_view::npos, FormatError, "report template: no ", placeholder);
    fills.push_back({at, {placeholder, text}});
  }
  std::sort(fills.begin(), fills.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  out.reserve(page.size() + data.size() + std::string_view(kReportJs).size() + std::string_view(kReportCss).size());
  size_t pos = 0;
  for (const auto& [at, f] : fills) {
    out.append(page.substr(pos, at - pos));
    out.append(f.second);
    pos = at + f.first.size();
  }
  out.append(page.substr(pos));
  return out;
}

}  // namespace fe::analysis
