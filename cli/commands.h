// The fakeexport command line: one file per command (its options struct, its flags and its run
// function), listed once in the command table of cli/main.cpp. Each `add_<cmd>` adds the
// command's flags to its CLI11 subcommand and returns the function that runs it after parsing.
// Exit codes everywhere: 0 success, 1 a negative answer (check found problems), 2 bad input.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "fakeexport/core/device.h"
#include "fakeexport/export/exported_program.h"

namespace fe::cli {

using RunFn = std::function<int()>;

RunFn add_export(CLI::App& cmd);   ///< export MODEL: a zoo model exported without data (export_cmd.cpp)
RunFn add_inspect(CLI::App& cmd);  ///< inspect FILE.pt2: what an archive holds (inspect_cmd.cpp)
RunFn add_check(CLI::App& cmd);    ///< check FILE.pt2: is the program internally true (check_cmd.cpp)
RunFn add_run(CLI::App& cmd);      ///< run FILE.pt2: ep.module()(*inputs) on CPU (run_cmd.cpp)
RunFn add_retarget(CLI::App& cmd); ///< retarget FILE.pt2: the program exported elsewhere (retarget_cmd.cpp)
RunFn add_decompose(CLI::App& cmd); ///< decompose FILE.pt2|MODEL: lowered to Core ATen (decompose_cmd.cpp)
RunFn add_memory(CLI::App& cmd);   ///< memory FILE.pt2|MODEL: per-device ledger and verdicts (memory_cmd.cpp)
RunFn add_cost(CLI::App& cmd);     ///< cost FILE.pt2|MODEL: FLOPs, bytes and roofline time (cost_cmd.cpp)
RunFn add_report(CLI::App& cmd);   ///< report FILE.pt2|MODEL -o page.html: the HTML report (report_cmd.cpp)

/// MODEL (a built-in name, a config.json or a directory holding one) exported as `fakeexport export
/// MODEL` does by default: on cpu, the way users export before they own the GPU (export_cmd.cpp).
const ExportedProgram& export_model_on_cpu(const std::string& model);

/// A built-in zoo name or a config.json / directory holding one (not an archive) (check_cmd.cpp).
bool is_model(const std::string& s);

/// "cuda:0,cpu" -> devices; ValueError naming `flag` for an empty or malformed item.
std::vector<Device> parse_devices(const std::string& s, const char* flag);

/// `p`, deliberately never freed: the process ends after its command, and tearing down a 126-layer
/// program costs more than exporting half of it. Held from a global so that leak checkers
/// (LeakSanitizer, scripts/sanitize) see it reachable rather than lost.
void keep_alive(const void* p);
template <class T>
T* kept(T* p) {
  keep_alive(p);
  return p;
}

/// One row of the command table.
struct Command {
  const char* name;
  const char* summary;
  RunFn (*add)(CLI::App& cmd);
};

}  // namespace fe::cli
