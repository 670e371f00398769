#include "fakeexport/core/scopes.h"

#include "fakeexport/core/error.h"

namespace fe {
namespace {
thread_local bool t_fake_mode = false;
thread_local bool t_export_semantics = false;
thread_local std::optional<Device> t_device;
thread_local DType t_dtype = DType::Float32;
thread_local CudaArch t_cuda_arch = CudaArch::Sm90;
}  // namespace

FakeTensorMode::FakeTensorMode() : prev_(t_fake_mode) { t_fake_mode = true; }
FakeTensorMode::~FakeTensorMode() { t_fake_mode = prev_; }
bool FakeTensorMode::active() { return t_fake_mode; }
ExportSemanticsScope::ExportSemanticsScope() : prev_(t_export_semantics) { t_export_semantics = true; }
ExportSemanticsScope::~ExportSemanticsScope() { t_export_semantics = prev_; }
bool ExportSemanticsScope::active() { return t_export_semantics; }
UnsetFakeTemporarily::UnsetFakeTemporarily() : prev_(t_fake_mode) { t_fake_mode = false; }
UnsetFakeTemporarily::~UnsetFakeTemporarily() { t_fake_mode = prev_; }

DeviceScope::DeviceScope(Device d) : prev_(t_device) { t_device = d; }
DeviceScope::~DeviceScope() { t_device = prev_; }

DTypeScope::DTypeScope(DType t) : prev_(t_dtype) { t_dtype = t; }
DTypeScope::~DTypeScope() { t_dtype = prev_; }

CudaArch parse_cuda_arch(std::string_view s) {
  if (s == "sm80") return CudaArch::Sm80;
  if (s == "sm90") return CudaArch::Sm90;
  throw ValueError("--arch: expected sm80 or sm90, got '" + std::string(s) + "'");
}
std::string_view cuda_arch_name(CudaArch a) { return a == CudaArch::Sm80 ? "sm80" : "sm90"; }
CudaArchScope::CudaArchScope(CudaArch a) : prev_(t_cuda_arch) { t_cuda_arch = a; }
CudaArchScope::~CudaArchScope() { t_cuda_arch = prev_; }
CudaArch cuda_arch() { return t_cuda_arch; }

Device default_device() { return t_device.value_or(kCPU); }
std::optional<Device> scoped_device() { return t_device; }
DType default_dtype() { return t_dtype; }

Tensor meta_like(const Tensor& t) {
  auto impl = std::make_shared<TensorImpl>();
  impl->meta = t.meta();
  impl->meta.device = kMeta;
  return Tensor(std::move(impl));
}

Tensor fake_like(const Tensor& t) {
  auto impl = std::make_shared<TensorImpl>();
  impl->meta = t.meta();
  impl->meta.device = t.device().normalized();
  impl->fake = true;
  impl->is_parameter = t.is_parameter();
  return Tensor(std::move(impl));
}

Tensor fake_constant(const Tensor& values, Device device) {
  FE_CHECK(values.has_storage() && values.device().is_cpu() && values.meta().is_contiguous(), ValueError,
           "fake_constant: needs a real contiguous cpu tensor, got ", values.meta().annotation());
  Tensor t = fake_like(values);
  t.impl()->meta.device = device.normalized();
  t.impl()->constant = values.impl_ptr();
  return t;
}

}  // namespace fe
