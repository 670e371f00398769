// `fakeexport report MODEL|FILE.pt2 [placement options of export] [--devices SPEC | --cap DEV=BYTES,...]
// [--reserve BYTES] [--kv-cache LEN] [--target DEV,...] -o report.html [--json]`: one self-contained
// HTML page (opens from disk, nothing fetched) with the verdict (verifies, device lint, kernels,
// fits per device), the graph by module hierarchy, the memory timeline per device, the roofline
// plot, hotspots and the assumptions behind every number (analysis/report.h, docs/report.md).
// Exit 0 when the page is written (its verdict is inside it, and in --json), 2 on bad input.
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.h"
#include "cli/memory_plan.h"
#include "cli/model_export.h"
#include "fakeexport/analysis/report.h"
#include "fakeexport/core/error.h"
#include "fakeexport/export/check.h"
#include "fakeexport/serde/pt2.h"

namespace fe::cli {
namespace {

struct ReportArgs {
  ExportArgs model;
  CapacityArgs capacity;  ///< --devices/--cap/--reserve/--kv-cache
  std::string targets;  ///< --target: the devices the lint checks against (default: the program's)
  std::string out;      ///< -o report.html
  bool json = false;
};

/// Every rule the page's numbers rest on, with the values this run used.
std::vector<std::string> assumptions(const ReportArgs& a, const ExportedProgram& ep, const analysis::CostReport& cost,
                                     int64_t reserve, const std::vector<analysis::DeviceCap>& caps) {
  std::vector<std::string> s;
  s.push_back("No data was allocated: every tensor is fake (shape, dtype, device, strides); the program is " +
              std::string(a.model.model.ends_with(".pt2") ? "the archive as PyTorch wrote it." : "our export of the model, as torch.export exports it."));
  s.push_back("Activation memory by liveness over the program's node order: each value is freed after its last use, as "
              "FX's generated code does; views and in-place results share their base's storage; higher-order ops add "
              "their subgraphs' peak at their step. Weights tied to each other are counted once.");
  s.push_back("CUDA devices: every allocation rounded up to 512 bytes, as the caching allocator does; reserve per device "
              "outside the program (CUDA context, workspaces): " + human_bytes(static_cast<double>(reserve)) + ".");
  if (a.capacity.kv_cache >= 0)
    s.push_back("KV cache: " + std::to_string(a.capacity.kv_cache) + " tokens at the program's batch, on each attention layer's device.");
  s.push_back("Time per node is a roofline: max(FLOPs / dense peak FLOP/s for its dtype, bytes / memory bandwidth) on "
              "its device's catalogue entry. No kernel reaches peak, launches and synchronization are free: an "
              "upper bound on speed.");
  s.push_back("FLOPs: matmuls and convolutions as torch.utils.flop_counter.FlopCounterMode counts them (2 per "
              "multiply-add), attention 2·B·H·Sq·(D·Sk + Sk·Dv) plus 5 per score, elementwise 1 per output element, "
              "reductions 1 per input element, normalizations 8 and softmax 5 per element. Bytes: each input read "
              "once, each new output written once.");
  s.push_back("One forward pass through the pipeline (no micro-batching): the devices run one after the other, and "
              "each transfer takes its bytes over the devices' link at half its bidirectional peak.");
  for (const analysis::DeviceCap& c : caps)
    s.push_back(c.device.str() + ": " + (c.spec ? c.spec->name : std::string("--cap")) + ", " +
                human_bytes(static_cast<double>(c.capacity_bytes)) + " capacity" +
                (c.spec && c.spec->bandwidth_bytes_per_s > 0
                     ? ", " + std::to_string(static_cast<int64_t>(c.spec->bandwidth_bytes_per_s / 1e9)) + " GB/s"
                     : std::string()) +
                ".");
  if (caps.empty()) s.push_back("No devices named (--devices/--cap): no capacities, so no fit verdicts and no times.");
  s.push_back("Device lint against: the devices the program's inputs will live on. Kernel availability from PyTorch "
              "2.14's native_functions.yaml dispatch tables.");
  s.push_back("The program's sizes are its example inputs'" + std::string(ep.range_constraints.empty() ? "." : "; dynamic dims at their example values.") +
              " Total: " + std::to_string(cost.flops) + " FLOPs.");
  return s;
}

int run_report(ReportArgs a) {
  FE_CHECK(!a.out.empty(), ValueError, "report: give -o FILE.html");
  const Capacities capacities = parse_capacities(a.capacity, "report", a.model.static_cache);
  const std::vector<analysis::DeviceCap>& caps = capacities.caps;
  const int64_t reserve = capacities.reserve;

  const std::string& m = a.model.model;
  const bool archive = m.ends_with(".pt2") || !is_model(m);
  analysis::KvLayout kv_layout;  // MODEL's generation cache per layer
  std::string title = m;
  const ExportedProgram* ep = nullptr;
  if (archive) {
    FE_CHECK(!a.model.placed(), ValueError, "report ", m,
             ": placement options apply to MODEL; an archive keeps its devices (move it with `fakeexport retarget`)");
    ep = &kept(new serde::LoadedProgram(serde::load(m, load_options())))->ep;
  } else {
    place_on(a.model, caps);
    const zoo::Config cfg = load_config(m);
    const DType dtype = model_dtype(a.model, cfg);
    const Exported e = export_model(a.model, cfg, dtype);
    ep = e.ep;
    kv_layout = e.model->generation_cache();
    title = cfg.model_type() + " (" + cfg.origin() + "), " + std::string(dtype_name(dtype));
  }
  const CheckReport check = check_program(*ep);
  const analysis::MemoryLedger ledger = a.capacity.kv_cache >= 0 ? ledger_with_kv(*ep, a.capacity.kv_cache, kv_layout)
                                                        : analysis::memory_ledger(*ep);
  const analysis::CostReport cost = analysis::program_cost(*ep, caps);

  // The lint's targets: as given, else the devices the program already uses (a program exported on
  // its devices should pin none other).
  std::vector<Device> targets;
  if (!a.targets.empty()) targets = parse_devices(a.targets, "--target");
  else
    for (const analysis::DeviceMemory& d : ledger.devices) targets.push_back(d.device);

  analysis::ReportInputs in;
  in.ep = ep;
  in.title = title;
  in.ledger = &ledger;
  in.cost = &cost;
  in.targets = targets;
  in.device_sites = analysis::lint_devices(*ep, targets);
  in.missing_kernels = analysis::missing_kernels(*ep, targets);
  for (const analysis::DeviceMemory& d : ledger.devices) {
    analysis::DeviceFit f{d.device, required_bytes(d, reserve), std::nullopt};
    if (const analysis::DeviceCap* c = cap_of(caps, d.device)) f.capacity_bytes = c->capacity_bytes;
    in.fits.push_back(f);
  }
  in.assumptions = assumptions(a, *ep, cost, reserve, caps);
  in.verifies = check.mismatches.empty() && check.graph_errors.empty();
  in.unverified = check.unverified.size();

  const std::string page = analysis::report_html(in);
  {
    std::ofstream f(a.out, std::ios::binary);
    FE_CHECK(f.good(), FileIOError, "report: cannot write ", a.out);
    f << page;
    FE_CHECK(f.good(), FileIOError, "report: writing ", a.out, " failed");
  }
  bool fits = true;
  for (const analysis::DeviceFit& f : in.fits) fits &= !f.capacity_bytes || f.required_bytes <= *f.capacity_bytes;
  if (a.json) {
    nlohmann::ordered_json j;
    j["out"] = a.out;
    j["bytes"] = page.size();
    j["nodes"] = ep->graph.nodes().size();
    j["verifies"] = in.verifies;
    j["device_sites"] = in.device_sites.size();
    j["missing_kernels"] = in.missing_kernels.size();
    j["fits"] = fits;
    std::cout << j.dump() << "\n";
  } else {
    std::cout << a.out << ": " << human_bytes(static_cast<double>(page.size())) << ", " << ep->graph.nodes().size()
              << " nodes on " << ledger.devices.size() << " device(s); " << in.device_sites.size() << " device site(s), "
              << in.missing_kernels.size() << " missing kernel(s), "
              << (in.fits.empty() || caps.empty() ? "no capacities given" : fits ? "fits" : "does not fit") << "\n";
  }
  return 0;
}

}  // namespace

RunFn add_report(CLI::App& cmd) {
  auto a = std::make_shared<ReportArgs>();
  cmd.add_option("MODEL", a->model.model, "a .pt2 archive, or MODEL: a config.json, a directory holding one, or a built-in")
      ->required();
  add_model_options(cmd, a->model);
  add_capacity_options(cmd, a->capacity);
  cmd.add_option("--target", a->targets, "devices the lint checks against (default: the program's own devices)");
  cmd.add_option("-o,--out", a->out, "the HTML file to write")->required();
  cmd.add_flag("--json", a->json, "print one JSON object: out, bytes, nodes, verifies, device_sites, missing_kernels, fits");
  return [a] { return run_report(*a); };
}

}  // namespace fe::cli
