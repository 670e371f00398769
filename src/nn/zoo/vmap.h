// torch.vmap as torch.export's pre-dispatch tracing records it inline: transformers 5.12 vmaps a
// mask function over the batch, head, query and key indices when it cannot prove the function is
// index-based (Falcon's `and_mask_function`). Each level is entered with
// lazy_load_decompositions(), _vmap_increment_nesting(size, 'error') and _add_batch_dim(x, 0,
// level); the function then runs on per-example (logical) values, as functorch shows them to
// Python, and is recorded as such; each level is left, innermost first, with
// _remove_batch_dim(r, level, size, 0) and _vmap_decrement_nesting(). Where the result does not
// depend on a level's index (a mask the same for every head), functorch expands it and pre-dispatch
// tracing records that expansion's unsqueeze and expand as well, unused.
#pragma once
#include "fakeexport/core/tensor.h"

namespace fe::zoo::vmap {

/// One vmapped argument: `x`'s dim 0 mapped at `level` (1 = outermost).
struct Level {
  Tensor logical;  ///< what the function sees: x without dim 0
  SymInt size;     ///< x.size(0)
  int64_t level = 0;
};

/// Enters a level over x's dim 0 (recorded while a trace is active).
Level enter(const Tensor& x, int64_t level);
/// Leaves `l` with the function's result `r` (its value at this level): r with l.size inserted at 0.
Tensor leave(const Tensor& r, const Level& l);

}  // namespace fe::zoo::vmap
