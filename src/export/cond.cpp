// fe::cond outside and inside export; the tracing itself lives in the export tracer.
#include "fakeexport/export/cond.h"

#include "fakeexport/core/error.h"
#include "fakeexport/ops/dispatch.h"

namespace fe {
namespace detail {

void check_branch_outputs(const std::vector<TensorMeta>& t, const std::vector<TensorMeta>& f) {
  FE_CHECK(t.size() == f.size(), UserError, "cond: true_fn returns ", t.size(), " tensors but false_fn returns ",
           f.size(), "; both branches must return the same number of outputs");
  for (size_t i = 0; i < t.size(); ++i) {
    bool same = t[i].dtype == f[i].dtype && t[i].device == f[i].device && t[i].sizes.size() == f[i].sizes.size();
    for (size_t d = 0; same && d < t[i].sizes.size(); ++d) same = t[i].sizes[d].same_as(f[i].sizes[d]);
    FE_CHECK(same, UserError, "cond: output ", i, " of true_fn (", t[i].annotation(), " on ", t[i].device.str(),
             ") and of false_fn (", f[i].annotation(), " on ", f[i].device.str(),
             ") differ; both branches must return outputs with the same metadata");
  }
}

}  // namespace detail

std::vector<Tensor> cond(const Tensor& pred, const BranchFn& true_fn, const BranchFn& false_fn,
                         const std::vector<Tensor>& operands, SrcLocArg loc) {
  FE_CHECK(pred.defined() && pred.numel() == 1, ValueError, "cond: pred must be a one-element tensor, got ",
           pred.defined() ? pred.meta().annotation() : std::string("an undefined tensor"));
  if (auto* t = dynamic_cast<detail::CondTracer*>(active_trace_sink()))
    return t->trace_cond(pred, true_fn, false_fn, operands, loc);
  if (pred.has_storage()) return pred.item(loc) != 0 ? true_fn(operands) : false_fn(operands);
  // Fake, not exporting: the value is unknown; both branches run and must agree.
  std::vector<Tensor> a = true_fn(operands), b = false_fn(operands);
  std::vector<TensorMeta> ma, mb;
  for (const Tensor& x : a) ma.push_back(x.meta());
  for (const Tensor& x : b) mb.push_back(x.meta());
  detail::check_branch_outputs(ma, mb);
  return a;
}

}  // namespace fe
