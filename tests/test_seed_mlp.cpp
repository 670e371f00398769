// The seed document's MLP (../shared/seeds/000_*), exported in C++ for cpu/cpu, cuda/cuda, cpu/cuda.
// Expected texts: tests/fixtures/seed_mlp_cpu.txt (PyTorch 2.14 itself, tools/oracle/scripts/seed_mlp.py)
// and tests/fixtures/seed_000_programs.txt (the seed's printed programs, tools/extract_seed_programs.py).
#include <gtest/gtest.h>

#include "test_util.h"

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>
#include <tuple>

#include "seed_mlp_model.h"

namespace {
using fe_test::read_file;
using fe_test::lines_of;
using fe_test::blank_file_lines;

/// The seed's programs lost their line breaks; blank its comments up to the next node definition.
std::string blank_file_comments_collapsed(const std::string& s) {
  return std::regex_replace(s, std::regex(R"(# File: .*? (?=[A-Za-z_][A-Za-z0-9_]*(: "[^"]*")? = torch\.ops\.))"),
                            "# File: <source> ");
}

std::string strip_ws(const std::string& s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

/// PyTorch's exact cpu/cpu text with the devices of the transfer set as in the seed.
std::string expected_exact(const std::string& assert_dev, const std::string& to_dev) {
  std::string s = read_file(std::string(FE_FIXTURES_DIR) + "/seed_mlp_cpu.txt");
  s = std::regex_replace(s, std::regex(R"(\(gelu, dtype = torch.float32, device = device\(type='cpu'\), layout)"),
                         "(gelu, dtype = torch.float32, device = " + assert_dev + ", layout");
  s = std::regex_replace(s, std::regex(R"(layout = torch.strided, device = device\(type='cpu'\)\);  gelu = None)"),
                         "layout = torch.strided, device = " + to_dev + ");  gelu = None");
  return s;
}

struct Config {
  const char* name;
  const char* fc1;
  const char* fc2;
  int seed_index;
  const char* assert_dev;
  const char* to_dev;
};

void PrintTo(const Config& c, std::ostream* os) { *os << c.name; }

class SeedMlp : public ::testing::TestWithParam<Config> {};

TEST_P(SeedMlp, PrintsLineForLineAsPyTorch) {
  const Config& c = GetParam();
  fe::ExportedProgram ep = seed::fake_export(fe::Device::parse(c.fc1), fe::Device::parse(c.fc2));
  const std::string ours = blank_file_lines(fe::to_string(ep));
  const std::string want = blank_file_lines(expected_exact(c.assert_dev, c.to_dev));
  auto a = lines_of(ours), b = lines_of(want);
  ASSERT_EQ(a.size(), b.size()) << ours;
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << "line " << i + 1;
}

TEST_P(SeedMlp, MatchesTheSeedDocument) {
  const Config& c = GetParam();
  auto seed_programs = lines_of(read_file(std::string(FE_FIXTURES_DIR) + "/seed_000_programs.txt"));
  ASSERT_EQ(seed_programs.size(), 3u);
  fe::ExportedProgram ep = seed::fake_export(fe::Device::parse(c.fc1), fe::Device::parse(c.fc2));
  const std::string ours = blank_file_lines(fe::to_string(ep));
  const std::string seed_text = blank_file_comments_collapsed(seed_programs[c.seed_index]);
  EXPECT_NE(seed_text.find("# File: <source>"), std::string::npos);
  EXPECT_EQ(strip_ws(ours), strip_ws(seed_text));
  // The derived exact expectation is the seed's text too (so the line-for-line test checks the seed).
  EXPECT_EQ(strip_ws(blank_file_lines(expected_exact(c.assert_dev, c.to_dev))), strip_ws(seed_text));
}

INSTANTIATE_TEST_SUITE_P(
    Placements, SeedMlp,
    ::testing::Values(Config{"cpu_cpu", "cpu", "cpu", 0, "device(type='cpu')", "device(type='cpu')"},
                      Config{"cuda_cuda", "cuda", "cuda", 1, "device(type='cuda', index=0)",
                             "device(type='cuda', index=0)"},
                      Config{"cpu_cuda", "cpu", "cuda", 2, "device(type='cpu')", "device(type='cuda', index=0)"}),
    [](const auto& info) { return std::string(info.param.name); });

// PyTorch's own fake-cuda exports (tools/device/capture_cuda_fixtures.py on a lent H100, with the CUDA
// build of PyTorch named in seed_mlp_cuda_torch_version.txt): our cuda programs line for line, with
// source paths blanked (that build lives elsewhere) and trailing blanks ignored.
TEST(SeedMlpCudaFixtures, PrintsAsPyTorchCudaBuild) {
  for (const auto& [name, fc1, fc2] : {std::tuple{"cuda_cuda", "cuda", "cuda"}, std::tuple{"cpu_cuda", "cpu", "cuda"}}) {
    const std::string path = std::string(FE_FIXTURES_DIR) + "/seed_mlp_" + name + ".txt";
    fe::ExportedProgram ep = seed::fake_export(fe::Device::parse(fc1), fe::Device::parse(fc2));
    auto a = lines_of(blank_file_lines(fe::to_string(ep))), b = lines_of(blank_file_lines(read_file(path)));
    ASSERT_EQ(a.size(), b.size()) << name;
    for (size_t i = 0; i < a.size(); ++i) {
      auto rstrip = [](std::string l) { while (!l.empty() && l.back() == ' ') l.pop_back(); return l; };
      EXPECT_EQ(rstrip(a[i]), rstrip(b[i])) << name << " line " << i + 1;
    }
  }
}

TEST(SeedMlpDevices, HybridTransferNodes) {
  fe::ExportedProgram ep = seed::fake_export(fe::kCPU, fe::Device::parse("cuda"));
  const std::string s = fe::to_string(ep);
  EXPECT_NE(s.find("_assert_tensor_metadata.default(gelu, dtype = torch.float32, device = device(type='cpu')"),
            std::string::npos);
  EXPECT_NE(s.find("to.dtype_layout(gelu, dtype = torch.float32, layout = torch.strided, device = "
                   "device(type='cuda', index=0))"),
            std::string::npos);
  // Node values carry the devices: fc1 side on cpu, fc2 side on cuda:0.
  for (const auto& n : ep.graph.nodes()) {
    if (n->name() == "linear") {
      EXPECT_EQ(n->val.at(0).device, fe::kCPU);
    }
    if (n->name() == "to" || n->name() == "linear_1") {
      EXPECT_EQ(n->val.at(0).device.str(), "cuda:0");
    }
  }
}

TEST(SeedMlpFake, ZeroBytesAllocatedAndParametersFake) {
  const int64_t before = fe::tensor_data_bytes_allocated();
  {
    fe::FakeTensorMode mode;
    seed::MLP model(128, 256, 10, fe::kCPU, fe::Device::parse("cuda"));
    for (const fe::Tensor& p : model.parameters()) {
      EXPECT_TRUE(fe::is_fake(p));
      EXPECT_TRUE(p.is_parameter());
      EXPECT_FALSE(p.has_storage());
    }
    EXPECT_EQ(model.fc2->weight.device().str(), "cuda:0");
    EXPECT_EQ(model.fc1->weight.device().str(), "cpu");
    fe::Tensor x = fe::randn({4, 128});
    fe::ExportedProgram ep = fe::export_program(model, {x});
    for (auto& [name, t] : ep.state_dict) EXPECT_TRUE(t.is_fake()) << name;
    EXPECT_EQ(ep.state_dict.size(), 4u);
  }
  fe::ExportedProgram ep2 = seed::fake_export(fe::Device::parse("cuda:1"), fe::Device::parse("cuda:0"));
  EXPECT_EQ(fe::tensor_data_bytes_allocated(), before);
}

TEST(SeedMlpFake, ForgettingTheTransferFailsWithCrossDeviceMessage) {
  try {
    seed::fake_export(fe::kCPU, fe::Device::parse("cuda"), /*transfer=*/false);
    FAIL() << "expected a DeviceMismatchError";
  } catch (const fe::DeviceMismatchError& e) {
    EXPECT_STREQ(e.what(),
                 "aten::linear: Expected all tensors to be on the same device, but found at least two devices, "
                 "cuda:0 and cpu!");
  }
}

TEST(SeedMlpReal, ComputesLikeANaiveReference) {
  fe::manual_seed(7);
  seed::MLP model(8, 16, 3);
  model.eval();
  fe::Tensor x = fe::randn({4, 8});
  fe::Tensor y = model(x);
  ASSERT_FALSE(y.is_fake());
  ASSERT_EQ(y.size(0), 4);
  ASSERT_EQ(y.size(1), 3);
  auto at = [](const fe::Tensor& t, int64_t i, int64_t j) { return t.data<float>()[i * t.size(1).expect_int() + j]; };
  auto vec = [](const fe::Tensor& t, int64_t i) { return t.data<float>()[i]; };
  const fe::Tensor &w1 = model.fc1->weight, &b1 = model.fc1->bias, &w2 = model.fc2->weight, &b2 = model.fc2->bias;
  for (int64_t r = 0; r < 4; ++r) {
    std::vector<double> h(16);
    for (int64_t j = 0; j < 16; ++j) {
      double acc = vec(b1, j);
      for (int64_t k = 0; k < 8; ++k) acc += double(at(x, r, k)) * at(w1, j, k);
      h[j] = 0.5 * acc * (1.0 + std::erf(acc / std::sqrt(2.0)));
    }
    for (int64_t o = 0; o < 3; ++o) {
      double acc = vec(b2, o);
      for (int64_t j = 0; j < 16; ++j) acc += h[j] * at(w2, o, j);
      EXPECT_NEAR(at(y, r, o), acc, 1e-5) << "row " << r << " out " << o;
    }
  }
  // Parameters were initialised (not left at zero) within PyTorch's bound 1/sqrt(fan_in).
  double maxabs = 0;
  for (int64_t i = 0; i < w1.numel(); ++i) maxabs = std::max(maxabs, double(std::abs(w1.data<float>()[i])));
  EXPECT_GT(maxabs, 0.0);
  EXPECT_LE(maxabs, 1.0 / std::sqrt(8.0));
}

}  // namespace
