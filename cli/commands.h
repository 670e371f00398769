// The subcommands of the fakeexport command line (cli/main.cpp parses, these run).
#pragma once
#include <string>
#include <vector>

namespace fe::cli {

struct ExportArgs {
  std::string model;                  ///< built-in name, config.json, or a directory holding one
  std::string device = "cpu";
  std::vector<std::string> place;     ///< PREFIX=DEV
  std::string pipeline;               ///< DEV1,DEV2,...
  std::string dtype;                  ///< empty: the config's torch_dtype, else float32
  int64_t batch = -1, seq = -1;
  std::string dynamic;                ///< "batch", "seq", "batch,seq"
  std::vector<std::string> dynamic_range;  ///< NAME=MIN:MAX
  std::string output;                 ///< -o FILE.pt2
  std::string weights = "none";       ///< none|zeros|random|FILE.safetensors
  bool print = false, json = false;
};

/// `fakeexport export`: build, place, export; print a summary, the program, or JSON; save.
int run_export(const ExportArgs& a);

}  // namespace fe::cli
