#include "ops/meta_util.h"

#include <algorithm>
#include <numeric>

namespace fe::ops {

std::string shape_str(IntSpan s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i].expect_int());
  return out + "]";
}

DimVector broadcast_shapes(const MetaArgs& a, std::span<const IntSpan> shapes) {
  size_t n = 0;
  for (IntSpan s : shapes) n = std::max(n, s.size());
  // torch._refs._broadcast_shapes: a running common shape of full rank, filled from the right.
  DimVector common(n, SymInt(1));
  size_t arg = 0, prev_rank = 0;
  for (IntSpan s : shapes) {
    for (size_t k = 1; k <= s.size(); ++k) {
      const int64_t want = common[n - k].expect_int(), got = s[s.size() - k].expect_int();
      if (want == 1) {
        common[n - k] = got;
      } else if (got != 1 && got != want) {
        // Eager's TensorIterator text follows (value calls on real tensors print that one).
        const size_t rank = std::max(prev_rank, s.size());
        throw ShapeError(detail::cat(label(a), ": Attempting to broadcast a dimension of length ", got, " at -", k,
                                     "! Mismatching argument at index ", arg, " had torch.Size(", shape_str(s),
                                     "); but expected shape should be broadcastable to ", shape_str(common),
                                     ". The size of tensor a (", want, ") must match the size of tensor b (", got,
                                     ") at non-singleton dimension ", rank - k));
      }
    }
    prev_rank = std::max(prev_rank, s.size());
    ++arg;
  }
  return common;
}

DimVector broadcast_shapes(const MetaArgs& a, std::initializer_list<IntSpan> shapes) {
  return broadcast_shapes(a, std::span<const IntSpan>(shapes.begin(), shapes.size()));
}
DimVector broadcast_shapes(const MetaArgs& a, IntSpan x, IntSpan y) { return broadcast_shapes(a, {x, y}); }

const char* cpp_type_name(DType t) {
  switch (t) {
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Float16: return "c10::Half";
    case DType::BFloat16: return "c10::BFloat16";
    case DType::Int64: return "long int";
    case DType::Int32: return "int";
    case DType::Int16: return "short int";
    case DType::Int8: return "signed char";
    case DType::UInt8: return "unsigned char";
    case DType::Bool: return "bool";
    default: return dtype_name(t).data();
  }
}

const char* scalar_type_name(DType t) {
  switch (t) {
    case DType::UInt8: return "Byte";
    case DType::Int8: return "Char";
    case DType::Int16: return "Short";
    case DType::Int32: return "Int";
    case DType::Int64: return "Long";
    case DType::Float16: return "Half";
    case DType::Float32: return "Float";
    case DType::Float64: return "Double";
    case DType::Complex32: return "ComplexHalf";
    case DType::Complex64: return "ComplexFloat";
    case DType::Complex128: return "ComplexDouble";
    case DType::Bool: return "Bool";
    case DType::BFloat16: return "BFloat16";
    default: return dtype_name(t).data();
  }
}

DimVector channels_last_strides(IntSpan sizes) {
  DimVector st(4, SymInt(0));
  st[1] = 1;
  st[3] = std::max<int64_t>(sizes[1].expect_int(), 1);
  st[2] = st[3].expect_int() * std::max<int64_t>(sizes[3].expect_int(), 1);
  st[0] = st[2].expect_int() * std::max<int64_t>(sizes[2].expect_int(), 1);
  return st;
}

DimVector iter_output_strides(IntSpan shape, std::span<const TensorMeta* const> ins, int wrapped_numbers) {
  const size_t nd = shape.size();
  // Fast setup: every operand has the output's shape.
  bool same_shape = wrapped_numbers == 0 || nd == 0;
  for (const TensorMeta* t : ins) same_shape = same_shape && IntSpan(t->sizes).size() == nd &&
                                               std::equal(shape.begin(), shape.end(), t->sizes.begin());
  if (same_shape && !ins.empty()) {
    bool contig = true, cl = true, dense = true;
    for (const TensorMeta* t : ins) {
      contig = contig && t->is_contiguous();
      cl = cl && t->is_channels_last_contiguous();
      dense = dense && t->is_non_overlapping_and_dense();
    }
    if (contig) return contiguous_strides(shape);
    if (cl) return channels_last_strides(shape);
    if (dense) {
      bool equal = true;
      for (const TensorMeta* t : ins) equal = equal && t->strides == ins.back()->strides;
      if (equal) return ins.back()->strides;
    }
  }
  if (nd <= 1) return contiguous_strides(shape);
  // Operand strides over the broadcast shape; broadcast (and missing) dims get stride 0.
  std::vector<DimVector> op_strides;
  for (const TensorMeta* t : ins) {
    DimVector st(nd, SymInt(0));
    const size_t off = nd - t->sizes.size();
    for (size_t i = 0; i < t->sizes.size(); ++i)
      st[off + i] = (t->sizes[i].expect_int() == 1 && shape[off + i].expect_int() != 1) ? SymInt(0) : t->strides[i];
    op_strides.push_back(std::move(st));
  }
  // perm[0] is the fastest-moving dim; start from row-major order, insertion-sort by strides.
  std::vector<size_t> perm(nd);
  std::iota(perm.rbegin(), perm.rend(), size_t{0});
  auto should_swap = [&](size_t d0, size_t d1) -> int {
    for (const DimVector& st : op_strides) {
      const int64_t s0 = st[d0].expect_int(), s1 = st[d1].expect_int();
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape[d0].expect_int() > shape[d1].expect_int()) return 1;
    }
    return 0;
  };
  sort_dims(perm, should_swap);
  bool inverted = true;
  for (size_t j = 0; j < nd; ++j) inverted = inverted && perm[j] == nd - j - 1;
  if (inverted) return contiguous_strides(shape);
  DimVector st(nd, SymInt(0));
  int64_t next = 1;
  for (size_t j = 0; j < nd; ++j) {
    st[perm[j]] = next;
    next *= shape[perm[j]].expect_int();
  }
  return st;
}

DimVector preserved_strides(const TensorMeta& m) {
  if (m.is_non_overlapping_and_dense()) return m.strides;
  return contiguous_strides(m.sizes);
}

TensorMeta elementwise_meta(const MetaArgs& a, std::initializer_list<size_t> idx) {
  ResultTypeState rt;
  const TensorMeta* first = nullptr;
  SmallVector<IntSpan, 4> shapes;
  for (size_t i : idx) {
    if (a.is_none(i)) continue;  // `Tensor? min=None`
    if (!a.is_tensor(i)) {
      rt.add_scalar(a.scalar_category(i));
      shapes.push_back({});  // a number broadcasts like a 0-dim tensor; it keeps argument indices
      continue;
    }
    const TensorMeta& t = a.tensor(i);
    rt.add_tensor(t.dtype, t.dim() == 0);
    shapes.push_back(t.sizes);
    if (!first) first = &t;
  }
  FE_INTERNAL_ASSERT(first, label(a), ": elementwise op without tensor operands");
  DimVector shape = broadcast_shapes(a, std::span<const IntSpan>(shapes.data(), shapes.size()));
  TensorMeta out;
  out.dtype = rt.result(default_dtype());
  out.sizes = shape;
  // Device: the first non-0-dim-cpu tensor's (0-dim cpu scalars follow the others).
  out.device = first->device;
  for (size_t i : idx) {
    if (!a.is_tensor(i)) continue;
    const TensorMeta& t = a.tensor(i);
    if (!(t.device.is_cpu() && t.dim() == 0)) {
      out.device = t.device;
      break;
    }
  }
  SmallVector<const TensorMeta*, 4> ins;
  int numbers = 0;
  for (size_t i : idx) {
    if (a.is_tensor(i)) ins.push_back(&a.tensor(i));
    else if (!a.is_none(i)) ++numbers;
  }
  out.strides = iter_output_strides(shape, ins, numbers);
  return out;
}

}  // namespace fe::ops
