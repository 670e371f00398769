// Grad-mode regions of a traced graph outlined into wrap_with_set_grad_enabled calls, as
// torch.export's replace_set_grad_with_hop_pass does for `with torch.no_grad():` blocks.
#pragma once
#include <vector>

#include "fakeexport/export/graph.h"

namespace fe::detail {

/// The nodes recorded while grad mode was `enabled` (a NoGradScope): those after `before` up to
/// and including `last`, in graph order.
struct GradRegion {
  Node* before = nullptr;
  Node* last = nullptr;
  bool enabled = false;
};

/// Moves each region's nodes into a subgraph `submod_<2k+1>` (torch.fx's split_module numbering:
/// the parts before and after a region are inlined back) called through
/// `wrap_with_set_grad_enabled(enabled, submod, *operands)`: values it reads from before become
/// placeholders named after them; values used after it come back through getitem nodes named after
/// the subgraph's outputs.
void outline_grad_regions(Graph& g, const std::vector<GradRegion>& regions);

}  // namespace fe::detail
