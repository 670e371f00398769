// Prints an ExportedProgram exactly as str(ExportedProgram) does in PyTorch 2.14 (FX's
// print_readable codegen: annotations, stack-trace comments, `x = None` deletion suffixes).
#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "fakeexport/export/check.h"

namespace fe {
namespace {

/// Source lines, read once per file per print.
class SourceCache {
 public:
  explicit SourceCache(bool enabled) : enabled_(enabled) {}
  std::string line(const char* file, unsigned n) {
    if (!enabled_) return "";
    auto it = files_.find(file);
    if (it == files_.end()) {
      std::vector<std::string> lines;
      std::ifstream in(file);
      for (std::string l; std::getline(in, l);) lines.push_back(l);
      it = files_.emplace(file, std::move(lines)).first;
    }
    if (n == 0 || n > it->second.size()) return "";
    std::string_view l = it->second[n - 1];
    while (!l.empty() && (l.front() == ' ' || l.front() == '\t')) l.remove_prefix(1);
    while (!l.empty() && (l.back() == ' ' || l.back() == '\r')) l.remove_suffix(1);
    return std::string(l);
  }

 private:
  bool enabled_;
  std::unordered_map<std::string, std::vector<std::string>> files_;
};

/// A symbolic int argument prints as the sym node computing it.
std::string int_str(const SymInt& v) {
  if (Node* n = graph_node_of(v)) return n->name();
  return v.str();
}

std::string arg_str(const NodeArg& a, bool tuple = false) {
  if (auto* n = std::get_if<Node*>(&a)) return (*n)->name();
  if (auto* l = std::get_if<std::vector<Node*>>(&a)) {
    std::string s = tuple ? "(" : "[";
    for (size_t i = 0; i < l->size(); ++i) s += (i ? ", " : "") + ((*l)[i] ? (*l)[i]->name() : std::string("None"));
    if (tuple) return s + (l->size() == 1 ? ",)" : ")");
    return s + "]";
  }
  if (auto* v = std::get_if<SymInt>(&a); v && v->is_symbolic()) return int_str(*v);
  if (auto* l = std::get_if<std::vector<SymInt>>(&a)) {
    std::string s = "[";
    for (size_t i = 0; i < l->size(); ++i) s += (i ? ", " : "") + int_str((*l)[i]);
    return s + "]";
  }
  return python_repr(a);
}

/// `sym_size_int * 2`, `torch.sym_max(a, b)`: FX's codegen of operator nodes.
std::string sym_op_str(const Node& n) {
  if (n.py_op() == PyOp::Neg) return "-" + arg_str(n.args()[0]);
  std::string a = arg_str(n.args()[0]), b = arg_str(n.args()[1]);
  if (n.py_op() == PyOp::SymMin || n.py_op() == PyOp::SymMax)
    return "torch." + std::string(py_op_name(n.py_op())) + "(" + a + ", " + b + ")";
  return a + " " + std::string(py_op_symbol(n.py_op())) + " " + b;
}

std::string call_str(const Node& n) {
  const FunctionSchema& s = n.target()->schema;
  std::string out = "torch.ops." + s.ns + "." + s.name + "." + s.overload + "(";
  if (!n.arg_given.empty()) {  // a loaded node: exactly its serialized args, then kwargs
    std::string pos, kw;
    for (size_t i = 0; i < n.args().size() && i < n.arg_given.size(); ++i) {
      if (n.arg_given[i] == ArgGiven::Positional) pos += (pos.empty() ? "" : ", ") + arg_str(n.args()[i]);
      if (n.arg_given[i] == ArgGiven::Keyword)
        kw += (kw.empty() ? "" : ", ") + s.arguments[i].name + " = " + arg_str(n.args()[i]);
    }
    return out + pos + (!pos.empty() && !kw.empty() ? ", " : "") + kw + ")";
  }
  size_t npos = positional_count(s, n.args());
  if (n.target()->max_positional >= 0) npos = std::min(npos, static_cast<size_t>(n.target()->max_positional));
  bool first = true;
  for (size_t i = 0; i < n.args().size(); ++i) {
    const Argument& p = s.arguments[i];
    const bool positional = i < npos;
    if (!positional && p.default_value && equals_constant(n.args()[i], *p.default_value)) continue;
    out += first ? "" : ", ";
    first = false;
    if (!positional) out += p.name + " = ";
    out += arg_str(n.args()[i]);
  }
  return out + ")";
}

/// A comparison's SymBool as sympy prints it: "u1 >= 0", "s77 > 2", "Eq(u0, 3)"; empty when an
/// operand has no symbolic value to show.
std::string sym_bool_str(const Node& n) {
  if (n.op() != NodeOp::SymOp || n.args().size() != 2) return "";
  std::string x[2];
  for (size_t i = 0; i < 2; ++i) {
    const NodeArg& a = n.args()[i];
    if (auto* s = std::get_if<SymInt>(&a)) x[i] = s->str();
    else if (auto* p = std::get_if<Node*>(&a); p && *p && (*p)->sym_val) x[i] = (*p)->sym_val->str();
    else if (auto* b = std::get_if<bool>(&a)) x[i] = *b ? "True" : "False";
    else return "";
  }
  switch (n.py_op()) {
    case PyOp::Eq: return "Eq(" + x[0] + ", " + x[1] + ")";
    case PyOp::Ne: return "Ne(" + x[0] + ", " + x[1] + ")";
    case PyOp::Lt:
    case PyOp::Le:
    case PyOp::Gt:
    case PyOp::Ge: return x[0] + " " + std::string(py_op_symbol(n.py_op())) + " " + x[1];
    default: return "";
  }
}

std::string annotation(const Node& n) {
  // A size that export specialized keeps its node but records a plain int: no annotation.
  if (n.sym_val) return n.sym_val->is_symbolic() ? ": \"Sym(" + n.sym_val->str() + ")\"" : "";
  if (const std::string b = sym_bool_str(n); !b.empty()) return ": \"Sym(" + b + ")\"";
  if (n.val.size() != 1 || n.multi_output()) return "";
  return ": \"" + n.val[0].annotation() + "\"";
}

/// `torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, (x,))`: positional, then keywords.
std::string other_str(const Node& n) {
  std::string out = n.callable()->target + "(";
  const size_t npos = n.args().size() - n.kwarg_names().size();
  for (size_t i = 0; i < n.args().size(); ++i) {
    out += i ? ", " : "";
    if (i >= npos) out += n.kwarg_names()[i - npos] + " = ";
    out += arg_str(n.args()[i], i < npos && n.arg_is_tuple(i));
  }
  return out + ")";
}

/// FX prints a node's meta["custom"] before its stack trace: "Annotation: {'k': True} ". Serialized
/// as JSON (json.dumps), shown as the Python dict's repr (flat dicts of bools, numbers, strings).
std::string custom_annotation(const Node& n) {
  for (const auto& [k, v] : n.serialized_meta) {
    if (k != "custom") continue;
    std::string r;
    bool in_str = false;
    for (size_t i = 0; i < v.size(); ++i) {
      const char c = v[i];
      if (c == '"') {
        in_str = !in_str;
        r += '\'';
      } else if (!in_str && v.compare(i, 4, "true") == 0) {
        r += "True", i += 3;
      } else if (!in_str && v.compare(i, 5, "false") == 0) {
        r += "False", i += 4;
      } else if (!in_str && v.compare(i, 4, "null") == 0) {
        r += "None", i += 3;
      } else {
        r += c;
      }
    }
    return "Annotation: " + r + " ";
  }
  return "";
}

/// For each node, the values whose last use it is (FX: scan in reverse, args in order).
std::unordered_map<const Node*, std::vector<const Node*>> last_uses_of(const Graph& g) {
  std::unordered_map<const Node*, std::vector<const Node*>> last_uses;
  std::unordered_map<const Node*, bool> seen;
  for (auto it = g.nodes().rbegin(); it != g.nodes().rend(); ++it) {
    for (Node* in : (*it)->inputs())
      if (!seen[in]) {
        seen[in] = true;
        last_uses[it->get()].push_back(in);
      }
  }
  return last_uses;
}

/// A node's right-hand side in FX's code.
std::string expr_str(const Node& n) {
  switch (n.op()) {
    case NodeOp::GetItem: return n.inputs()[0]->name() + "[" + std::to_string(n.index()) + "]";
    case NodeOp::SymOp: return sym_op_str(n);
    case NodeOp::GetAttr: return "self." + n.attr();
    case NodeOp::CallOther: return other_str(n);
    default: return call_str(n);
  }
}

/// FX's `;  a = b = None` after a node: the values it uses last, and itself when unused.
std::string dels_str(const Node& n, const std::unordered_map<const Node*, std::vector<const Node*>>& last_uses) {
  std::vector<const Node*> dels;
  if (auto it = last_uses.find(&n); it != last_uses.end()) dels = it->second;
  if (n.users().empty()) dels.push_back(&n);
  if (dels.empty()) return "";
  std::string out = ";  ";
  for (const Node* d : dels) out += d->name() + " = ";
  return out + "None";
}

/// One GraphModule class: `def forward(...)` and body at `depth` levels of 4 spaces, then its
/// submodules (cond branches) as nested classes.
void print_module(std::ostream& os, const Graph& g, const std::string& cls, int depth, SourceCache& src) {
  const std::string cind(static_cast<size_t>(4 * depth), ' ');
  const std::string ind = cind + "        ";
  const auto last_uses = last_uses_of(g);

  os << cind << "class " << cls << "(torch.nn.Module):\n" << cind << "    def forward(self";
  for (Node* p : g.placeholders()) os << ", " << p->target_name() << annotation(*p);
  os << "):\n";

  bool body_empty = true;
  for (Node* p : g.placeholders())
    if (p->target_name() != p->name()) {
      os << ind << p->name() << " = " << p->target_name() << "\n";
      body_empty = false;
    }
  std::optional<std::string> prev_trace;  // FX starts with None: a first node without a trace gets the comment
  for (const auto& up : g.nodes()) {
    const Node& n = *up;
    if (n.op() == NodeOp::Placeholder) continue;
    if (n.op() == NodeOp::Output) {
      const auto& vals = std::get<std::vector<Node*>>(n.args()[0]);
      if (g.single_return && vals.size() == 1) {
        os << ind << "return " << (vals[0] ? vals[0]->name() : std::string("None")) << "\n";
        continue;
      }
      os << ind << "return (";
      for (size_t i = 0; i < vals.size(); ++i) os << (i ? ", " : "") << (vals[i] ? vals[i]->name() : std::string("None"));
      os << (vals.size() == 1 ? ",)" : ")") << "\n";
      continue;
    }
    // FX: a comment whenever the stack trace changes, and once when traces stop; a blank line
    // precedes each comment unless it opens the body.
    if (n.stack_trace) {
      // A loaded node: FX summarizes the innermost frame of the text; equal comments (annotation
      // and summary) merge.
      std::optional<std::string> summary = stack_trace_summary(*n.stack_trace);
      const std::string annotation = custom_annotation(n);
      std::string key = summary ? "T:" + annotation + *summary : std::string();
      if (key != prev_trace) {
        prev_trace = key;
        if (!body_empty) os << "    \n";
        os << ind << "# " << annotation << (summary ? *summary : std::string("No stacktrace found for following nodes"))
           << "\n";
      }
    } else if (n.loc) {
      std::ostringstream key;
      key << n.loc->file_name() << ':' << n.loc->line() << ':' << n.loc->function_name();
      // PyTorch traces a cond call in its own frame: its nodes get their own comment block.
      auto is_cond = [](const Node& x) {
        return x.op() == NodeOp::CallOther && x.callable()->kind == CallableKind::Cond;
      };
      if (n.op() == NodeOp::GetAttr || is_cond(n) || (n.op() == NodeOp::GetItem && is_cond(*n.inputs()[0])))
        key << ":cond";
      if (key.str() != prev_trace) {
        prev_trace = key.str();
        if (!body_empty) os << "    \n";
        os << ind << "# File: " << n.loc->file_name() << ":" << n.loc->line() << " in "
           << short_function_name(n.loc->function_name()) << ", code: " << src.line(n.loc->file_name(), n.loc->line())
           << "\n";
      }
    } else if (!prev_trace || !prev_trace->empty()) {
      prev_trace = std::string();
      if (!body_empty) os << "    \n";
      os << ind << "# No stacktrace found for following nodes\n";
    }
    body_empty = false;
    os << ind << n.name() << annotation(n) << " = " << expr_str(n) << dels_str(n, last_uses) << "\n";
  }
  for (const auto& [name, sub] : g.subgraphs()) {
    os << "    \n";
    print_module(os, *sub, name, depth + 1, src);
  }
}

}  // namespace

std::unordered_map<const Node*, std::pair<int, std::string>> python_code_lines(const Graph& g) {
  std::unordered_map<const Node*, std::pair<int, std::string>> out;
  const auto last_uses = last_uses_of(g);
  int line = 4;  // gm.code opens with three blank lines and the `def forward(...)` line
  for (const auto& up : g.nodes()) {
    const Node& n = *up;
    if (n.op() == NodeOp::Placeholder || n.op() == NodeOp::Output) continue;
    out[&n] = {++line, n.name() + " = " + expr_str(n) + dels_str(n, last_uses)};
  }
  return out;
}

// FX's _parse_stack_trace: the last `File "f", line N, in fn` line that has a code line after it,
/// as "File: f:N in fn, code: <code>"; nullopt when there is none.
std::optional<std::string> stack_trace_summary(std::string_view text) {
  auto strip = [](std::string_view v) {
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
    return v;
  };
  text = strip(text);
  std::vector<std::string_view> lines;
  for (size_t start = 0;;) {
    size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  for (size_t i = lines.size() - 1; i-- > 0;) {
    std::string_view l = strip(lines[i]);
    // ^File "(.+)", line (\d+), in (.+)$
    if (!l.starts_with("File \"")) continue;
    size_t q = l.rfind("\", line ");
    if (q == std::string_view::npos || q <= 6) continue;
    std::string_view file = l.substr(6, q - 6), rest = l.substr(q + 8);
    size_t digits = 0;
    while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
    if (digits == 0 || rest.substr(digits, 5) != ", in " || rest.size() == digits + 5) continue;
    return "File: " + std::string(file) + ":" + std::string(rest.substr(0, digits)) + " in " +
           std::string(rest.substr(digits + 5)) + ", code: " + std::string(strip(lines[i + 1]));
  }
  return std::nullopt;
}

void print_program(std::ostream& os, const ExportedProgram& ep, const PrintOptions& opts) {
  SourceCache src(opts.read_source);
  os << "ExportedProgram:\n";
  print_module(os, ep.graph, "GraphModule", 1, src);
  os << "    \nGraph signature:\n    # inputs\n";
  for (const InputSpec& s : ep.signature.inputs) {
    os << "    " << s.name << ": " << input_kind_name(s.kind);
    if (s.kind != InputKind::UserInput && s.kind != InputKind::Token) os << " target='" << s.target << "'";
    if (s.kind == InputKind::Buffer) os << " persistent=" << (s.persistent ? "True" : "False");
    os << "\n";
  }
  os << "    \n    # outputs\n";
  for (const OutputSpec& s : ep.signature.outputs) {
    os << "    " << s.name << ": " << output_kind_name(s.kind);
    if (!s.target.empty()) os << " target='" << s.target << "'";
    os << "\n";
  }
  os << "    \nRange constraints: {";
  bool first = true;
  for (const auto& [sym, r] : ep.range_constraints) {
    os << (first ? "" : ", ") << sym << ": " << r.str();
    first = false;
  }
  os << "}\n";
}

std::ostream& operator<<(std::ostream& os, const ExportedProgram& ep) {
  print_program(os, ep);
  return os;
}

std::string to_string(const ExportedProgram& ep, const PrintOptions& opts) {
  std::ostringstream os;
  print_program(os, ep, opts);
  return os.str();
}

std::string_view input_kind_name(InputKind k) {
  switch (k) {
    case InputKind::UserInput: return "USER_INPUT";
    case InputKind::Parameter: return "PARAMETER";
    case InputKind::Buffer: return "BUFFER";
    case InputKind::ConstantTensor: return "CONSTANT_TENSOR";
    case InputKind::CustomObj: return "CUSTOM_OBJ";
    case InputKind::Token: return "TOKEN";
  }
  return "?";
}

std::string_view output_kind_name(OutputKind k) {
  switch (k) {
    case OutputKind::UserOutput: return "USER_OUTPUT";
    case OutputKind::LossOutput: return "LOSS_OUTPUT";
    case OutputKind::BufferMutation: return "BUFFER_MUTATION";
    case OutputKind::ParameterMutation: return "PARAMETER_MUTATION";
    case OutputKind::GradientToParameter: return "GRADIENT_TO_PARAMETER";
    case OutputKind::GradientToUserInput: return "GRADIENT_TO_USER_INPUT";
    case OutputKind::UserInputMutation: return "USER_INPUT_MUTATION";
    case OutputKind::Token: return "TOKEN";
  }
  return "?";
}

}  // namespace fe
