// fe::run inside functorch's vmap, traced inline (transformers' mask functions): batched values
// carry their vmap levels as leading dims (run_runner.h).
#include <algorithm>
#include <unordered_set>

#include "fakeexport/core/error.h"
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "export/run_runner.h"

namespace fe::run_detail {

const Runner::Levels* Runner::levels_of(const Node* n) const {
  auto it = batched_.find(n);
  return it == batched_.end() ? nullptr : &it->second;
}

int64_t Runner::int_arg(const Node& n, size_t i, const Vals& vals) const {
  // A symbolic size (a dynamic batch or seq): its value in this run.
  if (const auto* m = i < n.args().size() ? std::get_if<Node*>(&n.args()[i]) : nullptr; m && *m)
    if (auto it = vals.find(*m); it != vals.end())
      if (const auto* v = std::get_if<int64_t>(&it->second)) return *v;
  const auto* v = i < n.args().size() ? std::get_if<SymInt>(&n.args()[i]) : nullptr;
  FE_CHECK(v, ValueError, "run: ", n.name(), ": argument ", i, " must be an int");
  return int_of(*v, vals);
}

Value Runner::vmap_call(const Node& n, const Vals& vals) {
  const CallableKind kind = n.callable()->kind;
  if (kind == CallableKind::VmapNesting) return std::monostate{};
  const Node* xn = n.args().empty() ? nullptr : std::get<Node*>(n.args()[vmap_arg::kX]);
  FE_CHECK(xn, ValueError, "run: ", n.name(), ": no tensor operand");
  Tensor x = tensor_of(xn, vals);
  Levels lv = levels_of(xn) ? *levels_of(xn) : Levels{};
  const auto nl = static_cast<int64_t>(lv.size());
  if (kind == CallableKind::AddBatchDim) {  // the new level is the innermost one
    const int64_t in_dim = int_arg(n, vmap_arg::kAddInDim, vals), level = int_arg(n, vmap_arg::kAddLevel, vals);
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < x.dim(); ++d)
      if (d != nl + in_dim) perm.push_back(d);
    perm.insert(perm.begin() + nl, nl + in_dim);
    lv.push_back(level);
    batched_[&n] = lv;
    return fe::permute(x, perm);
  }
  if (kind == CallableKind::RemoveBatchDim) {
    const int64_t level = int_arg(n, vmap_arg::kRemoveLevel, vals), size = int_arg(n, vmap_arg::kRemoveSize, vals),
                  out_dim = int_arg(n, vmap_arg::kRemoveOutDim, vals);
    auto it = std::find(lv.begin(), lv.end(), level);
    Tensor r;
    if (it == lv.end()) {  // not batched at this level: every example is the same
      Tensor u = fe::unsqueeze(x, nl + out_dim);
      Sizes shape(u.sizes().begin(), u.sizes().end());
      shape[static_cast<size_t>(nl + out_dim)] = size;
      r = fe::expand(u, shape);
    } else {
      const int64_t p = it - lv.begin();
      lv.erase(it);
      std::vector<int64_t> perm;
      for (int64_t d = 0; d < x.dim(); ++d)
        if (d != p) perm.push_back(d);
      perm.insert(perm.begin() + (nl - 1) + out_dim, p);
      r = fe::permute(x, perm);
    }
    if (!lv.empty()) batched_[&n] = lv;
    return r;
  }
  throw UnknownOpError(detail::cat("run: ", n.callable()->target, " cannot be executed (node '", n.name(), "')"));
}

/// An op with batched operands. Pointwise ops run on the physical tensors, each operand's
/// levels and per-example dims aligned (size 1 where absent); new_* factories and metadata
/// asserts do not depend on the batch. Anything else has no batching rule here.
std::optional<Value> Runner::call_batched(const Node& n, std::vector<IValue>& args) {
  Levels all;
  for (const NodeArg& a : n.args())
    if (auto* p = std::get_if<Node*>(&a); p && *p)
      if (const Levels* l = levels_of(*p)) all.insert(all.end(), l->begin(), l->end());
  if (all.empty()) return std::nullopt;
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  const OpDef& op = *n.target();
  const std::string& name = op.schema.name;
  if (name == "_assert_tensor_metadata") return Value(std::monostate{});  // dtype/device/layout only
  if (name.starts_with("new_")) {
    std::vector<Tensor> outs = dispatch(op, std::move(args), n.loc.value_or(SrcLocArg::current()));
    return Value(outs.at(0));
  }
  static const std::unordered_set<std::string_view> pointwise = {
      "add", "sub", "rsub", "mul", "div", "eq", "ne", "lt", "le", "gt", "ge", "__and__", "__or__", "__xor__",
      "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "logical_and", "logical_or", "logical_xor",
      "logical_not", "where", "to", "_to_copy", "neg", "abs", "clone", "minimum", "maximum", "remainder",
      "floor_divide", "pow", "masked_fill", "detach", "alias"};
  FE_CHECK(pointwise.count(name), UnknownOpError, "run: ", op.qualified, " inside functorch vmap (node '", n.name(),
           "'): no batching rule yet");
  int64_t rank = 0;  // the largest per-example rank
  for (size_t i = 0; i < args.size(); ++i)
    if (auto* t = std::get_if<Tensor>(&args[i]); t && t->defined()) {
      const Node* src = i < n.args().size() && std::holds_alternative<Node*>(n.args()[i]) ? std::get<Node*>(n.args()[i]) : nullptr;
      const Levels* l = src ? levels_of(src) : nullptr;
      rank = std::max<int64_t>(rank, t->dim() - (l ? static_cast<int64_t>(l->size()) : 0));
    }
  for (size_t i = 0; i < args.size(); ++i) {
    auto* t = std::get_if<Tensor>(&args[i]);
    if (!t || !t->defined()) continue;
    const Node* src = i < n.args().size() && std::holds_alternative<Node*>(n.args()[i]) ? std::get<Node*>(n.args()[i]) : nullptr;
    const Levels* l = src ? levels_of(src) : nullptr;
    Tensor x = *t;
    const int64_t own = l ? static_cast<int64_t>(l->size()) : 0;
    for (int64_t k = x.dim() - own; k < rank; ++k) x = fe::unsqueeze(x, own);  // per-example rank
    for (size_t k = 0; k < all.size(); ++k)  // a size-1 dim for each level it lacks
      if (!l || std::find(l->begin(), l->end(), all[k]) == l->end()) x = fe::unsqueeze(x, static_cast<int64_t>(k));
    *t = x;
  }
  std::vector<Tensor> outs = dispatch(op, std::move(args), n.loc.value_or(SrcLocArg::current()));
  FE_CHECK(outs.size() == 1, UnknownOpError, "run: ", op.qualified, " inside functorch vmap returns ", outs.size(),
           " tensors");
  batched_[&n] = all;
  return Value(outs[0]);
}
}  // namespace fe::run_detail
