// `fakeexport decompose FILE.pt2|MODEL [--print] [--only OP,...] [--keep OP,...] [-o OUT.pt2] [--json]`:
// the program lowered as PyTorch 2.14's ep.run_decompositions() lowers it (export/decompose.h):
// the default table is every op with a decomposition; --only is get_decompositions([...]);
// --keep removes ops from the table. Exit 0 on success, 2 on bad input (an unknown op, a program
// the retrace does not support yet).
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/model_export.h"
#include "fakeexport/core/error.h"
#include "fakeexport/export/check.h"
#include "fakeexport/export/decompose.h"
#include "fakeexport/serde/pt2.h"

namespace fe::cli {
namespace {

struct DecomposeOptions {
  std::string file;
  std::string only;  ///< --only OP,...: exactly these ops (get_decompositions)
  std::string keep;  ///< --keep OP,...: the table without these
  std::string out;   ///< -o OUT.pt2
  bool print = false;
  bool json = false;
};

/// call_function targets of the root graph and their counts, "aten.mm.default" style.
std::map<std::string, size_t> histogram(const ExportedProgram& ep) {
  std::map<std::string, size_t> h;
  for (const auto& n : ep.graph.nodes())
    if (n->op() == NodeOp::CallFunction || n->op() == NodeOp::CallOther) ++h[node_target(*n)];
  return h;
}

int run_decompose(const DecomposeOptions& o) {
  FE_CHECK(o.only.empty() || o.keep.empty(), ValueError, "decompose: give --only or --keep, not both");
  DecompTable table = o.only.empty() ? default_decompositions() : get_decompositions(split_op_list(o.only));
  if (!o.keep.empty())
    for (const OpDef* op : decompositions_of(split_op_list(o.keep))) table.erase(op);
  // Never freed: the process ends right after the report (see inspect_cmd.cpp).
  const bool archive = o.file.ends_with(".pt2") || !is_model(o.file);
  serde::LoadedProgram* lp =
      archive ? kept(new serde::LoadedProgram(serde::load(o.file, load_options(!o.out.empty())))) : nullptr;
  const ExportedProgram& ep = lp ? lp->ep : export_model_on_cpu(o.file);
  DecomposeReport r;
  const ExportedProgram& out = *kept(new ExportedProgram(run_decompositions(ep, table, &r)));
  const bool weights = lp && lp->weights_present;
  if (!o.out.empty())
    serde::save(out, o.out, {.weights = weights ? serde::WeightsPolicy::Tensors : serde::WeightsPolicy::None});
  if (o.print) std::cout << out;
  if (o.json) {
    nlohmann::ordered_json j;
    j["nodes_before"] = r.nodes_before;
    j["nodes_after"] = r.nodes_after;
    j["decomposed"] = r.decomposed;
    j["table"] = table.size();
    j["ops"] = histogram(out);
    j["out"] = o.out;
    std::cout << j.dump() << "\n";
  } else if (!o.print) {
    std::cout << o.file << ": " << r.decomposed << " calls decomposed (" << table.size() << " ops in the table), "
              << r.nodes_before << " -> " << r.nodes_after << " nodes, verified";
    if (!o.out.empty()) std::cout << "; wrote " << o.out << (weights ? "" : " (graph only: no weights)");
    std::cout << "\n";
  }
  return 0;
}

}  // namespace

RunFn add_decompose(CLI::App& cmd) {
  auto o = std::make_shared<DecomposeOptions>();
  cmd.add_option("FILE", o->file, "the .pt2 archive, or MODEL (a built-in name or config.json) exported on cpu")
      ->required();
  cmd.add_option("--only", o->only,
                 "OP[,OP...]: decompose only these, as get_decompositions([...]) (ops without a Python "
                 "decomposition in PyTorch, such as aten.linear, stay whole)");
  cmd.add_option("--keep", o->keep, "OP[,OP...]: keep these ops undecomposed");
  cmd.add_option("-o,--output", o->out, "write the decomposed program (with the archive's weights) to OUT.pt2");
  cmd.add_flag("--print", o->print, "print the decomposed program as PyTorch prints it");
  cmd.add_flag("--json", o->json, "print one JSON object: nodes_before, nodes_after, decomposed, table, ops, out");
  return [o] { return run_decompose(*o); };
}

}  // namespace fe::cli
