// The fakeexport command line: the command table, parsing, and the one error policy (bad input:
// one line on stderr, exit 2; our own bugs: exit 3).
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"
#include "cli/heap.h"
#include "fakeexport/core/scopes.h"
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

/// The --max-seconds limit: a command still running when it expires ends with one line and exit 2
/// (a CI pipeline gets a clear "no" instead of a hang). Only async-signal-safe calls in the handler.
void arm_time_limit(unsigned seconds) {
  static char msg[160];
  std::snprintf(msg, sizeof msg,
                "fakeexport: error: the command ran past its time limit of %u s (raise it with --max-seconds, 0 for none)\n",
                seconds);
  struct sigaction sa {};
  sa.sa_handler = [](int) {
    [[maybe_unused]] ssize_t n = ::write(2, msg, std::strlen(msg));
    ::_exit(2);
  };
  ::sigaction(SIGALRM, &sa, nullptr);
  ::alarm(seconds);
}

/// The command the line names, or nullptr (none: `--help`, a typo): the first argument that is
/// neither an option of `app` (the global ones, all added) nor an option's value. Why: only the
/// named command's option table is built (building all nine was 0.35 ms of a 10 ms export); with
/// none named, all are, for the help and the error CLI11 gives.
const fe::cli::Command* named_command(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a.starts_with("-")) {
      if (a.find('=') != std::string_view::npos) continue;  // --arch=sm80
      const CLI::Option* opt = app.get_option_no_throw(std::string(a));
      if (opt && opt->get_items_expected_min() > 0) ++i;  // its value follows
      continue;
    }
    for (const auto& c : kCommands)
      if (a == c.name) return &c;
    return nullptr;
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  fe::cli::prefer_huge_page_heap();
  CLI::App app{"fakeexport: torch.export programs in C++, without data"};
  app.require_subcommand(1);
  std::vector<std::string> libraries;
  app.add_option("--load-library", libraries,
                 "LIB.so (repeatable, any command): load a shared library whose static initializers define "
                 "custom ops with fe::library::define, as torch.ops.load_library does")
      ->allow_extra_args(false);  // one path per --load-library: FILE may follow it
  // Resource limits (any command): refused before memory grows, the message naming the flag.
  fe::cli::CliLimits& limits = fe::cli::cli_limits();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  app.add_option("--max-layers", limits.build.max_layers,
                 "most repeated layers a config may ask for (default 1024; Llama-3.1-405B has 126)")
      ->check(fe::cli::int_range(1, kMax));
  app.add_option("--max-json-bytes", limits.max_json_bytes, "largest config.json read, in bytes (default 16 MiB)")
      ->check(fe::cli::int_range(1, kMax));
  app.add_option("--max-record-bytes", limits.read.max_record_bytes,
                 "largest JSON record of a .pt2 archive read, in bytes (default 256 MiB; 405B's model.json is 9.6 MB)")
      ->check(fe::cli::int_range(1, kMax));
  app.add_option("--max-nodes", limits.read.max_nodes,
                 "most nodes a .pt2 program may hold, subgraphs included (default 1,000,000; 405B has 9,065)")
      ->check(fe::cli::int_range(1, kMax));
  app.add_option("--max-seconds", limits.max_seconds, "wall-clock limit of the whole command (default 600; 0: none)")
      ->check(fe::cli::int_range(0, 1 << 30));
  std::string arch = "sm90";
  app.add_option("--arch", arch,
                 "sm80|sm90 (any command): the GPU generation CUDA choices assume: which attention kernel "
                 "scaled_dot_product_attention runs on cuda (sm90: cuDNN first, as PyTorch >= 2.10 with CUDA 13; "
                 "sm80: flash, then memory-efficient), which changes the program's layouts and its lowering (default sm90)");
  std::map<const CLI::App*, fe::cli::RunFn> runs;
  const fe::cli::Command* named = named_command(app, argc, argv);
  for (const auto& c : kCommands) {
    if (named && &c != named) continue;
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    sub->fallthrough();  // `fakeexport check F.pt2 --load-library L.so`: the option after the command
    runs[sub] = c.add(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Bad flags are bad input like any other: one line, exit 2.
    std::cerr << "fakeexport: error: " << e.what() << " (see --help)\n";
    return 2;
  }
  if (limits.max_seconds > 0) arm_time_limit(static_cast<unsigned>(limits.max_seconds));
  try {
    const fe::CudaArchScope arch_scope(fe::parse_cuda_arch(arch));
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
