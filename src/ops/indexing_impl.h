// Private helpers of the indexing family (src/ops/indexing*.cpp): element access for the
// reference kernels and the register functions of the family's parts.
#pragma once
#include <string>
#include <vector>

#include "core/element.h"
#include "fakeexport/core/tensor.h"
#include "fakeexport/ops/registry.h"
#include "ops/meta_util.h"

namespace fe::ops {

void register_indexing_select_ops(Registry& r);  // indexing_select.cpp

namespace idx {

/// "torch.Size([2, 3])", as PyTorch prints a shape inside messages.
inline std::string torch_size(IntSpan s) { return "torch.Size(" + shape_str(s) + ")"; }

/// PyTorch's has_internal_overlap == YES: some element is reachable twice (a stride-0 dim of
/// size > 1). A symbolic stride is not 0 (a product of sizes, each at least 1) and a symbolic
/// size is decided on its hint, as guard_or_false(size > 1) is on a backed size: neither
/// specializes a dynamic dim (a copy_ into a transposed slice keeps its sizes symbolic).
inline bool has_internal_overlap(const TensorMeta& m) {
  if (m.is_non_overlapping_and_dense()) return false;
  for (int64_t d = 0; d < m.dim(); ++d)
    if (m.strides[d].maybe_int() == 0 && m.sizes[d].hint() > 1) return true;
  return false;
}
/// Eager in-place kernels refuse such a `self` (FakeTensorMode's metas do not check it, so the
/// reference kernels do).
inline void check_no_overlap(const char* op, const Tensor& self) {
  FE_CHECK(!has_internal_overlap(self.meta()), ValueError, op,
           ": unsupported operation: more than one element of the written-to tensor refers to a single memory "
           "location. Please clone() the tensor before performing the operation.");
}

/// Multi-index iteration over `sizes` in row-major order.
template <class F>
void for_each_index(IntSpan sizes, F&& f) {
  int64_t n = 1;
  for (SymInt s : sizes) n *= s.expect_int();
  if (n == 0) return;
  std::vector<int64_t> i(sizes.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    f(static_cast<const std::vector<int64_t>&>(i));
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++i[d] < sizes[d].expect_int()) break;
      i[d] = 0;
    }
  }
}

/// Element offset (from data_ptr) of multi-index i in t.
inline int64_t offset_of(const Tensor& t, const std::vector<int64_t>& i) {
  int64_t off = 0;
  for (size_t d = 0; d < i.size(); ++d) off += i[d] * t.meta().strides[d].expect_int();
  return off;
}
inline double load(const Tensor& t, int64_t off) {
  return detail::load(static_cast<const std::byte*>(t.data_ptr()) + off * itemsize(t.dtype()), t.dtype());
}
inline void store(const Tensor& t, int64_t off, double v) {
  detail::store(static_cast<std::byte*>(t.data_ptr()) + off * itemsize(t.dtype()), t.dtype(), v);
}
inline double at(const Tensor& t, const std::vector<int64_t>& i) { return load(t, offset_of(t, i)); }

/// Copies src into dst (same sizes), elementwise with dtype conversion.
inline void copy_into(const Tensor& dst, const Tensor& src) {
  for_each_index(dst.sizes(), [&](const std::vector<int64_t>& i) { store(dst, offset_of(dst, i), at(src, i)); });
}

/// An index value wrapped into [0, size) (negative indices count from the end), else IndexError.
inline int64_t wrap_index(const char* op, double v, int64_t size) {
  int64_t k = static_cast<int64_t>(v);
  FE_CHECK(k >= -size && k < size, IndexError, op, ": index ", k, " is out of bounds for dimension with size ", size);
  return k < 0 ? k + size : k;
}

}  // namespace idx
}  // namespace fe::ops
