// aten::einsum: ATen's CompositeImplicit einsum (Linear.cpp) replayed over metadata. Operands are
// diagonalised, unsqueezed and permuted to one label order, then contracted pairwise with
// sumproduct_pair (sum / mul / permute+bmm); the strides PyTorch reports come from those steps.
#include <algorithm>
#include <deque>

#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/einsum_bmms.h"
#include "ops/families.h"
#include "ops/linalg_meta.h"
#include "ops/meta_util.h"
#include "fakeexport/sym/shape_env.h"

namespace fe {
OpHandle op_einsum;
}  // namespace fe

namespace fe::ops::linalg {
namespace {

constexpr int kLetters = 26;
constexpr int kLabels = 2 * kLetters;
constexpr int kEllipsis = kLabels;

int to_subscript(unsigned char c) { return std::isupper(c) ? c - 'A' : c - 'a' + kLetters; }
char to_label(int s) { return static_cast<char>(s < kLetters ? s + 'A' : s + 'a' - kLetters); }

/// The parsed equation: each operand's subscripts (kEllipsis for "...") and, per label, its
/// position in the aligned (permuted) shape: output dims first, then contraction dims.
struct Plan {
  std::vector<std::vector<int>> op_labels;
  std::vector<int64_t> label_count = std::vector<int64_t>(kLabels, 0);
  std::vector<int64_t> perm_index_of = std::vector<int64_t>(kLabels, -1);
  int64_t ell_num_dim = 0, ell_index = 0, out_num_dim = 0, perm_index = 0;
};

template <class Dims>
Plan parse(std::string_view eq, size_t num_ops, const Dims& ndims, const std::string& lbl) {
  Plan p;
  FE_CHECK(num_ops > 0, ValueError, lbl, ": einsum(): must provide at least one operand");
  const size_t arrow = eq.find("->");
  const std::string_view lhs = eq.substr(0, arrow);
  p.op_labels.resize(num_ops);
  bool ell_in_input = false;
  size_t cur = 0;
  for (size_t i = 0; i < lhs.size(); ++i) {
    const unsigned char c = lhs[i];
    if (c == ' ') continue;
    if (c == '.') {
      FE_CHECK(!ell_in_input, ValueError, lbl, ": einsum(): found '.' for operand ", cur,
               " for which an ellipsis was already found");
      FE_CHECK(i + 2 < lhs.size() && lhs[++i] == '.' && lhs[++i] == '.', ValueError, lbl, ": einsum(): found '.' for operand ",
               cur, " that is not part of any ellipsis");
      p.op_labels[cur].push_back(kEllipsis);
      ell_in_input = true;
    } else if (c == ',') {
      ++cur;
      FE_CHECK(cur < num_ops, ValueError, lbl, ": einsum(): fewer operands were provided than specified in the equation");
      ell_in_input = false;
    } else {
      FE_CHECK(std::isalpha(c), ValueError, lbl, ": einsum(): invalid subscript given at index ", i,
               " in the equation string, subscripts must be in [a-zA-Z]");
      p.op_labels[cur].push_back(to_subscript(c));
    }
  }
  FE_CHECK(cur == num_ops - 1, ValueError, lbl, ": einsum(): more operands were provided than specified in the equation");
  for (size_t i = 0; i < num_ops; ++i) {
    const int64_t nd = ndims(i);
    int64_t nlabels = static_cast<int64_t>(p.op_labels[i].size());
    bool has_ell = false;
    for (int s : p.op_labels[i]) {
      if (s == kEllipsis) {
        --nlabels;
        has_ell = true;
        p.ell_num_dim = std::max(p.ell_num_dim, nd - nlabels);
      } else {
        ++p.label_count[s];
      }
    }
    FE_CHECK(has_ell ? nlabels <= nd : nlabels == nd, ShapeError, lbl, ": einsum(): the number of subscripts in the equation (",
             nlabels, has_ell ? ") is more than the number of dimensions (" : ") does not match the number of dimensions (",
             nd, ") for operand ", i, has_ell ? "" : " and no ellipsis was given");
  }
  bool ell_in_output = false;
  if (arrow == std::string_view::npos) {
    p.perm_index = p.ell_num_dim;
    ell_in_output = true;
    for (int s = 0; s < kLabels; ++s)
      if (p.label_count[s] == 1) p.perm_index_of[s] = p.perm_index++;
  } else {
    const std::string_view rhs = eq.substr(arrow + 2);
    for (size_t i = 0; i < rhs.size(); ++i) {
      const unsigned char c = rhs[i];
      if (c == ' ') continue;
      if (c == '.') {
        FE_CHECK(!ell_in_output, ValueError, lbl, ": einsum(): found '.' for output but an ellipsis (...) was already found");
        FE_CHECK(i + 2 < rhs.size() && rhs[++i] == '.' && rhs[++i] == '.', ValueError, lbl,
                 ": einsum(): found '.' for output that is not part of any ellipsis (...)");
        p.ell_index = p.perm_index;
        p.perm_index += p.ell_num_dim;
        ell_in_output = true;
        continue;
      }
      FE_CHECK(std::isalpha(c), ValueError, lbl, ": einsum(): invalid subscript given at index ", lhs.size() + 2 + i,
               " in the equation string, subscripts must be in [a-zA-Z]");
      const int s = to_subscript(c);
      FE_CHECK(p.label_count[s] > 0 && p.perm_index_of[s] == -1, ValueError, lbl, ": einsum(): output subscript ", c,
               p.perm_index_of[s] > -1 ? " appears more than once in the output"
                                       : " does not appear in the equation for any input operand");
      p.perm_index_of[s] = p.perm_index++;
    }
  }
  p.out_num_dim = p.perm_index;
  if (!ell_in_output) {
    p.ell_index = p.perm_index;
    p.perm_index += p.ell_num_dim;
  }
  for (int s = 0; s < kLabels; ++s)
    if (p.label_count[s] > 0 && p.perm_index_of[s] == -1) p.perm_index_of[s] = p.perm_index++;
  return p;
}

/// The copies einsum's reshapes make of operands they cannot view (ATen's sumproduct_pair:
/// permute(...).reshape(...) of both sides), held until the bmm that reads them returns.
struct EinsumCopies {
  SymInt pending = 0;          ///< bytes copied since the last bmm
  std::vector<SymInt> at_bmm;  ///< bytes live during each bmm
};

/// ATen's einsum steps over metadata: what the meta reports.
struct MetaSteps {
  using T = TensorMeta;
  const MetaArgs& a;
  std::vector<BmmSizes>* bmms = nullptr;  ///< records each bmm's sizes when set (einsum_bmms)
  EinsumCopies* copies = nullptr;         ///< records the reshapes' copies when set (einsum_scratch)
  static IntSpan sizes(const T& t) { return t.sizes; }
  static std::vector<SymInt> ints(std::span<const int64_t> v) { return {v.begin(), v.end()}; }
  static std::vector<SymInt> ints(IntSpan v) { return {v.begin(), v.end()}; }
  /// op.diagonal(0, d1, d2).movedim(-1, d1) with d1 < d2 (movedim as the permute it records).
  static T diagonal_movedim(const T& m, int64_t d1, int64_t d2) {
    const T d = meta_call(*op_diagonal, {&m, SymInt(0), SymInt(d1), SymInt(d2)});
    std::vector<int64_t> order;  // the last dim to d1, the others in order
    for (int64_t i = 0, next = 0; i < d.dim(); ++i) order.push_back(i == d1 ? d.dim() - 1 : next++);
    return permute(d, order);
  }
  static T unsqueeze(const T& m, int64_t d) { return meta_call(*op_unsqueeze, {&m, SymInt(d)}); }
  static T permute(const T& m, std::span<const int64_t> p) { return meta_call(*op_permute, {&m, ints(p)}); }
  static T sum(const T& m, std::span<const int64_t> dims, bool keepdim) {
    return meta_call(*op_sum_dim_IntList, {&m, ints(dims), keepdim, None{}});
  }
  T mul(const T& x, const T& y) const { return mul_meta(a, x, y); }
  T reshape(const T& m, IntSpan shape) const {
    if (copies) copies->pending = copies->pending + reshape_copy_bytes(m, shape);
    return meta_call(*op_reshape, {&m, ints(shape)});
  }
  T bmm(const T& x, const T& y) const {
    if (bmms) bmms->push_back({x.sizes[0], x.sizes[1], x.sizes[2], y.sizes[2]});
    if (copies) {
      copies->at_bmm.push_back(copies->pending);
      copies->pending = 0;
    }
    return bmm_meta(a, x, y);
  }
  static T view(const T& m, IntSpan shape) { return meta_call(*op_view, {&m, ints(shape)}); }
};

/// The same steps as the ops ATen's einsum calls, dispatched: what PyTorch's decomposition records.
struct DispatchSteps {
  using T = Tensor;
  const SrcLocArg& loc;
  static IntSpan sizes(const T& t) { return t.sizes(); }
  static std::vector<SymInt> ints(std::span<const int64_t> v) { return {v.begin(), v.end()}; }
  T diagonal_movedim(const T& t, int64_t d1, int64_t d2) const {
    const Tensor d = dispatch1(*op_diagonal, {t, SymInt(0), SymInt(d1), SymInt(d2)}, loc);
    std::vector<int64_t> order;  // movedim(-1, d1): the last dim to d1, the others in order
    for (int64_t i = 0, next = 0; i < d.dim(); ++i) order.push_back(i == d1 ? d.dim() - 1 : next++);
    return permute(d, order);
  }
  T unsqueeze(const T& t, int64_t d) const { return dispatch1(*op_unsqueeze, {t, SymInt(d)}, loc); }
  T permute(const T& t, std::span<const int64_t> p) const { return dispatch1(*op_permute, {t, ints(p)}, loc); }
  T sum(const T& t, std::span<const int64_t> dims, bool keepdim) const {
    return dispatch1(*op_sum_dim_IntList, {t, ints(dims), keepdim, None{}}, loc);
  }
  T mul(const T& x, const T& y) const { return dispatch1(*op_mul_Tensor, {x, y}, loc); }
  T reshape(const T& t, IntSpan shape) const {
    return dispatch1(*op_reshape, {t, std::vector<SymInt>(shape.begin(), shape.end())}, loc);
  }
  T bmm(const T& x, const T& y) const { return dispatch1(*op_bmm, {x, y}, loc); }
  T view(const T& t, IntSpan shape) const {
    return dispatch1(*op_view, {t, std::vector<SymInt>(shape.begin(), shape.end())}, loc);
  }
};

/// TORCH_SYM_CHECK(a.sym_eq(b), "non-broadcast dimensions must match") where neither size is 1:
/// an `eq` a trace records where either is symbolic; the operands' metas have checked it already.
void check_same_size(const SymInt& a, const SymInt& b) {
  if (a.is_symbolic() || b.is_symbolic()) (a.is_symbolic() ? a : b).node()->env->trace_compare(Rel::Eq, a, b);
}

/// ATen's sumproduct_pair: (left * right).sum(sum_dims, keepdim=True) as a mul when nothing is
/// summed, else permute + reshape of both to [lro, lo, sum] x [lro, sum, ro], bmm, view, permute.
template <class S>
typename S::T sumproduct_pair(const S& st, typename S::T left, typename S::T right, const std::vector<int64_t>& sum_dims) {
  if (sum_dims.empty()) return st.mul(left, right);
  const int64_t dim = static_cast<int64_t>(S::sizes(left).size());
  std::vector<bool> is_sum(dim, false);
  for (int64_t d : sum_dims) is_sum[d] = true;
  std::vector<int64_t> lro, lo, ro;
  SymInt lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
  for (int64_t i = 0; i < dim; ++i) {
    const SymInt ls = S::sizes(left)[i], rs = S::sizes(right)[i];
    const int64_t one[1] = {i};
    // TORCH_GUARD_OR_TRUE(size.sym_ne(1)) of both sides, each asked once (a trace records each).
    const bool sl = ls != 1, sr = rs != 1;
    if (sl && sr) check_same_size(ls, rs);
    if (is_sum[i]) {
      if (sl && sr) sum_size = peephole_mul(sum_size, ls);
      else if (sl) left = st.sum(left, one, true);
      else if (sr) right = st.sum(right, one, true);
    } else if (sl && sr) {
      lro.push_back(i);
      lro_size = peephole_mul(lro_size, ls);
    } else if (sl) {
      lo.push_back(i);
      lo_size = peephole_mul(lo_size, ls);
    } else {
      ro.push_back(i);
      ro_size = peephole_mul(ro_size, rs);
    }
  }
  // PyTorch 2.14 swaps the operands when every right-only output dim precedes the left-only ones,
  // so that bmm writes the result in output order (measured: 'ik,jk->ji' multiplies right by left).
  if (!lo.empty() && !ro.empty() && ro.back() < lo.front()) {
    std::swap(left, right);
    std::swap(lo, ro);
    std::swap(lo_size, ro_size);
  }
  DimVector out_size;
  for (int64_t d : lro) out_size.push_back(S::sizes(left)[d]);
  for (int64_t d : lo) out_size.push_back(S::sizes(left)[d]);
  for (size_t k = 0; k < sum_dims.size(); ++k) out_size.push_back(1);
  for (int64_t d : ro) out_size.push_back(S::sizes(right)[d]);
  std::vector<int64_t> lperm(lro), rperm(lro), operm(out_size.size(), -1);
  lperm.insert(lperm.end(), lo.begin(), lo.end());
  lperm.insert(lperm.end(), sum_dims.begin(), sum_dims.end());
  lperm.insert(lperm.end(), ro.begin(), ro.end());
  rperm.insert(rperm.end(), sum_dims.begin(), sum_dims.end());
  rperm.insert(rperm.end(), ro.begin(), ro.end());
  rperm.insert(rperm.end(), lo.begin(), lo.end());
  int64_t i = 0;
  for (int64_t d : lro) operm[d] = i++;
  for (int64_t d : lo) operm[d] = i++;
  for (int64_t d : sum_dims) operm[d] = i++;
  for (int64_t d : ro) operm[d] = i++;
  const SymInt ls[3] = {lro_size, lo_size, sum_size}, rs[3] = {lro_size, sum_size, ro_size};
  left = st.reshape(st.permute(left, lperm), ls);
  right = st.reshape(st.permute(right, rperm), rs);
  return st.permute(st.view(st.bmm(left, right), out_size), operm);
}

/// TORCH_SYM_CHECK(seen.sym_eq(1).sym_or(seen.sym_eq(size))): both comparisons are made and
/// or'ed, each a node a trace records where an operand is symbolic (`eq`, `eq`, `or_`), then the
/// check, answered here without recording it again.
bool broadcasts_with(const SymInt& seen, const SymInt& size) {
  const SymInt* sym = seen.is_symbolic() ? &seen : size.is_symbolic() ? &size : nullptr;
  if (!sym) return seen.hint() == 1 || seen.hint() == size.hint();
  sym::ShapeEnv& env = *sym->node()->env;
  if (seen.is_symbolic()) env.trace_compare(Rel::Eq, seen, SymInt(1));
  env.trace_compare(Rel::Eq, seen, size);
  if (sym::SymTracer* t = env.user_tracer()) t->on_bool_op("or_");
  const SymInt both[] = {seen, size};
  UntracedArithmetic untraced("aten::einsum", both);
  return seen == 1 || seen == size;
}

/// ATen's einsum (CompositeImplicit, Linear.cpp) over either step set: each operand diagonalised
/// for repeated labels, unsqueezed for missing ones and permuted to the plan's label order; then
/// pairs contracted left to right (the result in front) or along `path` (the result at the back),
/// dims only one side still holds summed first; the contraction dims viewed (or summed) away.
template <class S>
typename S::T run_einsum(const S& st, std::string_view eq, const std::vector<typename S::T>& operands,
                         const std::optional<std::vector<SymInt>>& path, const std::string& lbl) {
  using T = typename S::T;
  const size_t num_ops = operands.size();
  if (path) {
    const size_t want = num_ops == 1 ? 1 : (num_ops - 1) * 2;
    FE_CHECK(path->size() == want, ValueError, lbl, ": einsum(): expected contraction path given in path parameter to have size ",
             want, " but got ", path->size());
  }
  Plan p = parse(eq, num_ops, [&](size_t i) { return static_cast<int64_t>(S::sizes(operands[i]).size()); }, lbl);

  std::vector<SymInt> label_size(kLabels, 1), ell_sizes(p.ell_num_dim, 1);
  std::vector<uint64_t> dim_counts(p.perm_index, 0);
  std::deque<T> ops;
  for (size_t i = 0; i < num_ops; ++i) {
    T op = operands[i];
    const int64_t op_ndim = static_cast<int64_t>(S::sizes(operands[i]).size());
    std::vector<int64_t> perm(p.perm_index, -1);
    int64_t dim = 0;
    for (int s : p.op_labels[i]) {
      if (s == kEllipsis) {
        const int64_t ndim = op_ndim - (static_cast<int64_t>(p.op_labels[i].size()) - 1);
        for (int64_t j = p.ell_num_dim - ndim; j < p.ell_num_dim; ++j) {
          const SymInt size = S::sizes(op)[dim];
          if (size != 1) {
            FE_CHECK(broadcasts_with(ell_sizes[j], size), ShapeError, lbl, ": einsum(): dimension ", dim,
                     " covered by ellipsis in operand ", i, "has size ", size,
                     " which does not broadcast with previously seen ellipsis with size ", ell_sizes[j],
                     " for the respective dimension");
            ell_sizes[j] = size;
            ++dim_counts[p.ell_index + j];
          }
          perm[p.ell_index + j] = dim++;
        }
      } else if (perm[p.perm_index_of[s]] == -1) {
        const SymInt size = S::sizes(op)[dim];
        if (size != 1) {
          FE_CHECK(broadcasts_with(label_size[s], size), ShapeError, lbl, ": einsum(): subscript ", to_label(s),
                   " has size ", size, " for operand ", i, " which does not broadcast with previously seen size ",
                   label_size[s]);
          label_size[s] = size;
          ++dim_counts[p.perm_index_of[s]];
        }
        perm[p.perm_index_of[s]] = dim++;
      } else {
        const int64_t prev = perm[p.perm_index_of[s]];
        const SymInt size = S::sizes(op)[dim], prev_size = S::sizes(op)[prev];
        FE_CHECK(size == prev_size, ShapeError, lbl, ": einsum(): subscript ", to_label(s), " is repeated for operand ", i,
                 " but the sizes don't match, ", size, " != ", prev_size);
        op = st.diagonal_movedim(op, prev, dim);
      }
    }
    for (int64_t& v : perm) {
      if (v == -1) {
        op = st.unsqueeze(op, dim);
        v = dim++;
      }
    }
    ops.push_back(st.permute(op, perm));
  }

  size_t pi = 0;
  while (ops.size() > 1) {
    int64_t i = 0, j = 1;
    if (path) {
      i = (*path)[pi++].expect_int();
      j = (*path)[pi++].expect_int();
      if (j < i) std::swap(i, j);
      FE_CHECK(i != j && i >= 0 && j < static_cast<int64_t>(ops.size()), ValueError, lbl, ": einsum(): invalid contraction (",
               i, ", ", j, i == j ? ") cannot contract an operand with itself" : ") operand index is out of bounds");
    }
    T x = ops[i], y = ops[j];
    ops.erase(ops.begin() + j);
    ops.erase(ops.begin() + i);
    std::vector<int64_t> sum_dims, x_sum, y_sum;
    for (int64_t d = p.out_num_dim; d < p.perm_index; ++d) {
      const bool xd = S::sizes(x)[d] != 1, yd = S::sizes(y)[d] != 1;
      if (xd && yd) {
        check_same_size(S::sizes(x)[d], S::sizes(y)[d]);
        if (--dim_counts[d] == 1) {
          sum_dims.push_back(d);
          dim_counts[d] = 0;
        }
      } else if (dim_counts[d] == 1) {
        if (xd) {
          x_sum.push_back(d);
          dim_counts[d] = 0;
        } else if (yd) {
          y_sum.push_back(d);
          dim_counts[d] = 0;
        }
      }
    }
    if (!x_sum.empty()) x = st.sum(x, x_sum, true);
    if (!y_sum.empty()) y = st.sum(y, y_sum, true);
    T r = sumproduct_pair(st, std::move(x), std::move(y), sum_dims);
    if (path) ops.push_back(std::move(r));
    else ops.push_front(std::move(r));
  }

  if (p.perm_index - p.out_num_dim == 0) return ops[0];
  const IntSpan all = S::sizes(ops[0]);
  if (num_ops > 1) return st.view(ops[0], all.subspan(0, p.out_num_dim));
  std::vector<int64_t> sum_dims;
  for (int64_t d = p.out_num_dim; d < p.perm_index; ++d) sum_dims.push_back(d);
  return st.sum(ops[0], sum_dims, false);
}

std::optional<std::vector<SymInt>> path_of(const MetaArgs& a) {
  if (a.is_none(2)) return std::nullopt;
  return a.int_list(2);
}

TensorMeta einsum_meta(const MetaArgs& a, std::vector<BmmSizes>* bmms, EinsumCopies* copies = nullptr) {
  const auto& ts = a.tensor_list(1);
  std::vector<TensorMeta> operands;
  operands.reserve(ts.size());
  for (const TensorMeta* t : ts) operands.push_back(*t);
  return run_einsum(MetaSteps{a, bmms, copies}, a.str(0), operands, path_of(a), label(a));
}

/// What eager einsum holds beyond its output while it runs: the largest set of operand copies
/// live during one of its bmms (measured against MemTracker: XLNet's and LongT5's attention).
SymInt scratch_einsum(const MetaArgs& a) {
  EinsumCopies copies;
  (void)einsum_meta(a, nullptr, &copies);
  SymInt peak = 0;
  for (const SymInt& b : copies.at_bmm) peak = sym_max(peak, b);
  return peak;
}

void meta_einsum(const MetaArgs& a, MetaOut& out) {
  TensorMeta r = einsum_meta(a, nullptr);
  r.requires_grad = false;
  out.push(std::move(r));
}

/// The CompositeImplicit kernel, as run_decompositions() records it.
std::vector<Tensor> decomp_einsum(std::span<const IValue> a, const SrcLocArg& loc) {
  std::optional<std::vector<SymInt>> path;
  if (const auto* v = std::get_if<std::vector<SymInt>>(&a[2])) path = *v;
  return {run_einsum(DispatchSteps{loc}, std::get<std::string>(a[0]), std::get<std::vector<Tensor>>(a[1]), path,
                     std::string("aten::einsum"))};
}

// Reference kernel: sum over every assignment of the labels of the product of the operands.
void cpu_einsum(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const auto& ts = std::get<std::vector<Tensor>>(a[1]);
  Plan p = parse(std::get<std::string>(a[0]), ts.size(), [&](size_t i) { return ts[i].dim(); }, "aten::einsum");
  // Aligned axis (0..perm_index) of every operand dim; sizes per axis (1 = broadcast).
  std::vector<int64_t> axis_size(p.perm_index, 1);
  std::vector<std::vector<int64_t>> axis_of(ts.size());
  std::vector<View> views;
  for (size_t i = 0; i < ts.size(); ++i) {
    views.push_back(view_of(ts[i]));
    const int64_t ndim = ts[i].dim() - (static_cast<int64_t>(p.op_labels[i].size()) - 1);
    for (int s : p.op_labels[i]) {
      if (s == kEllipsis) {
        for (int64_t j = p.ell_num_dim - ndim; j < p.ell_num_dim; ++j) axis_of[i].push_back(p.ell_index + j);
      } else {
        axis_of[i].push_back(p.perm_index_of[s]);
      }
    }
    for (size_t d = 0; d < axis_of[i].size(); ++d)
      axis_size[axis_of[i][d]] = std::max(axis_size[axis_of[i][d]], views[i].sizes[d]);
  }
  for (size_t i = 0; i < ts.size(); ++i)
    for (size_t d = 0; d < axis_of[i].size(); ++d)
      if (views[i].sizes[d] == 0) axis_size[axis_of[i][d]] = 0;
  int64_t n_out = 1, n_all = 1;
  for (int64_t d = 0; d < p.perm_index; ++d) (d < p.out_num_dim ? n_out : n_all) *= axis_size[d];
  std::vector<double> vals(static_cast<size_t>(n_out), 0.0);
  std::vector<int64_t> idx(p.perm_index, 0), opidx;
  for (int64_t e = 0; e < n_out * n_all; ++e) {
    double prod = 1;
    for (size_t i = 0; i < ts.size(); ++i) {
      opidx.assign(axis_of[i].size(), 0);
      for (size_t d = 0; d < axis_of[i].size(); ++d) opidx[d] = views[i].sizes[d] == 1 ? 0 : idx[axis_of[i][d]];
      prod *= views[i].at(opidx);
    }
    int64_t flat = 0;
    for (int64_t d = 0; d < p.out_num_dim; ++d) flat = flat * axis_size[d] + idx[d];
    vals[flat] += prod;
    for (int64_t d = p.perm_index; d-- > 0;) {
      if (++idx[d] < axis_size[d]) break;
      idx[d] = 0;
    }
  }
  store_rowmajor(o[0], vals);
}

}  // namespace

void register_einsum_ops(Registry& r) {
  op_einsum = r.add({.schema = "aten::einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor",
                     .meta = meta_einsum, .cpu = cpu_einsum, .decomp = decomp_einsum, .scratch = scratch_einsum});
}

}  // namespace fe::ops::linalg

namespace fe::ops {
std::vector<BmmSizes> einsum_bmms(std::span<const MetaValue> args) {
  std::vector<BmmSizes> bmms;
  linalg::einsum_meta(MetaArgs(*op_einsum, args), &bmms);
  return bmms;
}

int64_t einsum_contracted_size(std::span<const MetaValue> args) {
  using namespace linalg;
  const MetaArgs a(*op_einsum, args);
  const auto& ts = a.tensor_list(1);
  for (const TensorMeta* t : ts) FE_CHECK(t, ValueError, label(a), ": einsum(): an operand is None");
  const Plan p = parse(a.str(0), ts.size(), [&](size_t i) { return ts[i]->dim(); }, label(a));
  std::vector<int64_t> size(kLabels, 1), ell(static_cast<size_t>(p.ell_num_dim), 1);  // broadcast: the largest
  for (size_t i = 0; i < ts.size(); ++i) {
    const int64_t nd = ts[i]->dim(), ell_dims = nd - (static_cast<int64_t>(p.op_labels[i].size()) - 1);
    int64_t d = 0;
    for (int s : p.op_labels[i]) {
      if (s != kEllipsis) {
        size[s] = std::max(size[s], ts[i]->sizes[d++].hint());
        continue;
      }
      for (int64_t e = 0; e < ell_dims; ++e, ++d) {
        int64_t& slot = ell[static_cast<size_t>(p.ell_num_dim - ell_dims + e)];
        slot = std::max(slot, ts[i]->sizes[d].hint());
      }
    }
  }
  int64_t contracted = 1;
  for (int s = 0; s < kLabels; ++s)
    if (p.label_count[s] > 0 && p.perm_index_of[s] >= p.out_num_dim) contracted *= size[s];
  if (p.ell_index >= p.out_num_dim)  // "...", left out of an explicit output, is summed
    for (int64_t e : ell) contracted *= e;
  return contracted;
}
}  // namespace fe::ops
