// `fakeexport check FILE.pt2 [--json]`: is the program internally true? Every node (subgraphs and
// symbolic ints included) re-derived from its inputs' recorded metadata and compared with its own;
// the graph's structure and signature checked. Exit 0 iff all verified and sound, 1 otherwise.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "fakeexport/export/check.h"
#include "fakeexport/serde/pt2.h"

namespace fe::cli {
namespace {

struct CheckOptions {
  std::string file;
  bool json = false;
};

/// "wrap_body_0.linear" for a node of a subgraph, "linear" at the top.
std::string qualified(const std::string& graph, const Node& n) { return graph.empty() ? n.name() : graph + "." + n.name(); }

int run_check(const CheckOptions& o) {
  // Never freed: the process ends right after the report (see inspect_cmd.cpp).
  const serde::LoadedProgram& lp = *new serde::LoadedProgram(serde::load(o.file));
  const CheckReport r = check_program(lp.ep);
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
    std::cout << j.dump() << "\n";
    return r.ok() ? 0 : 1;
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
  std::cout << o.file << ": " << r.nodes << " nodes, " << r.verified << " verified, " << r.mismatches.size()
            << " mismatches, " << r.unverified.size() << " unverified, " << r.graph_errors.size() << " graph errors"
            << (r.ok() ? ": OK" : "") << "\n";
  return r.ok() ? 0 : 1;
}

}  // namespace

RunFn add_check(CLI::App& cmd) {
  auto o = std::make_shared<CheckOptions>();
  cmd.add_option("FILE", o->file, "the .pt2 archive")->required();
  cmd.add_flag("--json", o->json,
               "print one JSON object: nodes, verified, mismatches [{node, target, field, recorded, computed, source, "
               "module}], unverified [{node, target, reason}], graph_errors");
  return [o] { return run_check(*o); };
}

}  // namespace fe::cli
