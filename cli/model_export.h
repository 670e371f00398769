// The model side of the commands that take MODEL (export, memory): its options (placement, dtype,
// example shapes, dynamic dims), their flags, and the zoo model exported under FakeTensorMode.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fakeexport/analysis/devices.h"
#include "fakeexport/core/dtype.h"
#include "fakeexport/export/exported_program.h"
#include "fakeexport/nn/zoo.h"
#include "fakeexport/serde/pt2.h"

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
  bool attention_mask = false;        ///< --attention-mask
  int64_t seq_multiple = 1;           ///< --seq-multiple: a dynamic seq as N*_seq
  bool verify_full = false;           ///< --verify: re-derive every node's meta after the trace
  bool trace_all_layers = false;      ///< --trace-all-layers: no layer replayed (ExportOptions::replay_repeated)
  int64_t static_cache = -1;          ///< --static-cache LEN: the decode step with a StaticCache; -1: none
  /// Whether any placement flag was given (--device other than cpu, --place, --pipeline).
  bool placed() const { return device != "cpu" || !place.empty() || !pipeline.empty(); }
};

/// Adds the MODEL-side flags (--device, --place, --pipeline, --dtype, --batch, --seq, --dynamic,
/// --dynamic-range, --attention-mask) bound to `a`; the positional MODEL is the caller's.
void add_model_options(CLI::App& cmd, ExportArgs& a);

/// --devices / --cap / --reserve / --kv-cache: the devices a program must fit, shared by memory and
/// report.
struct CapacityArgs {
  std::string devices;    ///< --devices 8xH100-80GB
  std::string cap;        ///< --cap cuda:0=80GB,...
  std::string reserve;    ///< --reserve BYTES per device (CUDA context, workspaces)
  int64_t kv_cache = -1;  ///< --kv-cache LEN; -1: none
};
void add_capacity_options(CLI::App& cmd, CapacityArgs& a);
/// The devices with their capacities and the reserve per device, the flags checked (`cmd` names
/// the command in errors): ValueError for both --devices and --cap, a malformed size or a
/// --kv-cache outside [0, 2^31].
struct Capacities {
  std::vector<analysis::DeviceCap> caps;
  int64_t reserve = 0;
};
/// `static_cache`: the model's --static-cache (-1: none), which --kv-cache must not be added to.
Capacities parse_capacities(const CapacityArgs& a, std::string_view cmd, int64_t static_cache = -1);

/// Devices named by --devices/--cap and no placement flag: one device takes the whole model,
/// several split its layers as --pipeline does (memory --plan chooses a split that fits).
void place_on(ExportArgs& a, const std::vector<analysis::DeviceCap>& caps);

/// MODEL (a built-in name, a config.json or a directory holding one) as a zoo::Config.
zoo::Config load_config(const std::string& model);

/// The resource limits every command applies (global flags --max-layers, --max-json-bytes; their
/// defaults are the library's). Set once by main() after parsing.
struct CliLimits {
  zoo::BuildLimits build;
  int64_t max_json_bytes = zoo::Config::kDefaultMaxJsonBytes;
  serde::ReadLimits read;   ///< --max-record-bytes, --max-nodes
  int64_t max_seconds = 600;  ///< --max-seconds: the whole command's wall time (0: none)
};
CliLimits& cli_limits();
/// serde::load's options with the CLI's read limits.
serde::LoadOptions load_options(bool materialize_weights = false);
/// A validator for an integer flag in [lo, hi] whose message says so in one line.
CLI::Validator int_range(int64_t lo, int64_t hi);
/// --dtype, else the config's torch_dtype (transformers 5 writes `dtype`), else float32.
DType model_dtype(const ExportArgs& a, const zoo::Config& c);

/// The model of `a` built, placed and exported (never freed: the process ends after the command;
/// tearing down a 126-layer program costs more than exporting half of it).
struct Exported {
  ExportedProgram* ep;
  zoo::Model* model;
};
Exported export_model(const ExportArgs& a, const zoo::Config& cfg, DType dtype);

/// The batch of the program's first user input (dim 0 at its example; 1 when none).
int64_t program_batch(const ExportedProgram& ep);

/// "1.50 GiB"
std::string human_bytes(double b);
/// "8,030,261,248"
std::string grouped(int64_t v);
/// "a,b,c" -> {"a", "b", "c"}
std::vector<std::string> split(const std::string& s, char sep);

}  // namespace fe::cli
