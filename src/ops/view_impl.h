// Private helpers of the view family (view.cpp, view_index.cpp, view_api.cpp): shape inference,
// PyTorch's two view-stride algorithms, and the register functions of each part.
#pragma once
#include <optional>
#include <string>

#include "fakeexport/ops/registry.h"
#include "ops/meta_util.h"

namespace fe::ops {

void register_view_shape_ops(Registry& r);  // view.cpp
void register_view_index_ops(Registry& r);  // view_index.cpp

/// "(6,)", "(2, 3)": a Python tuple, as torch._refs messages print shapes and strides.
std::string py_tuple(IntSpan s);

/// -1 inference: fills `res` and returns "" or returns the error text. `python` picks the text of
/// torch._prims_common.infer_size (FakeTensorMode's view) over C++ at::infer_size_dv (reshape of
/// non-contiguous tensors, unflatten); they differ only for negative sizes.
std::string infer_size(IntSpan shape, int64_t numel, bool python, DimVector& res);
/// infer_size that throws ShapeError naming the op.
DimVector infer_size_or_throw(const MetaArgs& a, IntSpan shape, int64_t numel, bool python);

/// at::detail::computeStride: strides viewing (sizes, strides) as `shape`, or nullopt.
std::optional<DimVector> compute_stride(IntSpan sizes, IntSpan strides, IntSpan shape);

/// torch._refs view (_reshape_view_helper, allow_copy=False): what FakeTensorMode's view and
/// _unsafe_view return; `shape` may hold -1. ShapeError with the refs' text when no view exists.
TensorMeta ref_view(const MetaArgs& a, const TensorMeta& self, IntSpan shape);

/// at::native::reshape: a ref_view when computeStride allows one (alias), else a contiguous copy.
void reshape_into(const MetaArgs& a, const TensorMeta& self, IntSpan shape, MetaOut& out);

/// Wraps dim for an op with `ndim` dims (scalars act as 1-D), IndexError naming the op.
int64_t wrap(const MetaArgs& a, int64_t dim, int64_t ndim);

/// Copies of input elements into a fresh output (reshape-as-copy, clone, contiguous).
void cpu_copy_input0(const OpDef&, std::span<const IValue> a, std::span<Tensor> o);

}  // namespace fe::ops
