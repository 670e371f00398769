// `fakeexport check FILE.pt2|MODEL [--target DEV[,DEV...]] [--json]`: is the program internally true?
// Every node (subgraphs and symbolic ints included) re-derived from its inputs' recorded metadata
// and compared with its own; the graph's structure and signature checked. With --target, also
// will it run there: every site pinning a device outside the targets (analysis/device_lint.h) and
// every op without a kernel on the backend it will run on (analysis/kernels.h).
// Exit 0 iff all verified and sound (and, with --target, no device site and no missing kernel),
// 1 otherwise, 2 on bad input.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/model_export.h"
#include "fakeexport/analysis/device_lint.h"
#include "fakeexport/analysis/kernels.h"
#include "fakeexport/core/error.h"
#include "fakeexport/export/check.h"
#include "fakeexport/nn/zoo.h"
#include "fakeexport/serde/pt2.h"

namespace fe::cli {

bool is_model(const std::string& s) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(s, ec) || s.ends_with(".json")) return true;
  const auto names = zoo::builtin_names();
  return std::find(names.begin(), names.end(), s) != names.end();
}

std::vector<Device> parse_devices(const std::string& s, const char* flag) {
  std::vector<Device> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = std::min(s.find(',', start), s.size());
    const std::string item = s.substr(start, end - start);
    FE_CHECK(!item.empty(), ValueError, flag, ": empty device in '", s, "'");
    try {
      out.push_back(Device::parse(item));
    } catch (const UserError& e) {
      rethrow_with_prefix(e, detail::cat(flag, ": "));
    }
    start = end + 1;
  }
  return out;
}

namespace {

struct CheckOptions {
  std::string file;
  std::string targets;  ///< --target cuda:0[,cuda:1...]: the devices the program must run on
  bool json = false;
};

/// "wrap_body_0.linear" for a node of a subgraph, "linear" at the top.
std::string qualified(const std::string& graph, const Node& n) { return graph.empty() ? n.name() : graph + "." + n.name(); }

int run_check(const CheckOptions& o) {
  // A .pt2 archive, else a MODEL exported on cpu (a built-in name or a config.json). Never freed:
  // the process ends right after the report (see inspect_cmd.cpp).
  const bool archive = o.file.ends_with(".pt2") || !is_model(o.file);
  const ExportedProgram& ep =
      archive ? kept(new serde::LoadedProgram(serde::load(o.file, load_options())))->ep : export_model_on_cpu(o.file);
  const std::vector<Device> targets = o.targets.empty() ? std::vector<Device>{} : parse_devices(o.targets, "--target");
  const CheckReport r = check_program(ep);
  const std::vector<analysis::DeviceSite> sites =
      targets.empty() ? std::vector<analysis::DeviceSite>{} : analysis::lint_devices(ep, targets);
  const std::vector<analysis::MissingKernel> missing =
      targets.empty() ? std::vector<analysis::MissingKernel>{} : analysis::missing_kernels(ep, targets);
  const bool ok = r.ok() && sites.empty() && missing.empty();
  if (o.json) {
    nlohmann::ordered_json j;
    j["nodes"] = r.nodes;
    j["verified"] = r.verified;
    auto& mm = j["mismatches"] = nlohmann::ordered_json::array();
    for (const MetaMismatch& m : r.mismatches)
      mm.push_back({{"node", qualified(m.graph, *m.node)}, {"target", node_target(*m.node)}, {"field", m.field},
                    {"recorded", m.recorded}, {"computed", m.computed}, {"source", node_source(*m.node)},
                    {"module", node_module(*m.node)}});
    auto& uv = j["unverified"] = nlohmann::ordered_json::array();
    for (const Unverified& u : r.unverified)
      uv.push_back({{"node", qualified(u.graph, *u.node)}, {"target", node_target(*u.node)}, {"reason", u.reason}});
    j["graph_errors"] = r.graph_errors;
    if (!targets.empty()) {
      auto& ds = j["device_sites"] = nlohmann::ordered_json::array();
      for (const analysis::DeviceSite& d : sites)
        ds.push_back({{"node", qualified(d.graph, *d.node)}, {"target", d.target}, {"device", d.device.str()},
                      {"kind", analysis::pin_kind_name(d.kind)}, {"source", d.source}, {"module", d.module},
                      {"fix", d.fix}});
      auto& mk = j["missing_kernels"] = nlohmann::ordered_json::array();
      for (const analysis::MissingKernel& k : missing)
        mk.push_back({{"node", qualified(k.graph, *k.node)}, {"target", k.target}, {"backend", k.backend},
                      {"device", k.device.str()}, {"decomposition", k.decomposes}, {"source", k.source},
                      {"module", k.module}});
    }
    std::cout << j.dump() << "\n";
    return ok ? 0 : 1;
  }
  for (const MetaMismatch& m : r.mismatches) {
    std::cout << qualified(m.graph, *m.node) << " (" << node_target(*m.node) << "): " << m.field << " recorded "
              << m.recorded << ", computed " << m.computed;
    const std::string src = node_source(*m.node), mod = node_module(*m.node);
    if (!src.empty()) std::cout << "; " << src;
    if (!mod.empty()) std::cout << "; module " << mod;
    std::cout << "\n";
  }
  for (const Unverified& u : r.unverified)
    std::cout << qualified(u.graph, *u.node) << " (" << node_target(*u.node) << "): unverified: " << u.reason << "\n";
  for (const std::string& e : r.graph_errors) std::cout << "graph: " << e << "\n";
  if (!targets.empty()) {
    for (const analysis::DeviceSite& d : sites) {
      std::cout << qualified(d.graph, *d.node) << " (" << (d.target.empty() ? "constant" : d.target) << "): pins "
                << d.device.str() << " (" << analysis::pin_kind_name(d.kind) << ")";
      if (!d.source.empty()) std::cout << "; " << d.source;
      if (!d.module.empty()) std::cout << "; module " << d.module;
      std::cout << "; fix: " << d.fix << "\n";
    }
    for (const analysis::MissingKernel& k : missing) {
      std::cout << qualified(k.graph, *k.node) << " (" << k.target << "): no " << k.backend << " kernel (runs on "
                << k.device.str() << ")"
                << (k.decomposes ? "; PyTorch's decomposition table lowers it (fakeexport decompose)" : "");
      if (!k.source.empty()) std::cout << "; " << k.source;
      if (!k.module.empty()) std::cout << "; module " << k.module;
      std::cout << "\n";
    }
    std::cout << o.file << ": " << sites.size() << " device site" << (sites.size() == 1 ? "" : "s") << " outside "
              << o.targets << ", " << missing.size() << " missing kernel" << (missing.size() == 1 ? "" : "s") << "\n";
  }
  std::cout << o.file << ": " << r.nodes << " nodes, " << r.verified << " verified, " << r.mismatches.size()
            << " mismatches, " << r.unverified.size() << " unverified, " << r.graph_errors.size() << " graph errors"
            << (r.ok() ? ": OK" : "") << "\n";
  return ok ? 0 : 1;
}

}  // namespace

RunFn add_check(CLI::App& cmd) {
  auto o = std::make_shared<CheckOptions>();
  cmd.add_option("FILE", o->file,
                 "the .pt2 archive, or a MODEL (built-in name, config.json or its directory) exported on cpu as "
                 "`fakeexport export MODEL` does")
      ->required();
  // Given, it names at least one device (an empty value would silently check nothing).
  cmd.add_option("--target", o->targets,
                 "DEV[,DEV...]: the devices the program must run on (its inputs on the first); lists every node "
                 "pinning another device (factories, transfers, device assertions, constants, mixed operands) "
                 "with its source line, module and fix, and every op with no kernel on the backend it will run on "
                 "(PyTorch 2.14's dispatch table); exit 1 when any")
      ->check(CLI::Validator([](std::string& v) { return v.empty() ? std::string("names no device") : std::string(); },
                             "DEV[,DEV...]"));
  cmd.add_flag("--json", o->json,
               "print one JSON object: nodes, verified, mismatches [{node, target, field, recorded, computed, source, "
               "module}], unverified [{node, target, reason}], graph_errors; with --target also device_sites "
               "[{node, target, device, kind, source, module, fix}] and missing_kernels [{node, target, backend, device, "
               "decomposition, source, module}]");
  return [o] { return run_check(*o); };
}

}  // namespace fe::cli
