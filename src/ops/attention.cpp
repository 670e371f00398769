// Attention: scaled_dot_product_attention (causal, masks, GQA), and the CPU overload it lowers to,
// _scaled_dot_product_flash_attention_for_cpu (both run on one reference kernel).
// On cpu PyTorch decomposes the op: the fused "flash attention for cpu" kernel when its gates pass
// (its output is empty_like(query)), else the math composite (matmul / softmax / matmul, contiguous
// output). The meta mirrors that choice because the two paths give different strides and errors.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "fakeexport/ops/functional_level.h"
#include "ops/cpu_util.h"
#include "ops/elementwise.h"
#include "ops/families.h"
#include "ops/linalg_meta.h"
#include "ops/meta_util.h"
#include "ops/attention_kernel.h"
#include "ops/sdp_choice.h"
#include "fakeexport/sym/shape_env.h"

namespace fe {
namespace {
OpHandle op_scaled_dot_product_attention;
OpHandle op_flash_cpu;  // aten::_scaled_dot_product_flash_attention_for_cpu
OpHandle op_cudnn_attention, op_flash_attention, op_efficient_attention;  // the CUDA kernels' ops
}  // namespace
}  // namespace fe

namespace fe {
namespace ops {
namespace {


SymInt prod(IntSpan s) {
  SymInt p = 1;
  for (const SymInt& x : s) p = p * x;
  return p;
}

/// Shape of at::matmul(a, b) for a, b of rank >= 2, with the errors its decomposition raises
/// (mm for 2-D / folded N-D x 2-D, else broadcast batch dims and bmm).
DimVector matmul_shape(const MetaArgs& a, IntSpan x, IntSpan y) {
  const size_t nx = x.size(), ny = y.size();
  if (ny == 2) {
    SymInt rows = prod(x.subspan(0, nx - 1));
    FE_CHECK(x[nx - 1] == y[0], ShapeError, label(a), ": a and b must have same reduction dim, but got [", rows,
             ", ", x[nx - 1], "] X [", y[0], ", ", y[1], "].");
    DimVector out(x.begin(), x.end() - 1);
    out.push_back(y[1]);
    return out;
  }
  IntSpan bx = x.subspan(0, nx - 2), by = y.subspan(0, ny - 2);
  const size_t nb = std::max(bx.size(), by.size());
  DimVector batch(nb, SymInt(1));
  for (size_t i = nb; i-- > 0;) {  // infer_size walks from the last dim
    const size_t ox = nb - bx.size(), oy = nb - by.size();
    const SymInt sx = i >= ox ? bx[i - ox] : SymInt(1);
    const SymInt sy = i >= oy ? by[i - oy] : SymInt(1);
    FE_CHECK(sx == sy || sx == 1 || sy == 1, ShapeError, label(a), ": The size of tensor a (", sx,
             ") must match the size of tensor b (", sy, ") at non-singleton dimension ", i);
    batch[i] = sx == 1 ? sy : sx;
  }
  const SymInt flat = prod(batch);
  FE_CHECK(y[ny - 2] == x[nx - 1], ShapeError, label(a),
           ": Expected size for first two dimensions of batch2 tensor to be: [", flat, ", ", x[nx - 1],
           "] but got: [", flat, ", ", y[ny - 2], "].");
  DimVector out = batch;
  out.push_back(x[nx - 2]);
  out.push_back(y[ny - 1]);
  return out;
}

/// sdp::use_flash_attention_cpp: the gates of the fused cpu kernel, in PyTorch's order.
bool use_flash_cpu(const std::string& op, const TensorMeta& q, const TensorMeta& k, const TensorMeta& v,
                   const TensorMeta* mask, double dropout, bool gqa) {
  if (dropout != 0.0) return false;
  if (q.dim() == 3 && k.dim() == 3 && v.dim() == 3) {
    // 3-D inputs reach the fused kernel as a batch of one (a 3-D mask too): dim 0 acts as the heads.
    using linalg::unsqueeze;
    std::optional<TensorMeta> m4;
    if (mask && mask->dim() == 3) m4 = unsqueeze(*mask, 0);
    return use_flash_cpu(op, unsqueeze(q, 0), unsqueeze(k, 0), unsqueeze(v, 0), m4 ? &*m4 : mask, dropout, gqa);
  }
  if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4) return false;
  // check_batch_size_and_num_heads_dense<supports_gqa=true> (both comparisons evaluated, in order).
  const bool same_batch = q.sizes[0] == k.sizes[0] && q.sizes[0] == v.sizes[0];
  const bool same_heads = q.sizes[1] == k.sizes[1] && q.sizes[1] == v.sizes[1];
  if (!same_batch) return false;
  if (gqa) {
    // check_grouped_query_attention<requires_same_num_heads=true>.
    if (!(k.sizes[1] == v.sizes[1])) return false;
    if (k.sizes[1] == 0 || mod(q.sizes[1], k.sizes[1]) != 0) return false;
  } else if (!same_heads) {
    // supports_gqa=true: without enable_gqa, heads that broadcast (MQA's single key/value head)
    // still take the fused kernel; others fail in the math path's matmul.
    auto bcast = [&](const SymInt& h) { return h == 1 || h == q.sizes[1]; };
    if (!bcast(k.sizes[1]) || !bcast(v.sizes[1])) return false;
  }
  // A mask that requires grad (a learned relative-position bias: BEiT, Swin) takes the math
  // path on CPU, whatever the grad mode (PyTorch 2.14, measured under FakeTensorMode).
  if (mask && mask->requires_grad) return false;
  if (mask) {
    // attn_mask.sym_size(-2) raises for masks of rank < 2.
    FE_CHECK(mask->dim() >= 2, IndexError, op, ": Dimension out of range (expected to be in range of [-1, 0], but got -2)");
    const SymInt m2 = mask->sizes[mask->dim() - 2], m1 = mask->sizes[mask->dim() - 1];
    if (!(m2 == q.sizes[2] || m2 == 1) || !(m1 == k.sizes[2] || m1 == 1)) return false;
    if (mask->dim() == 4) {
      // The batch and heads first (one comparison where they match; measured in 2.14's trace).
      if (!(mask->sizes[0] == q.sizes[0] || mask->sizes[0] == 1)) return false;
      if (!(mask->sizes[1] == q.sizes[1] || mask->sizes[1] == 1)) return false;
    } else if (mask->dim() != 2) {
      return false;
    }
  }
  if (!(q.sizes[3] == k.sizes[3] && q.sizes[3] == v.sizes[3])) return false;
  // check_nonzero_sequence_lengths_dense: 2.14's trace records a third comparison of a sequence
  // length there (counted with symbolic batch, sequence or both): the value's.
  if (q.sizes[2] == 0 || k.sizes[2] == 0 || v.sizes[2] == 0) return false;
  if (!(q.strides[3] == 1 && k.strides[3] == 1 && v.strides[3] == 1)) return false;
  return is_floating(q.dtype);
}

}  // namespace

bool uses_flash_cpu(const SdpParams& p) {
  return use_flash_cpu("aten::scaled_dot_product_attention", p.q, p.k, p.v, p.mask, p.dropout, p.gqa);
}

namespace {

/// empty_like(query), as the fused kernels allocate their output: a dense query keeps its strides,
/// else dense strides in the query's stride order (infer_dense_strides), e.g. the transposed view of
/// a split qkv.
TensorMeta empty_like_query(const TensorMeta& q) {
  TensorMeta m = q;
  const TensorMeta* qp = &q;
  m.strides = q.is_non_overlapping_and_dense() ? q.strides
              : any_symbolic_meta(q)           ? dense_or_sorted_strides(q)
                                               : iter_output_strides(q.sizes, std::span(&qp, 1));
  m.storage_offset = 0;
  m.requires_grad = false;
  return m;
}

/// The fused CUDA kernels' outputs as their (Python) metas allocate them under FakeTensorMode:
/// torch.empty_like gives elementwise output strides (a size-1 dim takes its dense stride).
TensorMeta py_empty_like(const TensorMeta& q, const SymInt& last) {
  TensorMeta m = q;
  m.sizes[3] = last;
  const TensorMeta* qp = &m;
  m.strides = any_symbolic_meta(m) ? dense_or_sorted_strides(m) : iter_output_strides(m.sizes, std::span(&qp, 1));
  m.storage_offset = 0;
  m.requires_grad = false;
  return m;
}

/// The output of scaled_dot_product_attention when `backend` runs it on a CUDA device.
TensorMeta cuda_sdpa_out(SdpBackend backend, const TensorMeta& q, const TensorMeta& v) {
  const SymInt &b = q.sizes[0], &h = q.sizes[1], &l = q.sizes[2], &dv = v.sizes[3];
  switch (backend) {
    case SdpBackend::Cudnn: {
      // alloc_with_matching_layout: empty_like(query) when the shapes agree, else dense strides in
      // the query's stride order (a stable sort, largest first).
      if (q.sizes[3].same_as(dv)) return py_empty_like(q, dv);
      std::array<int, 4> order{0, 1, 2, 3};
      std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return q.strides[x].hint() > q.strides[y].hint(); });
      TensorMeta m = make_contiguous(DimVector{b, h, l, dv}, q.dtype, q.device);
      SymInt stride = 1;
      for (int i = 3; i >= 0; --i) {
        m.strides[order[i]] = stride;
        stride = stride * m.sizes[order[i]];
      }
      return m;
    }
    case SdpBackend::Flash: {
      // The head dim is padded to a multiple of 8 (a contiguous copy), the output sliced back.
      const SymInt d = q.sizes[3];
      if (mod(d, 8) == 0) return py_empty_like(q, d);
      TensorMeta m = make_contiguous(DimVector{b, h, l, d + (8 - mod(d, 8))}, q.dtype, q.device);
      m.sizes[3] = d;
      return m;
    }
    case SdpBackend::Efficient: {
      // empty(B, M, H, Kv).transpose(1, 2)
      TensorMeta m = make_contiguous(DimVector{b, l, h, dv}, q.dtype, q.device);
      std::swap(m.sizes[1], m.sizes[2]);
      std::swap(m.strides[1], m.strides[2]);
      return m;
    }
    case SdpBackend::Math:
      break;
  }
  throw InternalError("cuda_sdpa_out: the math path has no fused output");
}

/// Whether the memory-efficient kernel takes `mask` as it is (PyTorch 2.11's aligned_tensor<8>):
/// strides known to be multiples of 8 and a unit last stride. A stride that is not a constant
/// counts as unaligned, so the mask is padded, without a guard.
bool efficient_mask_aligned(const TensorMeta& m) {
  if (m.dim() == 0) return false;
  for (int64_t i = 0; i + 1 < m.dim(); ++i) {
    const std::optional<int64_t> s = m.strides[i].maybe_int();
    if (!s || *s % 8 != 0) return false;
  }
  return m.strides[m.dim() - 1] == 1;
}

/// pad_bias<8> of a mask with a symbolic column count T (rows L): the padded size is
/// T + 8 - T % 8, and the fake tensor's layout checks on it (suggest_memory_format) guard
/// `L*(8 + T + (-1)*(T % 8)) > 1`, which export's solver cannot prove for a range of T: PyTorch
/// refuses a dynamic seq there (captured on an H100, tests/fixtures/cuda/zoo_dyn). Only rows and
/// columns that are symbols are modelled, the form every captured refusal has.
void note_mask_padding(const TensorMeta& m) {
  if (m.dim() < 2) return;
  const SymInt &l = m.sizes[m.dim() - 2], &t = m.sizes[m.dim() - 1];
  if (!l.is_symbolic() || !t.is_symbolic()) return;
  const sym::Expr le = l.expr(), te = t.expr();
  if (!le.is_symbol() || !te.is_symbol()) return;
  const std::string T = "{" + te.name() + "}";
  t.node()->env->add_modular_guard(
      {"{" + le.name() + "}*(8 + " + T + " + (-1)*(" + T + " % 8)) > 1", te.name(), 8});
}

// scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, *, scale, enable_gqa)
void meta_sdpa(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& q = a.tensor(0);
  const TensorMeta& k = a.tensor(1);
  const TensorMeta& v = a.tensor(2);
  const TensorMeta* mask = a.opt_tensor(3);
  const double dropout = a.to_double(4);
  const bool causal = a.to_bool(5);
  const bool gqa = a.to_bool(7);
  // validate_sdpa_input
  FE_CHECK(q.dtype == k.dtype && q.dtype == v.dtype, DTypeError, label(a),
           ": Expected query, key, and value to have the same dtype, but got query.dtype: ", cpp_type_name(q.dtype),
           " key.dtype: ", cpp_type_name(k.dtype), " and value.dtype: ", cpp_type_name(v.dtype), " instead.");
  FE_CHECK(q.dim() >= 2 && k.dim() >= 2 && v.dim() >= 2, ShapeError, label(a),
           ": Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: ", q.dim(),
           " key.dim: ", k.dim(), " and value.dim: ", v.dim(), " instead.");
  if (mask)
    FE_CHECK(mask->dtype == DType::Bool || mask->dtype == DType::Float32 || mask->dtype == q.dtype, DTypeError,
             label(a), ": Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: ",
             cpp_type_name(mask->dtype), " and  query.dtype: ", cpp_type_name(q.dtype), " instead.");
  // Raised whichever path runs (the fused kernel refuses the pair too).
  FE_CHECK(!(causal && mask), ValueError, label(a),
           ": _scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
  if (q.device.type() == DeviceType::CUDA) {
    const SdpBackend backend = choose_sdp_backend_cuda({.q = q, .k = k, .v = v, .mask = mask, .dropout = dropout,
                                                        .causal = causal, .gqa = gqa}, cuda_arch());
    if (backend == SdpBackend::Efficient && mask && !efficient_mask_aligned(*mask)) note_mask_padding(*mask);
    if (backend != SdpBackend::Math) {
      out.push(cuda_sdpa_out(backend, q, v));
      return;
    }
  } else if (use_flash_cpu(label(a), q, k, v, mask, dropout, gqa)) {
    out.push(empty_like_query(q));
    return;
  }
  // Math composite.
  DimVector ks = k.sizes, vs = v.sizes;
  if (gqa) {
    for (const TensorMeta* t : {&q, &k, &v})
      FE_CHECK(t->dim() >= 3, IndexError, label(a), ": Dimension out of range (expected to be in range of [-",
               t->dim(), ", ", t->dim() - 1, "], but got -3)");
    const SymInt hq = q.sizes[q.dim() - 3], hk = k.sizes[k.dim() - 3], hv = v.sizes[v.dim() - 3];
    const bool all_equal = hq == hk && hk == hv;
    FE_CHECK(all_equal || (hk != 0 && hv != 0 && mod(hq, hk) == 0 && mod(hq, hv) == 0), ShapeError, label(a),
             ": Number of heads in key and value must divide the number of heads in ");
    // repeat_interleave(H_q / H_kv, dim=-3)
    ks[ks.size() - 3] = hq;
    vs[vs.size() - 3] = hq;
  }
  DimVector kt = ks;
  std::swap(kt[kt.size() - 1], kt[kt.size() - 2]);
  DimVector attn = matmul_shape(a, q.sizes, kt);
  if (mask) attn = linalg::prims_broadcast(a, attn, mask->sizes);
  FE_CHECK(!(dropout > 0.0 && dropout > 1.0), ValueError, label(a),
           ": dropout probability has to be between 0 and 1, but got ", python_float_repr(dropout));
  // The scaled query is floating (int * float -> float32); bmm then meets the integral value.
  FE_CHECK(is_floating(q.dtype), DTypeError, label(a), ": expected scalar type torch.float32 but found torch.",
           dtype_name(v.dtype));
  DimVector o = matmul_shape(a, attn, vs);
  out.push(make_contiguous(o, q.dtype, q.device));
}


void cpu_sdpa(const OpDef&, std::span<const IValue> args, std::span<Tensor> o) {
  FE_CHECK(std::get<double>(args[4]) <= 0.0, ValueError,
           "aten::scaled_dot_product_attention: the reference kernel has no dropout; pass dropout_p=0");
  const Tensor* mask = std::holds_alternative<Tensor>(args[3]) ? &std::get<Tensor>(args[3]) : nullptr;
  const std::optional<double> scale =
      std::holds_alternative<double>(args[6]) ? std::optional(std::get<double>(args[6])) : std::nullopt;
  const Tensor &q = std::get<Tensor>(args[0]), &k = std::get<Tensor>(args[1]), &v = std::get<Tensor>(args[2]);
  const bool flash = use_flash_cpu("aten::scaled_dot_product_attention", q.meta(), k.meta(), v.meta(),
                                   mask ? &mask->meta() : nullptr, 0.0, std::get<bool>(args[7]));
  sdpa_reference({q, k, v, mask, std::get<bool>(args[5]), scale, std::get<bool>(args[7]), flash}, o[0], nullptr);
}

// _scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p, is_causal, *, attn_mask,
// scale) -> (output, logsumexp): what sdpa dispatches to on CPU (a CPU-only kernel). Its meta
// function, as PyTorch's: empty_like(query) and a (B, L, H) logsumexp in the computation dtype,
// transposed to (B, H, L); no checks (the kernel's own come at run time).
void meta_flash_cpu(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& q = a.tensor(0);
  // query.size(0), .size(1), .size(2): a 3-D query passes (the kernel refuses it at run time).
  FE_CHECK(q.dim() >= 3, IndexError, label(a), ": Dimension out of range (expected to be in range of [", -q.dim(), ", ",
           q.dim() - 1, "], but got 2)");
  out.push(empty_like_query(q));
  const DType acc = opmath_dtype(q.dtype);
  TensorMeta lse = make_contiguous(DimVector{q.sizes[0], q.sizes[2], q.sizes[1]}, acc, q.device);
  std::swap(lse.sizes[1], lse.sizes[2]);
  std::swap(lse.strides[1], lse.strides[2]);
  out.push(std::move(lse));
}

void cpu_flash_cpu(const OpDef&, std::span<const IValue> args, std::span<Tensor> o) {
  FE_CHECK(std::get<Tensor>(args[0]).dim() == 4, ShapeError,
           "aten::_scaled_dot_product_flash_attention_for_cpu: query must be 4-D (batch, heads, seq, head_dim), got ",
           std::get<Tensor>(args[0]).dim(), "-D");
  const int64_t e = std::get<Tensor>(args[0]).size(3).expect_int();
  FE_CHECK(std::get<Tensor>(args[1]).size(-1).expect_int() == e && std::get<Tensor>(args[2]).size(-1).expect_int() == e,
           ShapeError, "aten::_scaled_dot_product_flash_attention_for_cpu: "
           "scaled_dot_product_attention_flash_attention: Q/K/V should have the same head size");
  FE_CHECK(std::get<double>(args[3]) <= 0.0, ValueError,
           "aten::_scaled_dot_product_flash_attention_for_cpu: the reference kernel has no dropout; pass dropout_p=0");
  const Tensor* mask = std::holds_alternative<Tensor>(args[5]) ? &std::get<Tensor>(args[5]) : nullptr;
  const std::optional<double> scale =
      std::holds_alternative<double>(args[6]) ? std::optional(std::get<double>(args[6])) : std::nullopt;
  sdpa_reference({std::get<Tensor>(args[0]), std::get<Tensor>(args[1]), std::get<Tensor>(args[2]), mask,
                  std::get<bool>(args[4]), scale, false, true},
                 o[0], &o[1]);
}


// What eager scaled_dot_product_attention allocates besides its output (aten/src/ATen/native/
// transformers/attention.cpp): a bool mask becomes a float one of its shape (convert_boolean_attn_mask:
// where(mask, 0, -inf) in the query's dtype); the fused kernel also returns its logsumexp [B, H, L]
// in float, dropped once the op returns; the math path holds the scaled query and key, the scores
// and their softmax [B, H, L, S] at once. Measured against MemTracker (tests/fixtures/memory).
SymInt scratch_sdpa(const MetaArgs& a) {
  const TensorMeta& q = a.tensor(0);
  const TensorMeta& k = a.tensor(1);
  const TensorMeta& v = a.tensor(2);
  const TensorMeta* mask = a.opt_tensor(3);
  SymInt bytes = 0;
  if (mask && mask->dtype == DType::Bool) bytes = mask->numel() * itemsize(q.dtype);
  if (q.dim() < 2) return bytes;
  SymInt rows = 1;  // batch x heads x query length
  for (int64_t d = 0; d + 1 < q.dim(); ++d) rows = rows * q.sizes[static_cast<size_t>(d)];
  if (use_flash_cpu(label(a), q, k, v, mask, a.to_double(4), a.to_bool(7))) return bytes + rows * itemsize(DType::Float32);
  // The math path (tools/oracle's ActivationTracker): the scaled query lives throughout, the scaled
  // key through the first bmm (with the scores), the scores before and after the mask's add and
  // softmax together, then the softmax with the output; counted beside the output, so less it.
  const SymInt scores = rows * k.sizes[static_cast<size_t>(k.dim() - 2)];
  SymInt out = 1;
  for (int64_t d = 0; d + 1 < q.dim(); ++d) out = out * q.sizes[static_cast<size_t>(d)];
  out = out * v.sizes[static_cast<size_t>(v.dim() - 1)];
  const SymInt inside = q.numel() + sym_max(sym_max(k.numel() + scores, scores * 2), scores + out);
  return bytes + (inside - out) * itemsize(q.dtype);
}

// ---- Decomposition (PyTorch 2.14 on CPU): scaled_dot_product_attention converts a bool mask to an
// additive one, then takes the fused CPU flash kernel for 4-D inputs, which torch._decomp lowers to
// _scaled_dot_product_attention_math followed by permute(2, 0, 1, 3).contiguous().permute(1, 2, 0, 3)
// (keeping the flash kernel's output strides). The math path: q and k^T each scaled by
// sqrt(scale), a causal mask from tril(ones(L, S)), matmul, + mask, _safe_softmax, matmul with v.

/// convert_boolean_attn_mask: where(mask, 0.0, -inf) in the query's dtype (cuDNN's variant puts
/// -65504, float16's lowest, for -inf); other masks as they are.
Tensor additive_mask(const Tensor& mask, const Tensor& query, const SrcLocArg& loc,
                     double neg = -std::numeric_limits<double>::infinity()) {
  if (mask.dtype() != DType::Bool) return mask;
  const Tensor neg_inf = dispatch1(*op_scalar_tensor, {neg, query.dtype(), None{}, query.device(), None{}}, loc);
  const Tensor zero = dispatch1(*op_scalar_tensor, {0.0, query.dtype(), Layout::Strided, query.device(), None{}}, loc);
  return fe::where(mask, zero, neg_inf, loc);
}

/// torch._decomp's _safe_softmax: softmax, with rows that are all -inf set to 0.
Tensor safe_softmax(const Tensor& x, const SrcLocArg& loc) {
  const Tensor out = fe::softmax(x, -1, std::nullopt, loc);
  const Tensor masked = fe::eq(x, -std::numeric_limits<double>::infinity(), loc);
  const Tensor rows = fe::logical_not(fe::any(fe::logical_not(masked, loc), -1, true, loc), loc);  // all()
  const Tensor zeros = dispatch1(*op_full_like, {out, SymInt(0), None{}, None{}, None{}, false, MemoryFormat::Preserve}, loc);
  return fe::where(rows, zeros, out, loc);
}

/// repeat_interleave(r, dim=-3) of a (B, H, S, D) key or value as torch._decomp lowers it:
/// unsqueeze, expand, a contiguous clone, view.
Tensor repeat_heads(const Tensor& t, const SymInt& r, const SrcLocArg& loc) {
  const auto& s = t.sizes();
  const Tensor e = fe::expand(fe::unsqueeze(t, 2, loc), {s[0], s[1], r, s[2], s[3]}, false, loc);
  return fe::view(fe::clone(e, MemoryFormat::Contiguous, loc), {s[0], s[1] * r, s[2], s[3]}, loc);
}

/// The ops of _scaled_dot_product_attention_math (see sdpa_math).
std::pair<Tensor, Tensor> sdpa_math_ops(const Tensor& q_in, const Tensor& k_in, const Tensor& v_in, const Tensor* mask,
                                        bool causal, std::optional<double> scale, const SrcLocArg& loc, bool gqa) {
  const DType origin = q_in.dtype();
  const bool upcast = origin == DType::Float16 || origin == DType::BFloat16;
  const auto acc = [&](const Tensor& t) { return upcast ? fe::_to_copy(t, {.dtype = DType::Float32}, loc) : t; };
  const Tensor q = acc(q_in);
  const Tensor k = acc(k_in);
  const Tensor v = acc(v_in);
  const double s = scale ? std::abs(*scale) : 1.0 / std::sqrt(static_cast<double>(q.sizes()[q.dim() - 1].expect_int()));
  const double f = std::sqrt(s);
  const double qf = scale && *scale < 0 ? 0.0 - f : f;
  const Tensor qs = dispatch1(*op_mul_Scalar, {q, qf}, loc);
  std::optional<Tensor> m = mask ? std::optional(*mask) : std::nullopt;
  if (causal) {
    const SymInt L = qs.sizes()[qs.dim() - 2], S = k.sizes()[k.dim() - 2];
    const Tensor ones = fe::ones({L, S}, {.dtype = DType::Bool, .device = q.device()}, loc);
    // torch._refs.tril: (arange(S)[None, :] - arange(L)[:, None]) <= 0, and-ed with the ones.
    const Tensor cols = fe::unsqueeze(fe::arange(S, {.device = q.device()}, loc), -2, loc);
    const Tensor rows = fe::unsqueeze(fe::arange(L, {.device = q.device()}, loc), -1, loc);
    m = additive_mask(fe::logical_and(fe::le(fe::sub(cols, rows, 1, loc), 0, loc), ones, loc), qs, loc);
  }
  // pre_process_group_query_attention_input: key and value heads repeated up to the query's.
  Tensor k_all = k, v_all = v;
  if (gqa && !q.sizes()[1].same_as(k.sizes()[1])) {
    k_all = repeat_heads(k, floordiv(q.sizes()[1], k.sizes()[1]), loc);
    v_all = repeat_heads(v, floordiv(q.sizes()[1], v.sizes()[1]), loc);
  }
  const Tensor kt = dispatch1(*op_mul_Scalar, {fe::transpose(k_all, -2, -1, loc), f}, loc);
  Tensor attn = fe::matmul(qs, kt, loc);
  if (m) attn = fe::add(attn, *m, 1, loc);
  const Tensor weights = safe_softmax(attn, loc);
  const Tensor out = fe::matmul(weights, v_all, loc);
  if (!upcast) return {out, weights};
  const Tensor w = fe::_to_copy(weights, {.dtype = origin}, loc);
  return {fe::_to_copy(out, {.dtype = origin}, loc), w};
}

/// _scaled_dot_product_attention_math(q, k, v, mask, 0, is_causal, scale): (output, attention
/// weights), GQA's key/value heads repeated when `gqa`. Half and bfloat16 inputs are computed in
/// float32 and both results cast back; the weights are cast first (GCC evaluates make_tuple's
/// arguments right to left), and nothing reads them.
std::pair<Tensor, Tensor> sdpa_math(const Tensor& q_in, const Tensor& k_in, const Tensor& v_in, const Tensor* mask,
                                    bool causal, std::optional<double> scale, const SrcLocArg& loc, bool gqa = false) {
  return sdpa_math_ops(q_in, k_in, v_in, mask, causal, scale, loc, gqa);
}

/// The flash kernel's decomposition: math, then its output strides; (output, attention weights).
std::pair<Tensor, Tensor> flash_cpu_math(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask,
                                         bool causal, std::optional<double> scale, const SrcLocArg& loc) {
  // torch._decomp's scaled_dot_product_flash_attention_for_cpu: the math path with
  // enable_gqa=query.size(1) != key.size(1) (MQA's single key/value head repeated).
  const bool gqa = !q.sizes()[1].same_as(k.sizes()[1]);
  const auto [out, weights] = sdpa_math(q, k, v, mask, causal, scale, loc, gqa);
  // .contiguous(memory_format=torch.contiguous_format): no copy when the permuted output already is
  // (one query: its size-1 dims do not count).
  return {fe::permute(fe::contiguous(fe::permute(out, {2, 0, 1, 3}, loc), MemoryFormat::Contiguous, loc), {1, 2, 0, 3}, loc),
          weights};
}

/// Whether the decomposition covers the call: no dropout, 4-D inputs of one head count (no GQA),
/// or key/value heads that broadcast where the CPU flash kernel takes them (`flash`).
bool sdpa_decomposes(const Tensor& q, const Tensor& k, const Tensor& v, double dropout, bool flash = false) {
  if (dropout != 0.0 || q.dim() != 4 || k.dim() != 4 || v.dim() != 4) return false;
  return flash || (q.sizes()[1].same_as(k.sizes()[1]) && k.sizes()[1].same_as(v.sizes()[1]));
}

/// Whether the math path on cuda lowers the call (else it stays undecomposed): no dropout, 4-D
/// inputs, one head count or GQA's repeat.
bool cuda_math_decomposes(const Tensor& q, const Tensor& k, const Tensor& v, double dropout, bool gqa) {
  return dropout == 0.0 && q.dim() == 4 && k.dim() == 4 && v.dim() == 4 &&
         (gqa || (q.sizes()[1].same_as(k.sizes()[1]) && k.sizes()[1].same_as(v.sizes()[1])));
}

/// The memory-efficient kernel's mask (preprocess_mask): additive, padded to a multiple of 8 columns
/// (pad_bias<8>) when its strides are not, then expanded to (B, H, L, S).
Tensor efficient_mask(const Tensor& mask, const Tensor& q, const Tensor& k, const SrcLocArg& loc) {
  Tensor t = additive_mask(mask, q, loc);
  if (!efficient_mask_aligned(t.meta())) {
    const SymInt s = t.sizes()[t.dim() - 1];
    t = dispatch1(*op_constant_pad_nd, {t, std::vector<SymInt>{0, SymInt(8) - mod(s, 8)}, 0.0}, loc);
    // Sliced back to the symbolic column count itself (an int here would specialize seq).
    t = dispatch1(*op_slice_Tensor, {t, SymInt(-1), SymInt(0), s, SymInt(1)}, loc);
  }
  return fe::expand(t, {q.sizes()[0], q.sizes()[1], q.sizes()[2], k.sizes()[2]}, false, loc);
}

/// The mask sdpa_converted_mask prepared on cuda and the kernel chosen for the original mask, which
/// the lowering then keeps (by identity: the converted mask could choose otherwise, and a mask the
/// caller passed in full (B, H, L, S) shape is still expanded for the memory-efficient kernel).
struct PreparedMask {
  Tensor mask;
  SdpBackend backend = SdpBackend::Math;
};
thread_local PreparedMask t_prepared;
/// The cpu kernel choice sdpa_converted_mask made for a query, which the lowering then takes: C++
/// chooses once (its checks recorded once in a trace), before it converts the mask.
struct CpuChoice {
  const TensorImpl* query = nullptr;
  bool flash = false;
};
thread_local CpuChoice t_cpu_choice;

/// scaled_dot_product_attention's CUDA branch for a fused kernel (PyTorch 2.11, attention.cpp):
/// cuDNN takes the mask as it is (a boolean one made additive with -65504); the memory-efficient
/// kernel an additive mask padded to 8 columns when its strides are not, expanded to
/// (B, H, L, S); flash no mask, the head dim padded to a multiple of 8 and the output sliced back,
/// the scale always given. The kernels take GQA's fewer key/value heads as they are.
Tensor cuda_fused_attention(SdpBackend backend, std::span<const IValue> a, std::optional<double> scale,
                            const SrcLocArg& loc) {
  const Tensor &q = decomp_tensor(a, 0), &k = decomp_tensor(a, 1), &v = decomp_tensor(a, 2);
  const Tensor* mask = std::get_if<Tensor>(&a[3]);
  if (mask && !mask->defined()) mask = nullptr;
  const double dropout = std::get<double>(a[4]);
  const bool causal = std::get<bool>(a[5]);
  const IValue sc = scale ? IValue(*scale) : IValue(None{});
  if (backend == SdpBackend::Cudnn) {
    const IValue m = mask ? IValue(additive_mask(*mask, q, loc, -65504.0)) : IValue(None{});
    return dispatch(*op_cudnn_attention, {q, k, v, m, false, dropout, causal, false, sc}, loc)[0];
  }
  if (backend == SdpBackend::Efficient) {
    IValue m = None{};
    if (mask) m = mask->is_same(t_prepared.mask) ? *mask : efficient_mask(*mask, q, k, loc);
    return dispatch(*op_efficient_attention, {q, k, v, m, false, dropout, causal, sc}, loc)[0];
  }
  // Flash.
  const SymInt d = q.sizes()[3];
  const double og_scale = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(d.expect_int()));
  const bool pad = mod(d, 8) != 0;
  const auto padded = [&](const Tensor& t) {
    return pad ? dispatch1(*op_constant_pad_nd, {t, std::vector<SymInt>{0, SymInt(8) - mod(d, 8)}, 0.0}, loc) : t;
  };
  const Tensor out = dispatch(*op_flash_attention, {padded(q), padded(k), padded(v), dropout, causal, false, og_scale}, loc)[0];
  return pad ? fe::slice(out, -1, 0, d.expect_int(), 1, loc) : out;
}

std::vector<Tensor> decomp_sdpa(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor &q = decomp_tensor(a, 0), &k = decomp_tensor(a, 1), &v = decomp_tensor(a, 2);
  const Tensor* mask = std::get_if<Tensor>(&a[3]);
  if (mask && !mask->defined()) mask = nullptr;
  const double dropout = std::get<double>(a[4]);
  if (q.device().type() == DeviceType::CUDA) {
    // The kernel PyTorch picks on the GPU: its fused op (scaled_dot_product_attention's CUDA
    // branches), or the math path, lowered as on any device (no CPU flash wrapper around it).
    const bool gqa = std::get<bool>(a[7]);
    const bool prepared = mask && mask->is_same(t_prepared.mask);
    const SdpBackend backend =
        prepared ? t_prepared.backend
                 : choose_sdp_backend_cuda({.q = q.meta(), .k = k.meta(), .v = v.meta(),
                                            .mask = mask ? &mask->meta() : nullptr, .dropout = dropout,
                                            .causal = std::get<bool>(a[5]), .gqa = gqa}, cuda_arch());
    struct Forget {
      ~Forget() { t_prepared = {}; }
    } forget;
    std::optional<double> scale;
    if (const auto* d = std::get_if<double>(&a[6])) scale = *d;
    if (backend != SdpBackend::Math) return {cuda_fused_attention(backend, a, scale, loc)};
    if (!cuda_math_decomposes(q, k, v, dropout, gqa)) return undecomposed(*op_scaled_dot_product_attention, a, loc);
    std::optional<Tensor> m = mask ? std::optional(additive_mask(*mask, q, loc)) : std::nullopt;
    return {sdpa_math(q, k, v, m ? &*m : nullptr, std::get<bool>(a[5]), scale, loc, gqa).first};
  }
  // The CPU flash kernel's decomposition keeps its output layout; the math path's does not
  // (DeepSeek's value head narrower than its query head).
  const CpuChoice chosen = std::exchange(t_cpu_choice, {});
  const bool flash = chosen.query == q.impl()
                         ? chosen.flash
                         : use_flash_cpu("aten::scaled_dot_product_attention", q.meta(), k.meta(), v.meta(),
                                         mask ? &mask->meta() : nullptr, dropout, false);
  if (!sdpa_decomposes(q, k, v, dropout, flash) || std::get<bool>(a[7]))
    return undecomposed(*op_scaled_dot_product_attention, a, loc);
  std::optional<double> scale;
  if (const auto* d = std::get_if<double>(&a[6])) scale = *d;
  std::optional<Tensor> m = mask ? std::optional(additive_mask(*mask, q, loc)) : std::nullopt;
  if (!flash) return {sdpa_math(q, k, v, m ? &*m : nullptr, std::get<bool>(a[5]), scale, loc).first};
  // ATen dispatches the cpu flash kernel's op, which a retrace decomposes beneath
  // FunctionalTensorMode: its ops' results are not wrapped, its two are.
  const IValue mask_arg = m ? IValue(*m) : IValue(None{});
  const IValue scale_arg = scale ? IValue(*scale) : IValue(None{});
  return {dispatch(*op_flash_cpu, {q, k, v, 0.0, std::get<bool>(a[5]), mask_arg, scale_arg}, loc).at(0)};
}

}  // namespace

std::optional<Tensor> sdpa_converted_mask(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor &q = decomp_tensor(a, 0), &k = decomp_tensor(a, 1), &v = decomp_tensor(a, 2);
  const Tensor* mask = std::get_if<Tensor>(&a[3]);
  if (!mask || !mask->defined()) return std::nullopt;
  const double dropout = std::get<double>(a[4]);
  if (q.device().type() == DeviceType::CUDA) {
    // Measured on PyTorch 2.11's cuda:0 decompositions of decode steps (views of a written cache
    // are replayed where the kernel reads them): the mask is converted before the kernel reads q, k
    // and v (cuDNN's with -65504 where masked), and the memory-efficient kernel's is also padded and
    // expanded first. The math path converts it first too, as on cpu (the conversion precedes the
    // backend switch).
    const bool gqa = std::get<bool>(a[7]);
    const SdpBackend backend =
        choose_sdp_backend_cuda({.q = q.meta(), .k = k.meta(), .v = v.meta(), .mask = &mask->meta(),
                                 .dropout = dropout, .causal = std::get<bool>(a[5]), .gqa = gqa}, cuda_arch());
    std::optional<Tensor> out;
    if (backend == SdpBackend::Efficient)
      out = efficient_mask(*mask, q, k, loc);
    else if (mask->dtype() == DType::Bool && backend == SdpBackend::Cudnn)
      out = additive_mask(*mask, q, loc, -65504.0);
    else if (mask->dtype() == DType::Bool && backend == SdpBackend::Math && cuda_math_decomposes(q, k, v, dropout, gqa))
      out = additive_mask(*mask, q, loc);
    if (out) t_prepared = {*out, backend};
    return out;
  }
  if (mask->dtype() != DType::Bool) return std::nullopt;
  const bool flash = use_flash_cpu("aten::scaled_dot_product_attention", q.meta(), k.meta(), v.meta(), &mask->meta(),
                                   dropout, false);
  t_cpu_choice = {q.impl(), flash};
  if (!sdpa_decomposes(q, k, v, dropout, flash) || std::get<bool>(a[7])) return std::nullopt;
  return additive_mask(*mask, q, loc);
}

namespace {

std::vector<Tensor> decomp_flash_cpu(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor &q = decomp_tensor(a, 0), &k = decomp_tensor(a, 1), &v = decomp_tensor(a, 2);
  const Tensor* mask = std::get_if<Tensor>(&a[5]);
  if (mask && !mask->defined()) mask = nullptr;
  if (!sdpa_decomposes(q, k, v, std::get<double>(a[3]), /*flash=*/true)) return undecomposed(*op_flash_cpu, a, loc);
  std::optional<double> scale;
  if (const auto* d = std::get_if<double>(&a[6])) scale = *d;
  // The second output is the math path's attention weights, as torch._decomp returns them; a
  // consumer of the logsumexp would see another shape (no program in the corpus reads it).
  const auto [out, weights] = flash_cpu_math(q, k, v, mask, std::get<bool>(a[4]), scale, loc);
  return {out, weights};
}

// ---- The CUDA kernels' ops, as run_decompositions records them on a GPU (metas as PyTorch's
// Python ones allocate; no reference kernel: they run on CUDA only). None and size results hold
// empty placeholders in the node's metadata (OutputElem).

void check_4d(const MetaArgs& a, const TensorMeta& q, const TensorMeta& k, const TensorMeta& v) {
  FE_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4, ShapeError, label(a),
           ": query, key and value must be 4-D (batch, heads, seq, head_dim), got ", q.dim(), ", ", k.dim(), " and ",
           v.dim(), " dims");
}

// _scaled_dot_product_cudnn_attention(q, k, v, attn_bias, compute_log_sumexp, dropout_p, is_causal,
// return_debug_mask, *, scale) -> (output, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k,
// philox_seed, philox_offset, debug_attn_mask)
void meta_cudnn_attention(const MetaArgs& a, MetaOut& out) {
  const TensorMeta &q = a.tensor(0), &k = a.tensor(1), &v = a.tensor(2);
  check_4d(a, q, k, v);
  const TensorMeta res = cuda_sdpa_out(SdpBackend::Cudnn, q, v);
  out.push(res);
  out.push(make_contiguous(DimVector{q.sizes[0], q.sizes[1], q.sizes[2], 1}, DType::Float32, q.device));
  for (int i = 0; i < 4; ++i) out.push(no_result_meta(res.device));  // cum_seq_q, cum_seq_k, max_q, max_k
  out.push(make_contiguous(DimVector{}, DType::Int64, q.device));
  out.push(make_contiguous(DimVector{}, DType::Int64, q.device));
  out.push(no_result_meta(res.device));
}

std::vector<OutputElem> cudnn_elems(std::span<const IValue> a) {
  using K = OutputElem;
  const SymInt sq = std::get<Tensor>(a[0]).sizes()[2], sk = std::get<Tensor>(a[1]).sizes()[2];
  return {{K::Tensor, 0}, {K::Tensor, 0}, {K::None, 0}, {K::None, 0}, {K::SymInt, sq}, {K::SymInt, sk},
          {K::Tensor, 0}, {K::Tensor, 0}, {K::None, 0}};
}

// _scaled_dot_product_flash_attention(q, k, v, dropout_p, is_causal, return_debug_mask, *, scale)
// -> (output, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, rng_state, unused, debug_attn_mask)
void meta_flash_attention(const MetaArgs& a, MetaOut& out) {
  const TensorMeta &q = a.tensor(0), &k = a.tensor(1), &v = a.tensor(2);
  check_4d(a, q, k, v);
  const TensorMeta res = py_empty_like(q, q.sizes[3]);
  out.push(res);
  out.push(make_contiguous(DimVector{q.sizes[0], q.sizes[1], q.sizes[2]}, DType::Float32, q.device));
  for (int i = 0; i < 4; ++i) out.push(no_result_meta(res.device));  // cum_seq_q, cum_seq_k, max_q, max_k
  out.push(make_contiguous(DimVector{2}, DType::UInt64, q.device));
  out.push(make_contiguous(DimVector{}, DType::UInt64, q.device));
  FE_CHECK(!a.to_bool(5), ValueError, label(a), ": return_debug_mask=True is not modelled");
  out.push(make_contiguous(DimVector{0}, q.dtype, q.device));
}

std::vector<OutputElem> flash_elems(std::span<const IValue> a) {
  using K = OutputElem;
  const SymInt sq = std::get<Tensor>(a[0]).sizes()[2], sk = std::get<Tensor>(a[1]).sizes()[2];
  return {{K::Tensor, 0}, {K::Tensor, 0}, {K::None, 0}, {K::None, 0}, {K::SymInt, sq}, {K::SymInt, sk},
          {K::Tensor, 0}, {K::Tensor, 0}, {K::Tensor, 0}};
}

// _scaled_dot_product_efficient_attention(q, k, v, attn_bias, compute_log_sumexp, dropout_p,
// is_causal, *, scale) -> (output, log_sumexp, philox_seed, philox_offset)
void meta_efficient_attention(const MetaArgs& a, MetaOut& out) {
  const TensorMeta &q = a.tensor(0), &k = a.tensor(1), &v = a.tensor(2);
  check_4d(a, q, k, v);
  out.push(cuda_sdpa_out(SdpBackend::Efficient, q, v));
  // logsumexp rows padded to 32 when asked for, else empty.
  const SymInt rows = a.to_bool(4) ? floordiv(q.sizes[2] + 31, 32) * 32 : SymInt(0);
  out.push(make_contiguous(DimVector{q.sizes[0], q.sizes[1], rows}, DType::Float32, q.device));
  out.push(make_contiguous(DimVector{}, DType::Int64, q.device));
  out.push(make_contiguous(DimVector{}, DType::Int64, q.device));
}

}  // namespace

void register_attention_ops(Registry& r) {
  op_cudnn_attention = r.add({.schema = "aten::_scaled_dot_product_cudnn_attention(Tensor query, Tensor key, Tensor value, "
         "Tensor? attn_bias, bool compute_log_sumexp, float dropout_p=0., bool is_causal=False, bool return_debug_mask=False, "
         "*, float? scale=None) -> (Tensor output, Tensor logsumexp, Tensor cum_seq_q, Tensor cum_seq_k, SymInt max_q, "
         "SymInt max_k, Tensor philox_seed, Tensor philox_offset, Tensor debug_attn_mask)",
         .meta = meta_cudnn_attention, .out_elems = cudnn_elems});
  op_flash_attention = r.add({.schema = "aten::_scaled_dot_product_flash_attention(Tensor query, Tensor key, Tensor value, "
         "float dropout_p=0., bool is_causal=False, bool return_debug_mask=False, *, float? scale=None) -> (Tensor output, "
         "Tensor logsumexp, Tensor cum_seq_q, Tensor cum_seq_k, SymInt max_q, SymInt max_k, Tensor rng_state, "
         "Tensor unused, Tensor debug_attn_mask)",
         .meta = meta_flash_attention, .out_elems = flash_elems});
  op_efficient_attention = r.add({.schema = "aten::_scaled_dot_product_efficient_attention(Tensor query, Tensor key, "
         "Tensor value, Tensor? attn_bias, bool compute_log_sumexp, float dropout_p=0., bool is_causal=False, *, "
         "float? scale=None) -> (Tensor output, Tensor log_sumexp, Tensor philox_seed, Tensor philox_offset)",
         .meta = meta_efficient_attention});
  op_scaled_dot_product_attention = r.add({.schema = "aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, "
         "float dropout_p=0., bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor",
         .meta = meta_sdpa, .cpu = cpu_sdpa, .decomp = decomp_sdpa, .scratch = scratch_sdpa});
  op_flash_cpu = r.add({.schema = "aten::_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value, "
         "float dropout_p=0., bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None) -> "
         "(Tensor output, Tensor logsumexp)",
         .meta = meta_flash_cpu, .cpu = cpu_flash_cpu, .decomp = decomp_flash_cpu});
}

}  // namespace ops

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale, bool enable_gqa, SrcLocArg loc) {
  return dispatch1(*op_scaled_dot_product_attention,
                   {query, key, value, attn_mask.defined() ? IValue(attn_mask) : IValue(None{}), dropout_p, is_causal,
                    scale ? IValue(*scale) : IValue(None{}), enable_gqa},
                   loc);
}

}  // namespace fe
