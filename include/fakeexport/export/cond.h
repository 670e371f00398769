// fe::cond: data-dependent control flow that export keeps (torch.cond). Both branches are traced
// into subgraphs (`true_graph_0`, `false_graph_0`) and must return outputs with equal metadata.
#pragma once
#include <functional>
#include <vector>

#include "fakeexport/core/source_location.h"
#include "fakeexport/core/tensor.h"

namespace fe {

/// A branch of cond: the operands in, tensors out.
using BranchFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

/// torch.cond(pred, true_fn, false_fn, operands): `pred` is a one-element bool tensor. Real tensors
/// run the chosen branch; under export the result is `higher_order.cond` with both branches traced.
/// Branches may use only their operands (pass anything else they read as an operand).
std::vector<Tensor> cond(const Tensor& pred, const BranchFn& true_fn, const BranchFn& false_fn,
                         const std::vector<Tensor>& operands, SrcLocArg loc = SrcLocArg::current());

namespace detail {
/// Implemented by the export tracer.
class CondTracer {
 public:
  virtual ~CondTracer() = default;
  virtual std::vector<Tensor> trace_cond(const Tensor& pred, const BranchFn& true_fn, const BranchFn& false_fn,
                                         const std::vector<Tensor>& operands, const SrcLocArg& loc) = 0;
};
/// UserError unless both branches' outputs agree in count, sizes, strides, dtype and device.
void check_branch_outputs(const std::vector<TensorMeta>& t, const std::vector<TensorMeta>& f);
}  // namespace detail

}  // namespace fe
