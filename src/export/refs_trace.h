// torch._refs run beneath the proxy mode, as a retrace records them: an in-place op's meta that is
// a Python reference runs on the meta copy C++ functionalization makes of `self` ("run meta
// tensors through the original op"), and every SymInt operation it makes on symbolic sizes is a
// node of the trace, later dropped. Recording the same sequence keeps later names equal to
// PyTorch's. Each function reports to `t` as dropped nodes, in PyTorch's order.
#pragma once
#include <optional>
#include <span>

#include "fakeexport/core/tensor_meta.h"
#include "fakeexport/sym/shape_env.h"

namespace fe::detail {

/// torch._refs.clamp_ on `self` (clamp's reference made in-place through its out= wrapper), min
/// and/or max numbers: per bound isnan, ge/le, bitwise_or and where, each a reference's
/// _maybe_broadcast (_broadcast_shapes, should_expand per tensor) and its prim's
/// _prim_elementwise_meta (check_same_shape, the output permutation's checks, extract_shape,
/// empty_permuted's size checks and storage size), then the out= wrapper's same_shape and
/// meta_copy_ (the overlap check's contiguity, refs.expand, broadcast_in_dim's checks).
/// Returns false, recording nothing, where the model does not reach (a non-contiguous self).
bool record_refs_clamp_(sym::SymTracer& t, const TensorMeta& self, bool has_min, bool has_max);

/// torch._refs.mul(a, number) beneath the proxy mode (_index_add's `tensor * alpha` on the meta
/// copies): _maybe_broadcast, then prims.mul's _prim_elementwise_meta. False, recording nothing,
/// for a non-contiguous `a`.
bool record_refs_mul_number(sym::SymTracer& t, const TensorMeta& a);

}  // namespace fe::detail
