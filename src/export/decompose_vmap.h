// run_decompositions of functorch's vmap as pre-dispatch export records it inline (transformers'
// vmapped masks: Falcon). PyTorch's retrace runs those calls through functorch's batching rules,
// so the retraced program holds plain ops on the physical (batched) tensors. Here a batched value
// is its physical tensor whose leading dims are its vmap levels in ascending order (every batch dim
// at the front, as the rules below leave it), and each rule records the ops functorch's rule runs.
#pragma once
#include <optional>
#include <vector>

#include "fakeexport/ops/dispatch.h"

namespace fe::detail::vmap_retrace {

/// A batched value's levels, ascending: its physical tensor's leading dims.
using Levels = std::vector<int64_t>;

/// The outputs of an op called on batched operands and their levels; `dropped`: the call leaves no
/// trace (functorch runs _assert_tensor_metadata on a batched value as nothing).
struct Batched {
  std::vector<Tensor> outs;
  Levels levels;
  bool dropped = false;
};

/// `op(args)` where the tensor arguments carry `levels[i]` (empty: not batched), as functorch's
/// batching rules run it: binary pointwise ops pad each batched operand (a view) to the largest
/// logical rank, level by level from the innermost; new_* factories prepend the batch sizes; `to`
/// and `_to_copy` apply to the physical tensor. Anything else is an UnknownOpError naming the op.
Batched call(const OpDef& op, std::vector<IValue> args, std::vector<Levels> levels);

/// _remove_batch_dim(x, level, size, 0) of a value not batched at `level` (functorch expands it):
/// unsqueeze at the first per-example dim, then expand to `size` there.
Tensor expand_unbatched(const Tensor& physical, const Levels& levels, const SymInt& size);

}  // namespace fe::detail::vmap_retrace
