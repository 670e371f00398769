// The fakeexport command line. `export MODEL [options]`: a HuggingFace config.json (or a built-in)
// exported over any devices without data; `inspect FILE.pt2 [--print] [--json]`: what is inside an
// archive written by torch.export.save, without Python. Exit 0 on success, 2 on bad input (one line
// on stderr).
#include <CLI/CLI.hpp>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "fakeexport/core/error.h"
#include "fakeexport/nn/zoo.h"
#include "fakeexport/export/summary.h"
#include "fakeexport/serde/pt2.h"

namespace {

int inspect(const std::string& path, bool print, bool json) {
  fe::serde::LoadedProgram lp = fe::serde::load(path);
  if (print) fe::print_program(std::cout, lp.ep, {.read_source = false});
  const std::string summary =
      fe::program_summary_json(lp.ep, {.schema_version = lp.schema_version, .torch_version = lp.torch_version});
  if (json) {
    std::cout << summary << "\n";
    return 0;
  }
  if (print) return 0;
  // Human summary: the few lines a deployment engineer reads first.
  const auto j = nlohmann::ordered_json::parse(summary);
  std::cout << path << ": torch " << lp.torch_version << ", schema " << lp.schema_version << ", " << j["nodes"]
            << " nodes\n";
  std::cout << "  parameters: " << j["parameters"]["count"] << " (" << j["parameters"]["bytes"] << " bytes)"
            << (lp.weights_present ? "" : ", weights absent: " + lp.weights_note) << "\n";
  for (const auto& [dev, b] : j["devices"].items())
    std::cout << "  " << dev << ": parameters " << b["parameter_bytes"] << " bytes, buffers " << b["buffer_bytes"]
              << " bytes\n";
  for (const auto& in : j["inputs"])
    if (in["kind"] == "USER_INPUT") std::cout << "  input " << in["name"].get<std::string>() << ": " << in["dtype"].get<std::string>() << in["shape"].dump() << " on " << in["device"].get<std::string>() << "\n";
  std::cout << "  ops:";
  for (const auto& [op, n] : j["ops"].items()) std::cout << " " << op << " x" << n;
  std::cout << "\n";
  if (!j["range_constraints"].empty()) std::cout << "  range constraints: " << j["range_constraints"].dump() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fakeexport: torch.export programs in C++, without data"};
  app.require_subcommand(1);
  std::string file;
  bool print = false, json = false;
  CLI::App* insp = app.add_subcommand("inspect", "Summarize a .pt2 archive (torch.export.save)");
  insp->add_option("FILE", file, "the .pt2 archive")->required();
  insp->add_flag("--print", print, "print the program exactly as PyTorch prints torch.export.load(FILE)");
  insp->add_flag("--json", json, "print one JSON object (nodes, ops, inputs, outputs, devices, parameters, ...)");
  fe::cli::ExportArgs ex;
  std::string builtins;
  for (const std::string& n : fe::zoo::builtin_names()) builtins += (builtins.empty() ? "" : ", ") + n;
  CLI::App* exp = app.add_subcommand("export", "Export a model from its HuggingFace config.json, without data");
  exp->add_option("MODEL", ex.model, "a config.json, a directory holding one, or a built-in: " + builtins)->required();
  exp->add_option("--device", ex.device, "device of the whole model (default cpu)");
  exp->add_option("--place", ex.place, "PREFIX=DEV, repeatable; ranges like model.layers.0-39=cuda:0")
      ->allow_extra_args(false);
  exp->add_option("--pipeline", ex.pipeline, "DEV1,DEV2,...: repeated layers split evenly, embeddings first, head last");
  exp->add_option("--dtype", ex.dtype, "float32|bfloat16|float16 (default: the config's torch_dtype, else float32)");
  exp->add_option("--batch", ex.batch, "example batch size");
  exp->add_option("--seq", ex.seq, "example sequence length");
  exp->add_option("--dynamic", ex.dynamic, "batch,seq: dynamic dims (batch in [1, 1024], seq in [2, max positions])");
  exp->add_option("--dynamic-range", ex.dynamic_range, "NAME=MIN:MAX, repeatable (e.g. seq=2:4096)")
      ->allow_extra_args(false);
  exp->add_option("-o", ex.output, "write FILE.pt2 (torch.export.save's format)");
  exp->add_option("--weights", ex.weights, "with -o: none|zeros|random|FILE.safetensors (default none)");
  exp->add_flag("--print", ex.print, "print the program as PyTorch prints an ExportedProgram");
  exp->add_flag("--json", ex.json, "print the JSON object of inspect --json plus export_seconds");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    if (*insp) return inspect(file, print, json);
    if (*exp) return fe::cli::run_export(ex);
  } catch (const fe::UserError& e) {
    // One line on stderr: multi-line texts (PyTorch's constraint reports) are joined.
    std::string msg = e.what();
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    for (size_t i = 0; (i = msg.find('\n', i)) != std::string::npos;) msg.replace(i, 1, " ");
    std::cerr << "fakeexport: error: " << msg << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "fakeexport: internal error: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
