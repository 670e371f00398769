// See vmap.h. Values are made outside the trace (TraceScope(nullptr)) and then recorded as the
// callable's results, so the graph holds the functorch calls and not the ops that shaped them.
#include "nn/zoo/vmap.h"

#include <array>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "fakeexport/sym/shape_env.h"
#include "ops/meta_util.h"

namespace fe::zoo::vmap {
namespace {

constexpr std::string_view kPrefix = "torch._functorch.predispatch.";

void call(std::string_view fn, std::span<const IValue> args, std::span<const Tensor> outs) {
  if (TraceSink* s = active_trace_sink()) s->record_callable(std::string(kPrefix) + std::string(fn), args, outs);
}

/// An unrecorded tensor with `sizes`, x's dtype and device. Its size checks and strides are not
/// user arithmetic either (functorch makes the batched value in C++): they run as inside an op's
/// meta, where the tracer records no symbolic arithmetic.
Tensor shaped_like(const Tensor& x, std::vector<SymInt> sizes) {
  TraceScope off(nullptr);
  ops::UntracedArithmetic untraced("torch._functorch.vmap", sizes);
  return empty(sizes, {.dtype = x.dtype(), .device = x.device()});
}

}  // namespace

Level enter(const Tensor& x, int64_t level) {
  Level l{Tensor(), x.size(0), level};
  call("lazy_load_decompositions", {}, {});
  const std::array<IValue, 2> nest{IValue(l.size), IValue(std::string("error"))};
  call("_vmap_increment_nesting", nest, {});
  std::vector<SymInt> rest(x.sizes().begin() + 1, x.sizes().end());
  l.logical = shaped_like(x, std::move(rest));
  const std::array<IValue, 3> a{IValue(x), IValue(SymInt(0)), IValue(SymInt(level))};
  call("_add_batch_dim", a, std::span<const Tensor>(&l.logical, 1));
  return l;
}

Tensor leave(const Tensor& r, const Level& l) {
  std::vector<SymInt> sizes{l.size};
  sizes.insert(sizes.end(), r.sizes().begin(), r.sizes().end());
  Tensor out = shaped_like(r, sizes);
  const std::array<IValue, 4> a{IValue(r), IValue(SymInt(l.level)), IValue(l.size), IValue(SymInt(0))};
  call("_remove_batch_dim", a, std::span<const Tensor>(&out, 1));
  TraceSink* s = active_trace_sink();
  if (s && !s->depends_on(r, l.logical)) {
    (void)r.unsqueeze(0).expand(sizes);  // functorch's expansion, unused
  } else if (s) {
    // Unwrapping a batched result computes its numel in C++ with SymInts, which the trace records
    // (and drops): the running product of the sizes, each step with a symbolic side a `mul`
    // (Falcon's [q, kv] mask: `mul(q, kv)`; with a static cache's kv, `mul(q, 16)`). A leading 1
    // is no step.
    const auto symbolic = [](const SymInt& v) { return v.is_symbolic() && !v.maybe_int(); };
    sym::SymTracer* t = nullptr;
    for (const SymInt& f : sizes)
      if (symbolic(f)) t = f.node()->env->user_tracer();
    bool started = false, sym_running = false, recorded = false;  // recorded: the product is a dropped node
    SymInt running;
    for (const SymInt& f : sizes) {
      if (!started || (!sym_running && running.maybe_int() == 1)) {
        started = true, sym_running = symbolic(f), running = f;
        continue;
      }
      if (t && (sym_running || symbolic(f))) {
        const SymInt step[2] = {running, f};
        t->on_aten_check("mul", recorded ? std::span<const SymInt>(step + 1, 1) : std::span<const SymInt>(step, 2));
        recorded = true;
      }
      if (!sym_running && !symbolic(f)) running = SymInt(*running.maybe_int() * *f.maybe_int());
      sym_running = sym_running || symbolic(f);
    }
  }
  call("_vmap_decrement_nesting", {}, {});
  return out;
}

}  // namespace fe::zoo::vmap
