// Iteration over the elements of a strided tensor in row-major logical order.
#pragma once
#include <cstdint>
#include <vector>

#include "fakeexport/core/tensor_meta.h"

namespace fe::detail {

/// Calls f(element_offset) for every element of `m` (offset in elements from the storage start).
template <class F>
void for_each_offset(const TensorMeta& m, F&& f) {
  const int64_t n = m.numel().expect_int();
  if (n == 0) return;
  const size_t nd = m.sizes.size();
  std::vector<int64_t> idx(nd, 0);
  int64_t off = m.storage_offset.expect_int();
  for (int64_t k = 0; k < n; ++k) {
    f(off);
    for (size_t d = nd; d-- > 0;) {
      if (++idx[d] < m.sizes[d].expect_int()) {
        off += m.strides[d].expect_int();
        break;
      }
      off -= (idx[d] - 1) * m.strides[d].expect_int();
      idx[d] = 0;
    }
  }
}

}  // namespace fe::detail
