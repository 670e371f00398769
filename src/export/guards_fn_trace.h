// The input guards a retrace records, and drops: run_decompositions traces ep.module(), whose
// `_guards_fn` (torch/export/_unlift.py) asserts the inputs' range constraints and equalities and
// the program's guards_code on the traced inputs. Each size it reads is a `sym_size_int` node and
// each comparison an `le`, `ge`, `eq`, ... node; all die, but their names stay taken.
#pragma once
#include <functional>
#include <span>

#include "fakeexport/export/exported_program.h"

namespace fe::detail {

/// A user input of the module the retrace calls: its name in guards (`L['x']`) and metadata.
struct GuardInput {
  std::string name;
  const TensorMeta* meta;
};

/// Takes, in `g`, the names of the nodes `_guards_fn` records, in its order: per user input and
/// symbolic dim whose symbol has a range constraint, `dim >= min` (min > 2) and `dim <= max`
/// (finite max) at the symbol's first source, `dim == first source` at the others; then each
/// guard of `guards_code` (sizes `L['name'].size()[i]`, ints, `+ - * // %`, unary minus,
/// comparisons, `and`/`or` short-circuiting on the sizes' hints; a guard of another form takes no
/// names). The first read of each symbolic input size calls
/// `read_size`, which records its `sym_size_int` node (the body's reads of it reuse that node).
void take_guards_fn_names(Graph& g, std::span<const GuardInput> inputs,
                          const std::vector<std::pair<std::string, sym::ValueRange>>& range_constraints,
                          const std::vector<std::string>& guards_code,
                          const std::function<void(const SymInt&)>& read_size);

}  // namespace fe::detail
