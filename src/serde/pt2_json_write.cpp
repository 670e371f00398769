// ExportedProgram -> model.json as PyTorch 2.14's GraphModuleSerializer writes it: keys in the
// dataclasses' order, nodes without their getitems (multi-output nodes list their elements),
// arguments split into positional / keyword exactly as FX holds them.
#include <cmath>
#include <fstream>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "fakeexport/serde/pt2_json.h"

namespace fe::serde {
namespace {

using OJ = nlohmann::ordered_json;

std::string_view py_target(PyOp op) {
  switch (op) {
    case PyOp::Add: return "_operator.add";
    case PyOp::Sub: return "_operator.sub";
    case PyOp::Mul: return "_operator.mul";
    case PyOp::FloorDiv: return "_operator.floordiv";
    case PyOp::Mod: return "_operator.mod";
    case PyOp::SymMin: return "torch.sym_min";
    case PyOp::SymMax: return "torch.sym_max";
    case PyOp::Eq: return "_operator.eq";
    case PyOp::Ne: return "_operator.ne";
    case PyOp::Lt: return "_operator.lt";
    case PyOp::Le: return "_operator.le";
    case PyOp::Gt: return "_operator.gt";
    case PyOp::Ge: return "_operator.ge";
    case PyOp::Neg: return "_operator.neg";
  }
  return "";
}

OJ device_json(const Device& d) {
  OJ j;
  j["type"] = std::string(device_type_name(d.type()));
  j["index"] = d.has_index() ? OJ(static_cast<int64_t>(d.index())) : OJ(nullptr);
  return j;
}

/// A symbolic float held as its symbol (`zuf0`, read from sym_float_values): PyTorch's prefixes for
/// float symbols, unbacked and backed.
bool is_sym_float(const SymInt& s) {
  return s.is_symbolic() && s.expr().is_symbol() && sym::is_float_name(s.expr().name());
}

OJ sym_int_json(const SymInt& s) {
  OJ j;
  if (auto v = s.maybe_int()) {
    j["as_int"] = *v;
    return j;
  }
  OJ e;
  e["expr_str"] = sym_expr_srepr(s.expr());
  // Values over unbacked floats (zuf0, CeilToInt(...) of them) have no hint, as PyTorch writes them.
  bool over_floats = false;
  for (const std::string& f : s.expr().free_symbols()) over_floats = over_floats || f.starts_with("zuf");
  e["hint"] = over_floats ? OJ(nullptr) : OJ{{"as_int", s.hint()}};
  j["as_expr"] = std::move(e);
  return j;
}

/// A symbolic comparison node (`ge = u0 >= 0`): sympy's relation class for its operator.
const char* relation_class(PyOp op) {
  switch (op) {
    case PyOp::Eq: return "Equality";
    case PyOp::Ne: return "Unequality";
    case PyOp::Lt: return "StrictLessThan";
    case PyOp::Le: return "LessThan";
    case PyOp::Gt: return "StrictGreaterThan";
    case PyOp::Ge: return "GreaterThan";
    default: return nullptr;
  }
}

/// SymBool's as_expr for a comparison node: the relation of its operands, no hint (as PyTorch
/// writes values read from data and guards' conditions).
OJ sym_bool_json(const Node& n) {
  std::string operands;
  for (const NodeArg& a : n.args()) {
    const SymInt* s = std::get_if<SymInt>(&a);
    if (auto* p = std::get_if<Node*>(&a); p && (*p)->sym_val) s = &*(*p)->sym_val;  // a float (zuf0) node
    if (!s) return nullptr;
    operands += (operands.empty() ? "" : ", ") + sym_expr_srepr(s->expr());
  }
  return OJ{{"as_expr", OJ{{"expr_str", std::string(relation_class(n.py_op())) + "(" + operands + ")"}, {"hint", nullptr}}}};
}

bool is_comparison(const Node& n) { return n.op() == NodeOp::SymOp && !n.sym_val && relation_class(n.py_op()); }

OJ tensor_meta_json(const TensorMeta& m) {
  OJ j;
  j["dtype"] = serialized_dtype(m.dtype);
  j["sizes"] = OJ::array();
  for (const SymInt& s : m.sizes) j["sizes"].push_back(sym_int_json(s));
  j["requires_grad"] = m.requires_grad;
  j["device"] = device_json(m.device);
  j["strides"] = OJ::array();
  for (const SymInt& s : m.strides) j["strides"].push_back(sym_int_json(s));
  j["storage_offset"] = sym_int_json(m.storage_offset);
  j["layout"] = serialized_layout(m.layout);
  return j;
}

OJ named(std::string_view key, const std::string& name) { return OJ{{std::string(key), OJ{{"name", name}}}}; }

/// pytree's treespec_dumps of a leaf / a tuple of leaves / the (args, kwargs) input pair.
OJ leaf_spec() { return OJ{{"type", nullptr}, {"context", nullptr}, {"children_spec", OJ::array()}}; }
OJ tuple_spec(size_t n) {
  OJ c = OJ::array();
  for (size_t i = 0; i < n; ++i) c.push_back(leaf_spec());
  return OJ{{"type", "builtins.tuple"}, {"context", "null"}, {"children_spec", std::move(c)}};
}

class Writer {
 public:
  Writer(const ExportedProgram& ep, const Pt2WriteOptions& o) : ep_(ep), opts_(o) {}

  OJ write() {
    OJ gm;
    gm["graph"] = graph();
    gm["signature"] = signature();
    gm["module_call_graph"] = module_call_graph();
    gm["metadata"] = OJ::object();
    gm["treespec_namedtuple_fields"] = OJ::object();
    OJ root;
    root["graph_module"] = std::move(gm);
    root["opset_version"] = OJ{{"aten", 10}};
    OJ rc = OJ::object();
    for (const auto& [name, r] : ep_.range_constraints)
      rc[name] = OJ{{"min_val", r.lo == sym::kNegInf ? OJ(nullptr) : OJ(r.lo)},
                    {"max_val", r.hi == sym::kPosInf ? OJ(nullptr) : OJ(r.hi)}};
    root["range_constraints"] = std::move(rc);
    root["schema_version"] = OJ{{"major", opts_.schema_major}, {"minor", opts_.schema_minor}};
    root["verifiers"] = OJ::array({opts_.verifier.empty() ? ep_.dialect : opts_.verifier});
    root["torch_version"] = opts_.torch_version;
    OJ guards = OJ::array();
    for (const std::string& g : ep_.guards_code) guards.push_back(g);
    root["guards_code"] = std::move(guards);
    return root;
  }

 private:
  [[noreturn]] void unsupported(const Node& n, const std::string& what) const {
    throw ValueError(detail::cat("program_to_json: node '", n.name(), "': ", what));
  }

  /// The name a multi-output node's element k is known by: its getitem user, else "<n>_unused_<k>".
  std::string element_name(const Node& n, size_t k) const {
    for (const Node* u : n.users())
      if (u->op() == NodeOp::GetItem && u->index() == static_cast<int64_t>(k)) return u->name();
    return n.name() + "_unused_" + std::to_string(k);
  }

  OJ sym_arg(const SymInt& s, const Node& user) const {
    if (Node* g = graph_node_of(s)) return OJ{{"as_name", g->name()}};
    if (auto v = s.maybe_int()) return OJ{{"as_int", *v}};
    unsupported(user, "a symbolic int argument " + s.str() + " with no node computing it");
  }

  OJ node_ref(const Node* in) const {
    if (in->sym_val) return OJ{{is_sym_float(*in->sym_val) ? "as_sym_float" : "as_sym_int", OJ{{"as_name", in->name()}}}};
    if (is_comparison(*in)) return OJ{{"as_sym_bool", OJ{{"as_name", in->name()}}}};
    return named("as_tensor", in->name());
  }

  /// serialize_input: the Argument union for one value (empty lists typed by the schema).
  OJ argument(const NodeArg& a, const Argument* schema_arg, const Node& user) const {
    switch (kind_of(a)) {
      case ValueKind::None: return OJ{{"as_none", true}};
      case ValueKind::Bool: return OJ{{"as_bool", std::get<bool>(a)}};
      case ValueKind::Int: {
        const SymInt& s = std::get<SymInt>(a);
        if (graph_node_of(s)) return OJ{{"as_sym_int", sym_arg(s, user)}};
        if (auto v = s.maybe_int()) return OJ{{"as_int", *v}};
        unsupported(user, "a symbolic int argument " + s.str() + " with no node computing it");
      }
      case ValueKind::Double: {
        double d = std::get<double>(a);
        if (std::isnan(d)) unsupported(user, "NaN cannot be serialized (PyTorch's json.dumps refuses it too)");
        if (std::isinf(d)) return OJ{{"as_float", d > 0 ? "Infinity" : "-Infinity"}};
        return OJ{{"as_float", d}};
      }
      case ValueKind::String: return OJ{{"as_string", std::get<std::string>(a)}};
      case ValueKind::DType: return OJ{{"as_scalar_type", serialized_dtype(std::get<DType>(a))}};
      case ValueKind::Layout: return OJ{{"as_layout", serialized_layout(std::get<Layout>(a))}};
      case ValueKind::Device: return OJ{{"as_device", device_json(std::get<Device>(a))}};
      case ValueKind::MemoryFormat: return OJ{{"as_memory_format", serialized_memory_format(std::get<MemoryFormat>(a))}};
      case ValueKind::IntList: {
        const auto& l = std::get<std::vector<SymInt>>(a);
        bool all_int = true;
        for (const SymInt& s : l) all_int &= !graph_node_of(s) && s.maybe_int().has_value();
        if (all_int) {
          OJ ints = OJ::array();
          for (const SymInt& s : l) ints.push_back(*s.maybe_int());
          // An empty list takes its kind from the schema (bool[] / int[]): only ints reach here.
          return OJ{{"as_ints", std::move(ints)}};
        }
        OJ xs = OJ::array();
        for (const SymInt& s : l) xs.push_back(sym_arg(s, user));
        return OJ{{"as_sym_ints", std::move(xs)}};
      }
      case ValueKind::Tensor: return node_ref(std::get<Node*>(a));
      case ValueKind::TensorList: {
        const auto& l = std::get<std::vector<Node*>>(a);
        OJ xs = OJ::array();
        if (schema_arg && schema_arg->type.elem_optional) {  // Tensor?[]: each element a union
          for (const Node* n : l) xs.push_back(n ? OJ{{"as_tensor", OJ{{"name", n->name()}}}} : OJ{{"as_none", true}});
          return OJ{{"as_optional_tensors", std::move(xs)}};
        }
        for (const Node* n : l) {
          if (!n) unsupported(user, "None inside a tensor list whose schema type is not Tensor?[]");
          xs.push_back(OJ{{"name", n->name()}});
        }
        return OJ{{"as_tensors", std::move(xs)}};
      }
      case ValueKind::FloatList: {
        OJ xs = OJ::array();
        for (double d : std::get<std::vector<double>>(a)) {
          if (std::isnan(d)) unsupported(user, "NaN cannot be serialized (PyTorch's json.dumps refuses it too)");
          xs.push_back(std::isinf(d) ? OJ(d > 0 ? "Infinity" : "-Infinity") : OJ(d));
        }
        return OJ{{"as_floats", std::move(xs)}};
      }
      case ValueKind::BoolList: {
        OJ xs = OJ::array();
        for (bool b : std::get<std::vector<bool>>(a)) xs.push_back(b);
        return OJ{{"as_bools", std::move(xs)}};
      }
      case ValueKind::Opaque: {
        const OpaqueValue& o = *std::get<Opaque>(a);
        try {
          return OJ{{o.kind, OJ::parse(o.json)}};
        } catch (const OJ::exception& e) {  // our reader keeps numbers nlohmann cannot hold (1E999)
          unsupported(user, detail::cat("an opaque '", o.kind, "' argument nlohmann cannot re-read (", e.what(), ")"));
        }
      }
    }
    unsupported(user, "an argument of unknown kind");
  }

  /// The node's arguments as FX holds them: given ones for a loaded node; for a traced node the
  /// printer's rule (positional up to the last non-default, keywords that differ from defaults).
  OJ inputs(const Node& n) const {
    const FunctionSchema& s = n.target()->schema;
    OJ out = OJ::array();
    size_t npos = positional_count(s, n.args());
    if (n.target()->max_positional >= 0) npos = std::min(npos, static_cast<size_t>(n.target()->max_positional));
    for (size_t i = 0; i < n.args().size() && i < s.arguments.size(); ++i) {
      const Argument& p = s.arguments[i];
      int kind;
      if (!n.arg_given.empty()) {
        if (i >= n.arg_given.size() || n.arg_given[i] == ArgGiven::Absent) continue;
        kind = n.arg_given[i] == ArgGiven::Positional ? 1 : 2;
      } else if (i < npos) {
        kind = 1;
      } else {
        if (p.default_value && equals_constant(n.args()[i], *p.default_value)) continue;
        kind = 2;
      }
      out.push_back(OJ{{"name", p.name}, {"arg", argument(n.args()[i], &p, n)}, {"kind", kind}});
    }
    return out;
  }

  OJ outputs(const Node& n) {
    OJ out = OJ::array();
    const auto& returns = n.target()->schema.returns;
    if (returns.empty()) return out;
    if (n.sym_val) {
      const bool is_float = is_sym_float(*n.sym_val);
      (is_float ? sym_float_values_ : sym_values_)[n.name()] = sym_int_json(*n.sym_val);
      out.push_back(OJ{{is_float ? "as_sym_float" : "as_sym_int", OJ{{"as_name", n.name()}}}});
      return out;
    }
    if (!n.multi_output()) {
      if (n.val.size() != 1) unsupported(n, detail::cat("records ", n.val.size(), " values for one return"));
      tensors_[n.name()] = tensor_meta_json(n.val[0]);
      out.push_back(named("as_tensor", n.name()));
      return out;
    }
    if (!n.out_elems.empty()) {  // results of mixed kinds, written back as they were read
      for (size_t k = 0; k < n.out_elems.size(); ++k) {
        const std::string name = element_name(n, k);
        if (n.out_elems[k].kind == Node::OutputElem::None) {
          out.push_back(OJ{{"as_none", true}});
        } else if (n.out_elems[k].kind == Node::OutputElem::SymInt) {
          sym_values_[name] = sym_int_json(n.out_elems[k].value);
          out.push_back(OJ{{"as_sym_int", OJ{{"as_name", name}}}});
        } else {
          tensors_[name] = tensor_meta_json(n.val[k]);
          out.push_back(named("as_tensor", name));
        }
      }
      return out;
    }
    OJ elems = OJ::array();
    for (size_t k = 0; k < n.val.size(); ++k) {
      std::string name = element_name(n, k);
      tensors_[name] = tensor_meta_json(n.val[k]);
      elems.push_back(OJ{{"name", name}});
    }
    if (returns.size() == 1) {  // `-> Tensor[]`: one as_tensors
      out.push_back(OJ{{"as_tensors", std::move(elems)}});
    } else {
      for (auto& e : elems) out.push_back(OJ{{"as_tensor", std::move(e)}});
    }
    return out;
  }

  std::string source_line(const char* file, unsigned line) {
    if (!opts_.read_source) return "";
    auto it = sources_.find(file);
    if (it == sources_.end()) {
      std::vector<std::string> lines;
      std::ifstream in(file);
      for (std::string l; std::getline(in, l);) lines.push_back(l);
      it = sources_.emplace(file, std::move(lines)).first;
    }
    if (line == 0 || line > it->second.size()) return "";
    std::string l = it->second[line - 1];
    l.erase(0, l.find_first_not_of(" \t"));
    while (!l.empty() && (l.back() == ' ' || l.back() == '\r')) l.pop_back();
    return l;
  }


  OJ metadata(const Node& n) {
    static const OpDef& sym_size = op("aten::sym_size.int");
    OJ md = OJ::object();
    const bool inserted_sym_size = n.target() == &sym_size && !n.loc && !n.stack_trace;
    if (n.stack_trace) {
      md["stack_trace"] = *n.stack_trace;
    } else if (n.loc) {
      md["stack_trace"] = detail::cat("File \"", n.loc->file_name(), "\", line ", n.loc->line(), ", in ",
                                      short_function_name(n.loc->function_name()), "\n    ",
                                      source_line(n.loc->file_name(), n.loc->line()));
    } else if (inserted_sym_size) {  // what 2.14's insert_deferred_runtime_asserts records
      md["stack_trace"] = "File \"torch/fx/passes/runtime_assert.py\", line 24, in insert_deferred_runtime_asserts";
    }
    if (!n.serialized_meta.empty()) {
      for (const auto& [k, v] : n.serialized_meta) md[k] = v;
      return md;
    }
    if (n.module_stack && !n.module_stack->empty()) {
      std::string s;
      for (const ModuleFrame& f : *n.module_stack)
        s += (s.empty() ? "" : ";") + ("L__self__" + f.path) + "," + f.path + "," + f.type_name;
      md["nn_module_stack"] = s;
    } else if (inserted_sym_size) {
      const std::string h = "_empty_nn_module_stack_from_metadata_hook";
      md["nn_module_stack"] = h + "," + h + "," + h;
    }
    return md;
  }

  OJ graph() { return graph_json(ep_.graph); }

  /// A higher-order call (wrap_with_set_grad_enabled, cond, ...): its subgraphs inline as
  /// as_graph arguments, its results one as_tensor each (named as the getitems reading them).
  /// Also a plain Python callable (torch._functorch.predispatch._add_batch_dim): one tensor or None.
  OJ hop_node(const Graph& g, const Node& n) {
    OJ in = OJ::array();
    const size_t npos = n.args().size() - n.kwarg_names().size();
    for (size_t i = 0; i < n.args().size(); ++i) {
      const NodeArg& a = n.args()[i];
      OJ arg;
      if (auto* p = std::get_if<Node*>(&a); p && *p && (*p)->op() == NodeOp::GetAttr) {
        const Graph* sub = nullptr;
        for (const auto& [name, sg] : g.subgraphs())
          if (name == (*p)->attr()) sub = sg.get();
        if (!sub) unsupported(n, "a subgraph argument '" + (*p)->attr() + "' that the graph does not hold");
        arg = OJ{{"as_graph", OJ{{"name", (*p)->attr()}, {"graph", graph_json(*sub)}}}};
      } else {
        arg = argument(a, nullptr, n);
      }
      const bool kw = i >= npos;
      in.push_back(OJ{{"name", kw ? n.kwarg_names()[i - npos] : std::string()}, {"arg", std::move(arg)}, {"kind", kw ? 2 : 1}});
    }
    OJ outs = OJ::array();
    if (n.multi_output()) {
      std::vector<const Node*> items(n.val.size(), nullptr);
      for (const Node* u : n.users())
        if (u->op() == NodeOp::GetItem && u->index() >= 0 && static_cast<size_t>(u->index()) < items.size())
          items[static_cast<size_t>(u->index())] = u;
      for (size_t k = 0; k < items.size(); ++k) {
        if (items[k] && items[k]->val.empty()) {  // a None element (with_effects' result of _print)
          outs.push_back(OJ{{"as_none", true}});
          continue;
        }
        const std::string name = items[k] ? items[k]->name() : detail::cat(n.name(), "_unused_", k);
        tensors_[name] = tensor_meta_json(n.val[k]);
        outs.push_back(named("as_tensor", name));
      }
    } else if (n.val.size() == 1) {
      tensors_[n.name()] = tensor_meta_json(n.val[0]);
      outs.push_back(named("as_tensor", n.name()));
    } else if (!n.callable()->higher_order()) {
      outs.push_back(OJ{{"as_none", true}});  // vmap's bookkeeping calls (_vmap_increment_nesting)
    }
    OJ node;
    node["target"] = n.callable()->target;
    node["inputs"] = std::move(in);
    node["outputs"] = std::move(outs);
    node["metadata"] = metadata(n);
    node["is_hop_single_tensor_return"] = n.callable()->higher_order() ? OJ(!n.multi_output()) : OJ(nullptr);
    // A call returning None is read back as "<target>_unused[_k]": written under the name it was
    // recorded with (lazy_load_decompositions_1), so reading numbers it as PyTorch did.
    std::string name = n.name();
    if (const size_t u = name.find("_unused"); n.val.empty() && !n.multi_output() && u != std::string::npos)
      name.erase(u, 7);
    node["name"] = name;
    return node;
  }

  OJ graph_json(const Graph& graph) {
    // Each graph has its own value tables (a subgraph's are written inside it).
    OJ saved_tensors = std::exchange(tensors_, OJ::object()), saved_syms = std::exchange(sym_values_, OJ::object());
    OJ saved_bools = std::exchange(sym_bool_values_, OJ::object());
    OJ saved_floats = std::exchange(sym_float_values_, OJ::object());
    OJ g;
    OJ ins = OJ::array(), nodes = OJ::array(), outs = OJ::array();
    for (const auto& up : graph.nodes()) {
      const Node& n = *up;
      switch (n.op()) {
        case NodeOp::Placeholder:
          if (n.constant) {  // a user input export specialized to a constant (return_dict=False)
            ins.push_back(argument(n.constant, nullptr, n));
            break;
          }
          if (n.sym_val) {  // a symbolic int (a subgraph's size operand)
            sym_values_[n.name()] = sym_int_json(*n.sym_val);
            ins.push_back(OJ{{"as_sym_int", OJ{{"as_name", n.name()}}}});
            break;
          }
          if (n.val.size() != 1) unsupported(n, "a graph input that is neither a tensor, a symbolic int nor a constant");
          tensors_[n.name()] = tensor_meta_json(n.val[0]);
          ins.push_back(named("as_tensor", n.name()));
          break;
        case NodeOp::GetItem: break;  // folded into its producer's outputs
        case NodeOp::Output:
          for (const Node* o : std::get<std::vector<Node*>>(n.args()[0])) outs.push_back(node_ref(o));
          break;
        case NodeOp::SymOp: {
          OJ in = OJ::array();
          const char* names[] = {"a", "b"};
          for (size_t i = 0; i < n.args().size() && i < 2; ++i)
            in.push_back(OJ{{"name", names[i]}, {"arg", argument(n.args()[i], nullptr, n)}, {"kind", 1}});
          const bool comparison = is_comparison(n);
          if (comparison) {
            OJ b = sym_bool_json(n);
            if (b.is_null()) unsupported(n, "a symbolic comparison of non-int operands");
            sym_bool_values_[n.name()] = std::move(b);
          } else {
            if (!n.sym_val) unsupported(n, "a symbolic value that is neither an int nor a comparison");
            sym_values_[n.name()] = sym_int_json(*n.sym_val);
          }
          OJ node;
          node["target"] = std::string(py_target(n.py_op()));
          node["inputs"] = std::move(in);
          node["outputs"] = OJ::array({OJ{{comparison ? "as_sym_bool" : "as_sym_int", OJ{{"as_name", n.name()}}}}});
          node["metadata"] = metadata(n);
          node["is_hop_single_tensor_return"] = nullptr;
          node["name"] = n.name();
          nodes.push_back(std::move(node));
          break;
        }
        case NodeOp::CallFunction: {
          const FunctionSchema& s = n.target()->schema;
          OJ node;
          node["target"] = "torch.ops." + s.ns + "." + s.name + "." + s.overload;
          node["inputs"] = inputs(n);
          node["outputs"] = outputs(n);
          node["metadata"] = metadata(n);
          node["is_hop_single_tensor_return"] = nullptr;
          node["name"] = n.name();
          nodes.push_back(std::move(node));
          break;
        }
        case NodeOp::GetAttr: break;  // written where a higher-order call takes it (as_graph)
        case NodeOp::CallOther:
          // Higher-order calls and the Python callables export records (functorch's vmap steps).
          nodes.push_back(hop_node(graph, n));
          break;
      }
    }
    g["inputs"] = std::move(ins);
    g["outputs"] = std::move(outs);
    g["nodes"] = std::move(nodes);
    g["tensor_values"] = std::move(tensors_);
    g["sym_int_values"] = std::move(sym_values_);
    g["sym_bool_values"] = std::move(sym_bool_values_);
    g["is_single_tensor_return"] = graph.single_return;
    g["custom_obj_values"] = OJ::object();
    g["sym_float_values"] = std::move(sym_float_values_);
    tensors_ = std::move(saved_tensors);
    sym_values_ = std::move(saved_syms);
    sym_bool_values_ = std::move(saved_bools);
    sym_float_values_ = std::move(saved_floats);
    return g;
  }

  const Node* placeholder_named(const std::string& name) const {
    for (const Node* p : ep_.graph.placeholders())
      if (p->name() == name) return p;
    return nullptr;
  }

  OJ signature() {
    OJ ins = OJ::array(), outs = OJ::array();
    for (const InputSpec& s : ep_.signature.inputs) {
      switch (s.kind) {
        case InputKind::UserInput: {
          const Node* ph = placeholder_named(s.name);
          if (s.constant) {
            ins.push_back(OJ{{"constant_input", OJ{{"name", s.name}, {"value", argument(s.constant, nullptr, *ep_.graph.output_node())}}}});
          } else if (ph && ph->sym_val) {
            ins.push_back(OJ{{"user_input", OJ{{"arg", OJ{{"as_sym_int", OJ{{"as_name", s.name}}}}}}}});
          } else {
            ins.push_back(OJ{{"user_input", OJ{{"arg", named("as_tensor", s.name)}}}});
          }
          break;
        }
        case InputKind::Parameter:
          ins.push_back(OJ{{"parameter", OJ{{"arg", OJ{{"name", s.name}}}, {"parameter_name", s.target}}}});
          break;
        case InputKind::Buffer:
          ins.push_back(OJ{{"buffer", OJ{{"arg", OJ{{"name", s.name}}}, {"buffer_name", s.target}, {"persistent", s.persistent}}}});
          break;
        case InputKind::ConstantTensor:
          ins.push_back(OJ{{"tensor_constant", OJ{{"arg", OJ{{"name", s.name}}}, {"tensor_constant_name", s.target}}}});
          break;
        case InputKind::Token: ins.push_back(OJ{{"token", OJ{{"arg", OJ{{"name", s.name}}}}}}); break;
        default: throw ValueError("program_to_json: input '" + s.name + "' of kind " + std::string(input_kind_name(s.kind)) + " is not written yet");
      }
    }
    const auto& out_nodes = std::get<std::vector<Node*>>(ep_.graph.output_node()->args()[0]);
    for (size_t i = 0; i < ep_.signature.outputs.size(); ++i) {
      const OutputSpec& s = ep_.signature.outputs[i];
      OJ arg = OJ{{"name", s.name}};
      auto with = [&](const char* key, const char* target_key) {
        OJ o{{"arg", arg}};
        if (target_key) o[target_key] = s.target;
        outs.push_back(OJ{{key, std::move(o)}});
      };
      switch (s.kind) {
        case OutputKind::UserOutput:
          outs.push_back(OJ{{"user_output", OJ{{"arg", i < out_nodes.size() ? node_ref(out_nodes[i]) : named("as_tensor", s.name)}}}});
          break;
        case OutputKind::LossOutput: with("loss_output", nullptr); break;
        case OutputKind::BufferMutation: with("buffer_mutation", "buffer_name"); break;
        case OutputKind::ParameterMutation: with("parameter_mutation", "parameter_name"); break;
        case OutputKind::GradientToParameter: with("gradient_to_parameter", "parameter_name"); break;
        case OutputKind::GradientToUserInput: with("gradient_to_user_input", "user_input_name"); break;
        case OutputKind::UserInputMutation: with("user_input_mutation", "user_input_name"); break;
        case OutputKind::Token: with("token", nullptr); break;
      }
    }
    return OJ{{"input_specs", std::move(ins)}, {"output_specs", std::move(outs)}};
  }

  OJ module_call_graph() {
    OJ out = OJ::array();
    std::unordered_set<std::string> listed;
    bool traced_root = false;
    for (const ModuleCallEntry& e : ep_.module_call_graph) {
      listed.insert(e.fqn);
      OJ sig = nullptr;
      if (e.signature) {
        const auto& s = *e.signature;
        auto args = [](const std::vector<std::string>& names) {
          OJ a = OJ::array();
          for (const auto& n : names) a.push_back(named("as_tensor", n));
          return a;
        };
        sig = OJ{{"inputs", args(s.inputs)}, {"outputs", args(s.outputs)}, {"in_spec", s.in_spec}, {"out_spec", s.out_spec},
                 {"forward_arg_names", s.forward_arg_names.empty() ? OJ(nullptr) : OJ(s.forward_arg_names)}};
      } else if (e.fqn.empty()) {
        // A traced root: export does not preserve its signature's arguments (PyTorch writes []),
        // forward(*args) is a tuple of tensors with no kwargs; one output is a bare leaf.
        traced_root = true;
        const size_t kw = std::min(e.kwarg_inputs, e.inputs.size()), positional = e.inputs.size() - kw;
        OJ names = OJ::array(), leaves = OJ::array();
        for (size_t i = positional; i < e.inputs.size(); ++i) names.push_back(e.inputs[i]), leaves.push_back(leaf_spec());
        OJ in_spec{{"type", "builtins.tuple"}, {"context", "null"},
                   {"children_spec", OJ::array({tuple_spec(positional),
                                                OJ{{"type", "builtins.dict"}, {"context", dump_python_json(names)},
                                                   {"children_spec", std::move(leaves)}}})}};
        OJ out_spec = e.outputs.size() == 1 ? leaf_spec() : tuple_spec(e.outputs.size());
        sig = OJ{{"inputs", OJ::array()}, {"outputs", OJ::array()},
                 {"in_spec", dump_python_json(OJ::array({1, std::move(in_spec)}))},
                 {"out_spec", dump_python_json(OJ::array({1, std::move(out_spec)}))},
                 {"forward_arg_names", e.inputs.empty() ? OJ(nullptr) : OJ(e.inputs)}};
      }
      out.push_back(OJ{{"fqn", e.fqn}, {"signature", std::move(sig)}});
    }
    if (traced_root) {  // every submodule that ran, in call order (their signatures are not kept)
      for (const auto& up : ep_.graph.nodes())
        if (up->module_stack)
          for (const ModuleFrame& f : *up->module_stack)
            if (!f.path.empty() && listed.insert(f.path).second) out.push_back(OJ{{"fqn", f.path}, {"signature", nullptr}});
    }
    return out;
  }

  const ExportedProgram& ep_;
  const Pt2WriteOptions& opts_;
  OJ tensors_ = OJ::object(), sym_values_ = OJ::object(), sym_bool_values_ = OJ::object(), sym_float_values_ = OJ::object();
  std::unordered_map<std::string, std::vector<std::string>> sources_;
};

}  // namespace

nlohmann::ordered_json tensor_meta_to_json(const TensorMeta& m) { return tensor_meta_json(m); }

nlohmann::ordered_json program_to_json(const ExportedProgram& ep, const Pt2WriteOptions& opts) {
  return Writer(ep, opts).write();
}

}  // namespace fe::serde
