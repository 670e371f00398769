// Functionalization of the retrace (see functionalize.h): PyTorch's FunctionalTensorWrapper /
// FunctionalStorageImpl bookkeeping, with the view inverses of its FunctionalInverses.cpp for the
// views exported programs contain.
#include "export/functionalize.h"

#include <string>

#include "fakeexport/core/error.h"
#include "fakeexport/ops/dispatch.h"

namespace fe::detail {
namespace {

const OpDef& op_named(const char* name) {
  static std::unordered_map<std::string, const OpDef*> cache;
  auto [it, fresh] = cache.try_emplace(name, nullptr);
  if (fresh) it->second = &registry().get(name);
  return *it->second;
}

Tensor call1(const OpDef& op, std::vector<IValue> args) { return dispatch(op, std::move(args), SrcLocArg{})[0]; }

/// The view `step` of `t` (the ViewMeta's forward function).
Tensor forward(const ViewStep& step, const Tensor& t) {
  std::vector<IValue> args = step.args;
  args[0] = t;
  std::vector<Tensor> outs = dispatch(*step.op, std::move(args), SrcLocArg{});
  return outs.at(step.out_index < 0 ? 0 : static_cast<size_t>(step.out_index));
}

int64_t int_arg(const ViewStep& s, size_t i, int64_t dflt) {
  if (i >= s.args.size()) return dflt;
  if (const auto* v = std::get_if<SymInt>(&s.args[i])) return v->expect_int();
  return dflt;
}
int64_t wrap_dim(int64_t d, int64_t rank) { return d < 0 ? d + std::max<int64_t>(rank, 1) : d; }

/// `base` with `mutated` written where `step` viewed it (the ViewMeta's reverse function).
Tensor reverse(const ViewStep& step, const Tensor& base, const Tensor& mutated) {
  const OpDef& op = *step.op;
  const std::string& name = op.schema.name;
  const std::vector<SymInt> base_sizes(base.sizes().begin(), base.sizes().end());
  if (name == "select") return call1(op_named("aten::select_scatter"), {base, mutated, step.args[1], step.args[2]});
  if (name == "slice")
    return call1(op_named("aten::slice_scatter"), {base, mutated, step.args[1], step.args[2], step.args[3], step.args[4]});
  if (name == "narrow") {
    const SymInt start = std::get<SymInt>(step.args[2]);
    return call1(op_named("aten::slice_scatter"),
                 {base, mutated, step.args[1], start, start + std::get<SymInt>(step.args[3]), SymInt(1)});
  }
  if (name == "view" || name == "_unsafe_view" || name == "reshape" || name == "flatten" || name == "unflatten" ||
      name == "view_as")
    return call1(op_named("aten::view"), {mutated, base_sizes});
  if (name == "unsqueeze") return call1(op_named("aten::squeeze.dim"), {mutated, step.args[1]});
  if (name == "squeeze" && op.schema.overload == "dim")
    return call1(op_named("aten::unsqueeze"), {mutated, step.args[1]});
  if (name == "permute") {
    const auto& dims = std::get<std::vector<SymInt>>(step.args[1]);
    std::vector<SymInt> inverse(dims.size());
    for (size_t i = 0; i < dims.size(); ++i)
      inverse[static_cast<size_t>(wrap_dim(dims[i].expect_int(), base.dim()))] = SymInt(static_cast<int64_t>(i));
    return call1(op_named("aten::permute"), {mutated, inverse});
  }
  if (name == "transpose") return call1(op_named("aten::transpose.int"), {mutated, step.args[1], step.args[2]});
  if (name == "t") return call1(op_named("aten::t"), {mutated});
  if (name == "alias" || name == "detach") return mutated;
  if (name == "unbind")
    return call1(op_named("aten::select_scatter"), {base, mutated, SymInt(int_arg(step, 1, 0)), SymInt(step.out_index)});
  if (name == "split" || name == "split_with_sizes" || name == "chunk") {
    const int64_t dim = wrap_dim(int_arg(step, 2, 0), base.dim());
    const SymInt size = base.sizes()[static_cast<size_t>(dim)];
    SymInt start(0), end(0);
    if (name == "split_with_sizes") {
      const auto& sizes = std::get<std::vector<SymInt>>(step.args[1]);
      for (int i = 0; i < step.out_index; ++i) start = start + sizes[static_cast<size_t>(i)];
      end = start + sizes[static_cast<size_t>(step.out_index)];
    } else {
      // split.Tensor's split_size; chunk's is ceil(size / chunks).
      const int64_t n = size.expect_int(), arg = int_arg(step, 1, 1);
      const int64_t split = name == "chunk" ? (n + arg - 1) / arg : arg;
      start = SymInt(split * step.out_index);
      end = SymInt(std::min(split * (step.out_index + 1), n));
    }
    return call1(op_named("aten::slice_scatter"), {base, mutated, SymInt(dim), start, end, SymInt(1)});
  }
  throw UnknownOpError(detail::cat("decompose: a mutation through a view made by ", op.qualified,
                                   " is not functionalized yet (in-place op on such a view)"));
}

/// FunctionalStorageImpl::apply_update: the update's value scattered into `base` through its views
/// (the intermediate views of the base replayed first, then inverted from the innermost out).
Tensor apply_update(const FunctionalUpdate& u, const Tensor& base) {
  if (u.chain.empty()) return u.value;
  std::vector<Tensor> tmp{base};
  for (size_t i = 0; i + 1 < u.chain.size(); ++i) tmp.push_back(forward(u.chain[i], tmp.back()));
  Tensor t = u.value;
  for (size_t i = u.chain.size(); i-- > 0;) t = reverse(u.chain[i], tmp[i], t);
  return t;
}

}  // namespace

FRef functional_fresh(const Tensor& t) {
  auto f = std::make_shared<FunctionalTensor>();
  f->value = t;
  f->storage = std::make_shared<FunctionalStorage>();
  f->storage->base = t;
  return f;
}

FRef functional_view(const FRef& base, const OpDef& op, std::vector<IValue> args, int out_index, const Tensor& out) {
  auto f = std::make_shared<FunctionalTensor>();
  f->value = out;
  f->storage = base->storage;
  f->chain = base->chain;
  f->chain.push_back(ViewStep{&op, std::move(args), out_index});
  return f;
}

const Tensor& functional_sync(FunctionalTensor& t) {
  FunctionalStorage& s = *t.storage;
  if (t.generation == s.generation) return t.value;
  for (const FunctionalUpdate& u : s.pending) s.base = apply_update(u, s.base);
  s.pending.clear();
  Tensor v = s.base;
  for (const ViewStep& step : t.chain) v = forward(step, v);
  t.value = v;
  t.generation = s.generation;
  return t.value;
}

void functional_mutate(FunctionalTensor& t, const Tensor& new_value) {
  t.value = new_value;
  t.storage->pending.push_back({new_value, t.chain});
  ++t.storage->generation;
  functional_sync(t);
}

}  // namespace fe::detail
