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

  // -- join (src/ops/join.cpp)

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
  Tensor index_copy_(int64_t dim, const Tensor& index, const Tensor& source,
                     SrcLocArg loc = SrcLocArg::current()) const;

  // -- norm (src/ops/norm.cpp)

  // -- linalg (src/ops/linalg.cpp)
  Tensor t(SrcLocArg loc = SrcLocArg::current()) const;

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
