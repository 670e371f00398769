// `fakeexport retarget FILE.pt2 (--device DEV | --map FROM=TO[,...]) [-o OUT.pt2] [--print] [--json]`:
// the program the user would have got by exporting on the target (export/retarget.h), re-verified,
// linted for the target devices and written with the archive's own weights. Exit 0 when the
// result checks clean with no device site and no missing kernel, 1 otherwise, 2 on bad input.
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/model_export.h"
#include "fakeexport/analysis/device_lint.h"
#include "fakeexport/analysis/kernels.h"
#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/export/check.h"
#include "fakeexport/export/retarget.h"
#include "fakeexport/serde/pt2.h"

namespace fe::cli {
namespace {

struct RetargetOptions {
  std::string file;
  std::string device;  ///< --device: every device goes here
  std::string map;     ///< --map cpu=cuda:0,...: explicit pairs (win over --device)
  std::string out;     ///< -o OUT.pt2
  bool print = false;
  bool json = false;
};

int run_retarget(const RetargetOptions& o) {
  FE_CHECK(!o.device.empty() || !o.map.empty(), ValueError, "retarget: give --device DEV or --map FROM=TO[,...]");
  DeviceMap map;
  if (!o.device.empty()) map.all = Device::parse(o.device);
  if (!o.map.empty()) map.pairs = DeviceMap::parse_pairs(o.map);
  // The devices the result is meant for: the map's destinations, in the order given.
  std::vector<Device> targets;
  for (const auto& [from, to] : map.pairs)
    if (std::find(targets.begin(), targets.end(), to.normalized()) == targets.end()) targets.push_back(to.normalized());
  if (map.all && std::find(targets.begin(), targets.end(), map.all->normalized()) == targets.end())
    targets.insert(targets.begin(), map.all->normalized());

  // Never freed: the process ends right after the report (see inspect_cmd.cpp).
  serde::LoadedProgram& lp = *kept(new serde::LoadedProgram(serde::load(o.file, load_options(!o.out.empty()))));
  const RetargetReport rr = retarget(lp.ep, map);
  const CheckReport cr = check_program(lp.ep);
  const auto sites = analysis::lint_devices(lp.ep, targets);
  const auto missing = analysis::missing_kernels(lp.ep, targets);
  if (!o.out.empty())
    serde::save(lp.ep, o.out,
                {.weights = lp.weights_present ? serde::WeightsPolicy::Tensors : serde::WeightsPolicy::None});
  const bool ok = cr.ok() && sites.empty() && missing.empty();
  if (o.print) std::cout << lp.ep;
  std::string dests;
  for (const Device& d : targets) dests += (dests.empty() ? "" : ",") + d.str();
  if (o.json) {
    nlohmann::ordered_json j;
    j["targets"] = dests;
    j["device_args"] = rr.device_args;
    j["tensors"] = rr.tensors;
    j["state"] = rr.state;
    j["rederived"] = rr.rederived;
    j["dropped_contiguous"] = rr.dropped;
    j["arch"] = cuda_arch_name(cuda_arch());  // the GPU generation the attention kernels were chosen for
    j["verified"] = cr.ok();
    j["mismatches"] = cr.mismatches.size();
    j["device_sites"] = sites.size();
    j["missing_kernels"] = missing.size();
    j["weights"] = lp.weights_present;
    j["out"] = o.out;
    std::cout << j.dump() << "\n";
    return ok ? 0 : 1;
  }
  if (!o.print) {
    for (const MetaMismatch& m : cr.mismatches)
      std::cout << m.node->name() << " (" << node_target(*m.node) << "): " << m.field << " recorded " << m.recorded
                << ", computed " << m.computed << "\n";
    for (const auto& s : sites)
      std::cout << s.node->name() << " (" << (s.target.empty() ? "constant" : s.target) << "): still pins "
                << s.device.str() << "\n";
    for (const auto& k : missing)
      std::cout << k.node->name() << " (" << k.target << "): no " << k.backend << " kernel\n";
    std::cout << o.file << ": retargeted to " << dests << ": " << rr.device_args << " device arguments, " << rr.tensors
              << " tensors, " << rr.state << " state tensors moved, " << rr.rederived << " nodes re-derived ("
              << cuda_arch_name(cuda_arch()) << " kernels), " << rr.dropped << " no-op contiguous dropped; "
              << (cr.ok() ? "verified" : "NOT verified") << ", " << sites.size() << " device sites, " << missing.size()
              << " missing kernels";
    if (!o.out.empty()) std::cout << "; wrote " << o.out << (lp.weights_present ? "" : " (graph only: no weights)");
    std::cout << "\n";
  }
  return ok ? 0 : 1;
}

}  // namespace

RunFn add_retarget(CLI::App& cmd) {
  auto o = std::make_shared<RetargetOptions>();
  cmd.add_option("FILE", o->file, "the .pt2 archive")->required();
  cmd.add_option("--device", o->device, "DEV: move every device of the program here (cuda:0)");
  cmd.add_option("--map", o->map, "FROM=TO[,FROM=TO...]: move these devices (win over --device)");
  cmd.add_option("-o,--output", o->out, "write the retargeted program (with the archive's weights) to OUT.pt2");
  cmd.add_flag("--print", o->print, "print the retargeted program as PyTorch prints it");
  cmd.add_flag("--json", o->json,
               "print one JSON object: targets, device_args, tensors, state, rederived, verified, mismatches, "
               "device_sites, missing_kernels, weights, out");
  return [o] { return run_retarget(*o); };
}

}  // namespace fe::cli
