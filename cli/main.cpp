// The fakeexport command line: the command table, parsing, and the one error policy (bad input:
// one line on stderr, exit 2; our own bugs: exit 3).
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/model_export.h"
#include "fakeexport/core/error.h"
#include "fakeexport/library.h"

namespace {

constexpr fe::cli::Command kCommands[] = {
    {"export", "Export a model from its HuggingFace config.json, without data", fe::cli::add_export},
    {"inspect", "Summarize a .pt2 archive (torch.export.save)", fe::cli::add_inspect},
    {"check", "Check a .pt2 program: every node's metadata re-derived, the graph sound (exit 1 if not)",
     fe::cli::add_check},
    {"run", "Run a .pt2 program on CPU tensors, as torch.export.load(f).module()(*inputs)", fe::cli::add_run},
    {"retarget", "Rewrite a .pt2 program for other devices, as if exported there (pins follow the inputs)",
     fe::cli::add_retarget},
    {"decompose", "Lower a .pt2 program or MODEL to Core ATen, as ep.run_decompositions() does",
     fe::cli::add_decompose},
    {"memory", "Will it fit? Per-device memory by liveness: weights, inputs, KV cache, activation peak, verdicts",
     fe::cli::add_memory},
    {"cost", "How fast? FLOPs (FlopCounterMode's and ours), bytes and roofline time per node, op, module and device",
     fe::cli::add_cost},
    {"report", "Show me: one self-contained HTML page (verdict, module graph, memory timeline, roofline, hotspots)",
     fe::cli::add_report},
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fakeexport: torch.export programs in C++, without data"};
  app.require_subcommand(1);
  std::vector<std::string> libraries;
  app.add_option("--load-library", libraries,
                 "LIB.so (repeatable, any command): load a shared library whose static initializers define "
                 "custom ops with fe::library::define, as torch.ops.load_library does")
      ->allow_extra_args(false);  // one path per --load-library: FILE may follow it
  // Resource limits (any command): refused before memory grows, the message naming the flag.
  fe::cli::CliLimits& limits = fe::cli::cli_limits();
  app.add_option("--max-layers", limits.build.max_layers,
                 "most repeated layers a config may ask for (default 1024; Llama-3.1-405B has 126)")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-json-bytes", limits.max_json_bytes, "largest config.json read, in bytes (default 16 MiB)")
      ->check(CLI::PositiveNumber);
  std::map<const CLI::App*, fe::cli::RunFn> runs;
  for (const auto& c : kCommands) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    sub->fallthrough();  // `fakeexport check F.pt2 --load-library L.so`: the option after the command
    runs[sub] = c.add(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    for (const std::string& lib : libraries) fe::library::load(lib);
    for (const auto& [sub, run] : runs)
      if (sub->parsed()) return run();
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
