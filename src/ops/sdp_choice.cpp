// The CUDA SDPA chooser, gate by gate as sdp_utils.cpp / sdp_utils_cpp.h in PyTorch 2.11 order them
// (where 2.11 differs from later sources, tests/fixtures/cuda/sdpa_choice*.json decided: the
// memory-efficient kernel takes no GQA, cuDNN takes head dims up to 256 and any dropout).
// Only the gates that can fail for dense strided tensors on sm80/sm90 are written; the hardware
// range checks pass on both, and runtime switches (torch.backends.cuda.enable_*) are at defaults.
#include "ops/sdp_choice.h"


namespace fe::ops {
namespace {

bool is_half(DType t) { return t == DType::Float16 || t == DType::BFloat16; }

bool four_d(const SdpParams& p) { return p.q.dim() == 4 && p.k.dim() == 4 && p.v.dim() == 4; }

bool same_dtype(const SdpParams& p) { return p.q.dtype == p.k.dtype && p.q.dtype == p.v.dtype; }

/// check_batch_size_and_num_heads_dense: one batch; GQA (when asked) with kv heads dividing q's.
bool batch_and_heads(const SdpParams& p, bool supports_gqa) {
  if (!(p.q.sizes[0] == p.k.sizes[0] && p.q.sizes[0] == p.v.sizes[0])) return false;
  const SymInt &hq = p.q.sizes[1], &hk = p.k.sizes[1], &hv = p.v.sizes[1];
  if (p.gqa && supports_gqa) return hk == hv && hk != 0 && mod(hq, hk) == 0;
  return hq == hk && hq == hv;
}

bool nonzero_seq(const SdpParams& p) { return !(p.q.sizes[2] == 0) && !(p.k.sizes[2] == 0); }

/// check_last_dim_stride_equals_1_dense (the mask's last stride too).
bool last_stride_1(const SdpParams& p, bool ignore_singleton) {
  bool ok = p.q.strides[3] == 1 && p.k.strides[3] == 1 && p.v.strides[3] == 1;
  if (ignore_singleton) ok = ok || p.q.sizes[3] == 1;
  if (p.mask && p.mask->dim() > 0) ok = ok && p.mask->strides[p.mask->dim() - 1] == 1;
  return ok;
}

bool flash_ok(const SdpParams& p) {
  if (!four_d(p) || p.mask) return false;
  const SymInt &dq = p.q.sizes[3], &dk = p.k.sizes[3], &dv = p.v.sizes[3];
  if (!(dq == dk && dq == dv && dq <= 256)) return false;
  if (p.causal && !(p.q.sizes[2] == p.k.sizes[2])) return false;  // FA2's causal is bottom-right aligned
  if (!same_dtype(p) || !is_half(p.q.dtype)) return false;
  return batch_and_heads(p, true) && nonzero_seq(p) && last_stride_1(p, true);
}

/// minimum_gemm_alignment on sm80+: tensor cores, 128 bits per access.
int64_t gemm_alignment(DType t) { return is_half(t) ? 8 : 4; }

bool efficient_ok(const SdpParams& p) {
  if (!four_d(p)) return false;
  const SymInt &dq = p.q.sizes[3], &dk = p.k.sizes[3], &dv = p.v.sizes[3];
  const int64_t align = gemm_alignment(p.q.dtype);
  if (!(dq == dk && mod(dq, align) == 0 && dq > 0 && mod(dv, align) == 0 && dv > 0)) return false;
  // check_data_ptr_alignment_mem_efficient: the caching allocator aligns bases to 256 bytes, so
  // only storage_offset * itemsize decides (empty tensors need nothing).
  const int64_t bytes = align * itemsize(p.q.dtype);
  for (const TensorMeta* t : {&p.q, &p.k, &p.v})
    if (!(t->numel() == 0) && !(mod(t->storage_offset * itemsize(t->dtype), bytes) == 0)) return false;
  if (!nonzero_seq(p) || !last_stride_1(p, false) || !batch_and_heads(p, false)) return false;  // no GQA in 2.11
  return same_dtype(p) && (is_half(p.q.dtype) || p.q.dtype == DType::Float32);
}

/// check_attn_mask_shape: 2-D, or 4-D broadcasting over batch and heads; never a grad-requiring mask.
bool cudnn_mask_ok(const SdpParams& p) {
  if (!p.mask) return true;
  const TensorMeta& m = *p.mask;
  if (m.requires_grad || m.dim() < 2) return false;
  const SymInt &ls = m.sizes[m.dim() - 2], &ss = m.sizes[m.dim() - 1];
  if (!(ls == p.q.sizes[2]) && !(ls == 1)) return false;
  if (!(ss == p.k.sizes[2]) && !(ss == 1)) return false;
  if (m.dim() == 2) return true;
  return m.dim() == 4 && (m.sizes[0] == 1 || m.sizes[0] == p.q.sizes[0]) && (m.sizes[1] == 1 || m.sizes[1] == p.q.sizes[1]);
}

/// cuDNN 9.19 on sm90: head dims up to 256, multiples of 8.
bool cudnn_ok(const SdpParams& p) {
  if (!four_d(p) || !same_dtype(p) || !is_half(p.q.dtype) || !cudnn_mask_ok(p)) return false;
  if (!nonzero_seq(p) || !last_stride_1(p, true) || !batch_and_heads(p, true)) return false;
  if (!(p.q.sizes[0] <= 65535 && p.q.sizes[1] <= 65535)) return false;
  const SymInt &dqk = p.q.sizes[3], &dv = p.v.sizes[3];
  if (!(dqk <= 256 && dv <= 256)) return false;
  if (!(mod(dqk, 8) == 0 && mod(dv, 8) == 0)) return false;
  if (p.k.sizes[2] == 1) return false;
  if (p.dropout != 0.0 && p.q.sizes[2] == 1) return false;
  return true;
}

}  // namespace

SdpBackend choose_sdp_backend_cuda(const SdpParams& p, CudaArch arch) {
  if (arch == CudaArch::Sm90 && cudnn_ok(p)) return SdpBackend::Cudnn;
  if (flash_ok(p)) return SdpBackend::Flash;
  if (efficient_ok(p)) return SdpBackend::Efficient;
  return SdpBackend::Math;
}

}  // namespace fe::ops
