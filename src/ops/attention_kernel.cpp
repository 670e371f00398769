// The reference attention kernel (declared in attention_kernel.h): a naive softmax(q k^T * scale +
// mask) v over broadcast batch dims, exact in double, or with the fused CPU flash kernel's block-wise
// float arithmetic (exp_u20, kv blocks of 512) where sdpa takes that kernel on cpu.
#include "ops/attention_kernel.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "ops/cpu_util.h"
#include "ops/elementwise.h"

namespace fe::ops {
namespace {

/// Strides of tensor t right-aligned against a full shape of `rank` dims (0 where broadcast or absent).
std::vector<int64_t> aligned_strides(const TensorMeta& t, size_t rank) {
  std::vector<int64_t> st(rank, 0);
  const size_t lead = rank - static_cast<size_t>(t.dim());
  for (size_t d = 0; d < static_cast<size_t>(t.dim()); ++d)
    if (t.sizes[d].expect_int() != 1) st[lead + d] = t.strides[d].expect_int();
  return st;
}

double load(const Tensor& t, int64_t off) {
  return detail::load(static_cast<const std::byte*>(t.data_ptr()) + off * itemsize(t.dtype()), t.dtype());
}

/// The fused CPU kernel's key block (kv_split_size 512 for every query length).
constexpr int64_t kFlashKvBlock = 512;
/// Lanes of a float vector where PyTorch's reference environment runs (AVX512).
constexpr int64_t kFlashLanes = 16;

/// Vectorized<float>::exp_u20 (AVX512 and AVX2 alike): exp(x) = 2^n * p(r), n = floor(x log2 e + 1/2),
/// r = x - n ln 2, p the degree-5 polynomial with the kernel's coefficients, every step a float fma.
float exp_u20(float x) {
  const float lo = std::bit_cast<float>(0xc2aeac50u), hi = std::bit_cast<float>(0x42b17218u);
  const float log2e = std::bit_cast<float>(0x3fb8aa3bu), ln2 = std::bit_cast<float>(0x3f317218u);
  const bool underflow = x < lo;
  const float c = std::max(std::min(x, hi), lo);
  const float fx = std::floor(std::fma(c, log2e, 0.5f));
  const float r = std::fma(-fx, ln2, c);
  float y = std::fma(r, 0.00828929059f, 0.0418978221f);
  y = std::fma(r, y, 0.166676521f);
  y = std::fma(r, y, 0.499991506f);
  y = std::fma(r, y, 0.999999701f);
  y = std::fma(r, y, 1.0f);
  const float two_n1 = underflow ? 0.0f : std::bit_cast<float>(static_cast<uint32_t>(static_cast<int32_t>(fx - 1) + 127) << 23);
  return y * two_n1 * 2.0f;
}

/// _exp_reduce_sum_fusion_kernel: exp(x - max) of one block, exp_u20 on whole vectors and std::exp
/// on the tail; each value stored rounded to `t` (the input dtype), the sum kept in float: lanes
/// summed across vectors, then halved pairwise (lane i with i ^ 8, ^ 4, ^ 2, ^ 1), then the tail.
float flash_exp_sum(const float* x, int64_t n, float max, double* out, DType t) {
  float lanes[kFlashLanes] = {};
  const int64_t whole = n / kFlashLanes * kFlashLanes;
  for (int64_t i = 0; i < whole; ++i) {
    const float e = exp_u20(x[i] - max);
    lanes[i % kFlashLanes] += e;
    out[i] = ew::round_to(t, e);
  }
  for (int64_t half = kFlashLanes / 2; half >= 1; half /= 2) {
    float next[kFlashLanes];
    for (int64_t i = 0; i < kFlashLanes; ++i) next[i] = lanes[i] + lanes[i ^ half];
    std::copy(next, next + kFlashLanes, lanes);
  }
  float sum = lanes[0];
  for (int64_t i = whole; i < n; ++i) {
    const float e = std::exp(x[i] - max);
    sum += e;
    out[i] = ew::round_to(t, e);
  }
  return sum;
}

}  // namespace

void sdpa_reference(const SdpaCall& c, Tensor& out, Tensor* lse) {
  const Tensor &q = c.q, &k = c.k, &v = c.v;
  const Tensor* mask = c.mask;
  const bool causal = c.causal;
  const TensorMeta& om = out.meta();
  const size_t rank = static_cast<size_t>(om.dim()), nb = rank - 2;
  const int64_t L = q.size(-2).expect_int(), S = k.size(-2).expect_int(), E = q.size(-1).expect_int(), Ev = v.size(-1).expect_int();
  const double scale = c.scale ? *c.scale : 1.0 / std::sqrt(static_cast<double>(E));
  auto qs = aligned_strides(q.meta(), rank), ks = aligned_strides(k.meta(), rank), vs = aligned_strides(v.meta(), rank);
  std::vector<int64_t> ms = mask ? aligned_strides(mask->meta(), rank) : std::vector<int64_t>(rank, 0);
  // GQA: key/value head h serves query heads [h * rep, (h + 1) * rep).
  int64_t krep = 1, vrep = 1;
  if (c.gqa && nb >= 1) {
    krep = om.sizes[nb - 1].expect_int() / std::max<int64_t>(k.size(-3).expect_int(), 1);
    vrep = om.sizes[nb - 1].expect_int() / std::max<int64_t>(v.size(-3).expect_int(), 1);
    if (k.size(-3) == 1) krep = 1;  // already broadcast by stride 0
    if (v.size(-3) == 1) vrep = 1;
    if (krep > 1) ks[nb - 1] = k.meta().strides[k.dim() - 3].expect_int();
    if (vrep > 1) vs[nb - 1] = v.meta().strides[v.dim() - 3].expect_int();
  }
  const int64_t batches = om.numel().expect_int() / std::max<int64_t>(L * Ev, 1);
  if (om.numel().expect_int() == 0) return;
  std::vector<int64_t> idx(nb, 0);
  std::vector<double> p(static_cast<size_t>(S));
  auto* ob = static_cast<std::byte*>(out.data_ptr());
  // The fused CPU kernel on bfloat16/float16 (cpu_flash_attention) works in float: scores
  // q.k * scale (+ mask), exp(score - max) summed in float, but each exp rounded to the input's
  // dtype before the product with v; the output is that product times 1 / sum, rounded once.
  // Measured: exact arithmetic differs from PyTorch's bfloat16 output in a fifth of the elements.
  const bool reduced = c.flash && (q.dtype() == DType::BFloat16 || q.dtype() == DType::Float16);
  const float fscale = static_cast<float>(scale);
  std::vector<float> fs(reduced ? static_cast<size_t>(S) : 0), dst(reduced ? static_cast<size_t>(Ev) : 0);
  for (int64_t b = 0; b < batches; ++b) {
    int64_t qo = 0, ko = 0, vo = 0, mo = 0, oo = 0, lo = 0;
    for (size_t d = 0; d < nb; ++d) {
      qo += idx[d] * qs[d];
      ko += (d == nb - 1 ? idx[d] / krep : idx[d]) * ks[d];
      vo += (d == nb - 1 ? idx[d] / vrep : idx[d]) * vs[d];
      mo += idx[d] * ms[d];
      oo += idx[d] * om.strides[d].expect_int();
      if (lse) lo += idx[d] * lse->meta().strides[d].expect_int();
    }
    const auto dot = [&](int64_t l, int64_t s) {  // q[l] . k[s]
      double acc = 0;
      for (int64_t e = 0; e < E; ++e)
        acc += load(q, qo + l * qs[nb] + e * qs[nb + 1]) * load(k, ko + s * ks[nb] + e * ks[nb + 1]);
      return acc;
    };
    const auto mask_at = [&](int64_t l, int64_t s) { return load(*mask, mo + l * ms[nb] + s * ms[nb + 1]); };
    const auto store_lse = [&](int64_t l, double value) {
      const TensorMeta& lm = lse->meta();
      detail::store(static_cast<std::byte*>(lse->data_ptr()) + (lo + l * lm.strides[nb].expect_int()) * itemsize(lm.dtype),
                    lm.dtype, value);
    };
    for (int64_t l = 0; l < L; ++l) {
      if (reduced) {  // the fused kernel: float scores, online softmax, each exp rounded
        const float inf = std::numeric_limits<float>::infinity();
        for (int64_t s = 0; s < S; ++s) {
          float t = causal && s > l ? -inf : static_cast<float>(dot(l, s));
          t = t * fscale;
          if (mask) {
            const double mv = mask_at(l, s);
            t = t + (mask->dtype() == DType::Bool ? (mv != 0 ? 0.0f : -inf) : static_cast<float>(mv));
          }
          fs[static_cast<size_t>(s)] = t;
        }
        // Online softmax over blocks of kFlashKvBlock keys, as the kernel walks them.
        float row_max = -inf, row_sum = 0;
        std::fill(dst.begin(), dst.end(), 0.0f);
        for (int64_t n = 0; n < S; n += kFlashKvBlock) {
          const int64_t len = std::min<int64_t>(kFlashKvBlock, S - n);
          const float* blk = fs.data() + n;
          float m = row_max;
          for (int64_t j = 0; j < len; ++j) m = std::max(m, blk[j]);
          if (m == -inf) {
            for (int64_t j = 0; j < len; ++j) p[static_cast<size_t>(n + j)] = 0;
          } else {
            const float block_sum = flash_exp_sum(blk, len, m, p.data() + n, q.dtype());
            const float rescale = std::exp(row_max - m);
            row_sum = block_sum + rescale * row_sum;
            row_max = m;
            if (n > 0)
              for (float& d : dst) d = d * rescale;
          }
          for (int64_t e = 0; e < Ev; ++e) {
            double acc = 0;
            for (int64_t j = 0; j < len; ++j)
              acc += p[static_cast<size_t>(n + j)] * load(v, vo + (n + j) * vs[nb] + e * vs[nb + 1]);
            dst[static_cast<size_t>(e)] = static_cast<float>(acc) + dst[static_cast<size_t>(e)];
          }
        }
        if (lse) store_lse(l, (row_max == -inf ? 0.0f : row_max) + std::log(row_sum == 0 ? 1.0f : row_sum));
        const float recip = 1 / (row_sum == 0 ? 1.0f : row_sum);
        for (int64_t e = 0; e < Ev; ++e) {
          const int64_t off = oo + l * om.strides[nb].expect_int() + e * om.strides[nb + 1].expect_int();
          detail::store(ob + off * itemsize(om.dtype), om.dtype, dst[static_cast<size_t>(e)] * recip);
        }
        continue;
      }
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t s = 0; s < S; ++s) {
        double acc = dot(l, s) * scale;
        if (causal && s > l) acc = -std::numeric_limits<double>::infinity();
        if (mask) {
          const double mv = mask_at(l, s);
          if (mask->dtype() == DType::Bool) acc = mv != 0 ? acc : -std::numeric_limits<double>::infinity();
          else acc += mv;
        }
        p[s] = acc;
        mx = std::max(mx, acc);
      }
      // _safe_softmax: a fully masked row gives zeros, not NaN.
      double sum = 0;
      for (int64_t s = 0; s < S; ++s) {
        p[s] = std::isinf(mx) && mx < 0 ? 0.0 : std::exp(p[s] - mx);
        sum += p[s];
      }
      if (lse) store_lse(l, sum > 0 ? mx + std::log(sum) : -std::numeric_limits<double>::infinity());
      for (int64_t e = 0; e < Ev; ++e) {
        double acc = 0;
        for (int64_t s = 0; s < S; ++s) acc += (sum > 0 ? p[s] / sum : 0.0) * load(v, vo + s * vs[nb] + e * vs[nb + 1]);
        const int64_t off = oo + l * om.strides[nb].expect_int() + e * om.strides[nb + 1].expect_int();
        detail::store(ob + off * itemsize(om.dtype), om.dtype, acc);
      }
    }
    for (size_t d = nb; d-- > 0;) {
      if (++idx[d] < om.sizes[d].expect_int()) break;
      idx[d] = 0;
    }
  }
}

}  // namespace fe::ops
