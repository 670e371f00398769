// Convolution and pooling: convolution, conv1d/conv2d (int and string padding); pooling ops live in
// conv_pool.cpp. In FakeTensorMode every conv reaches aten::convolution, whose fake impl checks
// dtypes, runs the backend selection (check_shape_forward) and the meta shape formula, then picks
// the output memory format the cpu backend would (channels-last when input or weight is NHWC).
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/conv_util.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"

namespace fe {
namespace {
OpHandle op_conv1d;
OpHandle op_conv1d_padding;
OpHandle op_conv2d;
OpHandle op_conv2d_padding;
OpHandle op_convolution;
}  // namespace
}  // namespace fe

namespace fe {
namespace ops {

// A layout decision (suggest_memory_format): symbolic sizes/strides are compared on their hints,
// without guards.
bool strides_like_channels_last(const TensorMeta& t) {
  static constexpr int kOrder4[] = {1, 3, 2, 0};
  static constexpr int kOrder5[] = {1, 4, 3, 2, 0};
  std::span<const int> order;
  if (t.dim() == 4) order = kOrder4;
  else if (t.dim() == 5) order = kOrder5;
  else return false;
  if (t.strides[1].hint() == 0) return false;
  int64_t min = 0;
  for (int d : order) {
    const int64_t size = t.sizes[d].hint(), stride = t.strides[d].hint();
    if (size == 0 || stride < min) return false;
    if (d == 0 && min == t.strides[1].hint()) return false;  // N111: ambiguous, NCHW wins
    min = stride * size;
  }
  return true;
}

/// max(s, 1) as make_contiguous_strides_for computes it: a symbolic size provably >= 1 is itself.
static SymInt max1(const SymInt& s) {
  if (!s.is_symbolic()) return std::max<int64_t>(s.hint(), 1);
  return statically_known_true(sym_ge(s, 1)) ? s : sym_max(s, 1);
}

DimVector channels_last_nd_strides(IntSpan sizes) {
  const size_t n = sizes.size();
  DimVector st(n, SymInt(0));
  st[1] = 1;
  SymInt acc = max1(sizes[1]);
  for (size_t d = n - 1; d >= 2; --d) {
    st[d] = acc;
    acc = acc * max1(sizes[d]);
  }
  st[0] = acc;
  return st;
}

StridedView view_of(const Tensor& t) {
  StridedView v;
  v.base = static_cast<const std::byte*>(t.data_ptr());
  v.dtype = t.dtype();
  for (int64_t d = 0; d < t.dim(); ++d) {
    v.sizes.push_back(t.meta().sizes[d].expect_int());
    v.strides.push_back(t.meta().strides[d].expect_int());
  }
  return v;
}

StridedView with_rank(StridedView v, size_t rank) {
  while (v.sizes.size() < rank) {
    v.sizes.insert(v.sizes.begin(), 1);
    v.strides.insert(v.strides.begin(), 0);
  }
  return v;
}

namespace {


/// expand_param_if_needed: a 1-list broadcasts to every spatial dim, other lengths must match.
std::vector<int64_t> expand_param(const MetaArgs& a, IntSpan v, const char* name, int64_t dim) {
  if (v.size() == 1) return std::vector<int64_t>(static_cast<size_t>(std::max<int64_t>(dim, 0)), v[0].expect_int());
  FE_CHECK(static_cast<int64_t>(v.size()) == dim, ValueError, label(a), ": expected ", name,
           " to be a single integer value or a list of ", dim,
           " values to match the convolution dimensions, but got ", name, "=", shape_str(v));
  std::vector<int64_t> out;
  for (const SymInt& x : v) out.push_back(x.expect_int());
  return out;
}

std::string dims_str(const std::vector<SymInt>& v, const char* sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i].str();
  return s;
}

/// Unsqueeze(0) / squeeze(0) of metadata, for the unbatched forms of conv1d / conv2d.
TensorMeta unsqueeze0(const TensorMeta& m) {
  TensorMeta r = m;
  r.sizes.insert_at(0, SymInt(1));
  r.strides.insert_at(0, m.dim() ? m.sizes[0] * m.strides[0] : SymInt(1));
  return r;
}
TensorMeta squeeze0(TensorMeta m) {
  m.sizes.erase_at(0);
  m.strides.erase_at(0);
  return m;
}

// The whole of aten::convolution under FakeTensorMode on cpu.
TensorMeta conv_meta(const MetaArgs& a, const TensorMeta& x, const TensorMeta& w, const TensorMeta* bias,
                     IntSpan stride_, IntSpan padding_, IntSpan dilation_, bool transposed, IntSpan opad_,
                     int64_t groups) {
  FE_CHECK(x.dtype == w.dtype, DTypeError, label(a), ": Input type (torch.", dtype_name(x.dtype),
           ") and weight type (torch.", dtype_name(w.dtype), ") should be the same");
  const int64_t k = w.dim();
  const int64_t dim = k - 2;
  const bool batched = x.dim() != k - 1;
  bool channels_last = false;
  if (batched) {
    // select_conv_backend: parameter expansion, then check_shape_forward.
    auto stride = expand_param(a, stride_, "stride", dim);
    auto padding = expand_param(a, padding_, "padding", dim);
    auto dilation = expand_param(a, dilation_, "dilation", dim);
    auto opad = expand_param(a, opad_, "output_padding", dim);
    FE_CHECK(groups > 0, ValueError, label(a), ": expected groups to be greater than 0, but got groups=", groups);
    for (int64_t p : padding) FE_CHECK(p >= 0, ValueError, label(a), ": negative padding is not supported");
    for (int64_t p : opad) FE_CHECK(p >= 0, ValueError, label(a), ": negative output_padding is not supported");
    for (int64_t s : stride) FE_CHECK(s > 0, ValueError, label(a), ": non-positive stride is not supported");
    for (int64_t d : dilation) FE_CHECK(d >= 0, ValueError, label(a), ": dilation should be greater than zero");
    FE_CHECK(w.dim() == x.dim(), ShapeError, label(a), ": Expected ", k, "-dimensional input for ", k,
             "-dimensional weight ", shape_str(w.sizes), ", but got ", x.dim(), "-dimensional input of size ",
             shape_str(x.sizes), " instead");
    // Weight dims are parameters (static); input channels may be symbolic: `c == w1 * groups` guards.
    const int64_t w0 = w.sizes[0].expect_int(), w1 = w.sizes[1].expect_int();
    const SymInt c = x.sizes[1];
    FE_CHECK(w0 >= groups, ShapeError, label(a), ": Given groups=", groups, ", expected weight to be at least ", groups,
             " at dimension 0, but got weight of size ", shape_str(w.sizes), " instead");
    FE_CHECK(w0 % groups == 0, ShapeError, label(a), ": Given groups=", groups,
             ", expected weight to be divisible by ", groups, " at dimension 0, but got weight of size [",
             shape_str(w.sizes), "] instead");
    if (!transposed) {
      FE_CHECK(c == w1 * groups, ShapeError, label(a), ": Given groups=", groups, ", weight of size ",
               shape_str(w.sizes), ", expected input", shape_str(x.sizes), " to have ", w1 * groups,
               " channels, but got ", c, " channels instead");
      FE_CHECK(!bias || (bias->dim() == 1 && bias->sizes[0] == w0), ShapeError, label(a), ": Given weight of size ",
               shape_str(w.sizes), ", expected bias to be 1-dimensional with ", w0, " elements, but got bias of size ",
               shape_str(bias->sizes), " instead");
      std::vector<SymInt> in, ker;
      bool fits = true;
      for (int64_t i = 2; i < k; ++i) {
        in.push_back(x.sizes[i] + 2 * padding[i - 2]);
        ker.push_back(SymInt(dilation[i - 2]) * (w.sizes[i] - 1) + 1);
        fits = fits && in.back() >= ker.back();
      }
      FE_CHECK(fits, ShapeError, label(a), ": Calculated padded input size per channel: (", dims_str(in, " x "),
               "). Kernel size: (", dims_str(ker, " x "), "). Kernel size can't be greater than actual input size");
    } else {
      FE_CHECK(c == w0, ShapeError, label(a), ": Given transposed=1, weight of size ", shape_str(w.sizes),
               ", expected input", shape_str(x.sizes), " to have ", w0, " channels, but got ", c, " channels instead");
      FE_CHECK(!bias || (bias->dim() == 1 && bias->sizes[0] == w1 * groups), ShapeError, label(a),
               ": Given transposed=1, weight of size ", shape_str(w.sizes), ", expected bias to be 1-dimensional with ",
               w1 * groups, " elements, but got bias of size ", shape_str(bias->sizes), " instead");
    }
    // Zero batch or channels: the "Empty" backend, contiguous output.
    const bool empty = x.sizes[0] == 0 || x.sizes[1] == 0;
    FE_CHECK(empty || x.numel() != 0, ShapeError, label(a),
             ": Only zero batch or zero channel inputs are supported, but got input shape: ", shape_str(x.sizes));
    // 1-d convs run as 2-d on input.contiguous().unsqueeze(2) and weight.unsqueeze(2).
    if (!empty) {
      if (k == 3) {
        TensorMeta w4 = w;
        w4.sizes.insert_at(2, SymInt(1));
        w4.strides.insert_at(2, w.sizes[2] * w.strides[2]);
        channels_last = strides_like_channels_last(w4);
      } else if (k == 4) {
        channels_last = strides_like_channels_last(x) || strides_like_channels_last(w);
      } else if (k == 5) {
        // Only the mkldnn backend (not slow_conv3d, used for float64) keeps NDHWC.
        channels_last = x.dtype != DType::Float64 && (strides_like_channels_last(x) || strides_like_channels_last(w));
      }
    }
  }
  // meta_conv / calc_conv_nd_return_shape
  if (!transposed)
    FE_CHECK(x.dim() >= 2 && w.sizes[1] * groups == x.sizes[1], ShapeError, label(a),
             ": Invalid channel dimensions");
  const int64_t nd = x.dim() - 2;
  FE_CHECK(nd == dim, ShapeError, label(a), ": Invalid channel dimensions");
  auto pick = [&](IntSpan v, int64_t i) { return (v.size() == 1 ? v[0] : v[i]).expect_int(); };
  DimVector shape{x.sizes[0], transposed ? w.sizes[1] * groups : w.sizes[0]};
  std::vector<SymInt> in_sp, out_sp;
  bool any_positive = nd == 0;
  for (int64_t i = 0; i < nd; ++i) {
    const SymInt ln = x.sizes[2 + i], kk = w.sizes[2 + i];
    const int64_t s = pick(stride_, i), p = pick(padding_, i), d = pick(dilation_, i);
    // calc_conv_nd_return_shape; a symbolic numerator uses Python's // (it is >= 0 once the
    // kernel-size check passed, where // and C++'s / agree).
    const SymInt num = ln + 2 * p - SymInt(d) * (kk - 1) - 1;
    const SymInt o = transposed        ? (ln - 1) * s - 2 * p + SymInt(d) * (kk - 1) + pick(opad_, i) + 1
                     : num.is_symbolic() ? floordiv(num, s) + 1
                                         : SymInt(num.hint() / s + 1);
    in_sp.push_back(ln);
    out_sp.push_back(o);
    any_positive = any_positive || o > 0;
    shape.push_back(o);
  }
  FE_CHECK(any_positive, ShapeError, label(a), ": Given input size per channel: [", dims_str(in_sp, ", "),
           "]. Calculated output size per channel: [", dims_str(out_sp, ", "), "]. Output size is too small");
  for (const SymInt& o : out_sp)
    FE_CHECK(o >= 0, ShapeError, label(a), ": Trying to create tensor with negative dimension ", o, ": ",
             shape_str(shape));
  if (x.sizes[1] == 0) shape[1] = 0;
  TensorMeta out = make_contiguous(shape, x.dtype, x.device);
  if (channels_last) {
    if (out.dim() == 3) {  // unsqueeze(2).to(channels_last).squeeze(2)
      DimVector s4{shape[0], shape[1], SymInt(1), shape[2]};
      DimVector st = channels_last_nd_strides(s4);
      out.strides = {st[0], st[1], st[3]};
    } else {
      out.strides = channels_last_nd_strides(shape);
    }
  }
  return out;
}

void meta_convolution(const MetaArgs& a, MetaOut& out) {
  out.push(conv_meta(a, a.tensor(0), a.tensor(1), a.opt_tensor(2), a.int_list(3), a.int_list(4), a.int_list(5),
                     a.to_bool(6), a.int_list(7), a.to_int(8)));
}

/// batchify(): conv{N}d accepts (C, spatial...) or (N, C, spatial...).
bool batchify(const MetaArgs& a, const TensorMeta& x, int64_t spatial, const char* fn) {
  const bool batched = x.dim() == spatial + 2;
  FE_CHECK(batched || x.dim() == spatial + 1, ShapeError, label(a), ": Expected ", spatial + 1, "D (unbatched) or ",
           spatial + 2, "D (batched) input to ", fn, ", but got input of size: ", shape_str(x.sizes));
  return batched;
}

template <int kSpatial>
void meta_conv_nd(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x = a.tensor(0);
  const TensorMeta* bias = a.opt_tensor(2);
  FE_CHECK(!bias || bias->dtype == x.dtype, DTypeError, label(a), ": Input type (", cpp_type_name(x.dtype),
           ") and bias type (", cpp_type_name(bias->dtype), ") should be the same");
  const bool batched = batchify(a, x, kSpatial, kSpatial == 1 ? "conv1d" : "conv2d");
  const DimVector zeros(kSpatial, SymInt(0));
  TensorMeta r = conv_meta(a, batched ? x : unsqueeze0(x), a.tensor(1), bias, a.int_list(3), a.int_list(4),
                           a.int_list(5), false, zeros, a.to_int(6));
  out.push(batched ? std::move(r) : squeeze0(std::move(r)));
}

/// padding='same': per-dim left padding, and the extra right padding applied with constant_pad_nd.
void same_padding(IntSpan weight_sizes, IntSpan dilation, int64_t spatial, std::vector<int64_t>& left,
                  std::vector<int64_t>& extra_right) {
  for (int64_t i = 0; i < spatial; ++i) {
    const int64_t d = (dilation.size() == 1 ? dilation[0] : dilation[i]).expect_int();
    const int64_t total = d * (weight_sizes[i + 2].expect_int() - 1);
    left.push_back(total / 2);
    extra_right.push_back(total - 2 * (total / 2));
  }
}

template <int kSpatial>
void meta_conv_nd_padding(const MetaArgs& a, MetaOut& out) {
  const TensorMeta& x0 = a.tensor(0);
  const TensorMeta& w = a.tensor(1);
  const bool batched = batchify(a, x0, kSpatial, kSpatial == 1 ? "conv1d" : "conv2d");
  TensorMeta x = batched ? x0 : unsqueeze0(x0);
  const std::string& mode = a.str(4);
  IntSpan stride = a.int_list(3), dilation = a.int_list(5);
  std::vector<int64_t> left(kSpatial, 0), extra;
  if (mode == "same") {
    for (const SymInt& s : stride)
      FE_CHECK(s == 1, ValueError, label(a), ": padding='same' is not supported for strided convolutions");
    left.clear();
    same_padding(w.sizes, dilation, std::min<int64_t>(kSpatial, w.dim() - 2), left, extra);
    bool padded = false;
    const bool cl = strides_like_channels_last(x);
    for (size_t i = 0; i < extra.size(); ++i) {
      if (extra[i] == 0) continue;
      padded = true;
      x.sizes[x.dim() - static_cast<int64_t>(extra.size()) + static_cast<int64_t>(i)] =
          x.sizes[x.dim() - static_cast<int64_t>(extra.size()) + static_cast<int64_t>(i)] + extra[i];
    }
    if (padded) {  // constant_pad_nd keeps the suggested memory format
      x.strides = cl ? channels_last_nd_strides(x.sizes) : contiguous_strides(x.sizes);
      x.storage_offset = 0;
    }
  } else {
    FE_CHECK(mode == "valid", ValueError, label(a), ": Invalid padding string: '", mode, "'");
  }
  DimVector pad(left.begin(), left.end());
  const DimVector zeros(kSpatial, SymInt(0));
  TensorMeta r = conv_meta(a, x, w, a.opt_tensor(2), stride, pad, dilation, false, zeros, a.to_int(6));
  out.push(batched ? std::move(r) : squeeze0(std::move(r)));
}

// ---- reference kernel: direct (gather) convolution over a virtual N, C, D, H, W layout.
struct ConvParams {
  std::vector<int64_t> stride, padding, dilation;
  bool transposed = false;
  int64_t groups = 1;
};

/// View with 3 spatial dims: missing leading spatial dims get size 1.
StridedView to_ncdhw(StridedView v) {
  while (v.sizes.size() < 5) {
    v.sizes.insert(v.sizes.begin() + 2, 1);
    v.strides.insert(v.strides.begin() + 2, 0);
  }
  return v;
}
std::vector<int64_t> pad3(std::vector<int64_t> v, int64_t fill) {
  while (v.size() < 3) v.insert(v.begin(), fill);
  return v;
}

void conv_compute(const Tensor& xt, const Tensor& wt, const IValue& bias_arg, ConvParams p, const Tensor& ot) {
  const size_t k = static_cast<size_t>(wt.dim());
  StridedView x = to_ncdhw(with_rank(view_of(xt), k));
  StridedView w = to_ncdhw(view_of(wt));
  StridedView o = to_ncdhw(with_rank(view_of(ot), k));
  const Tensor* bias = std::holds_alternative<Tensor>(bias_arg) ? &std::get<Tensor>(bias_arg) : nullptr;
  auto expand = [&](std::vector<int64_t> v) {
    if (v.size() == 1) v.assign(k - 2, v[0]);
    return v;
  };
  const auto s = pad3(expand(p.stride), 1), pd = pad3(expand(p.padding), 0), dl = pad3(expand(p.dilation), 1);
  const int64_t g = p.groups, cin = x.sizes[1], cout = o.sizes[1];
  const int64_t cin_g = cin / g, cout_g = cout / g;
  std::vector<int64_t> oi(5, 0);
  const int64_t total = o.sizes[0] * o.sizes[1] * o.sizes[2] * o.sizes[3] * o.sizes[4];
  for (int64_t e = 0; e < total; ++e) {
    const int64_t n = oi[0], oc = oi[1], grp = oc / cout_g;
    double acc = bias ? detail::load(static_cast<const std::byte*>(bias->data_ptr()) +
                                         oc * bias->meta().strides[0].expect_int() * itemsize(bias->dtype()),
                                     bias->dtype())
                      : 0.0;
    for (int64_t ic = 0; ic < cin_g; ++ic) {
      const int64_t c = grp * cin_g + ic;
      for (int64_t kd = 0; kd < w.sizes[2]; ++kd)
        for (int64_t kh = 0; kh < w.sizes[3]; ++kh)
          for (int64_t kw = 0; kw < w.sizes[4]; ++kw) {
            const int64_t kk[3] = {kd, kh, kw};
            int64_t xoff = n * x.strides[0] + c * x.strides[1];
            bool inside = true;
            for (int d = 0; d < 3 && inside; ++d) {
              int64_t i;
              if (!p.transposed) {
                i = oi[2 + d] * s[d] - pd[d] + kk[d] * dl[d];
              } else {  // o = i * s - p + k * d  ->  i = (o + p - k * d) / s when exact
                const int64_t num = oi[2 + d] + pd[d] - kk[d] * dl[d];
                if (num < 0 || num % s[d] != 0) inside = false;
                i = num / s[d];
              }
              inside = inside && i >= 0 && i < x.sizes[2 + d];
              xoff += i * x.strides[2 + d];
            }
            if (!inside) continue;
            const int64_t woff = p.transposed ? c * w.strides[0] + (oc % cout_g) * w.strides[1]
                                              : oc * w.strides[0] + ic * w.strides[1];
            acc += x.at(xoff) * w.at(woff + kd * w.strides[2] + kh * w.strides[3] + kw * w.strides[4]);
          }
    }
    int64_t ooff = 0;
    for (int d = 0; d < 5; ++d) ooff += oi[d] * o.strides[d];
    store_elem(ot, ooff, acc);
    for (int d = 5; d-- > 0;) {
      if (++oi[d] < o.sizes[d]) break;
      oi[d] = 0;
    }
  }
}

std::vector<int64_t> ints_of(const IValue& v) {
  std::vector<int64_t> out;
  for (const SymInt& s : std::get<std::vector<SymInt>>(v)) out.push_back(s.expect_int());
  return out;
}

void cpu_convolution(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  ConvParams p{ints_of(a[3]), ints_of(a[4]), ints_of(a[5]), std::get<bool>(a[6]), std::get<SymInt>(a[8]).expect_int()};
  conv_compute(std::get<Tensor>(a[0]), std::get<Tensor>(a[1]), a[2], p, o[0]);
}

void cpu_conv_nd(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  ConvParams p{ints_of(a[3]), ints_of(a[4]), ints_of(a[5]), false, std::get<SymInt>(a[6]).expect_int()};
  conv_compute(std::get<Tensor>(a[0]), std::get<Tensor>(a[1]), a[2], p, o[0]);
}

void cpu_conv_nd_padding(const OpDef&, std::span<const IValue> a, std::span<Tensor> o) {
  const Tensor& w = std::get<Tensor>(a[1]);
  ConvParams p{ints_of(a[3]), {}, ints_of(a[5]), false, std::get<SymInt>(a[6]).expect_int()};
  const int64_t spatial = w.dim() - 2;
  if (std::get<std::string>(a[4]) == "same") {
    std::vector<int64_t> extra;  // right padding needs no input copy: out-of-range reads are zeros
    same_padding(w.sizes(), std::get<std::vector<SymInt>>(a[5]), spatial, p.padding, extra);
  } else {
    p.padding.assign(static_cast<size_t>(spatial), 0);
  }
  conv_compute(std::get<Tensor>(a[0]), w, a[2], p, o[0]);
}

/// conv1d/conv2d (CompositeImplicit): convolution(input, weight, bias, stride, padding, dilation,
/// False, [0] * N, groups), each list expanded to N entries; unbatched input is kept whole for now.
template <int N>
std::vector<Tensor> decomp_conv_nd(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  if (x.dim() != N + 2) return undecomposed(N == 1 ? *op_conv1d : *op_conv2d, a, loc);
  auto expanded = [&](size_t i) {
    std::vector<SymInt> v = std::get<std::vector<SymInt>>(a[i]);
    if (v.size() == 1) v.assign(N, v[0]);
    return v;
  };
  return {dispatch1(*op_convolution,
                    {a[0], a[1], a[2], expanded(3), expanded(4), expanded(5), false,
                     std::vector<SymInt>(N, SymInt(0)), a[6]},
                    loc)};
}

/// conv1d.padding / conv2d.padding with padding="valid" (ATen's _convolution_mode): convolution with
/// padding [0] and output_padding [0]; "same" is kept whole for now.
template <int N>
std::vector<Tensor> decomp_conv_nd_padding(std::span<const IValue> a, const SrcLocArg& loc) {
  const Tensor& x = decomp_tensor(a, 0);
  if (std::get<std::string>(a[4]) != "valid" || x.dim() != N + 2)
    return undecomposed(N == 1 ? *op_conv1d_padding : *op_conv2d_padding, a, loc);
  return {dispatch1(*op_convolution,
                    {a[0], a[1], a[2], a[3], std::vector<SymInt>{SymInt(0)}, a[5], false,
                     std::vector<SymInt>{SymInt(0)}, a[6]},
                    loc)};
}

}  // namespace

void register_conv_ops(Registry& r) {
  op_convolution = r.add({"aten::convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, "
         "SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor",
         meta_convolution, cpu_convolution});
  op_conv1d = r.add({.schema = "aten::conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=[1], SymInt[1] padding=[0], "
         "SymInt[1] dilation=[1], SymInt groups=1) -> Tensor",
         .meta = meta_conv_nd<1>, .cpu = cpu_conv_nd, .decomp = decomp_conv_nd<1>});
  op_conv2d = r.add({.schema = "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], "
         "SymInt[2] padding=[0, 0], SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor",
         .meta = meta_conv_nd<2>, .cpu = cpu_conv_nd, .decomp = decomp_conv_nd<2>});
  op_conv1d_padding = r.add({.schema = "aten::conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=[1], "
         "str padding=\"valid\", SymInt[1] dilation=[1], SymInt groups=1) -> Tensor",
         .meta = meta_conv_nd_padding<1>, .cpu = cpu_conv_nd_padding, .decomp = decomp_conv_nd_padding<1>});
  op_conv2d_padding = r.add({.schema = "aten::conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], "
         "str padding=\"valid\", SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor",
         .meta = meta_conv_nd_padding<2>, .cpu = cpu_conv_nd_padding, .decomp = decomp_conv_nd_padding<2>});
  register_conv_pool_ops(r);
}

}  // namespace ops

namespace {
IValue opt_tensor_arg(const Tensor& t) { return t.defined() ? IValue(t) : IValue(None{}); }
IValue int_list(const Sizes& s) { return std::vector<SymInt>(s.begin(), s.end()); }
}  // namespace

namespace {
/// conv1d/conv2d: the `.padding` overload when padding is "same"/"valid", else the int-list one.
Tensor conv_nd(const OpDef& d, const OpDef& dp, const Tensor& input, const Tensor& weight, const Tensor& bias,
               const Sizes& stride, const ConvPadding& padding, const Sizes& dilation, int64_t groups,
               SrcLocArg loc) {
  return dispatch1(padding.mode ? dp : d,
                   {input, weight, opt_tensor_arg(bias), int_list(stride),
                    padding.mode ? IValue(*padding.mode) : int_list(padding.ints), int_list(dilation), SymInt(groups)},
                   loc);
}
}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Sizes& stride,
              const ConvPadding& padding, const Sizes& dilation, int64_t groups, SrcLocArg loc) {
  return conv_nd(*op_conv1d, *op_conv1d_padding, input, weight, bias, stride, padding, dilation, groups, loc);
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Sizes& stride,
              const ConvPadding& padding, const Sizes& dilation, int64_t groups, SrcLocArg loc) {
  return conv_nd(*op_conv2d, *op_conv2d_padding, input, weight, bias, stride, padding, dilation, groups, loc);
}
Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias, const Sizes& stride,
                   const Sizes& padding, const Sizes& dilation, bool transposed, const Sizes& output_padding,
                   int64_t groups, SrcLocArg loc) {
  return dispatch1(*op_convolution, {input, weight, opt_tensor_arg(bias), int_list(stride), int_list(padding), int_list(dilation),
                       transposed, int_list(output_padding), SymInt(groups)}, loc);
}

}  // namespace fe
