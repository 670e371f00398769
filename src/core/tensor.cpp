#include "fakeexport/core/tensor.h"

#include <atomic>
#include <cstdio>
#include <sstream>

#include "core/element.h"
#include "core/strided.h"
#include "fakeexport/core/error.h"

namespace fe {
namespace {
std::atomic<int64_t> g_bytes_allocated{0};

[[noreturn]] void throw_fake_access(const Tensor& t, std::string_view op) {
  throw DataAccessError(detail::cat(op, ": cannot access data of a ", t.is_fake() ? "fake" : "meta",
                                    " tensor (", t.meta().annotation(), " on ", t.device().str(),
                                    "): fake tensors carry metadata only"));
}
}  // namespace

Storage::Storage(size_t nbytes) : data_(new std::byte[nbytes == 0 ? 1 : nbytes]()), ptr_(data_.get()), nbytes_(nbytes) {
  g_bytes_allocated.fetch_add(static_cast<int64_t>(nbytes), std::memory_order_relaxed);
}
Storage::Storage(std::byte* external, size_t nbytes, std::shared_ptr<const void> owner)
    : owner_(std::move(owner)), ptr_(external), nbytes_(nbytes) {}
Storage::~Storage() = default;

int64_t tensor_data_bytes_allocated() { return g_bytes_allocated.load(std::memory_order_relaxed); }

const TensorMeta& Tensor::meta() const {
  FE_CHECK(impl_, ValueError, "use of an undefined tensor");
  return impl_->meta;
}

SymInt Tensor::size(int64_t d) const {
  return meta().sizes[wrap_dim(d, dim(), "size")];
}

void* Tensor::data_ptr() const {
  if (!has_storage()) throw_fake_access(*this, "aten::data_ptr");
  return impl_->storage->data() + meta().storage_offset.expect_int() * itemsize(dtype());
}

double Tensor::item(SrcLocArg loc) const {
  if (is_fake())
    throw DataDependentError(detail::cat(
        "aten::_local_scalar_dense: Could not extract the value of a fake tensor (", meta().annotation(), " on ",
        device().str(), ") at ", loc.file_name(), ":", loc.line(), " in ", loc.function_name(),
        ": it is data, unknown while exporting, so control flow on it cannot be traced. Express data-dependent "
        "branches with fe::cond(pred, true_fn, false_fn, operands), which keeps both branches in the program."));
  if (!has_storage()) throw_fake_access(*this, "aten::_local_scalar_dense");
  FE_CHECK(numel() == 1, ValueError, "aten::_local_scalar_dense: a Tensor with ", numel(),
           " elements cannot be converted to Scalar");
  return detail::load(data_ptr(), dtype());
}

std::string Tensor::values_string() const {
  if (!has_storage()) throw_fake_access(*this, "aten::_local_scalar_dense (printing values)");
  const TensorMeta& m = meta();
  std::vector<double> vals;
  const std::byte* base = impl_->storage->data();
  const int64_t isz = itemsize(m.dtype);
  detail::for_each_offset(m, [&](int64_t off) { vals.push_back(detail::load(base + off * isz, m.dtype)); });
  std::ostringstream os;
  size_t k = 0;
  // Nested brackets per dimension, 4 decimals for floats (close to, not exactly, torch's printer).
  auto rec = [&](auto&& self, size_t d) -> void {
    if (d == m.sizes.size()) {
      char buf[64];
      if (is_floating(m.dtype)) std::snprintf(buf, sizeof buf, "%.4f", vals[k++]);
      else if (m.dtype == DType::Bool) std::snprintf(buf, sizeof buf, "%s", vals[k++] ? "True" : "False");
      else std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(vals[k++]));
      os << buf;
      return;
    }
    os << '[';
    for (int64_t i = 0; i < m.sizes[d].expect_int(); ++i) {
      if (i) os << ", ";
      self(self, d + 1);
    }
    os << ']';
  };
  os << "tensor(";
  rec(rec, 0);
  os << ')';
  return os.str();
}

Tensor make_parameter(Tensor t, bool requires_grad) {
  FE_CHECK(t.defined(), ValueError, "Parameter: undefined tensor");
  t.impl()->is_parameter = true;
  t.impl()->meta.requires_grad = requires_grad;
  return t;
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "Tensor(undefined)";
  if (!t.has_storage()) {
    // repr(FakeTensor): device shown unless cpu, size as a Python tuple.
    os << (t.is_fake() ? "FakeTensor(..., " : "tensor(..., ");
    if (!t.device().is_cpu()) os << "device='" << t.device().str() << "', ";
    os << "size=(";
    for (int64_t i = 0; i < t.dim(); ++i) os << (i ? ", " : "") << t.sizes()[i];
    if (t.dim() == 1) os << ',';
    os << ')';
    if (t.dtype() != DType::Float32) os << ", dtype=torch." << dtype_name(t.dtype());
    return os << ')';
  }
  return os << t.values_string();
}

}  // namespace fe
