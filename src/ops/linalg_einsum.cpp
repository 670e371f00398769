// aten::einsum: ATen's CompositeImplicit einsum (Linear.cpp) replayed over metadata. Operands are
// diagonalised, unsqueezed and permuted to one label order, then contracted pairwise with
// sumproduct_pair (sum / mul / permute+bmm); the strides PyTorch reports come from those steps.
#include <deque>

#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/linalg_meta.h"

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

TensorMeta diagonal_movedim(const TensorMeta& m, int64_t d1, int64_t d2) {
  // op.diagonal(0, d1, d2).movedim(-1, d1) with d1 < d2.
  TensorMeta r = m;
  const SymInt size = std::min(m.sizes[d1], m.sizes[d2]);
  const SymInt stride = m.strides[d1] + m.strides[d2];
  r.sizes.erase_at(d2);
  r.strides.erase_at(d2);
  r.sizes[d1] = size;
  r.strides[d1] = stride;
  return r;
}

DType sum_dtype(DType t) { return is_integral(t, true) ? DType::Int64 : t; }

TensorMeta sum_keepdim(const TensorMeta& m, std::span<const int64_t> dims) {
  DimVector sizes = m.sizes;
  for (int64_t d : dims) sizes[d] = 1;
  return make_contiguous(sizes, sum_dtype(m.dtype), m.device);
}

TensorMeta sumproduct_pair(const MetaArgs& a, TensorMeta left, TensorMeta right, const std::vector<int64_t>& sum_dims) {
  if (sum_dims.empty()) return mul_meta(a, left, right);
  const int64_t dim = left.dim();
  std::vector<bool> is_sum(dim, false);
  for (int64_t d : sum_dims) is_sum[d] = true;
  std::vector<int64_t> lro, lo, ro;
  SymInt lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
  for (int64_t i = 0; i < dim; ++i) {
    const bool sl = left.sizes[i] != 1, sr = right.sizes[i] != 1;
    const int64_t one[1] = {i};
    if (is_sum[i]) {
      if (sl && sr) sum_size = sum_size * left.sizes[i];
      else if (sl) left = sum_keepdim(left, one);
      else if (sr) right = sum_keepdim(right, one);
    } else if (sl && sr) {
      lro.push_back(i);
      lro_size = lro_size * left.sizes[i];
    } else if (sl) {
      lo.push_back(i);
      lo_size = lo_size * left.sizes[i];
    } else {
      ro.push_back(i);
      ro_size = ro_size * right.sizes[i];
    }
  }
  // Newer ATen swaps the operands when every right-only output dim precedes the left-only ones,
  // so that bmm writes the result in output order.
  if (!lo.empty() && !ro.empty() && ro.back() < lo.front()) {
    std::swap(left, right);
    std::swap(lo, ro);
    std::swap(lo_size, ro_size);
  }
  DimVector out_size;
  for (int64_t d : lro) out_size.push_back(left.sizes[d]);
  for (int64_t d : lo) out_size.push_back(left.sizes[d]);
  for (size_t k = 0; k < sum_dims.size(); ++k) out_size.push_back(1);
  for (int64_t d : ro) out_size.push_back(right.sizes[d]);
  std::vector<int64_t> operm(out_size.size(), -1);
  int64_t i = 0;
  for (int64_t d : lro) operm[d] = i++;
  for (int64_t d : lo) operm[d] = i++;
  for (int64_t d : sum_dims) operm[d] = i++;
  for (int64_t d : ro) operm[d] = i++;
  SymInt ls[3] = {lro_size, lo_size, sum_size}, rs[3] = {lro_size, sum_size, ro_size};
  TensorMeta r = bmm_meta(a, make_contiguous(ls, left.dtype, left.device), make_contiguous(rs, right.dtype, right.device));
  auto st = view_strides(r, out_size);
  r.sizes = out_size;
  r.strides = *st;
  return permute(r, operm);
}

void meta_einsum(const MetaArgs& a, MetaOut& out) {
  const auto& operands = a.tensor_list(1);
  const std::string lbl = label(a);
  const size_t num_ops = operands.size();
  std::optional<std::vector<SymInt>> path;
  if (!a.is_none(2)) {
    path = a.int_list(2);
    const size_t want = num_ops == 1 ? 1 : (num_ops - 1) * 2;
    FE_CHECK(path->size() == want, ValueError, lbl, ": einsum(): expected contraction path given in path parameter to have size ",
             want, " but got ", path->size());
  }
  Plan p = parse(a.str(0), num_ops, [&](size_t i) { return operands[i]->dim(); }, lbl);

  std::vector<SymInt> label_size(kLabels, 1), ell_sizes(p.ell_num_dim, 1);
  std::vector<uint64_t> dim_counts(p.perm_index, 0);
  std::deque<TensorMeta> ops;
  for (size_t i = 0; i < num_ops; ++i) {
    TensorMeta op = *operands[i];
    std::vector<int64_t> perm(p.perm_index, -1);
    int64_t dim = 0;
    for (int s : p.op_labels[i]) {
      if (s == kEllipsis) {
        const int64_t ndim = operands[i]->dim() - (static_cast<int64_t>(p.op_labels[i].size()) - 1);
        for (int64_t j = p.ell_num_dim - ndim; j < p.ell_num_dim; ++j) {
          if (op.sizes[dim] != 1) {
            FE_CHECK(ell_sizes[j] == 1 || ell_sizes[j] == op.sizes[dim], ShapeError, lbl, ": einsum(): dimension ", dim,
                     " covered by ellipsis in operand ", i, "has size ", op.sizes[dim],
                     " which does not broadcast with previously seen ellipsis with size ", ell_sizes[j],
                     " for the respective dimension");
            ell_sizes[j] = op.sizes[dim];
            ++dim_counts[p.ell_index + j];
          }
          perm[p.ell_index + j] = dim++;
        }
      } else if (perm[p.perm_index_of[s]] == -1) {
        if (op.sizes[dim] != 1) {
          FE_CHECK(label_size[s] == 1 || label_size[s] == op.sizes[dim], ShapeError, lbl, ": einsum(): subscript ",
                   to_label(s), " has size ", op.sizes[dim], " for operand ", i,
                   " which does not broadcast with previously seen size ", label_size[s]);
          label_size[s] = op.sizes[dim];
          ++dim_counts[p.perm_index_of[s]];
        }
        perm[p.perm_index_of[s]] = dim++;
      } else {
        const int64_t prev = perm[p.perm_index_of[s]];
        FE_CHECK(op.sizes[dim] == op.sizes[prev], ShapeError, lbl, ": einsum(): subscript ", to_label(s),
                 " is repeated for operand ", i, " but the sizes don't match, ", op.sizes[dim], " != ",
                 op.sizes[prev]);
        op = diagonal_movedim(op, prev, dim);
      }
    }
    for (int64_t& v : perm) {
      if (v == -1) {
        op = unsqueeze(op, dim);
        v = dim++;
      }
    }
    ops.push_back(permute(op, perm));
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
    TensorMeta x = ops[i], y = ops[j];
    ops.erase(ops.begin() + j);
    ops.erase(ops.begin() + i);
    std::vector<int64_t> sum_dims, x_sum, y_sum;
    for (int64_t d = p.out_num_dim; d < p.perm_index; ++d) {
      if (x.sizes[d] != 1 && y.sizes[d] != 1) {
        if (--dim_counts[d] == 1) {
          sum_dims.push_back(d);
          dim_counts[d] = 0;
        }
      } else if (dim_counts[d] == 1) {
        if (x.sizes[d] != 1) {
          x_sum.push_back(d);
          dim_counts[d] = 0;
        } else if (y.sizes[d] != 1) {
          y_sum.push_back(d);
          dim_counts[d] = 0;
        }
      }
    }
    if (!x_sum.empty()) x = sum_keepdim(x, x_sum);
    if (!y_sum.empty()) y = sum_keepdim(y, y_sum);
    TensorMeta r = sumproduct_pair(a, std::move(x), std::move(y), sum_dims);
    if (path) ops.push_back(std::move(r));
    else ops.push_front(std::move(r));
  }

  TensorMeta r = ops[0];
  if (p.perm_index - p.out_num_dim > 0) {
    DimVector sizes(r.sizes.begin(), r.sizes.begin() + p.out_num_dim);
    if (num_ops > 1) {
      auto st = view_strides(r, sizes);
      r.sizes = sizes;
      r.strides = *st;
    } else {
      r = make_contiguous(sizes, sum_dtype(r.dtype), r.device);
    }
  }
  r.requires_grad = false;
  out.push(std::move(r));
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
  op_einsum = r.add({"aten::einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor", meta_einsum, cpu_einsum});
}

}  // namespace fe::ops::linalg
