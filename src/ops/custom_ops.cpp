// Operators libraries record into exported programs under their own namespace, declared like any
// op so that programs using them load, check and run without the library (PyTorch itself cannot
// load such an archive unless the library is imported).
//   transformers::grouped_mm_fallback(input, weight, offs): transformers 5.12's MoE experts
//   (transformers/integrations/moe.py). Rows [offs[i-1], offs[i]) of input (sorted by expert)
//   times weight[i]; rows after the last offset stay zero.
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"
#include "ops/unary_common.h"

namespace fe {
namespace {
OpHandle op_grouped_mm_fallback;
}  // namespace

namespace ops {
namespace {

// The checks of transformers' fake implementation (_grouped_mm_fallback_fake), in its order.
void meta_grouped_mm_fallback(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& in = tensor_arg(a, 0);
  const TensorMeta& w = tensor_arg(a, 1);
  const TensorMeta& offs = tensor_arg(a, 2);
  FE_CHECK(in.dim() == 2, ValueError, label(a), ": input must be 2D (S, input_dim), got shape ", py_tuple(in.sizes));
  FE_CHECK(w.dim() == 3, ValueError, label(a), ": weight must be 3D (num_experts, input_dim, output_dim), got shape ",
           py_tuple(w.sizes));
  FE_CHECK(offs.dim() == 1, ValueError, label(a), ": offs must be 1D (num_experts,), got shape ", py_tuple(offs.sizes));
  FE_CHECK(sym_eq(offs.sizes[0], w.sizes[0]).guard(), ValueError, label(a), ": offs length ", offs.sizes[0].str(),
           " must match number of experts ", w.sizes[0].str());
  FE_CHECK(sym_eq(in.sizes[1], w.sizes[1]).guard(), ValueError, label(a), ": input_dim mismatch: input has ",
           in.sizes[1].str(), ", weight has ", w.sizes[1].str());
  FE_CHECK(offs.dtype == DType::Int32 || offs.dtype == DType::Int64, ValueError, label(a),
           ": offs must be an integer tensor, got torch.", dtype_name(offs.dtype));
  out.push(make_contiguous(DimVector{in.sizes[0], w.sizes[2]}, in.dtype, in.device));
}

void cpu_grouped_mm_fallback(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& in = std::get<Tensor>(a[0]);
  const Tensor& w = std::get<Tensor>(a[1]);
  const Tensor& offs = std::get<Tensor>(a[2]);
  fe::zero_(o[0]);
  const TensorMeta& om = offs.meta();
  const auto* base = static_cast<const std::byte*>(offs.data_ptr());
  int64_t start = 0;
  for (int64_t i = 0; i < om.sizes[0].expect_int(); ++i) {
    const auto end = static_cast<int64_t>(detail::load(base + i * om.strides[0].expect_int() * itemsize(om.dtype), om.dtype));
    FE_CHECK(end >= start && end <= in.size(0).expect_int(), ValueError,
             "transformers::grouped_mm_fallback: offs must be non-decreasing cumulative counts within [0, ",
             in.size(0).str(), "], got ", end, " after ", start, " at index ", i);
    if (end == start) continue;
    fe::copy_(fe::narrow(o[0], 0, start, end - start), fe::mm(fe::narrow(in, 0, start, end - start), fe::select(w, 0, i)));
    start = end;
  }
}

}  // namespace

void register_custom_ops(Registry& r) {
  op_grouped_mm_fallback = r.add({"transformers::grouped_mm_fallback(Tensor input, Tensor weight, Tensor offs) -> Tensor",
         meta_grouped_mm_fallback, cpu_grouped_mm_fallback});
}

}  // namespace ops

Tensor grouped_mm_fallback(const Tensor& input, const Tensor& weight, const Tensor& offs, SrcLocArg loc) {
  return dispatch1(*op_grouped_mm_fallback, {input, weight, offs}, loc);
}

}  // namespace fe
