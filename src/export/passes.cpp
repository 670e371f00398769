#include "fakeexport/export/passes.h"

namespace fe {

bool DeadCodeElimination::run(Graph& g) {
  bool changed = false;
  // Reverse order removes whole dead chains in one sweep.
  for (size_t i = g.nodes().size(); i-- > 0;) {
    Node* n = g.nodes()[i].get();
    // Size arithmetic nobody reads goes too (FX's operator nodes are pure), so a later pass
    // reuses the value where it is next computed, not where a dead chain first made it.
    const bool pure = n->op() == NodeOp::GetItem || n->op() == NodeOp::SymOp ||
                      (n->op() == NodeOp::CallFunction && !n->target()->side_effect);
    if (!pure || !n->users().empty()) continue;
    g.erase(n, keep_names);
    changed = true;
  }
  return changed;
}

}  // namespace fe
