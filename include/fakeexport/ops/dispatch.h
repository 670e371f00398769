// The single path of every op call: meta (device check, promotion, sizes/strides), then the
// reference kernel for real tensors or nothing for fake ones, then trace recording.
#pragma once
#include <functional>
#include <span>
#include <unordered_set>
#include <vector>

#include "fakeexport/core/source_location.h"
#include "fakeexport/ops/registry.h"

namespace fe {
namespace nn {
class Module;
}

/// Receives every dispatched call while installed (the export tracer implements it).
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  /// `outs` are the freshly produced tensors (empty for ops returning nothing).
  virtual void record(const OpDef& op, std::span<const IValue> args, std::span<const Tensor> outs,
                      const SrcLocArg& loc) = 0;
  /// Around each op's meta and kernel (provenance for guards the meta asks).
  virtual void begin_op(const OpDef&, const SrcLocArg&) {}
  virtual void end_op() {}
  /// Around a region traced with grad mode set (NoGradScope): `torch.no_grad()`.
  virtual void begin_grad_mode(bool /*enabled*/) {}
  virtual void end_grad_mode() {}
  /// A plain Python callable that export records as a call_function (functorch's vmap transforms,
  /// `torch._functorch.predispatch._add_batch_dim`): `outs` its tensor results, none for the
  /// nesting calls.
  virtual void record_callable(std::string_view /*target*/, std::span<const IValue> /*args*/,
                               std::span<const Tensor> /*outs*/) {}
  /// Whether `t` was computed, through recorded calls, from `source` (vmap: whether a value is
  /// batched at the level `source` entered).
  virtual bool depends_on(const Tensor& /*t*/, const Tensor& /*source*/) { return false; }
  /// torch.export(strict=True): the program TorchDynamo captures (ExportOptions::strict).
  virtual bool strict() const { return false; }
  /// strict: the ops of a torch.nn module's forward are attributed to the module's call site
  /// (dynamo's stack traces end in user code); null ends it.
  virtual void set_call_site(const SrcLocArg* /*site*/) {}
  /// Whether a call site is set (an outer torch.nn module's).
  virtual bool has_call_site() const { return false; }
  /// Around a Python subscript (`x[:, None]`): strict export drops it when unused (dynamo's
  /// dead-code elimination removes operator.getitem but keeps torch calls).
  virtual void begin_subscript() {}
  virtual void end_subscript() {}
  /// A call of one of a model's repeated blocks (nn::call_repeated): `run` traces it; a tracer
  /// may instead add again the nodes an identical earlier block's call added.
  virtual std::vector<Tensor> repeated_block(nn::Module& /*block*/, std::span<const Tensor> /*inputs*/,
                                             uint64_t /*key*/, const std::function<std::vector<Tensor>()>& run) {
    return run();
  }
};

/// The call site of a torch.nn module (nn::UnaryModule::operator()) for a strict trace; the
/// outermost such module wins. Nothing outside a strict trace.
class CallSiteScope {
 public:
  CallSiteScope(bool torch_nn_module, const SrcLocArg& site);
  ~CallSiteScope();
  CallSiteScope(const CallSiteScope&) = delete;
  CallSiteScope& operator=(const CallSiteScope&) = delete;

 private:
  TraceSink* sink_ = nullptr;
};

/// Ops recorded in the scope are a Python subscript (TraceSink::begin_subscript).
class SubscriptScope {
 public:
  SubscriptScope();
  ~SubscriptScope();
  SubscriptScope(const SubscriptScope&) = delete;
  SubscriptScope& operator=(const SubscriptScope&) = delete;

 private:
  TraceSink* sink_;
};

/// Installs a TraceSink for this thread for the scope's lifetime.
class TraceScope {
 public:
  explicit TraceScope(TraceSink* sink);
  ~TraceScope();
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  TraceSink* prev_;
};
TraceSink* active_trace_sink();

/// `with torch.no_grad():` for a traced model: the ops recorded in the scope become one
/// wrap_with_set_grad_enabled(False, submod, ...) call, as torch.export records a grad-mode change.
/// Outside a trace it changes nothing (fake and reference computations track no gradients).
class NoGradScope {
 public:
  NoGradScope();
  ~NoGradScope();
  NoGradScope(const NoGradScope&) = delete;
  NoGradScope& operator=(const NoGradScope&) = delete;

 private:
  TraceSink* sink_;
};

/// The ops that dispatch runs through their decomposition (OpDef::decomp) while a DecomposeScope
/// installs the table (fe::run_decompositions).
using DecompTable = std::unordered_set<const OpDef*>;

/// Installs a decomposition table for this thread for the scope's lifetime; an op in it that has a
/// decomposition runs that instead of its meta and kernel (recursively: what it calls may decompose).
class DecomposeScope {
 public:
  explicit DecomposeScope(const DecompTable* table);
  ~DecomposeScope();
  DecomposeScope(const DecomposeScope&) = delete;
  DecomposeScope& operator=(const DecomposeScope&) = delete;

 private:
  const DecompTable* prev_;
};

/// Calls op with a full argument list in schema order; returns its tensor outputs.
std::vector<Tensor> dispatch(const OpDef& op, std::vector<IValue> args, const SrcLocArg& loc);
/// Single-output convenience.
Tensor dispatch1(const OpDef& op, std::vector<IValue> args, const SrcLocArg& loc);

/// Whether `op` returns one int (sym_size.int, sym_numel): evaluated by dispatch_int, never traced.
bool returns_int(const OpDef& op);
/// The int such an op returns for `args` (its meta function over the tensors' sizes): a concrete
/// int for real tensors, the symbolic size for fake ones.
SymInt dispatch_int(const OpDef& op, std::vector<IValue> args);

/// Fills omitted trailing arguments with schema defaults; ValueError if a required one is missing.
void complete_args(const OpDef& op, std::vector<IValue>& args);

}  // namespace fe
