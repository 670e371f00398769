// model.json graphs -> Graph: placeholders, call_function nodes of ops (args rebuilt in schema
// order, kept positional/keyword as serialized), of Python operators over symbolic values, of
// higher-order ops and other callables (args as serialized, subgraphs read recursively into
// submodules referenced by get_attr nodes), getitem nodes for tuple values, metadata. Names are
// local to each serialized graph, as in serialize.py's save_graph_module.
#include <cctype>
#include <cmath>
#include <unordered_set>

#include "fakeexport/core/tensor.h"
#include "serde/pt2_json_reader.h"

namespace fe::serde::detail_read {
namespace {

const std::unordered_map<std::string_view, PyOp>& py_ops() {
  static const std::unordered_map<std::string_view, PyOp> m = {
      {"_operator.add", PyOp::Add}, {"_operator.sub", PyOp::Sub},   {"_operator.mul", PyOp::Mul},
      {"_operator.floordiv", PyOp::FloorDiv}, {"_operator.mod", PyOp::Mod}, {"torch.sym_min", PyOp::SymMin},
      {"torch.sym_max", PyOp::SymMax}, {"_operator.eq", PyOp::Eq}, {"_operator.ne", PyOp::Ne},
      {"_operator.lt", PyOp::Lt},     {"_operator.le", PyOp::Le},   {"_operator.gt", PyOp::Gt},
      {"_operator.ge", PyOp::Ge},     {"_operator.neg", PyOp::Neg}};
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

std::string py_complex_repr(double re, double im) {
  // Python: (1+2j); a zero real part prints as 2j.
  std::string ims = python_float_repr(im);
  if (ims.size() > 2 && ims.ends_with(".0")) ims.resize(ims.size() - 2);
  if (re == 0 && !std::signbit(re)) return ims + "j";
  std::string res = python_float_repr(re);
  if (res.size() > 2 && res.ends_with(".0")) res.resize(res.size() - 2);
  return "(" + res + (im >= 0 || std::isnan(im) ? "+" : "") + ims + "j)";
}

}  // namespace

// ---- graphs
void Reader::index_values(const OJ& graph, const Path& path) {
  Scope& s = cur();
  s.tensor_values = &obj(req(graph, "tensor_values", path), path / "tensor_values");
  for (const char* field : {"sym_int_values", "sym_bool_values", "sym_float_values", "custom_obj_values"})
    if (const OJ* table = opt(graph, field)) obj(*table, path / field);
  s.sym_int_values = opt(graph, "sym_int_values");
  s.sym_float_values = opt(graph, "sym_float_values");
}

void Reader::read_graph(const OJ& graph, Graph& g, const Path& path, const OJ* specs) {
  if (scopes_.size() > 64) fail(path, "higher-order subgraphs nested more than 64 deep");
  auto scope = std::make_unique<Scope>();
  scope->g = &g;
  scope->path = &path;
  scopes_.push_back(std::move(scope));
  obj(graph, path);
  index_values(graph, path);
  const Path pins = path / "inputs";
  const auto inputs = arr(req(graph, "inputs", path), pins);
  size_t i = 0;
  for (const auto& in : inputs) {
    const Path pi = pins[i];
    auto [t, v] = tag(in, pi);
    const Path pt = pi / t;
    std::string_view name;
    std::string fallback;
    Node* n = nullptr;
    if (t == "as_tensor") {
      name = tensor_name(*v, pt);
      n = g.placeholder(name, tensor_meta(name, pi));
    } else if (t == "as_sym_int") {
      auto [nt, nv] = tag(*v, pt);
      if (nt != "as_name") fail(pi, "a constant symbolic int cannot be a graph input");
      name = get_str(*nv, pt / "as_name");
      n = g.placeholder(name, {});
      n->val.clear();
      n->sym_val = sym_value(name, pi);
    } else if (t == "as_custom_obj" || t == "as_token") {
      name = tensor_name(*v, pt);
      n = g.placeholder(name, {});
      n->val.clear();
    } else if (t == "as_int" || t == "as_float" || t == "as_bool" || t == "as_none" || t == "as_string") {
      // A user input export specialized to this constant: named by its input spec.
      if (specs && specs->is_array() && i < specs->size()) {
        const OJ& sp = (*specs)[i];
        if (const OJ* ci = opt(sp, "constant_input")) name = get_str(req(*ci, "name", pi), pi / "name");
        else if (const OJ* ui = opt(sp, "user_input"))
          if (const OJ* a = opt(*ui, "arg"); a && a->is_object() && a->size() == 1)
            if (const OJ* nm = opt(a->members()[0].value, "name"); nm && nm->is_string()) name = nm->as_string();
      }
      if (name.empty()) name = fallback = "arg" + std::to_string(i);
      n = g.placeholder(name, {});
      n->val.clear();
      NodeArg c = argument(in, pi);
      n->constant = opaque(t, python_repr(c), *v);
      if (!fallback.empty()) name = n->name();  // the node's own copy outlives `fallback`
    } else {
      fail(pi, "unknown graph input kind '" + std::string(t) + "'");
    }
    define(name, n, pi);
    if (scopes_.size() == 1) input_names_.push_back(name);
    ++i;
  }
  const Path pnodes = path / "nodes";
  const auto nodes = arr(req(graph, "nodes", path), pnodes);
  nodes_read_ += static_cast<int64_t>(nodes.size());
  if (nodes_read_ > opts_.max_nodes)
    throw LimitError(fe::detail::cat(opts_.source, ": ", pnodes.str(), ": ", nodes_read_, " nodes is over the limit of ",
                                     opts_.max_nodes, " nodes (raise it with --max-nodes)"));
  cur().nodes.reserve(cur().nodes.size() + nodes.size() * 2);
  i = 0;
  for (const auto& sn : nodes) read_node(sn, pnodes[i++]);
  std::vector<Node*> outs;
  i = 0;
  const Path pouts = path / "outputs";
  for (const auto& o : arr(req(graph, "outputs", path), pouts)) {
    const Path po = pouts[i++];
    auto [t, v] = tag(o, po);
    const Path pt = po / t;
    if (t == "as_tensor") {
      outs.push_back(tensor_node(tensor_name(*v, pt), po));
    } else if (t == "as_sym_int" || t == "as_sym_bool" || t == "as_sym_float") {
      auto [nt, nv] = tag(*v, pt);
      if (nt != "as_name") fail(po, "constant graph outputs are not supported");
      outs.push_back(node_named(get_str(*nv, pt / "as_name"), po));
    } else if (t == "as_none") {
      outs.push_back(nullptr);
    } else {
      fail(po, "graph output kind '" + std::string(t) + "' is not supported (constant outputs)");
    }
  }
  g.output(outs);
  if (const OJ* st = opt(graph, "is_single_tensor_return")) g.single_return = get_bool(*st, path / "is_single_tensor_return");
  if (scopes_.size() == 1) top_nodes_ = std::move(cur().nodes);
  scopes_.pop_back();
}

Node* Reader::node_named(std::string_view name, const Path& path) {
  auto it = cur().nodes.find(name);
  if (it == cur().nodes.end()) fail(path, "dangling name '" + std::string(name) + "' (no earlier node defines it)");
  return it->second;
}

Node* Reader::tensor_node(std::string_view name, const Path& path) {
  Node* n = node_named(name, path);
  if (n->val.size() != 1 || n->multi_output() || n->sym_val) fail(path, "'" + std::string(name) + "' is not a tensor value");
  return n;
}

void Reader::define(std::string_view name, Node* n, const Path& path) {
  if (!cur().nodes.emplace(name, n).second) fail(path, "name '" + std::string(name) + "' is defined twice");
  cur().g->set_name(n, name);
}

SymInt Reader::sym_arg(const OJ& v, const Path& path) {
  auto [t, val] = tag(v, path);
  const Path pt = path / t;
  if (t == "as_int") return get_int(*val, pt);
  if (t != "as_name") fail(path, "unknown SymIntArgument kind '" + std::string(t) + "'");
  Node* n = node_named(get_str(*val, pt), path);
  if (!n->sym_val) fail(path, "'" + n->name() + "' is not a symbolic int");
  return env().make_handle(*n->sym_val, n);
}

Opaque Reader::opaque(std::string_view kind, std::string repr, const OJ& v) const {
  return std::make_shared<const OpaqueValue>(OpaqueValue{std::string(kind), std::move(repr), std::string(v.raw())});
}

NodeArg Reader::argument(const OJ& v, const Path& path) {
  auto [t, val] = tag(v, path);
  const Path p = path / t;
  if (t == "as_tensor") return tensor_node(tensor_name(*val, p), p);
  if (t == "as_none") return None{};
  if (t == "as_int") return SymInt(get_int(*val, p));
  if (t == "as_float") return get_float(*val, p);
  if (t == "as_bool") return get_bool(*val, p);
  if (t == "as_string") return std::string(get_str(*val, p));
  if (t == "as_sym_int") return sym_arg(*val, p);
  if (t == "as_sym_bool" || t == "as_sym_float") {
    // A named symbolic bool/float is the node computing it; a constant is itself.
    auto [st, sv] = tag(*val, p);
    const Path ps = p / st;
    if (st == "as_name") return node_named(get_str(*sv, ps), p);
    if (st == "as_bool") return get_bool(*sv, ps);
    if (st == "as_float") return get_float(*sv, ps);
    fail(p, "unknown symbolic argument kind '" + std::string(st) + "'");
  }
  if (t == "as_scalar_type") {
    auto d = dtype_from_serialized(get_int(*val, p));
    if (!d) fail(p, "unknown or unsupported ScalarType " + std::string(val->raw()));
    return *d;
  }
  if (t == "as_layout") {
    auto l = layout_from_serialized(get_int(*val, p));
    if (!l) fail(p, "unknown layout " + std::string(val->raw()));
    return *l;
  }
  if (t == "as_memory_format") {
    auto m = memory_format_from_serialized(get_int(*val, p));
    if (!m) fail(p, "unknown memory format " + std::string(val->raw()));
    return *m;
  }
  if (t == "as_device") return device(*val, p);
  if (t == "as_graph") return graph_argument(*val, p);
  if (t == "as_ints" || t == "as_sym_ints") {
    const auto elems = arr(*val, p);
    std::vector<SymInt> out;
    out.reserve(elems.size());
    for (size_t i = 0; i < elems.size(); ++i) out.push_back(t == "as_ints" ? SymInt(get_int(elems[i], p[i])) : sym_arg(elems[i], p[i]));
    return out;
  }
  if (t == "as_floats") {
    std::vector<double> out;
    size_t i = 0;
    for (const auto& e : arr(*val, p)) out.push_back(get_float(e, p[i++]));
    return out;
  }
  if (t == "as_bools") {
    std::vector<bool> out;
    size_t i = 0;
    for (const auto& e : arr(*val, p)) out.push_back(get_bool(e, p[i++]));
    return out;
  }
  if (t == "as_tensors" || t == "as_optional_tensors") {
    std::vector<Node*> out;
    size_t i = 0;
    for (const auto& e : arr(*val, p)) {
      const Path pe = p[i++];
      if (t == "as_tensors") {
        out.push_back(tensor_node(tensor_name(e, pe), pe));
        continue;
      }
      auto [et, ev] = tag(e, pe);
      if (et == "as_none") out.push_back(nullptr);
      else if (et == "as_tensor") out.push_back(tensor_node(tensor_name(*ev, pe / "as_tensor"), pe));
      else fail(pe, "unknown optional tensor kind '" + std::string(et) + "'");
    }
    return out;
  }
  if (t == "as_optional_tensor") {
    auto [et, ev] = tag(*val, p);
    if (et == "as_none") return None{};
    if (et == "as_tensor") return tensor_node(tensor_name(*ev, p / "as_tensor"), p);
    fail(p, "unknown optional tensor kind '" + std::string(et) + "'");
  }
  if (t == "as_custom_obj") {
    const std::string_view name = tensor_name(*val, p);
    if (auto it = cur().nodes.find(name); it != cur().nodes.end()) return it->second;  // lifted as an input
    return opaque(t, std::string(name), *val);
  }
  if (t == "as_operator") return opaque(t, std::string(get_str(*val, p)), *val);
  if (t == "as_complex") {
    const double re = get_float(req(*val, "real", p), p / "real"), im = get_float(req(*val, "imag", p), p / "imag");
    return opaque(t, py_complex_repr(re, im), *val);
  }
  if (t == "as_strings") {
    std::string repr = "[";
    size_t i = 0;
    for (const auto& e : arr(*val, p)) {
      repr += (i ? ", " : "") + python_repr(NodeArg(std::string(get_str(e, p[i]))));
      ++i;
    }
    return opaque(t, repr + "]", *val);
  }
  if (t == "as_int_lists") {  // Triton grids: a list of tuples
    std::string repr = "[";
    size_t i = 0;
    for (const auto& l : arr(*val, p)) {
      const Path pl = p[i];
      repr += i++ ? ", (" : "(";
      size_t k = 0;
      for (const auto& e : arr(l, pl)) repr += (k ? ", " : "") + std::to_string(get_int(e, pl[k])), ++k;
      repr += k == 1 ? ",)" : ")";
    }
    return opaque(t, repr + "]", *val);
  }
  if (t == "as_sym_bools" || t == "as_sym_floats" || t == "as_nested_tensors" || t == "as_string_to_argument" ||
      t == "as_float_lists")
    fail(path, "argument kind '" + std::string(t) + "' is not supported yet");
  fail(path, "unknown argument kind '" + std::string(t) + "'");
}

/// as_graph: the subgraph becomes a submodule of the current graph, named as serialized, read
/// through a get_attr node (serialize.py's deserialize_input).
Node* Reader::graph_argument(const OJ& v, const Path& path) {
  const Path pname = path / "name";
  const std::string name(get_str(req(v, "name", path), pname));
  for (const auto& [n, g] : cur().g->subgraphs())
    if (n == name) fail(pname, "subgraph '" + name + "' is defined twice");
  Graph& sub = cur().g->add_subgraph(name);
  const Path pg = path / "graph";
  read_graph(req(v, "graph", path), sub, pg, nullptr);
  Node* n = cur().g->get_attr(name);
  define(n->attr(), n, path);  // the node's own copy of the name outlives `name`
  return n;
}

/// An OpDef for a target our registry lacks, from what the file says about its call.
const OpDef* Reader::opaque_op(std::string_view ns, std::string_view name, std::string_view overload,
                               std::span<const OJ> inputs, std::span<const OJ> outputs, const Path& path) {
  const std::string qualified = fe::detail::cat(ns, "::", name, ".", overload);
  OpDef* def = nullptr;
  for (const auto& o : ep_.opaque_ops)
    if (o->qualified == qualified) def = o.get();  // its first use fixed the returns
  if (!def) {
    auto op = std::make_unique<OpDef>();
    op->schema.ns = ns;
    op->schema.name = name;
    op->schema.overload = overload;
    op->qualified = qualified;
    op->node_name = name;
    op->device_rule = DeviceRule::None;
    const bool list_out = outputs.size() == 1 && (outputs[0].contains("as_tensors") || outputs[0].contains("as_optional_tensors"));
    const bool none_out = outputs.size() == 1 && outputs[0].contains("as_none");
    for (size_t k = 0; k < outputs.size() && !none_out; ++k) {
      Argument r;
      r.type.is_list = list_out;
      op->schema.returns.push_back(std::move(r));
    }
    def = op.get();
    ep_.opaque_ops.push_back(std::move(op));
  }
  // Arguments as the calls name them (all optional: a later call may leave some out).
  const Path pins = path / "inputs";
  size_t i = 0;
  for (const auto& in : inputs) {
    const Path pi = pins[i++];
    const std::string an(get_str(req(in, "name", pi), pi / "name"));
    if (def->schema.arg_index(an) >= 0) continue;
    Argument a;
    a.name = an;
    a.type.optional = true;
    def->schema.arguments.push_back(std::move(a));
  }
  return def;
}

/// A known higher-order op, or an opaque callable owned by the program.
const Callable* Reader::callable(std::string_view target) {
  if (const Callable* c = find_callable(target)) return c;
  for (const auto& c : ep_.opaque_callables)
    if (c->target == target) return c.get();
  auto c = std::make_unique<Callable>();
  c->target = target;
  const size_t dot = target.rfind('.');
  c->node_name = fx_default_name(std::string(dot == std::string_view::npos ? target : target.substr(dot + 1)));
  ep_.opaque_callables.push_back(std::move(c));
  return ep_.opaque_callables.back().get();
}

void Reader::read_metadata(Node* n, const OJ* md, const Path& path) {
  if (!md) return;
  obj(*md, path);
  n->serialized_meta.reserve(md->size());
  for (const auto& [k, v] : md->members()) {
    const std::string_view s = get_str(v, path / k);
    if (k == "stack_trace") {
      n->stack_trace.emplace(s);
      continue;
    }
    n->serialized_meta.emplace_back(k, s);
    if (k == "nn_module_stack") n->module_stack = module_stack(s, path / k);
  }
}

/// "key,path,type;key,path,type": commas inside brackets belong to the path.
std::shared_ptr<const ModuleStack> Reader::module_stack(std::string_view s, const Path& path) {
  if (s == last_stack_.first && last_stack_.second) return last_stack_.second;
  if (auto it = stacks_.find(s); it != stacks_.end()) {
    last_stack_ = *it;
    return it->second;
  }
  auto st = std::make_shared<ModuleStack>();
  size_t start = 0;
  while (start <= s.size()) {
    size_t semi = s.find(';', start);
    const std::string_view item = s.substr(start, semi == std::string_view::npos ? std::string_view::npos : semi - start);
    std::vector<std::string_view> parts;
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
    if (parts.size() != 3) fail(path, "entry '" + std::string(item) + "' is not 'key,path,type'");
    st->push_back({std::string(parts[1]), std::string(parts[2])});
    if (semi == std::string_view::npos) break;
    start = semi + 1;
  }
  stacks_.emplace(s, st);
  last_stack_ = {s, st};
  return st;
}

void Reader::read_node(const OJ& sn, const Path& path0) {
  obj(sn, path0);
  const std::string_view target = get_str(req(sn, "target", path0), path0 / "target");
  const OJ* name_j = opt(sn, "name");
  const Path path = path0.named(name_j && name_j->is_string() ? name_j->as_string() : std::string_view());
  const Path& p = name_j && name_j->is_string() ? path : path0;
  if (auto py = py_ops().find(target); py != py_ops().end()) return read_sym_op(sn, py->second, p);
  if (target.starts_with("torch.ops.") && !target.starts_with("torch.ops.higher_order.")) return read_op_call(sn, target, p);
  read_other_call(sn, target, p);
}

void Reader::read_sym_op(const OJ& sn, PyOp op, const Path& path) {
  const Path pins = path / "inputs", pouts = path / "outputs";
  const auto inputs = arr(req(sn, "inputs", path), pins);
  const auto outputs = arr(req(sn, "outputs", path), pouts);
  std::vector<NodeArg> args;
  size_t i = 0;
  for (const auto& in : inputs) {
    const Path pi = pins[i++];
    args.push_back(argument(req(in, "arg", pi), pi / "arg"));
  }
  if (args.size() != py_op_arity(op))
    fail(pins, fe::detail::cat("_operator.", py_op_name(op), " takes ", py_op_arity(op),
                               py_op_arity(op) == 1 ? " operand, not " : " operands, not ", args.size()));
  if (outputs.size() != 1) fail(pouts, "a symbolic operator has exactly one output");
  const Path po = pouts[0];
  auto [ot, ov] = tag(outputs[0], po);
  if (ot != "as_sym_int" && ot != "as_sym_bool") fail(po, "unexpected output kind '" + std::string(ot) + "'");
  const Path pt = po / ot;
  auto [nt, nv] = tag(*ov, pt);
  if (nt != "as_name") fail(po, "expected as_name");
  const std::string_view out = get_str(*nv, pt / "as_name");
  std::optional<SymInt> val;
  if (ot == "as_sym_int") val = sym_value(out, path);
  Node* n = cur().g->sym_op(op, std::move(args), val);
  define(out, n, path);
  read_metadata(n, opt(sn, "metadata"), path / "metadata");
}

/// The element name that marks a None element of a tuple output (compared by address).
static constexpr std::string_view kNoneElement = "as_none";

void Reader::define_elements(Node* n, const std::vector<std::string_view>& elems, const Path& path) {
  for (size_t k = 0; k < elems.size(); ++k) {
    if (elems[k].empty()) continue;  // an output nobody reads (serialized as "<node>_unused_<k>")
    // A None element of a higher-order op's tuple (with_effects of an op returning nothing):
    // serialize.py's generate_getitems reads it through a getitem named "as_none", value None.
    const bool none = elems[k].data() == kNoneElement.data();
    Node* gi = cur().g->getitem(n, static_cast<int64_t>(k), nullptr, none ? "as_none" : "getitem");
    if (none) {
      gi->val.clear();
    } else {
      define(elems[k], gi, path);
    }
    gi->stack_trace = n->stack_trace;
    gi->module_stack = n->module_stack;
    gi->serialized_meta = n->serialized_meta;
  }
}

/// torch.ops.<ns>.<op>.<overload>: an op of the registry, else an opaque one.
void Reader::read_op_call(const OJ& sn, std::string_view target, const Path& path) {
  const Path pins = path / "inputs", pouts = path / "outputs";
  const auto inputs = arr(req(sn, "inputs", path), pins);
  const auto outputs = arr(req(sn, "outputs", path), pouts);
  const OJ* name_j = opt(sn, "name");
  std::string_view name = name_j ? get_str(*name_j, path / "name") : std::string_view();
  Graph& g = *cur().g;
  const std::string_view rest = target.substr(10);
  const size_t d1 = rest.find('.'), d2 = rest.rfind('.');
  if (d1 == std::string_view::npos || d1 == d2)
    fail(path / "target", "target '" + std::string(target) + "' is not torch.ops.<ns>.<op>.<overload>");
  const std::string_view ns = rest.substr(0, d1), op_name = rest.substr(d1 + 1, d2 - d1 - 1), overload = rest.substr(d2 + 1);
  // One registry look-up per distinct target (a 126-layer program names ~40 targets 9,000 times).
  // Opaque ops are not cached: each call may name arguments the schema has not seen yet.
  const OpDef*& known = op_cache_[target];
  if (!known) known = registry().find(fe::detail::cat(ns, "::", op_name, ".", overload));
  const OpDef* op = known ? known : opaque_op(ns, op_name, overload, inputs, outputs, path);
  const FunctionSchema& s = op->schema;

  // Arguments by schema name, then laid out in schema order. Calls have a handful of arguments, so
  // a linear scan of the serialized ones beats building a map per node.
  struct Given {
    std::string_view name;
    const OJ* arg;
    int64_t kind;
  };
  SmallVector<Given, 8> given;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const OJ& in = inputs[i];
    const Path pi = pins[i];
    const std::string_view an = get_str(req(in, "name", pi), pi / "name");
    if (s.arg_index(an) < 0) fail(pi, "'" + std::string(an) + "' is not an argument of " + op->qualified);
    int64_t kind = 0;
    if (const OJ* k = opt(in, "kind")) kind = get_int(*k, pi / "kind");
    for (const Given& gv : given)
      if (gv.name == an) fail(pi, "argument '" + std::string(an) + "' given twice");
    given.push_back({an, &req(in, "arg", pi), kind});
  }
  std::vector<NodeArg> args;
  std::vector<ArgGiven> how;
  args.reserve(s.arguments.size());
  how.reserve(s.arguments.size());
  for (const Argument& a : s.arguments) {
    const Given* it = nullptr;
    for (const Given& gv : given)
      if (gv.name == a.name) it = &gv;
    if (!it) {
      if (a.default_value) args.push_back(map_tensors<Node*>(*a.default_value, [](NoTensor) -> Node* { return nullptr; }));
      else if (a.type.optional) args.push_back(None{});
      else fail(path, "missing argument '" + a.name + "' of " + op->qualified);
      how.push_back(ArgGiven::Absent);
      continue;
    }
    const Path pa = pins.keyed(a.name);
    args.push_back(argument(*it->arg, pa / "arg"));
    const int64_t kind = it->kind;
    if (kind == 1) how.push_back(ArgGiven::Positional);
    else if (kind == 2) how.push_back(ArgGiven::Keyword);
    else if (kind == 0) how.push_back(!a.default_value && !a.kwarg_only ? ArgGiven::Positional : ArgGiven::Keyword);
    else fail(pa / "kind", fe::detail::cat("unknown ArgumentKind ", kind));
  }

  // Outputs: one tensor / one symbolic int / none / several tensors (through getitem).
  std::vector<std::string_view> elems;
  std::vector<Node::OutputElem> out_elems;
  std::optional<std::string_view> single, sym_out;
  bool none_out = false;
  if (outputs.size() == 1) {
    const Path po = pouts[0];
    auto [ot, ov] = tag(outputs[0], po);
    const Path pt = po / ot;
    if (ot == "as_tensor") single = tensor_name(*ov, pt);
    else if (ot == "as_sym_int" || ot == "as_sym_float") {
      auto [nt, nv] = tag(*ov, pt);
      if (nt != "as_name") fail(pt, "expected as_name");
      sym_out = get_str(*nv, pt / "as_name");
    } else if (ot == "as_tensors") {
      size_t k = 0;
      for (const auto& e : arr(*ov, pt)) elems.push_back(tensor_name(e, pt[k++]));
    } else if (ot == "as_none") {
      none_out = true;
    } else {
      fail(po, "unsupported output kind '" + std::string(ot) + "'");
    }
  } else {
    for (size_t k = 0; k < outputs.size(); ++k) {
      const Path po = pouts[k];
      auto [ot, ov] = tag(outputs[k], po);
      if (ot == "as_tensor") {
        elems.push_back(tensor_name(*ov, po / "as_tensor"));
        if (!out_elems.empty()) out_elems.push_back({Node::OutputElem::Tensor, SymInt()});
        continue;
      }
      // CUDA attention's results mix tensors with None and sizes (cum_seq_q, max_q): kept as
      // recorded; a size is read only when nothing uses it (its name says `_unused_`). Built from
      // the first such result on: all-tensor nodes (nearly every one) allocate nothing here.
      if (out_elems.empty()) out_elems.resize(k);
      if (ot == "as_none") {
        out_elems.push_back({Node::OutputElem::None, SymInt()});
      } else if (ot == "as_sym_int") {
        const Path pt = po / ot;
        auto [nt, nv] = tag(*ov, pt);
        if (nt != "as_name") fail(pt, "expected as_name");
        const std::string_view sn = get_str(*nv, pt / "as_name");
        if (sn.find("_unused_") == std::string_view::npos)
          fail(po, "a size result that the program reads ('" + std::string(sn) + "') is not supported yet");
        out_elems.push_back({Node::OutputElem::SymInt, sym_value(sn, po)});
      } else {
        fail(po, "unsupported output kind '" + std::string(ot) + "' in a multi-output node");
      }
      elems.push_back({});
    }
  }

  // A node whose one output is None is renamed "<target>_unused" (deserialize_outputs' _rename).
  std::string unused;
  if (none_out) name = unused = fx_default_name(fe::detail::cat(op_name, ".", overload)) + "_unused";
  const std::string_view hint = single ? *single : sym_out ? *sym_out : name;
  Node* n = hint.empty() ? g.call(*op, std::move(args), fx_default_name(fe::detail::cat(op_name, ".", overload)))
                         : g.call(*op, std::move(args), hint);
  n->arg_given = std::move(how);
  if (single) n->val.push_back(tensor_meta(*single, pouts[0]));
  for (std::string_view e : elems) n->val.push_back(e.empty() ? TensorMeta{} : tensor_meta(e, pouts));
  if (!out_elems.empty()) {
    for (size_t k = 0; k < n->val.size(); ++k)
      if (out_elems[k].kind != Node::OutputElem::Tensor) n->val[k] = no_result_meta(n->val[0].device);
    n->out_elems = std::move(out_elems);
  }
  if (sym_out) n->sym_val = sym_value(*sym_out, path);
  if (!elems.empty() && !n->multi_output())
    fail(pouts, fe::detail::cat(op->qualified, " returns one value but ", elems.size(), " are recorded"));
  if ((single || sym_out) && n->multi_output()) fail(pouts, op->qualified + " returns several values but one is recorded");
  // The node takes its output's name (PyTorch's sync_fx_node), else the serialized one.
  if (single) define(*single, n, path);
  else if (sym_out) define(*sym_out, n, path);
  else if (!name.empty() && !none_out) define(name, n, path);
  else if (!cur().nodes.emplace(n->name(), n).second) fail(path, "name '" + n->name() + "' is defined twice");
  read_metadata(n, opt(sn, "metadata"), path / "metadata");
  // An unused element is serialized as "<node>_unused_<k>": no getitem node reads it.
  for (std::string_view& e : elems)
    if (e.starts_with(n->name()) && e.substr(n->name().size()).starts_with("_unused_")) e = {};
  define_elements(n, elems, path);
}

/// A higher-order op or another Python callable: arguments as serialized (positional, then
/// keywords), outputs a single value or a tuple read through getitem nodes.
void Reader::read_other_call(const OJ& sn, std::string_view target, const Path& path) {
  const Path pins = path / "inputs", pouts = path / "outputs";
  const auto inputs = arr(req(sn, "inputs", path), pins);
  const auto outputs = arr(req(sn, "outputs", path), pouts);
  const OJ* name_j = opt(sn, "name");
  std::string_view name = name_j ? get_str(*name_j, path / "name") : std::string_view();
  const Callable* c = callable(target);
  std::vector<NodeArg> args;
  std::vector<std::string> kwargs;
  std::vector<NodeArg> kwarg_vals;
  const uint32_t tuples = 0;  // loaded tuples of tensors are lists (as_tensors)
  size_t i = 0;
  for (const auto& in : inputs) {
    const Path pi = pins[i++];
    const std::string_view an = get_str(req(in, "name", pi), pi / "name");
    int64_t kind = 0;
    if (const OJ* k = opt(in, "kind")) kind = get_int(*k, pi / "kind");
    NodeArg a = argument(req(in, "arg", pi), pi / "arg");
    if (kind == 1 || an.empty()) {
      if (!kwargs.empty()) fail(pi, "positional argument after keyword arguments");
      args.push_back(std::move(a));
    } else {
      kwargs.emplace_back(an);
      kwarg_vals.push_back(std::move(a));
    }
  }
  for (NodeArg& a : kwarg_vals) args.push_back(std::move(a));

  // Outputs (serialize.py's deserialize_outputs): a HOP with is_hop_single_tensor_return false
  // returns a 1-tuple; one tensor / sym value is the node itself; several are a tuple.
  std::vector<std::string_view> elems;
  std::vector<TensorMeta> vals;
  bool tuple = false;
  std::optional<std::string_view> single;
  bool sym_single = false;
  const OJ* single_flag = opt(sn, "is_hop_single_tensor_return");
  const bool hop_single = !single_flag || get_bool(*single_flag, path / "is_hop_single_tensor_return");
  auto element = [&](const OJ& o, const Path& po) {
    auto [ot, ov] = tag(o, po);
    if (ot == "as_tensor") {
      const std::string_view e = tensor_name(*ov, po / "as_tensor");
      vals.push_back(tensor_meta(e, po));
      elems.push_back(e);
    } else if (ot == "as_none") {
      vals.emplace_back();
      elems.push_back(kNoneElement);
    } else {
      fail(po, "output kind '" + std::string(ot) + "' inside a tuple is not supported yet");
    }
  };
  bool none_out = false;
  if (outputs.size() == 1) {
    const Path po = pouts[0];
    auto [ot, ov] = tag(outputs[0], po);
    const Path pt = po / ot;
    if (c->higher_order() && !hop_single && ot != "as_none") {
      tuple = true;
      element(outputs[0], po);
    } else if (ot == "as_tensor") {
      single = tensor_name(*ov, pt);
      vals.push_back(tensor_meta(*single, po));
    } else if (ot == "as_sym_int" || ot == "as_sym_bool" || ot == "as_sym_float") {
      auto [nt, nv] = tag(*ov, pt);
      if (nt != "as_name") fail(po, "expected as_name");
      single = get_str(*nv, pt / "as_name");
      sym_single = ot == "as_sym_int" || ot == "as_sym_float";
    } else if (ot == "as_tensors") {
      tuple = true;
      size_t k = 0;
      for (const auto& e : arr(*ov, pt)) {
        const Path pe = pt[k++];
        const std::string_view en = tensor_name(e, pe);
        vals.push_back(tensor_meta(en, pe));
        elems.push_back(en);
      }
    } else if (ot == "as_none") {
      none_out = true;
    } else {
      fail(po, "unsupported output kind '" + std::string(ot) + "'");
    }
  } else if (outputs.size() > 1) {
    tuple = true;
    for (size_t k = 0; k < outputs.size(); ++k) element(outputs[k], pouts[k]);
  }
  // The node takes its single output's name (sync_fx_node), else the serialized one; a node whose
  // one output is None is renamed "<target>_unused" (deserialize_outputs' _rename).
  if (none_out) name = {};
  const std::string hint = single ? std::string(*single) : !name.empty() ? std::string(name) : c->node_name + (none_out ? "_unused" : "");
  Node* n = cur().g->call_other(*c, std::move(args), std::move(kwargs), tuples, tuple, std::move(vals), hint);
  if (sym_single) n->sym_val = sym_value(*single, path);
  if (single || !name.empty()) define(single ? *single : name, n, path);
  else if (!cur().nodes.emplace(n->name(), n).second) fail(path, "name '" + n->name() + "' is defined twice");
  read_metadata(n, opt(sn, "metadata"), path / "metadata");
  // get_attr arguments carry no metadata of their own: they take the call's (serialize.py).
  for (Node* in : n->inputs())
    if (in->op() == NodeOp::GetAttr) {
      in->stack_trace = n->stack_trace;
      in->module_stack = n->module_stack;
      in->serialized_meta = n->serialized_meta;
    }
  define_elements(n, elems, path);
}

}  // namespace fe::serde::detail_read
