// The MODEL side of export and memory (cli/model_export.h).
#include "cli/model_export.h"

#include "cli/commands.h"

#include <filesystem>
#include <optional>
#include <sstream>

#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"

namespace fe::cli {
namespace {

DType parse_dtype(const std::string& s, const std::string& where) {
  if (s == "float32" || s == "float") return DType::Float32;
  if (s == "bfloat16") return DType::BFloat16;
  if (s == "float16" || s == "half") return DType::Float16;
  throw ValueError(detail::cat(where, ": unsupported dtype '", s, "' (float32, bfloat16 or float16)"));
}

Device parse_device(const std::string& s, const std::string& where) {
  try {
    return Device::parse(s);
  } catch (const UserError& e) {
    throw ValueError(detail::cat(where, ": ", e.what()));
  }
}

/// The whole of `s` as an int64; nullopt for anything else (trailing text, overflow, empty).
std::optional<int64_t> whole_int(const std::string& s) {
  size_t pos = 0;
  int64_t v = 0;
  try {
    v = std::stoll(s, &pos);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (pos != s.size() || s.empty()) return std::nullopt;
  return v;
}

int64_t parse_int(const std::string& s, const std::string& where) {
  const std::optional<int64_t> v = whole_int(s);
  FE_CHECK(v, ValueError, where, ": expected an integer, got '", s, "'");
  return *v;
}

zoo::InputOptions input_options(const ExportArgs& a) {
  zoo::InputOptions o;
  o.batch = a.batch;
  o.seq = a.seq;
  o.attention_mask = a.attention_mask;
  FE_CHECK(a.batch == -1 || a.batch >= 1, ValueError, "--batch must be >= 1, got ", a.batch);
  FE_CHECK(a.seq == -1 || a.seq >= 1, ValueError, "--seq must be >= 1, got ", a.seq);
  if (!a.dynamic.empty())
    for (const std::string& d : split(a.dynamic, ',')) {
      if (d == "batch") o.dynamic_batch = true;
      else if (d == "seq") o.dynamic_seq = true;
      else throw ValueError(detail::cat("--dynamic: unknown dimension '", d, "' (batch, seq)"));
    }
  for (const std::string& r : a.dynamic_range) {
    const auto eq = r.find('='), colon = r.find(':');
    FE_CHECK(eq != std::string::npos && colon != std::string::npos && colon > eq, ValueError,
             "--dynamic-range: expected NAME=MIN:MAX (e.g. seq=2:4096), got '", r, "'");
    const std::string name = r.substr(0, eq);
    const int64_t lo = parse_int(r.substr(eq + 1, colon - eq - 1), "--dynamic-range " + r);
    const int64_t hi = parse_int(r.substr(colon + 1), "--dynamic-range " + r);
    FE_CHECK(lo >= 0 && lo <= hi, ValueError, "--dynamic-range ", r, ": need 0 <= MIN <= MAX");
    if (name == "batch") o.batch_min = lo, o.batch_max = hi, o.dynamic_batch = true;
    else if (name == "seq") o.seq_min = lo, o.seq_max = hi, o.dynamic_seq = true;
    else throw ValueError(detail::cat("--dynamic-range: unknown dimension '", name, "' (batch, seq)"));
  }
  o.seq_multiple = a.seq_multiple;
  FE_CHECK(a.seq_multiple == 1 || o.dynamic_seq, ValueError, "--seq-multiple ", a.seq_multiple,
           " needs a dynamic seq (--dynamic seq or --dynamic-range seq=MIN:MAX)");
  // The example must make the new root _seq at least 2: PyTorch specializes a root of 1.
  const int64_t example_seq = a.seq == -1 ? 8 : a.seq;
  FE_CHECK(a.seq_multiple == 1 || (example_seq % a.seq_multiple == 0 && example_seq >= 2 * a.seq_multiple), ValueError,
           "--seq-multiple ", a.seq_multiple, " needs an example --seq that is a multiple of it, at least ",
           2 * a.seq_multiple, " (export specializes _seq = 1), got ", example_seq, a.seq == -1 ? " (the default)" : "");
  // PyTorch specializes size-0/1 example dims (0/1 specialization): say so instead of its
  // multi-line constraint report.
  FE_CHECK(!o.dynamic_batch || a.batch != 1, ValueError,
           "--dynamic batch needs an example --batch of at least 2 (export specializes a size-1 dim), got 1");
  FE_CHECK(!o.dynamic_seq || a.seq == -1 || a.seq >= 2, ValueError,
           "--dynamic seq needs an example --seq of at least 2 (export specializes a size-1 dim), got ", a.seq);
  return o;
}

}  // namespace

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, sep);) out.push_back(item);
  return out;
}

DType model_dtype(const ExportArgs& a, const zoo::Config& c) {
  if (!a.dtype.empty()) return parse_dtype(a.dtype, "--dtype");
  for (const char* key : {"torch_dtype", "dtype"})
    if (!c.is_null(key)) return parse_dtype(c.get_string(key), c.origin() + ": field '" + key + "'");
  return DType::Float32;
}

void add_capacity_options(CLI::App& cmd, CapacityArgs& a) {
  cmd.add_option("--devices", a.devices, "accelerators by catalogue name: 8xH100-80GB, 2xA100-80GB,2xL4 (cuda:0, cuda:1, ...)");
  cmd.add_option("--cap", a.cap, "capacities by device: cuda:0=80GB,cuda:1=40GiB,cpu=512GiB");
  cmd.add_option("--reserve", a.reserve, "bytes per device outside the program (CUDA context, workspaces), e.g. 1GiB");
  cmd.add_option("--kv-cache", a.kv_cache, "LEN: add the key/value cache a generation of LEN tokens holds (decoders)");
}

Capacities parse_capacities(const CapacityArgs& a, std::string_view cmd, int64_t static_cache) {
  FE_CHECK(a.devices.empty() || a.cap.empty(), ValueError, cmd, ": give --devices or --cap, not both");
  Capacities c;
  if (!a.devices.empty()) c.caps = analysis::parse_device_list(a.devices);
  if (!a.cap.empty()) c.caps = analysis::parse_caps(a.cap);
  c.reserve = a.reserve.empty() ? 0 : analysis::parse_bytes(a.reserve, "--reserve");
  // A cache longer than 2^31 tokens is no model's context: refuse it before its bytes overflow.
  FE_CHECK(a.kv_cache >= -1 && a.kv_cache <= (int64_t{1} << 31), ValueError,
           "--kv-cache: expected a length in [0, 2147483648] tokens, got ", a.kv_cache);
  FE_CHECK(a.kv_cache < 0 || static_cache < 0, ValueError, cmd,
           ": --kv-cache estimates the cache a prefill program lacks; the decode step of --static-cache holds "
           "its cache already (give one of them)");
  return c;
}

void keep_alive(const void* p) {
  // A global pointer to a never-freed vector: everything it lists stays reachable at exit.
  static std::vector<const void*>* const kept_objects = new std::vector<const void*>;
  kept_objects->push_back(p);
}

CliLimits& cli_limits() {
  static CliLimits limits;
  return limits;
}

serde::LoadOptions load_options(bool materialize_weights) {
  return {.materialize_weights = materialize_weights, .limits = cli_limits().read};
}

CLI::Validator int_range(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        const std::optional<int64_t> v = whole_int(s);
        if (v && *v >= lo && *v <= hi) return "";
        return detail::cat("expected an integer in [", lo, ", ", hi, "], got '", s, "'");
      },
      detail::cat("INT in [", lo, ", ", hi, "]"));
}

zoo::Config load_config(const std::string& model) {
  std::error_code ec;
  if (std::filesystem::exists(model, ec)) return zoo::Config::from_file(model, cli_limits().max_json_bytes);
  if (model.find('/') != std::string::npos || model.ends_with(".json"))
    throw ValueError(detail::cat(model, ": no such file or directory"));
  return zoo::builtin_config(model);
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, ++u;
  std::ostringstream os;
  os.precision(u == 0 ? 0 : 2);
  os << std::fixed << b << " " << units[u];
  return os.str();
}

std::string grouped(int64_t v) {
  std::string s = std::to_string(v), out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out;
}

Exported export_model(const ExportArgs& a, const zoo::Config& cfg, DType dtype) {
  const Device device = parse_device(a.device, "--device");
  const zoo::InputOptions io = input_options(a);
  FakeTensorMode fake;
  // from_config(dtype=...) builds under that default dtype; the forward (the trace) runs under the
  // process's, float32 (python floats in where(cond, 1.0, 2.0) or full(..., 0.5) take it).
  std::optional<DTypeScope> dscope(std::in_place, dtype);
  DeviceScope devscope(device);
  std::unique_ptr<zoo::Model> model = zoo::build(cfg, cli_limits().build);
  zoo::Placement placement(device);
  if (!a.pipeline.empty()) {
    std::vector<Device> devs;
    for (const std::string& d : split(a.pipeline, ',')) devs.push_back(parse_device(d, "--pipeline"));
    placement = zoo::Placement::pipeline(model->units(), devs);
  }
  for (const std::string& p : a.place) {
    const auto eq = p.rfind('=');
    FE_CHECK(eq != std::string::npos && eq > 0 && eq + 1 < p.size(), ValueError,
             "--place: expected PREFIX=DEVICE (e.g. model.layers.0-39=cuda:0), got '", p, "'");
    placement.add(p.substr(0, eq), parse_device(p.substr(eq + 1), "--place " + p));
  }
  if (!placement.empty()) zoo::place(*model, placement);
  if (a.static_cache > 0) model = zoo::with_static_cache(std::move(model), a.batch > 0 ? a.batch : 1, a.static_cache);
  zoo::ExampleInputs in = model->example_inputs(io);  // floating inputs in the model's dtype, as a user casts them
  dscope.reset();
  // The process ends right after this command: model and program are deliberately never freed
  // (tearing down a 126-layer program costs more than exporting half of it; compilers do the same).
  // PyTorch's export verifies structure, not every fake-tensor propagation again; --verify (and
  // `check MODEL`) re-run each node's meta as well.
  const zoo::ExportHints hints = model->export_hints();
  ExportedProgram* ep = kept(new ExportedProgram(export_program(
      *model, in.args,
      {.dynamic_shapes = in.dynamic_shapes,
       .verify = a.verify_full ? VerifyLevel::Full : VerifyLevel::Structure,
       .strict = hints.strict,
       .state_access_paths = hints.state_access_paths,
       .kwarg_inputs = hints.kwarg_inputs,
       .grad_enabled = !hints.no_grad,
       .replay_repeated = !a.trace_all_layers})));
  return {ep, kept(model.release())};
}

void place_on(ExportArgs& a, const std::vector<analysis::DeviceCap>& caps) {
  if (a.placed() || caps.empty()) return;
  if (caps.size() == 1) a.device = caps[0].device.str();
  else
    for (const analysis::DeviceCap& c : caps) a.pipeline += (a.pipeline.empty() ? "" : ",") + c.device.str();
}

int64_t program_batch(const ExportedProgram& ep) {
  const auto phs = ep.graph.placeholders();
  for (size_t i = 0; i < ep.signature.inputs.size() && i < phs.size(); ++i)
    if (ep.signature.inputs[i].kind == InputKind::UserInput && phs[i]->val.size() == 1 && phs[i]->val[0].dim() >= 1)
      return phs[i]->val[0].sizes[0].hint();
  return 1;
}

void add_model_options(CLI::App& cmd, ExportArgs& a) {
  cmd.add_option("--device", a.device, "device of the whole model (default cpu)");
  cmd.add_option("--place", a.place, "PREFIX=DEV, repeatable; ranges like model.layers.0-39=cuda:0")
      ->allow_extra_args(false);
  cmd.add_option("--pipeline", a.pipeline, "DEV1,DEV2,...: repeated layers split evenly, embeddings first, head last");
  cmd.add_option("--dtype", a.dtype, "float32|bfloat16|float16 (default: the config's torch_dtype, else float32)");
  // Example sizes beyond 2^31 are no model's input: refused here, before strides overflow.
  cmd.add_option("--batch", a.batch, "example batch size")->check(int_range(1, int64_t{1} << 31));
  cmd.add_option("--seq", a.seq, "example sequence length")->check(int_range(1, int64_t{1} << 31));
  cmd.add_option("--dynamic", a.dynamic, "batch,seq: dynamic dims (batch in [1, 1024], seq in [2, max positions])");
  cmd.add_option("--dynamic-range", a.dynamic_range, "NAME=MIN:MAX, repeatable (e.g. seq=2:4096)")
      ->allow_extra_args(false);
  cmd.add_option("--seq-multiple", a.seq_multiple,
                 "N: a dynamic seq as N*_seq, PyTorch's suggested fix where a kernel pads it (CUDA attention "
                 "with a mask: 8)")
      ->check(int_range(1, 1 << 20));
  cmd.add_flag("--verify", a.verify_full,
               "after the trace, re-run every node's meta function on its recorded inputs (as `check` does); "
               "by default the program's structure is verified, as torch.export does");
  cmd.add_flag("--trace-all-layers", a.trace_all_layers,
               "trace every decoder layer; by default, once two layers in a row give the same nodes, the later "
               "layers alike are added from them (the same program, faster)");
  cmd.add_option("--static-cache", a.static_cache,
                 "LEN: export the decode step with transformers' StaticCache of LEN tokens, as "
                 "convert_and_export_with_cache does (inputs input_ids [batch, seq] and cache_position [seq]; "
                 "seq defaults to 1, batch to 1; the cache as buffers; --dynamic seq: the step's tokens up to LEN-1)")
      ->check(int_range(1, int64_t{1} << 31));
  cmd.add_flag("--attention-mask", a.attention_mask,
               "decoder LMs: also take attention_mask [batch, seq] (an all-ones example), as model(input_ids, attention_mask)");
}

}  // namespace fe::cli
