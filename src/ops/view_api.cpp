// Public API of the view family: free functions (api_view.h) and Tensor methods, each building the
// argument list of the ATen op torch.export records for the Python call.
#include <limits>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "fakeexport/sym/shape_env.h"
#include "ops/families.h"

namespace fe {
namespace {
IValue opt(std::optional<int64_t> v) { return v ? IValue(SymInt(*v)) : IValue(None{}); }
std::vector<SymInt> sym_list(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }
}  // namespace

Tensor view(const Tensor& self, Sizes size, SrcLocArg loc) {
  return dispatch1(*op_view, {self, std::move(size)}, loc);
}
Tensor reshape(const Tensor& self, Sizes shape, SrcLocArg loc) {
  return dispatch1(*op_reshape, {self, std::move(shape)}, loc);
}
Tensor _unsafe_view(const Tensor& self, Sizes size, SrcLocArg loc) {
  return dispatch1(*op_unsafe_view, {self, std::move(size)}, loc);
}
Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim, SrcLocArg loc) {
  return dispatch1(*op_flatten_using_ints, {self, SymInt(start_dim), SymInt(end_dim)}, loc);
}
Tensor unflatten(const Tensor& self, int64_t dim, Sizes sizes, SrcLocArg loc) {
  return dispatch1(*op_unflatten_int, {self, SymInt(dim), std::move(sizes)}, loc);
}
Tensor permute(const Tensor& self, std::vector<int64_t> dims, SrcLocArg loc) {
  return dispatch1(*op_permute, {self, sym_list(dims)}, loc);
}
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1, SrcLocArg loc) {
  return dispatch1(*op_transpose_int, {self, SymInt(dim0), SymInt(dim1)}, loc);
}
Tensor expand(const Tensor& self, Sizes size, bool implicit, SrcLocArg loc) {
  return dispatch1(*op_expand, {self, std::move(size), implicit}, loc);
}
Tensor broadcast_to(const Tensor& self, Sizes size, SrcLocArg loc) {
  return dispatch1(*op_broadcast_to, {self, std::move(size)}, loc);
}
Tensor expand_as(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  return dispatch1(*op_expand_as, {self, other}, loc);
}
Tensor unsqueeze(const Tensor& self, int64_t dim, SrcLocArg loc) {
  return dispatch1(*op_unsqueeze, {self, SymInt(dim)}, loc);
}
Tensor squeeze(const Tensor& self, SrcLocArg loc) {
  return dispatch1(*op_squeeze, {self}, loc);
}
Tensor squeeze(const Tensor& self, int64_t dim, SrcLocArg loc) {
  return dispatch1(*op_squeeze_dim, {self, SymInt(dim)}, loc);
}
Tensor squeeze(const Tensor& self, std::vector<int64_t> dims, SrcLocArg loc) {
  return dispatch1(*op_squeeze_dims, {self, sym_list(dims)}, loc);
}
Tensor contiguous(const Tensor& self, MemoryFormat memory_format, SrcLocArg loc) {
  // TensorBase::contiguous returns self before dispatching when nothing is to be done, so export
  // records no node then (tests/fixtures/dynamic/gpt2_block.txt).
  // torch.export records the symbolic contiguity check c10 runs here (user code only).
  if (memory_format == MemoryFormat::Contiguous)
    for (const SymInt& s : self.meta().sizes)
      if (s.is_symbolic()) {
        if (sym::SymTracer* t = s.node()->env->user_tracer()) t->on_contiguous(self.impl(), self.meta().sizes, self.meta().strides);
        break;
      }
  if (memory_format == MemoryFormat::Contiguous && self.meta().is_contiguous()) return self;
  if (memory_format == MemoryFormat::ChannelsLast && self.meta().is_channels_last_contiguous()) return self;
  if (memory_format == MemoryFormat::Contiguous) return dispatch1(*op_contiguous, {self}, loc);
  return dispatch1(*op_contiguous, {self, memory_format}, loc);
}
Tensor clone(const Tensor& self, std::optional<MemoryFormat> memory_format, SrcLocArg loc) {
  if (!memory_format) return dispatch1(*op_clone, {self}, loc);
  return dispatch1(*op_clone, {self, *memory_format}, loc);
}
Tensor alias(const Tensor& self, SrcLocArg loc) {
  return dispatch1(*op_alias, {self}, loc);
}
Tensor detach(const Tensor& self, SrcLocArg loc) {
  return dispatch1(*op_detach, {self}, loc);
}
Tensor detach_(const Tensor& self, SrcLocArg loc) {
  return dispatch1(*op_detach_, {self}, loc);
}
Tensor as_strided(const Tensor& self, Sizes size, Sizes stride, std::optional<int64_t> storage_offset, SrcLocArg loc) {
  if (!storage_offset) return dispatch1(*op_as_strided, {self, std::move(size), std::move(stride)}, loc);
  return dispatch1(*op_as_strided, {self, std::move(size), std::move(stride), SymInt(*storage_offset)}, loc);
}
Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step,
             SrcLocArg loc) {
  return dispatch1(*op_slice_Tensor, {self, SymInt(dim), opt(start), opt(end), SymInt(step)}, loc);
}
Tensor select(const Tensor& self, int64_t dim, int64_t index, SrcLocArg loc) {
  return dispatch1(*op_select_int, {self, SymInt(dim), SymInt(index)}, loc);
}
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length, SrcLocArg loc) {
  return dispatch1(*op_narrow, {self, SymInt(dim), SymInt(start), SymInt(length)}, loc);
}
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim, SrcLocArg loc) {
  return dispatch(*op_split_Tensor, {self, SymInt(split_size), SymInt(dim)}, loc);
}
std::vector<Tensor> split(const Tensor& self, Sizes split_sizes, int64_t dim, SrcLocArg loc) {
  return split_with_sizes(self, std::move(split_sizes), dim, loc);
}
std::vector<Tensor> split_with_sizes(const Tensor& self, Sizes split_sizes, int64_t dim, SrcLocArg loc) {
  return dispatch(*op_split_with_sizes, {self, std::move(split_sizes), SymInt(dim)}, loc);
}
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim, SrcLocArg loc) {
  return dispatch(*op_chunk, {self, SymInt(chunks), SymInt(dim)}, loc);
}
std::vector<Tensor> unbind(const Tensor& self, int64_t dim, SrcLocArg loc) {
  return dispatch(*op_unbind_int, {self, SymInt(dim)}, loc);
}

// ---- Tensor methods
Tensor Tensor::view(std::vector<SymInt> size, SrcLocArg loc) const { return fe::view(*this, std::move(size), loc); }
Tensor Tensor::reshape(std::vector<SymInt> shape, SrcLocArg loc) const {
  return fe::reshape(*this, std::move(shape), loc);
}
Tensor Tensor::permute(std::vector<int64_t> dims, SrcLocArg loc) const { return fe::permute(*this, std::move(dims), loc); }
Tensor Tensor::transpose(int64_t dim0, int64_t dim1, SrcLocArg loc) const { return fe::transpose(*this, dim0, dim1, loc); }
Tensor Tensor::expand(std::vector<SymInt> size, SrcLocArg loc) const { return fe::expand(*this, std::move(size), false, loc); }
Tensor Tensor::expand_as(const Tensor& other, SrcLocArg loc) const { return fe::expand_as(*this, other, loc); }
Tensor Tensor::unsqueeze(int64_t dim, SrcLocArg loc) const { return fe::unsqueeze(*this, dim, loc); }
Tensor Tensor::squeeze(SrcLocArg loc) const { return fe::squeeze(*this, loc); }
Tensor Tensor::squeeze(int64_t dim, SrcLocArg loc) const { return fe::squeeze(*this, dim, loc); }
Tensor Tensor::squeeze(std::vector<int64_t> dims, SrcLocArg loc) const { return fe::squeeze(*this, std::move(dims), loc); }
Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim, SrcLocArg loc) const {
  return fe::flatten(*this, start_dim, end_dim, loc);
}
Tensor Tensor::unflatten(int64_t dim, std::vector<SymInt> sizes, SrcLocArg loc) const {
  return fe::unflatten(*this, dim, std::move(sizes), loc);
}
Tensor Tensor::contiguous(SrcLocArg loc) const { return fe::contiguous(*this, MemoryFormat::Contiguous, loc); }
Tensor Tensor::detach(SrcLocArg loc) const { return fe::detach(*this, loc); }
Tensor Tensor::detach_(SrcLocArg loc) const { return fe::detach_(*this, loc); }
Tensor Tensor::clone(SrcLocArg loc) const { return fe::clone(*this, std::nullopt, loc); }
Tensor Tensor::slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step,
                     SrcLocArg loc) const {
  // x[:, a:] records slice.Tensor(x, 1, a, 9223372036854775807); x[:, :b] records start 0.
  return fe::slice(*this, dim, start.value_or(0), end.value_or(std::numeric_limits<int64_t>::max()), step, loc);
}
Tensor Tensor::select(int64_t dim, int64_t index, SrcLocArg loc) const { return fe::select(*this, dim, index, loc); }
Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length, SrcLocArg loc) const {
  return fe::narrow(*this, dim, start, length, loc);
}
std::vector<Tensor> Tensor::split(int64_t split_size, int64_t dim, SrcLocArg loc) const {
  return fe::split(*this, split_size, dim, loc);
}
std::vector<Tensor> Tensor::split(std::vector<SymInt> split_sizes, int64_t dim, SrcLocArg loc) const {
  return fe::split_with_sizes(*this, std::move(split_sizes), dim, loc);
}
std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t dim, SrcLocArg loc) const {
  return fe::chunk(*this, chunks, dim, loc);
}
std::vector<Tensor> Tensor::unbind(int64_t dim, SrcLocArg loc) const { return fe::unbind(*this, dim, loc); }

}  // namespace fe
