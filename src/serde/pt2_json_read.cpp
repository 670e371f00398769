// model.json -> ExportedProgram, following torch/_export/serde/serialize.py's
// GraphModuleDeserializer: the program level (schema version, range constraints, symbols, tensor
// values, signature, module call graph, state). Graphs and nodes: pt2_json_read_graph.cpp.
#include <cmath>
#include <optional>
#include <unordered_set>

#include "fakeexport/core/tensor.h"
#include "serde/pt2_json_reader.h"

namespace fe::serde {
namespace detail_read {

std::string preview(const OJ& v) {
  std::string_view r = v.raw();
  while (!r.empty() && (r.front() == ' ' || r.front() == '\n' || r.front() == '\t' || r.front() == '\r')) r.remove_prefix(1);
  return r.size() > 80 ? std::string(r.substr(0, 77)) + "..." : std::string(r);
}

std::string type_name(const OJ& v) { return std::string(v.type_name()); }

ExportedProgram Reader::read(const OJ& root) {
  obj(root, "");
  const OJ& ver = req(root, "schema_version", "");
  const int64_t major = get_int(req(ver, "major", "schema_version"), "schema_version.major");
  if (major != 8) fail("schema_version.major", fe::detail::cat("unsupported schema version ", major, " (this reader knows 8.x)"));
  read_ranges(root);
  const OJ& gm = req(root, "graph_module", "");
  const OJ& graph = req(gm, "graph", "graph_module");
  const OJ& sig = req(gm, "signature", "graph_module");
  scan_hints(graph, 0);
  read_graph(graph, ep_.graph, "graph_module.graph", &req(sig, "input_specs", "graph_module.signature"));
  read_signature(sig, "graph_module.signature");
  read_module_call_graph(req(gm, "module_call_graph", "graph_module"));
  fill_state();
  ep_.shape_env = env_;
  return std::move(ep_);
}

// ---- typed access
void Reader::fail(const std::string& path, const std::string& what) const {
  throw FormatError(fe::detail::cat(opts_.source, ": ", path.empty() ? "<root>" : path, ": ", what));
}
const OJ& Reader::req(const OJ& o, std::string_view key, const std::string& path) const {
  if (!o.is_object()) fail(path, "expected an object, got " + type_name(o) + " " + preview(o));
  const OJ* v = o.find(key);
  if (!v) fail(path, "missing field '" + std::string(key) + "'");
  return *v;
}
std::span<const OJ> Reader::arr(const OJ& v, const std::string& path) const {
  if (!v.is_array()) fail(path, "expected a list, got " + type_name(v) + " " + preview(v));
  return v.elements();
}
const OJ& Reader::obj(const OJ& v, const std::string& path) const {
  if (!v.is_object()) fail(path, "expected an object, got " + type_name(v) + " " + preview(v));
  return v;
}
int64_t Reader::get_int(const OJ& v, const std::string& path) const {
  if (v.is_number_unsigned()) fail(path, "integer " + preview(v) + " overflows int64");
  if (v.is_number_float() && std::abs(v.as_double()) >= 9.2e18) fail(path, "integer " + preview(v) + " overflows int64");
  if (!v.is_number_integer()) fail(path, "expected an integer, got " + type_name(v) + " " + preview(v));
  return v.as_int();
}
bool Reader::get_bool(const OJ& v, const std::string& path) const {
  if (!v.is_boolean()) fail(path, "expected a bool, got " + type_name(v) + " " + preview(v));
  return v.as_bool();
}
std::string Reader::get_str(const OJ& v, const std::string& path) const {
  if (!v.is_string()) fail(path, "expected a string, got " + type_name(v) + " " + preview(v));
  return std::string(v.as_string());
}
double Reader::get_float(const OJ& v, const std::string& path) const {
  if (v.is_number()) return v.as_double();
  if (v.is_string()) {  // _dataclass_to_dict writes infinities as strings
    const std::string_view s = v.as_string();
    if (s == "Infinity") return INFINITY;
    if (s == "-Infinity") return -INFINITY;
    if (s == "NaN") return NAN;
  }
  fail(path, "expected a float, got " + type_name(v) + " " + preview(v));
}
std::pair<std::string, const OJ*> Reader::tag(const OJ& v, const std::string& path) const {
  if (!v.is_object() || v.size() != 1) fail(path, "expected a union (an object with one key), got " + preview(v));
  const json::Member& m = v.members()[0];
  return {std::string(m.key), &m.value};
}

// ---- ranges and symbols
void Reader::read_ranges(const OJ& root) {
  const OJ* rc = opt(root, "range_constraints");
  if (!rc) return;
  obj(*rc, "range_constraints");
  for (const auto& [name, r] : rc->members()) {
    const std::string p = "range_constraints." + std::string(name);
    obj(r, p);
    sym::ValueRange vr;
    if (const OJ* lo = opt(r, "min_val")) vr.lo = get_int(*lo, p + ".min_val");
    if (const OJ* hi = opt(r, "max_val")) vr.hi = get_int(*hi, p + ".max_val");
    if (vr.lo > vr.hi) fail(p, fe::detail::cat("empty range [", vr.lo, ", ", vr.hi, "]"));
    ranges_.emplace_back(std::string(name), vr);
  }
}

/// Hints of bare symbols (`Symbol('s75', ...)` with hint 8) in every graph, used when creating them.
void Reader::scan_hints(const OJ& graph, int depth) {
  if (!graph.is_object() || depth > 64) return;  // malformed graphs are reported when read
  auto scan = [&](const OJ& s) {
    if (!s.is_object() || !s.contains("as_expr")) return;
    const OJ& e = s.at("as_expr");
    if (!e.is_object() || !e.contains("expr_str") || !e.at("expr_str").is_string()) return;
    const OJ* h = opt(e, "hint");
    if (!h || !h->is_object() || !h->contains("as_int") || !(*h).at("as_int").is_number_integer()) return;
    try {
      sym::Expr x = parse_cached(std::string(e.at("expr_str").as_string()), "");
      if (x.is_symbol()) hints_.emplace(x.name(), (*h).at("as_int").as_int());
    } catch (const FormatError&) {
    }  // reported with its path when the value is read
  };
  if (const OJ* tv = opt(graph, "tensor_values"); tv && tv->is_object())
    for (const auto& [k, v] : tv->members())
      if (v.is_object())
        for (const char* f : {"sizes", "strides"})
          if (v.contains(f) && v.at(f).is_array())
            for (const auto& s : v.at(f).elements()) scan(s);
  if (const OJ* sv = opt(graph, "sym_int_values"); sv && sv->is_object())
    for (const auto& [k, v] : sv->members()) scan(v);
  // Subgraphs of higher-order ops hold their own values.
  if (const OJ* nodes = opt(graph, "nodes"); nodes && nodes->is_array())
    for (const auto& n : nodes->elements())
      if (const OJ* ins = opt(n, "inputs"); ins && ins->is_array())
        for (const auto& in : ins->elements())
          if (const OJ* a = opt(in, "arg"); a && a->is_object() && a->contains("as_graph"))
            if (const OJ* g = opt((*a).at("as_graph"), "graph")) scan_hints(*g, depth + 1);
}

sym::Expr Reader::parse_cached(const std::string& text, const std::string& path) {
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

sym::ShapeEnv& Reader::env() {
  if (!env_) {
    env_ = std::make_shared<sym::ShapeEnv>();
    for (const auto& [name, r] : ranges_) symbol(name);  // range order first
  }
  return *env_;
}

/// The symbol `name`: hint from the file, else its lower bound (at least 2, as export assumes).
SymInt Reader::symbol(const std::string& name) {
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

SymInt Reader::sym_int(const OJ& v, const std::string& path) {
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
    hint = get_int((*h).at("as_int"), path + ".as_expr.hint.as_int");
  } else {
    try {
      hint = e.evaluate(values);
    } catch (const UserError& err) {
      fail(path, std::string("cannot evaluate '") + text + "': " + err.what());
    }
  }
  return env().make(e, hint);
}

TensorMeta Reader::tensor_meta(const std::string& name, const std::string& user) {
  auto it = cur().tensor_values.find(name);
  if (it == cur().tensor_values.end()) fail(user, "tensor '" + name + "' has no entry in " + cur().path + ".tensor_values");
  const OJ& v = *it->second;
  const std::string p = cur().path + ".tensor_values." + name;
  obj(v, p);
  TensorMeta m;
  const int64_t dt = get_int(req(v, "dtype", p), p + ".dtype");
  auto d = dtype_from_serialized(dt);
  if (!d) fail(p + ".dtype", fe::detail::cat("unknown or unsupported ScalarType ", dt));
  m.dtype = *d;
  const auto sizes = arr(req(v, "sizes", p), p + ".sizes");
  const auto strides = arr(req(v, "strides", p), p + ".strides");
  if (sizes.size() != strides.size()) fail(p, fe::detail::cat(sizes.size(), " sizes but ", strides.size(), " strides"));
  // Paths are built only for values off the plain-int fast path (a symbolic or malformed one).
  auto plain = [](const OJ& v) -> std::optional<int64_t> {
    if (!v.is_object() || v.size() != 1) return std::nullopt;
    const json::Member& mem = v.members()[0];
    if (mem.key != "as_int" || !mem.value.is_number_integer() || mem.value.is_number_unsigned()) return std::nullopt;
    return mem.value.as_int();
  };
  for (size_t i = 0; i < sizes.size(); ++i) {
    const std::optional<int64_t> si = plain(sizes[i]);
    SymInt s = si ? SymInt(*si) : sym_int(sizes[i], fe::detail::cat(p, ".sizes[", i, "]"));
    if (!s.is_symbolic() && s.hint() < 0)
      fail(fe::detail::cat(p, ".sizes[", i, "]"), fe::detail::cat("negative size ", s.hint()));
    m.sizes.push_back(s);
    const std::optional<int64_t> st = plain(strides[i]);
    m.strides.push_back(st ? SymInt(*st) : sym_int(strides[i], fe::detail::cat(p, ".strides[", i, "]")));
  }
  if (const OJ* so = opt(v, "storage_offset")) m.storage_offset = sym_int(*so, p + ".storage_offset");
  m.requires_grad = get_bool(req(v, "requires_grad", p), p + ".requires_grad");
  m.device = device(req(v, "device", p), p + ".device").normalized();
  if (const OJ* l = opt(v, "layout")) {
    auto lay = layout_from_serialized(get_int(*l, p + ".layout"));
    if (!lay) fail(p + ".layout", "unknown layout " + std::string(l->raw()));
    m.layout = *lay;
  }
  return m;
}

Device Reader::device(const OJ& v, const std::string& path) {
  const std::string& type = get_str(req(v, "type", path), path + ".type");
  std::string text = type;
  if (const OJ* idx = opt(v, "index")) {
    int64_t i = get_int(*idx, path + ".index");
    if (i < 0 || i > 127) fail(path + ".index", fe::detail::cat("device index ", i, " out of range"));
    text += ":" + std::to_string(i);
  }
  try {
    return Device::parse(text);
  } catch (const UserError& e) {
    fail(path, std::string("bad device: ") + e.what());
  }
}

SymInt Reader::sym_value(const std::string& name, const std::string& path) {
  auto it = cur().sym_int_values.find(name);
  if (it == cur().sym_int_values.end())
    fail(path, "symbolic int '" + name + "' has no entry in " + cur().path + ".sym_int_values");
  return sym_int(*it->second, cur().path + ".sym_int_values." + name);
}

// ---- signature, module call graph, state
void Reader::read_signature(const OJ& sig, const std::string& path) {
  const auto ins = arr(req(sig, "input_specs", path), path + ".input_specs");
  if (ins.size() != input_names_.size())
    fail(path + ".input_specs", fe::detail::cat(ins.size(), " input specs for ", input_names_.size(), " graph inputs"));
  size_t i = 0;
  for (const auto& spec : ins) {
    const std::string p = fe::detail::cat(path, ".input_specs[", i, "]");
    auto [t, v] = tag(spec, p);
    const std::string pt = p + "." + t;
    InputSpec s{InputKind::UserInput, "", "", true, nullptr};
    if (t == "user_input") {
      auto [at, av] = tag(req(*v, "arg", pt), pt + ".arg");
      if (at == "as_tensor" || at == "as_custom_obj") s.name = tensor_name(*av, pt + ".arg." + at);
      else if (at == "as_sym_int" || at == "as_sym_float" || at == "as_sym_bool")
        s.name = get_str(req(*av, "as_name", pt + ".arg." + at), pt + ".arg." + at + ".as_name");
      else fail(pt + ".arg", "user input kind '" + at + "' is not a named value");
    } else if (t == "parameter") {
      s = {InputKind::Parameter, tensor_name(req(*v, "arg", pt), pt + ".arg"),
           get_str(req(*v, "parameter_name", pt), pt + ".parameter_name"), true, nullptr};
    } else if (t == "buffer") {
      s = {InputKind::Buffer, tensor_name(req(*v, "arg", pt), pt + ".arg"), get_str(req(*v, "buffer_name", pt), pt + ".buffer_name"),
           get_bool(req(*v, "persistent", pt), pt + ".persistent"), nullptr};
    } else if (t == "tensor_constant") {
      s = {InputKind::ConstantTensor, tensor_name(req(*v, "arg", pt), pt + ".arg"),
           get_str(req(*v, "tensor_constant_name", pt), pt + ".tensor_constant_name"), true, nullptr};
    } else if (t == "custom_obj") {
      s = {InputKind::CustomObj, tensor_name(req(*v, "arg", pt), pt + ".arg"),
           get_str(req(*v, "custom_obj_name", pt), pt + ".custom_obj_name"), true, nullptr};
    } else if (t == "token") {
      s = {InputKind::Token, tensor_name(req(*v, "arg", pt), pt + ".arg"), "", true, nullptr};
    } else if (t == "constant_input") {
      // Placeholder named like the input; its value is in the graph (read_graph keeps it).
      s.name = get_str(req(*v, "name", pt), pt + ".name");
      s.constant = top_nodes_.count(s.name) ? top_nodes_.at(s.name)->constant : nullptr;
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
      {"token", {OutputKind::Token, nullptr}},
  };
  const auto& outs = std::get<std::vector<Node*>>(ep_.graph.output_node()->args()[0]);
  const auto os = arr(req(sig, "output_specs", path), path + ".output_specs");
  if (os.size() != outs.size())
    fail(path + ".output_specs", fe::detail::cat(os.size(), " output specs for ", outs.size(), " graph outputs"));
  i = 0;
  for (const auto& spec : os) {
    const std::string p = fe::detail::cat(path, ".output_specs[", i, "]");
    auto [t, v] = tag(spec, p);
    auto k = out_kinds.find(t);
    if (k == out_kinds.end()) fail(p, "unknown output spec kind '" + t + "'");
    const std::string pt = p + "." + t;
    const OJ& arg = req(*v, "arg", pt);
    OutputSpec s{k->second.first, "", ""};
    if (t == "user_output") {
      auto [at, av] = tag(arg, pt + ".arg");
      if (at == "as_tensor") s.name = tensor_name(*av, pt + ".arg.as_tensor");
      else if (av->is_object() && av->contains("as_name")) s.name = get_str((*av).at("as_name"), pt + ".arg." + at + ".as_name");
      // constants and None: the graph returns no node for them
    } else {
      s.name = tensor_name(arg, pt + ".arg");
    }
    if (k->second.second) s.target = get_str(req(*v, k->second.second, pt), pt + "." + k->second.second);
    const std::string actual = outs[i] ? outs[i]->name() : std::string();
    if (s.name != actual)
      fail(p, "names '" + s.name + "' but graph output " + std::to_string(i) + " is '" + actual + "'");
    ep_.signature.outputs.push_back(std::move(s));
    ++i;
  }
}

std::vector<std::string> Reader::arg_names(const OJ& list, const std::string& path) {
  std::vector<std::string> out;
  size_t i = 0;
  for (const auto& a : arr(list, path)) {
    const std::string p = fe::detail::cat(path, "[", i++, "]");
    auto [t, v] = tag(a, p);
    if (t == "as_tensor" || t == "as_custom_obj" || t == "as_token") out.push_back(tensor_name(*v, p + "." + t));
    else if (v->is_object() && v->contains("as_name")) out.push_back(get_str((*v).at("as_name"), p + "." + t + ".as_name"));
    else out.emplace_back();  // a constant argument: no name
  }
  return out;
}

void Reader::read_module_call_graph(const OJ& mcg) {
  size_t i = 0;
  for (const auto& e : arr(mcg, "graph_module.module_call_graph")) {
    const std::string p = fe::detail::cat("graph_module.module_call_graph[", i++, "]");
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
          s.forward_arg_names.push_back(get_str(n, fe::detail::cat(ps, ".forward_arg_names[", k++, "]")));
      }
      m.inputs = s.inputs;
      m.outputs = s.outputs;
      m.signature = std::move(s);
    }
    ep_.module_call_graph.push_back(std::move(m));
  }
}

void Reader::fill_state() {
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
      if (s.kind == InputKind::UserInput && !s.constant)
        for (const TensorMeta& m : top_nodes_.at(s.name)->val)
          for (const SymInt& d : m.sizes)
            if (d.is_symbolic())
              for (const std::string& f : d.expr().free_symbols()) take(f);
    ordered.insert(ordered.end(), rc.begin(), rc.end());
    rc = std::move(ordered);
  }
  ep_.range_constraints = std::move(rc);
  if (!opts_.fake_state) return;
  for (const InputSpec& s : ep_.signature.inputs) {
    if (s.kind == InputKind::UserInput || s.kind == InputKind::CustomObj || s.kind == InputKind::Token) continue;
    auto impl = std::make_shared<TensorImpl>();
    impl->meta = top_nodes_.at(s.name)->val.at(0);
    impl->fake = true;
    impl->is_parameter = s.kind == InputKind::Parameter;
    const bool state = s.kind == InputKind::Parameter || (s.kind == InputKind::Buffer && s.persistent);
    (state ? ep_.state_dict : ep_.constants).emplace_back(s.target, Tensor(std::move(impl)));
  }
}

}  // namespace detail_read

ExportedProgram program_from_json(const nlohmann::ordered_json& model_json, const Pt2ReadOptions& opts) {
  return program_from_json_text(model_json.dump(), opts);
}

ExportedProgram program_from_json(const nlohmann::json& model_json, const Pt2ReadOptions& opts) {
  const json::Document doc = json::Document::parse(model_json.dump(), opts.source);
  return detail_read::Reader(opts, true).read(doc.root());
}

// One parse into the arena reader's document; the Reader walks it without copying.
ExportedProgram program_from_json_text(std::string_view text, const Pt2ReadOptions& opts) {
  json::Document doc;
  try {
    doc = json::Document::parse(text, "");
  } catch (const FormatError& e) {
    throw FormatError(fe::detail::cat(opts.source, ": not valid JSON: ", e.what()));
  }
  ExportedProgram ep = detail_read::Reader(opts, false).read(doc.root());
  if (opts.versions) {
    const json::Value& root = doc.root();
    if (const json::Value* sv = root.find("schema_version"); sv && sv->is_object()) {
      auto num = [&](const char* k) {
        const json::Value* v = sv->find(k);
        return v && v->is_number_integer() && !v->is_number_unsigned() ? v->as_int() : 0;
      };
      opts.versions->schema = std::to_string(num("major")) + "." + std::to_string(num("minor"));
    }
    if (const json::Value* tv = root.find("torch_version"); tv && tv->is_string())
      opts.versions->torch = std::string(tv->as_string());
  }
  return ep;
}

}  // namespace fe::serde
