// aten::_grouped_mm(mat_a, mat_b, offs, bias, out_dtype): one matmul per group, what transformers
// 5.12's MoE experts record for bfloat16 weights (torch.nn.functional.grouped_mm). The 2-D operand
// is cut into groups by the cumulative offsets: 2D x 3D splits mat_a's rows, 3D x 2D mat_b's
// columns, 2D x 2D the contraction dim; 3D x 3D is a bmm. The meta follows PyTorch 2.14's
// _meta_grouped_mm_common check for check; the kernel is ATen's CPU fallback (GroupedMMUtils.h).
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"
#include "ops/unary_common.h"

namespace fe {
namespace {
OpHandle op_grouped_mm;
}  // namespace

namespace ops {
namespace {

/// check_valid_strides: the last two dims are row- or column-major with 16-byte aligned leading stride.
void check_strides(const MetaArgs& a, const char* name, const TensorMeta& m) {
  const int64_t end = m.dim() - 1;
  const int64_t alignment = 16 / static_cast<int64_t>(itemsize(m.dtype));
  const SymInt& s_last = m.strides[end];
  const SymInt& s_prev = m.strides[end - 1];
  if (sym_eq(s_prev, 1).guard() && s_last >= sym_max(1, m.sizes[end - 1])) {
    FE_CHECK(sym_eq(s_last - floordiv(s_last, alignment) * alignment, 0).guard(), ValueError, label(a), ": Expected ",
             name, " stride along ", end, " dim to be multiple of 16 bytes, got ", s_last.str(), ".");
  } else if (sym_eq(s_last, 1).guard() && s_prev >= sym_max(1, m.sizes[end])) {
    FE_CHECK(sym_eq(s_prev - floordiv(s_prev, alignment) * alignment, 0).guard(), ValueError, label(a), ": Expected ",
             name, " stride along ", end - 1, " dim to be multiple of 16 bytes, got ", s_prev.str(), ".");
  } else {
    throw ValueError(detail::cat(label(a), ": Invalid strides/sizes, got ", py_tuple(m.strides),
                                 " for strides and ", torch_size(m.sizes), " for sizes."));
  }
}

void meta_grouped_mm(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& ma = tensor_arg(a, 0);
  const TensorMeta& mb = tensor_arg(a, 1);
  const TensorMeta* offs = a.opt_tensor(2);
  if (ma.dtype == DType::BFloat16 || ma.dtype == DType::Float16) {
    FE_CHECK(mb.dtype == ma.dtype, DTypeError, label(a), ": Expected mat_b dtype to match mat_a dtype, got mat_a.dtype=torch.",
             dtype_name(ma.dtype), " and mat_b.dtype=torch.", dtype_name(mb.dtype), ".");
  } else {
    throw DTypeError(detail::cat(label(a), ": Expected mat_a to be BFloat16 or supported Float16 matrix, got torch.",
                                 dtype_name(ma.dtype), "."));
  }
  FE_CHECK((ma.dim() == 2 || ma.dim() == 3) && (mb.dim() == 2 || mb.dim() == 3), ShapeError, label(a),
           ": Multiplicands must be 2D or 3D but got mat_a.dim()=", ma.dim(), " and mat_b.dim()=", mb.dim());
  const bool a2 = ma.dim() == 2, b2 = mb.dim() == 2;
  if (!a2 || !b2)
    FE_CHECK(sym_eq(ma.sizes.back(), mb.sizes[mb.dim() - 2]).guard(), ShapeError, label(a),
             ": contraction dimension of mat_a and mat_b must match");
  check_strides(a, "mat_a", ma);
  check_strides(a, "mat_b", mb);
  if (a2 || b2) {
    FE_CHECK(offs, ValueError, label(a), ": Offsets tensor not provided, but is needed for ", ma.dim(), "D/", mb.dim(),
             "D multiplicand layouts.");
    FE_CHECK(offs->dim() == 1, ShapeError, label(a), ": Offsets tensor must be 1D, but got offs.dim()=", offs->dim(), ".");
    FE_CHECK(offs->dtype == DType::Int32, DTypeError, label(a),
             ": Offsets tensor must be integer (int32) tensor, but got torch.", dtype_name(offs->dtype), ".");
    FE_CHECK(sym_eq(offs->strides[0], 1).guard(), ValueError, label(a), ": Offsets tensor must have stride (1,), but got ",
             py_tuple(offs->strides), ".");
  } else {
    FE_CHECK(!offs, ValueError, label(a), ": Offsets tensor provided, but is not needed for 3D/3D multiplicand layouts.");
  }
  // cuBLASLt's grouped GEMM (CUDA >= 13.3 on sm90-sm11x) is the only float16 path; a fake device has neither.
  FE_CHECK(ma.dtype != DType::Float16, DTypeError, label(a), ": Float16 grouped_mm requires cuBLASLt grouped GEMM support.");
  FE_CHECK(a.is_none(3), ValueError, label(a), ": Bias tensor provided, but it is not supported yet.");
  const DType out_dtype = a.opt_dtype(4).value_or(ma.dtype);
  FE_CHECK(out_dtype == ma.dtype, DTypeError, label(a), ": Grouped gemm output dtype must match `mat_a` dtype.");

  DimVector sizes;
  if (a2 && b2) {
    sizes = {offs->sizes[0], ma.sizes[0], mb.sizes[1]};
  } else if (a2) {
    FE_CHECK(sym_eq(offs->sizes[0], mb.sizes[0]).guard(), ShapeError, label(a), ": matrix batch sizes have to match");
    sizes = {ma.sizes[0], mb.sizes.back()};
  } else if (b2) {
    FE_CHECK(sym_eq(offs->sizes[0], ma.sizes[0]).guard(), ShapeError, label(a), ": matrix batch sizes have to match");
    sizes = {ma.sizes[1], mb.sizes[1]};
  } else {
    FE_CHECK(sym_eq(ma.sizes[0], mb.sizes[0]).guard(), ShapeError, label(a), ": batched dimension has to match");
    sizes = {ma.sizes[0], ma.sizes[1], mb.sizes.back()};
  }
  TensorMeta o = make_contiguous(sizes, out_dtype, ma.device);
  if (ma.device.type() == DeviceType::CUDA) {
    // A CUDA build pads the last dim's stride to 16 bytes for TMA (torch.version.cuda branch).
    const int64_t al = 16 / static_cast<int64_t>(itemsize(out_dtype));
    const SymInt padded = floordiv(sizes.back() + (al - 1), al) * al;
    o.strides.back() = 1;
    o.strides[o.dim() - 2] = padded;
    if (o.dim() == 3) o.strides[0] = sizes[1] * padded;
  }
  out.push(std::move(o));
}

/// Group ends from offs, checked: non-decreasing and within `limit` (the split dim's size).
std::vector<int64_t> group_ends(const Tensor& offs, int64_t limit) {
  const TensorMeta& om = offs.meta();
  const auto* base = static_cast<const std::byte*>(offs.data_ptr());
  std::vector<int64_t> ends;
  int64_t prev = 0;
  for (int64_t i = 0; i < om.sizes[0].expect_int(); ++i) {
    const auto end = static_cast<int64_t>(detail::load(base + i * om.strides[0].expect_int() * itemsize(om.dtype), om.dtype));
    FE_CHECK(end >= prev && end <= limit, ValueError, "aten::_grouped_mm: offs must be non-decreasing cumulative counts ",
             "within [0, ", limit, "], got ", end, " after ", prev, " at index ", i);
    ends.push_back(end);
    prev = end;
  }
  return ends;
}

void cpu_grouped_mm(const OpDef&, std::span<const IValue> args, std::span<Tensor> o) {
  const Tensor& ma = std::get<Tensor>(args[0]);
  const Tensor& mb = std::get<Tensor>(args[1]);
  Tensor& out = o[0];
  fe::zero_(out);  // ATen leaves rows past the last offset uninitialized
  const bool a2 = ma.dim() == 2, b2 = mb.dim() == 2;
  if (!a2 && !b2) {
    fe::copy_(out, fe::bmm(ma, mb));
    return;
  }
  const Tensor& offs = std::get<Tensor>(args[2]);
  // The dim each group slices: rows of mat_a (2D x 3D), columns of mat_b (3D x 2D), K (2D x 2D).
  const int64_t limit = (a2 && !b2) ? ma.size(0).expect_int() : b2 && !a2 ? mb.size(1).expect_int() : ma.size(1).expect_int();
  int64_t start = 0, g = 0;
  for (int64_t end : group_ends(offs, limit)) {
    const int64_t n = end - start;
    if (a2 && !b2) {
      if (n) fe::copy_(fe::narrow(out, 0, start, n), fe::mm(fe::narrow(ma, 0, start, n), fe::select(mb, 0, g)));
    } else if (b2 && !a2) {
      if (n) fe::copy_(fe::narrow(out, 1, start, n), fe::mm(fe::select(ma, 0, g), fe::narrow(mb, 1, start, n)));
    } else {
      fe::copy_(fe::select(out, 0, g), fe::mm(fe::narrow(ma, 1, start, n), fe::narrow(mb, 0, start, n)));
    }
    start = end;
    ++g;
  }
}

}  // namespace

void register_grouped_mm_ops(Registry& r) {
  op_grouped_mm = r.add({"aten::_grouped_mm(Tensor self, Tensor mat2, Tensor? offs=None, Tensor? bias=None, "
                         "ScalarType? out_dtype=None) -> Tensor",
                         meta_grouped_mm, cpu_grouped_mm});
}

}  // namespace ops

Tensor _grouped_mm(const Tensor& mat_a, const Tensor& mat_b, const Tensor& offs, SrcLocArg loc) {
  return dispatch1(*op_grouped_mm, {mat_a, mat_b, offs.defined() ? IValue(offs) : IValue(None{}), None{}, None{}}, loc);
}

}  // namespace fe
