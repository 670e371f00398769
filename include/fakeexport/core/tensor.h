// Tensor: a reference-counted handle to TensorImpl. Fake tensors carry metadata only.
#pragma once
#include <cstddef>
#include <memory>
#include <ostream>
#include <string>

#include "fakeexport/core/source_location.h"
#include "fakeexport/core/tensor_meta.h"
#include "fakeexport/ops/unary_list.h"

namespace fe {

/// Host memory of real tensors; the only place tensor data is allocated.
class Storage {
 public:
  explicit Storage(size_t nbytes);
  /// Memory owned elsewhere (a copy-on-write file mapping of an archive's weights), kept alive by
  /// `owner`; not counted as allocated: pages are read when first touched.
  Storage(std::byte* external, size_t nbytes, std::shared_ptr<const void> owner);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  std::byte* data() { return ptr_; }
  size_t nbytes() const { return nbytes_; }

 private:
  std::unique_ptr<std::byte[]> data_;
  std::shared_ptr<const void> owner_;
  std::byte* ptr_;
  size_t nbytes_;
};

/// Total bytes of tensor data ever allocated by this process (the tests' proof of "zero bytes").
int64_t tensor_data_bytes_allocated();

/// The object behind a Tensor handle. A fake tensor has meta and no storage.
struct TensorImpl {
  TensorMeta meta;
  std::shared_ptr<Storage> storage;  ///< null for fake and meta-device tensors
  bool fake = false;
  bool is_parameter = false;
  /// For views: the tensor whose storage this one looks into (never itself a view).
  std::shared_ptr<TensorImpl> view_base;
  /// A fake tensor made from known values (PyTorch's FakeTensor.constant): the real, contiguous CPU
  /// tensor holding them, so programs can save the true values of rotary tables and id buffers.
  std::shared_ptr<TensorImpl> constant;
  /// Tracer bookkeeping: the node that produced this tensor in trace `trace_id` (see export/tracer).
  void* trace_node = nullptr;
  uint64_t trace_id = 0;
};

/// Handle to a tensor (like at::Tensor): copying shares the same TensorImpl.
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  const TensorMeta& meta() const;
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }

  IntSpan sizes() const { return meta().sizes; }
  IntSpan strides() const { return meta().strides; }
  SymInt size(int64_t d) const;
  int64_t dim() const { return meta().dim(); }
  int64_t numel() const { return meta().numel().expect_int(); }
  DType dtype() const { return meta().dtype; }
  Device device() const { return meta().device; }
  Layout layout() const { return meta().layout; }
  bool requires_grad() const { return meta().requires_grad; }

  /// True for tensors created under FakeTensorMode (or derived from fake tensors): no data.
  bool is_fake() const { return impl_ && impl_->fake; }
  bool is_parameter() const { return impl_ && impl_->is_parameter; }
  bool has_storage() const { return impl_ && impl_->storage != nullptr; }

  /// Pointer to the first element; DataAccessError for fake/meta tensors.
  void* data_ptr() const;
  template <class T>
  T* data() const { return static_cast<T*>(data_ptr()); }
  /// Value of a one-element tensor (aten::_local_scalar_dense). On a fake tensor the value is data:
  /// DataDependentError naming the caller's line (control flow on it needs fe::cond).
  double item(SrcLocArg loc = SrcLocArg::current()) const;
  template <class T>
  T item(SrcLocArg loc = SrcLocArg::current()) const {
    return static_cast<T>(item(loc));
  }
  /// Element values as text, like print(tensor); DataAccessError when fake.
  std::string values_string() const;

  // Methods mirroring torch.Tensor; each dispatches one ATen op (see ops/api_<family>.h), defined
  // in that family's src/ops/<family>.cpp. One section per family.

  // -- elementwise (src/ops/elementwise.cpp)
  // `class Scalar` (fakeexport/ops/scalar.h) is complete wherever these are called; overloads
  // stand in for Scalar default arguments.
  Tensor add(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor add(const Tensor& other, const class Scalar& alpha, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor add(const class Scalar& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor sub(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor sub(const Tensor& other, const class Scalar& alpha, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor sub(const class Scalar& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor mul(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor mul(const class Scalar& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor div(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor div(const class Scalar& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor remainder(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor remainder(const class Scalar& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor pow(const Tensor& exponent, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor pow(const class Scalar& exponent, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor eq(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor eq(const class Scalar& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor ne(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor ne(const class Scalar& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor lt(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor lt(const class Scalar& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor le(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor le(const class Scalar& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor gt(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor gt(const class Scalar& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor ge(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor ge(const class Scalar& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor logical_and(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor logical_or(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor logical_xor(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor logical_not(SrcLocArg loc = SrcLocArg::current()) const;
  Tensor bitwise_not(SrcLocArg loc = SrcLocArg::current()) const;
  Tensor bitwise_and(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor bitwise_or(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  /// x.where(condition, y) == torch.where(condition, x, y).
  Tensor where(const Tensor& condition, const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor where(const Tensor& condition, const class Scalar& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor masked_fill(const Tensor& mask, const class Scalar& value, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor masked_fill(const Tensor& mask, const Tensor& value, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor clamp_min(const class Scalar& min, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor clamp_max(const class Scalar& max, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor maximum(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor minimum(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  // In-place: return *this (the same tensor) after the dispatcher checked the result fits it.
  Tensor add_(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor add_(const Tensor& other, const class Scalar& alpha, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor add_(const class Scalar& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor sub_(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor sub_(const Tensor& other, const class Scalar& alpha, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor sub_(const class Scalar& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor mul_(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor mul_(const class Scalar& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor div_(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor div_(const class Scalar& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor masked_fill_(const Tensor& mask, const class Scalar& value, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor masked_fill_(const Tensor& mask, const Tensor& value, SrcLocArg loc = SrcLocArg::current()) const;
  /// x.clamp_(min, max) / x.clamp(min, max) with both bounds (fe::clamp takes a missing one).
  Tensor clamp_(const class Scalar& min, const class Scalar& max, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor clamp(const class Scalar& min, const class Scalar& max, SrcLocArg loc = SrcLocArg::current()) const;

  // -- unary (src/ops/unary.cpp): x.<name>() and x.<name>_() for every op of FE_UNARY_OPS
#define FE_UNARY_METHOD(name, ...)                              \
  Tensor name(SrcLocArg loc = SrcLocArg::current()) const;      \
  Tensor name##_(SrcLocArg loc = SrcLocArg::current()) const;
  FE_UNARY_OPS(FE_UNARY_METHOD)
#undef FE_UNARY_METHOD

  // -- activation (src/ops/activation.cpp)
  Tensor relu(SrcLocArg loc = SrcLocArg::current()) const;
  Tensor relu_(SrcLocArg loc = SrcLocArg::current()) const;
  Tensor softmax(int64_t dim, std::optional<DType> dtype = {}, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor log_softmax(int64_t dim, std::optional<DType> dtype = {}, SrcLocArg loc = SrcLocArg::current()) const;

  // -- reduction (src/ops/reduction.cpp, src/ops/reduction_index.cpp)
  Tensor sum(std::optional<DType> dtype = {}, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor sum(std::initializer_list<int64_t> dim, bool keepdim = false, std::optional<DType> dtype = {},
             SrcLocArg loc = SrcLocArg::current()) const;
  Tensor mean(std::optional<DType> dtype = {}, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor mean(std::initializer_list<int64_t> dim, bool keepdim = false, std::optional<DType> dtype = {},
              SrcLocArg loc = SrcLocArg::current()) const;
  Tensor prod(std::optional<DType> dtype = {}, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor prod(int64_t dim, bool keepdim = false, std::optional<DType> dtype = {},
              SrcLocArg loc = SrcLocArg::current()) const;
  Tensor cumsum(int64_t dim, std::optional<DType> dtype = {}, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor amax(std::initializer_list<int64_t> dim = {}, bool keepdim = false, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor amin(std::initializer_list<int64_t> dim = {}, bool keepdim = false, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor max(SrcLocArg loc = SrcLocArg::current()) const;
  std::pair<Tensor, Tensor> max(int64_t dim, bool keepdim = false, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor min(SrcLocArg loc = SrcLocArg::current()) const;
  std::pair<Tensor, Tensor> min(int64_t dim, bool keepdim = false, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor argmax(std::optional<int64_t> dim = {}, bool keepdim = false, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor argmin(std::optional<int64_t> dim = {}, bool keepdim = false, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor var(SrcLocArg loc = SrcLocArg::current()) const;
  Tensor var(std::initializer_list<int64_t> dim, bool unbiased = true, bool keepdim = false,
             SrcLocArg loc = SrcLocArg::current()) const;
  Tensor std(SrcLocArg loc = SrcLocArg::current()) const;
  Tensor std(std::initializer_list<int64_t> dim, bool unbiased = true, bool keepdim = false,
             SrcLocArg loc = SrcLocArg::current()) const;
  Tensor any(SrcLocArg loc = SrcLocArg::current()) const;
  Tensor any(int64_t dim, bool keepdim = false, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor any(std::initializer_list<int64_t> dim, bool keepdim = false, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor all(SrcLocArg loc = SrcLocArg::current()) const;
  Tensor all(int64_t dim, bool keepdim = false, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor all(std::initializer_list<int64_t> dim, bool keepdim = false, SrcLocArg loc = SrcLocArg::current()) const;
  std::pair<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true,
                                 SrcLocArg loc = SrcLocArg::current()) const;
  std::pair<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false, SrcLocArg loc = SrcLocArg::current()) const;

  // -- view (src/ops/view.cpp)
  Tensor view(std::vector<SymInt> size, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor reshape(std::vector<SymInt> shape, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor permute(std::vector<int64_t> dims, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor transpose(int64_t dim0, int64_t dim1, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor expand(std::vector<SymInt> size, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor expand_as(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor unsqueeze(int64_t dim, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor squeeze(SrcLocArg loc = SrcLocArg::current()) const;
  Tensor squeeze(int64_t dim, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor squeeze(std::vector<int64_t> dims, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor unflatten(int64_t dim, std::vector<SymInt> sizes, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor contiguous(SrcLocArg loc = SrcLocArg::current()) const;
  Tensor detach(SrcLocArg loc = SrcLocArg::current()) const;
  Tensor detach_(SrcLocArg loc = SrcLocArg::current()) const;
  Tensor clone(SrcLocArg loc = SrcLocArg::current()) const;
  /// x[..., start:end:step] along dim (Python indexing records start 0 and end INT64_MAX when omitted).
  Tensor slice(int64_t dim, std::optional<int64_t> start = {}, std::optional<int64_t> end = {}, int64_t step = 1,
               SrcLocArg loc = SrcLocArg::current()) const;
  Tensor select(int64_t dim, int64_t index, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length, SrcLocArg loc = SrcLocArg::current()) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0, SrcLocArg loc = SrcLocArg::current()) const;
  std::vector<Tensor> split(std::vector<SymInt> split_sizes, int64_t dim = 0, SrcLocArg loc = SrcLocArg::current()) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0, SrcLocArg loc = SrcLocArg::current()) const;
  std::vector<Tensor> unbind(int64_t dim = 0, SrcLocArg loc = SrcLocArg::current()) const;

  // -- join (src/ops/join.cpp)
  Tensor repeat(std::vector<SymInt> repeats, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor repeat_interleave(int64_t repeats, std::optional<int64_t> dim = {}, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor triu(int64_t diagonal = 0, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor tril(int64_t diagonal = 0, SrcLocArg loc = SrcLocArg::current()) const;

  // -- indexing (src/ops/indexing.cpp)
  /// x[i, :, j] as x.index({i, std::nullopt, j}); x[i] = v as x.index_put_({i}, v).
  Tensor index(std::initializer_list<std::optional<Tensor>> indices, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor index_put(std::initializer_list<std::optional<Tensor>> indices, const Tensor& values, bool accumulate = false,
                   SrcLocArg loc = SrcLocArg::current()) const;
  Tensor index_put_(std::initializer_list<std::optional<Tensor>> indices, const Tensor& values,
                    bool accumulate = false, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor index_select(int64_t dim, const Tensor& index, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor gather(int64_t dim, const Tensor& index, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor scatter_(int64_t dim, const Tensor& index, const Tensor& src, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor index_copy(int64_t dim, const Tensor& index, const Tensor& source, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source, const class Scalar& alpha,
                   SrcLocArg loc = SrcLocArg::current()) const;
  Tensor index_add_(int64_t dim, const Tensor& index, const Tensor& source, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor index_add_(int64_t dim, const Tensor& index, const Tensor& source, const class Scalar& alpha,
                    SrcLocArg loc = SrcLocArg::current()) const;
  Tensor index_copy_(int64_t dim, const Tensor& index, const Tensor& source,
                     SrcLocArg loc = SrcLocArg::current()) const;

  // -- norm (src/ops/norm.cpp)

  // -- linalg (src/ops/linalg.cpp)
  Tensor t(SrcLocArg loc = SrcLocArg::current()) const;
  Tensor matmul(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;

  // -- factory (src/ops/factory.cpp)
  /// x.new_zeros(size, dtype=None, device=None): self's dtype/device unless given (fe::new_* take TensorOptions).
  Tensor new_empty(IntSpan size, std::optional<DType> dtype = {}, std::optional<Device> device = {},
                   SrcLocArg loc = SrcLocArg::current()) const;
  Tensor new_empty(std::initializer_list<SymInt> size, std::optional<DType> dtype = {},
                   std::optional<Device> device = {}, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor new_zeros(IntSpan size, std::optional<DType> dtype = {}, std::optional<Device> device = {},
                   SrcLocArg loc = SrcLocArg::current()) const;
  Tensor new_zeros(std::initializer_list<SymInt> size, std::optional<DType> dtype = {},
                   std::optional<Device> device = {}, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor new_ones(IntSpan size, std::optional<DType> dtype = {}, std::optional<Device> device = {},
                  SrcLocArg loc = SrcLocArg::current()) const;
  Tensor new_ones(std::initializer_list<SymInt> size, std::optional<DType> dtype = {},
                  std::optional<Device> device = {}, SrcLocArg loc = SrcLocArg::current()) const;

  // -- conversion (src/ops/conversion.cpp)
  Tensor to(Device device, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor to(DType dtype, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor to(Device device, DType dtype, SrcLocArg loc = SrcLocArg::current()) const;
  /// t.to(other): other's device and dtype (recorded as to.device, as torch.export does).
  Tensor to(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor type_as(const Tensor& other, SrcLocArg loc = SrcLocArg::current()) const;
  /// In place (the result is self): zero_, fill_(number or 0-dim tensor), copy_(src broadcast and cast).
  Tensor zero_(SrcLocArg loc = SrcLocArg::current()) const;
  Tensor fill_(const class Scalar& value, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor fill_(const Tensor& value, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor copy_(const Tensor& src, bool non_blocking = false, SrcLocArg loc = SrcLocArg::current()) const;
  // -- end of op methods

  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

 private:
  std::shared_ptr<TensorImpl> impl_;
};

/// A Tensor registered as a module parameter (requires_grad by default).
Tensor make_parameter(Tensor t, bool requires_grad = true);

/// repr(): "FakeTensor(..., size=(2, 2))" for fake tensors, "tensor([...])" for real ones.
std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace fe
