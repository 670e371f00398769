// `fakeexport export MODEL`: a zoo model from a config.json (or a built-in), placed over devices,
// exported under FakeTensorMode; no tensor data is allocated unless weights are written.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.h"
#include "cli/model_export.h"
#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/export/exported_program.h"
#include "fakeexport/export/summary.h"
#include "fakeexport/nn/zoo.h"
#include "fakeexport/serde/pt2.h"

namespace fe::cli {
namespace {

struct ExportCmdArgs {
  ExportArgs model;
  std::string output;                 ///< -o FILE.pt2
  std::string weights = "none";       ///< none|zeros|random|FILE.safetensors
  bool print = false, json = false;
};

serde::SaveOptions save_options(const std::string& w) {
  serde::SaveOptions s;
  if (w == "none") s.weights = serde::WeightsPolicy::None;
  else if (w == "zeros") s.weights = serde::WeightsPolicy::Zeros;
  else if (w == "random") s.weights = serde::WeightsPolicy::Random;
  else if (w.ends_with(".safetensors")) s.weights = serde::WeightsPolicy::File, s.weights_file = w;
  else throw ValueError(detail::cat("--weights: expected none, zeros, random or FILE.safetensors, got '", w, "'"));
  return s;
}

int run_export(const ExportCmdArgs& a) {
  const zoo::Config cfg = load_config(a.model.model);
  const DType dtype = model_dtype(a.model, cfg);
  const serde::SaveOptions so = save_options(a.weights);
  FE_CHECK(a.output.empty() || a.output.ends_with(".pt2"), ValueError, "-o: expected a FILE.pt2 path, got '", a.output, "'");
  const auto t0 = std::chrono::steady_clock::now();
  const auto [ep_ptr, model_ptr] = export_model(a.model, cfg, dtype);
  ExportedProgram& ep = *ep_ptr;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (!a.output.empty()) {
    // A checkpoint binds by the model's naming rules (HF key names, tied weights written once,
    // Mixtral's per-expert layout), read tensor by tensor while the archive is written.
    serde::SaveOptions opts = so;
    std::unique_ptr<serde::WeightsSource> source;
    if (so.weights == serde::WeightsPolicy::File) {
      source = zoo::checkpoint_source(*model_ptr, so.weights_file);
      opts.weights = serde::WeightsPolicy::Source;
      opts.source = source.get();
    }
    serde::save(ep, a.output, opts);
  }
  if (a.print) print_program(std::cout, ep);
  std::string summary = program_summary_json(ep);
  if (a.json) {
    // The summary plus one member, spliced in: re-parsing 9,000 nodes' JSON to add it cost more than
    // writing it.
    FE_INTERNAL_ASSERT(summary.size() > 2 && summary.back() == '}', "program_summary_json is not an object");
    summary.pop_back();
    std::cout << summary << ",\"export_seconds\":" << nlohmann::json(seconds).dump() << "}\n";
    return 0;
  }
  if (a.print) return 0;
  // The short human summary: what exported, how big, where it lives, where it crosses devices.
  const auto j = nlohmann::ordered_json::parse(summary);
  std::cout << cfg.model_type() << " (" << cfg.origin() << "): exported in " << std::fixed;
  std::cout.precision(1);
  std::cout << seconds * 1e3 << " ms, " << j["nodes"].get<int64_t>() << " nodes, "
            << grouped(j["parameters"]["count"].get<int64_t>()) << " parameters ("
            << human_bytes(j["parameters"]["bytes"].get<double>()) << " " << dtype_name(dtype) << ")\n";
  for (const auto& [dev, b] : j["devices"].items())
    std::cout << "  " << dev << ": " << human_bytes(b["parameter_bytes"].get<double>() + b["buffer_bytes"].get<double>())
              << " of weights\n";
  for (const auto& inp : j["inputs"])
    if (inp["kind"] == "USER_INPUT" && inp.contains("shape"))
      std::cout << "  input " << inp["name"].get<std::string>() << ": " << inp["dtype"].get<std::string>()
                << inp["shape"].dump() << " on " << inp["device"].get<std::string>() << "\n";
  const auto transfers = device_transfers(ep);
  // Consecutive transfers between the same devices are one cut: "cuda:0 -> cuda:1 x3".
  std::cout << "  transfers: " << transfers.size();
  for (size_t i = 0; i < transfers.size();) {
    size_t j = i;
    while (j < transfers.size() && transfers[j].from == transfers[i].from && transfers[j].to == transfers[i].to) ++j;
    std::cout << (i == 0 ? " (" : ", ") << transfers[i].from << " -> " << transfers[i].to;
    if (j - i > 1) std::cout << " x" << j - i;
    i = j;
  }
  std::cout << (transfers.empty() ? "" : ")") << "\n";
  if (!j["range_constraints"].empty()) std::cout << "  range constraints: " << j["range_constraints"].dump() << "\n";
  if (!a.output.empty())
    std::cout << "  wrote " << a.output << " (weights: " << a.weights
              << (a.weights == "none" ? "; torch.export.load needs zeros, random or a .safetensors" : "") << ")\n";
  return 0;
}

}  // namespace

const ExportedProgram& export_model_on_cpu(const std::string& model) {
  ExportArgs a;
  a.model = model;
  const zoo::Config cfg = load_config(a.model);
  return *export_model(a, cfg, model_dtype(a, cfg)).ep;
}

RunFn add_export(CLI::App& cmd) {
  auto a = std::make_shared<ExportCmdArgs>();
  std::string builtins;
  for (const std::string& n : zoo::builtin_names()) builtins += (builtins.empty() ? "" : ", ") + n;
  cmd.add_option("MODEL", a->model.model, "a config.json, a directory holding one, or a built-in: " + builtins)->required();
  add_model_options(cmd, a->model);
  cmd.add_option("-o", a->output, "write FILE.pt2 (torch.export.save's format)");
  cmd.add_option("--weights", a->weights, "with -o: none|zeros|random|FILE.safetensors (default none)");
  cmd.add_flag("--print", a->print, "print the program as PyTorch prints an ExportedProgram");
  cmd.add_flag("--json", a->json, "print the JSON object of inspect --json plus export_seconds");
  return [a] { return run_export(*a); };
}

}  // namespace fe::cli
