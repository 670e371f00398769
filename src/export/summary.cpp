// program_summary_json: what a deployment engineer asks of a program first (size per device, ops).
#include "fakeexport/export/summary.h"

#include "fakeexport/export/check.h"

#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <set>

namespace fe {
namespace {

nlohmann::json shape_json(const TensorMeta& m) {
  nlohmann::json a = nlohmann::json::array();
  for (const SymInt& s : m.sizes) {
    if (auto v = s.maybe_int()) a.push_back(*v);
    else a.push_back(s.str());
  }
  return a;
}

void count_ops(const Graph& g, std::map<std::string, int64_t>& ops) {
  // Counted by operator identity, then named once per distinct operator (a target name is built).
  std::unordered_map<const void*, std::pair<const Node*, int64_t>> by_op;
  for (const auto& n : g.nodes()) {
    const void* id = n->op() == NodeOp::CallFunction ? static_cast<const void*>(n->target())
                     : n->op() == NodeOp::CallOther  ? static_cast<const void*>(n->callable())
                                                     : nullptr;
    if (id) {
      auto& [first, count] = by_op.try_emplace(id, n.get(), 0).first->second;
      ++count;
    } else if (std::string t = node_target(*n); !t.empty()) {
      ++ops[t];
    }
  }
  for (const auto& [id, e] : by_op) ops[node_target(*e.first)] += e.second;
}

/// Targets in any graph that we only know by their recorded metadata.
void opaque_targets(const Graph& g, std::set<std::string>& out) {
  for (const auto& n : g.nodes())
    if ((n->op() == NodeOp::CallFunction && !n->target()->meta) ||
        (n->op() == NodeOp::CallOther && n->callable()->kind == CallableKind::Opaque))
      out.insert(node_target(*n));
  for (const auto& [name, sub] : g.subgraphs()) opaque_targets(*sub, out);
}

}  // namespace

std::string program_summary_json(const ExportedProgram& ep, const SummaryOptions& opts) {
  nlohmann::ordered_json j;
  j["schema_version"] = opts.schema_version;
  j["torch_version"] = opts.torch_version;
  j["nodes"] = ep.graph.size();
  std::map<std::string, int64_t> ops;
  count_ops(ep.graph, ops);
  j["ops"] = ops;
  std::set<std::string> opaque;
  opaque_targets(ep.graph, opaque);
  j["opaque"] = opaque;

  auto phs = ep.graph.placeholders();
  std::map<std::string, const Tensor*> state;
  for (const auto& [k, t] : ep.state_dict) state[k] = &t;
  for (const auto& [k, t] : ep.constants) state.emplace(k, &t);
  nlohmann::ordered_json inputs = nlohmann::ordered_json::array();
  std::map<std::string, std::pair<int64_t, int64_t>> devices;  // device -> (parameter, buffer) bytes
  int64_t param_count = 0, param_bytes = 0;
  std::set<const void*> seen_storage;  // tied weights share one storage: count it once
  for (size_t i = 0; i < ep.signature.inputs.size() && i < phs.size(); ++i) {
    const InputSpec& s = ep.signature.inputs[i];
    nlohmann::ordered_json in;
    in["name"] = s.name;
    in["kind"] = input_kind_name(s.kind);
    in["target"] = s.target.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.target);
    if (phs[i]->val.size() != 1) {  // a constant, symbolic int, custom object or token
      in["value"] = s.constant ? nlohmann::ordered_json(s.constant->repr) : nlohmann::ordered_json(nullptr);
      inputs.push_back(std::move(in));
      continue;
    }
    const TensorMeta& m = phs[i]->val[0];
    in["shape"] = shape_json(m);
    in["dtype"] = dtype_name(m.dtype);
    in["device"] = m.device.str();
    inputs.push_back(std::move(in));
    if (s.kind != InputKind::Parameter && s.kind != InputKind::Buffer) continue;
    auto it = state.find(s.target);
    const void* key = it != state.end() && it->second->impl() ? static_cast<const void*>(it->second->impl()) : &s;
    if (it != state.end() && it->second->impl() && it->second->impl()->storage)
      key = it->second->impl()->storage.get();
    if (!seen_storage.insert(key).second) continue;
    const int64_t numel = m.numel().hint(), bytes = numel * itemsize(m.dtype);
    auto& d = devices[m.device.str()];
    if (s.kind == InputKind::Parameter) {
      d.first += bytes;
      param_count += numel;
      param_bytes += bytes;
    } else {
      d.second += bytes;
    }
  }
  j["inputs"] = std::move(inputs);
  nlohmann::ordered_json outputs = nlohmann::ordered_json::array();
  for (const OutputSpec& s : ep.signature.outputs)
    outputs.push_back({{"name", s.name},
                       {"kind", output_kind_name(s.kind)},
                       {"target", s.target.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.target)}});
  j["outputs"] = std::move(outputs);
  nlohmann::ordered_json devs = nlohmann::ordered_json::object();
  for (const auto& [dev, b] : devices) devs[dev] = {{"parameter_bytes", b.first}, {"buffer_bytes", b.second}};
  j["devices"] = std::move(devs);
  j["parameters"] = {{"count", param_count}, {"bytes", param_bytes}};
  nlohmann::ordered_json rc = nlohmann::ordered_json::object();
  for (const auto& [k, r] : ep.range_constraints)
    rc[k] = {r.lo == sym::kNegInf ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.lo),
             r.hi == sym::kPosInf ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.hi)};
  j["range_constraints"] = std::move(rc);
  return j.dump(opts.indent);
}

std::vector<DeviceTransfer> device_transfers(const ExportedProgram& ep) {
  std::vector<DeviceTransfer> out;
  for (const auto& n : ep.graph.nodes()) {
    if (n->op() != NodeOp::CallFunction || n->target() == nullptr || n->val.size() != 1) continue;
    const std::string& q = n->target()->qualified;
    if (q.rfind("aten::to.", 0) != 0 && q.rfind("aten::_to_copy", 0) != 0) continue;
    if (n->args().empty()) continue;
    auto* in = std::get_if<Node*>(&n->args()[0]);
    if (in == nullptr || (*in)->val.size() != 1) continue;
    const Device from = (*in)->val[0].device, to = n->val[0].device;
    if (from != to) out.push_back({n->name(), from, to});
  }
  return out;
}

}  // namespace fe
