// Resampling and layout helpers exported programs record: adaptive_avg_pool1d, pad (constant
// mode), upsample_bilinear2d.vec, im2col (F.unfold), numpy_T and meshgrid.indexing. The composite ones
// (adaptive_avg_pool1d, numpy_T, meshgrid) derive metadata from the meta functions of the ops
// PyTorch's implementation calls, and run through those ops' kernels.
#include <cmath>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/conv_util.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"
#include "ops/unary_common.h"

namespace fe {
OpHandle op_constant_pad_nd;
namespace ops {
namespace {

OpHandle op_pad;

// ---- adaptive_avg_pool1d(self, output_size) = adaptive_avg_pool2d(self.unsqueeze(-2), [1, o]).squeeze(-2)
void check_pool1d(const std::string& label, int64_t dim, size_t n_out) {
  FE_CHECK(dim == 2 || dim == 3, ValueError, label, ": Expected 2 to 3 dimensions, but got ", dim,
           "-dimensional tensor for argument #1 'self' (while checking arguments for adaptive_avg_pool1d)");
  FE_CHECK(n_out == 1, ValueError, label, ": adaptive_avg_pool1d() argument 'output_size' should contain one int (got ",
           n_out, ")");
}

void meta_adaptive_avg_pool1d(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = tensor_arg(a, 0);
  const auto& o = a.int_list(1);
  check_pool1d(label(a), x.dim(), o.size());
  TensorMeta u = meta_call(*op_unsqueeze, {&x, SymInt(-2)});
  TensorMeta p = meta_call(*op_adaptive_avg_pool2d, {&u, std::vector<SymInt>{SymInt(1), o[0]}});
  out.push(meta_call(*op_squeeze_dim, {&p, SymInt(-2)}));
}

void cpu_adaptive_avg_pool1d(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  const auto& os = std::get<std::vector<SymInt>>(a[1]);
  check_pool1d(op.label(), x.dim(), os.size());
  Tensor p = fe::adaptive_avg_pool2d(fe::unsqueeze(x, -2), {1, os[0].expect_int()});
  fe::copy_(o[0], fe::squeeze(p, -2));
}

// ---- pad(self, pad, mode="constant", value=None): constant_pad_nd. Pads pair up from the last
// dim backwards; negative pads crop. All-zero pads are a clone (preserve format); otherwise a
// fresh tensor in the input's suggested memory format.
DimVector padded_sizes(const MetaArgs& a, const TensorMeta& x, const std::vector<SymInt>& pad) {
  FE_CHECK(pad.size() % 2 == 0, ValueError, label(a), ": Padding length must be divisible by 2");
  FE_CHECK(static_cast<int64_t>(pad.size()) <= 2 * x.dim(), ValueError, label(a),
           ": Padding length should be less than or equal to two times the input dimension but got padding length ",
           pad.size(), " and input of dimension ", x.dim());
  DimVector sizes = x.sizes;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const size_t d = static_cast<size_t>(x.dim()) - 1 - i;
    sizes[d] = x.sizes[d] + pad[2 * i] + pad[2 * i + 1];
    FE_CHECK(!sym_lt(sizes[d], SymInt(0)).guard(), ValueError, label(a), ": narrow(): length must be non-negative.");
  }
  return sizes;
}

/// The padded result of x: when no pad is positive (ATen's constant_pad_nd), a clone of x narrowed
/// by the negative pads; else fresh in x's suggested memory format.
void padded_meta(const TensorMeta& x, const std::vector<SymInt>& pad, const DimVector& sizes, MetaOut& out) {
  bool non_positive = true;
  for (const SymInt& p : pad) non_positive = non_positive && p.maybe_int() && *p.maybe_int() <= 0;
  if (non_positive) {
    TensorMeta c = x;
    for (size_t i = 0; i < pad.size() / 2; ++i) {
      const int64_t d = x.dim() - 1 - static_cast<int64_t>(i);
      const int64_t lo = -*pad[2 * i].maybe_int(), hi = -*pad[2 * i + 1].maybe_int();
      if (lo + hi == 0) continue;
      c = meta_call(*op_narrow, {&c, SymInt(d), SymInt(lo), c.sizes[static_cast<size_t>(d)] - lo - hi});
    }
    out.push(meta_call(*op_clone, {&c, None{}}));
    return;
  }
  TensorMeta m = make_contiguous(sizes, x.dtype, x.device);
  if (strides_like_channels_last(x)) m.strides = channels_last_nd_strides(m.sizes);
  out.push(std::move(m));
}

void meta_pad(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = tensor_arg(a, 0);
  const std::string& mode = a.str(2);
  FE_CHECK(mode == "constant", UnknownOpError, label(a), ": mode '", mode,
           "' is not supported by fakeexport yet (only 'constant')");
  const auto& pad = a.int_list(1);
  padded_meta(x, pad, padded_sizes(a, x, pad), out);
}

// ---- constant_pad_nd(self, pad, value=0): pad's constant mode, with ATen's own messages.
void meta_constant_pad_nd(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = tensor_arg(a, 0);
  const auto& pad = a.int_list(1);
  FE_CHECK(pad.size() % 2 == 0, ValueError, label(a), ": Length of pad must be even but instead it equals ",
           pad.size());
  const int64_t l_pad = static_cast<int64_t>(pad.size() / 2);
  FE_CHECK(x.dim() >= l_pad, ValueError, label(a),
           ": Length of pad should be no more than twice the number of dimensions of the input. Pad length is ",
           pad.size(), " while the input has ", x.dim(), " dimensions.");
  DimVector sizes = x.sizes;
  for (int64_t i = 0; i < l_pad; ++i) {
    const size_t d = static_cast<size_t>(x.dim() - l_pad + i);
    const size_t p = pad.size() - static_cast<size_t>(i + 1) * 2;
    sizes[d] = x.sizes[d] + pad[p] + pad[p + 1];
    FE_CHECK(!sym_lt(sizes[d], SymInt(0)).guard(), ValueError, label(a), ": The input size ", x.sizes[d],
             ", plus negative padding ", pad[p], " and ", pad[p + 1],
             " resulted in a negative output size, which is invalid. Check dimension ", d, " of your input.");
  }
  padded_meta(x, pad, sizes, out);
}

void cpu_pad(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  const auto& pad = std::get<std::vector<SymInt>>(a[1]);
  // pad's `value` (float?, index 3) or constant_pad_nd's (Scalar, index 2).
  const IValue& v = a.size() > 3 ? a[3] : a[2];
  fe::fill_(o[0], std::holds_alternative<None>(v) ? 0.0 : cpu::number_of(v));
  // The window of x that lands in the output, and where: crop x by negative pads, narrow the
  // output by positive ones.
  Tensor src = x, dst = o[0];
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const int64_t d = x.dim() - 1 - static_cast<int64_t>(i);
    const int64_t lo = pad[2 * i].expect_int(), hi = pad[2 * i + 1].expect_int();
    const int64_t n = src.size(d).expect_int() - std::max<int64_t>(0, -lo) - std::max<int64_t>(0, -hi);
    if (n <= 0) return;
    src = fe::narrow(src, d, std::max<int64_t>(0, -lo), n);
    dst = fe::narrow(dst, d, std::max<int64_t>(0, lo), n);
  }
  fe::copy_(dst, src);
}

// ---- upsample_bilinear2d.vec(input, output_size?, align_corners, scale_factors?)
struct UpsampleSize {
  int64_t oh, ow;
  std::optional<double> sh, sw;  // scale factors given: they set the source index scale
};

UpsampleSize upsample_size(const std::string& label, const TensorMeta& x, const IValue& osz, const IValue& sf) {
  const auto* o = std::get_if<std::vector<SymInt>>(&osz);
  const auto* s = std::get_if<std::vector<double>>(&sf);
  FE_CHECK((o != nullptr) != (s != nullptr), ValueError, label,
           ": Must specify exactly one of output_size and scale_factors");
  const int64_t spatial = x.dim() - 2;
  FE_CHECK((o ? static_cast<int64_t>(o->size()) : static_cast<int64_t>(s->size())) == spatial && spatial == 2,
           ValueError, label,
           ": Expected static_cast<int64_t>(output_size->size()) == spatial_dimensions to be true, but got false.  "
           "(Could this error message be improved?  If so, please report an enhancement request to PyTorch.)");
  if (o) return {(*o)[0].expect_int(), (*o)[1].expect_int(), std::nullopt, std::nullopt};
  return {static_cast<int64_t>(std::floor(x.sizes[2].expect_int() * (*s)[0])),
          static_cast<int64_t>(std::floor(x.sizes[3].expect_int() * (*s)[1])), (*s)[0], (*s)[1]};
}

IValue to_ivalue(const MetaArgs& a, size_t i) {
  if (a.is_none(i)) return None{};
  if (kind_of(a[i]) == ValueKind::IntList) return a.int_list(i);
  return std::get<std::vector<double>>(a[i]);
}

void meta_upsample_bilinear2d(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = tensor_arg(a, 0);
  const UpsampleSize u = upsample_size(label(a), x, to_ivalue(a, 1), to_ivalue(a, 3));
  DimVector sizes = x.sizes;
  sizes[2] = u.oh, sizes[3] = u.ow;
  TensorMeta m = make_contiguous(sizes, x.dtype, x.device);
  if (strides_like_channels_last(x)) m.strides = channels_last_nd_strides(m.sizes);
  out.push(std::move(m));
}

/// Source coordinate of output index i (PyTorch's area_pixel_compute_source_index, linear mode).
double source_index(int64_t i, int64_t in, int64_t out, bool align, std::optional<double> scale) {
  if (align) return out > 1 ? static_cast<double>(i) * (in - 1) / (out - 1) : 0.0;
  const double ratio = scale && *scale > 0 ? 1.0 / *scale : static_cast<double>(in) / out;
  return std::max(0.0, (i + 0.5) * ratio - 0.5);
}

void cpu_upsample_bilinear2d(const OpDef& op, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& x = std::get<Tensor>(a[0]);
  const bool align = std::get<bool>(a[2]);
  const UpsampleSize u = upsample_size(op.label(), x.meta(), a[1], a[3]);
  const StridedView in = view_of(x);
  const TensorMeta& om = o[0].meta();
  const int64_t n = in.sizes[0], c = in.sizes[1], ih = in.sizes[2], iw = in.sizes[3];
  auto* obase = static_cast<std::byte*>(o[0].data_ptr());
  for (int64_t y = 0; y < u.oh; ++y) {
    const double sy = source_index(y, ih, u.oh, align, u.sh);
    const int64_t y0 = std::min<int64_t>(static_cast<int64_t>(sy), ih - 1), y1 = std::min<int64_t>(y0 + 1, ih - 1);
    const double ly = sy - y0;
    for (int64_t xo = 0; xo < u.ow; ++xo) {
      const double sx = source_index(xo, iw, u.ow, align, u.sw);
      const int64_t x0 = std::min<int64_t>(static_cast<int64_t>(sx), iw - 1), x1 = std::min<int64_t>(x0 + 1, iw - 1);
      const double lx = sx - x0;
      for (int64_t b = 0; b < n; ++b)
        for (int64_t ch = 0; ch < c; ++ch) {
          const int64_t base = b * in.strides[0] + ch * in.strides[1];
          auto at = [&](int64_t yy, int64_t xx) { return in.at(base + yy * in.strides[2] + xx * in.strides[3]); };
          const double v = (1 - ly) * ((1 - lx) * at(y0, x0) + lx * at(y0, x1)) +
                           ly * ((1 - lx) * at(y1, x0) + lx * at(y1, x1));
          const int64_t off = b * om.strides[0].expect_int() + ch * om.strides[1].expect_int() +
                              y * om.strides[2].expect_int() + xo * om.strides[3].expect_int();
          detail::store(obase + off * itemsize(om.dtype), om.dtype, v);
        }
    }
  }
}

// ---- numpy_T(self): x.T, every dim reversed (a permute view).
void meta_numpy_t(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = tensor_arg(a, 0);
  std::vector<SymInt> dims;
  for (int64_t d = x.dim() - 1; d >= 0; --d) dims.emplace_back(d);
  out = meta_calls(*op_permute, {&x, std::move(dims)});
}

// ---- meshgrid.indexing(tensors, *, indexing): each input viewed along its own dim and expanded.
// "xy" swaps the first two inputs and outputs (numpy's Cartesian indexing).
void meta_meshgrid(const MetaArgs& a, MetaOut& out) {
  const auto& ts = a.tensor_list(0);
  const std::string& idx = a.str(1);
  FE_CHECK(!ts.empty(), ValueError, label(a), ": meshgrid expects a non-empty TensorList");
  for (const TensorMeta* t : ts) {
    FE_CHECK(t->dtype == ts[0]->dtype, ValueError, label(a), ": meshgrid expects all tensors to have the same dtype");
    FE_CHECK(t->device == ts[0]->device, DeviceMismatchError, label(a),
             ": meshgrid expects all tensors to have the same device");
  }
  FE_CHECK(idx == "ij" || idx == "xy", ValueError, label(a),
           ": torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: ", idx);
  std::vector<const TensorMeta*> in(ts.begin(), ts.end());
  const bool swap = idx == "xy" && in.size() >= 2;
  if (swap) std::swap(in[0], in[1]);
  std::vector<SymInt> shape;
  for (const TensorMeta* t : in) shape.push_back(t->dim() == 0 ? SymInt(1) : t->sizes[0]);
  std::vector<TensorMeta> res;
  for (size_t i = 0; i < in.size(); ++i) {
    std::vector<SymInt> vs(in.size(), SymInt(1));
    vs[i] = SymInt(-1);
    TensorMeta v = meta_call(*op_view, {in[i], std::move(vs)});
    res.push_back(meta_call(*op_expand, {&v, shape, false}));
  }
  if (swap) std::swap(res[0], res[1]);
  for (TensorMeta& m : res) out.push(std::move(m));
}

// Output k holds input i's element idx[i] at every index (i and k swapped for the first two
// under "xy"); outputs are written through their expanded (stride-0) layout.
void cpu_meshgrid(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const auto& in = std::get<std::vector<Tensor>>(a[0]);
  const bool swap = std::get<std::string>(a[1]) == "xy" && in.size() >= 2;
  for (size_t k = 0; k < o.size(); ++k) {
    const size_t i = swap && k < 2 ? 1 - k : k;  // the grid dim input k varies along
    const TensorMeta& om = o[k].meta();
    const TensorMeta& im = in[k].meta();
    cpu::Operand src;
    src.base = static_cast<const std::byte*>(in[k].data_ptr()) - im.storage_offset.expect_int() * itemsize(im.dtype);
    src.dtype = im.dtype;
    src.offset = im.storage_offset.expect_int();
    src.strides = DimVector(om.sizes.size(), SymInt(0));
    if (in[k].dim() == 1) src.strides[i] = in[k].meta().strides[0];
    cpu::for_each_element(om, std::span(&src, 1), [&](int64_t out_off, const int64_t* in_off) {
      cpu::store_at(o[k], out_off, src.at(in_off[0]));
    });
  }
}

// ---- Decompositions (all CompositeImplicit in ATen; each as its C++ implementation calls).

/// adaptive_avg_pool1d: adaptive_avg_pool2d(self.unsqueeze(-2), [1, o]).squeeze(-2).
std::vector<Tensor> decomp_adaptive_avg_pool1d(std::span<const IValue> a, const SrcLocArg& loc) {
  const auto& o = std::get<std::vector<SymInt>>(a[1]);
  const Tensor u = fe::unsqueeze(decomp_tensor(a, 0), -2, loc);
  const Tensor p = dispatch1(*op_adaptive_avg_pool2d, {u, std::vector<SymInt>{SymInt(1), o.at(0)}}, loc);
  return {dispatch1(*op_squeeze_dim, {p, SymInt(-2)}, loc)};
}
/// pad: _pad_enum's constant mode is constant_pad_nd(self, pad, value or 0.0).
std::vector<Tensor> decomp_pad(std::span<const IValue> a, const SrcLocArg& loc) {
  if (std::get<std::string>(a[2]) != "constant") return undecomposed(*op_pad, a, loc);
  const IValue value = std::holds_alternative<None>(a[3]) ? IValue(0.0) : a[3];
  return {dispatch1(*op_constant_pad_nd, {a[0], a[1], value}, loc)};
}
/// numpy_T: permute with every dim reversed.
std::vector<Tensor> decomp_numpy_t(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  std::vector<SymInt> dims;
  for (int64_t d = x.dim() - 1; d >= 0; --d) dims.emplace_back(d);
  return {dispatch1(*op_permute, {x, std::move(dims)}, loc)};
}
/// meshgrid.indexing: each input viewed with -1 at its own dim (1 elsewhere) and expanded to every
/// input's numel; "xy" swaps the first two inputs and outputs.
std::vector<Tensor> decomp_meshgrid(std::span<const IValue> a, const SrcLocArg& loc) {
  std::vector<Tensor> in = std::get<std::vector<Tensor>>(a[0]);
  const bool swap = std::get<std::string>(a[1]) == "xy" && in.size() >= 2;
  if (swap) std::swap(in[0], in[1]);
  std::vector<SymInt> shape;
  for (const Tensor& t : in) shape.push_back(t.meta().numel());
  std::vector<Tensor> grids;
  std::vector<SymInt> view_shape(in.size(), SymInt(1));
  for (size_t i = 0; i < in.size(); ++i) {
    view_shape[i] = SymInt(-1);
    grids.push_back(fe::expand(fe::view(in[i], view_shape, loc), shape, false, loc));
    view_shape[i] = SymInt(1);
  }
  if (swap) std::swap(grids[0], grids[1]);
  return grids;
}


// ---- im2col(self, kernel_size, dilation, padding, stride): F.unfold. FakeTensorMode has no meta
// of its own: torch._decomp's im2col (block starts plus kernel offsets from aranges,
// constant_pad_nd, an index, permute, reshape) gives the metadata, the lowering and the values.
struct Im2col {
  SymInt kh, kw, dh, dw, ph, pw, sh, sw;
};

std::string py_list(const std::vector<SymInt>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i].str();
  return s + "]";
}
std::string py_tuple(std::span<const SymInt> v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i].str();
  return s + (v.size() == 1 ? ",)" : ")");
}

/// torch._decomp's im2col checks, in its order; the parameters as (h, w) pairs.
Im2col check_im2col(std::string_view label, const TensorMeta& x, const std::vector<SymInt>& k,
                    const std::vector<SymInt>& d, const std::vector<SymInt>& p, const std::vector<SymInt>& s) {
  FE_CHECK(k.size() == 2, ValueError, label, ": im2col(): only 2D kernel supported");
  FE_CHECK(d.size() == 2, ValueError, label, ": im2col(): only 2D dilation supported");
  FE_CHECK(p.size() == 2, ValueError, label, ": im2col(): only 2D padding supported");
  FE_CHECK(s.size() == 2, ValueError, label, ": im2col(): only 2D stride supported");
  const auto positive = [&](const std::vector<SymInt>& v, const char* name) {
    bool ok = true;
    for (const SymInt& e : v) ok = ok && e.expect_int() > 0;
    FE_CHECK(ok, ValueError, label, ": ", name, " should be greater than zero, but got ", py_list(v));
  };
  // (It checks dilation again, non-strictly, under padding's name: never fails after the first.)
  positive(k, "kernel_size");
  positive(d, "dilation");
  positive(s, "stride");
  const int64_t nd = x.dim();
  bool nonzero = nd == 3 || nd == 4;
  for (int64_t i = std::max<int64_t>(0, nd - 3); nonzero && i < nd; ++i) nonzero = sym_ne(x.sizes[i], SymInt(0)).guard();
  FE_CHECK(nonzero, ValueError, label, ": Expected 3D or 4D (batch mode) tensor for input with possible 0 batch size "
           "and non-zero dimensions, but got: ", py_tuple(x.sizes));
  const Im2col g{k[0], k[1], d[0], d[1], p[0], p[1], s[0], s[1]};
  const SymInt out[2] = {floordiv(x.sizes[nd - 2] + p[0] * 2 - d[0] * (k[0] - 1) - 1, s[0]) + 1,
                         floordiv(x.sizes[nd - 1] + p[1] * 2 - d[1] * (k[1] - 1) - 1, s[1]) + 1};
  FE_CHECK(sym_gt(out[0], SymInt(0)).guard() && sym_gt(out[1], SymInt(0)).guard(), ValueError, label,
           ": Given an input with spatial size ", py_tuple(std::span(x.sizes).subspan(nd - 2)), ", kernel_size=",
           py_list(k), ", dilation=", py_list(d), ", padding=", py_list(p), ", stride=", py_list(s),
           ", the calculated shape of the array of sliding blocks is ", py_tuple(out),
           ", but its components must be at least one.");
  return g;
}

/// _im2col_col2im_indices_along_dim's sizes: [kernel, blocks] (block starts plus kernel offsets).
TensorMeta block_indices_meta(const SymInt& in, const SymInt& k, const SymInt& d, const SymInt& p, const SymInt& s,
                              Device dev) {
  const SymInt blocks = in + p * 2 - d * (k - 1);
  const TensorMeta starts = meta_call(*op_arange_start_step, {SymInt(0), blocks, s, DType::Int64, None{}, dev, false});
  const SymInt sizes[2] = {k, starts.sizes[0]};
  return make_contiguous(sizes, DType::Int64, dev);
}

void meta_im2col(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& self = tensor_arg(a, 0);
  const Im2col g = check_im2col(label(a), self, a.int_list(1), a.int_list(2), a.int_list(3), a.int_list(4));
  const TensorMeta x = self.dim() == 4 ? self : meta_call(*op_unsqueeze, {&self, SymInt(0)});
  const TensorMeta rows = block_indices_meta(x.sizes[2], g.kh, g.dh, g.ph, g.sh, x.device);
  const TensorMeta cols = block_indices_meta(x.sizes[3], g.kw, g.dw, g.pw, g.sw, x.device);
  const SymInt rsizes[4] = {rows.sizes[0], rows.sizes[1], SymInt(1), SymInt(1)};
  const TensorMeta rows4 = make_contiguous(rsizes, DType::Int64, x.device);
  const TensorMeta padded =
      meta_call(*op_constant_pad_nd, {&x, std::vector<SymInt>{g.pw, g.pw, g.ph, g.ph}, 0.0});
  const TensorMeta picked =
      meta_call(*op_index_Tensor, {&padded, std::vector<const TensorMeta*>{nullptr, nullptr, &rows4, &cols}});
  const TensorMeta perm = meta_call(*op_permute, {&picked, std::vector<SymInt>{0, 1, 2, 4, 3, 5}});
  TensorMeta r = meta_call(*op_reshape, {&perm, std::vector<SymInt>{x.sizes[0], x.sizes[1] * g.kh * g.kw,
                                                                    rows.sizes[1] * cols.sizes[1]}});
  out.push(self.dim() == 4 ? std::move(r) : meta_call(*op_squeeze_dim, {&r, SymInt(0)}));
}

Tensor block_indices(const SymInt& in, const SymInt& k, const SymInt& d, const SymInt& p, const SymInt& s, Device dev,
                     const SrcLocArg& loc) {
  const SymInt blocks = in + p * 2 - d * (k - 1);
  const Tensor starts = fe::unsqueeze(fe::arange(0, blocks, s, {.dtype = DType::Int64, .device = dev}, loc), 0, loc);
  const Tensor grid = fe::unsqueeze(fe::arange(0, k * d, d, {.dtype = DType::Int64, .device = dev}, loc), -1, loc);
  return fe::add(starts, grid, 1, loc);
}

/// torch._decomp's im2col: also the reference kernel (its ops on real tensors).
std::vector<Tensor> decomp_im2col(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& self = decomp_tensor(a, 0);
  const auto list = [&](size_t i) { return std::get<std::vector<SymInt>>(a[i]); };
  const Im2col g = check_im2col("aten::im2col", self.meta(), list(1), list(2), list(3), list(4));
  const Tensor x = self.dim() == 4 ? self : fe::unsqueeze(self, 0, loc);
  const SymInt batch = x.sizes()[0], channels = x.sizes()[1];
  Tensor rows = block_indices(x.sizes()[2], g.kh, g.dh, g.ph, g.sh, x.device(), loc);
  const Tensor cols = block_indices(x.sizes()[3], g.kw, g.dw, g.pw, g.sw, x.device(), loc);
  const Tensor padded = dispatch1(*op_constant_pad_nd, {x, std::vector<SymInt>{g.pw, g.pw, g.ph, g.ph}, 0.0}, loc);
  rows = fe::unsqueeze(fe::unsqueeze(rows, -1, loc), -1, loc);
  Tensor r = fe::index(padded, {std::nullopt, std::nullopt, rows, cols}, loc);
  r = fe::permute(r, {0, 1, 2, 4, 3, 5}, loc);
  r = fe::reshape(r, {batch, peephole_mul(peephole_mul(channels, g.kh), g.kw), peephole_mul(rows.sizes()[1], cols.sizes()[1])},
                 loc);
  return {self.dim() == 4 ? r : fe::squeeze(r, 0, loc)};
}
void cpu_im2col(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const DType t = o[0].dtype();  // ATen's CPU kernel: floating, complex and bool types only
  FE_CHECK(is_floating(t) || is_complex(t) || t == DType::Bool, DTypeError,
           "aten::im2col: \"im2col_out_cpu\" not implemented for '", scalar_type_name(t), "'");
  fe::copy_(o[0], decomp_im2col(a, SrcLocArg::current())[0]);
}
}  // namespace

void register_resample_ops(Registry& r) {
  r.add({.schema = "aten::adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor",
         .meta = meta_adaptive_avg_pool1d, .cpu = cpu_adaptive_avg_pool1d, .decomp = decomp_adaptive_avg_pool1d});
  op_pad = r.add({.schema = "aten::pad(Tensor self, SymInt[] pad, str mode=\"constant\", float? value=None) -> Tensor",
                  .meta = meta_pad, .cpu = cpu_pad, .decomp = decomp_pad});
  op_constant_pad_nd = r.add({"aten::constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor",
                              meta_constant_pad_nd, cpu_pad});
  r.add({"aten::upsample_bilinear2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? "
         "scale_factors) -> Tensor",
         meta_upsample_bilinear2d, cpu_upsample_bilinear2d});
  r.add({.schema = "aten::im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> "
                   "Tensor",
         .meta = meta_im2col, .cpu = cpu_im2col, .decomp = decomp_im2col});
  r.add({.schema = "aten::numpy_T(Tensor(a) self) -> Tensor(a)", .meta = meta_numpy_t, .decomp = decomp_numpy_t});
  r.add({.schema = "aten::meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]", .meta = meta_meshgrid,
         .cpu = cpu_meshgrid, .decomp = decomp_meshgrid});
}

}  // namespace ops
}  // namespace fe
