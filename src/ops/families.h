// Each op family file declares its ops in one register function; registry() calls them all.
#pragma once
#include "fakeexport/ops/registry.h"

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
