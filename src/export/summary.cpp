// program_summary_json: what a deployment engineer asks of a program first (size per device, ops).
#include "fakeexport/export/summary.h"

#include "fakeexport/export/check.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace fe {
namespace {

/// JSON text in nlohmann's dump() layout (compact with indent -1, else `indent` spaces per level),
/// written directly: building an ordered_json of a thousand inputs first cost more than the rest
/// of the summary.
class Writer {
 public:
  explicit Writer(int indent) : indent_(indent) {}
  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  Writer& key(std::string_view k) {
    item();
    string(k);
    out_ += indent_ >= 0 ? ": " : ":";
    after_key_ = true;
    return *this;
  }
  void value(std::string_view v) {
    item();
    string(v);
  }
  void value(int64_t v) {
    item();
    out_ += std::to_string(v);
  }
  void null() {
    item();
    out_ += "null";
  }
  std::string take() { return std::move(out_); }

 private:
  // Before a value or a key: a comma after a sibling; when indenting, a new line.
  void item() {
    if (std::exchange(after_key_, false) || empty_.empty()) return;
    if (!empty_.back()) out_ += ',';
    empty_.back() = false;
    newline(empty_.size());
  }
  void open(char c) {
    item();
    out_ += c;
    empty_.push_back(true);
  }
  void close(char c) {
    const bool empty = empty_.back();
    empty_.pop_back();
    if (!empty) newline(empty_.size());
    out_ += c;
  }
  void newline(size_t depth) {
    if (indent_ < 0) return;
    out_ += '\n';
    out_.append(depth * static_cast<size_t>(indent_), ' ');
  }
  // nlohmann's escaping: quote, backslash and control characters; other bytes as they are.
  void string(std::string_view s) {
    out_ += '"';
    // Runs without a character to escape (every name, nearly always the whole text) in one append.
    size_t run = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c >= 0x20 && c != '"' && c != '\\') continue;
      out_.append(s.data() + run, i - run);
      run = i + 1;
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\b': out_ += "\\b"; break;
        case '\f': out_ += "\\f"; break;
        case '\n': out_ += "\\n"; break;
        case '\r': out_ += "\\r"; break;
        case '\t': out_ += "\\t"; break;
        default:
          if (c < 0x20) {
            static constexpr char hex[] = "0123456789abcdef";
            out_ += "\\u00";
            out_ += hex[c >> 4];
            out_ += hex[c & 15];
          }
      }
    }
    out_.append(s.data() + run, s.size() - run);
    out_ += '"';
  }
  int indent_;
  bool after_key_ = false;
  std::vector<bool> empty_;  // per open container: nothing written in it yet
  std::string out_;
};

void shape_json(Writer& w, const TensorMeta& m) {
  w.begin_array();
  for (const SymInt& s : m.sizes) {
    if (auto v = s.maybe_int()) w.value(*v);
    else w.value(s.str());
  }
  w.end_array();
}

void nullable(Writer& w, const std::string& s) {
  if (s.empty()) w.null();
  else w.value(s);
}

void count_ops(const Graph& g, std::map<std::string, int64_t>& ops) {
  // Counted by operator identity, then named once per distinct operator (a target name is built).
  std::unordered_map<const void*, std::pair<const Node*, int64_t>> by_op;
  for (const auto& n : g.nodes()) {
    const void* id = n->op() == NodeOp::CallFunction ? static_cast<const void*>(n->target())
                     : n->op() == NodeOp::CallOther  ? static_cast<const void*>(n->callable())
                                                     : nullptr;
    if (id) {
      auto& [first, count] = by_op.try_emplace(id, n.get(), 0).first->second;
      ++count;
    } else if (std::string t = node_target(*n); !t.empty()) {
      ++ops[t];
    }
  }
  for (const auto& [id, e] : by_op) ops[node_target(*e.first)] += e.second;
}

/// Targets in any graph that we only know by their recorded metadata.
void opaque_targets(const Graph& g, std::set<std::string>& out) {
  for (const auto& n : g.nodes())
    if ((n->op() == NodeOp::CallFunction && !n->target()->meta) ||
        (n->op() == NodeOp::CallOther && n->callable()->kind == CallableKind::Opaque))
      out.insert(node_target(*n));
  for (const auto& [name, sub] : g.subgraphs()) opaque_targets(*sub, out);
}

}  // namespace

std::string program_summary_json(const ExportedProgram& ep, const SummaryOptions& opts) {
  Writer w(opts.indent);
  w.begin_object();
  w.key("schema_version").value(opts.schema_version);
  w.key("torch_version").value(opts.torch_version);
  w.key("nodes").value(static_cast<int64_t>(ep.graph.size()));
  std::map<std::string, int64_t> ops;
  count_ops(ep.graph, ops);
  w.key("ops").begin_object();
  for (const auto& [op, n] : ops) w.key(op).value(n);
  w.end_object();
  std::set<std::string> opaque;
  opaque_targets(ep.graph, opaque);
  w.key("opaque").begin_array();
  for (const std::string& t : opaque) w.value(t);
  w.end_array();

  auto phs = ep.graph.placeholders();
  // Hashed, not ordered: a 405B program has a thousand state tensors (this summary is part of every
  // `export --json`, whose whole budget is ~10 ms).
  std::unordered_map<std::string_view, const Tensor*> state;
  state.reserve(ep.state_dict.size() + ep.constants.size());
  for (const auto& [k, t] : ep.state_dict) state[k] = &t;
  for (const auto& [k, t] : ep.constants) state.emplace(k, &t);
  std::vector<std::pair<Device, std::pair<int64_t, int64_t>>> devices;  // device -> (parameter, buffer) bytes
  int64_t param_count = 0, param_bytes = 0;
  std::unordered_set<const void*> seen_storage;  // tied weights share one storage: count it once
  seen_storage.reserve(state.size());
  w.key("inputs").begin_array();
  for (size_t i = 0; i < ep.signature.inputs.size() && i < phs.size(); ++i) {
    const InputSpec& s = ep.signature.inputs[i];
    w.begin_object();
    w.key("name").value(s.name);
    w.key("kind").value(input_kind_name(s.kind));
    nullable(w.key("target"), s.target);
    if (phs[i]->val.size() != 1) {  // a constant, symbolic int, custom object or token
      if (s.constant) w.key("value").value(s.constant->repr);
      else w.key("value").null();
      w.end_object();
      continue;
    }
    const TensorMeta& m = phs[i]->val[0];
    shape_json(w.key("shape"), m);
    w.key("dtype").value(dtype_name(m.dtype));
    w.key("device").value(m.device.str());
    w.end_object();
    if (s.kind != InputKind::Parameter && s.kind != InputKind::Buffer) continue;
    auto it = state.find(s.target);
    const void* key = it != state.end() && it->second->impl() ? static_cast<const void*>(it->second->impl()) : &s;
    if (it != state.end() && it->second->impl() && it->second->impl()->storage)
      key = it->second->impl()->storage.get();
    if (!seen_storage.insert(key).second) continue;
    const int64_t numel = m.numel().hint(), bytes = numel * itemsize(m.dtype);
    auto dev = std::find_if(devices.begin(), devices.end(), [&](const auto& e) { return e.first == m.device; });
    if (dev == devices.end()) dev = devices.insert(devices.end(), {m.device, {0, 0}});
    auto& d = dev->second;
    if (s.kind == InputKind::Parameter) {
      d.first += bytes;
      param_count += numel;
      param_bytes += bytes;
    } else {
      d.second += bytes;
    }
  }
  w.end_array();
  w.key("outputs").begin_array();
  for (const OutputSpec& s : ep.signature.outputs) {
    w.begin_object();
    w.key("name").value(s.name);
    w.key("kind").value(output_kind_name(s.kind));
    nullable(w.key("target"), s.target);
    w.end_object();
  }
  w.end_array();
  std::map<std::string, std::pair<int64_t, int64_t>> by_name;  // keys in the order of their text
  for (const auto& [dev, b] : devices) {
    auto& t = by_name[dev.str()];
    t.first += b.first;
    t.second += b.second;
  }
  w.key("devices").begin_object();
  for (const auto& [dev, b] : by_name) {
    w.key(dev).begin_object();
    w.key("parameter_bytes").value(b.first);
    w.key("buffer_bytes").value(b.second);
    w.end_object();
  }
  w.end_object();
  w.key("parameters").begin_object();
  w.key("count").value(param_count);
  w.key("bytes").value(param_bytes);
  w.end_object();
  // One entry per name, at its first position with its last range (as assigning into a JSON object).
  std::vector<std::pair<std::string_view, sym::ValueRange>> rc;
  for (const auto& entry : ep.range_constraints) {
    auto same = std::find_if(rc.begin(), rc.end(), [&](const auto& e) { return e.first == entry.first; });
    if (same != rc.end()) same->second = entry.second;
    else rc.emplace_back(entry.first, entry.second);
  }
  w.key("range_constraints").begin_object();
  for (const auto& [k, r] : rc) {
    w.key(k).begin_array();
    if (r.lo == sym::kNegInf) w.null();
    else w.value(r.lo);
    if (r.hi == sym::kPosInf) w.null();
    else w.value(r.hi);
    w.end_array();
  }
  w.end_object();
  w.end_object();
  return w.take();
}

std::vector<DeviceTransfer> device_transfers(const ExportedProgram& ep) {
  std::vector<DeviceTransfer> out;
  for (const auto& n : ep.graph.nodes()) {
    if (n->op() != NodeOp::CallFunction || n->target() == nullptr || n->val.size() != 1) continue;
    const std::string& q = n->target()->qualified;
    if (q.rfind("aten::to.", 0) != 0 && q.rfind("aten::_to_copy", 0) != 0) continue;
    if (n->args().empty()) continue;
    auto* in = std::get_if<Node*>(&n->args()[0]);
    if (in == nullptr || (*in)->val.size() != 1) continue;
    const Device from = (*in)->val[0].device, to = n->val[0].device;
    if (from != to) out.push_back({n->name(), from, to});
  }
  return out;
}

}  // namespace fe
