// Private to the linalg family: metadata transforms that mirror the ATen view/reduction steps
// PyTorch's composite matmul/einsum/linear take, so their meta reports the same strides.
#pragma once
#include <optional>
#include <vector>

#include "fakeexport/ops/registry.h"
#include "ops/meta_util.h"

namespace fe::ops::linalg {

void register_einsum_ops(Registry& r);

/// at::detail::computeStride: strides of a view of (sizes, strides) as `shape`, if one exists.
std::optional<DimVector> compute_stride(IntSpan sizes, IntSpan strides, IntSpan shape);

TensorMeta permute(const TensorMeta& m, std::span<const int64_t> perm);
TensorMeta unsqueeze(const TensorMeta& m, int64_t dim);
TensorMeta squeeze0(const TensorMeta& m);
/// x.mT: swaps the last two dims.
TensorMeta mT(const TensorMeta& m);
/// Strides of the view of m as `shape` (compute_stride), decided without guards for contiguous m.
std::optional<DimVector> view_strides(const TensorMeta& m, IntSpan shape);
/// Bytes reshape(m, shape) copies: 0 when it can view m, else the contiguous copy's size.
SymInt reshape_copy_bytes(const TensorMeta& m, IntSpan shape);
/// reshape: a view when strides allow, else a contiguous copy.
TensorMeta reshape(const TensorMeta& m, IntSpan shape);

/// c10 infer_size with PyTorch's message ("The size of tensor a (5) must match ...").
DimVector infer_size(const MetaArgs& a, IntSpan x, IntSpan y);

/// "torch.Size([2, 3])" for messages.
std::string size_repr(IntSpan s);
/// torch._refs._broadcast_shapes over two shapes, with its message ("Attempting to broadcast ...").
DimVector prims_broadcast(const MetaArgs& a, IntSpan x, IntSpan y);

/// Meta of aten::mm / aten::bmm / aten::mv / aten::dot as FakeTensorMode computes them.
TensorMeta mm_meta(const MetaArgs& a, const TensorMeta& x, const TensorMeta& y);
TensorMeta bmm_meta(const MetaArgs& a, const TensorMeta& x, const TensorMeta& y);
TensorMeta mv_meta(const MetaArgs& a, const TensorMeta& x, const TensorMeta& y);
TensorMeta dot_meta(const MetaArgs& a, const TensorMeta& x, const TensorMeta& y);
/// iter_output_strides(shape, ins), answered without guards when ins[0] already has `shape`, is
/// contiguous and has no dim that may be 0 or 1: TensorIterator's stride sort is then decided by
/// ins[0]'s strictly decreasing strides, so the output is contiguous.
DimVector ti_strides(IntSpan shape, std::span<const TensorMeta* const> ins, int wrapped_numbers = 0);
/// x * y: broadcast sizes, promoted dtype, TensorIterator strides.
TensorMeta mul_meta(const MetaArgs& a, const TensorMeta& x, const TensorMeta& y);

/// A strided read-only view for the reference kernels.
struct View {
  const std::byte* base = nullptr;  ///< element 0 of storage
  DType dtype = DType::Float32;
  int64_t offset = 0;
  std::vector<int64_t> sizes, strides;
  double at(std::span<const int64_t> idx) const;
};
View view_of(const Tensor& t);

/// out = sum over k of a[..., i, k] * b[..., k, j] with batch broadcasting; a, b at least 2-D
/// (callers unsqueeze vectors). Returns values in row-major order of the broadcast result.
std::vector<double> batched_matmul(const View& a, const View& b, std::vector<int64_t>& out_sizes);
/// Writes row-major `vals` into tensor t through its strides.
void store_rowmajor(const Tensor& t, const std::vector<double>& vals);

}  // namespace fe::ops::linalg
