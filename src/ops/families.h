// Each op family file declares its ops in one register function; registry() calls them all.
#pragma once
#include "fakeexport/ops/dispatch.h"
#include "fakeexport/ops/registry.h"

namespace fe {

/// A family's handle on one op it declares, bound where the op is declared
/// (`op_cat = r.add({"aten::cat(...) -> Tensor", ...})`), so an op's name is written once, in its
/// schema, and its API and the metas composed from it never look it up by name. Dereferencing builds
/// the registry first, so any code may use a handle at any time.
class OpHandle {
 public:
  constexpr OpHandle() = default;
  OpHandle& operator=(const OpDef& d) {
    def_ = &d;
    return *this;
  }
  const OpDef& operator*() const {
    registry();  // binds every handle on first use
    return *def_;
  }

 private:
  const OpDef* def_ = nullptr;
};

/// Argument i of a decomposition (DecompFn) as a tensor.
inline const Tensor& decomp_tensor(std::span<const IValue> a, size_t i) { return std::get<Tensor>(a[i]); }
/// The dtype a computation in `t` runs in (at::opmath_type, torch._prims_common's
/// get_computation_dtype): float32 for float16/bfloat16, `t` otherwise.
inline DType opmath_dtype(DType t) { return t == DType::Float16 || t == DType::BFloat16 ? DType::Float32 : t; }
/// torch._decomp's pw_cast_for_opmath: float16/bfloat16 computed in float32 (x.to(float32), no node
/// for other dtypes); `opmath_result` casts the result back to `dtype` the same way.
Tensor opmath(const Tensor& x, const SrcLocArg& loc);
Tensor opmath_result(const Tensor& r, DType dtype, const SrcLocArg& loc);
/// Tensor.contiguous(memory_format) inside a decomposition of `op`: `x` when c10 says it is
/// contiguous in that format (asked untraced: a retrace records c10's check on its own terms,
/// export/functional_names.h), else clone(x, format).
Tensor contiguous_or_clone(const Tensor& x, MemoryFormat mf, std::string_view op, const SrcLocArg& loc);
/// `op` itself, recorded as called: what a decomposition returns for a case PyTorch leaves as is.
std::vector<Tensor> undecomposed(const OpDef& op, std::span<const IValue> a, const SrcLocArg& loc);

/// The three parts of a CompositeImplicit alias of `target` (see composite_alias): target's meta
/// with its errors under the alias's name, and target's kernel and decomposition, same arguments.
void alias_meta(const OpDef& target, const MetaArgs& a, MetaOut& out);
void alias_cpu(const OpDef& target, std::span<const IValue> a, std::span<Tensor> o);
std::vector<Tensor> alias_decomp(const OpDef& target, std::span<const IValue> a, const SrcLocArg& loc);
/// The declaration of an op that is another under a second name (torch.multiply is mul.Tensor,
/// torch.concatenate is cat): its own schema, everything else the target's.
template <const OpHandle& Target>
OpDecl composite_alias(const char* schema) {
  return {.schema = schema,
          .meta = [](const MetaArgs& a, MetaOut& out) { alias_meta(*Target, a, out); },
          .cpu = [](const OpDef&, std::span<const IValue> a, std::span<Tensor> o) { alias_cpu(*Target, a, o); },
          .decomp = [](std::span<const IValue> a, const SrcLocArg& loc) { return alias_decomp(*Target, a, loc); }};
}

// Ops other families compose with (in metas, kernels or their public API), each defined in the file
// that declares the op.
extern OpHandle op_adaptive_avg_pool2d, op_alias, op_as_strided, op_bmm, op_cat, op_chunk, op_clone, op_contiguous,
    op_broadcast_to, op_detach, op_detach_, op_diagonal, op_einsum, op_empty_like, op_expand, op_expand_as, op_flatten_using_ints,
    op_logical_xor, op_narrow, op_permute, op_reshape, op_select_int, op_slice_Tensor, op_split_Tensor,
    op_split_with_sizes, op_squeeze, op_squeeze_dim, op_squeeze_dims, op_sub_Tensor, op_transpose_int,
    op_unbind_int, op_unflatten_int, op_unsafe_view, op_unsqueeze, op_view;

// Ops that decompositions in other families produce (attention's math path).
extern OpHandle op_full_like, op_scalar_tensor, op_mul_Scalar, op_sum_dim_IntList, op_to_dtype, op_to_dtype_layout;
// Flash attention's head-dim padding on CUDA.
extern OpHandle op_constant_pad_nd;
// item's decomposition.
extern OpHandle op_local_scalar_dense;
// one_hot's decomposition checks its classes with _assert_async.msg.
extern OpHandle op_assert_async_msg;
// im2col's metadata (its decomposition's block indices and index).
extern OpHandle op_arange_start_step, op_index_Tensor;

// Elementwise ops, declared in elementwise.cpp / elementwise_logic.cpp / unary.cpp, used by their
// public API (elementwise_api.cpp).
extern OpHandle op_add_Scalar, op_add_Tensor, op_add_inplace_Tensor, op_addcmul, op_bitwise_and_Scalar, op_bitwise_and_Tensor, op_bitwise_not,
    op_bitwise_or_Scalar, op_bitwise_or_Tensor, op_clamp, op_clamp_, op_clamp_Tensor, op_clamp_max, op_clamp_min,
    op_div_Tensor, op_div_Tensor_mode, op_div_inplace_Tensor, op_dunder_and_Scalar, op_dunder_and_Tensor,
    op_dunder_or_Scalar, op_dunder_or_Tensor, op_eq_Scalar, op_eq_Tensor, op_floor_divide, op_ge_Scalar,
    op_ge_Tensor, op_gt_Scalar, op_gt_Tensor, op_isinf, op_isnan, op_le_Scalar, op_le_Tensor, op_logical_and, op_logical_not,
    op_logical_or, op_lt_Scalar, op_lt_Tensor, op_masked_fill_Scalar, op_masked_fill_Tensor,
    op_masked_fill_inplace_Scalar, op_masked_fill_inplace_Tensor, op_maximum, op_minimum, op_mul_Tensor,
    op_mul_inplace_Tensor, op_ne_Scalar, op_ne_Tensor, op_pow_Scalar, op_pow_Tensor_Scalar, op_pow_Tensor_Tensor,
    op_reciprocal, op_remainder_Scalar, op_remainder_Scalar_Tensor, op_remainder_Tensor, op_rsub_Scalar,
    op_rsub_Tensor, op_sub_inplace_Tensor, op_where_Scalar, op_where_ScalarOther, op_where_ScalarSelf,
    op_where_self;

}  // namespace fe

namespace fe::ops {
void register_factory_ops(Registry& r);
void register_linalg_ops(Registry& r);
void register_elementwise_ops(Registry& r);
void register_unary_ops(Registry& r);
void register_activation_ops(Registry& r);
void register_reduction_ops(Registry& r);
void register_view_ops(Registry& r);
void register_join_ops(Registry& r);
void register_indexing_ops(Registry& r);
void register_norm_ops(Registry& r);
void register_attention_ops(Registry& r);
void register_conv_ops(Registry& r);
void register_conversion_ops(Registry& r);
void register_numeric_ops(Registry& r);
void register_resample_ops(Registry& r);
void register_grouped_mm_ops(Registry& r);
/// Operators libraries record under their own namespace (transformers::grouped_mm_fallback).
void register_custom_ops(Registry& r);
}  // namespace fe::ops
