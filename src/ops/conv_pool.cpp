// Pooling ops of the conv family: max_pool2d(_with_indices), avg_pool2d, adaptive_avg_pool2d,
// _adaptive_avg_pool2d, and max_pool1d / avg_pool1d (their 2-D forms on a unit height). Metas follow torch/_meta_registrations.py (pool2d_shape_check and friends);
// outputs keep the input's suggested memory format (NHWC in, NHWC out).
#include <cmath>
#include <limits>
#include <tuple>

#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/conv_util.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"

namespace fe {
OpHandle op_adaptive_avg_pool2d;
}  // namespace fe
namespace fe {
namespace {
OpHandle op_avg_pool2d;
OpHandle op_max_pool2d;
OpHandle op_max_pool2d_with_indices;
}  // namespace
}  // namespace fe

namespace fe {
namespace ops {
namespace {

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

std::pair<int64_t, int64_t> unpack(const MetaArgs& a, IntSpan v, const char* op, const char* name) {
  FE_CHECK(v.size() == 1 || v.size() == 2, ValueError, label(a), ": ", op, ": ", name,
           " must either be a single int, or a tuple of two ints");
  return {v[0].expect_int(), v[v.size() - 1].expect_int()};
}

SymInt pooling_output_shape(const MetaArgs& a, const SymInt& in, int64_t k, int64_t pad, int64_t stride,
                            int64_t dilation, bool ceil_mode) {
  FE_CHECK(stride != 0, ValueError, label(a), ": stride should not be zero");
  FE_CHECK(pad >= 0, ValueError, label(a), ": pad must be non-negative, but got pad: ", pad);
  FE_CHECK(pad <= ((k - 1) * dilation + 1) / 2, ValueError, label(a),
           ": pad should be at most half of effective kernel size, but got pad=", pad, ", kernel_size=", k,
           " and dilation=", dilation);
  const int64_t off = 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  SymInt out = in.is_symbolic() ? floordiv(in + off, stride) + 1 : SymInt(floor_div(in.hint() + off, stride) + 1);
  if (ceil_mode && (out - 1) * stride >= in + pad) out = out - 1;  // the last window must start inside the input
  return out;
}

/// input.size(-3) etc.: IndexError for inputs of rank < 3.
SymInt size_at(const MetaArgs& a, const TensorMeta& x, int64_t d) {
  const int64_t n = std::max<int64_t>(x.dim(), 1);
  FE_CHECK(d >= -n && d < n, IndexError, label(a), ": Dimension out of range (expected to be in range of [", -n, ", ",
           n - 1, "], but got ", d, ")");
  return x.sizes[x.dim() + d];
}

struct Pool2d {
  int64_t kH, kW, dH, dW, padH, padW, dilH, dilW;
};

void pool2d_shape_check(const MetaArgs& a, const TensorMeta& x, const Pool2d& p, bool channels_last,
                        const SymInt& planes, const SymInt& inH, const SymInt& inW, const SymInt& outH,
                        const SymInt& outW) {
  FE_CHECK(p.kW > 0 && p.kH > 0, ValueError, label(a), ": kernel size should be greater than zero, but got kH: ", p.kH,
           ", kW: ", p.kW);
  FE_CHECK(p.dW > 0 && p.dH > 0, ValueError, label(a), ": stride should be greater than zero, but got dH: ", p.dH,
           ", dW: ", p.dW);
  FE_CHECK(p.dilH > 0 && p.dilW > 0, ValueError, label(a),
           ": dilation should be greater than zero, but got dilationH: ", p.dilH, ", dilationW: ", p.dilW);
  const int64_t nd = x.dim();
  auto sz = [&](int64_t d) { return x.sizes[d]; };
  const bool valid = sz(1) != 0 && sz(2) != 0;
  if (channels_last) {
    FE_CHECK(nd == 4 && valid && sz(3) != 0, ShapeError, label(a),
             ": Expected 4D (batch mode) tensor expected for input with channels_last layout with optional 0 dim "
             "batch size for input, but got: torch.Size(", shape_str(x.sizes), ")");
  } else {
    FE_CHECK((nd == 3 && sz(0) != 0 && valid) || (nd == 4 && valid && sz(3) != 0), ShapeError, label(a),
             ": Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got: torch.Size(",
             shape_str(x.sizes), ")");
  }
  FE_CHECK(p.kW / 2 >= p.padW && p.kH / 2 >= p.padH, ValueError, label(a),
           ": pad should be smaller than or equal to half of kernel size, but got padW = ", p.padW, ", padH = ",
           p.padH, ", kW = ", p.kW, ", kH = ", p.kH);
  FE_CHECK(outW >= 1 && outH >= 1, ShapeError, label(a), ": Given input size: (", planes, "x", inH, "x", inW,
           "). Calculated output size: (", planes, "x", outH, "x", outW, "). Output size is too small");
}

TensorMeta pool_output(const TensorMeta& x, const SymInt& outH, const SymInt& outW, bool channels_last, DType dtype) {
  DimVector size(x.sizes.begin(), x.sizes.end() - 2);
  size.push_back(outH);
  size.push_back(outW);
  TensorMeta m = make_contiguous(size, dtype, x.device);
  if (channels_last) m.strides = channels_last_nd_strides(size);
  return m;
}

// max_pool2d(self, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False) and _with_indices
template <bool kIndices>
void meta_max_pool2d(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  Pool2d p{};
  std::tie(p.kH, p.kW) = unpack(a, a.int_list(1), "max_pool2d", "kernel_size");
  IntSpan stride = a.int_list(2);
  FE_CHECK(stride.size() <= 2, ValueError, label(a),
           ": max_pool2d: stride must either be omitted, a single int, or a tuple of two ints");
  if (stride.empty()) std::tie(p.dH, p.dW) = std::pair(p.kH, p.kW);
  else std::tie(p.dH, p.dW) = unpack(a, stride, "max_pool2d", "stride");
  std::tie(p.padH, p.padW) = unpack(a, a.int_list(3), "max_pool2d", "padding");
  std::tie(p.dilH, p.dilW) = unpack(a, a.int_list(4), "max_pool2d", "dilation");
  const bool ceil_mode = a.to_bool(5);
  const SymInt planes = size_at(a, x, -3), inH = size_at(a, x, -2), inW = size_at(a, x, -1);
  const bool cl = strides_like_channels_last(x) && x.dim() == 4;
  FE_CHECK(cl || x.dim() == 3 || x.dim() == 4, ShapeError, label(a),
           ": non-empty 3D or 4D (batch mode) tensor expected for input");
  const SymInt outH = pooling_output_shape(a, inH, p.kH, p.padH, p.dH, p.dilH, ceil_mode);
  const SymInt outW = pooling_output_shape(a, inW, p.kW, p.padW, p.dW, p.dilW, ceil_mode);
  pool2d_shape_check(a, x, p, cl, planes, inH, inW, outH, outW);
  out.push(pool_output(x, outH, outW, cl, x.dtype));
  if (kIndices) out.push(pool_output(x, outH, outW, cl, DType::Int64));
}

// avg_pool2d(self, kernel_size, stride=[], padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None)
void meta_avg_pool2d(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  Pool2d p{};
  p.dilH = p.dilW = 1;
  std::tie(p.kH, p.kW) = unpack(a, a.int_list(1), "avg_pool2d", "kernel_size");
  IntSpan stride = a.int_list(2);
  FE_CHECK(stride.size() <= 2, ValueError, label(a),
           ": avg_pool2d: stride must either be omitted, a single int, or a tuple of two ints");
  FE_CHECK(x.dtype != DType::UInt8, DTypeError, label(a), ": \"avg_pool2d\" not implemented for 'torch.uint8'");
  if (stride.empty()) std::tie(p.dH, p.dW) = std::pair(p.kH, p.kW);
  else std::tie(p.dH, p.dW) = unpack(a, stride, "avg_pool2d", "stride");
  std::tie(p.padH, p.padW) = unpack(a, a.int_list(3), "avg_pool2d", "padding");
  const bool ceil_mode = a.to_bool(4);
  const auto divisor = a.opt_int(6);
  FE_CHECK(!divisor || *divisor != 0, ValueError, label(a), ": divisor must be not zero");
  const SymInt planes = size_at(a, x, -3), inH = size_at(a, x, -2), inW = size_at(a, x, -1);
  const SymInt outH = pooling_output_shape(a, inH, p.kH, p.padH, p.dH, 1, ceil_mode);
  const SymInt outW = pooling_output_shape(a, inW, p.kW, p.padW, p.dW, 1, ceil_mode);
  const bool cl = strides_like_channels_last(x) && x.dim() == 4;
  pool2d_shape_check(a, x, p, cl, planes, inH, inW, outH, outW);
  out.push(pool_output(x, outH, outW, cl, x.dtype));
}

/// _adaptive_avg_pool2d's meta: any output_size length, input's suggested memory format.
TensorMeta adaptive_meta(const MetaArgs& a, const TensorMeta& x, IntSpan output_size) {
  FE_CHECK(x.dim() == 3 || x.dim() == 4, ShapeError, label(a), ": Expected 3D or 4D tensor, but got torch.Size(",
           shape_str(x.sizes), ")");
  DimVector size(x.sizes.begin(), x.sizes.end() - 2);
  for (const SymInt& s : output_size) size.push_back(s);
  for (const SymInt& s : output_size)
    FE_CHECK(s >= 0, ShapeError, label(a), ": Trying to create tensor with negative dimension ", s, ": ",
             shape_str(size));
  TensorMeta m = make_contiguous(size, x.dtype, x.device);
  if (size.size() == 4 && strides_like_channels_last(x)) m.strides = channels_last_nd_strides(size);
  return m;
}

void meta__adaptive_avg_pool2d(const MetaArgs& a, MetaOut& out) {
  out.push(adaptive_meta(a, a.tensor(0), a.int_list(1)));
}

// adaptive_avg_pool2d: output (1, 1) is input.mean((-1, -2), keepdim=True), else _adaptive_avg_pool2d.
void meta_adaptive_avg_pool2d(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  IntSpan os = a.int_list(1);
  FE_CHECK(os.size() == 2, ValueError, label(a), ": adaptive_avg_pool2d: output_size must be 2");
  FE_CHECK(os[0] >= 0 && os[1] >= 0, ValueError, label(a),
           ": adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {", os[0],
           ", ", os[1], "}");
  if (!(os[0] == 1 && os[1] == 1)) {
    out.push(adaptive_meta(a, x, os));
    return;
  }
  FE_CHECK(is_floating(x.dtype) || is_complex(x.dtype), DTypeError, label(a),
           ": mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
           "Got: torch.", dtype_name(x.dtype));
  wrap_dim(-2, x.dim(), label(a));
  DimVector size = x.sizes;
  size[size.size() - 1] = 1;
  size[size.size() - 2] = 1;
  TensorMeta m = make_contiguous(size, x.dtype, x.device);
  if (x.dim() == 4 && strides_like_channels_last(x)) {  // as_strided_({n, c, 1, 1}, {c, 1, c, c})
    const SymInt c = x.sizes[1];
    m.strides = {c, SymInt(1), c, c};
  }
  out.push(std::move(m));
}

// ---- reference kernels over a virtual (N, C, H, W) view
int64_t to_int(const IValue& v) { return std::get<SymInt>(v).expect_int(); }
std::vector<int64_t> ints(const IValue& v) {
  std::vector<int64_t> r;
  for (const SymInt& s : std::get<std::vector<SymInt>>(v)) r.push_back(s.expect_int());
  return r;
}
std::pair<int64_t, int64_t> pair_of(const std::vector<int64_t>& v, std::pair<int64_t, int64_t> dflt) {
  if (v.empty()) return dflt;
  return {v[0], v[v.size() - 1]};
}

/// kernel_size, stride (default: the kernel), padding at args 1..3 of the pool ops. Plain members,
/// not structured bindings: the kernels' lambdas capture them (clang < 16 cannot capture bindings).
struct PoolWindow {
  int64_t kH, kW, dH, dW, pH, pW;
  explicit PoolWindow(std::span<const IValue> a) {
    std::tie(kH, kW) = pair_of(ints(a[1]), {1, 1});
    std::tie(dH, dW) = pair_of(ints(a[2]), {kH, kW});
    std::tie(pH, pW) = pair_of(ints(a[3]), {0, 0});
  }
};

/// Calls f(n, c, oh, ow, in_offset_of_plane, out_offset) for every output element.
template <class F>
void for_each_pooled(const StridedView& in, const StridedView& out, F&& f) {
  for (int64_t n = 0; n < out.sizes[0]; ++n)
    for (int64_t c = 0; c < out.sizes[1]; ++c)
      for (int64_t oh = 0; oh < out.sizes[2]; ++oh)
        for (int64_t ow = 0; ow < out.sizes[3]; ++ow)
          f(oh, ow, n * in.strides[0] + c * in.strides[1],
            n * out.strides[0] + c * out.strides[1] + oh * out.strides[2] + ow * out.strides[3]);
}

void cpu_max_pool2d(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const StridedView in = with_rank(view_of(std::get<Tensor>(a[0])), 4);
  const StridedView ov = with_rank(view_of(o[0]), 4);
  const PoolWindow pw(a);
  const int64_t kH = pw.kH, kW = pw.kW, dH = pw.dH, dW = pw.dW, pH = pw.pH, pW = pw.pW;
  const std::pair<int64_t, int64_t> dil = pair_of(ints(a[4]), {1, 1});
  const int64_t lH = dil.first, lW = dil.second;
  const int64_t H = in.sizes[2], W = in.sizes[3];
  for_each_pooled(in, ov, [&](int64_t oh, int64_t ow, int64_t ioff, int64_t ooff) {
    int64_t h0 = oh * dH - pH, w0 = ow * dW - pW;
    const int64_t h1 = std::min(h0 + (kH - 1) * lH + 1, H), w1 = std::min(w0 + (kW - 1) * lW + 1, W);
    while (h0 < 0) h0 += lH;
    while (w0 < 0) w0 += lW;
    double best = -std::numeric_limits<double>::infinity();
    int64_t best_idx = h0 * W + w0;
    for (int64_t h = h0; h < h1; h += lH)
      for (int64_t w = w0; w < w1; w += lW) {
        const double v = in.at(ioff + h * in.strides[2] + w * in.strides[3]);
        if (v > best || std::isnan(v)) {  // NaN propagates; ties keep the first
          best = v;
          best_idx = h * W + w;
        }
      }
    store_elem(o[0], ooff, best);
    if (o.size() > 1) store_elem(o[1], ooff, static_cast<double>(best_idx));
  });
}

void cpu_avg_pool2d(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const StridedView in = with_rank(view_of(std::get<Tensor>(a[0])), 4);
  const StridedView ov = with_rank(view_of(o[0]), 4);
  const PoolWindow pw(a);
  const int64_t kH = pw.kH, kW = pw.kW, dH = pw.dH, dW = pw.dW, pH = pw.pH, pW = pw.pW;
  const bool count_include_pad = std::get<bool>(a[5]);
  // divisor_override: 0 means none (the meta rejects an explicit 0).
  const int64_t divisor = std::holds_alternative<SymInt>(a[6]) ? to_int(a[6]) : 0;
  const bool integral = is_integral(o[0].dtype(), true);
  const int64_t H = in.sizes[2], W = in.sizes[3];
  for_each_pooled(in, ov, [&](int64_t oh, int64_t ow, int64_t ioff, int64_t ooff) {
    int64_t h0 = oh * dH - pH, w0 = ow * dW - pW;
    int64_t h1 = std::min(h0 + kH, H + pH), w1 = std::min(w0 + kW, W + pW);
    const int64_t pool_size = (h1 - h0) * (w1 - w0);
    h0 = std::max<int64_t>(h0, 0);
    w0 = std::max<int64_t>(w0, 0);
    h1 = std::min(h1, H);
    w1 = std::min(w1, W);
    if (h0 >= h1 || w0 >= w1) {
      store_elem(o[0], ooff, 0.0);
      return;
    }
    double sum = 0;
    for (int64_t h = h0; h < h1; ++h)
      for (int64_t w = w0; w < w1; ++w) sum += in.at(ioff + h * in.strides[2] + w * in.strides[3]);
    const int64_t div = divisor != 0 ? divisor : count_include_pad ? pool_size : (h1 - h0) * (w1 - w0);
    // Integer inputs accumulate and divide in integer arithmetic (truncating).
    store_elem(o[0], ooff, integral ? static_cast<double>(static_cast<int64_t>(sum) / div) : sum / div);
  });
}

void cpu_adaptive_avg_pool2d(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const StridedView in = with_rank(view_of(std::get<Tensor>(a[0])), 4);
  const StridedView ov = with_rank(view_of(o[0]), 4);
  const int64_t H = in.sizes[2], W = in.sizes[3], OH = ov.sizes[2], OW = ov.sizes[3];
  for_each_pooled(in, ov, [&](int64_t oh, int64_t ow, int64_t ioff, int64_t ooff) {
    // Window [floor(o * I / O), ceil((o + 1) * I / O)).
    const int64_t h0 = oh * H / OH, h1 = ((oh + 1) * H + OH - 1) / OH;
    const int64_t w0 = ow * W / OW, w1 = ((ow + 1) * W + OW - 1) / OW;
    double sum = 0;
    for (int64_t h = h0; h < h1; ++h)
      for (int64_t w = w0; w < w1; ++w) sum += in.at(ioff + h * in.strides[2] + w * in.strides[3]);
    store_elem(o[0], ooff, sum / static_cast<double>((h1 - h0) * (w1 - w0)));
  });
}

/// max_pool2d (CompositeImplicit on CPU tensors that need no mkldnn path):
/// max_pool2d_with_indices(...)[0], the arguments as given.
std::vector<Tensor> decomp_max_pool2d(std::span<const IValue> a, const SrcLocArg& loc) {
  return {dispatch(*op_max_pool2d_with_indices, {a.begin(), a.end()}, loc).at(0)};
}

/// adaptive_avg_pool2d (CompositeImplicit): to size [1, 1] it is mean over the last two dims
/// (keepdim); other sizes go to _adaptive_avg_pool2d.
std::vector<Tensor> decomp_adaptive_avg_pool2d(std::span<const IValue> a, const SrcLocArg& loc) {
  const auto& size = std::get<std::vector<SymInt>>(a[1]);
  if (size.size() == 2 && size[0].same_as(SymInt(1)) && size[1].same_as(SymInt(1))) {
    // ATen: the mean over H and W; a channels-last input restrides it in place (as_strided_, which
    // the functional graph records as as_strided).
    const Tensor& x = decomp_tensor(a, 0);
    Tensor out = fe::mean(x, {-1, -2}, true, std::nullopt, loc);
    if (x.dim() == 4 && strides_like_channels_last(x.meta())) {
      const SymInt n = x.sizes()[0], c = x.sizes()[1];
      out = dispatch1(*op_as_strided, {out, std::vector<SymInt>{n, c, SymInt(1), SymInt(1)},
                                       std::vector<SymInt>{c, SymInt(1), c, c}, None{}}, loc);
    }
    return {out};
  }
  return undecomposed(*op_adaptive_avg_pool2d, a, loc);
}

// ---- max_pool1d / avg_pool1d (CompositeImplicit): the 2-D op over self.unsqueeze(-2) with a unit
// kernel, stride and no padding in height, squeezed back (torch._decomp's max_pool1d_with_indices
// squeezes the indices too, which nothing reads).
/// The 2-D form of a 1-D pool's int list: {h, v} (a missing stride is the kernel's).
template <class V>
V two_d(const V& v, int64_t h, const V* fallback = nullptr) {
  const auto& l = std::get<std::vector<SymInt>>(v);
  if (l.empty() && fallback) return two_d(*fallback, h);
  return std::vector<SymInt>{SymInt(h), l.empty() ? SymInt(0) : l[0]};
}
/// The 2-D arguments of a 1-D pool: [self.unsqueeze(-2), kernel, stride, padding, rest...], over
/// IValues (kernel, decomposition) or MetaValues (meta).
template <class V>
std::vector<V> pool2d_args(std::span<const V> a, V self, bool dilation) {
  std::vector<V> r = {std::move(self), two_d(a[1], 1), two_d(a[2], 1, &a[1]), two_d(a[3], 0)};
  if (dilation) r.push_back(two_d(a[4], 1));
  for (size_t i = dilation ? 5 : 4; i < a.size(); ++i) r.push_back(a[i]);
  return r;
}
/// max_pool1d's meta: ATen's check_max_pool1d, then, a FakeTensor being a tensor subclass, its
/// max_pool1d_with_indices path: max_pool2d_with_indices over self.unsqueeze(-2) (that layout),
/// squeezed. (Eager CPU tensors take max_pool1d_impl, which allocates a contiguous result.)
void meta_max_pool1d(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const std::string l = label(a);
  FE_CHECK(x.dim() == 2 || x.dim() == 3, ShapeError, l,
           ": max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:",
           shape_str(x.sizes));
  const auto& k = a.int_list(1);
  const auto& st = a.int_list(2);
  const auto& p = a.int_list(3);
  const auto& d = a.int_list(4);
  FE_CHECK(k.size() == 1, ValueError, l, ": max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but got size ", k.size());
  FE_CHECK(st.size() <= 1, ValueError, l, ": max_pool1d() stride must be None, an int, list of ints, or tuple of ints of size 1 but got size ", st.size());
  FE_CHECK(p.size() == 1, ValueError, l, ": max_pool1d() padding must be an int, list of ints, or tuple of ints of size 1 but got size ", p.size());
  FE_CHECK(d.size() == 1, ValueError, l, ": max_pool1d() dilation must be an int, list of ints or tuple of ints of size 1 but got size ", d.size());
  const int64_t kk = k[0].expect_int(), ss = st.empty() ? kk : st[0].expect_int(), pp = p[0].expect_int(), dd = d[0].expect_int();
  FE_CHECK(kk > 0, ValueError, l, ": max_pool1d() kernel_size must be greater than zero, but got ", kk);
  FE_CHECK(ss > 0, ValueError, l, ": max_pool1d() stride must be greater than zero, but got ", ss);
  FE_CHECK(pp >= 0, ValueError, l, ": max_pool1d() padding must be non-negative, but got ", pp);
  FE_CHECK(pp <= kk / 2, ValueError, l, ": max_pool1d() padding should be at most half of kernel size, but got padding=", pp,
           " and kernel_size=", kk);
  FE_CHECK(dd > 0, ValueError, l, ": max_pool1d() dilation must be greater than zero, but got ", dd);
  const SymInt len = pooling_output_shape(a, x.sizes[x.dim() - 1], kk, pp, ss, dd, a.to_bool(5));
  FE_CHECK(len.hint() >= 1, ValueError, l, ": max_pool1d() Invalid computed output size: ", len);
  const TensorMeta u = meta_call(*op_unsqueeze, {&x, SymInt(-2)});
  const std::vector<MetaValue> mv = pool2d_args<MetaValue>(a.values(), &u, true);
  MetaOut p2;
  run_meta(*op_max_pool2d_with_indices, mv, p2);
  out.push(meta_call(*op_squeeze_dims, {&p2.outs.at(0), std::vector<SymInt>{SymInt(-2)}}));
}

/// avg_pool1d's meta: ATen's, avg_pool2d over self.unsqueeze(-2), squeezed; avg_pool2d's errors
/// are avg_pool1d's.
void meta_avg_pool1d(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const std::string l = label(a);
  FE_CHECK(x.dim() == 2 || x.dim() == 3, ShapeError, l, ": Expected 2 to 3 dimensions, but got ", x.dim(),
           "-dimensional tensor for argument #1 'self' (while checking arguments for avg_pool1d)");
  const TensorMeta u = meta_call(*op_unsqueeze, {&x, SymInt(-2)});
  std::vector<MetaValue> mv = pool2d_args<MetaValue>(a.values(), &u, false);
  mv.push_back(None{});  // divisor_override
  MetaOut p;
  run_meta_as(l, *op_avg_pool2d, mv, p);
  out.push(meta_call(*op_squeeze_dims, {&p.outs.at(0), std::vector<SymInt>{SymInt(-2)}}));
}
template <bool kMax>
std::vector<Tensor> decomp_pool1d(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor u = fe::unsqueeze(decomp_tensor(a, 0), -2, loc);
  const std::vector<IValue> args = pool2d_args<IValue>(a, u, kMax);
  const IValue dims = std::vector<SymInt>{SymInt(-2)};
  if (!kMax) return {dispatch1(*op_squeeze_dims, {dispatch1(*op_avg_pool2d, args, loc), dims}, loc)};
  const std::vector<Tensor> r = dispatch(*op_max_pool2d_with_indices, args, loc);
  const Tensor values = dispatch1(*op_squeeze_dims, {r.at(0), dims}, loc);
  (void)dispatch1(*op_squeeze_dims, {r.at(1), dims}, loc);  // the indices', dead
  return {values};
}
template <bool kMax>
void cpu_pool1d(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor u = fe::unsqueeze(std::get<Tensor>(a[0]), -2);
  const std::vector<IValue> args = pool2d_args<IValue>(a, u, kMax);
  const SrcLocArg loc = SrcLocArg::current();
  const Tensor p = kMax ? dispatch(*op_max_pool2d_with_indices, args, loc).at(0) : dispatch1(*op_avg_pool2d, args, loc);
  fe::copy_(o[0], fe::squeeze(p, -2));
}

}  // namespace

void register_conv_pool_ops(Registry& r) {
  op_max_pool2d = r.add({.schema = "aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, "
         "bool ceil_mode=False) -> Tensor",
         .meta = meta_max_pool2d<false>, .cpu = cpu_max_pool2d, .decomp = decomp_max_pool2d});
  op_max_pool2d_with_indices = r.add({"aten::max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
         "int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
         meta_max_pool2d<true>, cpu_max_pool2d});
  op_avg_pool2d = r.add({"aten::avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, "
         "bool count_include_pad=True, int? divisor_override=None) -> Tensor",
         meta_avg_pool2d, cpu_avg_pool2d});
  op_adaptive_avg_pool2d = r.add({.schema = "aten::adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor",
                                  .meta = meta_adaptive_avg_pool2d, .cpu = cpu_adaptive_avg_pool2d,
                                  .decomp = decomp_adaptive_avg_pool2d});
  r.add({.schema = "aten::max_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], int[1] dilation=[1], "
                   "bool ceil_mode=False) -> Tensor",
         .meta = meta_max_pool1d, .cpu = cpu_pool1d<true>, .decomp = decomp_pool1d<true>});
  r.add({.schema = "aten::avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], bool ceil_mode=False, "
                   "bool count_include_pad=True) -> Tensor",
         .meta = meta_avg_pool1d, .cpu = cpu_pool1d<false>, .decomp = decomp_pool1d<false>});
  r.add({"aten::_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor", meta__adaptive_avg_pool2d,
         cpu_adaptive_avg_pool2d});
}

}  // namespace ops

namespace {
IValue int_list(const Sizes& s) { return std::vector<SymInt>(s.begin(), s.end()); }
}  // namespace

Tensor max_pool2d(const Tensor& input, const Sizes& kernel_size, const Sizes& stride, const Sizes& padding,
                  const Sizes& dilation, bool ceil_mode, SrcLocArg loc) {
  return dispatch1(*op_max_pool2d, {input, int_list(kernel_size), int_list(stride), int_list(padding), int_list(dilation), ceil_mode},
                   loc);
}
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const Sizes& kernel_size, const Sizes& stride,
                                                   const Sizes& padding, const Sizes& dilation, bool ceil_mode,
                                                   SrcLocArg loc) {
  auto r = dispatch(*op_max_pool2d_with_indices, {input, int_list(kernel_size), int_list(stride), int_list(padding), int_list(dilation), ceil_mode},
                    loc);
  return {std::move(r[0]), std::move(r[1])};
}
Tensor avg_pool2d(const Tensor& input, const Sizes& kernel_size, const Sizes& stride, const Sizes& padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override, SrcLocArg loc) {
  return dispatch1(*op_avg_pool2d, {input, int_list(kernel_size), int_list(stride), int_list(padding), ceil_mode, count_include_pad,
                       divisor_override ? IValue(SymInt(*divisor_override)) : IValue(None{})},
                   loc);
}
Tensor adaptive_avg_pool2d(const Tensor& input, const Sizes& output_size, SrcLocArg loc) {
  return dispatch1(*op_adaptive_avg_pool2d, {input, int_list(output_size)}, loc);
}

}  // namespace fe
