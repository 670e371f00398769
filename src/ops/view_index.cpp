// View and shape ops, part 2: dim permutations and indexing-like views (permute, transpose,
// squeeze/unsqueeze, slice, select, narrow, split, split_with_sizes, chunk, unbind).
// Every output is a view of self with PyTorch's strides and storage offset.
#include <algorithm>
#include <limits>

#include "fakeexport/ops/dispatch.h"
#include "ops/meta_util.h"
#include "ops/view_impl.h"

namespace fe {
namespace ops {
namespace {

TensorMeta drop_dim(const TensorMeta& self, int64_t d) {
  TensorMeta m = self;
  m.sizes.erase_at(d);
  m.strides.erase_at(d);
  return m;
}

void meta_permute(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const auto& dims = a.int_list(1);
  FE_CHECK(static_cast<int64_t>(dims.size()) == self.dim(), ShapeError, label(a),
           ": permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
           "desired ordering of dimensions i.e. input.dim() = ", self.dim(), " is not equal to len(dims) = ",
           dims.size());
  TensorMeta m = self;
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap(a, dims[i].expect_int(), self.dim());
    FE_CHECK(!seen[d], ShapeError, label(a), ": permute(): duplicate dims are not allowed.");
    seen[d] = true;
    m.sizes[i] = self.sizes[d];
    m.strides[i] = self.strides[d];
  }
  out.push(std::move(m));
  out.alias_input0 = true;
}

void meta_transpose(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const int64_t d0 = wrap(a, a.to_int(1), self.dim());
  const int64_t d1 = wrap(a, a.to_int(2), self.dim());
  TensorMeta m = self;
  if (self.dim() > 0) {
    std::swap(m.sizes[d0], m.sizes[d1]);
    std::swap(m.strides[d0], m.strides[d1]);
  }
  out.push(std::move(m));
  out.alias_input0 = true;
}

// unsqueeze: the new dim's stride is size * stride of the dim it precedes (1 at the end).
void meta_unsqueeze(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const int64_t d = wrap(a, a.to_int(1), self.dim() + 1);
  TensorMeta m = self;
  const SymInt stride = d >= self.dim() ? SymInt(1) : self.sizes[d] * self.strides[d];
  m.sizes.insert_at(d, SymInt(1));
  m.strides.insert_at(d, stride);
  out.push(std::move(m));
  out.alias_input0 = true;
}

/// Removes the size-1 dims among `dims` (wrapped, ascending order not required).
TensorMeta squeeze_dims(const TensorMeta& self, const std::vector<bool>& drop) {
  TensorMeta m = self;
  m.sizes.clear();
  m.strides.clear();
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (drop[d] && self.sizes[d].expect_int() == 1) continue;
    m.sizes.push_back(self.sizes[d]);
    m.strides.push_back(self.strides[d]);
  }
  return m;
}

void meta_squeeze(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  out.push(squeeze_dims(self, std::vector<bool>(self.dim(), true)));
  out.alias_input0 = true;
}

void meta_squeeze_dim(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const int64_t d = wrap(a, a.to_int(1), self.dim());
  std::vector<bool> drop(self.dim(), false);
  if (self.dim() > 0) drop[d] = true;
  out.push(squeeze_dims(self, drop));
  out.alias_input0 = true;
}

void meta_squeeze_dims(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  std::vector<bool> drop(std::max<int64_t>(self.dim(), 1), false);
  for (SymInt s : a.int_list(1)) {
    const int64_t d = wrap(a, s.expect_int(), self.dim());
    FE_CHECK(!drop[d], ShapeError, label(a), ": dim ", d, " appears multiple times in the list of dims");
    drop[d] = true;
  }
  drop.resize(self.dim());
  out.push(squeeze_dims(self, drop));
  out.alias_input0 = true;
}

/// at::native::slice: clamps start/end into [0, size], size = ceil((end - start) / step).
TensorMeta slice_meta(const TensorMeta& self, int64_t d, std::optional<int64_t> start_o,
                      std::optional<int64_t> end_o, int64_t step) {
  const int64_t size = self.sizes[d].expect_int();
  int64_t start = start_o.value_or(0), end = end_o.value_or(std::numeric_limits<int64_t>::max());
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  TensorMeta m = self;
  m.storage_offset = self.storage_offset + self.strides[d] * start;
  m.sizes[d] = (end - start + step - 1) / step;
  m.strides[d] = self.strides[d] * step;
  return m;
}

void meta_slice(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  FE_CHECK(self.dim() > 0, ShapeError, label(a), ": slice() cannot be applied to a 0-dim tensor.");
  const int64_t d = wrap(a, a.to_int(1), self.dim());
  const int64_t step = a.to_int(4);
  FE_CHECK(step > 0, ValueError, label(a), ": slice step must be positive");
  out.push(slice_meta(self, d, a.opt_int(2), a.opt_int(3), step));
  out.alias_input0 = true;
}

void meta_select(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  FE_CHECK(self.dim() > 0, IndexError, label(a), ": select() cannot be applied to a 0-dim tensor.");
  // FakeTensorMode's select adds ndim to a negative dim once, then indexes Python-style (so
  // dim -ndim-1 selects along the last dim).
  const int64_t dim = a.to_int(1) >= 0 ? a.to_int(1) : a.to_int(1) + self.dim();
  const int64_t d = wrap(a, dim, self.dim());
  int64_t index = a.to_int(2);
  const int64_t size = self.sizes[d].expect_int();
  FE_CHECK(!(size <= -1 - index || size <= index), IndexError, label(a), ": select(): index ", index,
           " out of range for tensor of size ", shape_str(self.sizes), " at dimension ", dim);
  if (index < 0) index += size;
  TensorMeta m = drop_dim(self, d);
  m.storage_offset = self.storage_offset + self.strides[d] * index;
  out.push(std::move(m));
  out.alias_input0 = true;
}

void meta_narrow(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  FE_CHECK(self.dim() > 0, ShapeError, label(a), ": narrow() cannot be applied to a 0-dim tensor.");
  const int64_t length = a.to_int(3);
  FE_CHECK(length >= 0, ValueError, label(a), ": narrow(): length must be non-negative.");
  const int64_t d = wrap(a, a.to_int(1), self.dim());
  const int64_t size = self.sizes[d].expect_int();
  int64_t start = a.to_int(2);
  FE_CHECK(-size <= start && start <= size, IndexError, label(a), ": start out of range (expected to be in range of [",
           -size, ", ", size, "], but got ", start, ")");
  if (start < 0) start += size;
  FE_CHECK(start <= size - length, ShapeError, label(a), ": start (", start, ") + length (", length,
           ") exceeds dimension size (", size, ").");
  out.push(slice_meta(self, d, start, start + length, 1));
  out.alias_input0 = true;
}

/// Consecutive slices of dim d with the given lengths (split / split_with_sizes / chunk).
void push_splits(MetaOut& out, const TensorMeta& self, int64_t d, IntSpan lengths) {
  int64_t start = 0;
  for (SymInt l : lengths) {
    out.push(slice_meta(self, d, start, start + l.expect_int(), 1));
    start += l.expect_int();
  }
  out.alias_input0 = true;
}

/// Lengths at::split gives: ceil(size / split_size) pieces (at least one), the last one shorter.
DimVector split_lengths(int64_t dim_size, int64_t split_size) {
  const int64_t n = split_size == 0 ? 1 : std::max<int64_t>((dim_size + split_size - 1) / split_size, 1);
  DimVector lengths(n, SymInt(split_size));
  lengths[n - 1] = split_size - (split_size * n - dim_size);
  return lengths;
}

void meta_split(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  const int64_t dim = a.to_int(2);
  // FakeTensorMode runs the Python decomposition, which indexes the shape tuple.
  FE_CHECK(dim >= -self.dim() && dim < self.dim(), IndexError, label(a), ": tuple index out of range");
  const int64_t d = dim < 0 ? dim + self.dim() : dim;
  const int64_t split_size = a.to_int(1);
  FE_CHECK(split_size >= 0, ValueError, label(a), ": split expects split_size be non-negative, but got split_size=",
           split_size);
  const int64_t dim_size = self.sizes[d].expect_int();
  FE_CHECK(split_size > 0 || dim_size == 0, ValueError, label(a),
           ": split_size can only be 0 if dimension size is 0, but got dimension size of ", dim_size);
  push_splits(out, self, d, split_lengths(dim_size, split_size));
}

void meta_split_with_sizes(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  FE_CHECK(self.dim() > 0, ShapeError, label(a), ": split expects at least a 1-dimensional tensor");
  const int64_t dim = a.to_int(2);
  const int64_t d = wrap(a, dim, self.dim());
  const auto& sizes = a.int_list(1);
  int64_t sum = 0;
  for (SymInt s : sizes) {
    FE_CHECK(s.expect_int() >= 0, ValueError, label(a),
             ": split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=",
             shape_str(sizes));
    sum += s.expect_int();
  }
  const int64_t dim_size = self.sizes[d].expect_int();
  FE_CHECK(sum == dim_size, ShapeError, label(a), ": split_with_sizes expects split_sizes to sum exactly to ",
           dim_size, " (input tensor's size at dimension ", dim, "), but got split_sizes=", shape_str(sizes));
  push_splits(out, self, d, sizes);
}

void meta_chunk(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  FE_CHECK(self.dim() > 0, ShapeError, label(a), ": chunk expects at least a 1-dimensional tensor");
  const int64_t chunks = a.to_int(1);
  FE_CHECK(chunks > 0, ValueError, label(a), ": chunk expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t d = wrap(a, a.to_int(2), self.dim());
  const int64_t dim_size = self.sizes[d].expect_int();
  const int64_t split_size = (dim_size + chunks - 1) / chunks;
  if (split_size == 0 && dim_size == 0) {  // keeps `chunks` empty pieces
    push_splits(out, self, d, DimVector(chunks, SymInt(0)));
    return;
  }
  push_splits(out, self, d, split_lengths(dim_size, split_size));
}

void meta_unbind(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = a.tensor(0);
  FE_CHECK(self.dim() > 0, IndexError, label(a), ": Dimension specified as ", a.to_int(1),
           " but tensor has no dimensions");
  const int64_t d = wrap(a, a.to_int(1), self.dim());
  for (int64_t i = 0; i < self.sizes[d].expect_int(); ++i) {
    TensorMeta m = drop_dim(self, d);
    m.storage_offset = self.storage_offset + self.strides[d] * i;
    out.push(std::move(m));
  }
  out.alias_input0 = true;
}

}  // namespace

void register_view_index_ops(Registry& r) {
  r.add({"aten::permute(Tensor(a) self, int[] dims) -> Tensor(a)", meta_permute});
  r.add({"aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", meta_transpose});
  r.add({"aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", meta_unsqueeze});
  r.add({"aten::squeeze(Tensor(a) self) -> Tensor(a)", meta_squeeze});
  r.add({"aten::squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)", meta_squeeze_dim});
  r.add({"aten::squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)", meta_squeeze_dims});
  r.add({"aten::slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)",
         meta_slice});
  r.add({"aten::select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)", meta_select});
  r.add({"aten::narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)", meta_narrow});
  r.add({"aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]", meta_split});
  r.add({"aten::split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]",
         meta_split_with_sizes});
  r.add({"aten::chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]", meta_chunk});
  r.add({"aten::unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]", meta_unbind});
}

}  // namespace ops
}  // namespace fe
