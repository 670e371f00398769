// The symbolic contiguity check c10 runs when user code calls Tensor.contiguous() on a tensor with
// symbolic sizes, as torch.export's trace records it: every SymNode operation with a symbolic
// operand becomes a node (later dropped, its name kept), so recording the same sequence keeps the
// names of the surviving nodes equal to PyTorch's.
#pragma once
#include <span>
#include <unordered_set>

#include "fakeexport/sym/shape_env.h"

namespace fe::detail {

/// c10's _compute_contiguous_sym (and, when it cannot say true, the hinted _compute_contiguous)
/// over `sizes`/`strides`, reported to `t` as dropped nodes: `eq`, `ne`, `sym_max`, `mul`, `or_`,
/// `and_`, and a `sym_numel`/`sym_stride` read for the numel and each stride value not read before
/// (`strides_read`, by value identity).
void record_contiguity_check(sym::SymTracer& t, std::span<const SymInt> sizes, std::span<const SymInt> strides,
                             std::unordered_set<const void*>& strides_read);

}  // namespace fe::detail
