// The CUDA attention chooser (src/ops/sdp_choice.h) against PyTorch's own choice, call by call:
// tests/fixtures/cuda/sdpa_choice*.json hold torch._fused_sdp_choice over a grid of calls on a lent
// H200 (tools/device/capture_sdpa_cuda.py; PyTorch 2.11 CUDA 13, cuDNN 9.19): sdpa_choice.json with
// its default order (cuDNN first: our sm90), sdpa_choice_cudnn_last.json under
// TORCH_CUDNN_SDPA_DEPRIORITIZED=1 (flash, efficient, math: the order an sm80 GPU has; the
// flash/efficient gates read nothing that differs between sm80 and sm90).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "fakeexport/core/error.h"
#include "fakeexport/fakeexport.h"
#include "ops/sdp_choice.h"

using namespace fe;

namespace {

DType dtype_of(const std::string& s) {
  if (s == "f32") return DType::Float32;
  if (s == "bf16") return DType::BFloat16;
  if (s == "f16") return DType::Float16;
  throw ValueError("dtype " + s);
}

std::vector<int64_t> ints(const std::string& s) {
  std::vector<int64_t> out;
  std::stringstream ss(s);
  for (std::string x; std::getline(ss, x, ',');) out.push_back(std::stoll(x));
  return out;
}

/// q/k/v as the capture script builds them: bhsd contiguous, bshd (a (b, s, h, d) tensor
/// transposed), packed (slice `which` of a (b, s, 3, h, d) projection, transposed).
TensorMeta qkv_meta(int64_t b, int64_t h, int64_t s, int64_t d, const std::string& layout, int which, DType t,
                    bool grad) {
  TensorMeta m = make_contiguous(fe::DimVector{b, h, s, d}, t, Device::parse("cuda:0"), grad);
  if (layout == "bshd") {
    m.strides = {s * h * d, d, h * d, 1};
  } else if (layout == "packed") {
    m.strides = {s * 3 * h * d, d, 3 * h * d, 1};
    m.storage_offset = which * h * d;
  }
  return m;
}

/// Every row of one fixture: (mismatches, rows).
std::pair<size_t, size_t> compare(const std::string& file, CudaArch arch) {
  std::ifstream in(std::string(FE_FIXTURES_DIR) + "/cuda/" + file);
  EXPECT_TRUE(in) << file;
  const nlohmann::json rows = nlohmann::json::parse(in);
  size_t bad = 0;
  for (const auto& [key, want] : rows.items()) {
    std::vector<std::string> f;
    std::stringstream ss(key);
    for (std::string x; std::getline(ss, x, '|');) f.push_back(x);
    if (f.size() != 8u) { ADD_FAILURE() << key; continue; }
    const DType t = dtype_of(f[0]);
    const auto d = ints(f[1]), heads = ints(f[4]), seq = ints(f[5]);
    const std::string& layout = f[2];
    const std::string& mask = f[3];
    const bool grad = f[6] == "1";
    const int64_t b = 2;
    const TensorMeta q = qkv_meta(b, heads[0], seq[0], d[0], layout, 0, t, grad);
    const TensorMeta k = qkv_meta(b, heads[1], seq[1], d[0], layout, 1, t, grad);
    const TensorMeta v = qkv_meta(b, heads[1], seq[1], d[1], layout, 2, t, grad);
    std::optional<TensorMeta> m;
    const Device cuda = Device::parse("cuda:0");
    if (mask == "bool_b1ls") m = make_contiguous(fe::DimVector{b, 1, seq[0], seq[1]}, DType::Bool, cuda);
    if (mask == "bool_11ls") m = make_contiguous(fe::DimVector{1, 1, seq[0], seq[1]}, DType::Bool, cuda);
    if (mask == "bool_ls") m = make_contiguous(fe::DimVector{seq[0], seq[1]}, DType::Bool, cuda);
    if (mask == "float_b1ls") m = make_contiguous(fe::DimVector{b, 1, seq[0], seq[1]}, t, cuda);
    if (mask == "f32_b1ls") m = make_contiguous(fe::DimVector{b, 1, seq[0], seq[1]}, DType::Float32, cuda);
    const ops::SdpParams p{.q = q, .k = k, .v = v, .mask = m ? &*m : nullptr, .dropout = std::stod(f[7]),
                           .causal = mask == "causal", .gqa = heads[2] == 1};
    const int got = static_cast<int>(ops::choose_sdp_backend_cuda(p, arch));
    if (!want.is_number_integer() || got != want.get<int>()) {
      if (++bad <= 12) ADD_FAILURE() << file << ": " << key << ": PyTorch " << want.dump() << ", ours " << got;
    }
  }
  return {bad, rows.size()};
}

}  // namespace

TEST(SdpChoice, Sm90EqualsPyTorchOnEveryCall) {
  const auto [bad, rows] = compare("sdpa_choice.json", CudaArch::Sm90);
  EXPECT_GT(rows, 20000u);
  EXPECT_EQ(bad, 0u);
  std::printf("[ sdpa ] sm90: %zu of %zu calls choose as PyTorch\n", rows - bad, rows);
}

TEST(SdpChoice, Sm80EqualsPyTorchWithCudnnLast) {
  const auto [bad, rows] = compare("sdpa_choice_cudnn_last.json", CudaArch::Sm80);
  EXPECT_GT(rows, 20000u);
  EXPECT_EQ(bad, 0u);
  std::printf("[ sdpa ] sm80: %zu of %zu calls choose as PyTorch\n", rows - bad, rows);
}

TEST(SdpChoice, ArchNames) {
  EXPECT_EQ(parse_cuda_arch("sm80"), CudaArch::Sm80);
  EXPECT_EQ(cuda_arch_name(parse_cuda_arch("sm90")), "sm90");
  EXPECT_THROW(parse_cuda_arch("sm70"), ValueError);
}

// The output layout of scaled_dot_product_attention on cuda (the kernel's allocation, which decides
// which later .contiguous() calls are copies): an HF attention block's q/k/v (projections viewed
// (B, L, H, D) and transposed) for 69 cases exported by PyTorch on the H200, in both orders
// (tests/fixtures/cuda/sdpa_strides.json, summarized from the capture's sdpa_export*/ by
// `capture_sdpa_cuda.py --summarize`): cuDNN's empty_like(query), flash's padded head dim, the
// memory-efficient kernel's (B, L, H, D) buffer, math's contiguous result.
TEST(SdpaCudaLayout, EqualsPyTorchExportOnEveryCase) {
  std::ifstream in(std::string(FE_FIXTURES_DIR) + "/cuda/sdpa_strides.json");
  ASSERT_TRUE(in);
  const nlohmann::json cases = nlohmann::json::parse(in);
  FakeTensorMode fake;
  const Device cuda = Device::parse("cuda:0");
  size_t checked = 0;
  for (const auto& [name, want] : cases.items()) {
    // bf16_h4_kv2_d16_causal_gqa_l8_s8
    std::vector<std::string> f;
    std::stringstream ss(name);
    for (std::string x; std::getline(ss, x, '_');) f.push_back(x);
    const DType t = dtype_of(f[0]);
    const int64_t h = std::stoll(f[1].substr(1)), kv = std::stoll(f[2].substr(2)), d = std::stoll(f[3].substr(1));
    std::string mask = f[4];
    size_t i = 5;
    if (mask == "bool" || mask == "float") mask += "_" + f[i++];
    const bool gqa = f[i] == "gqa";
    if (gqa) ++i;
    const int64_t l = std::stoll(f[i].substr(1)), s = std::stoll(f[i + 1].substr(1));
    const Tensor q = transpose(empty({2, l, h, d}, {.dtype = t, .device = cuda}), 1, 2);
    const Tensor k = transpose(empty({2, s, kv, d}, {.dtype = t, .device = cuda}), 1, 2);
    const Tensor v = transpose(empty({2, s, kv, d}, {.dtype = t, .device = cuda}), 1, 2);
    Tensor m;
    if (mask == "bool_b1ls") m = empty({2, 1, l, s}, {.dtype = DType::Bool, .device = cuda});
    if (mask == "float_b1ls") m = empty({2, 1, l, s}, {.dtype = t, .device = cuda});
    for (const auto& [arch_name, sizes_strides] : want.items()) {
      const CudaArchScope arch(parse_cuda_arch(arch_name));
      const Tensor y = scaled_dot_product_attention(q, k, v, m, 0.0, mask == "causal", std::nullopt, gqa);
      std::vector<int64_t> sizes, strides;
      for (const SymInt& x : y.sizes()) sizes.push_back(x.expect_int());
      for (const SymInt& x : y.strides()) strides.push_back(x.expect_int());
      EXPECT_EQ(sizes, sizes_strides[0].get<std::vector<int64_t>>()) << name << " " << arch_name;
      EXPECT_EQ(strides, sizes_strides[1].get<std::vector<int64_t>>()) << name << " " << arch_name;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 138u);
}
