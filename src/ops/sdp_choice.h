// Which kernel scaled_dot_product_attention runs on a CUDA device (PyTorch's sdp::select_sdp_backend,
// CUDA 13 build, cuDNN 9.19): the choice changes the exported program (the output's strides) and
// its Core ATen lowering (which fused op run_decompositions records), so it is part of the meta.
#pragma once
#include <optional>
#include <span>

#include "fakeexport/ops/ivalue.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/core/tensor_meta.h"

namespace fe::ops {

/// PyTorch's SDPBackend values (torch.nn.attention.SDPBackend).
enum class SdpBackend { Math = 0, Flash = 1, Efficient = 2, Cudnn = 3 };

/// The arguments the chooser reads (sdp::sdp_params).
struct SdpParams {
  const TensorMeta& q;
  const TensorMeta& k;
  const TensorMeta& v;
  const TensorMeta* mask = nullptr;
  double dropout = 0.0;
  bool causal = false;
  bool gqa = false;
};

/// The backend PyTorch selects on a CUDA GPU of generation `arch` (first that passes its gates in
/// the arch's priority order; math when none does).
SdpBackend choose_sdp_backend_cuda(const SdpParams& p, CudaArch arch);

/// Whether scaled_dot_product_attention on a CPU takes the fused flash kernel
/// (sdp::use_flash_attention_cpp), else the math path.
bool uses_flash_cpu(const SdpParams& p);

/// The first step of scaled_dot_product_attention's decomposition: its boolean mask made additive
/// (convert_boolean_attn_mask; cuDNN's with -65504), and on cuda the memory-efficient kernel's
/// mask padded and expanded as well, recorded now; nullopt where the call keeps its mask (none, not
/// boolean, not decomposed, flash). PyTorch's functionalization brings q, k and v up to date only
/// after this, when the kernel it lowers to reads them (run_decompositions' order for views of a
/// written cache). On cuda the lowering that follows keeps the kernel chosen for the original mask.
std::optional<Tensor> sdpa_converted_mask(std::span<const IValue> a, const SrcLocArg& loc);

}  // namespace fe::ops
