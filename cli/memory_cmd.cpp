// `fakeexport memory MODEL|FILE.pt2 [placement options of export] [--batch B --seq S] [--devices
// SPEC | --cap DEV=BYTES,...] [--reserve BYTES] [--kv-cache LEN] [--max-batch | --max-seq]
// [--arena] [--json]`: will it fit? Per device: weights, inputs, KV cache and the activation peak by
// liveness (analysis/memory.h), the node where it peaks and what is live there, the peak as a
// formula in batch/seq for dynamic programs, and a verdict against each device's capacity.
// Exit 0 when every device with a known capacity fits (or none is known), 1 when one does not, 2 on
// bad input.
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.h"
#include "cli/memory_plan.h"
#include "cli/model_export.h"
#include "fakeexport/analysis/devices.h"
#include "fakeexport/analysis/memory.h"
#include "fakeexport/core/error.h"
#include "fakeexport/serde/pt2.h"

namespace fe::cli {
namespace {

struct MemoryArgs {
  ExportArgs model;
  CapacityArgs capacity;  ///< --devices/--cap/--reserve/--kv-cache
  bool max_batch = false, max_seq = false;
  bool plan = false;
  bool arena = false, json = false;
};

/// The program to measure and, for MODEL, its config and what its generation cache holds per layer.
struct Subject {
  const ExportedProgram* ep = nullptr;
  std::optional<zoo::Config> config;
  analysis::KvLayout kv_layout;
  std::string title;
  bool archive = false;
};

Subject load_subject(MemoryArgs& a, const std::vector<analysis::DeviceCap>& caps) {
  Subject s;
  const std::string& m = a.model.model;
  const bool archive = m.ends_with(".pt2") || !is_model(m);
  if (archive) {
    FE_CHECK(!a.model.placed(), ValueError, "memory ", m,
             ": placement options apply to MODEL; an archive keeps its devices (move it with `fakeexport retarget`)");
    FE_CHECK(a.model.dynamic.empty() && a.model.dynamic_range.empty(), ValueError, "memory ", m,
             ": --dynamic applies to MODEL; an archive's dynamic dims are the ones it was exported with");
    FE_CHECK(!a.max_batch && !a.max_seq, ValueError, "memory ", m,
             ": --max-batch/--max-seq need MODEL (a config.json or built-in), exported with that dim dynamic");
    // Never freed: the process ends right after the report (see inspect_cmd.cpp).
    s.ep = &kept(new serde::LoadedProgram(serde::load(m, load_options())))->ep;
    s.title = m;
    s.archive = true;
    return s;
  }
  place_on(a.model, caps);
  if (a.max_batch) {
    FE_CHECK(!a.max_seq, ValueError, "memory: give --max-batch or --max-seq, not both");
    FE_CHECK(a.model.batch == -1, ValueError, "memory --max-batch: --batch is what it solves for; give --seq");
    a.model.dynamic = "batch";
    a.model.batch = 2;  // the example of a dynamic dim must not be 0 or 1 (export specializes them)
  }
  if (a.max_seq) {
    FE_CHECK(a.model.seq == -1, ValueError, "memory --max-seq: --seq is what it solves for; give --batch");
    a.model.dynamic = "seq";
  }
  s.config = load_config(m);
  const DType dtype = model_dtype(a.model, *s.config);
  const Exported e = export_model(a.model, *s.config, dtype);
  s.ep = e.ep;
  s.kv_layout = e.model->generation_cache();
  s.title = s.config->model_type() + " (" + s.config->origin() + "), " + std::string(dtype_name(dtype));
  return s;
}

/// The symbol users call `name` ("batch"), or empty.
std::string symbol_named(const analysis::MemoryLedger& l, std::string_view name) {
  for (const auto& [sym, n] : l.symbol_names)
    if (n == name) return sym;
  return {};
}

struct Verdict {
  int64_t capacity = -1;  ///< -1: unknown
  int64_t need = 0;       ///< what the device must hold: peak (allocator-rounded on accelerators) + reserve
  bool fits() const { return capacity < 0 || need <= capacity; }
};

/// Largest value of `name` (batch or seq) in [1, hi] at which every device fits (0: not even 1).
/// The peak grows with it: bisection over the dynamic program's formula, then the answer confirmed
/// on static exports at it and one above (the formula and static ledgers agree; tests hold it).
int64_t solve_max(const MemoryArgs& a, const zoo::Config& cfg, const ExportedProgram& ep, const analysis::MemoryLedger& l,
                  const std::string& name, const std::string& sym, int64_t hi,
                  const std::vector<analysis::DeviceCap>& caps, int64_t reserve) {
  auto formula_fits = [&](int64_t v) {
    for (const analysis::DeviceMemory& d : l.devices) {
      const analysis::DeviceCap* c = cap_of(caps, d.device);
      if (!c) continue;
      auto at = [&](const sym::Expr& e) {
        return e.evaluate([&](std::string_view s) { return s == sym ? v : analysis::example_value(ep, s); });
      };
      // Allocator rounding adds at most 512 bytes per live tensor: its ratio at the example point.
      const double round = d.activation_peak_bytes > 0 ? static_cast<double>(d.activation_peak_allocated_bytes) /
                                                             static_cast<double>(d.activation_peak_bytes)
                                                       : 1.0;
      const int64_t act = at(d.activation_peak_formula);
      const int64_t need = at(d.peak_formula()) - act + static_cast<int64_t>(static_cast<double>(act) * round) + reserve;
      if (need > c->capacity_bytes) return false;
    }
    return true;
  };
  int64_t lo = 0;  // fits (0: vacuously)
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (formula_fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  auto static_fits = [&](int64_t v) {
    ExportArgs b = a.model;
    b.dynamic.clear();
    (name == "batch" ? b.batch : b.seq) = v;
    const Exported e = export_model(b, cfg, model_dtype(b, cfg));
    return ledger_fits(ledger_with_kv(*e.ep, a.capacity.kv_cache, e.model->generation_cache()), caps, reserve);
  };
  for (int i = 0; i < 8 && lo >= 1 && !static_fits(lo); ++i) --lo;
  for (int i = 0; i < 8 && lo + 1 <= hi && static_fits(lo + 1); ++i) ++lo;
  return lo;
}

int run_memory(MemoryArgs a) {
  const Capacities capacities = parse_capacities(a.capacity, "memory", a.model.static_cache);
  const std::vector<analysis::DeviceCap>& caps = capacities.caps;
  const int64_t reserve = capacities.reserve;
  FE_CHECK(!((a.max_batch || a.max_seq) && caps.empty()), ValueError,
           "memory --max-batch/--max-seq: give the devices' capacities (--devices or --cap)");
  std::optional<Plan> plan;
  if (a.plan) {
    FE_CHECK(!caps.empty(), ValueError, "memory --plan: give the devices' capacities (--devices or --cap)");
    FE_CHECK(is_model(a.model.model) && !a.model.model.ends_with(".pt2"), ValueError,
             "memory --plan: needs MODEL (a config.json or built-in), not an archive");
    FE_CHECK(!a.model.placed(), ValueError, "memory --plan chooses the placement: drop --device/--place/--pipeline");
    FE_CHECK(!a.max_batch && !a.max_seq, ValueError, "memory --plan: give --batch/--seq, not --max-batch/--max-seq");
    const zoo::Config cfg = load_config(a.model.model);
    plan = plan_placement({&a.model, &cfg, caps, reserve, a.capacity.kv_cache});
    if (!plan->fits) {
      if (a.json) {
        nlohmann::ordered_json j;
        j["plan"] = nullptr;
        j["fits"] = false;
        j["why"] = plan->why;
        std::cout << j.dump() << "\n";
      } else {
        std::cout << cfg.model_type() << " (" << cfg.origin() << "): does not fit on " << caps.size()
                  << " devices: " << plan->why << "\n";
      }
      return 1;
    }
    a.model.device = caps[0].device.str();
    a.model.place = plan->place;
  }
  const Subject s = load_subject(a, caps);
  const ExportedProgram& ep = *s.ep;

  // An archive's dynamic dims are evaluated at --batch/--seq (its example otherwise).
  analysis::MemoryOptions mo;
  if (s.archive) {
    const auto names = analysis::user_symbol_names(ep);
    for (const auto& [flag, v] : {std::pair<const char*, int64_t>{"batch", a.model.batch}, {"seq", a.model.seq}}) {
      if (v < 0) continue;
      std::string sym;
      for (const auto& [sy, n] : names)
        if (n == flag) sym = sy;
      FE_CHECK(!sym.empty(), ValueError, "memory ", a.model.model, ": --", flag, " ", v, " but the program's ", flag,
               " is static (export it with that dim dynamic, or at that size)");
      mo.values[sym] = v;
    }
  }
  analysis::MemoryLedger l = ledger_with_kv(ep, a.capacity.kv_cache, s.kv_layout, mo);
  std::optional<int64_t> max_value;
  std::string max_name;
  if (a.max_batch || a.max_seq) {
    max_name = a.max_batch ? "batch" : "seq";
    const std::string sym = symbol_named(l, max_name);
    FE_CHECK(!sym.empty(), ValueError, "memory --max-", max_name, ": the exported program has no dynamic ", max_name);
    int64_t hi = 1 << 20;
    for (const auto& [expr, range] : ep.range_constraints)
      if (expr == sym && range.hi < hi) hi = range.hi;
    max_value = solve_max(a, *s.config, ep, l, max_name, sym, hi, caps, reserve);
    // The ledger at the answer: what the largest batch (or sequence) holds on each device.
    if (*max_value >= 1) {
      mo.values[sym] = *max_value;
      l = ledger_with_kv(ep, a.capacity.kv_cache, s.kv_layout, mo);
    }
  }

  std::vector<std::pair<const analysis::DeviceMemory*, Verdict>> verdicts;
  bool all_fit = true;
  for (const analysis::DeviceMemory& d : l.devices) {
    Verdict v;
    if (const analysis::DeviceCap* c = cap_of(caps, d.device)) v.capacity = c->capacity_bytes;
    v.need = required_bytes(d, reserve);
    all_fit &= v.fits();
    verdicts.emplace_back(&d, v);
  }
  const bool symbolic = !l.symbol_names.empty();
  const std::vector<std::pair<Device, int64_t>> reserved = analysis::cuda_reserved(ep, l);
  auto reserved_on = [&](const Device& d) -> int64_t {
    for (const auto& [dev, b] : reserved)
      if (dev == d.normalized()) return b;
    return -1;
  };

  if (a.json) {
    nlohmann::ordered_json j;
    auto& devs = j["devices"] = nlohmann::ordered_json::object();
    for (const auto& [d, v] : verdicts) {
      auto& o = devs[d->device.str()];
      o["parameter_bytes"] = d->parameter_bytes;
      o["buffer_bytes"] = d->buffer_bytes;
      o["constant_bytes"] = d->constant_bytes;
      o["input_bytes"] = d->input_bytes;
      o["kv_cache_bytes"] = d->kv_cache_bytes;
      o["activation_peak_bytes"] = d->activation_peak_bytes;
      o["peak_bytes"] = d->peak_bytes();
      o["activation_peak_allocated_bytes"] = d->activation_peak_allocated_bytes;
      o["reserve_bytes"] = reserve;
      if (const int64_t r = reserved_on(d->device); r >= 0) o["allocator_reserved_bytes"] = r;
      o["required_bytes"] = v.need;
      o["peak_node"] = d->peak_node ? nlohmann::ordered_json(d->peak_node->name()) : nlohmann::ordered_json();
      o["peak_source"] = d->peak_source;
      o["peak_module"] = d->peak_module;
      auto& live = o["largest_live"] = nlohmann::ordered_json::array();
      for (const analysis::LiveTensor& t : d->largest_live)
        live.push_back({{"node", t.node->name()}, {"bytes", t.bytes}, {"meta", t.annotation}, {"module", t.module}});
      if (symbolic) {
        o["peak_formula"] = analysis::formula_str(d->peak_formula(), l.symbol_names);
        o["activation_peak_formula"] = analysis::formula_str(d->activation_peak_formula, l.symbol_names);
      }
      o["capacity_bytes"] = v.capacity >= 0 ? nlohmann::ordered_json(v.capacity) : nlohmann::ordered_json();
      o["fits"] = v.capacity >= 0 ? nlohmann::ordered_json(v.fits()) : nlohmann::ordered_json();
    }
    j["transfer_bytes"] = l.transfer_bytes;
    if (symbolic) {
      auto& syms = j["symbols"] = nlohmann::ordered_json::object();
      for (const auto& [sym, name] : l.symbol_names) syms[sym] = name;
    }
    if (max_value) j[a.max_batch ? "max_batch" : "max_seq"] = *max_value;
    if (plan) j["plan"] = plan->place;
    if (a.arena) {
      auto& ar = j["arena"] = nlohmann::ordered_json::object();
      for (const analysis::Arena& arena : analysis::plan_arenas(l)) {
        auto& o = ar[arena.device.str()];
        o["size_bytes"] = arena.size;
        const analysis::DeviceMemory* d = l.find(arena.device);
        o["liveness_peak_bytes"] = d ? d->activation_peak_bytes : 0;
        auto& slots = o["tensors"] = nlohmann::ordered_json::array();
        for (const analysis::ArenaSlot& t : arena.slots)
          slots.push_back({{"node", t.node->name()}, {"output", t.out}, {"offset", t.offset}, {"bytes", t.bytes},
                           {"first", t.first}, {"last", t.last == analysis::Lifetime::kEnd ? -1 : t.last}});
      }
    }
    std::cout << j.dump() << "\n";
    return all_fit ? 0 : 1;
  }

  std::cout << s.title << ": memory at inference (no_grad), by liveness over " << ep.graph.size() << " nodes\n";
  if (plan) {
    std::cout << "  plan:";
    for (const std::string& p : plan->place) std::cout << " --place " << p;
    std::cout << "\n";
  }
  for (const auto& [d, v] : verdicts) {
    std::cout << "  " << d->device.str() << ": peak " << human_bytes(static_cast<double>(d->peak_bytes())) << " = weights "
              << human_bytes(static_cast<double>(d->parameter_bytes + d->buffer_bytes + d->constant_bytes)) << " + inputs "
              << human_bytes(static_cast<double>(d->input_bytes));
    if (d->kv_cache_bytes) std::cout << " + kv cache " << human_bytes(static_cast<double>(d->kv_cache_bytes));
    std::cout << " + activations " << human_bytes(static_cast<double>(d->activation_peak_bytes)) << "\n";
    if (const int64_t r = reserved_on(d->device); r >= 0)
      std::cout << "    CUDA caching allocator: " << human_bytes(static_cast<double>(required_bytes(*d, 0))) << " allocated at the peak, "
                << human_bytes(static_cast<double>(r)) << " reserved after the run\n";
    if (d->peak_node) {
      std::cout << "    peaks at " << d->peak_node->name();
      if (!d->peak_module.empty()) std::cout << " in " << d->peak_module;
      if (!d->peak_source.empty()) std::cout << " (" << d->peak_source << ")";
      std::cout << "\n";
      for (size_t i = 0; i < d->largest_live.size() && i < 3; ++i)
        std::cout << "      live: " << d->largest_live[i].node->name() << " " << d->largest_live[i].annotation << " "
                  << human_bytes(static_cast<double>(d->largest_live[i].bytes)) << "\n";
    }
    if (symbolic) std::cout << "    peak = " << analysis::formula_str(d->peak_formula(), l.symbol_names) << " bytes\n";
    if (v.capacity >= 0) {
      std::cout << "    " << (v.fits() ? "fits: " : "does not fit: ") << human_bytes(static_cast<double>(v.need))
                << " of " << human_bytes(static_cast<double>(v.capacity));
      if (v.fits()) std::cout << ", " << human_bytes(static_cast<double>(v.capacity - v.need)) << " free\n";
      else std::cout << ", short by " << human_bytes(static_cast<double>(v.need - v.capacity)) << "\n";
    }
  }
  if (l.transfer_bytes) std::cout << "  transfers: " << human_bytes(static_cast<double>(l.transfer_bytes)) << " between devices\n";
  if (max_value) {
    if (*max_value == 0) std::cout << "  max " << max_name << ": none fits (not even 1)\n";
    else std::cout << "  max " << max_name << ": " << *max_value << " (the ledger above is at " << max_name << " "
                   << *max_value << ")\n";
  }
  if (a.arena)
    for (const analysis::Arena& arena : analysis::plan_arenas(l)) {
      const analysis::DeviceMemory* d = l.find(arena.device);
      std::cout << "  arena " << arena.device.str() << ": " << human_bytes(static_cast<double>(arena.size)) << " for "
                << arena.slots.size() << " tensors (liveness peak " << human_bytes(static_cast<double>(d ? d->activation_peak_bytes : 0))
                << ")\n";
    }
  return all_fit ? 0 : 1;
}

}  // namespace

RunFn add_memory(CLI::App& cmd) {
  auto a = std::make_shared<MemoryArgs>();
  cmd.add_option("MODEL", a->model.model, "a .pt2 archive, or MODEL: a config.json, a directory holding one, or a built-in")
      ->required();
  add_model_options(cmd, a->model);
  add_capacity_options(cmd, a->capacity);
  cmd.add_flag("--max-batch", a->max_batch, "the largest batch that fits every device (MODEL, at --seq)");
  cmd.add_flag("--max-seq", a->max_seq, "the largest sequence length that fits every device (MODEL, at --batch)");
  cmd.add_flag("--plan", a->plan,
               "split the repeated layers over --devices/--cap so every device fits, minimizing the largest peak; "
               "prints the split as --place flags");
  cmd.add_flag("--arena", a->arena, "also a static memory plan: one arena per device, every activation at an offset");
  cmd.add_flag("--json", a->json, "print one JSON object: devices{...}, transfer_bytes, symbols, max_batch, arena");
  return [a] { return run_memory(*a); };
}

}  // namespace fe::cli
