#include "fakeexport/ops/dispatch.h"
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/functional_level.h"
#include "fakeexport/ops/unbacked.h"

#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "ops/annotation.h"
#include "ops/families.h"
#include "ops/meta_util.h"

namespace fe {
namespace {
thread_local TraceSink* t_sink = nullptr;
thread_local const DecompTable* t_decomp = nullptr;
thread_local const std::string* t_disable_dynamo = nullptr;
thread_local FunctionalLevel* t_functional = nullptr;
thread_local FunctionalLevel* t_retrace_level = nullptr;  ///< the innermost non-null level

}  // namespace

TraceScope::TraceScope(TraceSink* sink) : prev_(t_sink) { t_sink = sink; }
TraceScope::~TraceScope() { t_sink = prev_; }
TraceSink* active_trace_sink() { return t_sink; }
NoGradScope::NoGradScope() : sink_(t_sink) {
  if (sink_) sink_->begin_grad_mode(false);
}
NoGradScope::~NoGradScope() {
  if (sink_) sink_->end_grad_mode();
}
CallSiteScope::CallSiteScope(bool torch_nn_module, const SrcLocArg& site) {
  if (!torch_nn_module || !t_sink || !t_sink->strict() || t_sink->has_call_site()) return;
  sink_ = t_sink;
  sink_->set_call_site(&site);
}
CallSiteScope::~CallSiteScope() {
  if (sink_) sink_->set_call_site(nullptr);
}
SubscriptScope::SubscriptScope() : sink_(t_sink) {
  if (sink_) sink_->begin_subscript();
}
SubscriptScope::~SubscriptScope() {
  if (sink_) sink_->end_subscript();
}
DisableDynamoScope::DisableDynamoScope(std::string_view method)
    : json_(R"({"_torchdynamo_disable": true, "_torchdynamo_disable_recursive": true, "_torchdynamo_disable_method": ")" +
            std::string(method) + "\"}"),
      prev_(t_disable_dynamo) {
  t_disable_dynamo = &json_;
}
DisableDynamoScope::~DisableDynamoScope() { t_disable_dynamo = prev_; }
const std::string* disable_dynamo_annotation() { return t_disable_dynamo; }

DecomposeScope::DecomposeScope(const DecompTable* table) : prev_(t_decomp) { t_decomp = table; }
DecomposeScope::~DecomposeScope() { t_decomp = prev_; }

void complete_args(const OpDef& op, std::vector<IValue>& args) {
  const auto& params = op.schema.arguments;
  FE_INTERNAL_ASSERT(args.size() <= params.size(), op.qualified, ": ", args.size(), " arguments for ",
                     params.size(), " parameters");
  for (size_t i = args.size(); i < params.size(); ++i) {
    FE_CHECK(params[i].default_value, ValueError, op.label(), ": missing required argument '",
             params[i].name, "'");
    args.push_back(map_tensors<Tensor>(*params[i].default_value, [](NoTensor) { return Tensor(); }));
  }
}

void note_contiguity_asked(const Tensor& t) {
  if (t_functional) t_functional->contiguity_asked(t);
}

void note_refs_contiguity_asked(const Tensor& r) {
  if (t_retrace_level) t_retrace_level->refs_contiguity_asked(r);
}
void note_refs_numel_compared(const Tensor& t) {
  if (t_retrace_level) t_retrace_level->refs_numel_compared(t);
}

namespace {
thread_local bool t_cpp_functionalization = false;
}  // namespace

CppFunctionalizationScope::CppFunctionalizationScope() : prev_(t_cpp_functionalization) { t_cpp_functionalization = true; }
CppFunctionalizationScope::~CppFunctionalizationScope() { t_cpp_functionalization = prev_; }

bool in_cpp_functionalization() { return t_cpp_functionalization; }
bool beneath_functional_level() { return !t_functional && t_retrace_level; }

void note_broadcast_shapes(std::span<const std::span<const SymInt>> shapes) {
  if (t_retrace_level) t_retrace_level->broadcast_shapes(shapes);
}

void note_dropped(std::string_view base) {
  if (t_retrace_level) t_retrace_level->dropped(base);
}

void note_view_shape_computed(const Tensor& self, std::span<const SymInt> shape) {
  if (t_retrace_level) t_retrace_level->view_shape_computed(self, shape);
}

FunctionalLevelScope::FunctionalLevelScope(FunctionalLevel* level) : prev_(t_functional), prev_retrace_(t_retrace_level) {
  t_functional = level;
  if (level) t_retrace_level = level;
}
FunctionalLevelScope::~FunctionalLevelScope() {
  t_functional = prev_;
  t_retrace_level = prev_retrace_;
}

namespace {
/// A dispatch at the functionalization level (functional_level.h): inner dispatches run beneath
/// it unless `op` decomposes right there; its results are wrapped.
std::vector<Tensor> dispatch_functional(FunctionalLevel& level, const OpDef& op, std::vector<IValue> args,
                                        const SrcLocArg& loc) {
  complete_args(op, args);
  const bool decomposes = t_decomp && op.decomp && t_decomp->count(&op);
  if (decomposes && level.decomposes_here(op)) {
    level.composite(op, args);
    return op.decomp(args, loc);
  }
  if (decomposes) level.before_decomposition(op, args);
  const std::vector<IValue> inputs = args;
  std::vector<Tensor> outs;
  {
    FunctionalLevelScope beneath(nullptr);
    outs = dispatch(op, std::move(args), loc);
  }
  if (!t_cpp_functionalization) level.wrapped(op, inputs, outs);
  return outs;
}
}  // namespace

std::vector<Tensor> dispatch(const OpDef& op, std::vector<IValue> args, const SrcLocArg& loc) {
  if (t_functional) [[unlikely]]
    return dispatch_functional(*t_functional, op, std::move(args), loc);
  complete_args(op, args);
  if (t_decomp && op.decomp && t_decomp->count(&op)) {
    // Beneath a retrace's functionalization level, a CompositeImplicit op's C++ still asks its
    // questions (of the FakeTensors: beneath_functional_level).
    if (t_retrace_level && t_retrace_level->decomposes_here(op)) [[unlikely]]
      t_retrace_level->composite(op, args);
    return op.decomp(args, loc);
  }
  // Metadata view of the arguments; note whether any input is fake or real.
  bool any_fake = false, any_storageless = false;
  const Tensor* real_input = nullptr;
  std::vector<MetaValue> margs;
  margs.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const bool none_ok = op.schema.arguments[i].type.elem_optional;  // `Tensor?[]` elements
    margs.push_back(map_tensors<const TensorMeta*>(args[i], [&](const Tensor& t) -> const TensorMeta* {
      if (!t.defined() && none_ok) return nullptr;
      FE_CHECK(t.defined(), ValueError, op.label(), ": argument '", op.schema.arguments[i].name,
               "' is an undefined tensor");
      if (t.is_fake()) any_fake = true;
      else if (t.has_storage()) real_input = &t;
      else if (t.defined()) any_storageless = true;
      return &t.meta();
    }));
  }
  const bool fake = any_fake || FakeTensorMode::active();
  // While exporting, real tensors the program reads are lifted as constants by the tracer.
  FE_CHECK(!(fake && real_input && !t_sink), UserError, op.label(),
           ": Please convert all Tensors to FakeTensors first or instantiate FakeTensorMode with "
           "'allow_non_fake_inputs'. Found a real tensor (",
           real_input->meta().annotation(), ") among the inputs of a fake computation");

  MetaOut mo;
  struct OpScope {  // end_op also when the meta throws
    TraceSink* sink;
    ~OpScope() {
      if (sink) sink->end_op();
    }
  } op_scope{t_sink};
  if (t_sink) t_sink->begin_op(op, loc);
  {
    // On real tensors a data-dependent size (repeat_interleave's total) is read from the values.
    std::optional<RealArgsScope> real;
    if (!fake && !any_storageless) real.emplace(args);
    run_meta(op, margs, mo);
  }

  std::vector<Tensor> outs;
  outs.reserve(mo.outs.size());
  if (op.inplace) {
    // `add_`: the result is `self` itself; its metadata never changes (meta checked that).
    const Tensor& self = std::get<Tensor>(args[0]);
    FE_INTERNAL_ASSERT(mo.outs.size() == 1 && mo.outs[0] == self.meta(), op.qualified,
                       ": in-place meta changed self's metadata");
    outs.push_back(self);
    if (self.has_storage()) {
      FE_CHECK(op.cpu, UnknownOpError, op.label(), ": no reference CPU kernel; run it under FakeTensorMode");
      op.cpu(op, args, outs);
    }
    if (t_sink) t_sink->record(op, args, outs, loc);
    return outs;
  }
  for (size_t k = 0; k < mo.outs.size(); ++k) {
    TensorMeta& m = mo.outs[k];
    if (static_cast<int>(k) == mo.self_output) {
      const Tensor& self = std::get<Tensor>(args[0]);
      FE_INTERNAL_ASSERT(m == self.meta(), op.qualified, ": output ", k, " is self but its meta differs");
      outs.push_back(self);
      continue;
    }
    if (mo.alias_input0) {
      const Tensor& self = std::get<Tensor>(args[0]);
      if (op.may_return_self && m == self.meta()) {  // PyTorch returns `self` itself
        outs.push_back(self);
        continue;
      }
      auto impl = std::make_shared<TensorImpl>();
      impl->meta = std::move(m);
      impl->storage = self.impl()->storage;
      impl->fake = self.is_fake();
      impl->view_base = self.impl()->view_base ? self.impl()->view_base : self.impl_ptr();
      outs.emplace_back(std::move(impl));
      continue;
    }
    auto impl = std::make_shared<TensorImpl>();
    impl->fake = fake;
    if (!fake && !m.device.is_meta()) {
      FE_CHECK(m.device.is_cpu(), DeviceUnavailableError, op.label(), ": cannot create a real tensor on ",
               m.device, ": this machine computes on cpu only; construct the model and inputs under "
               "FakeTensorMode to work with ", m.device, " tensors");
      impl->storage = std::make_shared<Storage>(static_cast<size_t>(m.storage_nbytes()));
    }
    impl->meta = std::move(m);
    outs.emplace_back(std::move(impl));
  }
  // Real computation: only when some output owns fresh storage.
  bool compute = false;
  if (!mo.alias_input0)
    for (size_t k = 0; k < outs.size(); ++k)
      compute = compute || (static_cast<int>(k) != mo.self_output && outs[k].has_storage());
  if (compute) {
    FE_CHECK(op.cpu, UnknownOpError, op.label(), ": no reference CPU kernel; run it under FakeTensorMode");
    op.cpu(op, args, outs);
  }
  if (t_sink) t_sink->record(op, args, outs, loc);
  return outs;
}

bool returns_int(const OpDef& op) {
  const auto& rets = op.schema.returns;
  return rets.size() == 1 && !rets[0].type.is_list &&
         (rets[0].type.base == ArgBase::Int || rets[0].type.base == ArgBase::SymInt);
}

SymInt dispatch_int(const OpDef& op, std::vector<IValue> args) {
  complete_args(op, args);
  std::vector<MetaValue> margs;
  margs.reserve(args.size());
  for (const IValue& v : args)
    margs.push_back(map_tensors<const TensorMeta*>(
        v, [](const Tensor& t) -> const TensorMeta* { return t.defined() ? &t.meta() : nullptr; }));
  MetaOut mo;
  run_meta(op, margs, mo);
  FE_INTERNAL_ASSERT(mo.ints.size() == 1, op.qualified, " computed ", mo.ints.size(), " ints");
  return mo.ints[0];
}

Tensor opmath(const Tensor& x, const SrcLocArg& loc) {
  if (opmath_dtype(x.dtype()) == x.dtype()) return x;
  return dispatch1(*op_to_dtype, {x, DType::Float32}, loc);
}
Tensor opmath_result(const Tensor& r, DType dtype, const SrcLocArg& loc) {
  return r.dtype() == dtype ? r : dispatch1(*op_to_dtype, {r, dtype}, loc);
}

std::vector<Tensor> undecomposed(const OpDef& op, std::span<const IValue> a, const SrcLocArg& loc) {
  DecomposeScope none(nullptr);
  return dispatch(op, {a.begin(), a.end()}, loc);
}

void alias_meta(const OpDef& target, const MetaArgs& a, MetaOut& out) {
  std::vector<MetaValue> args;
  args.reserve(a.size());
  for (size_t i = 0; i < a.size(); ++i) args.push_back(a[i]);
  ops::run_meta_as(a.op().label(), target, args, out);
}
void alias_cpu(const OpDef& target, std::span<const IValue> a, std::span<Tensor> o) {
  fe::copy_(o[0], dispatch1(target, {a.begin(), a.end()}, SrcLocArg::current()));
}
std::vector<Tensor> alias_decomp(const OpDef& target, std::span<const IValue> a, const SrcLocArg& loc) {
  return dispatch(target, {a.begin(), a.end()}, loc);
}

Tensor dispatch1(const OpDef& op, std::vector<IValue> args, const SrcLocArg& loc) {
  auto outs = dispatch(op, std::move(args), loc);
  FE_INTERNAL_ASSERT(outs.size() == 1, op.qualified, " returned ", outs.size(), " tensors, expected 1");
  return std::move(outs[0]);
}

}  // namespace fe
