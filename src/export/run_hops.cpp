// fe::run's higher-order ops: each runs its subgraphs with the interpreter (run_runner.h).
#include <algorithm>

#include "fakeexport/core/error.h"
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "export/auto_functionalized.h"
#include "export/run_runner.h"

namespace fe::run_detail {

/// A predicate's truth: a one-element tensor, a bool or an int (`what` names it in errors).
bool Runner::truth(const Value& v, const char* what) {
  if (auto* t = std::get_if<Tensor>(&v)) {
    FE_CHECK(t->numel() == 1, ValueError, what, " must be a one-element tensor, got ", t->meta().annotation());
    return t->item() != 0;
  }
  if (auto* b = std::get_if<bool>(&v)) return *b;
  if (auto* i = std::get_if<int64_t>(&v)) return *i != 0;
  throw InternalError(detail::cat("run: ", what, " is ", kind_text(v)));
}

/// cond(pred, true_graph, false_graph, operands): runs one branch's subgraph on the operands.
Value Runner::cond(const Node& n, const Vals& vals, const Scopes& scopes) {
  const auto& a = n.args();
  FE_INTERNAL_ASSERT(a.size() == 4, "run: cond node '", n.name(), "' has ", a.size(), " arguments");
  const bool pred = truth(value_of(std::get<Node*>(a[0]), vals), "cond: pred");
  const Node* branch = std::get<Node*>(a[pred ? 1 : 2]);
  std::vector<Value> operands;
  for (const Node* o : std::get<std::vector<Node*>>(a[3])) operands.push_back(tensor_of(o, vals));
  return call_subgraph(n, branch, operands, scopes);
}

/// The subgraph a get_attr argument names, looked up from the innermost graph outwards.
const Graph& Runner::subgraph_of(const Node* attr, const Scopes& scopes) const {
  FE_INTERNAL_ASSERT(attr->op() == NodeOp::GetAttr, "run: '", attr->name(), "' is not a get_attr");
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it)
    for (const auto& [name, g] : (*it)->subgraphs())
      if (name == attr->attr()) return *g;
  throw ValueError(detail::cat("no subgraph '", attr->attr(), "' in the program"));
}

/// Runs the subgraph `attr` on `operands`; a tuple of tensors, or the tensor itself when the
/// calling node returns a single value.
Value Runner::call_subgraph(const Node& n, const Node* attr, const std::vector<Value>& operands,
                            const Scopes& scopes) {
  return node_result(n, tensors(n, run_graph(subgraph_of(attr, scopes), scopes, operands), attr->attr().c_str()));
}

/// Subgraph results that must be tensors (`what` names the subgraph in errors).
std::vector<Tensor> Runner::tensors(const Node& n, const std::vector<Value>& outs, const char* what) {
  std::vector<Tensor> ts;
  ts.reserve(outs.size());
  for (size_t k = 0; k < outs.size(); ++k) {
    auto* t = std::get_if<Tensor>(&outs[k]);
    FE_CHECK(t, ValueError, n.callable()->node_name, ": output ", k, " of ", what, " is ", kind_text(outs[k]),
             ", expected a tensor");
    ts.push_back(*t);
  }
  return ts;
}

/// A higher-order node's value: the tuple, or its one tensor when the node returns one value.
Value Runner::node_result(const Node& n, std::vector<Tensor> ts) {
  if (n.multi_output()) return ts;
  if (ts.empty()) return std::monostate{};  // a region whose results nothing reads (`return ()`)
  FE_INTERNAL_ASSERT(ts.size() == 1, "run: '", n.name(), "' returns one value but computes ", ts.size());
  return ts[0];
}

/// The values one higher-order argument holds: a tensor, a size, or each element of a list.
void Runner::append_values(const NodeArg& a, const Vals& vals, std::vector<Value>& out) {
  if (auto* s = std::get_if<SymInt>(&a)) out.emplace_back(int_of(*s, vals));
  else if (auto* l = std::get_if<std::vector<Node*>>(&a))
    for (const Node* o : *l) out.push_back(value_of(o, vals));
  else if (auto* l = std::get_if<std::vector<SymInt>>(&a))
    for (const SymInt& v : *l) out.emplace_back(int_of(v, vals));
  else out.push_back(value_of(std::get<Node*>(a), vals));
}

/// Values of arguments [from, end) of a higher-order call (its subgraph operands: tensors and sizes).
std::vector<Value> Runner::operands_from(const Node& n, size_t from, const Vals& vals) {
  std::vector<Value> out;
  for (size_t i = from; i < n.args().size() - n.kwarg_names().size(); ++i) append_values(n.args()[i], vals, out);
  return out;
}

/// map_impl(body, xs, pos_args): the body on each slice of xs along dim 0, results stacked.
Value Runner::map_impl(const Node& n, const Vals& vals, const Scopes& scopes) {
  const auto& a = n.args();
  FE_INTERNAL_ASSERT(a.size() == 3, "run: map_impl node '", n.name(), "' has ", a.size(), " arguments");
  std::vector<Tensor> xs, pos;
  for (const Node* o : std::get<std::vector<Node*>>(a[1])) xs.push_back(tensor_of(o, vals));
  for (const Node* o : std::get<std::vector<Node*>>(a[2])) pos.push_back(tensor_of(o, vals));
  FE_CHECK(!xs.empty(), ValueError, "map: expects at least one mapped input");
  const int64_t len = xs[0].size(0).expect_int();
  const Graph& body = subgraph_of(std::get<Node*>(a[0]), scopes);
  std::vector<std::vector<Tensor>> per_out;
  for (int64_t i = 0; i < len; ++i) {
    std::vector<Value> ops;
    for (const Tensor& x : xs) ops.emplace_back(fe::select(x, 0, i));
    for (const Tensor& p : pos) ops.emplace_back(p);
    std::vector<Value> outs = run_graph(body, scopes, ops);
    per_out.resize(outs.size());
    for (size_t k = 0; k < outs.size(); ++k) {
      auto* t = std::get_if<Tensor>(&outs[k]);
      FE_CHECK(t, ValueError, "map: output ", k, " of the body is ", kind_text(outs[k]), ", expected a tensor");
      per_out[k].push_back(*t);
    }
  }
  std::vector<Tensor> res;
  for (const auto& ts : per_out) res.push_back(fe::stack(ts, 0));
  return node_result(n, std::move(res));
}

/// while_loop(cond_graph, body_graph, carried, additional): while cond(*carried, *additional)
/// holds, carried = body(*carried, *additional); the result is the final carried values.
Value Runner::while_loop(const Node& n, const Vals& vals, const Scopes& scopes) {
  const auto& a = n.args();
  FE_INTERNAL_ASSERT(a.size() >= 4, "run: while_loop node '", n.name(), "' has ", a.size(), " arguments");
  const Graph& cond_g = subgraph_of(std::get<Node*>(a[0]), scopes);
  const Graph& body_g = subgraph_of(std::get<Node*>(a[1]), scopes);
  std::vector<Value> carried, additional;
  append_values(a[2], vals, carried);
  append_values(a[3], vals, additional);
  // A loop PyTorch would also never leave is still a bad input here: stop with an error.
  constexpr int64_t kMaxIterations = 100'000'000;
  for (int64_t it = 0;; ++it) {
    FE_CHECK(it < kMaxIterations, ValueError, "while_loop: node '", n.name(), "' did not stop after ", kMaxIterations,
             " iterations");
    std::vector<Value> ops = carried;
    ops.insert(ops.end(), additional.begin(), additional.end());
    const std::vector<Value> c = run_graph(cond_g, scopes, ops);
    FE_CHECK(c.size() == 1, ValueError, "while_loop: cond_fn returns ", c.size(), " values, expected one boolean");
    if (!truth(c[0], "while_loop: cond_fn's result")) break;
    std::vector<Value> next = run_graph(body_g, scopes, ops);
    FE_CHECK(next.size() == carried.size(), ValueError, "while_loop: body_fn returns ", next.size(),
             " values for ", carried.size(), " carried inputs");
    carried = std::move(next);
  }
  return node_result(n, tensors(n, carried, "while_loop"));
}

/// scan(combine_graph, init, xs, additional): for each slice i of the xs along dim 0,
/// (carry, y_i) = combine(*carry, *xs[i], *additional); the result is the final carry, then each
/// y stacked along a new dim 0.
Value Runner::scan(const Node& n, const Vals& vals, const Scopes& scopes) {
  const auto& a = n.args();
  FE_INTERNAL_ASSERT(a.size() >= 4, "run: scan node '", n.name(), "' has ", a.size(), " arguments");
  const Graph& combine = subgraph_of(std::get<Node*>(a[0]), scopes);
  std::vector<Value> carry, xv, additional;
  append_values(a[1], vals, carry);
  append_values(a[2], vals, xv);
  append_values(a[3], vals, additional);
  const std::vector<Tensor> xs = tensors(n, xv, "scan's xs");
  FE_CHECK(!xs.empty(), ValueError, "scan: expects at least one tensor to scan over");
  const int64_t len = xs[0].dim() ? xs[0].size(0).expect_int() : 0;
  for (const Tensor& x : xs)
    FE_CHECK(x.dim() > 0 && x.size(0).expect_int() == len, ValueError,
             "scan: all xs must have the same size in the scanned dim, got ", x.meta().annotation(), " and ",
             xs[0].meta().annotation());
  FE_CHECK(len > 0, ValueError, "scan: the scanned dim of xs has size 0 (", xs[0].meta().annotation(), ")");
  std::vector<std::vector<Tensor>> ys;
  for (int64_t i = 0; i < len; ++i) {
    std::vector<Value> ops = carry;
    for (const Tensor& x : xs) ops.emplace_back(fe::select(x, 0, i));
    ops.insert(ops.end(), additional.begin(), additional.end());
    std::vector<Value> outs = run_graph(combine, scopes, ops);
    FE_CHECK(outs.size() >= carry.size(), ValueError, "scan: combine_fn returns ", outs.size(), " values for ",
             carry.size(), " carried values");
    const std::vector<Tensor> ts = tensors(n, outs, "scan's combine_fn");
    ys.resize(ts.size() - carry.size());
    for (size_t k = carry.size(); k < ts.size(); ++k) ys[k - carry.size()].push_back(ts[k]);
    carry.assign(outs.begin(), outs.begin() + static_cast<std::ptrdiff_t>(carry.size()));
  }
  std::vector<Tensor> res = tensors(n, carry, "scan's carry");
  for (const auto& y : ys) res.push_back(fe::stack(y, 0));
  return node_result(n, std::move(res));
}

/// with_effects(token, op, *args): the op called on args (PyTorch threads a token through
/// effectful ops to keep their order); the result is a fresh token, then the op's outputs.
Value Runner::with_effects(const Node& n, const Vals& vals) {
  const auto& a = n.args();
  const auto* opv = a.size() >= 2 ? std::get_if<Opaque>(&a[1]) : nullptr;
  FE_CHECK(opv && *opv && (*opv)->kind == "as_operator", ValueError, "run: with_effects node '", n.name(),
           "' names no operator");
  const OpDef* op = export_detail::serialized_operator((*opv)->repr);
  FE_CHECK(op, UnknownOpError, "run: with_effects node '", n.name(), "' calls ", (*opv)->repr,
           ", which is not in the registry");
  FE_CHECK(n.kwarg_names().empty(), ValueError, "run: with_effects node '", n.name(),
           "' passes keyword arguments to ", op->qualified);
  std::vector<IValue> args;
  for (size_t i = 2; i < a.size(); ++i) args.push_back(arg_value(a[i], vals));
  std::vector<Tensor> outs{fe::empty({0})};  // the new token, torch.tensor([])
  for (const Tensor& t : call_op(*op, std::move(args), n)) outs.push_back(t);
  outs.resize(std::max(outs.size(), n.val.size()));  // None elements (an op returning nothing)
  return outs;
}

Value Runner::auto_functionalized(const Node& n, const Vals& vals) {
  std::string why;
  bool unknown = false;
  const auto c = export_detail::decode_auto_functionalized(n, why, unknown);
  (void)unknown;
  FE_CHECK(c, UnknownOpError, "run: '", n.name(), "' (", n.callable()->target, "): ", why);
  std::vector<Tensor> clones;
  for (const Node* b : c->bases) clones.push_back(fe::clone(tensor_of(b, vals)));
  const auto& a = n.args();
  std::vector<IValue> args;
  for (size_t i = 0; i < c->slots.size(); ++i) {
    const auto& s = c->slots[i];
    if (s.kind == export_detail::AutoFunctionalizedCall::Slot::Arg) {
      args.push_back(arg_value(a[s.arg], vals));
    } else if (s.kind == export_detail::AutoFunctionalizedCall::Slot::Base) {
      Tensor t = clones[s.base];
      if (s.size && s.stride) {
        const auto& sz = std::get<std::vector<SymInt>>(a[*s.size]);
        const auto& st = std::get<std::vector<SymInt>>(a[*s.stride]);
        const auto* off = s.offset ? std::get_if<SymInt>(&a[*s.offset]) : nullptr;
        t = fe::as_strided(t, Sizes(sz.begin(), sz.end()), Sizes(st.begin(), st.end()),
                           off ? off->maybe_int() : std::optional<int64_t>(0));
      }
      args.push_back(t);
    } else {
      args.push_back(map_tensors<Tensor>(*c->op->schema.arguments[i].default_value, [](NoTensor) { return Tensor(); }));
    }
  }
  std::vector<Tensor> outs = call_op(*c->op, std::move(args), n);
  outs.resize(c->op_outputs);  // one None slot for an op returning nothing
  for (Tensor& t : clones) outs.push_back(std::move(t));
  return outs;
}

Value Runner::call_other(const Node& n, const Vals& vals, const Scopes& scopes) {
  const auto& a = n.args();
  switch (n.callable()->kind) {
    case CallableKind::Cond: return cond(n, vals, scopes);
    case CallableKind::WrapWithSetGradEnabled:
      // (enabled, body, *operands): gradients do not change values.
      return call_subgraph(n, std::get<Node*>(a.at(1)), operands_from(n, 2, vals), scopes);
    case CallableKind::WrapWithAutocast: {
      // (device_type, dtype, enabled, cache_enabled, body, *operands): inside, autocast's
      // lower-precision ops compute in `dtype` (their floating inputs cast first).
      const bool enabled = std::get<bool>(a.at(2));
      const auto saved = autocast_;
      if (enabled) {
        const DType* dt = std::get_if<DType>(&a.at(1));
        FE_CHECK(dt, ValueError, "run: autocast region '", n.name(), "' names no dtype");
        autocast_ = *dt;
      } else {
        autocast_.reset();
      }
      struct Restore {
        std::optional<DType>& slot;
        std::optional<DType> v;
        ~Restore() { slot = v; }
      } restore{autocast_, saved};
      return call_subgraph(n, std::get<Node*>(a.at(4)), operands_from(n, 5, vals), scopes);
    }
    case CallableKind::MapImpl: return map_impl(n, vals, scopes);
    case CallableKind::WhileLoop: return while_loop(n, vals, scopes);
    case CallableKind::Scan: return scan(n, vals, scopes);
    case CallableKind::WithEffects: return with_effects(n, vals);
    case CallableKind::AutoFunctionalized:
    case CallableKind::AutoFunctionalizedV2: return auto_functionalized(n, vals);
    case CallableKind::InvokeSubgraph:
      // (subgraph, identifier, *operands): a call of the subgraph, as if inlined.
      return call_subgraph(n, std::get<Node*>(a.at(0)), operands_from(n, 2, vals), scopes);
    case CallableKind::VmapNesting:
    case CallableKind::AddBatchDim:
    case CallableKind::RemoveBatchDim: return vmap_call(n, vals);
    default: break;
  }
  throw UnknownOpError(detail::cat("run: ", n.callable()->target, " cannot be executed (node '", n.name(), "')"));
}

}  // namespace fe::run_detail
