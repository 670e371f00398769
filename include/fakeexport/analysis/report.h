// `fakeexport report`: one self-contained HTML page about a program (the verdict, the graph by module
// hierarchy, the memory timeline per device, the roofline, hotspots and assumptions). This half
// gathers what the analyses found into the page's data (a JSON object, schema in docs/report.md)
// and fills the page template (report/report.html, .css, .js, compiled in). Pure: no I/O.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fakeexport/analysis/cost.h"
#include "fakeexport/analysis/device_lint.h"
#include "fakeexport/analysis/kernels.h"
#include "fakeexport/analysis/memory.h"

namespace fe::analysis {

/// Whether one device holds what the program needs there.
struct DeviceFit {
  Device device;
  int64_t required_bytes = 0;             ///< peak as its allocator rounds it, plus the reserve
  std::optional<int64_t> capacity_bytes;  ///< none: no capacity known, no verdict
};

/// Everything the page shows; the analyses are run by the caller (the CLI) with the user's options.
struct ReportInputs {
  const ExportedProgram* ep = nullptr;
  std::string title;                     ///< "llama (configs/meta-llama-3-8b.json), bfloat16"
  const MemoryLedger* ledger = nullptr;
  const CostReport* cost = nullptr;
  bool verifies = true;                  ///< every recorded metadata equals what its op computes
  size_t unverified = 0;                 ///< nodes whose ops we cannot re-derive (opaque), kept as recorded
  std::vector<Device> targets;           ///< the devices the lint checked against
  std::vector<DeviceSite> device_sites;
  std::vector<MissingKernel> missing_kernels;
  std::vector<DeviceFit> fits;
  std::vector<std::string> assumptions;  ///< each rule an estimate rests on, plainly
};

/// The page's data (docs/report.md): nodes column by column, module tree, timelines, hotspots.
std::string report_json(const ReportInputs& in);

/// The whole page: the compiled-in template with the data, style and script inlined.
std::string report_html(const ReportInputs& in);

}  // namespace fe::analysis
