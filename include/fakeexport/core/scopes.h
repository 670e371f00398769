// RAII scopes that mirror PyTorch's context managers. They nest and restore on exit; state is
// per thread (like PyTorch's TLS modes), never a process-wide switch.
#pragma once
#include <optional>
#include <string_view>

#include "fakeexport/core/device.h"
#include "fakeexport/core/dtype.h"
#include "fakeexport/core/tensor.h"

namespace fe {

/// `with FakeTensorMode():` every tensor created inside (factories, parameters, op results) is fake.
class FakeTensorMode {
 public:
  FakeTensorMode();
  ~FakeTensorMode();
  FakeTensorMode(const FakeTensorMode&) = delete;
  FakeTensorMode& operator=(const FakeTensorMode&) = delete;
  /// Whether a FakeTensorMode is active on this thread.
  static bool active();

 private:
  bool prev_;
};

/// `with unset_fake_temporarily():` tensors created inside are real even under a FakeTensorMode.
class UnsetFakeTemporarily {
 public:
  UnsetFakeTemporarily();
  ~UnsetFakeTemporarily();
  UnsetFakeTemporarily(const UnsetFakeTemporarily&) = delete;
  UnsetFakeTemporarily& operator=(const UnsetFakeTemporarily&) = delete;

 private:
  bool prev_;
};

/// `with torch.device(d):` default device for factories and module construction.
class DeviceScope {
 public:
  explicit DeviceScope(Device d);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  std::optional<Device> prev_;
};

/// `torch.set_default_dtype` for a scope: default floating dtype of factories.
class DTypeScope {
 public:
  explicit DTypeScope(DType t);
  ~DTypeScope();
  DTypeScope(const DTypeScope&) = delete;
  DTypeScope& operator=(const DTypeScope&) = delete;

 private:
  DType prev_;
};

/// Non-strict torch.export semantics for Python code run while tracing: export patches the builtins
/// min/max to torch.sym_min/sym_max on symbolic ints (non_strict_utils._override_builtin_ops), so
/// metas written in Python (e.g. the view/flatten stride of a merged chunk) give Min(32, 32*s27)
/// instead of guarding. Set while tracing and while checking an exported program.
class ExportSemanticsScope {
 public:
  ExportSemanticsScope();
  ~ExportSemanticsScope();
  ExportSemanticsScope(const ExportSemanticsScope&) = delete;
  ExportSemanticsScope& operator=(const ExportSemanticsScope&) = delete;
  /// Whether an ExportSemanticsScope is active on this thread.
  static bool active();

 private:
  bool prev_;
};

/// The CUDA GPU generation device-specific choices assume (which fused attention kernel
/// scaled_dot_product_attention takes): it changes the program, not just its speed.
enum class CudaArch {
  Sm80,  ///< A100-class: flash, then memory-efficient, then math (cuDNN attention last, never reached)
  Sm90,  ///< H100/H200: cuDNN attention first (PyTorch >= 2.10 with CUDA 13 and cuDNN > 9.15), then as sm80
};
/// "sm80" / "sm90"; anything else is a ValueError naming the value and the choices.
CudaArch parse_cuda_arch(std::string_view s);
std::string_view cuda_arch_name(CudaArch a);

/// `--arch`: the CudaArch choices inside the scope assume (default sm90).
class CudaArchScope {
 public:
  explicit CudaArchScope(CudaArch a);
  ~CudaArchScope();
  CudaArchScope(const CudaArchScope&) = delete;
  CudaArchScope& operator=(const CudaArchScope&) = delete;

 private:
  CudaArch prev_;
};
/// The innermost CudaArchScope's architecture, or sm90.
CudaArch cuda_arch();

/// The innermost DeviceScope's device, or cpu.
Device default_device();
/// Whether a DeviceScope is active (factories then record its device explicitly).
std::optional<Device> scoped_device();
/// The innermost DTypeScope's dtype, or float32.
DType default_dtype();

/// Whether t is a fake tensor (no data).
inline bool is_fake(const Tensor& t) { return t.is_fake(); }
/// A `meta`-device twin of t: same sizes/strides/dtype, no data.
Tensor meta_like(const Tensor& t);
/// A fake twin of t on the same device (what FakeTensorMode.from_tensor gives).
Tensor fake_like(const Tensor& t);
/// A fake tensor on `device` with real CPU `values`' metadata that remembers them (FakeTensor.constant).
Tensor fake_constant(const Tensor& values, Device device);

}  // namespace fe
