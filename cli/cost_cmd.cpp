// `fakeexport cost MODEL|FILE.pt2 [placement options of export] [--devices SPEC] [--top N] [--json]`:
// how fast, and where does the time go? FLOPs per node (FlopCounterMode's formulas, plus the ops it
// leaves out), bytes read and written, and a roofline time per node on its device from the
// catalogue; per op, per module and per device totals, transfers over the link, and one forward
// pass's latency through the pipeline (analysis/cost.h, docs/cost.md).
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.h"
#include "cli/model_export.h"
#include "fakeexport/analysis/cost.h"
#include "fakeexport/analysis/memory.h"
#include "fakeexport/core/error.h"
#include "fakeexport/export/check.h"
#include "fakeexport/serde/pt2.h"

namespace fe::cli {
namespace {

struct CostArgs {
  ExportArgs model;
  std::string devices;  ///< --devices 8xH100-80GB
  int top = 10;
  int64_t decode = -1;  ///< --decode LEN: one generation step with a cache of LEN tokens
  bool json = false;
};

/// "1.23 TFLOP"
std::string human_flops(double f) {
  const char* units[] = {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP"};
  int u = 0;
  while (f >= 1000 && u < 6) f /= 1000, ++u;
  std::ostringstream os;
  os.precision(u == 0 ? 0 : 2);
  os << std::fixed << f << " " << units[u];
  return os.str();
}

std::string human_seconds(double s) {
  std::ostringstream os;
  os.precision(3);
  if (s >= 1) os << std::fixed << s << " s";
  else if (s >= 1e-3) os << std::fixed << s * 1e3 << " ms";
  else os << std::fixed << s * 1e6 << " us";
  return os.str();
}

/// A symbolic size the costs were evaluated at: the export's example value (a program holds no
/// other), or for a size read from data (`u0`) the value recorded when it was exported.
struct AssumedSize {
  std::string symbol, name;  ///< "s43", "batch" (empty when the dim has no user name)
  int64_t value = 0;
  bool from_data = false;
};

std::vector<AssumedSize> assumed_sizes(const ExportedProgram& ep) {
  const auto names = analysis::user_symbol_names(ep);
  std::vector<AssumedSize> out;
  for (const auto& [sym, range] : ep.range_constraints) {
    if (sym.empty() || !std::all_of(sym.begin() + 1, sym.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    const auto it = names.find(sym);
    out.push_back({sym, it == names.end() ? "" : it->second, analysis::example_value(ep, sym), sym[0] == 'u'});
  }
  return out;
}

int run_cost(CostArgs a) {
  FE_CHECK(a.top >= 0, ValueError, "--top must be >= 0, got ", a.top);
  const std::vector<analysis::DeviceCap> caps =
      a.devices.empty() ? std::vector<analysis::DeviceCap>{} : analysis::parse_device_list(a.devices);
  const std::string& m = a.model.model;
  analysis::KvLayout kv_layout;  // MODEL's generation cache per layer
  const bool archive = m.ends_with(".pt2") || !is_model(m);
  std::string title = m;
  const ExportedProgram* ep = nullptr;
  if (archive) {
    FE_CHECK(!a.model.placed(), ValueError, "cost ", m,
             ": placement options apply to MODEL; an archive keeps its devices (move it with `fakeexport retarget`)");
    ep = &kept(new serde::LoadedProgram(serde::load(m, load_options())))->ep;
  } else {
    place_on(a.model, caps);
    const zoo::Config cfg = load_config(m);
    if (a.decode >= 0) {
      FE_CHECK(a.model.seq == -1 || a.model.seq == 1, ValueError, "cost --decode: a step takes one new token per sequence; drop --seq");
      FE_CHECK(a.model.dynamic.empty(), ValueError, "cost --decode: export static shapes (drop --dynamic)");
      a.model.seq = 1;
    }
    const DType dtype = model_dtype(a.model, cfg);
    const Exported e = export_model(a.model, cfg, dtype);
    ep = e.ep;
    kv_layout = e.model->generation_cache();
    title = cfg.model_type() + " (" + cfg.origin() + "), " + std::string(dtype_name(dtype));
  }
  analysis::CostReport r = analysis::program_cost(*ep, caps);
  int64_t batch = 1;
  if (a.decode >= 0) {
    FE_CHECK(!archive, ValueError, "cost --decode needs MODEL (a config.json or built-in): it exports the one-token step");
    FE_CHECK(a.decode >= 1 && a.decode <= (int64_t{1} << 31), ValueError,
             "--decode: expected a cache length in [1, 2147483648] tokens, got ", a.decode);
    batch = program_batch(*ep);
    analysis::add_decode_attention(r, *ep, a.decode, batch, caps, kv_layout);
  }
  // The most expensive nodes: by time where the roofline knows the device, else by FLOPs.
  std::vector<const analysis::NodeCost*> hot;
  for (const analysis::NodeCost& c : r.nodes) hot.push_back(&c);
  std::stable_sort(hot.begin(), hot.end(), [](const auto* x, const auto* y) {
    return x->time_s() != y->time_s() ? x->time_s() > y->time_s() : x->flops > y->flops;
  });
  if (hot.size() > static_cast<size_t>(a.top)) hot.resize(static_cast<size_t>(a.top));

  const std::vector<AssumedSize> sizes = assumed_sizes(*ep);
  if (a.json) {
    nlohmann::ordered_json j;
    j["flops"] = r.flops;
    j["flop_counter_flops"] = r.flop_counter_flops;
    j["bytes"] = r.bytes;
    auto& ops = j["by_op"] = nlohmann::ordered_json::object();
    for (const auto& [op, c] : r.by_op)
      ops[op] = {{"count", c.count}, {"flops", c.flops}, {"flop_counter_flops", c.flop_counter_flops}, {"bytes", c.bytes},
                 {"time_s", c.time_s}};
    // What FlopCounterMode leaves out: every op with FLOPs of ours and none of its.
    auto& left = j["not_counted_by_flop_counter"] = nlohmann::ordered_json::object();
    for (const auto& [op, c] : r.by_op)
      if (c.flops > c.flop_counter_flops) left[op] = {{"flops", c.flops - c.flop_counter_flops}, {"bytes", c.bytes}};
    auto& devs = j["devices"] = nlohmann::ordered_json::object();
    for (const analysis::DeviceCost& d : r.devices) {
      auto& o = devs[d.device.str()];
      o["flops"] = d.flops;
      o["bytes"] = d.bytes;
      o["spec"] = d.spec ? nlohmann::ordered_json(d.spec->name) : nlohmann::ordered_json();
      o["time_s"] = d.spec ? nlohmann::ordered_json(d.time_s) : nlohmann::ordered_json();
      o["bound"] = d.spec ? nlohmann::ordered_json(std::string(d.bound())) : nlohmann::ordered_json();
    }
    auto& mods = j["by_module"] = nlohmann::ordered_json::object();
    for (const auto& [mod, c] : r.by_module) mods[mod] = {{"flops", c.flops}, {"bytes", c.bytes}, {"time_s", c.time_s}};
    // Every count above is at these values of the program's symbolic sizes.
    auto& sz = j["sizes"] = nlohmann::ordered_json::array();
    for (const AssumedSize& z : sizes)
      sz.push_back({{"symbol", z.symbol}, {"name", z.name}, {"value", z.value},
                    {"from", z.from_data ? "recorded example of a size read from data" : "export example"}});
    j["transfer_bytes"] = r.transfer_bytes;
    j["transfer_s"] = r.transfer_s;
    j["latency_s"] = caps.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.latency_s);
    if (a.decode >= 0) {
      j["decode"] = {{"cache_length", a.decode}, {"batch", batch}, {"step_s", caps.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.latency_s)},
                     {"tokens_per_s", caps.empty() || r.latency_s <= 0 ? nlohmann::ordered_json()
                                                                       : nlohmann::ordered_json(static_cast<double>(batch) / r.latency_s)}};
    }
    auto& h = j["hotspots"] = nlohmann::ordered_json::array();
    for (const analysis::NodeCost* c : hot)
      h.push_back({{"node", c->graph.empty() ? c->node->name() : c->graph + "/" + c->node->name()},
                   {"target", c->target},
                   {"kind", std::string(analysis::cost_kind_name(c->kind))},
                   {"device", c->device.str()},
                   {"flops", c->flops},
                   {"bytes", c->bytes_read + c->bytes_written},
                   {"time_s", c->time_s()},
                   {"bound", c->time_s() == 0 ? "" : c->compute_bound() ? "compute" : "memory"},
                   {"module", node_module(*c->node)},
                   {"source", node_source(*c->node)}});
    std::cout << j.dump() << "\n";
    return 0;
  }
  std::cout << title << ": " << human_flops(static_cast<double>(r.flops)) << " ("
            << human_flops(static_cast<double>(r.flop_counter_flops)) << " as FlopCounterMode counts), "
            << human_bytes(static_cast<double>(r.bytes)) << " read and written\n";
  if (!sizes.empty()) {
    // The costs are of one size of a dynamic program: say which, and which of it came from data.
    std::cout << "  at the export's example sizes:";
    for (size_t i = 0; i < sizes.size(); ++i) {
      const AssumedSize& z = sizes[i];
      std::cout << (i ? ", " : " ") << (z.name.empty() ? z.symbol : z.name + " (" + z.symbol + ")") << " = " << z.value
                << (z.from_data ? " (read from data: its recorded example)" : "");
    }
    std::cout << "\n";
  }
  for (const analysis::DeviceCost& d : r.devices) {
    std::cout << "  " << d.device.str() << ": " << human_flops(static_cast<double>(d.flops)) << ", "
              << human_bytes(static_cast<double>(d.bytes));
    if (d.spec) std::cout << "; on " << d.spec->name << " " << human_seconds(d.time_s) << " (" << d.bound() << "-bound)";
    std::cout << "\n";
  }
  if (r.transfer_bytes)
    std::cout << "  transfers: " << human_bytes(static_cast<double>(r.transfer_bytes))
              << (r.transfer_s > 0 ? ", " + human_seconds(r.transfer_s) : std::string()) << "\n";
  if (!caps.empty() && a.decode < 0) std::cout << "  one forward pass: " << human_seconds(r.latency_s) << "\n";
  if (!caps.empty() && a.decode >= 0 && r.latency_s > 0)
    std::cout << "  decode step (cache of " << a.decode << " tokens, batch " << batch << "): " << human_seconds(r.latency_s)
              << ", " << std::setprecision(batch / r.latency_s < 10 ? 3 : 0) << std::fixed
              << static_cast<double>(batch) / r.latency_s << " tokens/s\n";
  if (!hot.empty()) std::cout << "  hotspots:\n";
  for (const analysis::NodeCost* c : hot) {
    std::cout << "    " << c->node->name() << " " << c->target << " " << human_flops(static_cast<double>(c->flops)) << " "
              << human_bytes(static_cast<double>(c->bytes_read + c->bytes_written));
    if (c->time_s() > 0) std::cout << " " << human_seconds(c->time_s()) << (c->compute_bound() ? " compute" : " memory");
    if (const std::string mod = node_module(*c->node); !mod.empty()) std::cout << " in " << mod;
    std::cout << "\n";
  }
  return 0;
}

}  // namespace

RunFn add_cost(CLI::App& cmd) {
  auto a = std::make_shared<CostArgs>();
  cmd.add_option("MODEL", a->model.model, "a .pt2 archive, or MODEL: a config.json, a directory holding one, or a built-in")
      ->required();
  add_model_options(cmd, a->model);
  cmd.add_option("--devices", a->devices, "accelerators by catalogue name for the roofline: 8xH100-80GB, 2xL4");
  cmd.add_option("--top", a->top, "how many hotspots to list (default 10)");
  cmd.add_option("--decode", a->decode,
                 "LEN: one generation step with a KV cache of LEN tokens (MODEL exported at seq 1, plus reading the "
                 "cache and attending over it): step time and tokens/s");
  cmd.add_flag("--json", a->json,
               "print one JSON object: flops, flop_counter_flops, bytes, by_op, not_counted_by_flop_counter, devices, "
               "by_module, sizes (the symbolic sizes' values used), transfer_bytes, transfer_s, latency_s, hotspots");
  return [a] { return run_cost(*a); };
}

}  // namespace fe::cli
