// Kernel availability (check --target): PyTorch 2.14's dispatch table (kernel_table.inc, generated
// from its native_functions.yaml) read back, and the nodes of the real-program corpus that it flags.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "fakeexport/analysis/kernels.h"
#include "fakeexport/serde/pt2.h"
#include "test_util.h"

using namespace fe;
using analysis::KernelKind;
namespace fs = std::filesystem;

namespace {
const std::string kCorpus = std::string(FE_FIXTURES_DIR) + "/corpus";
}

TEST(Kernels, TableAnswersPerBackend) {
  // A CPU-only kernel that PyTorch's decomposition table lowers elsewhere.
  EXPECT_EQ(analysis::kernel_for("_scaled_dot_product_flash_attention_for_cpu.default", "CPU"), KernelKind::Kernel);
  EXPECT_EQ(analysis::kernel_for("_scaled_dot_product_flash_attention_for_cpu.default", "CUDA"),
            KernelKind::Decomposition);
  // CUDA-only kernels with no decomposition.
  EXPECT_EQ(analysis::kernel_for("_scaled_dot_product_cudnn_attention.default", "CPU"), KernelKind::None);
  EXPECT_EQ(analysis::kernel_for("_scaled_dot_product_cudnn_attention.default", "CUDA"), KernelKind::Kernel);
  EXPECT_EQ(analysis::kernel_for("mm.default", "MPS"), KernelKind::Kernel);
  EXPECT_EQ(analysis::kernel_for("linear.default", "CUDA"), KernelKind::CompositeImplicit);
  EXPECT_EQ(analysis::kernel_for("_assert_tensor_metadata.default", "CUDA"), KernelKind::CompositeExplicit);
  // First and last rows, and names that are not there.
  EXPECT_TRUE(analysis::kernel_for("__and__.Scalar", "CPU"));
  EXPECT_FALSE(analysis::kernel_for("linear", "CPU"));
  EXPECT_FALSE(analysis::kernel_for("no_such_op.default", "CPU"));
  EXPECT_FALSE(analysis::kernel_for("mm.default", "XPU"));
  EXPECT_EQ(analysis::backend_of(Device::parse("cuda:1")), "CUDA");
  EXPECT_FALSE(analysis::backend_of(Device::parse("meta")));
}

TEST(Kernels, CpuOnlyAttentionIsFlaggedForCuda) {
  for (const char* name : {"lowered_attention_cpu", "lowered_attention_cpu_dynamic"}) {
    SCOPED_TRACE(name);
    serde::LoadedProgram lp = serde::load(kCorpus + "/" + name + ".pt2");
    EXPECT_TRUE(analysis::missing_kernels(lp.ep, {Device::parse("cpu")}).empty());
    for (const char* dev : {"cuda:0", "mps"}) {
      const auto missing = analysis::missing_kernels(lp.ep, {Device::parse(dev)});
      ASSERT_EQ(missing.size(), 1u) << dev;
      const analysis::MissingKernel& k = missing[0];
      EXPECT_EQ(k.node->name(), "_scaled_dot_product_flash_attention_for_cpu");
      EXPECT_EQ(k.target, "aten._scaled_dot_product_flash_attention_for_cpu.default");
      EXPECT_EQ(k.backend, std::string(dev) == "mps" ? "MPS" : "CUDA");
      EXPECT_EQ(k.device, Device::parse(dev).normalized());
      EXPECT_TRUE(k.decomposes);
      EXPECT_NE(k.source.find("corpus_more.py:"), std::string::npos) << k.source;
    }
    // On a CPU/GPU split the node stays on cpu, where its kernel is.
    EXPECT_TRUE(analysis::missing_kernels(lp.ep, {Device::parse("cuda:0"), Device::parse("cpu")}).empty());
  }
}

// Every corpus program: the flagged nodes for cuda:0 are exactly the aten calls in PyTorch's own
// print (subgraphs included) whose overload has no CUDA kernel.
TEST(Kernels, CorpusFlagsExactlyPyTorchsCpuOnlyCalls) {
  if (!fs::is_directory(kCorpus)) GTEST_SKIP() << "no corpus at " << kCorpus;
  static const std::regex call(R"(^ +([A-Za-z_][A-Za-z0-9_]*)(: "[^"]*")? = torch\.ops\.aten\.([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)\()");
  size_t programs = 0, flagged = 0;
  for (const auto& e : fs::directory_iterator(kCorpus)) {
    if (e.path().extension() != ".pt2") continue;
    const std::string name = e.path().stem().string();
    SCOPED_TRACE(name);
    std::multiset<std::string> want;
    std::istringstream in(fe_test::read_file(kCorpus + "/" + name + ".txt"));
    std::smatch m;
    for (std::string line; std::getline(in, line);)
      if (std::regex_search(line, m, call)) {
        const auto k = analysis::kernel_for(m[3].str() + "." + m[4].str(), "CUDA");
        if (k == KernelKind::None || k == KernelKind::Decomposition) want.insert(m[1]);
      }
    serde::LoadedProgram lp = serde::load(e.path().string());
    std::multiset<std::string> got;
    for (const auto& k : analysis::missing_kernels(lp.ep, {Device::parse("cuda:0")})) got.insert(k.node->name());
    EXPECT_EQ(got, want);
    if (name.starts_with("lowered_")) {
      EXPECT_FALSE(got.empty());
    }
    ++programs;
    flagged += got.size();
  }
  std::printf("[ kernels ] %zu corpus programs, %zu calls without a CUDA kernel\n", programs, flagged);
}

TEST(Kernels, CheckTargetReportsMissingKernelsAndExitsOne) {
  const std::string file = kCorpus + "/lowered_attention_cpu.pt2";
  fe_test::CliResult r = fe_test::run_cli("check " + file + " --target cuda:0 --json");
  EXPECT_EQ(r.rc, 1) << r.out;
  const auto js = nlohmann::json::parse(r.out);
  EXPECT_TRUE(js["device_sites"].empty());
  ASSERT_EQ(js["missing_kernels"].size(), 1u) << r.out;
  const auto& k = js["missing_kernels"][0];
  EXPECT_EQ(k["node"], "_scaled_dot_product_flash_attention_for_cpu");
  EXPECT_EQ(k["target"], "aten._scaled_dot_product_flash_attention_for_cpu.default");
  EXPECT_EQ(k["backend"], "CUDA");
  EXPECT_EQ(k["device"], "cuda:0");
  EXPECT_EQ(k["decomposition"], true);
  r = fe_test::run_cli("check " + file + " --target cuda:0");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("_scaled_dot_product_flash_attention_for_cpu "
                       "(aten._scaled_dot_product_flash_attention_for_cpu.default): no CUDA kernel (runs on cuda:0)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("0 device sites outside cuda:0, 1 missing kernel\n"), std::string::npos) << r.out;
  EXPECT_EQ(fe_test::run_cli("check " + file + " --target cpu").rc, 0);
  EXPECT_EQ(fe_test::run_cli("check " + file).rc, 0);
}
