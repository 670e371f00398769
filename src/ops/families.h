// Each op family file declares its ops in one register function; registry() calls them all.
#pragma once
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

// Ops other families compose with (in metas, kernels or their public API), each defined in the file
// that declares the op.
extern OpHandle op_adaptive_avg_pool2d, op_alias, op_as_strided, op_cat, op_chunk, op_clone, op_contiguous,
    op_detach, op_detach_, op_einsum, op_empty_like, op_expand, op_expand_as, op_flatten_using_ints,
    op_logical_xor, op_narrow, op_permute, op_reshape, op_select_int, op_slice_Tensor, op_split_Tensor,
    op_split_with_sizes, op_squeeze, op_squeeze_dim, op_squeeze_dims, op_sub_Tensor, op_transpose_int,
    op_unbind_int, op_unflatten_int, op_unsafe_view, op_unsqueeze, op_view;

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
/// Operators libraries record under their own namespace (transformers::grouped_mm_fallback).
void register_custom_ops(Registry& r);
}  // namespace fe::ops
