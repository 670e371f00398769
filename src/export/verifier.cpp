// The verifier: graph structure, signature, and every node's value re-derived — ops by their meta
// function (the same function the tracer ran), getitem by its source, sym arithmetic by SymInt
// arithmetic, higher-order calls by their subgraphs' inputs and outputs — in every graph.
#include <optional>
#include <unordered_set>

#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/export/check.h"
#include "fakeexport/ops/autocast.h"
#include "fakeexport/ops/unbacked.h"
#include "fakeexport/sym/shape_env.h"
#include "export/auto_functionalized.h"
#include "ops/meta_util.h"

namespace fe {

std::string node_target(const Node& n) {
  switch (n.op()) {
    case NodeOp::CallFunction: {
      const FunctionSchema& s = n.target()->schema;
      return s.ns + "." + s.name + "." + s.overload;
    }
    case NodeOp::GetItem: return "_operator.getitem";
    case NodeOp::SymOp: {
      const PyOp op = n.py_op();
      if (op == PyOp::SymMin || op == PyOp::SymMax) return "torch." + std::string(py_op_name(op));
      return "_operator." + std::string(py_op_name(op));
    }
    case NodeOp::CallOther: {
      const std::string& t = n.callable()->target;
      return t.starts_with("torch.ops.") ? t.substr(10) : t;
    }
    default: return {};
  }
}

std::string node_source(const Node& n) {
  if (n.stack_trace) return stack_trace_summary(*n.stack_trace).value_or("");
  if (n.loc) return detail::cat("File: ", n.loc->file_name(), ":", n.loc->line());
  return {};
}

std::string node_module(const Node& n) {
  if (!n.module_stack || n.module_stack->empty()) return {};
  return n.module_stack->back().path;
}

namespace {

/// KeepFactsScope's flag: checks keep the ShapeEnv's facts over data instead of replaying them.
thread_local bool keep_facts = false;

std::string dims_str(const DimVector& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i].str();
  return s + "]";
}

/// Equal dims; with `env`, also symbolic ones equal once Max(1, e) is folded where the program's
/// ranges prove e >= 1 (PyTorch folds it only from the ranges known when the op ran, so a
/// recorded stride may keep a Max ours drops, or the reverse).
/// `a` equals `b` for every input the ranges allow, where a side may be a Min: x == Min(..., y,
/// ...) when x == y and x <= every other argument.
bool provably_equal(const sym::ShapeEnv& env, const sym::Expr& a, const sym::Expr& b) {
  if (env.static_eval(Rel::Eq, a, b) == true) return true;
  for (const auto& [x, m] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
    if (m->kind() != sym::Kind::Min) continue;
    for (const sym::Expr& y : m->args()) {
      if (env.static_eval(Rel::Eq, *x, y) != true) continue;
      bool least = true;
      for (const sym::Expr& z : m->args()) least = least && env.static_eval(Rel::Le, *x, z) == true;
      if (least) return true;
    }
  }
  return false;
}

bool same_dims(const DimVector& a, const DimVector& b, const sym::ShapeEnv* env = nullptr, bool sizes = false) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].same_as(b[i])) continue;
    // A data-dependent size (slice to an item() end): PyTorch allocates a fresh unbacked symbol
    // for it where we keep the expression; the recorded symbol stands for ours.
    if (sizes && sym::is_unbacked_symbol(a[i]) && sym::has_unbacked(b[i])) continue;
    // A stride non-strict export computed with sym_min (`Min(32, 32*s41)`, Python's min overridden)
    // where a retrace, with the builtin, took the smaller one (32): equal for every allowed input.
    if (!sizes && env && (a[i].is_symbolic() || b[i].is_symbolic()) &&
        provably_equal(*env, a[i].expr(), b[i].expr()))
      continue;
    if (!env || !a[i].is_symbolic() || !b[i].is_symbolic()) return false;
    if (!(env->replace(ops::strip_max1(*env, a[i].expr())) == env->replace(ops::strip_max1(*env, b[i].expr()))))
      return false;
  }
  return true;
}

class Checker {
 public:
  Checker(const ExportedProgram& ep, bool rederive) : ep_(ep), rederive_(rederive) {}

  CheckReport run() {
    if (ep_.shape_env && !keep_facts) ep_.shape_env->forget_assumptions();
    signature();
    check_graph(ep_.graph, "");
    range_constraints();
    return std::move(r_);
  }

 private:
  void graph_error(std::string what) { r_.graph_errors.push_back(std::move(what)); }

  void signature() {
    const Graph& g = ep_.graph;
    if (!g.output_node()) return;  // reported by lint
    auto phs = g.placeholders();
    if (phs.size() != ep_.signature.inputs.size())
      graph_error(detail::cat("the graph has ", phs.size(), " placeholders but the signature lists ",
                              ep_.signature.inputs.size(), " inputs"));
    for (size_t i = 0; i < phs.size() && i < ep_.signature.inputs.size(); ++i)
      if (phs[i]->target_name() != ep_.signature.inputs[i].name)
        graph_error(detail::cat("placeholder ", i, " is '", phs[i]->target_name(), "' but the signature says '",
                                ep_.signature.inputs[i].name, "'"));
    const auto& outs = std::get<std::vector<Node*>>(g.output_node()->args()[0]);
    if (outs.size() != ep_.signature.outputs.size())
      graph_error(detail::cat("the graph returns ", outs.size(), " values but the signature lists ",
                              ep_.signature.outputs.size(), " outputs"));
    for (size_t i = 0; i < outs.size() && i < ep_.signature.outputs.size(); ++i)
      if (outs[i] && outs[i]->name() != ep_.signature.outputs[i].name)
        graph_error(detail::cat("output ", i, " is '", outs[i]->name(), "' but the signature says '",
                                ep_.signature.outputs[i].name, "'"));
  }

  void range_constraints() {
    std::unordered_set<std::string> symbols;
    auto collect = [&](const SymInt& s) {
      if (s.is_symbolic())
        for (const std::string& f : s.expr().free_symbols()) symbols.insert(f);
    };
    for (Node* p : ep_.graph.placeholders()) {
      for (const TensorMeta& m : p->val)
        for (const SymInt& d : m.sizes) collect(d);
      if (p->sym_val) collect(*p->sym_val);
    }
    for (const auto& [name, r] : ep_.range_constraints)
      // Unbacked symbols (u0 = x.item(), zuf0 of a float tensor) are born inside the graph, not at its inputs.
      if (!symbols.count(name) && !sym::is_unbacked_name(name) &&
          name.find_first_of("*+-/() ") == std::string::npos)
        graph_error(detail::cat("range constraint '", name, "' names no symbol of the program's inputs"));
  }

  void mismatch(const Node& n, const std::string& graph, std::string field, std::string recorded, std::string computed) {
    r_.mismatches.push_back({&n, graph, std::move(field), std::move(recorded), std::move(computed)});
  }
  void unverified(const Node& n, const std::string& graph, std::string reason) {
    r_.unverified.push_back({&n, graph, std::move(reason)});
  }

  /// Compares one value field by field; true when equal.
  bool compare(const Node& n, const std::string& graph, const TensorMeta& rec, const TensorMeta& com,
               const std::string& prefix = {}, bool with_offset = true) {
    bool ok = true;
    auto diff = [&](const char* field, std::string a, std::string b) {
      mismatch(n, graph, prefix + field, std::move(a), std::move(b));
      ok = false;
    };
    const bool physical = batched_.count(&n) != 0;  // layout is functorch's: shape, dtype, device
    if (!same_dims(rec.sizes, com.sizes, nullptr, true)) diff("shape", dims_str(rec.sizes), dims_str(com.sizes));
    else if (!physical && !same_dims(rec.strides, com.strides, ep_.shape_env.get()))
      diff("stride", dims_str(rec.strides), dims_str(com.strides));
    if (with_offset && !physical && !rec.storage_offset.same_as(com.storage_offset))
      diff("storage_offset", rec.storage_offset.str(), com.storage_offset.str());
    if (rec.dtype != com.dtype) diff("dtype", std::string(dtype_name(rec.dtype)), std::string(dtype_name(com.dtype)));
    if (rec.device != com.device) diff("device", rec.device.str(), com.device.str());
    if (rec.layout != com.layout)
      diff("layout", std::string(layout_name(rec.layout)), std::string(layout_name(com.layout)));
    return ok;
  }

  void check_graph(const Graph& g, const std::string& path) {
    r_.nodes += g.size();
    try {
      g.lint();
    } catch (const Error& e) {
      graph_error((path.empty() ? "" : path + ": ") + e.what());
      return;  // the nodes cannot be followed
    }
    std::unordered_set<std::string> attrs_used;
    for (const auto& up : g.nodes()) {
      const Node& n = *up;
      if (!rederive_ && n.op() != NodeOp::GetAttr) continue;
      note_grad(n);
      note_batched(n);
      if (check_node(g, n, path)) ++r_.verified;
      if (n.op() == NodeOp::GetAttr) attrs_used.insert(n.attr());
    }
    for (const auto& [name, sub] : g.subgraphs()) {
      if (!attrs_used.count(name)) graph_error(detail::cat(path.empty() ? "" : path + ": ", "subgraph '", name, "' is never used"));
      check_graph(*sub, path.empty() ? name : path + "." + name);
    }
  }

  /// A value of a vmap region: made by _add_batch_dim, or computed from one (not by _remove_batch_dim).
  void note_batched(const Node& n) {
    if (n.op() == NodeOp::CallOther && n.callable()->kind == CallableKind::AddBatchDim) {
      batched_.insert(&n);
      return;
    }
    if (n.op() == NodeOp::CallOther && n.callable()->kind == CallableKind::RemoveBatchDim) return;
    for (const Node* in : n.inputs())
      if (batched_.count(in)) {
        batched_.insert(&n);
        return;
      }
  }

  /// Whether node n's recorded value was confirmed (problems are recorded on the way).
  bool check_node(const Graph& g, const Node& n, const std::string& path) {
    switch (n.op()) {
      case NodeOp::Placeholder:
      case NodeOp::Output: return true;  // their values are their producers' (signature checked apart)
      case NodeOp::GetAttr:
        for (const auto& [name, sub] : g.subgraphs())
          if (name == n.attr()) return true;
        graph_error(detail::cat(path.empty() ? "" : path + ": ", "get_attr '", n.name(), "' reads a missing subgraph '",
                                n.attr(), "'"));
        return false;
      case NodeOp::GetItem: {
        const Node& src = *n.inputs()[0];
        const size_t k = static_cast<size_t>(n.index());
        if (k >= src.val.size()) {
          mismatch(n, path, "outputs", detail::cat("element ", k), detail::cat(src.val.size(), " elements"));
          return false;
        }
        // A None element of a higher-order op's tuple (`as_none`): the op's own check covers it.
        if (n.val.empty() && src.op() == NodeOp::CallOther) return true;
        if (n.val.size() != 1) {
          mismatch(n, path, "outputs", detail::cat(n.val.size(), " values"), "1 value");
          return false;
        }
        return compare(n, path, n.val[0], src.val[k]);
      }
      case NodeOp::SymOp: return check_sym_op(n, path);
      case NodeOp::CallFunction: return check_call(n, path);
      case NodeOp::CallOther: return check_other(g, n, path);
    }
    return false;
  }

  bool check_sym_op(const Node& n, const std::string& path) {
    if (!n.sym_val) return true;  // a comparison: its truth is a guard, not recorded metadata
    std::vector<SymInt> x;
    for (const NodeArg& a : n.args()) {
      if (auto* s = std::get_if<SymInt>(&a)) x.push_back(*s);
      else if (auto* p = std::get_if<Node*>(&a); p && (*p)->sym_val) x.push_back(*(*p)->sym_val);
      else {
        mismatch(n, path, "value", n.sym_val->str(), "operands that are not ints");
        return false;
      }
    }
    if (x.size() != py_op_arity(n.py_op())) {
      mismatch(n, path, "value", n.sym_val->str(), detail::cat(x.size(), " operands"));
      return false;
    }
    SymInt v;
    try {
      switch (n.py_op()) {
        case PyOp::Add: v = x[0] + x[1]; break;
        case PyOp::Sub: v = x[0] - x[1]; break;
        case PyOp::Mul: v = x[0] * x[1]; break;
        case PyOp::FloorDiv: v = floordiv(x[0], x[1]); break;
        case PyOp::Mod: v = mod(x[0], x[1]); break;
        case PyOp::SymMin: v = sym_min(x[0], x[1]); break;
        case PyOp::SymMax: v = sym_max(x[0], x[1]); break;
        case PyOp::Neg: v = -x[0]; break;
        default: return true;
      }
    } catch (const UserError& e) {
      mismatch(n, path, "value", n.sym_val->str(), e.what());
      return false;
    }
    if (v.same_as(*n.sym_val)) return true;
    mismatch(n, path, "value", n.sym_val->str(), v.str());
    return false;
  }

  /// A program exported under torch.autocast records lower-precision outputs of float32 inputs
  /// (autocast casts below the traced level). When an autocast op's recorded dtype is bfloat16 /
  /// float16 and ours is not, re-derive with the floating inputs cast as autocast casts them.
  static void autocast_retry(const Node& n, const OpDef& op, std::vector<MetaValue>& margs, MetaOut& mo) {
    if (n.val.size() != 1 || mo.outs.size() != 1 || n.val[0].dtype == mo.outs[0].dtype || !autocast_lower_precision(op))
      return;
    const DType to = n.val[0].dtype;
    if (to != DType::BFloat16 && to != DType::Float16) return;
    std::vector<TensorMeta> cast;
    cast.reserve(margs.size());  // pointers into it are stored in args
    std::vector<MetaValue> args = margs;
    for (MetaValue& v : args)
      if (auto* t = std::get_if<const TensorMeta*>(&v); t && *t && is_floating((*t)->dtype) && (*t)->dtype != to) {
        cast.push_back(**t);
        cast.back().dtype = to;
        v = &cast.back();
      }
    MetaOut again;
    try {
      run_meta(op, args, again);
    } catch (const UserError&) {
      return;  // not autocast's doing: report the original difference
    }
    if (again.outs.size() == 1 && again.outs[0].dtype == to) mo = std::move(again);
  }

  /// The metadata view of a recorded argument. A symbolic scalar operand (`_assert_scalar(ge,
  /// ...)`, `mul(x, sym_size)`) is its symbolic int, or for a comparison `true`: its truth is a
  /// runtime assertion check cannot decide. `bad` says why a tensor operand is unusable.
  static MetaValue meta_arg(const NodeArg& a, std::string& bad) {
    if (auto* p = std::get_if<Node*>(&a); p && *p && (*p)->val.empty() && !(*p)->multi_output()) {
      if ((*p)->sym_val) return *(*p)->sym_val;
      return true;
    }
    return map_tensors<const TensorMeta*>(a, [&](Node* in) -> const TensorMeta* {
      if (!in) return nullptr;
      if (in->val.size() != 1 || in->multi_output()) {
        bad = detail::cat("'", in->name(), "' is used as a tensor but holds ", in->val.size(), " values");
        return nullptr;
      }
      return &in->val[0];
    });
  }

  bool check_call(const Node& n, const std::string& path) {
    const OpDef& op = *n.target();
    if (!op.meta) {
      unverified(n, path, "operator " + op.qualified + " is not in the registry (its recorded metadata is kept)");
      return false;
    }
    std::vector<MetaValue> margs;
    margs.reserve(n.args().size());
    std::string bad;
    for (const NodeArg& a : n.args()) margs.push_back(meta_arg(a, bad));
    if (!bad.empty()) {
      mismatch(n, path, "arguments", "a tensor", bad);
      return false;
    }
    std::vector<TensorMeta> traced;
    const std::vector<MetaValue> untraced = margs;
    with_traced_grad(n, op, margs, traced);
    MetaOut mo;
    // A size the op reads from data (repeat_interleave without output_size) is the symbol recorded.
    UnbackedSizesScope unbacked{std::span<const TensorMeta>(n.val)};
    try {
      run_meta(op, margs, mo);
      // A program retraced with gradients off (run_decompositions) took sdpa's fused path even
      // for a mask computed from parameters: the layout recorded says which.
      if (!traced.empty() && !same_layouts(n.val, mo.outs)) {
        MetaOut alt;
        run_meta(op, untraced, alt);
        if (same_layouts(n.val, alt.outs)) mo = std::move(alt);
      }
    } catch (const DataDependentError& e) {
      // item() and friends: PyTorch gives the value a fresh unbacked symbol; a recorded `u<k>` is it.
      // (As created: a later equality, u3 = 32 - u0 - u1 - u2, does not make it another value.)
      if (n.sym_val && n.sym_val->is_symbolic()) {
        const std::string raw = n.sym_val->node()->expr.str();
        if (sym::is_unbacked_name(raw) && raw.find_first_of("*+-/() ") == std::string::npos) return true;
      }
      mismatch(n, path, "meta", "its recorded arguments", std::string("rejected: ") + e.what());
      return false;
    } catch (const UserError& e) {
      mismatch(n, path, "meta", "its recorded arguments", std::string("rejected: ") + e.what());
      return false;
    }
    if (n.sym_val) {
      if (mo.ints.size() != 1) {
        mismatch(n, path, "value", n.sym_val->str(), detail::cat(mo.ints.size(), " ints"));
        return false;
      }
      if (!mo.ints[0].same_as(*n.sym_val)) {
        mismatch(n, path, "value", n.sym_val->str(), mo.ints[0].str());
        return false;
      }
      return true;
    }
    autocast_retry(n, op, margs, mo);
    if (mo.outs.size() != n.val.size()) {
      mismatch(n, path, "outputs", detail::cat(n.val.size(), " tensors"), detail::cat(mo.outs.size(), " tensors"));
      return false;
    }
    bool ok = true;
    for (size_t k = 0; k < mo.outs.size(); ++k)
      ok &= compare(n, path, n.val[k], mo.outs[k], mo.outs.size() > 1 ? detail::cat("output ", k, " ") : std::string());
    return ok;
  }

  static const Graph* subgraph(const Graph& g, const NodeArg& a) {
    auto* p = std::get_if<Node*>(&a);
    if (!p || !*p || (*p)->op() != NodeOp::GetAttr) return nullptr;
    for (const auto& [name, sub] : g.subgraphs())
      if (name == (*p)->attr()) return sub.get();
    return nullptr;
  }

  /// A call of `body` on args[from, npos): its placeholders must match the operands and its
  /// outputs the node's recorded values.
  bool check_body(const Graph& g, const Node& n, const std::string& path, size_t body, size_t from) {
    const size_t npos = n.args().size() - n.kwarg_names().size();
    const Graph* sub = body < npos ? subgraph(g, n.args()[body]) : nullptr;
    if (!sub) {
      mismatch(n, path, "arguments", detail::cat("a subgraph at argument ", body), "none");
      return false;
    }
    std::vector<const Node*> operands;
    for (size_t i = from; i < npos; ++i) append_operands(n.args()[i], operands);
    return check_call_of(*sub, n, path, operands);
  }

  bool check_call_of(const Graph& sub, const Node& n, const std::string& path, const std::vector<const Node*>& operands) {
    const bool ok = check_operands(sub, n, path, operands);
    return check_outputs(sub, n, path, 0, {}) && ok;
  }

  /// The operand nodes a higher-order argument holds: a tensor, each element of a list, or a
  /// size (nullptr: checked by the subgraph's own nodes).
  static void append_operands(const NodeArg& a, std::vector<const Node*>& out) {
    if (auto* p = std::get_if<Node*>(&a)) out.push_back(*p);
    else if (auto* l = std::get_if<std::vector<Node*>>(&a))
      for (const Node* x : *l) out.push_back(x);
    else if (std::holds_alternative<SymInt>(a)) out.push_back(nullptr);  // a size operand (`s70`)
    else if (auto* l = std::get_if<std::vector<SymInt>>(&a)) out.insert(out.end(), l->size(), nullptr);
  }

  /// `sub`'s placeholders against the operands it is called with (nullptr: not compared);
  /// `sliced[i]`: operand i is one slice along dim 0 of the node given (map, scan).
  bool check_operands(const Graph& sub, const Node& n, const std::string& path, const std::vector<const Node*>& operands,
                      const std::vector<bool>& sliced = {}) {
    auto phs = sub.placeholders();
    if (phs.size() != operands.size()) {
      mismatch(n, path, "operands", detail::cat(operands.size(), " operands"), detail::cat(phs.size(), " subgraph inputs"));
      return false;
    }
    bool ok = true;
    for (size_t i = 0; i < phs.size(); ++i) {
      const Node* o = operands[i];
      if (!o) continue;
      if (o->sym_val || phs[i]->sym_val) {
        if (!o->sym_val || !phs[i]->sym_val || !o->sym_val->same_as(*phs[i]->sym_val)) {
          mismatch(n, path, detail::cat("operand ", i), o->sym_val ? o->sym_val->str() : "a tensor",
                   phs[i]->sym_val ? phs[i]->sym_val->str() : "a tensor");
          ok = false;
        }
        continue;
      }
      if (o->val.size() != 1 || phs[i]->val.size() != 1) continue;
      if (i < sliced.size() && sliced[i]) {
        if (o->val[0].dim() == 0) continue;
        const DimVector slice(o->val[0].sizes.begin() + 1, o->val[0].sizes.end());
        if (!same_dims(slice, phs[i]->val[0].sizes)) {
          mismatch(n, path, detail::cat("operand ", i, " shape"), dims_str(slice), dims_str(phs[i]->val[0].sizes));
          ok = false;
        }
        continue;
      }
      ok &= compare(n, path, o->val[0], phs[i]->val[0], detail::cat("operand ", i, " "));
    }
    return ok;
  }

  /// `sub`'s outputs, from output `skip` on, against the node's recorded values; outputs at or
  /// after `stacked_from` gain a leading dim of `*len` (map's and scan's stacked results).
  bool check_outputs(const Graph& sub, const Node& n, const std::string& path, size_t skip,
                     std::optional<SymInt> len, size_t stacked_from = 0, bool with_offset = true) {
    const Node* out = sub.output_node();
    if (!out) return false;
    const auto& all = std::get<std::vector<Node*>>(out->args()[0]);
    const std::vector<Node*> outs(all.begin() + static_cast<std::ptrdiff_t>(std::min(skip, all.size())), all.end());
    if (outs.size() != n.val.size()) {
      mismatch(n, path, "outputs", detail::cat(n.val.size(), " values"), detail::cat(outs.size(), " subgraph outputs"));
      return false;
    }
    bool ok = true;
    for (size_t k = 0; k < outs.size(); ++k) {
      if (!outs[k] || outs[k]->val.size() != 1) continue;  // None / sym outputs carry no tensor metadata
      if (!len || k < stacked_from) {
        ok &= compare(n, path, n.val[k], outs[k]->val[0], detail::cat("output ", k, " "), with_offset);
        continue;
      }
      DimVector stacked{*len};  // physical layout of a stacked result is the HOP's business
      for (const SymInt& d : outs[k]->val[0].sizes) stacked.push_back(d);
      if (!same_dims(n.val[k].sizes, stacked)) {
        mismatch(n, path, detail::cat("output ", k, " shape"), dims_str(n.val[k].sizes), dims_str(stacked));
        ok = false;
      }
      if (n.val[k].dtype != outs[k]->val[0].dtype) {
        mismatch(n, path, detail::cat("output ", k, " dtype"), std::string(dtype_name(n.val[k].dtype)),
                 std::string(dtype_name(outs[k]->val[0].dtype)));
        ok = false;
      }
    }
    return ok;
  }

  /// map_impl(body, xs, pos_args): the body sees one slice of each xs along dim 0 plus pos_args;
  /// each output stacks the body's along a new dim 0 of the mapped length.
  bool check_map(const Graph& g, const Node& n, const std::string& path) {
    const auto& a = n.args();
    const Graph* sub = a.size() == 3 ? subgraph(g, a[0]) : nullptr;
    const auto* xs = a.size() == 3 ? std::get_if<std::vector<Node*>>(&a[1]) : nullptr;
    if (!sub || !xs || !std::holds_alternative<std::vector<Node*>>(a[2]) || xs->empty() || !(*xs)[0] ||
        (*xs)[0]->val.size() != 1) {
      mismatch(n, path, "arguments", "(body, xs, pos_args)", detail::cat(a.size(), " arguments"));
      return false;
    }
    std::vector<const Node*> operands;
    append_operands(a[1], operands);
    std::vector<bool> sliced(operands.size(), true);
    append_operands(a[2], operands);
    const bool ok = check_operands(*sub, n, path, operands, sliced);
    const SymInt len = (*xs)[0]->val[0].dim() ? (*xs)[0]->val[0].sizes[0] : SymInt(1);
    return check_outputs(*sub, n, path, 0, len) && ok;
  }

  /// while_loop(cond_graph, body_graph, carried, additional): both graphs take (*carried,
  /// *additional); cond returns one boolean, body the next carried values, which keep the carried
  /// inputs' metadata and are the node's outputs.
  bool check_while_loop(const Graph& g, const Node& n, const std::string& path) {
    const auto& a = n.args();
    const Graph* cond_g = a.size() >= 4 ? subgraph(g, a[0]) : nullptr;
    const Graph* body_g = a.size() >= 4 ? subgraph(g, a[1]) : nullptr;
    if (!cond_g || !body_g) {
      mismatch(n, path, "arguments", "(cond_graph, body_graph, carried, additional)", detail::cat(a.size(), " arguments"));
      return false;
    }
    std::vector<const Node*> carried, operands;
    append_operands(a[2], carried);
    operands = carried;
    append_operands(a[3], operands);
    bool ok = check_operands(*cond_g, n, path, operands) && check_operands(*body_g, n, path, operands);
    if (const Node* out = cond_g->output_node()) {
      const auto& c = std::get<std::vector<Node*>>(out->args()[0]);
      if (c.size() != 1 || !c[0] || (c[0]->val.size() == 1 && (c[0]->val[0].dtype != DType::Bool || c[0]->val[0].dim() != 0))) {
        mismatch(n, path, "cond_fn output", "one boolean scalar",
                 c.size() == 1 && c[0] && c[0]->val.size() == 1 ? c[0]->val[0].annotation() : detail::cat(c.size(), " values"));
        ok = false;
      }
    }
    // PyTorch records the loop's results at a symbolic offset of the iteration count (`u0 - 1`),
    // an artifact of its fake implementation that its own loader drops: offsets are not compared.
    ok &= check_outputs(*body_g, n, path, 0, {}, 0, false);
    for (size_t k = 0; k < carried.size() && k < n.val.size(); ++k)  // the loop keeps the carried metadata
      if (carried[k] && carried[k]->val.size() == 1 && !carried[k]->sym_val)
        ok &= compare(n, path, n.val[k], carried[k]->val[0], detail::cat("carried ", k, " "), false);
    return ok;
  }

  /// scan(combine_graph, init, xs, additional): combine takes (*carry, *one slice of each xs
  /// along dim 0, *additional) and returns (*next carry, *y); the node returns the carry, then
  /// each y stacked along a new dim 0 of the scanned length.
  bool check_scan(const Graph& g, const Node& n, const std::string& path) {
    const auto& a = n.args();
    const Graph* sub = a.size() >= 4 ? subgraph(g, a[0]) : nullptr;
    const auto* xs = a.size() >= 4 ? std::get_if<std::vector<Node*>>(&a[2]) : nullptr;
    if (!sub || !xs || xs->empty() || !(*xs)[0] || (*xs)[0]->val.size() != 1 || (*xs)[0]->val[0].dim() == 0) {
      mismatch(n, path, "arguments", "(combine_graph, init, xs, additional)", detail::cat(a.size(), " arguments"));
      return false;
    }
    std::vector<const Node*> operands;
    append_operands(a[1], operands);
    const size_t ncarry = operands.size();
    std::vector<bool> sliced(ncarry, false);
    append_operands(a[2], operands);
    sliced.resize(operands.size(), true);
    append_operands(a[3], operands);
    bool ok = check_operands(*sub, n, path, operands, sliced);
    return check_outputs(*sub, n, path, 0, (*xs)[0]->val[0].sizes[0], ncarry) && ok;
  }

  /// with_effects(token, op, *args): a token (f32[0]) then the op's outputs, by its meta.
  bool check_with_effects(const Node& n, const std::string& path) {
    const auto& a = n.args();
    const auto* opv = a.size() >= 2 ? std::get_if<Opaque>(&a[1]) : nullptr;
    if (!opv || !*opv || (*opv)->kind != "as_operator") {
      mismatch(n, path, "arguments", "(token, operator, *args)", "no operator");
      return false;
    }
    const OpDef* op = export_detail::serialized_operator((*opv)->repr);
    if (!op || !op->meta) {
      unverified(n, path, "operator " + (*opv)->repr + " is not in the registry (its recorded metadata is kept)");
      return false;
    }
    std::vector<MetaValue> margs;
    std::string bad;
    for (size_t i = 2; i < a.size(); ++i) margs.push_back(meta_arg(a[i], bad));
    if (!bad.empty()) {
      mismatch(n, path, "arguments", "a tensor", bad);
      return false;
    }
    MetaOut mo;
    try {
      run_meta(*op, margs, mo);
    } catch (const UserError& e) {
      mismatch(n, path, "meta", "its recorded arguments", std::string("rejected: ") + e.what());
      return false;
    }
    bool ok = true;
    if (n.val.empty() || !same_dims(n.val[0].sizes, DimVector{SymInt(0)})) {
      mismatch(n, path, "token", n.val.empty() ? "nothing" : n.val[0].annotation(), "f32[0]");
      ok = false;
    }
    // Outputs the op does not return are recorded as None (no metadata): compare what is there.
    for (size_t k = 0; k < mo.outs.size() && k + 1 < n.val.size(); ++k)
      ok &= compare(n, path, n.val[k + 1], mo.outs[k], detail::cat("output ", k + 1, " "));
    return ok;
  }

  /// auto_functionalized(_v2): the op's meta on clones of the bases (views of them where the node
  /// says so); outputs are the op's, then the clones (clone keeps a dense base's strides).
  bool check_auto_functionalized(const Node& n, const std::string& path) {
    std::string why;
    bool unknown = false;
    const auto c = export_detail::decode_auto_functionalized(n, why, unknown);
    if (!c) {
      if (unknown) unverified(n, path, why + " (its recorded metadata is kept)");
      else mismatch(n, path, "arguments", "auto_functionalized's", why);
      return false;
    }
    std::vector<TensorMeta> clones, views;
    clones.reserve(c->bases.size());
    views.reserve(c->slots.size());  // pointers into it are stored in margs
    for (const Node* b : c->bases) {
      if (b->val.size() != 1) {
        mismatch(n, path, "arguments", "a tensor base", "'" + b->name() + "'");
        return false;
      }
      TensorMeta m = b->val[0];
      m.strides = ops::preserved_strides(m);
      m.storage_offset = 0;
      clones.push_back(std::move(m));
    }
    const auto& a = n.args();
    std::vector<MetaValue> margs;
    std::string bad;
    for (size_t i = 0; i < c->slots.size(); ++i) {
      const auto& s = c->slots[i];
      const auto& arg = c->op->schema.arguments[i];
      if (s.kind == export_detail::AutoFunctionalizedCall::Slot::Arg) {
        margs.push_back(meta_arg(a[s.arg], bad));
      } else if (s.kind == export_detail::AutoFunctionalizedCall::Slot::Base) {
        const TensorMeta* m = &clones[s.base];
        if (s.size && s.stride) {
          const auto* sz = std::get_if<std::vector<SymInt>>(&a[*s.size]);
          const auto* st = std::get_if<std::vector<SymInt>>(&a[*s.stride]);
          const auto* off = s.offset ? std::get_if<SymInt>(&a[*s.offset]) : nullptr;
          if (!sz || !st) {
            mismatch(n, path, "arguments", "int lists", "_" + arg.name + "_size/_stride of another kind");
            return false;
          }
          TensorMeta v = *m;
          v.sizes = DimVector(sz->begin(), sz->end());
          v.strides = DimVector(st->begin(), st->end());
          v.storage_offset = off ? *off : SymInt(0);
          views.push_back(std::move(v));
          m = &views.back();
        }
        margs.push_back(m);
      } else {
        margs.push_back(map_tensors<const TensorMeta*>(*arg.default_value, [](NoTensor) -> const TensorMeta* {
          return nullptr;
        }));
      }
    }
    if (!bad.empty()) {
      mismatch(n, path, "arguments", "a tensor", bad);
      return false;
    }
    MetaOut mo;
    try {
      run_meta(*c->op, margs, mo);
    } catch (const UserError& e) {
      mismatch(n, path, "meta", "its recorded arguments", std::string("rejected: ") + e.what());
      return false;
    }
    if (n.val.size() != c->op_outputs + clones.size()) {
      mismatch(n, path, "outputs", detail::cat(n.val.size(), " values"),
               detail::cat(c->op_outputs, " of the op and ", clones.size(), " clones"));
      return false;
    }
    bool ok = true;
    for (size_t k = 0; k < mo.outs.size() && k < c->op_outputs; ++k)
      ok &= compare(n, path, n.val[k], mo.outs[k], detail::cat("output ", k, " "));
    for (size_t k = 0; k < clones.size(); ++k)
      ok &= compare(n, path, n.val[c->op_outputs + k], clones[k], detail::cat("output ", c->op_outputs + k, " "));
    return ok;
  }

  /// functorch's vmap, traced inline (transformers' mask functions): the values between
  /// _add_batch_dim and _remove_batch_dim carry their per-example (logical) metadata.
  ///   _add_batch_dim(x, in_dim, level): x without dim in_dim;
  ///   _remove_batch_dim(x, level, batch_size, out_dim): x with batch_size inserted at out_dim;
  ///   lazy_load_decompositions / _vmap_increment_nesting / _vmap_decrement_nesting: no value.
  bool check_vmap(const Node& n, const std::string& path) {
    const CallableKind kind = n.callable()->kind;
    if (kind == CallableKind::VmapNesting)
      return n.val.empty() || (mismatch(n, path, "outputs", detail::cat(n.val.size(), " tensors"), "none"), false);
    const auto& a = n.args();
    const Node* x = !a.empty() && std::holds_alternative<Node*>(a[vmap_arg::kX]) ? std::get<Node*>(a[vmap_arg::kX]) : nullptr;
    auto int_at = [&](size_t i) -> std::optional<int64_t> {
      if (i >= a.size()) return std::nullopt;
      if (auto* v = std::get_if<SymInt>(&a[i])) return v->maybe_int();
      return std::nullopt;
    };
    if (!x || x->val.size() != 1 || n.val.size() != 1) {
      mismatch(n, path, "arguments", "a tensor in, a tensor out", "something else");
      return false;
    }
    TensorMeta want = x->val[0];
    if (kind == CallableKind::AddBatchDim) {
      const auto in_dim = int_at(vmap_arg::kAddInDim);
      if (!in_dim || *in_dim < 0 || *in_dim >= want.dim()) {
        mismatch(n, path, "in_dim", "a dim of the input", "out of range");
        return false;
      }
      want.sizes.erase_at(static_cast<size_t>(*in_dim));
    } else {  // RemoveBatchDim
      // The batch size: an int, or a symbolic size's node (a dynamic batch or seq).
      std::optional<SymInt> size;
      if (a.size() > vmap_arg::kRemoveSize) {
        if (auto* v = std::get_if<SymInt>(&a[vmap_arg::kRemoveSize])) size = *v;
        else if (auto* m = std::get_if<Node*>(&a[vmap_arg::kRemoveSize]); m && *m && (*m)->sym_val) size = *(*m)->sym_val;
      }
      const auto out_dim = int_at(vmap_arg::kRemoveOutDim);
      if (!size || !out_dim || *out_dim < 0 || *out_dim > want.dim()) {
        mismatch(n, path, "out_dim", "a position in the output", "out of range");
        return false;
      }
      want.sizes.insert_at(static_cast<size_t>(*out_dim), *size);
    }
    // Physical layout is functorch's business: compare shape, dtype and device.
    bool ok = true;
    if (!same_dims(n.val[0].sizes, want.sizes)) {
      mismatch(n, path, "shape", dims_str(n.val[0].sizes), dims_str(want.sizes));
      ok = false;
    }
    if (n.val[0].dtype != want.dtype) {
      mismatch(n, path, "dtype", std::string(dtype_name(n.val[0].dtype)), std::string(dtype_name(want.dtype)));
      ok = false;
    }
    if (n.val[0].device != want.device) {
      mismatch(n, path, "device", n.val[0].device.str(), want.device.str());
      ok = false;
    }
    return ok;
  }

  bool check_other(const Graph& g, const Node& n, const std::string& path) {
    switch (n.callable()->kind) {
      case CallableKind::MapImpl: return check_map(g, n, path);
      case CallableKind::Cond: {
        bool ok = true;
        for (size_t b : {1u, 2u}) ok &= check_body(g, n, path, b, 3);
        return ok;
      }
      case CallableKind::WrapWithSetGradEnabled: return check_body(g, n, path, 1, 2);
      case CallableKind::WrapWithAutocast: return check_body(g, n, path, 4, 5);
      case CallableKind::InvokeSubgraph: return check_body(g, n, path, 0, 2);
      case CallableKind::WhileLoop: return check_while_loop(g, n, path);
      case CallableKind::Scan: return check_scan(g, n, path);
      case CallableKind::WithEffects: return check_with_effects(n, path);
      case CallableKind::AutoFunctionalized:
      case CallableKind::AutoFunctionalizedV2: return check_auto_functionalized(n, path);
      case CallableKind::VmapNesting:
      case CallableKind::AddBatchDim:
      case CallableKind::RemoveBatchDim: return check_vmap(n, path);
      case CallableKind::Opaque:
        unverified(n, path, n.callable()->target + " is not a callable we interpret (its recorded outputs are kept)");
        return false;
      default:
        unverified(n, path, n.callable()->target + " is not verified yet (its recorded outputs are kept)");
        return false;
    }
  }

  /// Whether a node's value tracked gradients while PyTorch traced it. Serialized tensor values
  /// record requires_grad only for parameters, yet the metas saw it on everything computed from
  /// them (sdpa on CPU leaves the fused kernel for a mask that requires grad). Nodes come in graph
  /// order, so inputs are known first. set_grad_enabled regions are not tracked (none reach sdpa).
  void note_grad(const Node& n) {
    bool g = false;
    if (n.op() == NodeOp::Placeholder) {
      g = n.val.size() == 1 && n.val[0].requires_grad;
    } else if (n.op() == NodeOp::CallFunction || n.op() == NodeOp::GetItem) {
      const bool floating = !n.val.empty() && (is_floating(n.val[0].dtype) || is_complex(n.val[0].dtype));
      if (floating || n.op() == NodeOp::GetItem)
        for (const Node* in : n.inputs()) g = g || grad_.count(in);
    }
    if (g) grad_.insert(&n);
  }

  static bool same_layouts(const std::vector<TensorMeta>& a, const std::vector<TensorMeta>& b) {
    if (a.size() != b.size()) return false;
    for (size_t k = 0; k < a.size(); ++k) {
      if (a[k].sizes.size() != b[k].sizes.size() || a[k].strides.size() != b[k].strides.size()) return false;
      for (size_t d = 0; d < a[k].sizes.size(); ++d)
        if (!a[k].sizes[d].same_as(b[k].sizes[d])) return false;
      for (size_t d = 0; d < a[k].strides.size(); ++d)
        if (!a[k].strides[d].same_as(b[k].strides[d])) return false;
    }
    return true;
  }

  /// The metadata an op's meta saw: recorded, with requires_grad as traced (see note_grad) for the
  /// ops whose result depends on it.
  void with_traced_grad(const Node& n, const OpDef& op, std::vector<MetaValue>& margs, std::vector<TensorMeta>& keep) {
    if (op.schema.name != "scaled_dot_product_attention") return;
    keep.reserve(n.args().size());
    for (size_t i = 0; i < margs.size() && i < n.args().size(); ++i) {
      auto* t = std::get_if<const TensorMeta*>(&margs[i]);
      auto* p = std::get_if<Node*>(&n.args()[i]);
      if (!t || !*t || !p || !*p || (*t)->requires_grad || !grad_.count(*p)) continue;
      keep.push_back(**t);
      keep.back().requires_grad = true;
      margs[i] = &keep.back();
    }
  }

  const ExportedProgram& ep_;
  bool rederive_;  ///< re-run every node's meta (VerifyLevel::Full), else structure only
  CheckReport r_;
  std::unordered_set<const Node*> grad_;
  /// Values inside a vmap region (from _add_batch_dim up to _remove_batch_dim): BatchedTensors,
  /// whose recorded strides and offset are their physical value's (functorch's layout), not a
  /// per-example meta's (Mamba's scan: mul of two strided batched slices).
  std::unordered_set<const Node*> batched_;
};

}  // namespace

CheckReport check_program(const ExportedProgram& ep) {
  ExportSemanticsScope export_semantics;  // the metas re-run as they ran while PyTorch exported
  return Checker(ep, true).run();
}

KeepFactsScope::KeepFactsScope() : prev_(keep_facts) { keep_facts = true; }
KeepFactsScope::~KeepFactsScope() { keep_facts = prev_; }

void verify(const ExportedProgram& ep, VerifyLevel level) {
  if (level == VerifyLevel::None) return;
  CheckReport r;
  if (level == VerifyLevel::Full) {
    r = check_program(ep);  // lints every graph first
  } else {
    ExportSemanticsScope export_semantics;
    r = Checker(ep, false).run();
  }
  if (!r.graph_errors.empty()) throw InternalError("verify: " + r.graph_errors[0]);
  if (!r.mismatches.empty()) {
    const MetaMismatch& m = r.mismatches[0];
    throw InternalError(detail::cat("verify: '", m.node->name(), "' (", node_target(*m.node), ") ", m.field,
                                    ": recorded ", m.recorded, ", computed ", m.computed));
  }
}

}  // namespace fe
