#include "fakeexport/core/tensor_meta.h"

#include <algorithm>
#include <numeric>

#include "fakeexport/core/error.h"

namespace fe {

int64_t checked_mul(int64_t a, int64_t b, std::string_view what) {
  int64_t r;
  FE_CHECK(!__builtin_mul_overflow(a, b, &r), ShapeError, what, ": int64 overflow computing ", a, " * ", b);
  return r;
}

SymInt TensorMeta::numel() const {
  int64_t n = 1;
  for (SymInt s : sizes) n = checked_mul(n, s.expect_int(), "numel");
  return n;
}

int64_t TensorMeta::storage_nbytes() const {
  if (numel().expect_int() == 0) return 0;
  int64_t len = 1 + storage_offset.expect_int();
  for (size_t i = 0; i < sizes.size(); ++i)
    len += checked_mul(sizes[i].expect_int() - 1, strides[i].expect_int(), "storage size");
  return checked_mul(len, itemsize(dtype), "storage bytes");
}

bool TensorMeta::is_contiguous() const {
  for (SymInt s : sizes)
    if (s.expect_int() == 0) return true;  // empty tensors are contiguous whatever their strides
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    int64_t s = sizes[i].expect_int();
    if (s == 1) continue;
    if (strides[i].expect_int() != expected) return false;
    expected *= s;
  }
  return true;
}

bool TensorMeta::is_channels_last_contiguous() const {
  if (sizes.size() != 4) return false;
  for (SymInt s : sizes)
    if (s.expect_int() == 0) return true;
  int64_t expected = 1;
  for (int d : {1, 3, 2, 0}) {
    const int64_t s = sizes[d].expect_int();
    if (s == 1) continue;
    if (strides[d].expect_int() != expected) return false;
    expected *= s;
  }
  return true;
}

bool TensorMeta::is_non_overlapping_and_dense() const {
  if (is_contiguous()) return true;
  std::vector<size_t> perm(sizes.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](size_t a, size_t b) {
    if (sizes[a].expect_int() < 2) return false;
    if (sizes[b].expect_int() < 2) return true;
    return strides[a].expect_int() < strides[b].expect_int();
  });
  int64_t expected = 1;
  for (size_t d : perm) {
    int64_t s = sizes[d].expect_int();
    if (s == 1) continue;
    if (strides[d].expect_int() != expected) return false;
    expected *= s;
  }
  return true;
}

std::string TensorMeta::annotation() const {
  std::string s(dtype_short_name(dtype));
  s += '[';
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(sizes[i].expect_int());
  }
  return s + ']';
}

DimVector contiguous_strides(IntSpan sizes) {
  DimVector st(sizes.size(), SymInt(1));
  int64_t acc = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    st[i] = acc;
    acc = checked_mul(acc, std::max<int64_t>(sizes[i].expect_int(), 1), "contiguous strides");
  }
  return st;
}

int64_t wrap_dim(int64_t dim, int64_t ndim, std::string_view op) {
  int64_t n = std::max<int64_t>(ndim, 1);
  FE_CHECK(dim >= -n && dim < n, IndexError, op, ": Dimension out of range (expected to be in range of [", -n,
           ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

TensorMeta make_contiguous(IntSpan sizes, DType dtype, Device device, bool requires_grad) {
  TensorMeta m;
  m.sizes = DimVector(sizes);
  m.strides = contiguous_strides(sizes);
  m.dtype = dtype;
  m.device = device;
  m.requires_grad = requires_grad;
  return m;
}

}  // namespace fe
