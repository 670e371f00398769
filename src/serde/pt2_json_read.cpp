// model.json -> ExportedProgram, following torch/_export/serde/serialize.py's
// GraphModuleDeserializer: placeholders, call_function nodes (args rebuilt in schema order, kept
// positional/keyword as serialized), getitem nodes for multi-output ops, metadata from
// tensor_values / sym_int_values, the signature, range constraints and module call graph.
#include <cctype>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "fakeexport/core/tensor.h"
#include "fakeexport/serde/pt2_json.h"

namespace fe::serde {
namespace {

using OJ = nlohmann::ordered_json;

std::string preview(const OJ& v) {
  std::string s = v.dump();
  return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

std::string type_name(const OJ& v) {
  if (v.is_number_integer()) return "integer";
  if (v.is_number_float()) return "float";
  return v.type_name();
}

const std::unordered_map<std::string_view, PyOp>& py_ops() {
  static const std::unordered_map<std::string_view, PyOp> m = {
      {"_operator.add", PyOp::Add}, {"_operator.sub", PyOp::Sub},   {"_operator.mul", PyOp::Mul},
      {"_operator.floordiv", PyOp::FloorDiv}, {"_operator.mod", PyOp::Mod}, {"torch.sym_min", PyOp::SymMin},
      {"torch.sym_max", PyOp::SymMax}, {"_operator.eq", PyOp::Eq}, {"_operator.ne", PyOp::Ne},
      {"_operator.lt", PyOp::Lt},     {"_operator.le", PyOp::Le},   {"_operator.gt", PyOp::Gt},
      {"_operator.ge", PyOp::Ge}};
  return m;
}

/// FX's name for an unnamed call of an OpOverload: _snake_case(op.__name__), e.g. "split.Tensor" ->
/// "split.tensor" (Graph::unique_name then turns the '.' into '_').
std::string fx_default_name(const std::string& overload_name) {
  std::string out;
  for (size_t i = 0; i < overload_name.size(); ++i) {
    char c = overload_name[i];
    if (i > 0 && std::isupper(static_cast<unsigned char>(c)) && std::islower(static_cast<unsigned char>(overload_name[i - 1])))
      out += '_';
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

class Reader {
 public:
  Reader(const Pt2ReadOptions& o, bool keys_sorted) : opts_(o), keys_sorted_(keys_sorted) {}

  ExportedProgram read(const OJ& root) {
    const std::string top = "";
    const OJ& ver = req(root, "schema_version", top);
    const int64_t major = get_int(req(ver, "major", "schema_version"), "schema_version.major");
    if (major != 8) fail("schema_version.major", detail::cat("unsupported schema version ", major, " (this reader knows 8.x)"));
    read_ranges(root);
    const OJ& gm = req(root, "graph_module", top);
    const OJ& graph = req(gm, "graph", "graph_module");
    index_values(graph);
    read_graph(graph, "graph_module.graph");
    read_signature(req(gm, "signature", "graph_module"), "graph_module.signature");
    read_module_call_graph(req(gm, "module_call_graph", "graph_module"));
    fill_state();
    ep_.shape_env = env_;
    ep_.graph.lint();
    return std::move(ep_);
  }

 private:
  // ---- typed access; every failure names the path and the value
  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw FormatError(detail::cat(opts_.source, ": ", path.empty() ? "<root>" : path, ": ", what));
  }
  static std::string sub(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }
  const OJ& req(const OJ& o, std::string_view key, const std::string& path) const {
    if (!o.is_object()) fail(path, "expected an object, got " + type_name(o) + " " + preview(o));
    auto it = o.find(std::string(key));
    if (it == o.end()) fail(path, "missing field '" + std::string(key) + "'");
    return *it;
  }
  const OJ* opt(const OJ& o, std::string_view key) const {
    auto it = o.find(std::string(key));
    return it == o.end() || it->is_null() ? nullptr : &*it;
  }
  const OJ& arr(const OJ& v, const std::string& path) const {
    if (!v.is_array()) fail(path, "expected a list, got " + type_name(v) + " " + preview(v));
    return v;
  }
  const OJ& obj(const OJ& v, const std::string& path) const {
    if (!v.is_object()) fail(path, "expected an object, got " + type_name(v) + " " + preview(v));
    return v;
  }
  int64_t get_int(const OJ& v, const std::string& path) const {
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      fail(path, "integer " + v.dump() + " overflows int64");
    if (v.is_number_float() && std::abs(v.get<double>()) >= 9.2e18) fail(path, "integer " + v.dump() + " overflows int64");
    if (!v.is_number_integer()) fail(path, "expected an integer, got " + type_name(v) + " " + preview(v));
    return v.get<int64_t>();
  }
  bool get_bool(const OJ& v, const std::string& path) const {
    if (!v.is_boolean()) fail(path, "expected a bool, got " + type_name(v) + " " + preview(v));
    return v.get<bool>();
  }
  const std::string& get_str(const OJ& v, const std::string& path) const {
    if (!v.is_string()) fail(path, "expected a string, got " + type_name(v) + " " + preview(v));
    return v.get_ref<const std::string&>();
  }
  double get_float(const OJ& v, const std::string& path) const {
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {  // _dataclass_to_dict writes infinities as strings
      const std::string& s = v.get_ref<const std::string&>();
      if (s == "Infinity") return INFINITY;
      if (s == "-Infinity") return -INFINITY;
      if (s == "NaN") return NAN;
    }
    fail(path, "expected a float, got " + type_name(v) + " " + preview(v));
  }
  /// A union: an object with exactly one key.
  std::pair<std::string, const OJ*> tag(const OJ& v, const std::string& path) const {
    if (!v.is_object() || v.size() != 1)
      fail(path, "expected a union (an object with one key), got " + preview(v));
    return {v.begin().key(), &v.begin().value()};
  }

  // ---- ranges and symbols
  void read_ranges(const OJ& root) {
    const OJ* rc = opt(root, "range_constraints");
    if (!rc) return;
    obj(*rc, "range_constraints");
    for (const auto& [name, r] : rc->items()) {
      const std::string p = "range_constraints." + name;
      obj(r, p);
      sym::ValueRange vr;
      if (const OJ* lo = opt(r, "min_val")) vr.lo = get_int(*lo, p + ".min_val");
      if (const OJ* hi = opt(r, "max_val")) vr.hi = get_int(*hi, p + ".max_val");
      if (vr.lo > vr.hi) fail(p, detail::cat("empty range [", vr.lo, ", ", vr.hi, "]"));
      ranges_.emplace_back(name, vr);
    }
  }

  void index_values(const OJ& graph) {
    const OJ& tv = obj(req(graph, "tensor_values", "graph_module.graph"), "graph_module.graph.tensor_values");
    for (const auto& [k, v] : tv.items()) tensor_values_[k] = &v;
    if (const OJ* sv = opt(graph, "sym_int_values")) {
      obj(*sv, "graph_module.graph.sym_int_values");
      for (const auto& [k, v] : sv->items()) sym_int_values_[k] = &v;
    }
    // Hints of bare symbols (`Symbol('s75', ...)` with hint 8), used when creating them.
    auto scan = [&](const OJ& s) {
      if (!s.is_object() || !s.contains("as_expr")) return;
      const OJ& e = s["as_expr"];
      if (!e.is_object() || !e.contains("expr_str") || !e["expr_str"].is_string()) return;
      const OJ* h = opt(e, "hint");
      if (!h || !h->is_object() || !h->contains("as_int") || !(*h)["as_int"].is_number_integer()) return;
      try {
        sym::Expr x = parse_cached(e["expr_str"].get<std::string>(), "");
        if (x.is_symbol()) hints_.emplace(x.name(), (*h)["as_int"].get<int64_t>());
      } catch (const FormatError&) {
      }  // reported with its path when the value is read
    };
    for (const auto& [k, v] : tensor_values_)
      if (v->is_object())
        for (const char* f : {"sizes", "strides"})
          if (v->contains(f) && (*v)[f].is_array())
            for (const auto& s : (*v)[f]) scan(s);
    for (const auto& [k, v] : sym_int_values_) scan(*v);
  }

  sym::Expr parse_cached(const std::string& text, const std::string& path) {
    auto it = exprs_.find(text);
    if (it != exprs_.end()) return it->second;
    sym::Expr e;
    try {
      e = parse_sym_expr(text);
    } catch (const FormatError& err) {
      fail(path, err.what());
    }
    exprs_.emplace(text, e);
    return e;
  }

  sym::ShapeEnv& env() {
    if (!env_) {
      env_ = std::make_shared<sym::ShapeEnv>();
      for (const auto& [name, r] : ranges_) symbol(name);  // range order first
    }
    return *env_;
  }

  /// The symbol `name`: hint from the file, else its lower bound (at least 2, as export assumes).
  SymInt symbol(const std::string& name) {
    sym::ShapeEnv& env_ref = env();  // creating the env creates the ranged symbols first
    if (auto it = symbols_.find(name); it != symbols_.end()) return it->second;
    sym::ValueRange r{2, sym::kPosInf};
    for (const auto& [n, vr] : ranges_)
      if (n == name) r = vr;
    auto h = hints_.find(name);
    int64_t hint = h != hints_.end() ? h->second : std::max<int64_t>(r.lo, 2);
    sym::ValueRange env_range{std::max<int64_t>(r.lo, 2), r.hi};
    if (env_range.lo > env_range.hi) env_range = r;
    SymInt s = env_ref.named_symbol(name, hint, env_range);
    symbols_.emplace(name, s);
    return s;
  }

  SymInt sym_int(const OJ& v, const std::string& path) {
    auto [t, val] = tag(v, path);
    if (t == "as_int") return get_int(*val, path + ".as_int");
    if (t != "as_expr") fail(path, "unknown SymInt kind '" + t + "'");
    const std::string& text = get_str(req(*val, "expr_str", path + ".as_expr"), path + ".as_expr.expr_str");
    sym::Expr e = parse_cached(text, path + ".as_expr.expr_str");
    if (e.is_constant()) return e.constant();
    std::map<std::string, int64_t, std::less<>> values;
    for (const std::string& s : e.free_symbols()) values[s] = symbol(s).hint();
    if (e.is_symbol()) return symbol(e.name());
    int64_t hint;
    const OJ* h = opt(*val, "hint");
    if (h && h->is_object() && h->contains("as_int")) {
      hint = get_int((*h)["as_int"], path + ".as_expr.hint.as_int");
    } else {
      try {
        hint = e.evaluate(values);
      } catch (const UserError& err) {
        fail(path, std::string("cannot evaluate '") + text + "': " + err.what());
      }
    }
    return env().make(e, hint);
  }

  TensorMeta tensor_meta(const std::string& name, const std::string& user) {
    auto it = tensor_values_.find(name);
    if (it == tensor_values_.end()) fail(user, "tensor '" + name + "' has no entry in graph.tensor_values");
    const OJ& v = *it->second;
    const std::string p = "graph_module.graph.tensor_values." + name;
    obj(v, p);
    TensorMeta m;
    const int64_t dt = get_int(req(v, "dtype", p), p + ".dtype");
    auto d = dtype_from_serialized(dt);
    if (!d) fail(p + ".dtype", detail::cat("unknown or unsupported ScalarType ", dt));
    m.dtype = *d;
    const OJ& sizes = arr(req(v, "sizes", p), p + ".sizes");
    const OJ& strides = arr(req(v, "strides", p), p + ".strides");
    if (sizes.size() != strides.size())
      fail(p, detail::cat(sizes.size(), " sizes but ", strides.size(), " strides"));
    for (size_t i = 0; i < sizes.size(); ++i) {
      SymInt s = sym_int(sizes[i], detail::cat(p, ".sizes[", i, "]"));
      if (!s.is_symbolic() && s.hint() < 0) fail(detail::cat(p, ".sizes[", i, "]"), detail::cat("negative size ", s.hint()));
      m.sizes.push_back(s);
      m.strides.push_back(sym_int(strides[i], detail::cat(p, ".strides[", i, "]")));
    }
    if (const OJ* so = opt(v, "storage_offset")) m.storage_offset = sym_int(*so, p + ".storage_offset");
    m.requires_grad = get_bool(req(v, "requires_grad", p), p + ".requires_grad");
    m.device = device(req(v, "device", p), p + ".device").normalized();
    if (const OJ* l = opt(v, "layout")) {
      auto lay = layout_from_serialized(get_int(*l, p + ".layout"));
      if (!lay) fail(p + ".layout", "unknown layout " + l->dump());
      m.layout = *lay;
    }
    return m;
  }

  Device device(const OJ& v, const std::string& path) {
    const std::string& type = get_str(req(v, "type", path), path + ".type");
    std::string text = type;
    if (const OJ* idx = opt(v, "index")) {
      int64_t i = get_int(*idx, path + ".index");
      if (i < 0 || i > 127) fail(path + ".index", detail::cat("device index ", i, " out of range"));
      text += ":" + std::to_string(i);
    }
    try {
      return Device::parse(text);
    } catch (const UserError& e) {
      fail(path, std::string("bad device: ") + e.what());
    }
  }

  // ---- graph
  Node* node_named(const std::string& name, const std::string& path) {
    auto it = nodes_.find(name);
    if (it == nodes_.end()) fail(path, "dangling name '" + name + "' (no earlier node defines it)");
    return it->second;
  }
  Node* tensor_node(const std::string& name, const std::string& path) {
    Node* n = node_named(name, path);
    if (n->val.size() != 1 || n->multi_output() || n->sym_val)
      fail(path, "'" + name + "' is not a tensor value");
    return n;
  }
  void define(const std::string& name, Node* n, const std::string& path) {
    if (!nodes_.emplace(name, n).second) fail(path, "name '" + name + "' is defined twice");
    ep_.graph.set_name(n, name);
  }
  SymInt sym_arg(const OJ& v, const std::string& path) {
    auto [t, val] = tag(v, path);
    if (t == "as_int") return get_int(*val, path + ".as_int");
    if (t != "as_name") fail(path, "unknown SymIntArgument kind '" + t + "'");
    Node* n = node_named(get_str(*val, path + ".as_name"), path);
    if (!n->sym_val) fail(path, "'" + n->name() + "' is not a symbolic int");
    return n->sym_val->is_symbolic() ? env().make_handle(*n->sym_val, n) : *n->sym_val;
  }
  std::string tensor_name(const OJ& v, const std::string& path) {
    return get_str(req(v, "name", path), path + ".name");
  }

  NodeArg argument(const OJ& v, const std::string& path) {
    auto [t, val] = tag(v, path);
    const std::string p = path + "." + t;
    if (t == "as_none") return None{};
    if (t == "as_tensor") return tensor_node(tensor_name(*val, p), p);
    if (t == "as_int") return SymInt(get_int(*val, p));
    if (t == "as_float") return get_float(*val, p);
    if (t == "as_bool") return get_bool(*val, p);
    if (t == "as_string") return get_str(*val, p);
    if (t == "as_sym_int") return sym_arg(*val, p);
    if (t == "as_scalar_type") {
      auto d = dtype_from_serialized(get_int(*val, p));
      if (!d) fail(p, "unknown or unsupported ScalarType " + val->dump());
      return *d;
    }
    if (t == "as_layout") {
      auto l = layout_from_serialized(get_int(*val, p));
      if (!l) fail(p, "unknown layout " + val->dump());
      return *l;
    }
    if (t == "as_memory_format") {
      auto m = memory_format_from_serialized(get_int(*val, p));
      if (!m) fail(p, "unknown memory format " + val->dump());
      return *m;
    }
    if (t == "as_device") return device(*val, p);
    if (t == "as_ints" || t == "as_sym_ints") {
      std::vector<SymInt> out;
      size_t i = 0;
      for (const auto& e : arr(*val, p)) {
        const std::string pe = detail::cat(p, "[", i++, "]");
        out.push_back(t == "as_ints" ? SymInt(get_int(e, pe)) : sym_arg(e, pe));
      }
      return out;
    }
    if (t == "as_tensors" || t == "as_optional_tensors") {
      std::vector<Node*> out;
      size_t i = 0;
      for (const auto& e : arr(*val, p)) {
        const std::string pe = detail::cat(p, "[", i++, "]");
        if (t == "as_tensors") {
          out.push_back(tensor_node(tensor_name(e, pe), pe));
          continue;
        }
        auto [et, ev] = tag(e, pe);
        if (et != "as_tensor") fail(pe, "None inside a tensor list is not supported");
        out.push_back(tensor_node(tensor_name(*ev, pe + ".as_tensor"), pe));
      }
      return out;
    }
    if (t == "as_floats" || t == "as_bools" || t == "as_strings" || t == "as_sym_bool" || t == "as_sym_bools" ||
        t == "as_sym_float" || t == "as_sym_floats" || t == "as_graph" || t == "as_custom_obj" ||
        t == "as_operator" || t == "as_optional_tensor" || t == "as_complex" || t == "as_nested_tensors" ||
        t == "as_int_lists" || t == "as_string_to_argument" || t == "as_float_lists")
      fail(path, "argument kind '" + t + "' is not supported by fakeexport's graph");
    fail(path, "unknown argument kind '" + t + "'");
  }

  /// An OpDef for a target our registry lacks, from what the file says about its call.
  const OpDef* opaque_op(const std::string& target, const std::string& ns, const std::string& name,
                         const std::string& overload, const OJ& inputs, const OJ& outputs, const std::string& path) {
    auto op = std::make_unique<OpDef>();
    op->schema.ns = ns;
    op->schema.name = name;
    op->schema.overload = overload;
    op->qualified = ns + "::" + name + "." + overload;
    op->node_name = name;
    op->device_rule = DeviceRule::None;
    OpDef* def = op.get();
    for (const auto& o : ep_.opaque_ops)
      if (o->qualified == op->qualified) def = o.get();  // its first use fixed the returns
    if (def == op.get()) {
      const bool list_out = outputs.size() == 1 && outputs[0].is_object() && outputs[0].contains("as_tensors");
      for (size_t k = 0; k < outputs.size(); ++k) {
        Argument r;
        r.type.is_list = list_out;
        def->schema.returns.push_back(std::move(r));
      }
      ep_.opaque_ops.push_back(std::move(op));
    }
    // Arguments as the calls name them (all optional: a later call may leave some out).
    size_t i = 0;
    for (const auto& in : inputs) {
      const std::string pi = detail::cat(path, ".inputs[", i++, "]");
      const std::string& an = get_str(req(in, "name", pi), pi + ".name");
      if (def->schema.arg_index(an) >= 0) continue;
      Argument a;
      a.name = an;
      a.type.optional = true;
      def->schema.arguments.push_back(std::move(a));
    }
    (void)target;
    return def;
  }

  void read_metadata(Node* n, const OJ* md, const std::string& path) {
    if (!md) return;
    obj(*md, path);
    for (const auto& [k, v] : md->items()) {
      const std::string& s = get_str(v, path + "." + k);
      if (k == "stack_trace") {
        n->stack_trace = s;
        continue;
      }
      n->serialized_meta.emplace_back(k, s);
      if (k == "nn_module_stack") n->module_stack = module_stack(s, path + "." + k);
    }
  }

  /// "key,path,type;key,path,type": commas inside brackets belong to the path.
  std::shared_ptr<const ModuleStack> module_stack(const std::string& s, const std::string& path) {
    if (auto it = stacks_.find(s); it != stacks_.end()) return it->second;
    auto st = std::make_shared<ModuleStack>();
    size_t start = 0;
    while (start <= s.size()) {
      size_t semi = s.find(';', start);
      std::string item = s.substr(start, semi == std::string::npos ? std::string::npos : semi - start);
      std::vector<std::string> parts;
      int depth = 0;
      size_t b = 0;
      for (size_t i = 0; i < item.size(); ++i) {
        if (item[i] == '[' || item[i] == '(') ++depth;
        else if (item[i] == ']' || item[i] == ')') --depth;
        else if (item[i] == ',' && depth == 0) {
          parts.push_back(item.substr(b, i - b));
          b = i + 1;
        }
      }
      parts.push_back(item.substr(b));
      if (parts.size() != 3) fail(path, "entry '" + item + "' is not 'key,path,type'");
      st->push_back({parts[1], parts[2]});
      if (semi == std::string::npos) break;
      start = semi + 1;
    }
    stacks_.emplace(s, st);
    return st;
  }

  void read_node(const OJ& sn, const std::string& path0) {
    obj(sn, path0);
    const std::string& target = get_str(req(sn, "target", path0), path0 + ".target");
    const OJ* name_j = opt(sn, "name");
    const std::string path = path0 + (name_j && name_j->is_string() ? " (" + name_j->get<std::string>() + ")" : "");
    const OJ& inputs = arr(req(sn, "inputs", path), path + ".inputs");
    const OJ& outputs = arr(req(sn, "outputs", path), path + ".outputs");
    std::string name = name_j ? get_str(*name_j, path + ".name") : std::string();
    Graph& g = ep_.graph;

    if (auto py = py_ops().find(target); py != py_ops().end()) {
      std::vector<NodeArg> args;
      size_t i = 0;
      for (const auto& in : inputs) {
        const std::string pi = detail::cat(path, ".inputs[", i++, "]");
        args.push_back(argument(req(in, "arg", pi), pi + ".arg"));
      }
      if (outputs.size() != 1) fail(path + ".outputs", "a symbolic operator has exactly one output");
      auto [ot, ov] = tag(outputs[0], path + ".outputs[0]");
      if (ot != "as_sym_int" && ot != "as_sym_bool") fail(path + ".outputs[0]", "unexpected output kind '" + ot + "'");
      auto [nt, nv] = tag(*ov, path + ".outputs[0]." + ot);
      if (nt != "as_name") fail(path + ".outputs[0]", "expected as_name");
      const std::string& out = get_str(*nv, path + ".outputs[0]." + ot + ".as_name");
      std::optional<SymInt> val;
      if (ot == "as_sym_int") val = sym_value(out, path);
      Node* n = g.sym_op(py->second, std::move(args), val);
      define(out, n, path);
      read_metadata(n, opt(sn, "metadata"), path + ".metadata");
      return;
    }

    // torch.ops.<ns>.<op>.<overload>
    if (!target.starts_with("torch.ops.")) fail(path + ".target", "unsupported target '" + target + "'");
    std::string rest = target.substr(10);
    size_t d1 = rest.find('.'), d2 = rest.rfind('.');
    if (d1 == std::string::npos || d1 == d2) fail(path + ".target", "target '" + target + "' is not torch.ops.<ns>.<op>.<overload>");
    const std::string ns = rest.substr(0, d1), op_name = rest.substr(d1 + 1, d2 - d1 - 1), overload = rest.substr(d2 + 1);
    const OpDef* op = registry().find(ns + "::" + op_name + "." + overload);
    if (!op) op = opaque_op(target, ns, op_name, overload, inputs, outputs, path);
    const FunctionSchema& s = op->schema;

    // Arguments by schema name, then laid out in schema order.
    std::unordered_map<std::string, std::pair<const OJ*, int64_t>> given;
    size_t i = 0;
    for (const auto& in : inputs) {
      const std::string pi = detail::cat(path, ".inputs[", i++, "]");
      const std::string& an = get_str(req(in, "name", pi), pi + ".name");
      if (s.arg_index(an) < 0) fail(pi, "'" + an + "' is not an argument of " + op->qualified);
      int64_t kind = 0;
      if (const OJ* k = opt(in, "kind")) kind = get_int(*k, pi + ".kind");
      if (!given.emplace(an, std::pair{&req(in, "arg", pi), kind}).second) fail(pi, "argument '" + an + "' given twice");
    }
    std::vector<NodeArg> args;
    std::vector<ArgGiven> how;
    for (const Argument& a : s.arguments) {
      auto it = given.find(a.name);
      if (it == given.end()) {
        if (a.default_value) args.push_back(map_tensors<Node*>(*a.default_value, [](NoTensor) -> Node* { return nullptr; }));
        else if (a.type.optional) args.push_back(None{});
        else fail(path, "missing argument '" + a.name + "' of " + op->qualified);
        how.push_back(ArgGiven::Absent);
        continue;
      }
      args.push_back(argument(*it->second.first, path + ".inputs[" + a.name + "].arg"));
      const int64_t kind = it->second.second;
      if (kind == 1) how.push_back(ArgGiven::Positional);
      else if (kind == 2) how.push_back(ArgGiven::Keyword);
      else if (kind == 0) how.push_back(!a.default_value && !a.kwarg_only ? ArgGiven::Positional : ArgGiven::Keyword);
      else fail(path + ".inputs[" + a.name + "].kind", detail::cat("unknown ArgumentKind ", kind));
    }

    // Outputs: one tensor / one symbolic int / none / several tensors (through getitem).
    std::vector<std::string> elems;
    std::optional<std::string> single, sym_out;
    if (outputs.size() == 1) {
      auto [ot, ov] = tag(outputs[0], path + ".outputs[0]");
      if (ot == "as_tensor") single = tensor_name(*ov, path + ".outputs[0].as_tensor");
      else if (ot == "as_sym_int") {
        auto [nt, nv] = tag(*ov, path + ".outputs[0].as_sym_int");
        if (nt != "as_name") fail(path + ".outputs[0].as_sym_int", "expected as_name");
        sym_out = get_str(*nv, path + ".outputs[0].as_sym_int.as_name");
      } else if (ot == "as_tensors") {
        size_t k = 0;
        for (const auto& e : arr(*ov, path + ".outputs[0].as_tensors"))
          elems.push_back(tensor_name(e, detail::cat(path, ".outputs[0].as_tensors[", k++, "]")));
      } else if (ot != "as_none") {
        fail(path + ".outputs[0]", "unsupported output kind '" + ot + "'");
      }
    } else {
      for (size_t k = 0; k < outputs.size(); ++k) {
        const std::string po = detail::cat(path, ".outputs[", k, "]");
        auto [ot, ov] = tag(outputs[k], po);
        if (ot != "as_tensor") fail(po, "unsupported output kind '" + ot + "' in a multi-output node");
        elems.push_back(tensor_name(*ov, po + ".as_tensor"));
      }
    }

    std::string hint = single ? *single : sym_out ? *sym_out : name;
    Node* n = g.call(*op, std::move(args), hint.empty() ? fx_default_name(op_name + "." + overload) : hint);
    n->arg_given = std::move(how);
    if (single) n->val.push_back(tensor_meta(*single, path + ".outputs[0]"));
    for (const std::string& e : elems) n->val.push_back(tensor_meta(e, path + ".outputs"));
    if (sym_out) n->sym_val = sym_value(*sym_out, path);
    if (!elems.empty() && !n->multi_output())
      fail(path + ".outputs", detail::cat(op->qualified, " returns one value but ", elems.size(), " are recorded"));
    if ((single || sym_out) && n->multi_output())
      fail(path + ".outputs", op->qualified + " returns several values but one is recorded");
    // The node takes its output's name (PyTorch's sync_fx_node), else the serialized one.
    if (single) define(*single, n, path);
    else if (sym_out) define(*sym_out, n, path);
    else if (!name.empty()) define(name, n, path);
    else if (!nodes_.emplace(n->name(), n).second) fail(path, "name '" + n->name() + "' is defined twice");
    read_metadata(n, opt(sn, "metadata"), path + ".metadata");
    for (size_t k = 0; k < elems.size(); ++k) {
      Node* gi = g.getitem(n, static_cast<int64_t>(k));
      define(elems[k], gi, path);
      gi->stack_trace = n->stack_trace;
      gi->module_stack = n->module_stack;
      gi->serialized_meta = n->serialized_meta;
    }
  }

  SymInt sym_value(const std::string& name, const std::string& path) {
    auto it = sym_int_values_.find(name);
    if (it == sym_int_values_.end()) fail(path, "symbolic int '" + name + "' has no entry in graph.sym_int_values");
    return sym_int(*it->second, "graph_module.graph.sym_int_values." + name);
  }

  void read_graph(const OJ& graph, const std::string& path) {
    Graph& g = ep_.graph;
    const OJ& inputs = arr(req(graph, "inputs", path), path + ".inputs");
    size_t i = 0;
    for (const auto& in : inputs) {
      const std::string pi = detail::cat(path, ".inputs[", i++, "]");
      auto [t, v] = tag(in, pi);
      if (t != "as_tensor") fail(pi, "graph input kind '" + t + "' is not supported");
      const std::string name = tensor_name(*v, pi + ".as_tensor");
      Node* n = g.placeholder(name, tensor_meta(name, pi));
      define(name, n, pi);
      input_names_.push_back(name);
    }
    const OJ& nodes = arr(req(graph, "nodes", path), path + ".nodes");
    i = 0;
    for (const auto& sn : nodes) read_node(sn, detail::cat(path, ".nodes[", i++, "]"));
    std::vector<Node*> outs;
    i = 0;
    for (const auto& o : arr(req(graph, "outputs", path), path + ".outputs")) {
      const std::string po = detail::cat(path, ".outputs[", i++, "]");
      auto [t, v] = tag(o, po);
      if (t == "as_tensor") outs.push_back(tensor_node(tensor_name(*v, po + ".as_tensor"), po));
      else if (t == "as_sym_int") {
        auto [nt, nv] = tag(*v, po + ".as_sym_int");
        if (nt != "as_name") fail(po, "a constant output is not supported");
        outs.push_back(node_named(get_str(*nv, po + ".as_sym_int.as_name"), po));
      } else {
        fail(po, "graph output kind '" + t + "' is not supported");
      }
    }
    g.output(outs);
  }

  // ---- signature, module call graph, state
  void read_signature(const OJ& sig, const std::string& path) {
    const OJ& ins = arr(req(sig, "input_specs", path), path + ".input_specs");
    if (ins.size() != input_names_.size())
      fail(path + ".input_specs", detail::cat(ins.size(), " input specs for ", input_names_.size(), " graph inputs"));
    size_t i = 0;
    for (const auto& spec : ins) {
      const std::string p = detail::cat(path, ".input_specs[", i, "]");
      auto [t, v] = tag(spec, p);
      const std::string pt = p + "." + t;
      InputSpec s{InputKind::UserInput, "", "", true};
      const OJ& arg = req(*v, "arg", pt);
      if (t == "user_input") {
        auto [at, av] = tag(arg, pt + ".arg");
        if (at != "as_tensor") fail(pt + ".arg", "user input kind '" + at + "' is not supported");
        s.name = tensor_name(*av, pt + ".arg.as_tensor");
      } else if (t == "parameter") {
        s = {InputKind::Parameter, tensor_name(arg, pt + ".arg"), get_str(req(*v, "parameter_name", pt), pt + ".parameter_name"), true};
      } else if (t == "buffer") {
        s = {InputKind::Buffer, tensor_name(arg, pt + ".arg"), get_str(req(*v, "buffer_name", pt), pt + ".buffer_name"),
             get_bool(req(*v, "persistent", pt), pt + ".persistent")};
      } else if (t == "tensor_constant") {
        s = {InputKind::ConstantTensor, tensor_name(arg, pt + ".arg"),
             get_str(req(*v, "tensor_constant_name", pt), pt + ".tensor_constant_name"), true};
      } else if (t == "custom_obj" || t == "token" || t == "constant_input") {
        fail(p, "input spec kind '" + t + "' is not supported");
      } else {
        fail(p, "unknown input spec kind '" + t + "'");
      }
      if (s.name != input_names_[i])
        fail(p, "names '" + s.name + "' but graph input " + std::to_string(i) + " is '" + input_names_[i] + "'");
      ep_.signature.inputs.push_back(std::move(s));
      ++i;
    }
    static const std::unordered_map<std::string_view, std::pair<OutputKind, const char*>> out_kinds = {
        {"user_output", {OutputKind::UserOutput, nullptr}},
        {"loss_output", {OutputKind::LossOutput, nullptr}},
        {"buffer_mutation", {OutputKind::BufferMutation, "buffer_name"}},
        {"parameter_mutation", {OutputKind::ParameterMutation, "parameter_name"}},
        {"gradient_to_parameter", {OutputKind::GradientToParameter, "parameter_name"}},
        {"gradient_to_user_input", {OutputKind::GradientToUserInput, "user_input_name"}},
        {"user_input_mutation", {OutputKind::UserInputMutation, "user_input_name"}},
    };
    const auto& outs = std::get<std::vector<Node*>>(ep_.graph.output_node()->args()[0]);
    const OJ& os = arr(req(sig, "output_specs", path), path + ".output_specs");
    if (os.size() != outs.size())
      fail(path + ".output_specs", detail::cat(os.size(), " output specs for ", outs.size(), " graph outputs"));
    i = 0;
    for (const auto& spec : os) {
      const std::string p = detail::cat(path, ".output_specs[", i, "]");
      auto [t, v] = tag(spec, p);
      auto k = out_kinds.find(t);
      if (k == out_kinds.end()) fail(p, "output spec kind '" + t + "' is not supported");
      const std::string pt = p + "." + t;
      const OJ& arg = req(*v, "arg", pt);
      OutputSpec s{k->second.first, "", ""};
      if (t == "user_output") {
        auto [at, av] = tag(arg, pt + ".arg");
        if (at == "as_tensor") s.name = tensor_name(*av, pt + ".arg.as_tensor");
        else if (at == "as_sym_int" && av->is_object() && av->contains("as_name")) s.name = get_str((*av)["as_name"], pt + ".arg.as_sym_int.as_name");
        else fail(pt + ".arg", "user output kind '" + at + "' is not supported");
      } else {
        s.name = tensor_name(arg, pt + ".arg");
      }
      if (k->second.second) s.target = get_str(req(*v, k->second.second, pt), pt + "." + k->second.second);
      if (s.name != outs[i]->name())
        fail(p, "names '" + s.name + "' but graph output " + std::to_string(i) + " is '" + outs[i]->name() + "'");
      ep_.signature.outputs.push_back(std::move(s));
      ++i;
    }
  }

  std::vector<std::string> arg_names(const OJ& list, const std::string& path) {
    std::vector<std::string> out;
    size_t i = 0;
    for (const auto& a : arr(list, path)) {
      const std::string p = detail::cat(path, "[", i++, "]");
      auto [t, v] = tag(a, p);
      if (t == "as_tensor") out.push_back(tensor_name(*v, p + ".as_tensor"));
      else if (v->is_object() && v->contains("as_name")) out.push_back(get_str((*v)["as_name"], p + "." + t + ".as_name"));
      else fail(p, "module call signature argument kind '" + t + "' is not supported");
    }
    return out;
  }

  void read_module_call_graph(const OJ& mcg) {
    size_t i = 0;
    for (const auto& e : arr(mcg, "graph_module.module_call_graph")) {
      const std::string p = detail::cat("graph_module.module_call_graph[", i++, "]");
      ModuleCallEntry m;
      m.fqn = get_str(req(e, "fqn", p), p + ".fqn");
      if (const OJ* sg = opt(e, "signature")) {
        const std::string ps = p + ".signature";
        ModuleCallEntry::Signature s;
        s.inputs = arg_names(req(*sg, "inputs", ps), ps + ".inputs");
        s.outputs = arg_names(req(*sg, "outputs", ps), ps + ".outputs");
        s.in_spec = get_str(req(*sg, "in_spec", ps), ps + ".in_spec");
        s.out_spec = get_str(req(*sg, "out_spec", ps), ps + ".out_spec");
        if (const OJ* f = opt(*sg, "forward_arg_names")) {
          size_t k = 0;
          for (const auto& n : arr(*f, ps + ".forward_arg_names"))
            s.forward_arg_names.push_back(get_str(n, detail::cat(ps, ".forward_arg_names[", k++, "]")));
        }
        m.inputs = s.inputs;
        m.outputs = s.outputs;
        m.signature = std::move(s);
      }
      ep_.module_call_graph.push_back(std::move(m));
    }
  }

  void fill_state() {
    // Range constraints: file order, or export's order when the keys came sorted.
    std::vector<std::pair<std::string, sym::ValueRange>> rc = ranges_;
    if (keys_sorted_) {
      std::vector<std::pair<std::string, sym::ValueRange>> ordered;
      auto take = [&](const std::string& s) {
        for (auto it = rc.begin(); it != rc.end(); ++it)
          if (it->first == s) {
            ordered.push_back(*it);
            rc.erase(it);
            return;
          }
      };
      for (const InputSpec& s : ep_.signature.inputs)
        if (s.kind == InputKind::UserInput)
          for (const SymInt& d : nodes_.at(s.name)->val[0].sizes)
            if (d.is_symbolic())
              for (const std::string& f : d.expr().free_symbols()) take(f);
      ordered.insert(ordered.end(), rc.begin(), rc.end());
      rc = std::move(ordered);
    }
    ep_.range_constraints = std::move(rc);
    if (!opts_.fake_state) return;
    for (const InputSpec& s : ep_.signature.inputs) {
      if (s.kind == InputKind::UserInput) continue;
      auto impl = std::make_shared<TensorImpl>();
      impl->meta = nodes_.at(s.name)->val[0];
      impl->fake = true;
      impl->is_parameter = s.kind == InputKind::Parameter;
      const bool state = s.kind == InputKind::Parameter || (s.kind == InputKind::Buffer && s.persistent);
      (state ? ep_.state_dict : ep_.constants).emplace_back(s.target, Tensor(std::move(impl)));
    }
  }

  const Pt2ReadOptions& opts_;
  bool keys_sorted_;
  ExportedProgram ep_;
  std::shared_ptr<sym::ShapeEnv> env_;
  std::vector<std::pair<std::string, sym::ValueRange>> ranges_;
  std::unordered_map<std::string, const OJ*> tensor_values_, sym_int_values_;
  std::unordered_map<std::string, int64_t> hints_;
  std::unordered_map<std::string, sym::Expr> exprs_;
  std::unordered_map<std::string, SymInt> symbols_;
  std::unordered_map<std::string, Node*> nodes_;
  std::unordered_map<std::string, std::shared_ptr<const ModuleStack>> stacks_;
  std::vector<std::string> input_names_;
};

}  // namespace

ExportedProgram program_from_json(const nlohmann::ordered_json& model_json, const Pt2ReadOptions& opts) {
  return Reader(opts, false).read(model_json);
}

ExportedProgram program_from_json(const nlohmann::json& model_json, const Pt2ReadOptions& opts) {
  return Reader(opts, true).read(nlohmann::ordered_json(model_json));
}

ExportedProgram program_from_json_text(std::string_view text, const Pt2ReadOptions& opts) {
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw FormatError(detail::cat(opts.source, ": not valid JSON: ", e.what()));
  }
  return program_from_json(j, opts);
}

}  // namespace fe::serde
