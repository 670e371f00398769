#include "fakeexport/core/tensor.h"

#include <algorithm>
#include <atomic>
#include <cmath>
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

namespace {

/// torch/_tensor_str.py's _Formatter: one width for all elements; floats print as "3." when every
/// finite nonzero value is integral, else with 4 decimals, and in scientific notation when the
/// finite nonzero magnitudes span more than 1000x, exceed 1e8 or (non-integral) go below 1e-4.
class ValueFormatter {
 public:
  ValueFormatter(const std::vector<double>& vals, DType dtype) : floating_(is_floating(dtype)), bool_(dtype == DType::Bool) {
    if (!floating_) {
      for (double v : vals) width_ = std::max(width_, plain(v).size());
      return;
    }
    double lo = 0, hi = 0;
    bool any = false;
    for (double v : vals) {
      if (!std::isfinite(v) || v == 0) continue;
      const double a = std::fabs(v);
      lo = any ? std::min(lo, a) : a;
      hi = any ? std::max(hi, a) : a;
      any = true;
      if (v != std::ceil(v)) int_ = false;
    }
    if (any) sci_ = hi / lo > 1000 || hi > 1e8 || (!int_ && lo < 1e-4);
    for (double v : vals)
      if (std::isfinite(v) && v != 0) width_ = std::max(width_, format(v).size());
  }
  std::string operator()(double v) const {
    std::string s = floating_ ? format(v) : plain(v);
    return s.size() < width_ ? std::string(width_ - s.size(), ' ') + s : s;
  }

 private:
  std::string plain(double v) const {
    if (bool_) return v ? "True" : "False";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    return buf;
  }
  std::string format(double v) const {
    char buf[64];
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (sci_) std::snprintf(buf, sizeof buf, "%.4e", v);
    else if (int_) std::snprintf(buf, sizeof buf, "%.0f.", v);
    else std::snprintf(buf, sizeof buf, "%.4f", v);
    return buf;
  }
  bool floating_, bool_;
  bool int_ = true, sci_ = false;
  size_t width_ = 1;
};

}  // namespace

std::string Tensor::values_string() const {
  if (!has_storage()) throw_fake_access(*this, "aten::_local_scalar_dense (printing values)");
  const TensorMeta& m = meta();
  std::vector<double> vals;
  const std::byte* base = impl_->storage->data();
  const int64_t isz = itemsize(m.dtype);
  detail::for_each_offset(m, [&](int64_t off) { vals.push_back(detail::load(base + off * isz, m.dtype)); });
  const ValueFormatter fmt(vals, m.dtype);
  const size_t ndim = m.sizes.size();
  std::ostringstream os;
  size_t k = 0;
  // Nested brackets per dimension; rows of a dim above the last are separated by a newline per
  // remaining dim and indented under "tensor(" (as torch/_tensor_str.py). No summarization: every
  // element is printed (PyTorch elides beyond 1000).
  auto rec = [&](auto&& self, size_t d) -> void {
    if (d == ndim) {
      os << fmt(vals[k++]);
      return;
    }
    os << '[';
    const std::string sep = d + 1 < ndim ? "," + std::string(ndim - 1 - d, '\n') + std::string(8 + d, ' ') : ", ";
    for (int64_t i = 0; i < m.sizes[d].expect_int(); ++i) {
      if (i) os << sep;
      self(self, d + 1);
    }
    os << ']';
  };
  os << "tensor(";
  const bool empty = vals.empty();
  if (empty) os << "[]";
  else rec(rec, 0);
  // Suffixes: an empty tensor's shape unless 1-D, and the dtype unless it is the default float
  // (float32) or, for non-empty tensors, int64 or bool.
  if (empty && ndim != 1) {
    os << ", size=(";
    for (size_t i = 0; i < ndim; ++i) os << (i ? ", " : "") << m.sizes[i].expect_int();
    os << ')';
  }
  const bool default_dtype = m.dtype == DType::Float32 || (!empty && (m.dtype == DType::Int64 || m.dtype == DType::Bool));
  if (!default_dtype) os << ", dtype=torch." << dtype_name(m.dtype);
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
