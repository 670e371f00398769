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

void Path::append_to(std::string& out) const {
  if (parent_) parent_->append_to(out);
  switch (seg_) {
    case Seg::Root: return;
    case Seg::Key:
      if (!out.empty()) out += '.';
      out += key_;
      return;
    case Seg::Index: out += '[' + std::to_string(index_) + ']'; return;
    case Seg::Keyed: out += '[' + std::string(key_) + ']'; return;
    case Seg::Named: out += " (" + std::string(key_) + ')'; return;
  }
}

std::string Path::str() const {
  std::string out;
  append_to(out);
  return out;
}

ExportedProgram Reader::read(const OJ& root) {
  const Path top;
  obj(root, top);
  const Path pv = top / "schema_version";
  const OJ& ver = req(root, "schema_version", top);
  const Path pmajor = pv / "major";
  const int64_t major = get_int(req(ver, "major", pv), pmajor);
  if (major != 8) fail(pmajor, fe::detail::cat("unsupported schema version ", major, " (this reader knows 8.x)"));
  if (const OJ* minor = opt(ver, "minor")) get_int(*minor, pv / "minor");
  // Fields we do not use are still checked for their schema type: a mistyped file is an error
  // wherever the mistake is.
  if (const OJ* tv = opt(root, "torch_version")) get_str(*tv, top / "torch_version");
  if (const OJ* vs = opt(root, "verifiers")) {
    const Path pvs = top / "verifiers";
    size_t k = 0;
    for (const auto& v : arr(*vs, pvs)) {
      const std::string_view d = get_str(v, pvs[k]);
      if (k++ == 0) ep_.dialect = std::string(d);
    }
  }
  if (const OJ* ov = opt(root, "opset_version")) {
    const Path pov = top / "opset_version";
    for (const auto& [k, v] : obj(*ov, pov).members()) get_int(v, pov / k);
  }
  if (const OJ* gc = opt(root, "guards_code")) {
    const Path pgc = top / "guards_code";
    size_t k = 0;
    for (const auto& v : arr(*gc, pgc)) ep_.guards_code.emplace_back(get_str(v, pgc[k++]));
  }
  read_ranges(root);
  const Path pgm = top / "graph_module";
  const OJ& gm = req(root, "graph_module", top);
  const OJ& graph = req(gm, "graph", pgm);
  const OJ& sig = req(gm, "signature", pgm);
  const Path pgraph = pgm / "graph", psig = pgm / "signature";
  hint_graph_ = &graph;  // scanned on the first symbol: a static program never pays for it
  read_graph(graph, ep_.graph, pgraph, &req(sig, "input_specs", psig));
  read_signature(sig, psig);
  const Path pmcg = pgm / "module_call_graph";
  read_module_call_graph(req(gm, "module_call_graph", pgm), pmcg);
  fill_state();
  ep_.shape_env = env_;
  return std::move(ep_);
}

// ---- typed access (the failing halves)
void Reader::fail(const Path& path, const std::string& what) const {
  const std::string p = path.str();
  throw FormatError(fe::detail::cat(opts_.source, ": ", p.empty() ? "<root>" : p, ": ", what));
}
void Reader::type_fail(const OJ& v, const Path& path, const char* expected) const {
  fail(path, std::string("expected ") + expected + ", got " + type_name(v) + " " + preview(v));
}
void Reader::int_fail(const OJ& v, const Path& path) const {
  if (v.is_number_unsigned()) fail(path, "integer " + preview(v) + " overflows int64");
  if (v.is_number_float() && std::abs(v.as_double()) >= 9.2e18) fail(path, "integer " + preview(v) + " overflows int64");
  type_fail(v, path, "an integer");
}
double Reader::get_float(const OJ& v, const Path& path) const {
  if (v.is_number()) return v.as_double();
  if (v.is_string()) {  // _dataclass_to_dict writes infinities as strings
    const std::string_view s = v.as_string();
    if (s == "Infinity") return INFINITY;
    if (s == "-Infinity") return -INFINITY;
    if (s == "NaN") return NAN;
  }
  type_fail(v, path, "a float");
}

// ---- ranges and symbols
void Reader::read_ranges(const OJ& root) {
  const OJ* rc = opt(root, "range_constraints");
  if (!rc) return;
  const Path top, prc = top / "range_constraints";
  obj(*rc, prc);
  for (const auto& [name, r] : rc->members()) {
    const Path p = prc / name;
    obj(r, p);
    sym::ValueRange vr;
    const Path plo = p / "min_val", phi = p / "max_val";
    if (const OJ* lo = opt(r, "min_val")) vr.lo = get_int(*lo, plo);
    if (const OJ* hi = opt(r, "max_val")) vr.hi = get_int(*hi, phi);
    if (vr.lo > vr.hi) fail(p, fe::detail::cat("empty range [", vr.lo, ", ", vr.hi, "]"));
    ranges_.emplace_back(std::string(name), vr);
  }
}

/// Hints of bare symbols (`Symbol('s75', ...)` with hint 8) in every graph, used when creating them.
void Reader::scan_hints(const OJ& graph, int depth) {
  if (!graph.is_object() || depth > 64) return;  // malformed graphs are reported when read
  const Path none;
  auto scan = [&](const OJ& s) {
    const OJ* e = s.find("as_expr");
    if (!e || !e->is_object()) return;
    const OJ* text = e->find("expr_str");
    const OJ* h = opt(*e, "hint");
    if (!text || !text->is_string() || !h) return;
    const OJ* hv = h->find("as_int");
    if (!hv || hv->kind() != json::Kind::Integer) return;
    try {
      sym::Expr x = parse_cached(text->as_string(), none);
      if (x.is_symbol()) hints_.emplace(x.name(), hv->as_int());
    } catch (const FormatError&) {
    }  // reported with its path when the value is read
  };
  if (const OJ* tv = opt(graph, "tensor_values"); tv && tv->is_object())
    for (const auto& [k, v] : tv->members())
      for (const char* f : {"sizes", "strides"})
        if (const OJ* l = v.find(f); l && l->is_array())
          for (const auto& s : l->elements())
            if (!s.is_object() || s.size() != 1 || s.members()[0].key != "as_int") scan(s);  // not a plain int
  if (const OJ* sv = opt(graph, "sym_int_values"); sv && sv->is_object())
    for (const auto& [k, v] : sv->members()) scan(v);
  // Subgraphs of higher-order ops hold their own values.
  if (const OJ* nodes = opt(graph, "nodes"); nodes && nodes->is_array())
    for (const auto& n : nodes->elements())
      if (const OJ* ins = opt(n, "inputs"); ins && ins->is_array())
        for (const auto& in : ins->elements())
          if (const OJ* a = opt(in, "arg"))
            if (const OJ* sg = a->find("as_graph"))
              if (const OJ* g = opt(*sg, "graph")) scan_hints(*g, depth + 1);
}

sym::Expr Reader::parse_cached(std::string_view text, const Path& path) {
  auto it = exprs_.find(text);
  if (it != exprs_.end()) return it->second;
  sym::Expr e;
  try {
    e = parse_sym_expr(std::string(text));
  } catch (const FormatError& err) {
    fail(path, err.what());
  }
  exprs_.emplace(text, e);
  return e;
}

sym::ShapeEnv& Reader::env() {
  if (!env_) {
    if (hint_graph_) scan_hints(*std::exchange(hint_graph_, nullptr), 0);
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

SymInt Reader::sym_int(const OJ& v, const Path& path) {
  auto [t, val] = tag(v, path);
  const Path pt = path / t;
  if (t == "as_int") return get_int(*val, pt);
  if (t != "as_expr") fail(path, "unknown SymInt kind '" + std::string(t) + "'");
  const Path ptext = pt / "expr_str";
  const std::string_view text = get_str(req(*val, "expr_str", pt), ptext);
  sym::Expr e = parse_cached(text, ptext);
  if (e.is_constant()) return e.constant();
  if (!reading_offset_)
    for (const std::string& f : e.free_symbols()) used_symbols_.insert(f);
  // An application we keep as an atom (CeilToInt of unbacked floats) has no value to hint with; it
  // is hinted as an unbacked size is (2), and registers no symbol of its own.
  if (e.is_symbol() && !sym::is_applied_name(e.name())) return symbol(e.name());
  int64_t hint;
  const OJ* h = opt(*val, "hint");
  if (const OJ* hv = h ? h->find("as_int") : nullptr) {
    const Path ph = pt / "hint", phv = ph / "as_int";
    hint = get_int(*hv, phv);
  } else {
    try {
      hint = e.evaluate([&](std::string_view s) { return sym::is_applied_name(s) ? 2 : symbol(std::string(s)).hint(); });
    } catch (const UserError& err) {
      fail(path, "cannot evaluate '" + std::string(text) + "': " + err.what());
    }
  }
  for (const std::string& s : e.free_symbols()) symbol(s);  // created in the order the file names them
  return env().make(e, hint);
}

TensorMeta Reader::tensor_meta(std::string_view name, const Path& user) {
  const OJ* found = cur().tensor_values->find(name);
  if (!found) fail(user, "tensor '" + std::string(name) + "' has no entry in " + cur().path->str() + ".tensor_values");
  const OJ& v = *found;
  const Path ptv = *cur().path / "tensor_values", p = ptv / name;
  obj(v, p);
  TensorMeta m;
  const Path pdt = p / "dtype";
  const int64_t dt = get_int(req(v, "dtype", p), pdt);
  auto d = dtype_from_serialized(dt);
  if (!d) fail(pdt, fe::detail::cat("unknown or unsupported ScalarType ", dt));
  m.dtype = *d;
  const Path psz = p / "sizes", pst = p / "strides";
  const OJ& sizes_json = req(v, "sizes", p);
  const auto sizes = arr(sizes_json, psz);
  int64_t bytes = itemsize(m.dtype);
  const auto strides = arr(req(v, "strides", p), pst);
  if (sizes.size() != strides.size()) fail(p, fe::detail::cat(sizes.size(), " sizes but ", strides.size(), " strides"));
  // {"as_int": n} is read in place; anything else (a symbol, a malformed value) goes through sym_int.
  auto plain = [](const OJ& v) -> std::optional<int64_t> {
    if (!v.is_object() || v.size() != 1) return std::nullopt;
    const json::Member& mem = v.members()[0];
    if (mem.key != "as_int" || mem.value.kind() != json::Kind::Integer) return std::nullopt;
    return mem.value.as_int();
  };
  for (size_t i = 0; i < sizes.size(); ++i) {
    const std::optional<int64_t> si = plain(sizes[i]);
    SymInt s = si ? SymInt(*si) : sym_int(sizes[i], psz[i]);
    if (!s.is_symbolic() && s.hint() < 0) fail(psz[i], fe::detail::cat("negative size ", s.hint()));
    // A tensor whose bytes overflow int64 exists nowhere; every later computation would overflow.
    if (!s.is_symbolic() && __builtin_mul_overflow(bytes, s.hint(), &bytes))
      fail(psz, fe::detail::cat(std::string_view(sizes_json.raw()), " of ", dtype_name(m.dtype),
                                ": numel * itemsize overflows int64"));
    m.sizes.push_back(s);
    const std::optional<int64_t> st = plain(strides[i]);
    m.strides.push_back(st ? SymInt(*st) : sym_int(strides[i], pst[i]));
  }
  if (const OJ* so = opt(v, "storage_offset")) {
    const std::optional<int64_t> o = plain(*so);
    if (o) {
      m.storage_offset = *o;
    } else {
      reading_offset_ = true;
      m.storage_offset = sym_int(*so, p / "storage_offset");
      reading_offset_ = false;
    }
  }
  m.requires_grad = get_bool(req(v, "requires_grad", p), p / "requires_grad");
  const Path pdev = p / "device";
  m.device = device(req(v, "device", p), pdev).normalized();
  if (const OJ* l = opt(v, "layout")) {
    const Path pl = p / "layout";
    auto lay = layout_from_serialized(get_int(*l, pl));
    if (!lay) fail(pl, "unknown layout " + std::string(l->raw()));
    m.layout = *lay;
  }
  return m;
}

/// A device object; the few distinct texts a file holds are parsed once each.
Device Reader::device(const OJ& v, const Path& path) {
  for (const auto& [raw, d] : devices_)
    if (raw == v.raw()) return d;
  const Path ptype = path / "type";
  std::string text(get_str(req(v, "type", path), ptype));
  if (const OJ* idx = opt(v, "index")) {
    const Path pidx = path / "index";
    int64_t i = get_int(*idx, pidx);
    if (i < 0 || i > 127) fail(pidx, fe::detail::cat("device index ", i, " out of range"));
    text += ":" + std::to_string(i);
  }
  Device d;
  try {
    d = Device::parse(text);
  } catch (const UserError& e) {
    fail(path, std::string("bad device: ") + e.what());
  }
  if (devices_.size() < 16) devices_.emplace_back(v.raw(), d);
  return d;
}

SymInt Reader::sym_value(std::string_view name, const Path& path) {
  const OJ* found = cur().sym_int_values ? cur().sym_int_values->find(name) : nullptr;
  // A symbolic float (`zuf0`, an unbacked float from item()) is held as its symbol; PyTorch's own
  // prefix says it is a float (symbol_is_type(SymT.UNBACKED_FLOAT)), and the writer keeps it one.
  const bool is_float = !found && cur().sym_float_values && cur().sym_float_values->find(name);
  if (is_float) found = cur().sym_float_values->find(name);
  if (!found)
    fail(path, "symbolic int '" + std::string(name) + "' has no entry in " + cur().path->str() + ".sym_int_values");
  const Path psv = *cur().path / (is_float ? "sym_float_values" : "sym_int_values"), p = psv / name;
  return sym_int(*found, p);
}

// ---- signature, module call graph, state
void Reader::read_signature(const OJ& sig, const Path& path) {
  const Path pins = path / "input_specs";
  const auto ins = arr(req(sig, "input_specs", path), pins);
  if (ins.size() != input_names_.size())
    fail(pins, fe::detail::cat(ins.size(), " input specs for ", input_names_.size(), " graph inputs"));
  size_t i = 0;
  for (const auto& spec : ins) {
    const Path p = pins[i];
    auto [t, v] = tag(spec, p);
    const Path pt = p / t, parg = pt / "arg";
    InputSpec s{InputKind::UserInput, "", "", true, nullptr};
    const OJ* body = v;  // a structured binding; lambdas capture the pointer (clang 15)
    auto str = [&](const char* field) {
      const Path pf = pt / field;
      return std::string(get_str(req(*body, field, pt), pf));
    };
    if (t == "user_input") {
      auto [at, av] = tag(req(*v, "arg", pt), parg);
      const Path pa = parg / at;
      if (at == "as_tensor" || at == "as_custom_obj") s.name = tensor_name(*av, pa);
      else if (at == "as_sym_int" || at == "as_sym_float" || at == "as_sym_bool")
        s.name = get_str(req(*av, "as_name", pa), pa / "as_name");
      else fail(parg, "user input kind '" + std::string(at) + "' is not a named value");
    } else if (t == "parameter") {
      s = {InputKind::Parameter, std::string(tensor_name(req(*v, "arg", pt), parg)), str("parameter_name"), true, nullptr};
    } else if (t == "buffer") {
      s = {InputKind::Buffer, std::string(tensor_name(req(*v, "arg", pt), parg)), str("buffer_name"),
           get_bool(req(*v, "persistent", pt), pt / "persistent"), nullptr};
    } else if (t == "tensor_constant") {
      s = {InputKind::ConstantTensor, std::string(tensor_name(req(*v, "arg", pt), parg)), str("tensor_constant_name"),
           true, nullptr};
    } else if (t == "custom_obj") {
      s = {InputKind::CustomObj, std::string(tensor_name(req(*v, "arg", pt), parg)), str("custom_obj_name"), true,
           nullptr};
    } else if (t == "token") {
      s = {InputKind::Token, std::string(tensor_name(req(*v, "arg", pt), parg)), "", true, nullptr};
    } else if (t == "constant_input") {
      // Placeholder named like the input; its value is in the graph (read_graph keeps it).
      s.name = str("name");
      auto it = top_nodes_.find(s.name);
      s.constant = it != top_nodes_.end() ? it->second->constant : nullptr;
    } else {
      fail(p, "unknown input spec kind '" + std::string(t) + "'");
    }
    if (s.name != input_names_[i])
      fail(p, "names '" + s.name + "' but graph input " + std::to_string(i) + " is '" + std::string(input_names_[i]) + "'");
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
  const Path pouts = path / "output_specs";
  const auto os = arr(req(sig, "output_specs", path), pouts);
  if (os.size() != outs.size())
    fail(pouts, fe::detail::cat(os.size(), " output specs for ", outs.size(), " graph outputs"));
  i = 0;
  for (const auto& spec : os) {
    const Path p = pouts[i];
    auto [t, v] = tag(spec, p);
    auto k = out_kinds.find(t);
    if (k == out_kinds.end()) fail(p, "unknown output spec kind '" + std::string(t) + "'");
    const Path pt = p / t, parg = pt / "arg";
    const OJ& arg = req(*v, "arg", pt);
    OutputSpec s{k->second.first, "", ""};
    if (t == "user_output") {
      auto [at, av] = tag(arg, parg);
      const Path pa = parg / at;
      if (at == "as_tensor") s.name = tensor_name(*av, pa);
      else if (const OJ* nm = av->find("as_name")) s.name = get_str(*nm, pa / "as_name");
      // constants and None: the graph returns no node for them
    } else {
      s.name = tensor_name(arg, parg);
    }
    if (const char* field = k->second.second) s.target = get_str(req(*v, field, pt), pt / field);
    const std::string actual = outs[i] ? outs[i]->name() : std::string();
    if (s.name != actual)
      fail(p, "names '" + s.name + "' but graph output " + std::to_string(i) + " is '" + actual + "'");
    ep_.signature.outputs.push_back(std::move(s));
    ++i;
  }
}

std::vector<std::string> Reader::arg_names(const OJ& list, const Path& path) {
  std::vector<std::string> out;
  size_t i = 0;
  for (const auto& a : arr(list, path)) {
    const Path p = path[i++];
    auto [t, v] = tag(a, p);
    const Path pt = p / t;
    if (t == "as_tensor" || t == "as_custom_obj" || t == "as_token") out.emplace_back(tensor_name(*v, pt));
    else if (const OJ* nm = v->find("as_name")) out.emplace_back(get_str(*nm, pt / "as_name"));
    else out.emplace_back();  // a constant argument: no name
  }
  return out;
}

void Reader::read_module_call_graph(const OJ& mcg, const Path& path) {
  size_t i = 0;
  for (const auto& e : arr(mcg, path)) {
    const Path p = path[i++];
    ModuleCallEntry m;
    m.fqn = get_str(req(e, "fqn", p), p / "fqn");
    if (const OJ* sg = opt(e, "signature")) {
      const Path ps = p / "signature";
      ModuleCallEntry::Signature s;
      s.inputs = arg_names(req(*sg, "inputs", ps), ps / "inputs");
      s.outputs = arg_names(req(*sg, "outputs", ps), ps / "outputs");
      s.in_spec = get_str(req(*sg, "in_spec", ps), ps / "in_spec");
      s.out_spec = get_str(req(*sg, "out_spec", ps), ps / "out_spec");
      if (const OJ* f = opt(*sg, "forward_arg_names")) {
        const Path pf = ps / "forward_arg_names";
        size_t k = 0;
        for (const auto& n : arr(*f, pf)) s.forward_arg_names.emplace_back(get_str(n, pf[k++]));
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
  // Like PyTorch's loader, keep only the constraints of symbols the program uses.
  std::erase_if(rc, [&](const auto& r) { return !used_symbols_.count(r.first); });
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
