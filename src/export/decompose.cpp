// run_decompositions (export/decompose.h): the program's graph is interpreted node by node on fake
// tensors under the export tracer, with a DecomposeScope installed, so every call of a listed op
// runs its decomposition and the tracer records what that calls (PyTorch retraces ep.module() the
// same way: make_fx under the decomposition table). Each recorded node inherits the metadata of
// the node being interpreted.
#include "fakeexport/export/decompose.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <set>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <variant>

#include "export/decompose_asserts.h"
#include "export/decompose_vmap.h"
#include "export/retrace_inputs.h"
#include "export/dynamic_shapes.h"
#include "export/functional_names.h"
#include "ops/fresh_strides.h"
#include "ops/meta_util.h"
#include "export/functionalize.h"
#include "export/guards_fn_trace.h"
#include "export/tracer.h"
#include "fakeexport/export/check.h"
#include "fakeexport/export/passes.h"
#include "fakeexport/ops/unbacked.h"
#include "ops/sdp_choice.h"

namespace fe {
namespace {

using detail::FRef;
namespace vmap_retrace = detail::vmap_retrace;
/// A symbolic comparison's retraced node (`ge = u0 >= 0`): a SymBool, which runtime assertions and
/// cond's predicate read by reference.
struct SymBoolNode {
  Node* node;
};
/// A node's value during the retrace: a (functional) tensor, a tuple of them, a (symbolic) int, a
/// symbolic comparison, or nothing.
using Value = std::variant<std::monostate, FRef, std::vector<FRef>, SymInt, SymBoolNode>;

/// What the retraced root graph returns: inputs an in-place op wrote to (by position among the
/// retraced inputs; their final values), then the graph's own outputs.
struct RetracedOutputs {
  std::vector<std::pair<size_t, Node*>> mutated_inputs;
  std::vector<Node*> outputs;
};

/// A fake tensor with metadata `m`, produced by `n` in `tracer`'s graph, as a fresh functional value.
FRef traced_value(detail::Tracer& tracer, const TensorMeta& m, Node* n) {
  auto impl = std::make_shared<TensorImpl>();
  impl->meta = m;
  impl->fake = true;
  Tensor t(std::move(impl));
  tracer.bind(t, n);
  return detail::functional_fresh(t);
}

/// The subgraph `name` of the innermost scope holding one; ValueError when none does.
const Graph& subgraph_named(const std::vector<const Graph*>& scopes, const std::string& name) {
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it)
    for (const auto& [n, g] : (*it)->subgraphs())
      if (n == name) return *g;
  throw ValueError(detail::cat("decompose: no subgraph '", name, "' in the program"));
}

/// `m` with a SymNode of its own for each symbolic stride: an input PyTorch's retrace fakes has
/// one (a stride equal to a size is still another object), which it reads from the input
/// (`sym_stride(arg26_1, 0)`) the first time it is needed, not where the size was read.
TensorMeta with_own_strides(TensorMeta m) {
  for (SymInt& st : m.strides)
    if (st.is_symbolic() && !st.maybe_int()) st = st.node()->env->make(st.node()->expr, st.hint());
  return m;
}

class Retracer {
 public:
  Retracer(const ExportedProgram& ep, detail::Tracer& tracer, Graph& g) : ep_(ep), tracer_(&tracer), g_(&g) {}

  /// Placeholders first (outside the trace scope, as export binds its inputs), then the body.
  /// Placeholders in `order` (indices into the root graph's placeholders).
  void placeholders(const std::vector<size_t>& order) {
    const std::vector<Node*> all = ep_.graph.placeholders();
    const bool specs = all.size() == ep_.signature.inputs.size();
    for (size_t i : order) {
      Node* p = all[i];
      // placeholder_naming_pass: parameters and buffers are named after their targets (a strict
      // program's `b_static_cache_layers_0_keys` becomes `b_key_cache_0`).
      std::string name = p->name();
      if (specs) {
        const InputSpec& s = ep_.signature.inputs[i];
        if (s.kind == InputKind::Parameter) name = "p_" + detail::placeholder_name(s.target);
        if (s.kind == InputKind::Buffer) name = "b_" + detail::placeholder_name(s.target);
      }
      Node* n = g_->placeholder(name, p->val.empty() ? TensorMeta{} : p->val[0]);
      n->constant = p->constant;
      n->sym_val = p->sym_val;
      if (p->val.empty()) {
        ++skipped_inputs_;
        n->val.clear();
        if (p->sym_val) vals_[p] = *p->sym_val;
        continue;
      }
      FRef f = traced_value(*tracer_, with_own_strides(p->val[0]), n);
      inputs_.emplace_back(inputs_.size() + skipped_inputs_, f);
      vals_[p] = std::move(f);
    }
  }

  /// The root graph retraced. Like aot_export, inputs that were written to are brought up to date
  /// first (in input order), then the outputs.
  RetracedOutputs body(DecomposeReport& report) {
    RetracedOutputs r;
    const std::vector<Value> values = run_graph(ep_.graph, {&ep_.graph}, report);
    for (auto& [index, f] : inputs_)
      if (detail::functional_was_mutated(*f))
        r.mutated_inputs.emplace_back(index, tracer_->node_of(detail::functional_sync(*f)));
    for (const Value& v : values) {
      if (const SymInt* i = std::get_if<SymInt>(&v); i && i->is_symbolic()) {
        r.outputs.push_back(tracer_->sym_node(*i));  // a size returned as a value (`x.shape[1] + 1`)
        continue;
      }
      const FRef* t = std::get_if<FRef>(&v);
      FE_CHECK(t, UnknownOpError, "decompose: an output that is neither a tensor nor a symbolic int is not retraced yet");
      r.outputs.push_back(tracer_->node_of(detail::functional_sync(**t)));
    }
    return r;
  }

 private:
  /// Interprets `g` (its placeholders already bound); returns its output values.
  /// A subgraph inlined by retracing: PyTorch's make_fx calls the subgraph's GraphModule, so each
  /// node's stack trace is its line of that module's generated code, under a custom annotation.
  struct Inlined {
    std::unordered_map<const Node*, std::pair<int, std::string>> lines;
    const char* custom = nullptr;  ///< meta["custom"] as JSON, or null
  };

  std::vector<Value> run_graph(const Graph& g, std::vector<const Graph*> scopes, DecomposeReport& report,
                               const Inlined* inlined = nullptr) {
    std::vector<Value> outs;
    std::vector<std::pair<std::string, std::string>> meta;
    for (const auto& up : g.nodes()) {
      const Node& n = *up;
      tracer_->provenance = &n;
      tracer_->provenance_trace.reset();
      tracer_->provenance_meta = nullptr;
      if (inlined) {
        if (auto it = inlined->lines.find(&n); it != inlined->lines.end())
          tracer_->provenance_trace = detail::cat("File \"<eval_with_key>.0\", line ", it->second.first,
                                                 ", in forward\n    ", it->second.second, "\n");
        meta = n.serialized_meta;
        if (inlined->custom) meta.emplace_back("custom", inlined->custom);
        tracer_->provenance_meta = &meta;
      }
      try {
        switch (n.op()) {
          case NodeOp::Placeholder:
          case NodeOp::GetAttr: break;
          case NodeOp::CallFunction: vals_[&n] = call(n, report); break;
          case NodeOp::GetItem: vals_[&n] = getitem(n); break;
          case NodeOp::SymOp: vals_[&n] = sym_op(n); break;
          case NodeOp::CallOther: vals_[&n] = call_other(n, scopes, report); break;
          case NodeOp::Output:
            for (const NodeArg& a : n.args())
              for_each_node(a, [&](Node* o) { outs.push_back(value_of(o)); });
            break;
        }
      } catch (const Error& e) {
        tracer_->provenance = nullptr;
        if (std::string_view(e.what()).starts_with("decompose: ")) throw;
        rethrow_with_prefix(e, detail::cat("decompose: while retracing node '", n.name(), "' (",
                                           n.target() ? n.target()->qualified : std::string("?"), "): "));
      }
    }
    tracer_->provenance = nullptr;
    tracer_->provenance_trace.reset();
    tracer_->provenance_meta = nullptr;
    return outs;
  }

  /// Higher-order ops PyTorch's retrace inlines: their subgraph's nodes join this graph.
  Value call_other(const Node& n, std::vector<const Graph*> scopes, DecomposeReport& report) {
    const Callable& c = *n.callable();
    size_t body = 0, first_operand = 0;
    switch (c.kind) {
      case CallableKind::WrapWithSetGradEnabled: body = 1, first_operand = 2; break;  // (enabled, body, *operands)
      case CallableKind::InvokeSubgraph: body = 0, first_operand = 2; break;          // (body, identifier, *operands)
      case CallableKind::Cond:
      case CallableKind::WhileLoop:
      case CallableKind::Scan:
      case CallableKind::MapImpl: return retrace_hop(n, std::move(scopes), report);
      case CallableKind::WithEffects: return retrace_effects(n);
      case CallableKind::VmapNesting:
      case CallableKind::AddBatchDim:
      case CallableKind::RemoveBatchDim: return vmap_call(n);
      default:
        throw UnknownOpError(detail::cat("decompose: node '", n.name(), "' calls ", c.target,
                                         ", which run_decompositions does not retrace yet"));
    }
    const Node* attr = std::get<Node*>(n.args().at(body));
    const Graph* sub = &subgraph_named(scopes, attr->attr());
    const std::vector<Node*> phs = sub->placeholders();
    std::vector<Value> operands;
    for (size_t i = first_operand; i < n.args().size(); ++i) {
      const NodeArg& a = n.args()[i];
      if (auto* p = std::get_if<Node*>(&a)) operands.push_back(value_of(*p));
      else if (auto* l = std::get_if<std::vector<Node*>>(&a))
        for (const Node* x : *l) operands.push_back(value_of(x));
      else if (auto* si = std::get_if<SymInt>(&a)) operands.push_back(int_of(*si));
    }
    FE_CHECK(operands.size() == phs.size(), ValueError, "decompose: node '", n.name(), "' passes ", operands.size(),
             " operands to subgraph '", attr->attr(), "', which takes ", phs.size());
    for (size_t i = 0; i < phs.size(); ++i) vals_[phs[i]] = operands[i];
    scopes.push_back(sub);
    Inlined inl{python_code_lines(*sub)};
    // PyTorch runs the set_grad_enabled body through a dynamo-disabled wrapper, which annotates.
    if (c.kind == CallableKind::WrapWithSetGradEnabled)
      inl.custom = R"({"_torchdynamo_disable": true, "_torchdynamo_disable_recursive": true, )"
                   R"("_torchdynamo_disable_method": "wrapper"})";
    std::vector<Value> outs = run_graph(*sub, scopes, report, &inl);
    tracer_->provenance = &n;
    std::vector<FRef> ts;
    for (const Value& v : outs) {
      const FRef* t = std::get_if<FRef>(&v);
      FE_CHECK(t, UnknownOpError, "decompose: subgraph '", attr->attr(), "' returns a non-tensor");
      ts.push_back(*t);
    }
    if (n.multi_output()) return ts;
    if (ts.empty()) return std::monostate{};  // a region whose results nothing reads (`return ()`)
    FE_CHECK(ts.size() == 1, ValueError, "decompose: node '", n.name(), "' returns one value, its subgraph ", ts.size());
    return ts[0];
  }

  /// Control flow PyTorch's retrace keeps as a higher-order call (cond, while_loop, scan, map):
  /// each subgraph is retraced, decomposed, into a subgraph of the same name and placeholders; the
  /// op is called again on the retraced operands (brought up to date first) and its results are
  /// read through getitem nodes as before.
  Value retrace_hop(const Node& n, std::vector<const Graph*> scopes, DecomposeReport& report) {
    const std::vector<Node*> no_nodes;
    std::vector<NodeArg> args;
    std::vector<std::pair<size_t, const Graph*>> subgraphs;
    for (size_t i = 0; i < n.args().size(); ++i) {
      const NodeArg& a = n.args()[i];
      if (auto* p = std::get_if<Node*>(&a); p && *p && (*p)->op() == NodeOp::GetAttr) {
        subgraphs.emplace_back(i, &subgraph_named(scopes, (*p)->attr()));
        args.emplace_back(static_cast<Node*>(nullptr));
        continue;
      }
      if (auto* p = std::get_if<Node*>(&a); p && *p)
        if (auto* b = std::get_if<SymBoolNode>(&value_of(*p))) {  // cond's predicate `gt = s77 > 2`
          args.emplace_back(b->node);
          continue;
        }
      args.push_back(graph_arg(a));
    }
    std::vector<std::string> names;
    for (auto& [i, sub] : subgraphs) names.push_back(retrace_subgraph(*std::get<Node*>(n.args()[i]), *sub, scopes, report));
    for (size_t k = 0; k < subgraphs.size(); ++k) {
      Node* attr = g_->get_attr(names[k]);
      tracer_->stamp_node(attr);
      args[subgraphs[k].first] = attr;
    }
    uint32_t tuples = tuple_mask(n);
    // make_fx records scan's additional inputs as the tuple it passes.
    if (n.callable()->kind == CallableKind::Scan && n.args().size() > 3) tuples |= 1u << 3;
    Node* hop = g_->call_other(*n.callable(), std::move(args), n.kwarg_names(), tuples, n.multi_output(), n.val);
    tracer_->stamp_node(hop);
    if (!n.multi_output()) {
      FE_CHECK(n.val.size() == 1, UnknownOpError, "decompose: node '", n.name(), "' returns no single tensor");
      return traced_value(*tracer_, n.val[0], hop);
    }
    std::vector<FRef> outs;
    for (size_t k = 0; k < n.val.size(); ++k) {
      Node* gi = g_->getitem(hop, static_cast<int64_t>(k));
      tracer_->stamp_node(gi);
      outs.push_back(traced_value(*tracer_, n.val[k], gi));
      // FunctionalTensorMode wraps each result, which the op's fake implementation made afresh
      // (offset 0; a loaded while_loop's results record offsets such as `u0 - 1`).
      TensorMeta fresh = n.val[k];
      fresh.storage_offset = 0;
      detail::take_storage_nbytes_names(*g_, fresh);
    }
    return outs;
  }

  /// A retraced argument of a higher-order call: tensors as their nodes, symbolic sizes as sym nodes.
  NodeArg graph_arg(const NodeArg& a) {
    NodeArg mapped = map_tensors<Node*>(arg_value(a), [&](const Tensor& t) { return tracer_->node_of(t); });
    tracer_->symbolic_operands(mapped);
    return mapped;
  }
  /// Which of `n`'s arguments (the first 32) were recorded as tuples.
  static uint32_t tuple_mask(const Node& n) {
    uint32_t tuples = 0;
    for (size_t i = 0; i < n.args().size() && i < 32; ++i)
      if (n.arg_is_tuple(i)) tuples |= 1u << i;
    return tuples;
  }

  /// with_effects(token, op, *args): the effectful call stays as it is (its op is not decomposed,
  /// as PyTorch's retrace keeps it); the new token and any tensors the op returns are read through
  /// getitems, and a None result gets none.
  Value retrace_effects(const Node& n) {
    std::vector<NodeArg> args;
    for (const NodeArg& a : n.args()) args.push_back(graph_arg(a));
    Node* call = g_->call_other(*n.callable(), std::move(args), n.kwarg_names(), tuple_mask(n), n.multi_output(), n.val);
    tracer_->stamp_node(call);
    FE_CHECK(n.multi_output() && !n.val.empty(), UnknownOpError, "decompose: with_effects node '", n.name(),
             "' returns no token");
    std::vector<FRef> outs(n.val.size());
    for (size_t k = 0; k < n.val.size(); ++k) {
      const int read = reads_element(n, k);
      if (read == 0) continue;  // a result nothing reads
      Node* gi = g_->getitem(call, static_cast<int64_t>(k));
      tracer_->stamp_node(gi);
      if (read < 0) {  // None: make_fx reads it too (taking its name), then it is dead code
        gi->val.clear();
        continue;
      }
      outs[k] = traced_value(*tracer_, n.val[k], gi);
    }
    return outs;
  }
  /// How the loaded program reads element k of `n`: 1 a tensor, -1 None (a getitem without a
  /// value), 0 not at all.
  static int reads_element(const Node& n, size_t k) {
    for (const Node* u : n.users())
      if (u->op() == NodeOp::GetItem && u->index() == static_cast<int64_t>(k)) return u->val.empty() ? -1 : 1;
    return 0;
  }

  /// `sub` (read by `attr`) retraced into a new subgraph of the graph being written, by a child
  /// tracer; returns its name.
  std::string retrace_subgraph(const Node& attr, const Graph& sub, std::vector<const Graph*> scopes,
                               DecomposeReport& report) {
    Graph& out = g_->add_subgraph(attr.attr());
    out.single_return = sub.single_return;
    detail::Tracer child(out, {}, shape_env_, tracer_);
    child.retracing = true;
    for (Node* p : sub.placeholders()) {
      FE_CHECK(!p->val.empty(), UnknownOpError, "decompose: subgraph '", attr.attr(), "' takes a non-tensor input '",
               p->name(), "', which is not retraced yet");
      Node* q = out.placeholder(p->name(), p->val[0]);
      vals_[p] = traced_value(child, p->val[0], q);
    }
    // The subgraph's inputs are wrapped as FunctionalTensors inside the trace: each symbolic size
    // is read (a sym_size node) as the storage size is computed.
    for (Node* p : sub.placeholders()) detail::take_wrapped_input_names(out, p->val[0]);
    detail::Tracer* saved_tracer = tracer_;
    Graph* saved_graph = g_;
    struct Restore {
      Retracer& r;
      detail::Tracer* t;
      Graph* g;
      ~Restore() {
        r.tracer_ = t, r.g_ = g;
        if (r.shape_env_) r.shape_env_->set_tracer(t);
      }
    } restore{*this, saved_tracer, saved_graph};
    tracer_ = &child, g_ = &out;
    if (shape_env_) shape_env_->set_tracer(&child);
    std::vector<Node*> outs;
    {
      TraceScope scope(&child);
      scopes.push_back(&sub);
      for (const Value& v : run_graph(sub, scopes, report)) {
        const FRef* f = std::get_if<FRef>(&v);
        FE_CHECK(f, UnknownOpError, "decompose: subgraph '", attr.attr(), "' returns a non-tensor");
        outs.push_back(child.node_of(detail::functional_sync(**f)));
      }
    }
    out.output(outs);
    return attr.attr();
  }

  const Value& value_of(const Node* n) const {
    auto it = vals_.find(n);
    FE_INTERNAL_ASSERT(it != vals_.end(), "decompose: node '", n->name(), "' used before it was computed");
    return it->second;
  }
  const FRef& ref_of(const Node* n) const {
    const Value& v = value_of(n);
    const FRef* t = std::get_if<FRef>(&v);
    FE_INTERNAL_ASSERT(t, "decompose: node '", n->name(), "' is not a tensor");
    return *t;
  }
  /// A tensor operand, brought up to date as every op does with its inputs (functionalization);
  /// replayed views carry the stack trace of the node whose stale value they replace.
  Tensor tensor_of(const Node* n) const {
    if (!n) return Tensor();  // None inside `Tensor?[]`
    detail::FunctionalTensor& f = *ref_of(n);
    struct Replay {
      detail::Tracer& t;
      const Node* saved;
      bool syncing;
      ~Replay() { t.replay = saved, t.syncing = syncing; }
    } replay{*tracer_, tracer_->replay, tracer_->syncing};
    tracer_->replay = tracer_->traced_node(f.value);
    tracer_->syncing = true;
    return detail::functional_sync(f);
  }
  /// The retraced value of a (possibly symbolic) int argument.
  SymInt int_of(const SymInt& s) const {
    if (Node* n = graph_node_of(s)) {
      const Value& v = value_of(n);
      if (const SymInt* i = std::get_if<SymInt>(&v)) return *i;
    }
    return s;
  }

  IValue arg_value(const NodeArg& a) const {
    if (auto* n = std::get_if<Node*>(&a)) {
      const Value& v = value_of(*n);
      if (auto* i = std::get_if<SymInt>(&v)) return *i;
      FE_CHECK(!std::holds_alternative<SymBoolNode>(v), UnknownOpError, "decompose: the symbolic comparison '",
               (*n)->name(), "' as an operand of anything but _assert_scalar or cond is not retraced yet");
      return tensor_of(*n);
    }
    if (auto* l = std::get_if<std::vector<Node*>>(&a)) {
      std::vector<Tensor> ts;
      ts.reserve(l->size());
      for (const Node* n : *l) ts.push_back(tensor_of(n));
      return ts;
    }
    if (auto* s = std::get_if<SymInt>(&a)) return int_of(*s);
    if (auto* l = std::get_if<std::vector<SymInt>>(&a)) {
      std::vector<SymInt> out;
      out.reserve(l->size());
      for (const SymInt& s : *l) out.push_back(int_of(s));
      return out;
    }
    return map_tensors<Tensor>(a, [](Node*) { return Tensor(); });
  }

  Value call(const Node& n, DecomposeReport& report) {
    const OpDef& op = *n.target();
    static const OpDef& assert_scalar = registry().get("aten::_assert_scalar");
    if (&op == &assert_scalar) return runtime_assert(n);
    std::vector<IValue> args;
    args.reserve(n.args().size());
    // scaled_dot_product_attention's CPU lowering makes its boolean mask additive before the kernel
    // it lowers to reads q, k and v: their replayed views (a written cache) come after that `where`.
    static const OpDef& sdpa = registry().get("aten::scaled_dot_product_attention");
    std::optional<Tensor> converted_mask;
    if (&op == &sdpa && table_contains(op) && !n.args().empty())
      if (const auto* q = std::get_if<Node*>(&n.args()[0]); q && *q && ref_of(*q)->value.device().type() == DeviceType::CPU)
        level_.numel_compared(ref_of(*q)->value);
    if (&op == &sdpa && table_contains(op) && n.args().size() == 8) {
      for (size_t i = 0; i < n.args().size(); ++i) {
        const auto* p = std::get_if<Node*>(&n.args()[i]);
        args.push_back(i < 3 && p && *p ? IValue(ref_of(*p)->value) : arg_value(n.args()[i]));  // metadata only for q, k, v
      }
      FunctionalLevelScope functional(&level_);  // its ops' outputs are wrapped, as the lowering's
      converted_mask = ops::sdpa_converted_mask(args, SrcLocArg{});
      args.clear();
    }
    for (const NodeArg& a : n.args()) args.push_back(arg_value(a));
    if (converted_mask) args[3] = *converted_mask;
    // sym_size.int and friends: the size itself; the tracer makes a node for it where it is used.
    if (returns_int(op)) return dispatch_int(op, std::move(args));
    if (!levels_.empty()) {  // an operand is batched by a vmap being retraced
      std::vector<vmap_retrace::Levels> lv(n.args().size());
      bool batched = false;
      for (size_t i = 0; i < n.args().size(); ++i)
        if (auto* p = std::get_if<Node*>(&n.args()[i]); p && *p)
          if (auto it = levels_.find(*p); it != levels_.end()) lv[i] = it->second, batched = true;
      if (batched) return call_batched(n, op, std::move(args), std::move(lv));
    }
    if (reads_scalar(op)) return read_scalar(n, op, args, report);
    if (op.decomp && table_contains(op)) ++report.decomposed;
    if (const OpDef* f = functional_form(op, args)) {
      // Functionalization (always on in PyTorch's retrace): the out-of-place form runs, its result
      // becomes the new value of self, and the write reaches self's base and aliases lazily.
      // detach_ changes nothing but autograd state: it goes.
      const FRef& self = ref_of(std::get<Node*>(n.args()[0]));
      if (f != &op) {
        level_.mutation(op, args);
        // FunctionalTensorMode wraps what the in-place op returns, self, once C++ functionalization
        // has written it back and replayed its views: its storage size comes after that replay
        // (measured: `t[:, :, 0] += 3` names its `select` replay, then the wrap's `eq`, `sub`...),
        // not at the functional result.
        const bool cpp = unwrapped_result(op, args);
        Tensor result;
        {
          detail::FunctionalNames::DeferredStorage deferred(level_, *f);
          result = dispatch_functional(*f, std::move(args), cpp);
        }
        {
          const bool saved = std::exchange(tracer_->syncing, true);
          detail::functional_mutate(*self, result);
          tracer_->syncing = saved;
        }
        level_.wrapped_self(self->value);
      }
      return self;
    }
    const std::vector<IValue> inputs = args;
    // A size read from data takes the recorded symbol (`u0`), in the decomposition's ops too.
    UnbackedSizesScope unbacked{std::span<const TensorMeta>(n.val)};
    std::vector<Tensor> outs;
    {
      FunctionalLevelScope functional(&level_);
      outs = dispatch(op, std::move(args), SrcLocArg{});
    }
    if (outs.empty()) return std::monostate{};
    if (outs.size() == n.val.size())
      for (size_t k = 0; k < outs.size(); ++k) adopt_unbacked_sizes(outs[k], n.val[k]);
    std::vector<FRef> refs;
    refs.reserve(outs.size());
    for (size_t k = 0; k < outs.size(); ++k)
      refs.push_back(wrap(n, op, inputs, outs[k], n.multi_output() ? static_cast<int>(k) : -1));
    if (n.multi_output()) return refs;
    return refs[0];
  }

  // ---- functorch's vmap, recorded inline (decompose_vmap.h): batched values are their physical
  // tensors, with their levels in levels_.
  Value call_batched(const Node& n, const OpDef& op, std::vector<IValue> args, std::vector<vmap_retrace::Levels> lv) {
    const std::vector<IValue> inputs = args;
    vmap_retrace::Batched b = vmap_retrace::call(op, std::move(args), std::move(lv));
    if (b.dropped || b.outs.empty()) return std::monostate{};
    FE_CHECK(b.outs.size() == 1, UnknownOpError, "decompose: node '", n.name(), "' (", op.qualified,
             ") on a vmapped value returns several tensors, which is not retraced yet");
    if (!b.levels.empty()) levels_[&n] = b.levels;
    for (size_t i = 0; i < inputs.size(); ++i)  // a no-op `to` returns its input
      if (const Tensor* t = std::get_if<Tensor>(&inputs[i]); t && t->defined() && t->impl() == b.outs[0].impl())
        return ref_of(std::get<Node*>(n.args()[i]));
    return detail::functional_fresh(b.outs[0]);
  }

  /// _vmap_increment_nesting and friends leave nothing; _add_batch_dim makes its operand batched at
  /// a level, _remove_batch_dim unbatches it (or expands a value the level did not batch).
  Value vmap_call(const Node& n) {
    const CallableKind kind = n.callable()->kind;
    if (kind == CallableKind::VmapNesting) return std::monostate{};
    const auto int_at = [&](size_t i) -> SymInt {
      FE_CHECK(i < n.args().size(), ValueError, "decompose: node '", n.name(), "' lacks argument ", i);
      const IValue v = arg_value(n.args()[i]);
      const SymInt* s = std::get_if<SymInt>(&v);
      FE_CHECK(s, ValueError, "decompose: node '", n.name(), "': argument ", i, " is not an int");
      return *s;
    };
    FE_CHECK(!n.args().empty() && std::holds_alternative<Node*>(n.args()[0]), ValueError, "decompose: node '",
             n.name(), "' has no tensor operand");
    const Node* x = std::get<Node*>(n.args()[vmap_arg::kX]);
    auto it = levels_.find(x);
    vmap_retrace::Levels lv = it == levels_.end() ? vmap_retrace::Levels{} : it->second;
    if (kind == CallableKind::AddBatchDim) {
      const int64_t in_dim = int_at(vmap_arg::kAddInDim).expect_int(), level = int_at(vmap_arg::kAddLevel).expect_int();
      FE_CHECK(in_dim == 0 && (lv.empty() || lv.back() < level), UnknownOpError, "decompose: node '", n.name(),
               "': a vmap over dim ", in_dim, " (or inside a deeper level) is not retraced yet");
      lv.push_back(level);
      levels_[&n] = lv;
      return value_of(x);
    }
    {  // RemoveBatchDim
      const int64_t level = int_at(vmap_arg::kRemoveLevel).expect_int(), out_dim = int_at(vmap_arg::kRemoveOutDim).expect_int();
      FE_CHECK(out_dim == 0, UnknownOpError, "decompose: node '", n.name(), "': out_dim ", out_dim,
               " is not retraced yet");
      FE_CHECK(lv.empty() || lv.back() <= level, UnknownOpError, "decompose: node '", n.name(),
               "' leaves level ", level, " before a deeper one");
      if (!lv.empty() && lv.back() == level) {
        lv.pop_back();
        if (!lv.empty()) levels_[&n] = lv;
        return value_of(x);
      }
      Tensor t = vmap_retrace::expand_unbatched(tensor_of(x), lv, int_at(vmap_arg::kRemoveSize));
      if (!lv.empty()) levels_[&n] = lv;
      return detail::functional_fresh(t);
    }
  }

  /// A size computed from a value read from data (a slice to an item() end) is a fresh unbacked
  /// symbol in PyTorch, which its retrace maps back to the recorded one (u1): the output takes the
  /// recorded sizes and strides where those are what differ.
  void adopt_unbacked_sizes(const Tensor& out, const TensorMeta& recorded) const {
    TensorMeta& m = out.impl()->meta;
    if (m.sizes.size() != recorded.sizes.size()) return;
    bool differs = false;
    for (size_t d = 0; d < m.sizes.size(); ++d) {
      if (m.sizes[d].same_as(recorded.sizes[d])) continue;
      if (!sym::is_unbacked_symbol(recorded.sizes[d]) || !sym::has_unbacked(m.sizes[d])) return;
      differs = true;
    }
    if (!differs) return;
    m.sizes = recorded.sizes;
    m.strides = recorded.strides;
    if (Node* node = tracer_->traced_node(out)) {
      tracer_->bind(out, node);
      if (node->val.size() == 1) node->val[0] = m;
    }
  }
  static bool reads_scalar(const OpDef& op) {
    static const OpDef& item = registry().get("aten::item");
    static const OpDef& dense = registry().get("aten::_local_scalar_dense");
    return &op == &item || &op == &dense;
  }

  /// item() / _local_scalar_dense: on fake tensors the value is data, a fresh unbacked symbol; the
  /// one the program recorded (`u0`) keeps its name, as PyTorch's retrace maps it back
  /// (resolve_unbacked_bindings). item decomposes to the _local_scalar_dense it calls.
  Value read_scalar(const Node& n, const OpDef& op, const std::vector<IValue>& args, DecomposeReport& report) {
    FE_CHECK(n.sym_val && n.sym_val->is_symbolic(), UnknownOpError, "decompose: node '", n.name(),
             "' reads a tensor's value that is not a symbolic int, which is not retraced yet");
    static const OpDef& dense = registry().get("aten::_local_scalar_dense");
    const OpDef* recorded = &op;
    if (&op != &dense && table_contains(op)) recorded = &dense, ++report.decomposed;
    const Tensor* x = std::get_if<Tensor>(&args.at(0));
    FE_CHECK(x && x->defined(), ValueError, "decompose: node '", n.name(), "' reads no tensor");
    tracer_->record_value(*recorded, {tracer_->node_of(*x)}, *n.sym_val);
    return *n.sym_val;
  }

  /// _assert_scalar(cond, msg): recorded on the retraced comparison, its message naming that node
  /// as insert_deferred_runtime_asserts names it ("... on node 'ge_2'").
  Value runtime_assert(const Node& n) {
    FE_CHECK(n.args().size() == 2, ValueError, "decompose: _assert_scalar node '", n.name(), "' takes 2 arguments, not ",
             n.args().size());
    NodeArg cond = n.args()[0];
    std::string message = std::holds_alternative<std::string>(n.args()[1]) ? std::get<std::string>(n.args()[1]) : "";
    if (auto* p = std::get_if<Node*>(&cond)) {
      const Value& v = value_of(*p);
      if (auto* b = std::get_if<SymBoolNode>(&v)) {
        const std::string tail = "on node '" + (*p)->name() + "'";
        if (message.ends_with(tail)) message.replace(message.size() - tail.size(), tail.size(), "on node '" + b->node->name() + "'");
        cond = b->node;
      } else if (auto* i = std::get_if<SymInt>(&v)) {
        cond = int_of(*i);
      } else {
        throw UnknownOpError(detail::cat("decompose: _assert_scalar node '", n.name(), "' on a tensor is not retraced yet"));
      }
    }
    tracer_->record_value(*n.target(), {cond, std::move(message)},
                          std::nullopt, "_assert_scalar_default");
    return std::monostate{};
  }

  /// The out-of-place form of an in-place call, dispatched at the functionalization level, by
  /// the in-place op's C++ functionalization kernel: its result is that kernel's C++ wrapper, whose
  /// storage size nothing records (measured: `t[:, :, 0] += 3` leaves no names after its `add`).
  Tensor dispatch_functional(const OpDef& f, std::vector<IValue> args, bool cpp = false) {
    FunctionalLevelScope functional(&level_);
    std::optional<CppFunctionalizationScope> beneath;
    if (cpp) beneath.emplace();
    return dispatch(f, std::move(args), SrcLocArg{})[0];
  }
  /// In-place arithmetic with a number, whose functional result C++ functionalization computes on
  /// its FakeTensors (their numel read as `sym_numel`); every in-place op's result is wrapped only
  /// as the returned self (wrapped_self).
  static bool unwrapped_result(const OpDef& op, const std::vector<IValue>& args) {
    static const std::unordered_set<std::string_view> ops = {"aten::add_.Tensor", "aten::sub_.Tensor",
                                                            "aten::mul_.Tensor", "aten::div_.Tensor"};
    return ops.count(op.qualified) != 0 && args.size() > 1 && !std::holds_alternative<Tensor>(args[1]);
  }

  /// The handle of an op's output: its input's own handle when the op returned that tensor (a no-op
  /// `to`, `contiguous`), a view of input 0's when it aliases it, else a tensor of its own.
  FRef wrap(const Node& n, const OpDef& op, const std::vector<IValue>& inputs, const Tensor& out, int index) {
    for (size_t i = 0; i < inputs.size(); ++i)
      if (const Tensor* t = std::get_if<Tensor>(&inputs[i]); t && t->defined() && t->impl() == out.impl())
        return ref_of(std::get<Node*>(n.args()[i]));
    const std::shared_ptr<TensorImpl>& base = out.impl()->view_base;
    if (!base) return detail::functional_fresh(out);
    const auto root_of = [](const Tensor& t) { return t.impl()->view_base ? t.impl()->view_base.get() : t.impl(); };
    const Tensor* self = inputs.empty() ? nullptr : std::get_if<Tensor>(&inputs[0]);
    if (self && self->defined() && root_of(*self) == base.get())
      return detail::functional_view(ref_of(std::get<Node*>(n.args()[0])), op, inputs, index, out);
    for (const IValue& v : inputs)
      if (const Tensor* t = std::get_if<Tensor>(&v); t && t->defined() && root_of(*t) == base.get())
        return detail::functional_fresh(out);
    // A view of a tensor a decomposition at the functionalization level made (einsum's view,
    // permute and view of its bmm): functionalization wrapped each step, so a later write goes
    // back through them all.
    if (FRef chain = made_view_ref(out, base.get())) return chain;
    // A view of a tensor a decomposition beneath made (matmul's result viewed out of its bmm): the
    // functionalization beneath the decomposition saw that view, so a later write goes through it.
    // Only a reshaping view (the whole base, contiguous) is modelled; anything else is a tensor of
    // its own.
    const TensorMeta& m = out.meta();
    bool reshaping = false;
    {
      // Our own bookkeeping, not arithmetic PyTorch's trace records.
      ops::UntracedArithmetic untraced("decompose", m.sizes);
      reshaping = m.is_contiguous() && base->meta.is_contiguous() && m.storage_offset.maybe_int() == 0 &&
                  m.numel().same_as(base->meta.numel());
    }
    if (!reshaping) return detail::functional_fresh(out);
    FRef& intermediate = intermediates_[base.get()];
    if (!intermediate) intermediate = detail::functional_fresh(Tensor(base));
    static const OpDef& view = registry().get("aten::view");
    const std::vector<SymInt> sizes(out.sizes().begin(), out.sizes().end());
    return detail::functional_view(intermediate, view, {Tensor(base), sizes}, -1, out);
  }

  /// The handle of `t`, a view the functionalization level saw made, step by step, from `root`;
  /// null when its steps do not lead back to `root`.
  FRef made_view_ref(const Tensor& t, const TensorImpl* root) {
    if (t.impl() == root) {
      FRef& r = intermediates_[root];
      if (!r) r = detail::functional_fresh(t);
      return r;
    }
    const auto* made = level_.made_view(t.impl());
    if (!made) return nullptr;
    FRef parent = made_view_ref(made->parent, root);
    if (!parent) return nullptr;
    return detail::functional_view(parent, *made->step.op, made->step.args, made->step.out_index, t);
  }

  Value getitem(const Node& n) const {
    const Node* src = std::get<Node*>(n.args()[0]);
    const auto* ts = std::get_if<std::vector<FRef>>(&value_of(src));
    FE_INTERNAL_ASSERT(ts && n.index() >= 0 && static_cast<size_t>(n.index()) < ts->size(), "decompose: getitem '",
                       n.name(), "' of a value that is not a tuple long enough");
    return (*ts)[static_cast<size_t>(n.index())];
  }

  Value sym_op(const Node& n) const {
    FE_CHECK(n.args().size() == py_op_arity(n.py_op()), UnknownOpError, "decompose: Python operator node '", n.name(), "' (",
             py_op_name(n.py_op()), ") with ", n.args().size(), " operands is not retraced yet");
    auto operand = [&](const NodeArg& a) -> SymInt {
      if (auto* p = std::get_if<Node*>(&a)) {
        const Value& v = value_of(*p);
        if (auto* i = std::get_if<SymInt>(&v)) return *i;
        throw UnknownOpError(detail::cat("decompose: Python operator node '", n.name(), "' on a non-int operand"));
      }
      if (auto* s = std::get_if<SymInt>(&a)) return int_of(*s);
      throw UnknownOpError(detail::cat("decompose: Python operator node '", n.name(), "' on a non-int operand"));
    };
    if (n.py_op() == PyOp::Neg) return -operand(n.args()[0]);
    const SymInt a = operand(n.args()[0]), b = operand(n.args()[1]);
    switch (n.py_op()) {
      case PyOp::Add: return a + b;
      case PyOp::Sub: return a - b;
      case PyOp::Mul: return a * b;
      case PyOp::FloorDiv: return floordiv(a, b);
      case PyOp::Mod: return mod(a, b);
      case PyOp::SymMin: return sym_min(a, b);
      case PyOp::SymMax: return sym_max(a, b);
      case PyOp::Eq:
      case PyOp::Ne:
      case PyOp::Lt:
      case PyOp::Le:
      case PyOp::Gt:
      case PyOp::Ge: return SymBoolNode{tracer_->compare(n.py_op(), a, b)};
      default:
        throw UnknownOpError(detail::cat("decompose: Python operator node '", n.name(), "' (", py_op_name(n.py_op()),
                                         ") is not retraced yet"));
    }
  }

  bool table_contains(const OpDef& op) const { return table && table->count(&op); }

  /// The out-of-place op of an in-place call: `add_.Tensor` -> `add.Tensor`, `copy_` -> `copy`;
  /// `op` itself for detach_ (dropped); null when there is none (the call stays as it is).
  const OpDef* functional_form(const OpDef& op, const std::vector<IValue>& args) const {
    if (!op.inplace || args.empty()) return nullptr;
    const Tensor* self = std::get_if<Tensor>(&args[0]);
    if (!self || !self->defined()) return nullptr;
    if (op.schema.name == "detach_") return &op;
    return functional_variant(op);
  }

 public:
  const DecompTable* table = nullptr;

 private:
  const ExportedProgram& ep_;
  std::unordered_map<const Node*, vmap_retrace::Levels> levels_;  ///< vmap levels of batched values
  detail::Tracer* tracer_;  ///< the tracer of the graph being written (a child one in subgraphs)
  Graph* g_;
  std::unordered_map<const Node*, Value> vals_;
  /// Tensor inputs in the order they were bound, with their position among the retraced inputs.
  std::vector<std::pair<size_t, FRef>> inputs_;
  size_t skipped_inputs_ = 0;
  /// Handles of tensors made inside decompositions whose views the graph holds.
  std::unordered_map<const TensorImpl*, FRef> intermediates_;
  /// What FunctionalTensorMode's wrapping of each dispatched op records (names it takes).
  detail::FunctionalNames level_{g_, table, [this](const SymInt& v) { return tracer_->storage_read(v); }};

 public:
  sym::ShapeEnv* shape_env_ = nullptr;
};

size_t call_count(const Graph& g) {
  size_t k = 0;
  for (const auto& n : g.nodes()) k += n->op() == NodeOp::CallFunction || n->op() == NodeOp::CallOther;
  return k;
}

}  // namespace

ExportedProgram run_decompositions(const ExportedProgram& ep, const DecompTable& table, DecomposeReport* report) {
  ExportedProgram out;
  out.signature = ep.signature;
  out.state_dict = ep.state_dict;
  out.constants = ep.constants;
  out.range_constraints = ep.range_constraints;
  out.shape_env = ep.shape_env;
  out.module_call_graph = ep.module_call_graph;
  out.dialect = "ATEN";  // run_decompositions' program is verified as the ATEN dialect
  DecomposeReport local;
  DecomposeReport& r = report ? *report : local;
  r.nodes_before = call_count(ep.graph);
  // PyTorch retraces in the ShapeEnv of the export, holding every runtime assertion it made over
  // data (`X - 1 >= 0` for an arange's length X): a slice that the export sized Max(0, X - Min(1, X))
  // is X - 1 in the decomposition. Replaying the metas of a loaded program learns those facts.
  bool over_data = false;
  for (const auto& [name, _] : ep.range_constraints) over_data = over_data || sym::is_unbacked_name(name);
  if (over_data && ep.shape_env) (void)check_program(ep);

  detail::Tracer tracer(out.graph, {}, out.shape_env.get());
  tracer.retracing = true;
  Retracer retracer(ep, tracer, out.graph);
  retracer.shape_env_ = out.shape_env.get();
  retracer.table = &table;
  FakeTensorMode fake_mode;
  // PyTorch's retrace registers constants as buffers of their modules and lifts state in
  // named_buffers() order: module by module (pre-order), a module's own buffers before its
  // submodules'. Parameters and user inputs keep their places.
  const std::vector<size_t> order = detail::retrace_input_order(ep.signature.inputs);
  if (ep.graph.placeholders().size() == order.size()) {
    std::vector<InputSpec> inputs;
    for (size_t i : order) inputs.push_back(ep.signature.inputs[i]);
    out.signature.inputs = std::move(inputs);
    retracer.placeholders(order);
    const std::vector<Node*> renamed = out.graph.placeholders();
    for (size_t k = 0; k < renamed.size(); ++k) out.signature.inputs[k].name = renamed[k]->target_name();
  } else {
    std::vector<size_t> identity(ep.graph.placeholders().size());
    for (size_t i = 0; i < identity.size(); ++i) identity[i] = i;
    retracer.placeholders(identity);
  }
  // ep.module() calls its `_guards_fn` right after the placeholders. Its size reads are the
  // nodes the body reads those sizes from; a size whose SymNode another input already gave a
  // node is read again (PyTorch's inputs have a SymNode per dim): only the name is taken.
  {
    std::vector<detail::GuardInput> guard_inputs;
    const std::vector<Node*> phs = out.graph.placeholders();
    if (phs.size() == out.signature.inputs.size())
      for (size_t i = 0; i < phs.size(); ++i)
        if (out.signature.inputs[i].kind == InputKind::UserInput && phs[i]->val.size() == 1)
          guard_inputs.push_back({out.signature.inputs[i].name, &phs[i]->val[0]});
    detail::take_guards_fn_names(out.graph, guard_inputs, out.range_constraints, ep.guards_code, [&](const SymInt& s) {
      const size_t before = out.graph.size();
      (void)tracer.sym_node(s);
      if (out.graph.size() == before) (void)out.graph.unique_name("sym_size_int");
    });
  }
  RetracedOutputs retraced;
  {
    TraceScope scope(&tracer);
    DecomposeScope decompose(&table);
    ops::FreshIterStrides fresh_strides;
    if (out.shape_env) out.shape_env->set_tracer(&tracer);
    struct Uninstall {
      sym::ShapeEnv* env;
      ~Uninstall() {
        if (env) env->set_tracer(nullptr);
      }
    } uninstall{out.shape_env.get()};
    retraced = retracer.body(r);
  }
  detail::check_ranges_kept(out);
  std::vector<Node*>& outs = retraced.outputs;
  FE_CHECK(outs.size() == out.signature.outputs.size(), ValueError, "decompose: the graph returns ", outs.size(),
           " values but the signature lists ", out.signature.outputs.size(), " outputs");
  for (size_t k = 0; k < outs.size(); ++k) out.signature.outputs[k].name = outs[k]->name();
  std::vector<std::pair<size_t, std::string>> mutated;
  std::vector<Node*> all;
  for (const auto& [index, node] : retraced.mutated_inputs) {
    mutated.emplace_back(index, node->name());
    all.push_back(node);
  }
  out.signature.outputs = detail::retraced_output_specs(out.signature.inputs, mutated, out.signature.outputs);
  all.insert(all.end(), outs.begin(), outs.end());
  out.graph.output(all);
  // Like aot_export's retrace: pure nodes nothing uses are gone (asserts and mutations stay).
  DeadCodeElimination{.keep_names = true}.run(out.graph);
  if (out.shape_env && !out.shape_env->symbols().empty()) detail::fold_symbolic_nodes(out.graph, *out.shape_env, false, /*trace_from_user=*/true);
  detail::recreate_runtime_asserts(out.graph);
  r.nodes_after = call_count(out.graph);
  KeepFactsScope keep_facts;  // the retrace was made under every fact the replay learned
  verify(out);
  return out;
}

}  // namespace fe
