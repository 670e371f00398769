// `memory --plan` (cli/memory_plan.h). The repeated layers are items in forward order, each costing
// its weights and KV cache (the units before the first layer ride with it, the units after the last
// with it); devices are ordered bins holding weights up to min(capacity - reserve - activations, T).
// Filling bins in order is optimal for contiguous splits into ordered bins, so the smallest T that
// places every layer is found by bisection; the plan is then exported and its real ledger checked.
#include "cli/memory_plan.h"

#include <algorithm>
#include <map>
#include <set>

#include "fakeexport/core/error.h"

namespace fe::cli {
namespace {

struct Item {
  int64_t bytes = 0;               ///< weights + KV cache of the layer and the units riding with it
  std::vector<std::string> units;  ///< unit paths, the layer's last-but-one ... in forward order
  std::string layer;               ///< the repeated unit's path
};

/// Activation and fixed bytes a device holds besides its layers' weights.
struct Overhead {
  int64_t first = 0, mid = 0, last = 0;
};

std::vector<int> fill(const std::vector<Item>& items, const std::vector<int64_t>& room, int64_t t) {
  std::vector<int> bin(items.size(), -1);
  size_t i = 0;
  for (size_t d = 0; d < room.size() && i < items.size(); ++d) {
    int64_t used = 0;
    const int64_t cap = std::min(room[d], t);
    while (i < items.size() && used + items[i].bytes <= cap) used += items[i].bytes, bin[i++] = static_cast<int>(d);
  }
  if (i < items.size()) return {};
  return bin;
}

/// "model.layers.3" -> {"model.layers", 3}; nullopt when the last part is not a number.
std::optional<std::pair<std::string, int64_t>> indexed(const std::string& path) {
  const size_t dot = path.rfind('.');
  if (dot == std::string::npos || dot + 1 == path.size()) return std::nullopt;
  const std::string last = path.substr(dot + 1);
  if (!std::all_of(last.begin(), last.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  return std::make_pair(path.substr(0, dot), std::stoll(last));
}

/// --place entries: riding units by name, runs of consecutive layers as one range.
std::vector<std::string> place_entries(const std::vector<Item>& items, const std::vector<int>& bin,
                                       const std::vector<analysis::DeviceCap>& caps) {
  std::vector<std::string> out;
  for (size_t i = 0; i < items.size();) {
    const std::string dev = caps[static_cast<size_t>(bin[i])].device.str();
    size_t j = i;
    const auto first = indexed(items[i].layer);
    while (j + 1 < items.size() && bin[j + 1] == bin[i] && first && indexed(items[j + 1].layer) &&
           indexed(items[j + 1].layer)->first == first->first && indexed(items[j + 1].layer)->second == indexed(items[j].layer)->second + 1)
      ++j;
    // In forward order: the units riding before the run's layers, the layers, those after.
    std::vector<std::string> before, after;
    for (size_t k = i; k <= j; ++k) {
      bool past = false;
      for (const std::string& u : items[k].units) {
        if (u == items[k].layer) past = true;
        else (past ? after : before).push_back(u + "=" + dev);
      }
    }
    out.insert(out.end(), before.begin(), before.end());
    if (j > i) out.push_back(detail::cat(first->first, ".", first->second, "-", indexed(items[j].layer)->second, "=", dev));
    else out.push_back(items[i].layer + "=" + dev);
    out.insert(out.end(), after.begin(), after.end());
    i = j + 1;
  }
  return out;
}

}  // namespace

analysis::MemoryLedger ledger_with_kv(const ExportedProgram& ep, int64_t kv_len, const analysis::KvLayout& layout,
                                      const analysis::MemoryOptions& opts) {
  analysis::MemoryLedger l = analysis::memory_ledger(ep, opts);
  if (kv_len < 0) return l;
  const auto kv1 = analysis::kv_cache_bytes(ep, kv_len, 1, layout);
  FE_CHECK(!kv1.empty(), ValueError,
           "memory --kv-cache: no attention layer whose key/value projections we recognize (k_proj/v_proj, c_attn, "
           "query_key_value, qkv_proj)");
  // The cache grows with the batch: with a dynamic batch, as its symbol.
  std::string bsym;
  for (const auto& [sym, name] : l.symbol_names)
    if (name == "batch") bsym = sym;
  int64_t batch = program_batch(ep);
  if (!bsym.empty())
    if (auto it = opts.values.find(bsym); it != opts.values.end()) batch = it->second;
  for (const auto& [dev, b] : kv1) {
    analysis::DeviceMemory* d = l.find(dev);
    if (!d) d = &l.devices.emplace_back(analysis::DeviceMemory{dev});
    d->kv_cache_bytes = checked_mul(b, batch, "kv cache bytes");
    d->kv_cache_formula = bsym.empty() ? sym::Expr(d->kv_cache_bytes) : sym::Expr(b) * sym::Expr::symbol(bsym);
  }
  return l;
}

int64_t required_bytes(const analysis::DeviceMemory& d, int64_t reserve) {
  return d.peak_bytes() - d.activation_peak_bytes + d.activation_peak_allocated_bytes + reserve;
}

const analysis::DeviceCap* cap_of(const std::vector<analysis::DeviceCap>& caps, const Device& d) {
  for (const analysis::DeviceCap& c : caps)
    if (c.device.normalized() == d.normalized()) return &c;
  return nullptr;
}

bool ledger_fits(const analysis::MemoryLedger& l, const std::vector<analysis::DeviceCap>& caps, int64_t reserve) {
  for (const analysis::DeviceMemory& d : l.devices)
    if (const analysis::DeviceCap* c = cap_of(caps, d.device); c && required_bytes(d, reserve) > c->capacity_bytes)
      return false;
  return true;
}

Plan plan_placement(const PlanRequest& r) {
  FE_CHECK(!r.caps.empty(), ValueError, "memory --plan: give the devices (--devices or --cap)");
  ExportArgs a = *r.model;
  a.place.clear();
  a.device = r.caps[0].device.str();
  a.pipeline.clear();
  for (const analysis::DeviceCap& c : r.caps) a.pipeline += (a.pipeline.empty() ? "" : ",") + c.device.str();
  const DType dtype = model_dtype(a, *r.config);
  const Exported ref = export_model(a, *r.config, dtype);
  const ExportedProgram& ep = *ref.ep;
  const std::vector<zoo::Unit> units = ref.model->units();
  const int64_t batch = program_batch(ep);
  const analysis::KvLayout layout = ref.model->generation_cache();

  // Cost of each unit: its weights (tied ones once) and the KV cache of its attention.
  std::vector<int64_t> unit_bytes(units.size(), 0);
  auto unit_of = [&](const std::string& name) -> int {
    int best = -1;
    for (size_t u = 0; u < units.size(); ++u)
      if (name.starts_with(units[u].path + ".") && (best < 0 || units[u].path.size() > units[static_cast<size_t>(best)].path.size()))
        best = static_cast<int>(u);
    return best;
  };
  for (const analysis::TensorInput& t : analysis::tensor_inputs(ep)) {
    const InputSpec& s = *t.spec;
    if (s.kind == InputKind::UserInput || t.tied) continue;
    const TensorMeta& m = *t.meta;
    const int u = unit_of(s.target);
    if (u < 0) continue;
    int64_t b = m.numel().hint() * itemsize(m.dtype);
    if (r.kv_cache >= 0 && s.kind == InputKind::Parameter)
      b += batch * analysis::kv_cache_elements(s.target, m, r.kv_cache, layout) * itemsize(m.dtype);
    unit_bytes[static_cast<size_t>(u)] += b;
  }
  std::vector<Item> items;
  std::vector<std::string> pre;
  int64_t pre_bytes = 0;
  for (size_t u = 0; u < units.size(); ++u) {
    if (units[u].repeated) {
      Item it{unit_bytes[u] + pre_bytes, pre, units[u].path};
      it.units.push_back(units[u].path);
      items.push_back(std::move(it));
      pre.clear(), pre_bytes = 0;
    } else if (items.empty()) {
      pre.push_back(units[u].path), pre_bytes += unit_bytes[u];
    } else {
      items.back().units.push_back(units[u].path), items.back().bytes += unit_bytes[u];
    }
  }
  FE_CHECK(!items.empty(), ValueError, "memory --plan: ", r.config->model_type(), " has no repeated layers to split");

  // Activations per device from the reference: the first holds the embeddings' outputs, the last
  // the head's (logits), the middle ones a layer's.
  const analysis::MemoryLedger ledger = analysis::memory_ledger(ep);
  Overhead act;
  const size_t n = r.caps.size();
  auto act_of = [&](size_t d) {
    const analysis::DeviceMemory* m = ledger.find(r.caps[d].device.normalized());
    return m ? m->activation_peak_allocated_bytes + m->input_bytes : 0;
  };
  act.first = act_of(0);
  act.last = act_of(n - 1);
  act.mid = std::min(act.first, act.last);
  for (size_t d = 1; d + 1 < n; ++d) act.mid = std::max(act.mid, act_of(d));
  const int64_t need_total = [&] {
    int64_t t = 0;
    for (const Item& it : items) t += it.bytes;
    return t;
  }();

  std::vector<int64_t> slack(n, 0);  // lowered after a confirmation that did not fit
  for (int attempt = 0; attempt < 4; ++attempt) {
    std::vector<int64_t> room(n);
    for (size_t d = 0; d < n; ++d) {
      const int64_t overhead = std::max({d == 0 ? act.first : 0, d + 1 == n ? act.last : 0, act.mid});
      room[d] = std::max<int64_t>(0, r.caps[d].capacity_bytes - r.reserve - overhead - slack[d]);
    }
    int64_t hi = *std::max_element(room.begin(), room.end());
    if (fill(items, room, hi).empty()) {
      int64_t cap_total = 0;
      for (size_t d = 0; d < n; ++d) cap_total += room[d];
      const int64_t biggest = std::max_element(items.begin(), items.end(), [](const Item& x, const Item& y) { return x.bytes < y.bytes; })->bytes;
      Plan p;
      p.why = biggest > hi ? detail::cat("one layer needs ", human_bytes(static_cast<double>(biggest)), " but the largest device has room for ",
                                         human_bytes(static_cast<double>(hi)), " after activations and reserve")
                           : detail::cat("the layers need ", human_bytes(static_cast<double>(need_total)), " (weights",
                                         r.kv_cache >= 0 ? " and KV cache" : "", ") but the ", n, " devices have room for ",
                                         human_bytes(static_cast<double>(cap_total)), " after activations and reserve: missing ",
                                         human_bytes(static_cast<double>(std::max<int64_t>(0, need_total - cap_total))));
      return p;
    }
    int64_t lo = 0;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (fill(items, room, mid).empty()) lo = mid + 1;
      else hi = mid;
    }
    const std::vector<int> bin = fill(items, room, hi);
    Plan p;
    p.place = place_entries(items, bin, r.caps);
    // Confirm: the plan exported, its ledger against every capacity.
    ExportArgs b = *r.model;
    b.pipeline.clear();
    b.device = r.caps[0].device.str();
    b.place = p.place;
    const Exported got = export_model(b, *r.config, dtype);
    const analysis::MemoryLedger l = ledger_with_kv(*got.ep, r.kv_cache, got.model->generation_cache());
    bool ok = true;
    for (size_t d = 0; d < n; ++d) {
      const analysis::DeviceMemory* m = l.find(r.caps[d].device.normalized());
      if (!m) continue;
      const int64_t need = required_bytes(*m, r.reserve);
      if (need > r.caps[d].capacity_bytes) ok = false, slack[d] += need - r.caps[d].capacity_bytes;
    }
    if (ok) {
      p.fits = true;
      return p;
    }
  }
  Plan p;
  p.why = "no split found whose exported ledger fits every device (activations larger than the reference export predicted)";
  return p;
}

}  // namespace fe::cli
