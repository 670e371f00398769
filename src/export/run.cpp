// fe::run: an interpreter over the exported graph on real tensors (what ep.module()(*inputs) does in
// PyTorch). Every call_function node is dispatched with its argument values; symbolic ints are
// replaced by the concrete values their nodes computed for these inputs.
#include "fakeexport/export/run.h"

#include <map>
#include <unordered_map>
#include <unordered_set>
#include <algorithm>
#include <variant>

#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "core/element.h"
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/autocast.h"
#include "fakeexport/ops/dispatch.h"

namespace fe {
namespace {

/// What a node evaluates to: nothing (get_attr, ops returning nothing), a tensor, a tuple of
/// tensors (multi-output ops, cond), a concrete int (sym nodes) or a bool (comparisons).
using Value = std::variant<std::monostate, Tensor, std::vector<Tensor>, int64_t, bool, double>;

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

template <class E>
void rethrow_if(const Error& e, const std::string& msg) {
  if (dynamic_cast<const E*>(&e)) throw E(msg);
}

/// Re-throws `e` as its own type with `prefix` before its message (callers catch by type).
[[noreturn]] void rethrow_with_prefix(const Error& e, const std::string& prefix) {
  const std::string msg = prefix + e.what();
  rethrow_if<DeviceMismatchError>(e, msg);
  rethrow_if<DataAccessError>(e, msg);
  rethrow_if<ShapeError>(e, msg);
  rethrow_if<DTypeError>(e, msg);
  rethrow_if<UnknownOpError>(e, msg);
  rethrow_if<ValueError>(e, msg);
  rethrow_if<IndexError>(e, msg);
  rethrow_if<DataDependentError>(e, msg);
  rethrow_if<ConstraintViolationError>(e, msg);
  rethrow_if<DeviceUnavailableError>(e, msg);
  rethrow_if<FormatError>(e, msg);
  rethrow_if<FileIOError>(e, msg);
  rethrow_if<UserError>(e, msg);
  rethrow_if<InternalError>(e, msg);
  throw Error(msg);
}

const char* kind_text(const Value& v) {
  static constexpr const char* names[] = {"nothing", "a tensor", "a tuple of tensors", "an int", "a bool", "a float"};
  return names[v.index()];
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

class Runner {
 public:
  explicit Runner(const ExportedProgram& ep) : ep_(ep) {}

  std::vector<Tensor> run(const std::vector<Tensor>& inputs) {
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

 private:
  /// The tensor a PARAMETER / BUFFER / CONSTANT_TENSOR input reads, which must hold data.
  Tensor state_tensor(const InputSpec& s) const {
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
    FE_CHECK(t->has_storage(), DataAccessError, "run: weights absent: the program was exported from a fake model; ",
             what, " '", s.target, "' (", t->meta().annotation(), ") has no data. Load real weights into ",
             "ep.state_dict / ep.constants (e.g. from a safetensors file) or export a model with real "
             "weights before running");
    return *t;
  }

  static const Tensor* find(const std::vector<std::pair<std::string, Tensor>>& v, const std::string& name) {
    for (const auto& [k, t] : v)
      if (k == name) return &t;
    return nullptr;
  }

  /// Splits the root graph's outputs by the signature: user outputs are returned, mutations are
  /// written into the tensors they name.
  std::vector<Tensor> finish(const std::vector<Value>& outs, const std::vector<Tensor>& inputs) {
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

  static void write_back(const Tensor& dst, const Tensor& value, const OutputSpec& s) {
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
  void bind_symbols(const std::vector<Node*>& phs, const std::vector<Value>& vals) {
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
  int64_t int_of(const SymInt& s, const std::unordered_map<const Node*, Value>& vals) const {
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

  static const Value& value_of(const Node* n, const std::unordered_map<const Node*, Value>& vals) {
    auto it = vals.find(n);
    FE_INTERNAL_ASSERT(it != vals.end(), "run: node '", n->name(), "' used before it was computed");
    return it->second;
  }

  static Tensor tensor_of(const Node* n, const std::unordered_map<const Node*, Value>& vals) {
    if (!n) return Tensor();  // None inside `Tensor?[]`
    const Value& v = value_of(n, vals);
    auto* t = std::get_if<Tensor>(&v);
    FE_INTERNAL_ASSERT(t, "run: node '", n->name(), "' is ", kind_text(v), " where a tensor is expected");
    return *t;
  }

  IValue arg_value(const NodeArg& a, const std::unordered_map<const Node*, Value>& vals) const {
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
    if (auto* s = std::get_if<SymInt>(&a)) return SymInt(int_of(*s, vals));
    if (auto* l = std::get_if<std::vector<SymInt>>(&a)) {
      std::vector<SymInt> out;
      for (const SymInt& s : *l) out.emplace_back(int_of(s, vals));
      return out;
    }
    return map_tensors<Tensor>(a, [](Node*) { return Tensor(); });  // tensor-free values as they are
  }

  Value call(const Node& n, const std::unordered_map<const Node*, Value>& vals) {
    const OpDef& op = *n.target();
    std::vector<IValue> args;
    args.reserve(n.args().size());
    for (const NodeArg& a : n.args()) args.push_back(arg_value(a, vals));
    if (!batched_.empty())
      if (std::optional<Value> v = call_batched(n, args)) return *v;
    const auto& rets = op.schema.returns;
    const bool int_result =
        rets.size() == 1 && !rets[0].type.is_list && (rets[0].type.base == ArgBase::Int || rets[0].type.base == ArgBase::SymInt);
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
    if (int_result) {
      // sym_size.int and friends: the meta function over the real tensors' (concrete) sizes.
      complete_args(op, args);
      std::vector<MetaValue> margs;
      for (const IValue& v : args)
        margs.push_back(map_tensors<const TensorMeta*>(
            v, [](const Tensor& t) -> const TensorMeta* { return t.defined() ? &t.meta() : nullptr; }));
      MetaOut mo;
      run_meta(op, margs, mo);
      FE_INTERNAL_ASSERT(mo.ints.size() == 1, op.qualified, " computed ", mo.ints.size(), " ints");
      return mo.ints[0].expect_int();
    }
    if (autocast_ && autocast_lower_precision(op))
      for (IValue& v : args)
        if (auto* t = std::get_if<Tensor>(&v); t && t->defined() && is_floating(t->dtype()) && t->dtype() != *autocast_)
          *t = t->to(*autocast_);
    std::vector<Tensor> outs = dispatch(op, std::move(args), n.loc.value_or(SrcLocArg::current()));
    if (n.multi_output()) return outs;
    if (outs.empty()) return std::monostate{};
    FE_INTERNAL_ASSERT(outs.size() == 1, op.qualified, " returned ", outs.size(), " tensors for a single output");
    return outs[0];
  }

  Value sym_op(const Node& n, const std::unordered_map<const Node*, Value>& vals) const {
    FE_INTERNAL_ASSERT(n.args().size() == 2, "run: sym node '", n.name(), "' has ", n.args().size(), " operands");
    int64_t x[2];
    for (size_t i = 0; i < 2; ++i) {
      IValue v = arg_value(n.args()[i], vals);
      if (auto* s = std::get_if<SymInt>(&v)) x[i] = s->hint();
      else if (auto* b = std::get_if<bool>(&v)) x[i] = *b;
      else throw InternalError(detail::cat("run: operand ", i, " of sym node '", n.name(), "' is not an int"));
    }
    const int64_t a = x[0], b = x[1];
    switch (n.py_op()) {
      case PyOp::Add:
      case PyOp::Sub:
      case PyOp::Mul: return checked(n.py_op(), a, b);
      case PyOp::FloorDiv: return detail::py_floordiv(a, b);
      case PyOp::Mod: return detail::py_mod(a, b);
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

  /// cond(pred, true_graph, false_graph, operands): runs one branch's subgraph on the operands.
  Value cond(const Node& n, const std::unordered_map<const Node*, Value>& vals,
             const std::vector<const Graph*>& scopes) {
    const auto& a = n.args();
    FE_INTERNAL_ASSERT(a.size() == 4, "run: cond node '", n.name(), "' has ", a.size(), " arguments");
    const Node* pred_node = std::get<Node*>(a[0]);
    const Value& pv = value_of(pred_node, vals);
    bool pred = false;
    if (auto* t = std::get_if<Tensor>(&pv)) {
      FE_CHECK(t->numel() == 1, ValueError, "cond: pred must be a one-element tensor, got ", t->meta().annotation());
      pred = t->item() != 0;
    } else if (auto* b = std::get_if<bool>(&pv)) {
      pred = *b;
    } else if (auto* i = std::get_if<int64_t>(&pv)) {
      pred = *i != 0;
    } else {
      throw InternalError(detail::cat("run: cond pred '", pred_node->name(), "' is ", kind_text(pv)));
    }
    const Node* branch = std::get<Node*>(a[pred ? 1 : 2]);
    std::vector<Value> operands;
    for (const Node* o : std::get<std::vector<Node*>>(a[3])) operands.push_back(tensor_of(o, vals));
    return call_subgraph(n, branch, operands, scopes);
  }

  /// The subgraph a get_attr argument names, looked up from the innermost graph outwards.
  const Graph& subgraph_of(const Node* attr, const std::vector<const Graph*>& scopes) const {
    FE_INTERNAL_ASSERT(attr->op() == NodeOp::GetAttr, "run: '", attr->name(), "' is not a get_attr");
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it)
      for (const auto& [name, g] : (*it)->subgraphs())
        if (name == attr->attr()) return *g;
    throw ValueError(detail::cat("no subgraph '", attr->attr(), "' in the program"));
  }

  /// Runs the subgraph `attr` on `operands`; a tuple of tensors, or the tensor itself when the
  /// calling node returns a single value.
  Value call_subgraph(const Node& n, const Node* attr, const std::vector<Value>& operands,
                      const std::vector<const Graph*>& scopes) {
    std::vector<Value> outs = run_graph(subgraph_of(attr, scopes), scopes, operands);
    std::vector<Tensor> ts;
    for (size_t k = 0; k < outs.size(); ++k) {
      auto* t = std::get_if<Tensor>(&outs[k]);
      FE_CHECK(t, ValueError, n.callable()->node_name, ": output ", k, " of ", attr->attr(), " is ",
               kind_text(outs[k]), ", expected a tensor");
      ts.push_back(*t);
    }
    if (n.multi_output()) return ts;
    FE_INTERNAL_ASSERT(ts.size() == 1, "run: '", n.name(), "' returns one value but its subgraph gives ", ts.size());
    return ts[0];
  }

  /// Values of arguments [from, end) of a higher-order call (its subgraph operands: tensors and sizes).
  std::vector<Value> operands_from(const Node& n, size_t from, const std::unordered_map<const Node*, Value>& vals) {
    std::vector<Value> out;
    for (size_t i = from; i < n.args().size() - n.kwarg_names().size(); ++i) {
      const NodeArg& a = n.args()[i];
      if (auto* s = std::get_if<SymInt>(&a)) out.emplace_back(int_of(*s, vals));
      else if (auto* l = std::get_if<std::vector<Node*>>(&a))
        for (const Node* o : *l) out.push_back(value_of(o, vals));
      else out.push_back(value_of(std::get<Node*>(a), vals));
    }
    return out;
  }

  /// map_impl(body, xs, pos_args): the body on each slice of xs along dim 0, results stacked.
  Value map_impl(const Node& n, const std::unordered_map<const Node*, Value>& vals,
                 const std::vector<const Graph*>& scopes) {
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
    if (n.multi_output()) return res;
    FE_INTERNAL_ASSERT(res.size() == 1, "run: '", n.name(), "' returns one value but map gives ", res.size());
    return res[0];
  }

  Value call_other(const Node& n, const std::unordered_map<const Node*, Value>& vals,
                   const std::vector<const Graph*>& scopes) {
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
      case CallableKind::Opaque:
        if (n.callable()->target.starts_with(kPredispatch)) return vmap_call(n, vals);
        break;
      default: break;
    }
    throw UnknownOpError(detail::cat("run: ", n.callable()->target, " cannot be executed (node '", n.name(), "')"));
  }

  /// Runs `g` with its placeholders bound to `args`; returns the output node's values.
  std::vector<Value> run_graph(const Graph& g, std::vector<const Graph*> scopes, const std::vector<Value>& args) {
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

  Value eval(const Node& n, const std::unordered_map<const Node*, Value>& vals, const std::vector<const Graph*>& scopes) {
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

  // ---- functorch vmap traced inline (transformers' mask functions). A batched value is a real
  // tensor whose leading dims are its vmap levels (ascending), then its per-example dims; the
  // graph's nodes between _add_batch_dim and _remove_batch_dim compute on those per example.
  static constexpr std::string_view kPredispatch = "torch._functorch.predispatch.";
  using Levels = std::vector<int64_t>;

  const Levels* levels_of(const Node* n) const {
    auto it = batched_.find(n);
    return it == batched_.end() ? nullptr : &it->second;
  }

  static int64_t int_arg(const Node& n, size_t i) {
    const auto* v = i < n.args().size() ? std::get_if<SymInt>(&n.args()[i]) : nullptr;
    FE_CHECK(v && v->maybe_int(), ValueError, "run: ", n.name(), ": argument ", i, " must be an int");
    return *v->maybe_int();
  }

  Value vmap_call(const Node& n, const std::unordered_map<const Node*, Value>& vals) {
    const std::string_view fn = std::string_view(n.callable()->target).substr(kPredispatch.size());
    if (fn == "lazy_load_decompositions" || fn == "_vmap_increment_nesting" || fn == "_vmap_decrement_nesting")
      return std::monostate{};
    const Node* xn = n.args().empty() ? nullptr : std::get<Node*>(n.args()[0]);
    FE_CHECK(xn, ValueError, "run: ", n.name(), ": no tensor operand");
    Tensor x = tensor_of(xn, vals);
    Levels lv = levels_of(xn) ? *levels_of(xn) : Levels{};
    const auto nl = static_cast<int64_t>(lv.size());
    if (fn == "_add_batch_dim") {  // (x, in_dim, level): the new level is the innermost one
      const int64_t in_dim = int_arg(n, 1), level = int_arg(n, 2);
      std::vector<int64_t> perm;
      for (int64_t d = 0; d < x.dim(); ++d)
        if (d != nl + in_dim) perm.push_back(d);
      perm.insert(perm.begin() + nl, nl + in_dim);
      lv.push_back(level);
      batched_[&n] = lv;
      return fe::permute(x, perm);
    }
    if (fn == "_remove_batch_dim") {  // (x, level, batch_size, out_dim)
      const int64_t level = int_arg(n, 1), size = int_arg(n, 2), out_dim = int_arg(n, 3);
      auto it = std::find(lv.begin(), lv.end(), level);
      Tensor r;
      if (it == lv.end()) {  // not batched at this level: every example is the same
        Tensor u = fe::unsqueeze(x, nl + out_dim);
        Sizes shape(u.sizes().begin(), u.sizes().end());
        shape[static_cast<size_t>(nl + out_dim)] = size;
        r = fe::expand(u, shape);
      } else {
        const int64_t p = it - lv.begin();
        lv.erase(it);
        std::vector<int64_t> perm;
        for (int64_t d = 0; d < x.dim(); ++d)
          if (d != p) perm.push_back(d);
        perm.insert(perm.begin() + (nl - 1) + out_dim, p);
        r = fe::permute(x, perm);
      }
      if (!lv.empty()) batched_[&n] = lv;
      return r;
    }
    throw UnknownOpError(detail::cat("run: ", n.callable()->target, " cannot be executed (node '", n.name(), "')"));
  }

  /// An op with batched operands. Pointwise ops run on the physical tensors, each operand's
  /// levels and per-example dims aligned (size 1 where absent); new_* factories and metadata
  /// asserts do not depend on the batch. Anything else has no batching rule here.
  std::optional<Value> call_batched(const Node& n, std::vector<IValue>& args) {
    Levels all;
    for (const NodeArg& a : n.args())
      if (auto* p = std::get_if<Node*>(&a); p && *p)
        if (const Levels* l = levels_of(*p)) all.insert(all.end(), l->begin(), l->end());
    if (all.empty()) return std::nullopt;
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    const OpDef& op = *n.target();
    const std::string& name = op.schema.name;
    if (name == "_assert_tensor_metadata") return Value(std::monostate{});  // dtype/device/layout only
    if (name.starts_with("new_")) {
      std::vector<Tensor> outs = dispatch(op, std::move(args), n.loc.value_or(SrcLocArg::current()));
      return Value(outs.at(0));
    }
    static const std::unordered_set<std::string_view> pointwise = {
        "add", "sub", "rsub", "mul", "div", "eq", "ne", "lt", "le", "gt", "ge", "__and__", "__or__", "__xor__",
        "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "logical_and", "logical_or", "logical_xor",
        "logical_not", "where", "to", "_to_copy", "neg", "abs", "clone", "minimum", "maximum", "remainder",
        "floor_divide", "pow", "masked_fill", "detach", "alias"};
    FE_CHECK(pointwise.count(name), UnknownOpError, "run: ", op.qualified, " inside functorch vmap (node '", n.name(),
             "'): no batching rule yet");
    int64_t rank = 0;  // the largest per-example rank
    for (size_t i = 0; i < args.size(); ++i)
      if (auto* t = std::get_if<Tensor>(&args[i]); t && t->defined()) {
        const Node* src = i < n.args().size() && std::holds_alternative<Node*>(n.args()[i]) ? std::get<Node*>(n.args()[i]) : nullptr;
        const Levels* l = src ? levels_of(src) : nullptr;
        rank = std::max<int64_t>(rank, t->dim() - (l ? static_cast<int64_t>(l->size()) : 0));
      }
    for (size_t i = 0; i < args.size(); ++i) {
      auto* t = std::get_if<Tensor>(&args[i]);
      if (!t || !t->defined()) continue;
      const Node* src = i < n.args().size() && std::holds_alternative<Node*>(n.args()[i]) ? std::get<Node*>(n.args()[i]) : nullptr;
      const Levels* l = src ? levels_of(src) : nullptr;
      Tensor x = *t;
      const int64_t own = l ? static_cast<int64_t>(l->size()) : 0;
      for (int64_t k = x.dim() - own; k < rank; ++k) x = fe::unsqueeze(x, own);  // per-example rank
      for (size_t k = 0; k < all.size(); ++k)  // a size-1 dim for each level it lacks
        if (!l || std::find(l->begin(), l->end(), all[k]) == l->end()) x = fe::unsqueeze(x, static_cast<int64_t>(k));
      *t = x;
    }
    std::vector<Tensor> outs = dispatch(op, std::move(args), n.loc.value_or(SrcLocArg::current()));
    FE_CHECK(outs.size() == 1, UnknownOpError, "run: ", op.qualified, " inside functorch vmap returns ", outs.size(),
             " tensors");
    batched_[&n] = all;
    return Value(outs[0]);
  }

  const ExportedProgram& ep_;
  std::map<std::string, int64_t, std::less<>> symbols_;
  std::unordered_map<const Node*, Levels> batched_;  ///< vmap levels of batched values
  std::optional<DType> autocast_;  ///< inside an enabled wrap_with_autocast region: its dtype
};

}  // namespace

std::vector<Tensor> run(const ExportedProgram& ep, const std::vector<Tensor>& inputs) {
  FE_CHECK(!FakeTensorMode::active(), UserError,
           "run: called under FakeTensorMode; run computes real values, leave the FakeTensorMode scope first");
  check_inputs(ep, inputs);
  TraceScope no_trace(nullptr);  // the run is not part of any trace in progress
  return Runner(ep).run(inputs);
}

std::vector<Tensor> ExportedProgram::run(const std::vector<Tensor>& inputs) const { return fe::run(*this, inputs); }

}  // namespace fe
