#include "ops/meta_util.h"

#include <algorithm>

namespace fe::ops {

std::string shape_str(IntSpan s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i].expect_int());
  return out + "]";
}

DimVector broadcast_shapes(const MetaArgs& a, IntSpan x, IntSpan y) {
  const size_t n = std::max(x.size(), y.size());
  DimVector out(n, SymInt(1));
  for (size_t i = 0; i < n; ++i) {
    // Align from the right; missing dims act as 1.
    const size_t ox = n - x.size(), oy = n - y.size();
    int64_t sx = i >= ox ? x[i - ox].expect_int() : 1;
    int64_t sy = i >= oy ? y[i - oy].expect_int() : 1;
    FE_CHECK(sx == sy || sx == 1 || sy == 1, ShapeError, label(a), ": The size of tensor a (", sx,
             ") must match the size of tensor b (", sy, ") at non-singleton dimension ", i,
             " (shapes ", shape_str(x), " and ", shape_str(y), ")");
    out[i] = sx == 1 ? sy : sx;
  }
  return out;
}

DimVector preserved_strides(const TensorMeta& m) {
  if (m.is_non_overlapping_and_dense()) return m.strides;
  return contiguous_strides(m.sizes);
}

TensorMeta elementwise_meta(const MetaArgs& a, std::initializer_list<size_t> idx) {
  ResultTypeState rt;
  DimVector shape;
  const TensorMeta* first = nullptr;
  for (size_t i : idx) {
    if (!a.is_tensor(i)) {
      rt.add_scalar(a.scalar_category(i));
      continue;
    }
    const TensorMeta& t = a.tensor(i);
    rt.add_tensor(t.dtype, t.dim() == 0);
    shape = first ? broadcast_shapes(a, shape, t.sizes) : t.sizes;
    if (!first) first = &t;
  }
  FE_INTERNAL_ASSERT(first, label(a), ": elementwise op without tensor operands");
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
  out.strides = contiguous_strides(shape);
  for (size_t i : idx) {
    if (!a.is_tensor(i)) continue;
    const TensorMeta& t = a.tensor(i);
    if (t.sizes == shape && t.is_non_overlapping_and_dense()) {
      out.strides = t.strides;
      break;
    }
  }
  return out;
}

}  // namespace fe::ops
