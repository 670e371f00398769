// See decompose_vmap.h. The rules follow functorch's BatchRulesBinaryOps (_binary_pointwise_batch_rule:
// move the batch dim to the front, maybePadToLogicalRank with a view) and BatchRulesFactory
// (NEW_BLAH_BATCH_RULE: the batch size prepended to the requested size).
#include "export/decompose_vmap.h"

#include <algorithm>
#include <set>
#include <string_view>

#include "fakeexport/core/error.h"
#include "fakeexport/ops/api.h"

namespace fe::detail::vmap_retrace {
namespace {

bool is_binary_pointwise(std::string_view name) {
  static const std::set<std::string_view> k = {
      "le", "lt", "ge", "gt", "eq", "ne", "__and__", "__or__", "__xor__", "bitwise_and", "bitwise_or", "bitwise_xor",
      "logical_and", "logical_or", "logical_xor", "add", "sub", "mul", "div", "minimum", "maximum", "where"};
  return k.count(name) > 0;
}

bool is_new_factory(std::string_view name) {
  return name == "new_ones" || name == "new_zeros" || name == "new_empty" || name == "new_full";
}

std::vector<SymInt> sizes_of(const Tensor& t) { return {t.sizes().begin(), t.sizes().end()}; }

}  // namespace

Batched call(const OpDef& op_in, std::vector<IValue> args, std::vector<Levels> levels) {
  // functorch batches a CompositeImplicit op through its decomposition, whatever the table:
  // `__and__` runs as bitwise_and.
  const OpDef* mapped = &op_in;
  if (op_in.schema.name == "__and__" || op_in.schema.name == "__or__" || op_in.schema.name == "__xor__")
    mapped = &registry().get("aten::bitwise_" + op_in.schema.name.substr(2, op_in.schema.name.size() - 4) + "." +
                             op_in.schema.overload);
  const OpDef& op = *mapped;
  levels.resize(args.size());
  Levels all;
  for (const Levels& l : levels) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  const std::string_view name = op.schema.name;
  Batched r;
  r.levels = all;
  if (name == "_assert_tensor_metadata") {
    r.dropped = true;
    return r;
  }
  if (is_new_factory(name)) {
    FE_CHECK(!levels[0].empty() && args.size() > 1, UnknownOpError, "decompose: ", op.qualified,
             " on a vmapped value: only its self may be batched");
    const Tensor& self = std::get<Tensor>(args[0]);
    std::vector<SymInt> size(self.sizes().begin(), self.sizes().begin() + static_cast<std::ptrdiff_t>(levels[0].size()));
    const auto& want = std::get<std::vector<SymInt>>(args[1]);
    size.insert(size.end(), want.begin(), want.end());
    args[1] = std::move(size);
    r.outs = dispatch(op, std::move(args), SrcLocArg{});
    r.levels = levels[0];
    return r;
  }
  if (name == "to" || name == "_to_copy") {
    r.outs = dispatch(op, std::move(args), SrcLocArg{});
    return r;
  }
  FE_CHECK(is_binary_pointwise(name), UnknownOpError, "decompose: ", op.qualified,
           " on a vmapped value has no batching rule here (functorch's vmap is retraced for pointwise ops, "
           "new_* factories and conversions)");
  // Level by level from the innermost: at level L every operand batched there is padded (a view) to
  // the largest logical rank among the operands, which then run at the level below. Ops that
  // promote types (not comparisons) first read a batched logical scalar's first example for
  // result_type: a select PyTorch records and later drops, whose name it still takes.
  const bool promotes = !(name == "le" || name == "lt" || name == "ge" || name == "gt" || name == "eq" || name == "ne");
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    const int64_t level = *it;
    int64_t max_rank = 0;
    for (size_t i = 0; i < args.size(); ++i)
      if (const Tensor* t = std::get_if<Tensor>(&args[i]); t && t->defined())
        max_rank = std::max<int64_t>(max_rank, t->dim() - static_cast<int64_t>(levels[i].size()));
    for (size_t i = 0; i < args.size(); ++i) {
      const Tensor* t = std::get_if<Tensor>(&args[i]);
      if (!t || levels[i].empty() || levels[i].back() != level) continue;
      const int64_t rank = t->dim() - static_cast<int64_t>(levels[i].size());
      if (promotes && rank == 0) (void)t->select(static_cast<int64_t>(levels[i].size()) - 1, 0);
      if (rank < max_rank) {
        std::vector<SymInt> s = sizes_of(*t);
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(levels[i].size()), static_cast<size_t>(max_rank - rank),
                 SymInt(1));
        args[i] = fe::view(*t, s);
      }
      levels[i].pop_back();
    }
  }
  r.outs = dispatch(op, std::move(args), SrcLocArg{});
  return r;
}

Tensor expand_unbatched(const Tensor& physical, const Levels& levels, const SymInt& size) {
  const int64_t at = static_cast<int64_t>(levels.size());
  Tensor u = physical.unsqueeze(at);
  std::vector<SymInt> s = sizes_of(u);
  s[static_cast<size_t>(at)] = size;
  return u.expand(s);
}

}  // namespace fe::detail::vmap_retrace
