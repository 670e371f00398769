// Memory ledger by liveness (analysis/memory.h). The model is what ep.module()(*inputs) does under
// no_grad: the unlifted module holds parameters, buffers and constants; the caller holds the inputs;
// FX's generated forward allocates each node's new storages when the node runs and drops every
// value after its last use (torch.fx's delete-unused-values codegen), so a storage dies after the
// last use of any tensor viewing it. docs/memory.md lists every assumption with its source.
#include "fakeexport/analysis/memory.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "fakeexport/core/error.h"
#include "fakeexport/export/check.h"
#include "fakeexport/ops/registry.h"

namespace fe::analysis {
namespace {

/// A storage: who created it and how big it is; activation storages also have a lifetime.
struct Store {
  const Node* node;
  int out;
  Device device;
  int64_t bytes;
  sym::Expr expr;
  bool activation;
  int first, last;
};

/// One graph's activation peak on one device (above what was live when the graph started).
struct DevPeak {
  Device device;
  int64_t peak = 0, peak_alloc = 0;
  int step = -1;
  std::vector<sym::Expr> cands;  ///< the live sums that may be largest for some symbol values
};

/// Whether `e` is >= 0 for every value of its symbols (sizes are >= 0): a polynomial with
/// non-negative coefficients over sizes, or floor divisions of such.
bool nonneg(const sym::Expr& e) {
  switch (e.kind()) {
    case sym::Kind::Const: return e.constant() >= 0;
    case sym::Kind::Symbol: return true;
    case sym::Kind::Add:
      if (e.add_constant() < 0) return false;
      for (const auto& [t, c] : e.terms())
        if (c < 0 || !nonneg(t)) return false;
      return true;
    case sym::Kind::Mul:
      for (const auto& [b, p] : e.terms())
        if (p < 0 || !nonneg(b)) return false;
      return true;
    case sym::Kind::FloorDiv:
    case sym::Kind::Mod:
    case sym::Kind::Min:
      return std::all_of(e.args().begin(), e.args().end(), nonneg);
    case sym::Kind::Max: return std::any_of(e.args().begin(), e.args().end(), nonneg);
  }
  return false;
}

// Polynomials over sizes, for deciding which candidate peaks can never be the largest once each
// size is at least its lower bound (batch >= 1, seq >= 2): p(x) >= 0 for all x >= lb when p(y + lb)
// expands to non-negative coefficients.
using Mono = std::vector<std::pair<std::string, int64_t>>;  // sorted (symbol, power)
using Poly = std::map<Mono, __int128>;

Poly poly_mul(const Poly& a, const Poly& b) {
  Poly r;
  for (const auto& [ma, ca] : a)
    for (const auto& [mb, cb] : b) {
      Mono m = ma;
      for (const auto& factor : mb) {
        auto it = std::find_if(m.begin(), m.end(), [&](const auto& x) { return x.first == factor.first; });
        if (it == m.end()) m.push_back(factor);
        else it->second += factor.second;
      }
      std::sort(m.begin(), m.end());
      r[m] += ca * cb;
    }
  return r;
}

std::optional<Poly> to_poly(const sym::Expr& e) {
  switch (e.kind()) {
    case sym::Kind::Const: return Poly{{Mono{}, e.constant()}};
    case sym::Kind::Symbol: return Poly{{Mono{{e.name(), 1}}, 1}};
    case sym::Kind::Add: {
      Poly r{{Mono{}, e.add_constant()}};
      for (const auto& [t, c] : e.terms()) {
        auto p = to_poly(t);
        if (!p) return std::nullopt;
        for (const auto& [m, k] : *p) r[m] += k * c;
      }
      return r;
    }
    case sym::Kind::Mul: {
      Poly r{{Mono{}, 1}};
      for (const auto& [b, pw] : e.terms()) {
        auto p = to_poly(b);
        if (!p || pw < 0 || pw > 8) return std::nullopt;
        for (int64_t i = 0; i < pw; ++i) r = poly_mul(r, *p);
      }
      return r;
    }
    default: return std::nullopt;
  }
}

/// Whether `e` >= 0 whenever every symbol is at least its lower bound in `lb` (0 when absent).
bool nonneg_above(const sym::Expr& e, const std::map<std::string, int64_t, std::less<>>& lb) {
  if (nonneg(e)) return true;
  const std::optional<Poly> p = to_poly(e);
  if (!p) return false;
  Poly shifted;
  for (const auto& [m, c] : *p) {
    Poly term{{Mono{}, c}};
    for (const auto& [sym, pw] : m) {
      auto it = lb.find(sym);
      const Poly base = it == lb.end() || it->second == 0 ? Poly{{Mono{{sym, 1}}, 1}}
                                                          : Poly{{Mono{{sym, 1}}, 1}, {Mono{}, it->second}};
      for (int64_t i = 0; i < pw; ++i) term = poly_mul(term, base);
    }
    for (const auto& [mm, cc] : term) shifted[mm] += cc;
  }
  return std::all_of(shifted.begin(), shifted.end(), [](const auto& t) { return t.second >= 0; });
}

/// The candidates that may be largest for some sizes above their lower bounds, in their order.
std::vector<sym::Expr> prune_above(const std::vector<sym::Expr>& c, const std::map<std::string, int64_t, std::less<>>& lb) {
  std::vector<bool> drop(c.size(), false);
  for (size_t i = 0; i < c.size(); ++i)
    for (size_t j = 0; j < c.size() && !drop[i]; ++j)
      if (i != j && !drop[j] && nonneg_above(c[j] - c[i], lb)) drop[i] = true;
  std::vector<sym::Expr> out;
  for (size_t i = 0; i < c.size(); ++i)
    if (!drop[i]) out.push_back(c[i]);
  return out;
}

/// Keeps `c` the set of sums not dominated by another (a >= b for all symbol values).
void add_candidate(std::vector<sym::Expr>& c, const sym::Expr& e) {
  for (const sym::Expr& x : c)
    if (nonneg(x - e)) return;
  std::erase_if(c, [&](const sym::Expr& x) { return nonneg(e - x); });
  c.push_back(e);
}

DevPeak& dev_at(std::vector<DevPeak>& v, const Device& d) {
  for (DevPeak& p : v)
    if (p.device == d) return p;
  return v.emplace_back(DevPeak{d});
}

/// The node's arguments as metadata (false when one is not a single tensor or int).
bool meta_args(const Node& n, std::vector<MetaValue>& margs) {
  margs.reserve(n.args().size());
  for (const NodeArg& a : n.args()) {
    if (auto* p = std::get_if<Node*>(&a); p && *p && (*p)->val.empty() && !(*p)->multi_output()) {
      if (!(*p)->sym_val) return false;
      margs.push_back(*(*p)->sym_val);
      continue;
    }
    bool usable = true;
    margs.push_back(map_tensors<const TensorMeta*>(a, [&](Node* in) -> const TensorMeta* {
      if (!in) return nullptr;
      if (in->val.size() != 1) usable = false;
      return in->val.empty() ? nullptr : &in->val[0];
    }));
    if (!usable) return false;
  }
  return true;
}

std::optional<MetaOut> rerun_meta(const Node& n) {
  const OpDef& op = *n.target();
  std::vector<MetaValue> margs;
  if (!op.meta || !meta_args(n, margs)) return std::nullopt;
  MetaOut mo;
  try {
    run_meta(op, margs, mo);
  } catch (const UserError&) {
    return std::nullopt;
  }
  return mo;
}


class Analyzer {
 public:
  Analyzer(const ExportedProgram& ep, const MemoryOptions& o) : ep_(ep), opts_(o) {
    symbolic_ = ep.shape_env != nullptr && !ep.range_constraints.empty();
  }

  /// Analyzes `g`; for the top graph fills `ledger` (weights, inputs, lifetimes, largest live).
  std::vector<DevPeak> run(const Graph& g, MemoryLedger* ledger) {
    std::vector<Store> stores;
    std::unordered_map<const Node*, std::vector<int>> of;  // node -> its outputs' store ids
    std::vector<std::vector<DevPeak>> bodies;               // per step, a higher-order op's subgraph peak
    std::vector<int> body_step;
    std::vector<std::pair<int, std::pair<int64_t, sym::Expr>>> scratch_at;  // step -> bytes (on its node's device)
    const auto& nodes = g.nodes();
    const int n_steps = static_cast<int>(nodes.size());
    std::vector<const InputSpec*> specs;
    if (ledger) {
      for (const InputSpec& s : ep_.signature.inputs) specs.push_back(&s);
    }
    size_t ph = 0;
    for (int i = 0; i < n_steps; ++i) {
      const Node& n = *nodes[static_cast<size_t>(i)];
      switch (n.op()) {
        case NodeOp::Placeholder: {
          const InputSpec* spec = ledger && ph < specs.size() ? specs[ph] : nullptr;
          ++ph;
          if (n.val.size() != 1) break;
          of[&n] = {new_store(stores, n, 0, false, i)};
          if (ledger) account_input(*ledger, n, spec, stores.back());
          break;
        }
        case NodeOp::CallFunction: {
          if (!vmap_.empty()) {
            VmapLevels lv;
            for (const NodeArg& a : n.args())
              if (const auto* p = std::get_if<Node*>(&a); p && *p)
                if (auto it = vmap_.find(*p); it != vmap_.end())
                  for (const auto& e : it->second)
                    if (std::none_of(lv.begin(), lv.end(), [&](const auto& x) { return x.first == e.first; })) lv.push_back(e);
            std::sort(lv.begin(), lv.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
            if (!lv.empty()) vmap_[&n] = std::move(lv);
          }
          std::vector<int> ids(n.val.size(), -1);
          aliases(n, of, ids);
          for (size_t k = 0; k < ids.size(); ++k)
            if (ids[k] < 0) ids[k] = new_store(stores, n, static_cast<int>(k), true, i);
          of[&n] = std::move(ids);
          if (auto sc = scratch(n); sc && sc->first > 0) scratch_at.emplace_back(i, std::move(*sc));
          break;
        }
        case NodeOp::GetItem: {
          const auto* src = std::get_if<Node*>(&n.args()[0]);
          auto it = src && *src ? of.find(*src) : of.end();
          if (it != of.end() && n.index() >= 0 && static_cast<size_t>(n.index()) < it->second.size())
            of[&n] = {it->second[static_cast<size_t>(n.index())]};
          else if (n.val.size() == 1)
            of[&n] = {new_store(stores, n, 0, true, i)};
          break;
        }
        case NodeOp::CallOther: {
          std::vector<DevPeak> body;
          for (const NodeArg& a : n.args()) {
            const auto* p = std::get_if<Node*>(&a);
            if (!p || !*p || (*p)->op() != NodeOp::GetAttr) continue;
            const Graph* sub = subgraph(g, (*p)->attr());
            if (!sub) continue;
            for (DevPeak& d : run(*sub, nullptr)) {  // cond/while_loop: whichever runs, the larger
              DevPeak& b = dev_at(body, d.device);
              if (d.peak > b.peak) b.peak = d.peak, b.peak_alloc = d.peak_alloc;
              for (const sym::Expr& e : d.cands) add_candidate(b.cands, e);
            }
          }
          // Loops hold more than their body: scan fills its stacked outputs (allocated first)
          // while the previous iteration's results stay alive as the carry; map stacks every
          // iteration's results at the end, so they and the stacked output are live together.
          const CallableKind kind = n.callable() ? n.callable()->kind : CallableKind::Opaque;
          if (kind == CallableKind::Scan || kind == CallableKind::MapImpl)
            for (DevPeak& b : body) {
              int64_t out = 0;
              sym::Expr out_e = 0;
              for (const TensorMeta& m : n.val)
                if (m.device.normalized() == b.device) {
                  out += bytes_of(m);
                  if (symbolic_ && opts_.formulas) out_e = out_e + expr_of(m);
                }
              const bool scan = kind == CallableKind::Scan;
              const int64_t extra = scan ? b.peak : std::max<int64_t>(out - b.peak, 0);
              b.peak += out + extra, b.peak_alloc += out + extra;
              for (sym::Expr& e : b.cands) e = scan ? e * sym::Expr(2) + out_e : out_e + sym::max(e, out_e);
            }
          if (!body.empty()) bodies.push_back(std::move(body)), body_step.push_back(i);
          std::vector<int> ids;
          // functorch's vmap (transformers' masks): _add_batch_dim wraps its input, _remove_batch_dim
          // moves or expands the batch dim of the physical tensor: views, no new storage. The levels
          // say how large the physical tensors between them are.
          if (n.val.size() == 1 && (kind == CallableKind::AddBatchDim || kind == CallableKind::RemoveBatchDim) &&
              !n.args().empty())
            if (const auto* p = std::get_if<Node*>(&n.args()[0]); p && *p) {
              if (auto it = of.find(*p); it != of.end() && !it->second.empty()) ids.push_back(it->second[0]);
              track_vmap(n, **p);
            }
          for (size_t k = ids.size(); k < n.val.size(); ++k) ids.push_back(new_store(stores, n, static_cast<int>(k), true, i));
          of[&n] = std::move(ids);
          break;
        }
        default: break;
      }
      // Uses: every store an input refers to lives at least to this step; returned ones to the end.
      const int use = n.op() == NodeOp::Output ? Lifetime::kEnd : i;
      for (const NodeArg& a : n.args())
        for_each_node(a, [&](Node* u) {
          auto it = of.find(u);
          if (it == of.end()) return;
          for (int id : it->second) stores[static_cast<size_t>(id)].last = std::max(stores[static_cast<size_t>(id)].last, use);
        });
    }

    // The timeline: at each step, the body's peak over what is live, then the new storages; frees after.
    std::vector<std::vector<int>> alloc_at(static_cast<size_t>(n_steps)), free_at(static_cast<size_t>(n_steps));
    for (size_t id = 0; id < stores.size(); ++id) {
      Store& s = stores[id];
      if (!s.activation) continue;
      s.last = std::max(s.last, s.first);
      alloc_at[static_cast<size_t>(s.first)].push_back(static_cast<int>(id));
      if (s.last < n_steps) free_at[static_cast<size_t>(s.last)].push_back(static_cast<int>(id));
    }
    struct Cur {
      Device device;
      int64_t bytes = 0, alloc = 0;
      sym::Expr expr = 0;
    };
    std::vector<Cur> cur;
    auto cur_at = [&](const Device& d) -> Cur& {
      for (Cur& c : cur)
        if (c.device == d) return c;
      return cur.emplace_back(Cur{d});
    };
    std::vector<DevPeak> peaks;
    auto record = [&](const Device& d, int64_t v, int64_t va, int step, const sym::Expr* e) {
      DevPeak& p = dev_at(peaks, d);
      if (v > p.peak || p.step < 0) p.peak = v, p.step = step;
      p.peak_alloc = std::max(p.peak_alloc, va);
      if (e && symbolic_ && opts_.formulas) add_candidate(p.cands, *e);
    };
    size_t next_body = 0, next_scratch = 0;
    std::vector<Device> touched;
    for (int i = 0; i < n_steps; ++i) {
      if (next_body < body_step.size() && body_step[next_body] == i) {
        for (const DevPeak& b : bodies[next_body]) {
          Cur& c = cur_at(b.device);
          record(b.device, c.bytes + b.peak, c.alloc + b.peak_alloc, i, nullptr);
          if (symbolic_ && opts_.formulas)
            for (const sym::Expr& e : b.cands) add_candidate(dev_at(peaks, b.device).cands, c.expr + e);
          if (ledger) {
            Lifetime lt{nodes[static_cast<size_t>(i)].get(), 0, b.device, b.peak, i, i, true};
            ledger->lifetimes.push_back(lt);
          }
        }
        ++next_body;
      }
      touched.clear();
      for (int id : alloc_at[static_cast<size_t>(i)]) {
        const Store& s = stores[static_cast<size_t>(id)];
        Cur& c = cur_at(s.device);
        c.bytes += s.bytes;
        c.alloc += alloc_bytes(s);
        if (symbolic_ && opts_.formulas) c.expr = c.expr + s.expr;
        if (std::find(touched.begin(), touched.end(), s.device) == touched.end()) touched.push_back(s.device);
        if (ledger) ledger->lifetimes.push_back({s.node, s.out, s.device, s.bytes, s.first, s.last, false});
      }
      for (const Device& d : touched) {
        Cur& c = cur_at(d);
        record(d, c.bytes, c.alloc, i, &c.expr);
      }
      // The kernel's scratch, live with its outputs until it returns.
      while (next_scratch < scratch_at.size() && scratch_at[next_scratch].first == i) {
        const auto& [bytes, expr] = scratch_at[next_scratch].second;
        const Node& n = *nodes[static_cast<size_t>(i)];
        const Device d = n.val[0].device.normalized();
        Cur& c = cur_at(d);
        const sym::Expr sum = symbolic_ && opts_.formulas ? c.expr + expr : sym::Expr(0);
        record(d, c.bytes + bytes, c.alloc + (d.is_cpu() ? bytes : cuda_round(bytes)), i, &sum);
        if (ledger) ledger->lifetimes.push_back({&n, -1, d, bytes, i, i, true});
        ++next_scratch;
      }
      for (int id : free_at[static_cast<size_t>(i)]) {
        const Store& s = stores[static_cast<size_t>(id)];
        Cur& c = cur_at(s.device);
        c.bytes -= s.bytes;
        c.alloc -= alloc_bytes(s);
        if (symbolic_ && opts_.formulas) c.expr = c.expr - s.expr;
      }
    }
    if (ledger) fill_peaks(*ledger, g, stores, peaks);
    return peaks;
  }

  void transfers(const Graph& g, MemoryLedger& ledger) {
    for (const auto& up : g.nodes())
      if (transfer_source(*up)) ledger.transfer_bytes += bytes_of(up->val[0]);
    for (const auto& [name, sub] : g.subgraphs()) transfers(*sub, ledger);
  }

 private:
  static const Graph* subgraph(const Graph& g, const std::string& name) {
    for (const auto& [n, sub] : g.subgraphs())
      if (n == name) return sub.get();
    return nullptr;
  }

  int64_t bytes_of(const TensorMeta& m) const {
    if (opts_.values.empty() || !symbolic_) return m.storage_nbytes();
    return expr_of(m).evaluate([&](std::string_view s) {
      auto it = opts_.values.find(s);
      return it != opts_.values.end() ? it->second : example_value(ep_, s);
    });
  }

  // A new storage holds numel elements (the op's output is dense; a strided one addresses its
  // storage size, known for static shapes).
  sym::Expr expr_of(const TensorMeta& m) const {
    if (!symbolic_) return sym::Expr(m.storage_nbytes());
    sym::Expr n = 1;
    for (const SymInt& s : m.sizes) n = n * s.expr();
    return n * sym::Expr(itemsize(m.dtype));
  }

  int64_t alloc_bytes(const Store& s) const {
    return s.device.is_cpu() || s.device.is_meta() ? s.bytes : cuda_round(s.bytes);
  }

  int new_store(std::vector<Store>& stores, const Node& n, int k, bool activation, int step) {
    TensorMeta m = n.val[static_cast<size_t>(k)];
    if (auto it = vmap_.find(&n); it != vmap_.end()) {
      // A value inside functorch's vmap is its per-example (logical) metadata; its storage is the
      // physical tensor, every level's batch dim in front.
      DimVector sizes;
      for (const auto& [level, size] : it->second) sizes.push_back(size);
      for (const SymInt& d : m.sizes) sizes.push_back(d);
      m.sizes = sizes;
      m.strides = contiguous_strides(m.sizes);
      m.storage_offset = 0;
    }
    const bool want_expr = symbolic_ && (opts_.formulas || !opts_.values.empty());
    stores.push_back({&n, k, m.device.normalized(), bytes_of(m), want_expr ? expr_of(m) : sym::Expr(0), activation,
                      step, step});
    return static_cast<int>(stores.size() - 1);
  }

  /// For each output of call `n`, the store of the argument it shares storage with (-1: new).
  void aliases(const Node& n, const std::unordered_map<const Node*, std::vector<int>>& of, std::vector<int>& ids) {
    const std::vector<int> args = aliased_args(n);
    for (size_t k = 0; k < ids.size() && k < args.size(); ++k) {
      if (args[k] < 0 || static_cast<size_t>(args[k]) >= n.args().size()) continue;
      const auto* p = std::get_if<Node*>(&n.args()[static_cast<size_t>(args[k])]);
      if (!p || !*p) continue;
      auto it = of.find(*p);
      if (it != of.end() && !it->second.empty()) ids[k] = it->second[0];
    }
  }

  /// What the eager kernel holds beyond the node's outputs while it runs (OpDef::scratch).
  std::optional<std::pair<int64_t, sym::Expr>> scratch(const Node& n) const {
    const OpDef* op = n.target();
    if (!op || !op->scratch || n.val.empty()) return std::nullopt;
    std::vector<MetaValue> margs;
    if (!meta_args(n, margs)) return std::nullopt;
    SymInt b;
    try {
      b = op->scratch(MetaArgs(*op, margs));
    } catch (const UserError&) {
      return std::nullopt;
    }
    if (!symbolic_ || (opts_.values.empty() && !opts_.formulas)) return std::make_pair(b.hint(), sym::Expr(b.hint()));
    const sym::Expr e = b.expr();
    const int64_t v = opts_.values.empty() ? b.hint() : e.evaluate([&](std::string_view s) {
      auto it = opts_.values.find(s);
      return it != opts_.values.end() ? it->second : example_value(ep_, s);
    });
    return std::make_pair(v, e);
  }

  void account_input(MemoryLedger& ledger, const Node& n, const InputSpec* spec, const Store& s) {
    if (!spec) return;
    if (tied_.empty()) {
      for (const TensorInput& t : tensor_inputs(ep_)) if (t.tied) tied_.insert(t.spec);
      tied_.insert(nullptr);  // computed
    }
    if (tied_.count(spec)) return;  // tied weights share one storage: counted once (as the export summary)
    DeviceMemory& d = device(ledger, s.device);
    switch (spec->kind) {
      case InputKind::Parameter:
      case InputKind::Buffer:
        (spec->kind == InputKind::Parameter ? d.parameter_bytes : d.buffer_bytes) += n.val[0].numel().hint() * itemsize(n.val[0].dtype);
        return;
      case InputKind::ConstantTensor: d.constant_bytes += s.bytes; return;
      case InputKind::UserInput:
        d.input_bytes += s.bytes;
        if (symbolic_ && opts_.formulas) d.input_formula = d.input_formula + s.expr;
        else d.input_formula = d.input_formula + sym::Expr(s.bytes);
        return;
      default: return;
    }
  }

  static DeviceMemory& device(MemoryLedger& ledger, const Device& d) {
    if (DeviceMemory* m = ledger.find(d)) return *m;
    ledger.devices.push_back(DeviceMemory{d});
    return ledger.devices.back();
  }

  void fill_peaks(MemoryLedger& ledger, const Graph& g, const std::vector<Store>& stores, const std::vector<DevPeak>& peaks) {
    for (const DevPeak& p : peaks) {
      DeviceMemory& d = device(ledger, p.device);
      d.activation_peak_bytes = p.peak;
      d.activation_peak_allocated_bytes = p.peak_alloc;
      if (symbolic_ && opts_.formulas && !p.cands.empty()) {
        const std::vector<sym::Expr> cands = prune_above(p.cands, lower_bounds());
        sym::Expr f = cands[0];
        for (size_t i = 1; i < cands.size(); ++i) f = sym::max(f, cands[i]);
        d.activation_peak_formula = f;
      } else {
        d.activation_peak_formula = sym::Expr(p.peak);
      }
      if (p.step < 0) continue;
      const Node* at = g.nodes()[static_cast<size_t>(p.step)].get();
      d.peak_node = at;
      d.peak_source = node_source(*at);
      d.peak_module = node_module(*at);
      std::vector<const Store*> live;
      for (const Store& s : stores)
        if (s.activation && s.device == p.device && s.first <= p.step && s.last >= p.step) live.push_back(&s);
      std::stable_sort(live.begin(), live.end(), [](const Store* a, const Store* b) { return a->bytes > b->bytes; });
      for (size_t i = 0; i < live.size() && i < 10; ++i)
        d.largest_live.push_back({live[i]->node, live[i]->bytes, live[i]->node->val[static_cast<size_t>(live[i]->out)].annotation(),
                                  node_module(*live[i]->node)});
    }
  }

  /// Each symbol's smallest value (its range's lower bound; sizes are never negative).
  std::map<std::string, int64_t, std::less<>> lower_bounds() const {
    std::map<std::string, int64_t, std::less<>> lb;
    if (ep_.shape_env)
      for (const sym::SymbolInfo& info : ep_.shape_env->symbols()) lb[info.name] = std::max<int64_t>(info.range.lo, 0);
    return lb;
  }

  /// vmap levels (level, batch size), ascending, of a batched value.
  using VmapLevels = std::vector<std::pair<int64_t, SymInt>>;
  std::unordered_map<const Node*, VmapLevels> vmap_;

  /// _add_batch_dim(x, in_dim, level) adds a level of x's size at in_dim; _remove_batch_dim(x,
  /// level, ...) drops it.
  void track_vmap(const Node& n, const Node& x) {
    const auto int_arg = [&](size_t i) -> std::optional<int64_t> {
      if (i >= n.args().size()) return std::nullopt;
      const auto* v = std::get_if<SymInt>(&n.args()[i]);
      return v ? v->maybe_int() : std::nullopt;
    };
    VmapLevels lv;
    if (auto it = vmap_.find(&x); it != vmap_.end()) lv = it->second;
    const bool add = n.callable()->kind == CallableKind::AddBatchDim;
    const auto level = int_arg(add ? vmap_arg::kAddLevel : vmap_arg::kRemoveLevel);
    if (!level) return;
    if (add) {
      const auto in_dim = int_arg(vmap_arg::kAddInDim);
      if (!in_dim || x.val.size() != 1 || *in_dim < 0 || *in_dim >= x.val[0].dim()) return;
      lv.emplace_back(*level, x.val[0].sizes[static_cast<size_t>(*in_dim)]);
    } else {
      lv.erase(std::remove_if(lv.begin(), lv.end(), [&](const auto& e) { return e.first == *level; }), lv.end());
    }
    if (!lv.empty()) vmap_[&n] = std::move(lv);
  }

  const ExportedProgram& ep_;
  const MemoryOptions& opts_;
  bool symbolic_ = false;
  std::set<const InputSpec*> tied_;
};

}  // namespace

std::optional<Device> transfer_source(const Node& n) {
  if (n.op() != NodeOp::CallFunction || !n.target() || n.val.size() != 1 || n.args().empty()) return std::nullopt;
  const std::string& name = n.target()->schema.name;
  const bool is_copy = name == "copy" || name == "copy_" || name == "_copy_from";
  if (!is_copy && name != "to" && name != "_to_copy") return std::nullopt;
  const auto* p = std::get_if<Node*>(&n.args()[is_copy && n.args().size() > 1 ? 1 : 0]);
  if (!p || !*p || (*p)->val.size() != 1) return std::nullopt;
  const Device from = (*p)->val[0].device.normalized();
  if (from == n.val[0].device.normalized()) return std::nullopt;
  return from;
}

std::vector<int> aliased_args(const Node& n) {
  std::vector<int> out(n.val.size(), -1);
  const OpDef* op = n.target();
  if (!op || out.empty()) return out;
  const auto& rets = op->schema.returns;
  auto ret = [&](size_t k) -> const Argument* {
    return k < rets.size() ? &rets[k] : (rets.size() == 1 && rets[0].type.is_list ? &rets[0] : nullptr);
  };
  auto arg_with_set = [&](char set) -> int {
    for (size_t a = 0; a < op->schema.arguments.size(); ++a)
      if (op->schema.arguments[a].type.alias_set == set) return static_cast<int>(a);
    return -1;
  };
  bool may_view = op->may_return_self;
  for (size_t k = 0; k < out.size(); ++k) {
    const Argument* r = ret(k);
    if (!r || !r->type.alias_set) continue;
    const int a = arg_with_set(r->type.alias_set);
    if (a < 0) continue;
    if (r->type.is_write) out[k] = a;
    else may_view = true;
  }
  if (!may_view) return out;
  // View-like returns (`Tensor(a)`, and ops that may return self, like eval-mode dropout) ask the
  // op's meta function, which decides (reshape copies when it cannot view; `to` returns self when
  // nothing changes); without one, the schema's annotation stands.
  const std::optional<MetaOut> mo = rerun_meta(n);
  for (size_t k = 0; k < out.size(); ++k) {
    if (out[k] >= 0) continue;
    if (!mo) {
      const Argument* r = ret(k);
      if (r && r->type.alias_set && !r->type.is_write) out[k] = arg_with_set(r->type.alias_set);
    } else if (mo->alias_input0 || mo->self_output == static_cast<int>(k)) {
      out[k] = 0;
    }
  }
  return out;
}

sym::Expr DeviceMemory::peak_formula() const {
  return sym::Expr(parameter_bytes + buffer_bytes + constant_bytes) + input_formula + kv_cache_formula +
         activation_peak_formula;
}

DeviceMemory* MemoryLedger::find(const Device& d) {
  for (DeviceMemory& m : devices)
    if (m.device == d) return &m;
  return nullptr;
}
const DeviceMemory* MemoryLedger::find(const Device& d) const {
  for (const DeviceMemory& m : devices)
    if (m.device == d) return &m;
  return nullptr;
}

int64_t cuda_round(int64_t bytes) {
  constexpr int64_t kMinBlockSize = 512;
  if (bytes < kMinBlockSize) return kMinBlockSize;
  return (bytes + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}

MemoryLedger memory_ledger(const ExportedProgram& ep, const MemoryOptions& opts) {
  MemoryLedger ledger;
  Analyzer a(ep, opts);
  a.run(ep.graph, &ledger);
  a.transfers(ep.graph, ledger);
  ledger.symbol_names = user_symbol_names(ep);
  return ledger;
}

std::map<std::string, std::string, std::less<>> user_symbol_names(const ExportedProgram& ep) {
  std::map<std::string, std::string, std::less<>> names;
  const auto phs = ep.graph.placeholders();
  for (size_t i = 0; i < ep.signature.inputs.size() && i < phs.size(); ++i) {
    if (ep.signature.inputs[i].kind != InputKind::UserInput || phs[i]->val.size() != 1) continue;
    const TensorMeta& m = phs[i]->val[0];
    const char* dim_names[] = {"batch", "seq"};
    for (size_t d = 0; d < 2 && d < m.sizes.size(); ++d) {
      if (!m.sizes[d].is_symbolic()) continue;
      const sym::Expr e = m.sizes[d].expr();
      if (e.is_symbol()) names.emplace(e.name(), dim_names[d]);
    }
    break;
  }
  return names;
}

int64_t example_value(const ExportedProgram& ep, std::string_view sym) {
  const sym::SymbolInfo* info = ep.shape_env ? ep.shape_env->symbol(sym) : nullptr;
  return info ? info->hint : 0;
}

std::string formula_str(const sym::Expr& e, const std::map<std::string, std::string, std::less<>>& names) {
  if (names.empty()) return e.str();
  std::map<std::string, sym::Expr, std::less<>> repl;
  for (const auto& [from, to] : names) repl.emplace(from, sym::Expr::symbol(to));
  return e.substitute(repl).str();
}

namespace {

/// The first all-digit component of a parameter path ("model.layers.3.self_attn.k_proj.weight": 3),
/// the decoder layer it belongs to; -1 when there is none.
int64_t layer_index(std::string_view t) {
  size_t start = 0;
  while (start < t.size()) {
    size_t end = t.find('.', start);
    if (end == std::string_view::npos) end = t.size();
    const std::string_view part = t.substr(start, end - start);
    if (!part.empty() && part.size() < 10 && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::stoll(std::string(part));
    start = end + 1;
  }
  return -1;
}

/// The projection `t` stands for in the cache: its key plus value elements per token, the tokens
/// its layer keeps, and whether it is one of a k_proj/v_proj pair. With a layout entry for its
/// layer, the layer's first projection carries the whole layer (k_proj; v_proj adds nothing) and
/// MLA's kv_b_proj is recognized too.
KvProjection projection_cache(std::string_view t, const TensorMeta& m, const KvLayout& layout) {
  if (m.dim() != 2) return {};
  const bool fused = t.ends_with("attn.c_attn.weight") || t.ends_with("query_key_value.weight") ||
                     t.ends_with("qkv_proj.weight");
  const bool kv_pair = !fused && (t.ends_with("k_proj.weight") || t.ends_with("v_proj.weight"));
  const bool mla = t.ends_with("kv_b_proj.weight");
  if (!kv_pair && !fused && !mla) return {};
  KvProjection p;
  if (kv_pair) p.prefix = t.substr(0, t.size() - std::string_view("k_proj.weight").size());
  if (!layout.empty()) {
    const int64_t l = layer_index(t);
    if (l >= 0 && static_cast<size_t>(l) < layout.size()) {
      if (kv_pair && t.ends_with("v_proj.weight")) return {};
      p.cache = layout[static_cast<size_t>(l)];
      return p;
    }
  }
  if (mla) return {};
  if (kv_pair) {
    p.cache = {m.sizes[0].hint(), 0};
    p.parts = 2;
  } else if (t.ends_with("attn.c_attn.weight")) {
    // Fused projections without a layout, taken as multi-head: GPT-2's Conv1D c_attn [in, 3*hidden];
    // GPT-NeoX's query_key_value and Phi-3's qkv_proj [q + k + v, in].
    p.cache = {2 * (m.sizes[1].hint() / 3), 0};
  } else {
    p.cache = {2 * (m.sizes[0].hint() / 3), 0};
  }
  return p;
}

}  // namespace

int64_t kv_cache_elements(std::string_view t, const TensorMeta& m, int64_t length, const KvLayout& layout) {
  const KvLayer c = projection_cache(t, m, layout).cache;
  return checked_mul(c.width, c.tokens(length), "kv cache elements");
}

std::vector<TensorInput> tensor_inputs(const ExportedProgram& ep) {
  std::vector<TensorInput> out;
  std::unordered_map<std::string_view, const Tensor*> state;
  for (const auto& [k, t] : ep.state_dict) state.emplace(k, &t);
  for (const auto& [k, t] : ep.constants) state.emplace(k, &t);
  std::set<const void*> seen;
  const auto phs = ep.graph.placeholders();
  for (size_t i = 0; i < ep.signature.inputs.size() && i < phs.size(); ++i) {
    if (phs[i]->val.size() != 1) continue;
    const InputSpec& s = ep.signature.inputs[i];
    TensorInput t{&s, &phs[i]->val[0]};
    if (s.kind == InputKind::Parameter || s.kind == InputKind::Buffer || s.kind == InputKind::ConstantTensor) {
      auto it = state.find(s.target);
      const void* key = &s;
      if (it != state.end() && it->second->impl())
        key = it->second->impl()->storage ? static_cast<const void*>(it->second->impl()->storage.get())
                                          : static_cast<const void*>(it->second->impl());
      t.tied = !seen.insert(key).second;
    }
    out.push_back(t);
  }
  return out;
}

std::vector<KvProjection> kv_projections(const ExportedProgram& ep, const KvLayout& layout) {
  std::vector<KvProjection> out;
  for (const TensorInput& t : tensor_inputs(ep))
    if (t.spec->kind == InputKind::Parameter)
      if (KvProjection p = projection_cache(t.spec->target, *t.meta, layout); p.cache.width > 0) {
        p.spec = t.spec, p.meta = t.meta;
        out.push_back(p);
      }
  return out;
}

std::vector<std::pair<Device, int64_t>> kv_cache_bytes(const ExportedProgram& ep, int64_t length, int64_t batch,
                                                       const KvLayout& layout) {
  FE_CHECK(length >= 0 && batch >= 1, ValueError, "kv cache: need length >= 0 and batch >= 1, got length ", length,
           " and batch ", batch);
  std::vector<std::pair<Device, int64_t>> out;
  for (const KvProjection& p : kv_projections(ep, layout)) {
    const int64_t bytes = checked_mul(checked_mul(checked_mul(batch, p.cache.tokens(length), "kv cache bytes"), p.cache.width,
                                                  "kv cache bytes"),
                                      itemsize(p.meta->dtype), "kv cache bytes");
    const Device d = p.meta->device.normalized();
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == d; });
    if (it == out.end()) out.emplace_back(d, bytes);
    else it->second += bytes;
  }
  return out;
}

std::vector<Arena> plan_arenas(const MemoryLedger& ledger, int64_t alignment) {
  std::vector<Arena> arenas;
  for (const DeviceMemory& dm : ledger.devices) {
    Arena arena{dm.device};
    std::vector<const Lifetime*> ts;
    for (const Lifetime& l : ledger.lifetimes)
      if (l.device == dm.device && l.bytes > 0) ts.push_back(&l);
    // Greedy by size: the largest first, each at the lowest gap among placed tensors whose
    // lifetimes overlap its own.
    std::stable_sort(ts.begin(), ts.end(), [](const Lifetime* a, const Lifetime* b) { return a->bytes > b->bytes; });
    for (const Lifetime* t : ts) {
      const int64_t size = (t->bytes + alignment - 1) / alignment * alignment;
      std::vector<std::pair<int64_t, int64_t>> busy;
      for (const ArenaSlot& s : arena.slots)
        if (s.first <= t->last && t->first <= s.last) busy.emplace_back(s.offset, s.offset + (s.bytes + alignment - 1) / alignment * alignment);
      std::sort(busy.begin(), busy.end());
      int64_t offset = 0;
      for (const auto& [lo, hi] : busy) {
        if (lo - offset >= size) break;
        offset = std::max(offset, hi);
      }
      arena.slots.push_back({t->node, t->out, offset, t->bytes, t->first, t->last});
      arena.size = std::max(arena.size, offset + size);
    }
    arenas.push_back(std::move(arena));
  }
  return arenas;
}

}  // namespace fe::analysis
