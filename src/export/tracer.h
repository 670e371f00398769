// The export tracer: records dispatched ops into a Graph (shared by export_program and
// run_decompositions' retrace).
#pragma once
#include <algorithm>
#include <atomic>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "export/block_replay.h"
#include "export/contiguity_trace.h"
#include "export/grad_regions.h"
#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/export/cond.h"
#include "fakeexport/export/exported_program.h"
#include "fakeexport/nn/module.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/annotation.h"

namespace fe::detail {

/// PyTorch's placeholder base name: the state_dict key (or constant FQN) lower-cased,
/// non-alphanumerics -> '_' (torch/_export/utils.py: `re.sub("[^a-zA-Z0-9]", "_", name.lower())`).
inline std::string placeholder_name(const std::string& dotted) {
  std::string s = dotted;
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) c = '_';
  }
  return s;
}

inline std::atomic<uint64_t> g_next_trace_id{1};

/// Records dispatched ops as call_function nodes; maps tensors to the nodes that produced them.
/// Symbolic ints get graph nodes lazily, as make_fx does: `sym_size.int(t, d)` for the first traced
/// tensor carrying a size, operator nodes for arithmetic and comparisons done in user code.
class Tracer : public TraceSink, public sym::SymTracer, public detail::CondTracer {
 public:
  Tracer(Graph& g, std::unordered_map<const nn::Module*, std::string> paths, sym::ShapeEnv* env,
         Tracer* parent = nullptr)
      : g_(g), id_(g_next_trace_id++), paths_(std::move(paths)), env_(env), parent_(parent) {}

  // cond: each branch traced by a child tracer into its own subgraph, then one cond node here.
  std::vector<Tensor> trace_cond(const Tensor& pred, const BranchFn& true_fn, const BranchFn& false_fn,
                                 const std::vector<Tensor>& operands, const SrcLocArg& loc) override {
    ++effects_;
    Node* pred_node = node_of(pred);
    std::vector<Node*> operand_nodes;
    for (const Tensor& t : operands) operand_nodes.push_back(node_of(t));
    auto trace_branch = [&](const char* kind, const BranchFn& fn, std::vector<TensorMeta>& metas) {
      Graph& sub = g_.add_subgraph(std::string(kind) + "_graph_" + std::to_string(cond_count_));
      Tracer child(sub, paths_, env_, this);
      std::vector<Tensor> ins;
      for (size_t i = 0; i < operands.size(); ++i) {
        Tensor in = fake_like(operands[i]);
        child.bind(in, sub.placeholder(operand_nodes[i]->name(), in.meta()));
        ins.push_back(in);
      }
      std::vector<Tensor> outs;
      {
        TraceScope scope(&child);
        if (env_) env_->set_tracer(&child);
        struct Restore {
          sym::ShapeEnv* env;
          Tracer* self;
          ~Restore() {
            if (env) env->set_tracer(self);
          }
        } restore{env_, this};
        outs = fn(ins);
      }
      std::vector<Node*> out_nodes;
      for (const Tensor& t : outs) {
        out_nodes.push_back(child.node_of(t));
        metas.push_back(t.meta());
      }
      sub.output(out_nodes);
      return std::string(kind) + "_graph_" + std::to_string(cond_count_);
    };
    std::vector<TensorMeta> tm, fm;
    const std::string tname = trace_branch("true", true_fn, tm);
    const std::string fname = trace_branch("false", false_fn, fm);
    ++cond_count_;
    detail::check_branch_outputs(tm, fm);
    Node* tg = g_.get_attr(tname);
    Node* fg = g_.get_attr(fname);
    Node* c = g_.cond(pred_node, tg, fg, operand_nodes, tm);
    std::vector<Tensor> results;
    for (Node* n : {tg, fg, c}) {
      n->loc = loc;
      n->module_stack = module_stack();
    }
    for (size_t k = 0; k < tm.size(); ++k) {
      Node* gi = g_.getitem(c, static_cast<int64_t>(k));
      gi->loc = loc;
      gi->module_stack = c->module_stack;
      auto impl = std::make_shared<TensorImpl>();
      impl->meta = tm[k];
      impl->fake = true;
      results.emplace_back(std::move(impl));
      bind(results.back(), gi);
    }
    return results;
  }

  // Guards asked while an op's meta runs name that op and its call site.
  void begin_op(const OpDef& op, const SrcLocArg& loc) override {
    if (env_) env_->set_context({op.qualified, &loc});
  }
  void end_op() override {
    if (env_) env_->set_context({});
  }

  void bind(const Tensor& t, Node* n) {
    t.impl()->trace_node = n;
    t.impl()->trace_id = id_;
    track_sizes(t.meta(), n);
  }

  Node* node_of(const Tensor& t) {
    if (!t.defined()) return nullptr;  // None in an optional-tensor list (index's indices)
    if (t.impl()->trace_id == id_) return static_cast<Node*>(t.impl()->trace_node);
    return lift_constant(t);
  }

  void record(const OpDef& op, std::span<const IValue> args, std::span<const Tensor> outs,
              const SrcLocArg& loc) override {
    std::vector<NodeArg> nargs;
    nargs.reserve(args.size());
    for (const IValue& a : args) {
      nargs.push_back(map_tensors<Node*>(a, [&](const Tensor& t) { return node_of(t); }));
      symbolic_args_to_nodes(nargs.back());
    }
    // Retracing records calls as make_fx does: the op's own name, arguments positional up to the
    // last non-default one, whatever its export form was (`_assert_tensor_metadata_default(x,
    // dtype=...)` becomes `_assert_tensor_metadata(x, None, None, dtype, ...)`).
    const bool natural = provenance && op.max_positional >= 0;
    // make_fx names a node after the op packet, a dunder one without its underscores (FX's
    // _target_to_str: `__and__` -> `and`, a keyword, so `and_1`).
    std::string_view base = provenance ? std::string_view(op.schema.name) : std::string_view(op.node_name);
    const bool dunder = base.size() > 4 && base.starts_with("__") && base.ends_with("__");
    if (dunder) base = base.substr(2, base.size() - 4);
    Node* n = g_.call(op, std::move(nargs), provenance || dunder ? base : std::string_view{});
    if (natural) {
      const size_t npos = positional_count(op.schema, n->args());
      n->arg_given.resize(n->args().size(), ArgGiven::Absent);
      for (size_t i = 0; i < n->args().size(); ++i) {
        const Argument& p = op.schema.arguments[i];
        if (i < npos) n->arg_given[i] = ArgGiven::Positional;
        else if (!p.default_value || !equals_constant(n->args()[i], *p.default_value)) n->arg_given[i] = ArgGiven::Keyword;
      }
    }
    if (retracing) own_strides(args, outs);
    n->val.reserve(outs.size());
    for (const Tensor& t : outs) n->val.push_back(t.meta());
    if (op.out_elems) n->out_elems = op.out_elems(args);
    stamp(n, loc);
    if (n->multi_output()) {
      // Like make_fx: one getitem per element, each the producer of that output tensor.
      for (size_t k = 0; k < outs.size(); ++k) {
        Node* gi = g_.getitem(n, static_cast<int64_t>(k));
        stamp(gi, loc);
        bind(outs[k], gi);
      }
      return;
    }
    // A no-op `to` or an in-place op returns its input object: later uses of that tensor now refer
    // to this node (PyTorch prints `add_` as the producer of everything after `x.add_(1)`).
    for (const Tensor& t : outs) bind(t, n);
  }

  void begin_grad_mode(bool enabled) override {
    ++effects_;
    if (grad_depth_++ == 0) open_region_ = {g_.nodes().empty() ? nullptr : g_.nodes().back().get(), nullptr, enabled};
  }
  void end_grad_mode() override {
    if (--grad_depth_ != 0) return;
    open_region_.last = g_.nodes().empty() ? nullptr : g_.nodes().back().get();
    if (open_region_.last && open_region_.last != open_region_.before) grad_regions.push_back(open_region_);
  }
  void record_callable(std::string_view target, std::span<const IValue> args, std::span<const Tensor> outs) override {
    ++effects_;
    const Callable* c = find_callable(target);
    FE_INTERNAL_ASSERT(c, "record_callable: unknown callable");
    std::vector<NodeArg> nargs;
    nargs.reserve(args.size());
    for (const IValue& a : args) {
      nargs.push_back(map_tensors<Node*>(a, [&](const Tensor& t) { return node_of(t); }));
      symbolic_args_to_nodes(nargs.back());
    }
    std::vector<TensorMeta> vals;
    for (const Tensor& t : outs) vals.push_back(t.meta());
    Node* n = g_.call_other(*c, std::move(nargs), {}, 0, false, std::move(vals));
    stamp(n, SrcLocArg{});
    for (const Tensor& t : outs) bind(t, n);
  }
  bool depends_on(const Tensor& t, const Tensor& source) override {
    ++effects_;
    const Node* from = traced_node(t);
    const Node* to = traced_node(source);
    if (!from || !to) return false;
    std::vector<const Node*> todo{from};
    std::unordered_set<const Node*> seen{from};
    while (!todo.empty()) {
      const Node* n = todo.back();
      todo.pop_back();
      if (n == to) return true;
      auto visit = [&](const Node* m) {
        if (m && seen.insert(m).second) todo.push_back(m);
      };
      for (const NodeArg& a : n->args()) {
        if (const auto* m = std::get_if<Node*>(&a)) visit(*m);
        else if (const auto* ms = std::get_if<std::vector<Node*>>(&a))
          for (const Node* m : *ms) visit(m);
      }
    }
    return false;
  }

  // A repeated block (a decoder layer) is traced and recorded; once a block's record equals the
  // record of the block before it built and called alike, later such blocks are replayed from it.
  std::vector<Tensor> repeated_block(nn::Module& block, std::span<const Tensor> inputs, uint64_t key,
                                     const std::function<std::vector<Tensor>()>& run) override {
    // Only where a trace is a pure function of structure and input layouts: no strict capture's
    // renaming, no retrace's provenance, no enclosing region. A record is kept only if its block
    // created no symbol, guard or replacement (then the next block alike asks the same questions
    // and gets the answers already known).
    if (!replay_blocks || recording_block_ || strict_mode || retracing || provenance || parent_ || grad_depth_ ||
        subscript_depth_ || !env_)
      return run();
    std::optional<BlockCall> call = block_call(block, inputs);
    if (!call) return run();
    std::string signature = std::to_string(key);
    block.structure(signature);
    for (const Tensor& t : inputs) {
      signature += '|';
      if (!t.defined()) continue;
      const TensorMeta& m = t.meta();
      signature.append(m.annotation()).append(m.device == call->device ? "@block" : "@" + m.device.str());
      for (const SymInt& st : m.strides) signature.append(",").append(st.str());
    }
    BlockState& state = blocks_[std::move(signature)];
    if (state.verified) {
      if (stats) ++stats->blocks_replayed;
      std::vector<Tensor> results;
      std::vector<Node*> made = replay_block(g_, state.record, *call, state.last);
      for (uint32_t o : state.record.outputs) {
        Node* n = made[o];
        auto impl = std::make_shared<TensorImpl>();
        impl->meta = n->val[0];
        impl->fake = true;
        results.emplace_back(std::move(impl));
        bind(results.back(), n);
      }
      // A size the block made and its result carries is read from this block's node now, as a
      // trace reads a size from the first node that had it (the value object is the record's).
      for (const FreshSize& f : state.fresh_sizes) {
        const sym::SymNode* s = made[state.record.outputs[f.result]]->val[0].sizes[f.dim].node();
        s->size_of = made[f.node];
        s->size_dim = f.node_dim;
        s->proxy = nullptr;
      }
      state.last = std::move(made);
      return results;
    }
    if (stats) ++stats->blocks_traced;
    const size_t first = g_.size();
    const uint64_t effects = effects_, edits = g_.edits(), env_state = shape_env_state();
    std::vector<Graph::NameTaken> names;
    std::vector<Tensor> outs;
    {
      struct Stop {
        Tracer& t;
        ~Stop() {
          t.g_.name_journal = nullptr;
          t.recording_block_ = false;
        }
      } stop{*this};
      g_.name_journal = &names;
      recording_block_ = true;
      outs = run();
    }
    std::vector<Node*> results;
    bool clean = effects == effects_ && edits == g_.edits() && env_state == shape_env_state();
    std::vector<FreshSize> fresh_sizes;
    for (const Tensor& t : outs) {
      Node* n = t.defined() ? traced_node(t) : nullptr;
      clean = clean && n && n->val.size() == 1 && sizes_read(*n, results.size(), first, fresh_sizes);
      results.push_back(n);
    }
    std::optional<BlockRecord> rec;
    if (clean) rec = make_block_record(g_, first, std::move(*call), names, results, state.last);
    if (!rec) {
      state = {};
      return outs;
    }
    state.verified = state.recorded && same_block_record(state.record, *rec) && state.fresh_sizes == fresh_sizes;
    state.record = std::move(*rec);
    state.last = state.record.nodes;
    state.fresh_sizes = std::move(fresh_sizes);
    state.recorded = true;
    return outs;
  }
  /// ExportOptions::replay_repeated.
  bool replay_blocks = false;
  /// ExportOptions::stats.
  ExportStats* stats = nullptr;

  /// Regions traced under NoGradScope, for outline_grad_regions once the trace is done.
  std::vector<GradRegion> grad_regions;

  // torch.export(strict=True) (ExportOptions::strict).
  bool strict_mode = false;
  bool strict() const override { return strict_mode; }
  bool has_call_site() const override { return call_site_.has_value(); }
  void set_call_site(const SrcLocArg* site) override {
    call_site_ = site ? std::optional<SrcLocArg>(*site) : std::nullopt;
  }
  void begin_subscript() override { ++subscript_depth_; }
  void end_subscript() override { --subscript_depth_; }
  /// strict: the nodes recorded inside a SubscriptScope, in order.
  std::vector<Node*> subscripts;
  /// strict: dead nodes standing for ATen's checks until lift_as_dynamo has named the graph.
  std::vector<Node*> strict_checks;

  // User arithmetic on sizes is traced at once (FX names such nodes add, mul, ...; they usually
  // fold away later but keep their names taken).
  // An expression over values with no graph origin (a stride such as 16*s27 read from a loaded
  // tensor) is left untraced: it becomes a node only if an argument needs it (then proxy() says
  // where it failed).
  void on_binary(const SymInt& r) override {
    ++effects_;
    // Arithmetic on values already known to be constants (a head count inferred from a view whose
    // sizes were since equated) is Python int arithmetic in PyTorch: no node.
    const sym::SymNode* s = r.node();
    if (s && s->has_operands && known_constant(s->a) && known_constant(s->b)) return;
    if (traceable(r)) (void)proxy(r);
  }
  void on_compare(Rel rel, const SymInt& a, const SymInt& b) override {
    ++effects_;
    static constexpr PyOp ops[] = {PyOp::Eq, PyOp::Ne, PyOp::Lt, PyOp::Le, PyOp::Gt, PyOp::Ge};
    g_.sym_op(ops[static_cast<size_t>(rel)], {operand(a), operand(b)}, std::nullopt);
  }
  // Not under strict: TorchDynamo runs user code's size arithmetic symbolically, and AOT's trace of
  // its graph sees only the checks inside ATen calls (on_aten_check).
  void on_dropped(std::string_view base, std::span<const SymInt> operands) override {
    if (!strict_mode) on_aten_check(base, operands);
  }
  // A check's dead name is journaled and replayed; a node it makes for an operand stops the record.
  void on_aten_check(std::string_view base, std::span<const SymInt> operands) override {
    if (retracing || provenance) return;
    for (const SymInt& v : operands)
      if (!known_constant(v) && traceable(v)) (void)proxy(v);
    if (!strict_mode) {
      (void)g_.unique_name(base);
      return;
    }
    // strict: lift_as_dynamo names every node afresh, in order, as AOT's trace of TorchDynamo's graph
    // named them; until then a dead node holds the check's place. A check with fewer than two
    // operands reads the checks before it (applySelect's `and_`, a running product's next `mul`).
    std::vector<NodeArg> args;
    const size_t earlier = std::min(strict_checks.size(), 2 - std::min<size_t>(operands.size(), 2));
    for (size_t i = strict_checks.size() - earlier; i < strict_checks.size(); ++i) args.emplace_back(strict_checks[i]);
    for (const SymInt& v : operands) args.push_back(operand(v));
    Node* n = g_.sym_op(PyOp::Le, std::move(args), std::nullopt);
    g_.rename_fresh(n, base);
    strict_checks.push_back(n);
  }
  void on_contiguous(const void* tensor, std::span<const SymInt> sizes, std::span<const SymInt> strides) override {
    if (retracing || provenance || strict_mode) return;
    bool symbolic = false;
    std::string key;
    for (size_t d = 0; d < sizes.size(); ++d) {
      symbolic |= !known_constant(sizes[d]);
      key.append(sizes[d].str()).append(":").append(strides[d].str()).append(",");
    }
    if (!symbolic) return;
    // Whether c10 computes it again depends on FakeTensor's dispatch cache: a tensor made by a
    // cache hit has it already. Measured on stacks of identical layers (PyTorch 2.14, 2-5 layers of
    // Llama, Qwen2, BERT, Blenderbot, Mixtral, Gemma 3): a layout is checked the 1st and 3rd time
    // it is met, never after (the outputs' symbolic values differ after a hit, so the 3rd layer
    // misses once more); a view of a contiguous() copy (Phi-3, GPT-NeoX, DeepSeek: the reshape
    // after the copy) the 1st and 2nd time.
    // In a decoder layer with cross-attention, where the same layout is met twice per layer, only
    // the 1st time (T5, Blenderbot, GPT-2 in a vision encoder-decoder): the 3rd time is checked
    // only when the 2nd was the same role (the module path without its layer index) as the 1st.
    //
    // A later check needs new symbolic values: FakeTensor's cache key compares SymInts by value but
    // a hit's outputs are new SymNode objects, and only those (the fresh sequence length each
    // linear gives, as split_dim does) make the key miss again. Where the layout's symbols are the
    // very objects of its first meeting (Whisper's encoder: only the batch is symbolic, its seq
    // is fixed), every later meeting hits: checked once.
    const bool copy = views_a_copy(static_cast<const TensorImpl*>(tensor));
    if (copy) key.insert(0, "copy:");
    Layout& l = contiguity_seen_[std::move(key)];
    const int met = ++l.met;
    // From its 4th meeting on a layout is never checked again (the rules below): a block that
    // meets only such layouts does the same whenever it is repeated.
    if (met <= 3) ++effects_;
    const auto same_objects = [&] {
      for (size_t d = 0, k = 0; d < sizes.size(); ++d)
        if (!known_constant(sizes[d]) && (k >= l.first_nodes.size() || l.first_nodes[k++] != sizes[d].node())) return false;
      return true;
    };
    if (met == 1) {
      l.first_role = module_role();
      for (const SymInt& x : sizes)
        if (!known_constant(x)) l.first_nodes.push_back(x.node());
    }
    if (met == 2) l.same_role = module_role() == l.first_role;
    if (inputs_unified_) {
      // After the replacement the layouts are new to the cache: measured (Llama with an
      // attention_mask, 2 and 5 layers) checked in the first three layers, copies too.
      if (met > 3) return;
    } else {
      if (copy ? met > 2 : (met != 1 && !(met == 3 && l.same_role))) return;
      if (met > 1 && same_objects()) return;
    }
    // Sizes and strides already known to be constants are ints to c10's check.
    std::vector<SymInt> sz(sizes.begin(), sizes.end()), st(strides.begin(), strides.end());
    for (auto* v : {&sz, &st})
      for (SymInt& x : *v)
        if (x.is_symbolic() && x.maybe_int()) x = SymInt(*x.maybe_int());
    record_contiguity_check(*this, sz, st, strides_read_);
  }
  void on_bool_op(std::string_view base) override {
    ++effects_;
    (void)g_.unique_name(base);
  }
  void on_inputs_unified() override {
    ++effects_;
    if (!retracing && !provenance && !strict_mode) inputs_unified_ = true;
  }
  void on_numel_read(const void* tensor, const SymInt& value) override {
    if (retracing || provenance || strict_mode || known_constant(value)) return;
    const sym::SymNode* s = value.node();
    if (s->proxy_trace == id_ && s->proxy) return;
    // Only the first such read of a value: later layers' copies come from FakeTensor's cache with
    // the size first met on the reshape that made them (measured on Mixtral's second layer).
    if (!numel_reads_.insert(value.str()).second) return;
    ++effects_;
    Node* of = traced_node(static_cast<const TensorImpl*>(tensor));
    if (!of || of->val.size() != 1) return;
    // Where the inputs' sizes compute the value, the fold after the trace replaces this read by
    // that arithmetic (2*s70*s72: `2 * s70`, `* s72`); with seq = 8*_seq (16*s72*s9) it stays.
    static const OpDef& sym_numel = op("aten::sym_numel");
    Node* n = g_.call(sym_numel, {of}, "sym_numel_default");
    n->sym_val = value;
    s->proxy_trace = id_;
    s->proxy = n;
  }

  /// Whether `t` is (a view of) the result of a contiguous() copy recorded in this trace.
  bool views_a_copy(const TensorImpl* t) const {
    static const OpDef& contiguous = op("aten::contiguous");
    if (!t || t->trace_id != id_) return false;
    const Node* n = static_cast<const Node*>(t->trace_node);
    while (n && n->op() == NodeOp::CallFunction) {
      if (n->target() == &contiguous) return true;
      const std::string_view name = n->target()->schema.name;
      if (name != "view" && name != "reshape" && name != "_unsafe_view" && name != "transpose" && name != "alias")
        return false;
      n = n->inputs().empty() ? nullptr : n->inputs()[0];
    }
    return false;
  }

  /// Tensors the program reads but that are neither state nor inputs become lifted constants.
  struct Lifted {
    std::string target, node_name;
    Tensor value;
  };
  std::vector<Lifted> constants;
  Node* first_user_input = nullptr;
  /// A retrace's FunctionalTensor wrap reads `v`, a size or stride of a new output, in
  /// computeStorageNbytes: one the output's meta made (tracked as the output's own, with no graph
  /// value yet) is read from the output there, so its `sym_size`/`sym_stride` name is taken now.
  /// Returns whether the value has a graph value in this trace now (made here or before).
  bool storage_read(const SymInt& v) {
    // Not a size read from data: the retrace adopts the recorded symbol after the wrap, and its
    // read is the one the runtime assertions make (recreate_runtime_asserts). Not a subgraph
    // input's: its wrap at the subgraph's start read it already (take_wrapped_input_names). A
    // root input's stride is read here, the first time it is needed.
    if (!retracing || !v.is_symbolic() || known_constant(v) || sym::has_unbacked(v)) return false;
    const sym::SymNode* s = v.node();
    if (s->proxy_trace != id_) return false;
    if (s->proxy) return true;
    if (!s->size_of || (parent_ && static_cast<const Node*>(s->size_of)->op() == NodeOp::Placeholder)) return false;
    (void)proxy(v);
    return true;
  }
  /// The node whose metadata the nodes recorded now inherit (run_decompositions: the node being
  /// retraced, as PyTorch's retrace keeps its stack_trace and nn_module_stack); null: the call
  /// site and the module call stack.
  const Node* provenance = nullptr;
  /// Overrides of the provenance node's stack trace and serialized metadata (a node inlined from a
  /// subgraph: its trace points into the subgraph's generated code).
  std::optional<std::string> provenance_trace;
  const std::vector<std::pair<std::string, std::string>>* provenance_meta = nullptr;
  /// run_decompositions: the node whose value a functionalization replay regenerates (its stack
  /// trace labels the replayed nodes); whether nodes without provenance get no metadata at all.
  const Node* replay = nullptr;
  /// run_decompositions: whether C++ functionalization is syncing a tensor (replaying its views,
  /// scattering an update into its base); the nodes it records then are not wrapped.
  bool syncing = false;
  bool retracing = false;
  /// The node computing a symbolic int (made on first need, as for an argument).
  Node* sym_node(const SymInt& v) { return proxy(v); }
  /// A call with no tensor results, recorded as make_fx records it: `_local_scalar_dense(x)`
  /// producing the unbacked symbol `value` (later uses of that value refer to this node), or
  /// `_assert_scalar(cond, msg)`.
  Node* record_value(const OpDef& op, std::vector<NodeArg> args, const std::optional<SymInt>& value,
                     std::string_view name = {}) {
    ++effects_;
    for (NodeArg& a : args) symbolic_args_to_nodes(a);
    Node* n = g_.call(op, std::move(args), name.empty() ? std::string_view(op.schema.name) : name);
    stamp(n, SrcLocArg{});
    if (value && value->is_symbolic()) {
      n->sym_val = *value;
      value->node()->proxy_trace = id_;
      value->node()->proxy = n;
    }
    return n;
  }
  /// A comparison of symbolic ints as an operator node (`ge = u0 >= 0`), stamped like a call.
  Node* compare(PyOp op, const SymInt& a, const SymInt& b) {
    ++effects_;
    Node* n = g_.sym_op(op, {operand(a), operand(b)}, std::nullopt);
    stamp(n, SrcLocArg{});
    return n;
  }
  /// Stamps `n` (made directly in the graph, e.g. a retraced higher-order call) as record() does.
  void stamp_node(Node* n) { stamp(n, SrcLocArg{}); }
  /// A higher-order op's argument with its symbolic sizes made graph nodes, as record() does.
  void symbolic_operands(NodeArg& a) { symbolic_args_to_nodes(a); }
  Node* traced_node(const TensorImpl* t) const {
    return t && t->trace_id == id_ ? static_cast<Node*>(t->trace_node) : nullptr;
  }
  /// The node that produced `t` in this trace, or null.
  Node* traced_node(const Tensor& t) const {
    return t.impl()->trace_id == id_ ? static_cast<Node*>(t.impl()->trace_node) : nullptr;
  }

 private:
  /// Nodes recorded while `syncing`: their sizes are read where first needed (sym_node).
  std::unordered_set<const Node*> synced_;
  /// A repeated block's call in this trace's terms: its path, device, input and state nodes.
  std::optional<BlockCall> block_call(nn::Module& block, std::span<const Tensor> inputs) {
    auto path = paths_.find(&block);
    if (path == paths_.end()) return std::nullopt;
    BlockCall call;
    call.path = path->second;
    std::vector<const Tensor*> slots;
    block.tensor_slots(slots);
    if (slots.empty()) return std::nullopt;
    call.device = slots[0]->device();
    for (const Tensor* t : slots) {
      Node* n = traced_node(*t);
      if (!n || n->op() != NodeOp::Placeholder || t->device() != call.device) return std::nullopt;
      call.slots.push_back(n);
    }
    // A record maps each slot and input node to its counterpart: a node standing for two of them
    // (a weight tied within the block, the same tensor passed twice) has none; such calls are traced.
    std::vector<const Node*> distinct(call.slots.begin(), call.slots.end());
    for (const Tensor& t : inputs) {
      Node* n = t.defined() ? traced_node(t) : nullptr;
      if (t.defined() && !n) return std::nullopt;  // a constant the block would lift
      call.inputs.push_back(n);
      if (n) distinct.push_back(n);
    }
    std::sort(distinct.begin(), distinct.end());
    if (std::adjacent_find(distinct.begin(), distinct.end()) != distinct.end()) return std::nullopt;
    return call;
  }
  /// Grows whenever the shape env learns something (a symbol, guard, replacement or range).
  uint64_t shape_env_state() const {
    return env_->symbols().size() + env_->guards().size() + env_->modular_guards().size() + env_->replacement_version();
  }
  /// A symbolic size of a block's result that the block made (`result`'s size `dim`): a trace
  /// reads it from the first node that had it, the block's node `node` (its size `node_dim`).
  struct FreshSize {
    size_t result, dim, node;
    int64_t node_dim;
    friend bool operator==(const FreshSize&, const FreshSize&) = default;
  };
  /// Whether the next block alike will read the symbolic sizes of the block's result `n` (its
  /// `result`-th) as this one's successor would: each from a node made before position `first`
  /// (the block's inputs' sizes, read the same way by every block), or, not read yet, from a node
  /// of the block (a size the block made; listed in `fresh`). Not when the block already read it.
  bool sizes_read(const Node& n, size_t result, size_t first, std::vector<FreshSize>& fresh) const {
    const TensorMeta& m = n.val[0];
    for (size_t d = 0; d < m.sizes.size(); ++d) {
      const SymInt& x = m.sizes[d];
      if (!x.is_symbolic() || x.maybe_int()) continue;
      const sym::SymNode* s = x.node();
      if (s->proxy_trace != id_) return false;
      const Node* from = static_cast<const Node*>(s->proxy ? s->proxy : s->size_of);
      if (!from) return false;
      size_t i = first;
      while (i < g_.nodes().size() && g_.nodes()[i].get() != from) ++i;
      if (i == g_.nodes().size()) continue;  // made before the block
      if (s->proxy) return false;
      fresh.push_back({result, d, i - first, s->size_dim});
    }
    return true;
  }
  struct BlockState {
    bool recorded = false, verified = false;
    BlockRecord record;
    std::vector<FreshSize> fresh_sizes;  ///< sizes_read's
    std::vector<Node*> last;             ///< the nodes of the latest call, traced or replayed
  };
  std::unordered_map<std::string, BlockState> blocks_;
  bool recording_block_ = false;
  /// Counts what a block record cannot reproduce (lifted constants, grad regions, symbolic
  /// arithmetic, subgraphs): a record is kept only if this did not move while its block ran.
  uint64_t effects_ = 0;

  int grad_depth_ = 0;
  GradRegion open_region_;
  std::optional<SrcLocArg> call_site_;
  int subscript_depth_ = 0;
  /// on_contiguous: how often each layout was met; stride values already read.
  struct Layout {
    int met = 0;
    std::string first_role;
    bool same_role = false;
    std::vector<const sym::SymNode*> first_nodes;  ///< the symbolic sizes' objects when first met
  };
  std::unordered_map<std::string, Layout> contiguity_seen_;
  bool inputs_unified_ = false;  ///< on_inputs_unified was reported
  /// The innermost module call's path with its digits removed ("model.layers..self_attn").
  std::string module_role() {
    const auto stack = module_stack();
    std::string r = stack->empty() ? std::string() : stack->back().path;
    std::erase_if(r, [](char c) { return c >= '0' && c <= '9'; });
    return r;
  }
  std::unordered_set<const void*> strides_read_;
  /// on_numel_read: values already read as a numel.
  std::unordered_set<std::string> numel_reads_;

  Node* lift_constant(const Tensor& t) {
    ++effects_;
    FE_CHECK(!parent_, UserError, "cond: a branch reads a tensor (", t.meta().annotation(),
             ") that is not one of its operands; pass every tensor a branch uses in `operands`");
    // Named after the innermost module being called, as _lift_constants_pass's get_constant_fqn
    // names it from the node's nn_module_stack ("encoder.lifted_tensor_0").
    std::string target = "lifted_tensor_" + std::to_string(constants.size());
    const auto stack = module_stack();
    if (!stack->empty() && !stack->back().path.empty()) target = stack->back().path + "." + target;
    Node* n = g_.placeholder("c_" + placeholder_name(target), t.meta(), first_user_input);
    constants.push_back({target, n->name(), t});
    bind(t, n);
    return n;
  }

  void stamp(Node* n, const SrcLocArg& loc) {
    if (syncing) synced_.insert(n);
    if (!provenance) {
      if (retracing) return;  // nodes made after the last graph node (output syncs): no metadata
      n->loc = call_site_ ? *call_site_ : loc;
      n->module_stack = module_stack();
      if (subscript_depth_ > 0 && strict_mode) subscripts.push_back(n);
      return;
    }
    n->loc = provenance->loc;
    n->stack_trace = provenance_trace ? provenance_trace : provenance->stack_trace;
    n->module_stack = provenance->module_stack;
    n->serialized_meta = provenance_meta ? *provenance_meta : provenance->serialized_meta;
    if (const std::string* custom = disable_dynamo_annotation()) set_custom(n, *custom);
    if (replay) {
      // PyTorch's view replay annotation: the stack trace (and custom annotation) of the node
      // whose value is being regenerated.
      if (replay->stack_trace) n->stack_trace = replay->stack_trace, n->loc = replay->loc;
      for (const auto& [k, v] : replay->serialized_meta)
        if (k == "custom") {
          set_custom(n, v);
        }
    }
  }

  /// Sets meta["custom"] (replacing one there).
  static void set_custom(Node* n, const std::string& json) {
    auto it = std::find_if(n->serialized_meta.begin(), n->serialized_meta.end(),
                           [](const auto& e) { return e.first == "custom"; });
    if (it != n->serialized_meta.end()) it->second = json;
    else n->serialized_meta.emplace_back("custom", json);
  }

  /// The first traced tensor with a symbolic size provides it (make_fx's track_tensor).
  /// Retracing, strides too (make_fx tracks them; a negative size_dim, -1 - d, names stride d):
  /// a stride the output's wrap reads is a `sym_stride` node there.
  void track_sizes(const TensorMeta& m, Node* n) {
    const auto track = [&](const SymInt& v, int64_t dim) {
      const sym::SymNode* s = v.node();
      if (!s || s->proxy_trace == id_) return;
      s->proxy_trace = id_;
      s->proxy = nullptr;
      s->size_of = n;
      s->size_dim = dim;
    };
    for (size_t d = 0; d < m.sizes.size(); ++d) track(m.sizes[d], static_cast<int64_t>(d));
    if (!retracing) return;
    for (size_t d = 0; d < m.strides.size(); ++d) track(m.strides[d], -1 - static_cast<int64_t>(d));
    track(m.storage_offset, kStorageOffsetDim);
  }
  /// SymNode::size_dim of a tracked storage offset (a view's: `sym_storage_offset(slice_1)`).
  static constexpr int64_t kStorageOffsetDim = std::numeric_limits<int64_t>::min();


  /// Retracing: an output stride PyTorch's meta computed is a SymNode of its own (FakeTensor's
  /// cache hands back a new one for every value that is not one of the call's own), which the
  /// output's wrap reads from it (`sym_stride(ge, 1)`), even where it equals a size read before
  /// (`[1, 1, s41, 1]` has stride s41). One passed through from an input's strides stays that
  /// input's (`_to_copy`'s, read from `arg26_1`). Our metas share such objects; they are renewed.
  void own_strides(std::span<const IValue> args, std::span<const Tensor> outs) {
    // An input's stride object that is not also one of its sizes (ours may share one).
    const auto passed_through = [&](const sym::SymNode* s) {
      bool stride = false;
      for (const IValue& a : args) {
        const Tensor* t = std::get_if<Tensor>(&a);
        if (!t || !t->defined()) continue;
        for (const SymInt& x : t->meta().sizes)
          if (x.node() == s) return false;
        for (const SymInt& x : t->meta().strides) stride = stride || x.node() == s;
      }
      return stride;
    };
    const auto renew = [&](SymInt& st) {
      const sym::SymNode* s = st.node();
      if (!s || st.maybe_int() || s->proxy_trace != id_ || passed_through(s) || sym::has_unbacked(st)) return;
      st = s->env->make(s->expr, st.hint());
    };
    for (const Tensor& t : outs) {
      if (!t.defined() || t.impl()->trace_id == id_) continue;  // an input returned as it is
      for (SymInt& st : t.impl()->meta.strides) renew(st);
      renew(t.impl()->meta.storage_offset);  // a view's offset likewise (`t[1:]`: s27)
    }
  }

  /// The graph node computing a symbolic int, created on first need.
  Node* proxy(const SymInt& v) {
    const sym::SymNode* s = v.node();
    if (s->proxy_trace == id_ && s->proxy) return static_cast<Node*>(s->proxy);
    Node* n = nullptr;
    if (s->proxy_trace == id_ && s->size_of) {
      static const OpDef& sym_size = op("aten::sym_size.int");
      static const OpDef& sym_stride = op("aten::sym_stride.int");
      Node* of = static_cast<Node*>(s->size_of);
      // Retracing: PyTorch reads an intermediate's size right after the call that made it, where
      // FunctionalTensor wraps the output (its storage size reads every size and stride: a
      // sym_size node), and insert_deferred_runtime_asserts computes the size there from the
      // inputs' sizes; later uses read that. So the read goes right after `of`, not where it is
      // first needed (wav2vec2's conv output length `(s76//10) - 1` before the gelu after the
      // conv; mixtral's routed-token count 2*s43*s53 before `sort`, not at the `arange` after).
      // A view C++ functionalization replays in a sync (regenerating an alias, or the base's
      // intermediate views an update scatters through) is not wrapped: its size is read where it
      // is first needed (measured: `t[:-1, :, 0] = 2.0`'s replayed slice, read at the expand of
      // select_scatter's decomposition).
      Node* before = nullptr;
      if (retracing && of->op() != NodeOp::Placeholder && !synced_.contains(of)) before = node_after(of);
      static const OpDef& sym_storage_offset = op("aten::sym_storage_offset");
      n = s->size_dim == kStorageOffsetDim
              ? g_.call(sym_storage_offset, {of}, "sym_storage_offset_default", before)
          : s->size_dim >= 0 ? g_.call(sym_size, {of, SymInt(s->size_dim)}, "sym_size_int", before)
                             : g_.call(sym_stride, {of, SymInt(-1 - s->size_dim)}, "sym_stride_int", before);
      // Retracing: a size that survives (one read from data, u1) carries the metadata of the node
      // whose output has it, as insert_deferred_runtime_asserts stamps it.
      if (retracing) {
        n->loc = of->loc;
        n->stack_trace = of->stack_trace;
        n->module_stack = of->module_stack;
        n->serialized_meta = of->serialized_meta;
      }
    } else if (s->has_operands) {
      static constexpr PyOp ops[] = {PyOp::Add, PyOp::Sub, PyOp::Mul, PyOp::FloorDiv, PyOp::Mod, PyOp::SymMin,
                                     PyOp::SymMax, PyOp::Neg};
      n = s->op == SymOp::Neg ? g_.sym_op(PyOp::Neg, {operand(s->a)}, std::nullopt)
                              : g_.sym_op(ops[static_cast<size_t>(s->op)], {operand(s->a), operand(s->b)}, std::nullopt);
      // Retracing: size arithmetic carries the metadata of the node being retraced (make_fx's
      // current meta), as every node it records does.
      if (retracing && provenance) stamp(n, SrcLocArg{});
    } else {
      throw InternalError(detail::cat("export: symbolic value ", v.str(), " has no origin in the traced graph"));
    }
    n->sym_val = v;
    s->proxy_trace = id_;
    s->proxy = n;
    return n;
  }

  /// The node after `n` in this graph; null when n is last or absent (then new nodes append).
  Node* node_after(const Node* n) const {
    const auto& nodes = g_.nodes();
    for (size_t i = nodes.size(); i-- > 0;)
      if (nodes[i].get() == n) return i + 1 < nodes.size() ? nodes[i + 1].get() : nullptr;
    return nullptr;
  }

  /// Whether proxy(v) can make a node for `v` (constants and values traced from sizes can).
  bool traceable(const SymInt& v) const {
    const sym::SymNode* s = v.node();
    if (!s) return true;
    if (s->proxy_trace == id_ && (s->proxy || s->size_of)) return true;
    return s->has_operands && traceable(s->a) && traceable(s->b);
  }

  /// A symbolic operand as a handle naming its node; a constant as itself.
  NodeArg operand(const SymInt& v) { return v.is_symbolic() ? NodeArg(handle(v)) : NodeArg(v); }
  SymInt handle(const SymInt& v) { return v.node()->env->make_handle(v, proxy(v)); }

  /// A value whose expression is already a constant is passed as that int (as PyTorch passes a
  /// size it computed from known values); others name their node.
  void symbolic_args_to_nodes(NodeArg& a) {
    const auto fix = [&](SymInt& x) {
      if (!x.is_symbolic()) return;
      if (const auto c = x.maybe_int()) x = SymInt(*c);
      else x = handle(x);
    };
    if (auto* s = std::get_if<SymInt>(&a)) fix(*s);
    if (auto* l = std::get_if<std::vector<SymInt>>(&a))
      for (SymInt& x : *l) fix(x);
  }
  static bool known_constant(const SymInt& v) { return !v.is_symbolic() || v.maybe_int().has_value(); }

  std::shared_ptr<const ModuleStack> module_stack() {
    if (stack_ && epoch_ == nn::module_call_epoch()) return stack_;
    auto s = std::make_shared<ModuleStack>();
    for (const nn::Module* m : nn::module_call_stack()) {
      auto it = paths_.find(m);
      s->push_back({it == paths_.end() ? "?" : it->second, m->type_name()});
    }
    epoch_ = nn::module_call_epoch();
    stack_ = std::move(s);
    return stack_;
  }

  Graph& g_;
  uint64_t id_;
  std::unordered_map<const nn::Module*, std::string> paths_;
  std::shared_ptr<const ModuleStack> stack_;
  uint64_t epoch_ = ~uint64_t{0};
  sym::ShapeEnv* env_;
  Tracer* parent_;
  int cond_count_ = 0;
};

}  // namespace fe::detail
