// `fakeexport inspect FILE.pt2 [--print] [--json]`: what an archive written by torch.export.save
// holds, without Python: PyTorch's print, or one JSON object, or a few human lines.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/model_export.h"
#include "fakeexport/export/check.h"
#include "fakeexport/export/summary.h"
#include "fakeexport/serde/pt2.h"

namespace fe::cli {
namespace {

struct InspectOptions {
  std::string file;
  bool print = false, json = false;
};

int run_inspect(const InspectOptions& o) {
  // Never freed: the process ends right after printing, and tearing down a 9,000-node graph
  // costs more than describing it (the OS reclaims the memory at once).
  const serde::LoadedProgram& lp = *kept(new serde::LoadedProgram(serde::load(o.file, load_options())));
  if (o.print) print_program(std::cout, lp.ep, {.read_source = false});
  const std::string summary =
      program_summary_json(lp.ep, {.schema_version = lp.schema_version, .torch_version = lp.torch_version});
  if (o.json) {
    std::cout << summary << "\n";
    return 0;
  }
  if (o.print) return 0;
  // Human summary: the few lines a deployment engineer reads first.
  const auto j = nlohmann::ordered_json::parse(summary);
  std::cout << o.file << ": torch " << lp.torch_version << ", schema " << lp.schema_version << ", " << j["nodes"]
            << " nodes\n";
  std::cout << "  parameters: " << j["parameters"]["count"] << " (" << j["parameters"]["bytes"] << " bytes)"
            << (lp.weights_present ? "" : ", weights absent: " + lp.weights_note) << "\n";
  for (const auto& [dev, b] : j["devices"].items())
    std::cout << "  " << dev << ": parameters " << b["parameter_bytes"] << " bytes, buffers " << b["buffer_bytes"]
              << " bytes\n";
  for (const auto& in : j["inputs"])
    if (in["kind"] == "USER_INPUT" && in.contains("shape"))
      std::cout << "  input " << in["name"].get<std::string>() << ": " << in["dtype"].get<std::string>()
                << in["shape"].dump() << " on " << in["device"].get<std::string>() << "\n";
  std::cout << "  ops:";
  for (const auto& [op, n] : j["ops"].items()) std::cout << " " << op << " x" << n;
  std::cout << "\n";
  if (!j["opaque"].empty()) {
    std::cout << "  opaque (not in our registry; recorded metadata kept):";
    for (const auto& t : j["opaque"]) std::cout << " " << t.get<std::string>();
    std::cout << "\n";
  }
  if (!j["range_constraints"].empty()) std::cout << "  range constraints: " << j["range_constraints"].dump() << "\n";
  return 0;
}

}  // namespace

RunFn add_inspect(CLI::App& cmd) {
  auto o = std::make_shared<InspectOptions>();
  cmd.add_option("FILE", o->file, "the .pt2 archive")->required();
  cmd.add_flag("--print", o->print, "print the program exactly as PyTorch prints torch.export.load(FILE)");
  cmd.add_flag("--json", o->json, "print one JSON object (nodes, ops, opaque, inputs, outputs, devices, parameters, ...)");
  return [o] { return run_inspect(*o); };
}

}  // namespace fe::cli
