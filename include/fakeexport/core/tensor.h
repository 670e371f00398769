// Tensor: a reference-counted handle to TensorImpl. Fake tensors carry metadata only.
#pragma once
#include <cstddef>
#include <memory>
#include <ostream>
#include <string>

#include "fakeexport/core/source_location.h"
#include "fakeexport/core/tensor_meta.h"

namespace fe {

/// Host memory of real tensors; the only place tensor data is allocated.
class Storage {
 public:
  explicit Storage(size_t nbytes);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  std::byte* data() { return data_.get(); }
  size_t nbytes() const { return nbytes_; }

 private:
  std::unique_ptr<std::byte[]> data_;
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
  int64_t size(int64_t d) const;
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
  /// Value of a one-element tensor (aten::_local_scalar_dense); DataAccessError when fake.
  double item() const;
  /// Element values as text, like print(tensor); DataAccessError when fake.
  std::string values_string() const;

  // Methods mirroring torch.Tensor; each dispatches one ATen op (see ops/api_<family>.h), defined
  // in that family's src/ops/<family>.cpp. One section per family.

  // -- elementwise (src/ops/elementwise.cpp)

  // -- unary (src/ops/unary.cpp)

  // -- activation (src/ops/activation.cpp)

  // -- reduction (src/ops/reduction.cpp)

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

  // -- norm (src/ops/norm.cpp)

  // -- linalg (src/ops/linalg.cpp)
  Tensor t(SrcLocArg loc = SrcLocArg::current()) const;

  // -- factory (src/ops/factory.cpp)

  // -- conversion (src/ops/conversion.cpp)
  Tensor to(Device device, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor to(DType dtype, SrcLocArg loc = SrcLocArg::current()) const;
  Tensor to(Device device, DType dtype, SrcLocArg loc = SrcLocArg::current()) const;
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
