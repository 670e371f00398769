// See vmap.h. Values are made outside the trace (TraceScope(nullptr)) and then recorded as the
// callable's results, so the graph holds the functorch calls and not the ops that shaped them.
#include "nn/zoo/vmap.h"

#include <array>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"

namespace fe::zoo::vmap {
namespace {

constexpr std::string_view kPrefix = "torch._functorch.predispatch.";

void call(std::string_view fn, std::span<const IValue> args, std::span<const Tensor> outs) {
  if (TraceSink* s = active_trace_sink()) s->record_callable(std::string(kPrefix) + std::string(fn), args, outs);
}

/// An unrecorded tensor with `sizes`, x's dtype and device.
Tensor shaped_like(const Tensor& x, std::vector<SymInt> sizes) {
  TraceScope off(nullptr);
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
  if (s && !s->depends_on(r, l.logical)) (void)r.unsqueeze(0).expand(sizes);  // functorch's expansion, unused
  call("_vmap_decrement_nesting", {}, {});
  return out;
}

}  // namespace fe::zoo::vmap
