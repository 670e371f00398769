// fe::run: an interpreter over the exported graph on real tensors (what ep.module()(*inputs) does in
// PyTorch). Every call_function node is dispatched with its argument values; symbolic ints are
// replaced by the concrete values their nodes computed for these inputs.
#include "fakeexport/export/run.h"

#include <map>
#include <unordered_map>
#include <unordered_set>
#include <algorithm>
#include <cmath>
#include <variant>

#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "core/element.h"
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/autocast.h"
#include "fakeexport/ops/dispatch.h"
#include "export/run_runner.h"

namespace fe {
namespace run_detail {
namespace {

std::string node_label(const Node& n) {
  switch (n.op()) {
    case NodeOp::CallFunction: return n.target()->qualified;
    case NodeOp::GetItem: return "operator.getitem";
    case NodeOp::SymOp:
      return (n.py_op() == PyOp::SymMin || n.py_op() == PyOp::SymMax ? "torch." : "operator.") +
             std::string(py_op_name(n.py_op()));
    case NodeOp::CallOther: return n.callable()->target;
    case NodeOp::GetAttr: return "get_attr";
    case NodeOp::Placeholder: return "placeholder";
    case NodeOp::Output: return "output";
  }
  return "?";
}

/// Overflow of int64 arithmetic on sizes: an error, never a wrapped value.
int64_t checked(PyOp op, int64_t a, int64_t b) {
  int64_t r = 0;
  bool overflow = false;
  switch (op) {
    case PyOp::Add: overflow = __builtin_add_overflow(a, b, &r); break;
    case PyOp::Sub: overflow = __builtin_sub_overflow(a, b, &r); break;
    case PyOp::Mul: overflow = __builtin_mul_overflow(a, b, &r); break;
    default: break;
  }
  FE_CHECK(!overflow, ValueError, a, " ", py_op_symbol(op), " ", b, " overflows int64");
  return r;
}

}  // namespace

std::vector<Tensor> Runner::run(const std::vector<Tensor>& inputs) {
  const std::vector<Node*> phs = ep_.graph.placeholders();
  const auto& specs = ep_.signature.inputs;
  FE_CHECK(phs.size() == specs.size(), ValueError, "run: the graph has ", phs.size(),
           " placeholders but the signature lists ", specs.size(), " inputs");
  std::vector<Tensor> bound;
  size_t u = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    const InputSpec& s = specs[i];
    if (s.kind == InputKind::UserInput && s.constant) {  // specialized by export: nothing reads it
      bound.emplace_back();
      continue;
    }
    if (s.kind == InputKind::Token) {  // effect ordering only: PyTorch passes torch.tensor([])
      bound.push_back(fe::empty({0}));
      continue;
    }
    if (s.kind == InputKind::UserInput) {
      const Tensor& t = inputs.at(u++);  // check_inputs matched the counts
      FE_CHECK(t.has_storage(), DataAccessError, "run: input '", s.name, "' (", t.meta().annotation(),
               ") is ", t.is_fake() ? "a fake tensor" : "a tensor without data",
               "; run computes on real tensors");
      bound.push_back(t);
      continue;
    }
    bound.push_back(state_tensor(s));
  }
  std::vector<Value> outs = run_graph(ep_.graph, {}, std::vector<Value>(bound.begin(), bound.end()));
  return finish(outs, inputs);
}

/// The tensor a PARAMETER / BUFFER / CONSTANT_TENSOR input reads, which must hold data.
Tensor Runner::state_tensor(const InputSpec& s) const {
  const char* what = nullptr;
  const Tensor* t = nullptr;
  switch (s.kind) {
    case InputKind::Parameter: what = "parameter"; t = find(ep_.state_dict, s.target); break;
    case InputKind::Buffer:
      what = "buffer";
      t = s.persistent ? find(ep_.state_dict, s.target) : find(ep_.constants, s.target);
      if (!t) t = s.persistent ? find(ep_.constants, s.target) : find(ep_.state_dict, s.target);
      break;
    case InputKind::ConstantTensor:
      what = "constant";
      t = find(ep_.constants, s.target);
      if (!t) t = find(ep_.state_dict, s.target);
      break;
    default:
      throw ValueError(detail::cat("run: input '", s.name, "' is a ", input_kind_name(s.kind),
                                   " input, which run does not support"));
  }
  FE_CHECK(t && t->defined(), ValueError, "run: ", what, " '", s.target, "' (placeholder '", s.name,
           "') is not in the program's ", s.kind == InputKind::Parameter ? "state_dict" : "state_dict or constants");
  // Values the program knows (FakeTensor.constant: rotary tables, torch.tensor(...) constants) run
  // on the CPU as they are.
  if (!t->has_storage() && t->impl()->constant && t->device().is_cpu()) return Tensor(t->impl()->constant);
  FE_CHECK(t->has_storage(), DataAccessError, "run: weights absent: the program was exported from a fake model; ",
           what, " '", s.target, "' (", t->meta().annotation(), ") has no data. Load real weights into ",
           "ep.state_dict / ep.constants (e.g. from a safetensors file) or export a model with real "
           "weights before running");
  return *t;
}

const Tensor* Runner::find(const std::vector<std::pair<std::string, Tensor>>& v, const std::string& name) {
  for (const auto& [k, t] : v)
    if (k == name) return &t;
  return nullptr;
}

/// Splits the root graph's outputs by the signature: user outputs are returned, mutations are
/// written into the tensors they name.
std::vector<Tensor> Runner::finish(const std::vector<Value>& outs, const std::vector<Tensor>& inputs) {
  const auto& specs = ep_.signature.outputs;
  FE_CHECK(outs.size() == specs.size(), ValueError, "run: the graph returns ", outs.size(),
           " values but the signature lists ", specs.size(), " outputs");
  std::vector<Tensor> result;
  for (size_t k = 0; k < outs.size(); ++k) {
    const OutputSpec& s = specs[k];
    if (s.kind == OutputKind::Token) continue;
    if (s.kind == OutputKind::UserOutput) {  // a Python number returned by forward: a 0-dim tensor
      if (auto* i = std::get_if<int64_t>(&outs[k])) {
        result.push_back(fe::scalar_tensor(*i, {.dtype = DType::Int64}));
        continue;
      }
      if (auto* b = std::get_if<bool>(&outs[k])) {
        result.push_back(fe::scalar_tensor(*b, {.dtype = DType::Bool}));
        continue;
      }
      if (auto* d = std::get_if<double>(&outs[k])) {
        result.push_back(fe::scalar_tensor(*d, {.dtype = DType::Float64}));
        continue;
      }
    }
    const Tensor* v = std::get_if<Tensor>(&outs[k]);
    FE_CHECK(v, ValueError, "run: output '", s.name, "' is ", kind_text(outs[k]), ", expected a tensor");
    switch (s.kind) {
      case OutputKind::UserOutput:
      case OutputKind::LossOutput: result.push_back(*v); break;
      case OutputKind::BufferMutation:
      case OutputKind::ParameterMutation: {
        const Tensor* dst = find(ep_.state_dict, s.target);
        if (!dst) dst = find(ep_.constants, s.target);
        FE_CHECK(dst, ValueError, "run: ", output_kind_name(s.kind), " output '", s.name, "' targets '", s.target,
                 "', which is not in the program's state_dict or constants");
        write_back(*dst, *v, s);
        break;
      }
      case OutputKind::UserInputMutation: {
        size_t u = 0;
        const Tensor* dst = nullptr;
        for (const InputSpec& in : ep_.signature.inputs) {
          if (in.kind != InputKind::UserInput || in.constant) continue;
          if (in.name == s.target) dst = &inputs[u];
          ++u;
        }
        FE_CHECK(dst, ValueError, "run: USER_INPUT_MUTATION output '", s.name, "' targets '", s.target,
                 "', which is not a user input");
        write_back(*dst, *v, s);
        break;
      }
      default:
        throw ValueError(detail::cat("run: output '", s.name, "' is a ", output_kind_name(s.kind),
                                     " output, which run does not support"));
    }
  }
  return result;
}

void Runner::write_back(const Tensor& dst, const Tensor& value, const OutputSpec& s) {
  if (dst.is_same(value)) return;
  try {
    dst.copy_(value);
  } catch (const Error& e) {
    rethrow_with_prefix(e, detail::cat("run: writing ", output_kind_name(s.kind), " output '", s.name, "' into '",
                                       s.target, "': "));
  }
}

/// Binds each symbol that is a placeholder's size to the actual size (for expressions that no
/// node computes).
void Runner::bind_symbols(const std::vector<Node*>& phs, const std::vector<Value>& vals) {
  for (size_t i = 0; i < phs.size() && i < vals.size(); ++i) {
    if (phs[i]->sym_val && phs[i]->sym_val->is_symbolic()) {  // a size operand of a subgraph
      const sym::Expr e = phs[i]->sym_val->expr();
      if (auto* v = std::get_if<int64_t>(&vals[i]); v && e.is_symbol()) symbols_.emplace(e.name(), *v);
      continue;
    }
    const Tensor* t = std::get_if<Tensor>(&vals[i]);
    if (phs[i]->val.empty() || !t || !t->defined()) continue;
    const TensorMeta& m = phs[i]->val[0];
    for (size_t d = 0; d < m.sizes.size() && static_cast<int64_t>(d) < t->dim(); ++d) {
      if (!m.sizes[d].is_symbolic()) continue;
      const sym::Expr e = m.sizes[d].expr();
      if (e.is_symbol()) symbols_.emplace(e.name(), t->sizes()[d].hint());
    }
  }
}

/// The concrete value of an int argument: its node's value, else its expression over the
/// symbols bound from the inputs.
int64_t Runner::int_of(const SymInt& s, const Vals& vals) const {
  if (!s.is_symbolic()) return s.hint();
  if (Node* n = graph_node_of(s)) {
    auto it = vals.find(n);
    if (it != vals.end()) {
      if (auto* i = std::get_if<int64_t>(&it->second)) return *i;
      if (auto* b = std::get_if<bool>(&it->second)) return *b;
      throw InternalError(detail::cat("run: sym node '", n->name(), "' holds ", kind_text(it->second)));
    }
  }
  return s.expr().evaluate([&](std::string_view name) {
    auto it = symbols_.find(name);
    FE_INTERNAL_ASSERT(it != symbols_.end(), "run: symbol ", name, " of ", s.str(), " is bound by no input size");
    return it->second;
  });
}

const Value& Runner::value_of(const Node* n, const Vals& vals) {
  auto it = vals.find(n);
  FE_INTERNAL_ASSERT(it != vals.end(), "run: node '", n->name(), "' used before it was computed");
  return it->second;
}

Tensor Runner::tensor_of(const Node* n, const Vals& vals) {
  if (!n) return Tensor();  // None inside `Tensor?[]`
  const Value& v = value_of(n, vals);
  auto* t = std::get_if<Tensor>(&v);
  FE_INTERNAL_ASSERT(t, "run: node '", n->name(), "' is ", kind_text(v), " where a tensor is expected");
  return *t;
}

/// The float a handle's node holds (a retraced `_local_scalar_dense` of a float tensor: Sym(zuf0)),
/// else null.
static const double* float_of(const SymInt& s, const std::unordered_map<const Node*, Value>& vals) {
  if (!s.is_symbolic()) return nullptr;
  Node* g = graph_node_of(s);
  auto it = g ? vals.find(g) : vals.end();
  return it == vals.end() ? nullptr : std::get_if<double>(&it->second);
}

IValue Runner::arg_value(const NodeArg& a, const Vals& vals) const {
  if (auto* n = std::get_if<Node*>(&a)) {
    const Value& v = value_of(*n, vals);  // a number in a Tensor slot (`mul.Tensor(x, 2)`) stays a number
    if (auto* i = std::get_if<int64_t>(&v)) return SymInt(*i);
    if (auto* b = std::get_if<bool>(&v)) return *b;
    if (auto* d = std::get_if<double>(&v)) return *d;
    return tensor_of(*n, vals);
  }
  if (auto* l = std::get_if<std::vector<Node*>>(&a)) {
    std::vector<Tensor> ts;
    for (const Node* n : *l) ts.push_back(tensor_of(n, vals));
    return ts;
  }
  if (auto* s = std::get_if<SymInt>(&a)) {
    if (const double* d = float_of(*s, vals)) return *d;
    return SymInt(int_of(*s, vals));
  }
  if (auto* l = std::get_if<std::vector<SymInt>>(&a)) {
    std::vector<SymInt> out;
    for (const SymInt& s : *l) out.emplace_back(int_of(s, vals));
    return out;
  }
  return map_tensors<Tensor>(a, [](Node*) { return Tensor(); });  // tensor-free values as they are
}

Value Runner::call(const Node& n, const Vals& vals) {
  const OpDef& op = *n.target();
  std::vector<IValue> args;
  args.reserve(n.args().size());
  for (const NodeArg& a : n.args()) args.push_back(arg_value(a, vals));
  if (!batched_.empty())
    if (std::optional<Value> v = call_batched(n, args)) return *v;
  const auto& rets = op.schema.returns;
  if (rets.size() == 1 && rets[0].type.base == ArgBase::Scalar && !rets[0].type.is_list) {
    // item() / _local_scalar_dense: the value of a one-element tensor, as a Python number.
    complete_args(op, args);
    const Tensor* t = args.empty() ? nullptr : std::get_if<Tensor>(&args[0]);
    FE_CHECK(t && t->has_storage(), ValueError, "run: ", op.qualified, " needs a tensor with data");
    FE_CHECK(t->numel() == 1, ValueError, op.qualified, ": a Tensor with ", t->numel(),
             " elements cannot be converted to Scalar");
    const auto* base = static_cast<const std::byte*>(t->data_ptr());
    const double x = detail::load(base, t->dtype());
    if (t->dtype() == DType::Bool) return x != 0;
    if (is_integral(t->dtype(), false)) return static_cast<int64_t>(x);
    return x;
  }
  // sym_size.int and friends: the meta function over the real tensors' (concrete) sizes.
  if (returns_int(op)) return dispatch_int(op, std::move(args)).expect_int();
  std::vector<Tensor> outs = call_op(op, std::move(args), n);
  if (n.multi_output()) return outs;
  if (outs.empty()) return std::monostate{};
  FE_INTERNAL_ASSERT(outs.size() == 1, op.qualified, " returned ", outs.size(), " tensors for a single output");
  return outs[0];
}

/// Dispatches `op` on real values (lower-precision ops cast inside an autocast region). An op
/// without outputs that has a kernel (`_print`) is called for its effect: dispatch computes
/// only outputs.
std::vector<Tensor> Runner::call_op(const OpDef& op, std::vector<IValue> args, const Node& n) {
  if (autocast_ && autocast_lower_precision(op))
    for (IValue& v : args)
      if (auto* t = std::get_if<Tensor>(&v); t && t->defined() && is_floating(t->dtype()) && t->dtype() != *autocast_)
        *t = t->to(*autocast_);
  const bool effect_only = op.schema.returns.empty() && op.cpu;
  std::vector<IValue> kept;
  if (effect_only) kept = args;
  std::vector<Tensor> outs = dispatch(op, std::move(args), n.loc.value_or(SrcLocArg::current()));
  if (effect_only) op.cpu(op, kept, {});
  return outs;
}

/// Python's `a op b` on ints (int64, overflow checked) or floats (item() of a float tensor).
template <class T>
Value py_op(PyOp op, T a, T b) {
  constexpr bool kFloat = std::is_floating_point_v<T>;
  switch (op) {
    case PyOp::Add:
    case PyOp::Sub:
    case PyOp::Mul:
      if constexpr (kFloat) return op == PyOp::Add ? a + b : op == PyOp::Sub ? a - b : a * b;
      else return checked(op, a, b);
    case PyOp::FloorDiv:
      if constexpr (kFloat) {
        FE_CHECK(b != 0, ValueError, "run: float floor division by zero");
        return std::floor(a / b);
      } else {
        return detail::py_floordiv(a, b);
      }
    case PyOp::Mod:
      if constexpr (kFloat) {
        FE_CHECK(b != 0, ValueError, "run: float modulo by zero");
        const double r = std::fmod(a, b);
        return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
      } else {
        return detail::py_mod(a, b);
      }
    case PyOp::SymMin: return std::min(a, b);
    case PyOp::SymMax: return std::max(a, b);
    case PyOp::Eq: return a == b;
    case PyOp::Ne: return a != b;
    case PyOp::Lt: return a < b;
    case PyOp::Le: return a <= b;
    case PyOp::Gt: return a > b;
    case PyOp::Ge: return a >= b;
  }
  return std::monostate{};
}

Value Runner::sym_op(const Node& n, const Vals& vals) const {
  const size_t arity = py_op_arity(n.py_op());
  FE_INTERNAL_ASSERT(n.args().size() == arity, "run: sym node '", n.name(), "' has ", n.args().size(), " operands");
  // `-a` is `0 - a` (the same overflow check: -INT64_MIN overflows).
  const bool neg = n.py_op() == PyOp::Neg;
  int64_t x[2] = {0, 0};
  double f[2] = {0, 0};
  bool floats = false;  // item() of a float tensor (Funnel's `item <= item_1`): Python float arithmetic
  for (size_t i = neg ? 1 : 0; i < 2; ++i) {
    IValue v = arg_value(n.args()[neg ? 0 : i], vals);
    if (auto* s = std::get_if<SymInt>(&v)) x[i] = s->hint(), f[i] = static_cast<double>(x[i]);
    else if (auto* b = std::get_if<bool>(&v)) x[i] = *b, f[i] = *b;
    else if (auto* d = std::get_if<double>(&v)) f[i] = *d, x[i] = 0, floats = true;
    else throw ValueError(detail::cat("run: operand ", i, " of sym node '", n.name(), "' is neither a number nor a bool"));
  }
  const PyOp op = neg ? PyOp::Sub : n.py_op();
  return floats ? py_op(op, f[0], f[1]) : py_op(op, x[0], x[1]);
}

/// Runs `g` with its placeholders bound to `args`; returns the output node's values.
std::vector<Value> Runner::run_graph(const Graph& g, Scopes scopes, const std::vector<Value>& args) {
  scopes.push_back(&g);
  const std::vector<Node*> phs = g.placeholders();
  FE_CHECK(phs.size() == args.size(), ValueError, "run: graph with ", phs.size(), " placeholders called with ",
           args.size(), " tensors");
  bind_symbols(phs, args);
  std::unordered_map<const Node*, Value> vals;
  for (size_t i = 0; i < phs.size(); ++i) vals[phs[i]] = args[i];
  // A value is dropped after its last use, so intermediates do not all stay alive.
  const auto& nodes = g.nodes();
  std::unordered_map<const Node*, size_t> last_use;
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const Node* in : nodes[i]->inputs()) last_use[in] = i;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = *nodes[i];
    if (n.op() == NodeOp::Placeholder) continue;
    if (n.op() == NodeOp::Output) {
      std::vector<Value> outs;
      for (const Node* o : std::get<std::vector<Node*>>(n.args().at(0)))
        outs.push_back(o ? value_of(o, vals) : Value(Tensor()));
      return outs;
    }
    try {
      vals[&n] = eval(n, vals, scopes);
    } catch (const Error& e) {
      rethrow_with_prefix(e, detail::cat("while running node '", n.name(), "' (", node_label(n), "): "));
    }
    for (const Node* in : n.inputs())
      if (last_use[in] == i) vals.erase(in);
  }
  throw InternalError("run: graph has no output node");
}

Value Runner::eval(const Node& n, const Vals& vals, const Scopes& scopes) {
  switch (n.op()) {
    case NodeOp::CallFunction: return call(n, vals);
    case NodeOp::SymOp: return sym_op(n, vals);
    case NodeOp::GetAttr: return std::monostate{};  // read by the higher-order call that uses it
    case NodeOp::CallOther: return call_other(n, vals, scopes);
    case NodeOp::GetItem: {
      const Node* src = std::get<Node*>(n.args().at(0));
      const Value& v = value_of(src, vals);
      auto* ts = std::get_if<std::vector<Tensor>>(&v);
      FE_INTERNAL_ASSERT(ts, "run: getitem of '", src->name(), "' which is ", kind_text(v));
      FE_CHECK(n.index() >= 0 && n.index() < static_cast<int64_t>(ts->size()), IndexError, "tuple index ",
               n.index(), " out of range: '", src->name(), "' has ", ts->size(), " values");
      return (*ts)[static_cast<size_t>(n.index())];
    }
    case NodeOp::Placeholder:
    case NodeOp::Output: break;
  }
  throw InternalError("run: unexpected node kind");
}

}  // namespace run_detail

std::vector<Tensor> run(const ExportedProgram& ep, const std::vector<Tensor>& inputs) {
  FE_CHECK(!FakeTensorMode::active(), UserError,
           "run: called under FakeTensorMode; run computes real values, leave the FakeTensorMode scope first");
  check_inputs(ep, inputs);
  TraceScope no_trace(nullptr);  // the run is not part of any trace in progress
  return run_detail::Runner(ep).run(inputs);
}

std::vector<Tensor> ExportedProgram::run(const std::vector<Tensor>& inputs) const { return fe::run(*this, inputs); }

}  // namespace fe
