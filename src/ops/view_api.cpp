// Public API of the view family: free functions (api_view.h) and Tensor methods, each building the
// argument list of the ATen op torch.export records for the Python call.
#include <limits>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"

namespace fe {
namespace {
IValue opt(std::optional<int64_t> v) { return v ? IValue(SymInt(*v)) : IValue(None{}); }
std::vector<SymInt> sym_list(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }
}  // namespace

Tensor view(const Tensor& self, Sizes size, SrcLocArg loc) {
  static const OpDef& d = op("aten::view");
  return dispatch1(d, {self, std::move(size)}, loc);
}
Tensor reshape(const Tensor& self, Sizes shape, SrcLocArg loc) {
  static const OpDef& d = op("aten::reshape");
  return dispatch1(d, {self, std::move(shape)}, loc);
}
Tensor _unsafe_view(const Tensor& self, Sizes size, SrcLocArg loc) {
  static const OpDef& d = op("aten::_unsafe_view");
  return dispatch1(d, {self, std::move(size)}, loc);
}
Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim, SrcLocArg loc) {
  static const OpDef& d = op("aten::flatten.using_ints");
  return dispatch1(d, {self, SymInt(start_dim), SymInt(end_dim)}, loc);
}
Tensor unflatten(const Tensor& self, int64_t dim, Sizes sizes, SrcLocArg loc) {
  static const OpDef& d = op("aten::unflatten.int");
  return dispatch1(d, {self, SymInt(dim), std::move(sizes)}, loc);
}
Tensor permute(const Tensor& self, std::vector<int64_t> dims, SrcLocArg loc) {
  static const OpDef& d = op("aten::permute");
  return dispatch1(d, {self, sym_list(dims)}, loc);
}
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1, SrcLocArg loc) {
  static const OpDef& d = op("aten::transpose.int");
  return dispatch1(d, {self, SymInt(dim0), SymInt(dim1)}, loc);
}
Tensor expand(const Tensor& self, Sizes size, bool implicit, SrcLocArg loc) {
  static const OpDef& d = op("aten::expand");
  return dispatch1(d, {self, std::move(size), implicit}, loc);
}
Tensor expand_as(const Tensor& self, const Tensor& other, SrcLocArg loc) {
  static const OpDef& d = op("aten::expand_as");
  return dispatch1(d, {self, other}, loc);
}
Tensor unsqueeze(const Tensor& self, int64_t dim, SrcLocArg loc) {
  static const OpDef& d = op("aten::unsqueeze");
  return dispatch1(d, {self, SymInt(dim)}, loc);
}
Tensor squeeze(const Tensor& self, SrcLocArg loc) {
  static const OpDef& d = op("aten::squeeze");
  return dispatch1(d, {self}, loc);
}
Tensor squeeze(const Tensor& self, int64_t dim, SrcLocArg loc) {
  static const OpDef& d = op("aten::squeeze.dim");
  return dispatch1(d, {self, SymInt(dim)}, loc);
}
Tensor squeeze(const Tensor& self, std::vector<int64_t> dims, SrcLocArg loc) {
  static const OpDef& d = op("aten::squeeze.dims");
  return dispatch1(d, {self, sym_list(dims)}, loc);
}
Tensor contiguous(const Tensor& self, MemoryFormat memory_format, SrcLocArg loc) {
  static const OpDef& d = op("aten::contiguous");
  // TensorBase::contiguous returns self before dispatching when nothing is to be done, so export
  // records no node then (tests/fixtures/dynamic/gpt2_block.txt).
  if (memory_format == MemoryFormat::Contiguous && self.meta().is_contiguous()) return self;
  if (memory_format == MemoryFormat::ChannelsLast && self.meta().is_channels_last_contiguous()) return self;
  if (memory_format == MemoryFormat::Contiguous) return dispatch1(d, {self}, loc);
  return dispatch1(d, {self, memory_format}, loc);
}
Tensor clone(const Tensor& self, std::optional<MemoryFormat> memory_format, SrcLocArg loc) {
  static const OpDef& d = op("aten::clone");
  if (!memory_format) return dispatch1(d, {self}, loc);
  return dispatch1(d, {self, *memory_format}, loc);
}
Tensor alias(const Tensor& self, SrcLocArg loc) {
  static const OpDef& d = op("aten::alias");
  return dispatch1(d, {self}, loc);
}
Tensor detach(const Tensor& self, SrcLocArg loc) {
  static const OpDef& d = op("aten::detach");
  return dispatch1(d, {self}, loc);
}
Tensor detach_(const Tensor& self, SrcLocArg loc) {
  static const OpDef& d = op("aten::detach_");
  return dispatch1(d, {self}, loc);
}
Tensor as_strided(const Tensor& self, Sizes size, Sizes stride, std::optional<int64_t> storage_offset, SrcLocArg loc) {
  static const OpDef& d = op("aten::as_strided");
  if (!storage_offset) return dispatch1(d, {self, std::move(size), std::move(stride)}, loc);
  return dispatch1(d, {self, std::move(size), std::move(stride), SymInt(*storage_offset)}, loc);
}
Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step,
             SrcLocArg loc) {
  static const OpDef& d = op("aten::slice.Tensor");
  return dispatch1(d, {self, SymInt(dim), opt(start), opt(end), SymInt(step)}, loc);
}
Tensor select(const Tensor& self, int64_t dim, int64_t index, SrcLocArg loc) {
  static const OpDef& d = op("aten::select.int");
  return dispatch1(d, {self, SymInt(dim), SymInt(index)}, loc);
}
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length, SrcLocArg loc) {
  static const OpDef& d = op("aten::narrow");
  return dispatch1(d, {self, SymInt(dim), SymInt(start), SymInt(length)}, loc);
}
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim, SrcLocArg loc) {
  static const OpDef& d = op("aten::split.Tensor");
  return dispatch(d, {self, SymInt(split_size), SymInt(dim)}, loc);
}
std::vector<Tensor> split(const Tensor& self, Sizes split_sizes, int64_t dim, SrcLocArg loc) {
  return split_with_sizes(self, std::move(split_sizes), dim, loc);
}
std::vector<Tensor> split_with_sizes(const Tensor& self, Sizes split_sizes, int64_t dim, SrcLocArg loc) {
  static const OpDef& d = op("aten::split_with_sizes");
  return dispatch(d, {self, std::move(split_sizes), SymInt(dim)}, loc);
}
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim, SrcLocArg loc) {
  static const OpDef& d = op("aten::chunk");
  return dispatch(d, {self, SymInt(chunks), SymInt(dim)}, loc);
}
std::vector<Tensor> unbind(const Tensor& self, int64_t dim, SrcLocArg loc) {
  static const OpDef& d = op("aten::unbind.int");
  return dispatch(d, {self, SymInt(dim)}, loc);
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
