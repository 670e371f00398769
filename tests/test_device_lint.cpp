// Device lint (check --target) against the real-program corpus: the nodes PyTorch's own print of
// each program shows with `device = device(type='cpu')` are exactly the sites found for a cuda:0
// target (plus lifted constants), and a cpu target finds none (every corpus program was exported on cpu).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "fakeexport/analysis/device_lint.h"
#include "fakeexport/analysis/kernels.h"
#include "fakeexport/serde/pt2.h"
#include "test_util.h"

using namespace fe;
namespace fs = std::filesystem;

namespace {

const std::string kCorpus = std::string(FE_FIXTURES_DIR) + "/corpus";

/// Names of the top-graph nodes whose line in PyTorch's print passes an explicit cpu device.
std::set<std::string> pytorch_cpu_pins(const std::string& name) {
  std::set<std::string> out;
  std::istringstream in(fe_test::read_file(kCorpus + "/" + name + ".txt"));
  // Top-graph nodes are indented 12 spaces; nested subgraph classes' nodes 16.
  static const std::regex node(R"(^            ([A-Za-z_][A-Za-z0-9_]*)(: "[^"]*")? = torch\.ops\..*device\(type='cpu'\))");
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, m, node)) out.insert(m[1]);
  return out;
}

std::set<std::string> site_names(const std::vector<analysis::DeviceSite>& sites, bool top_only) {
  std::set<std::string> out;
  for (const auto& s : sites)
    if (!top_only || s.graph.empty()) out.insert(s.node->name());
  return out;
}

}  // namespace

TEST(DeviceLint, Seed002DecoderListsExactlyItsCpuPins) {
  serde::LoadedProgram lp = serde::load(kCorpus + "/seed002_decoder.pt2");
  const auto sites = analysis::lint_devices(lp.ep, {Device::parse("cuda:0")});
  const std::set<std::string> want = pytorch_cpu_pins("seed002_decoder");
  ASSERT_GE(want.size(), 10u);  // arange x9, the position-embedding .to and its assertion, the mask .to's
  EXPECT_EQ(site_names(sites, false), want);
  for (const auto& s : sites) {
    EXPECT_EQ(s.device.str(), "cpu");
    EXPECT_NE(s.source.find("modeling_gpt2.py:"), std::string::npos) << s.node->name() << ": " << s.source;
    EXPECT_EQ(s.module, "decoder.transformer") << s.node->name();
    EXPECT_EQ(s.fix, "device follows input `input_ids`") << s.node->name();
  }
  // The position-embedding and mask transfers are transfers, their guards assertions, arange factories.
  for (const auto& s : sites) {
    const analysis::PinKind want_kind = s.node->name().starts_with("to") ? analysis::PinKind::Transfer
                                        : s.node->name().starts_with("_assert") ? analysis::PinKind::Assertion
                                                                                : analysis::PinKind::Factory;
    EXPECT_EQ(s.kind, want_kind) << s.node->name();
  }
  // Pinning cpu is no problem when cpu is a target (a CPU/GPU split).
  EXPECT_TRUE(analysis::lint_devices(lp.ep, {Device::parse("cuda:0"), Device::parse("cpu")}).empty());
}

TEST(DeviceLint, CorpusSitesAreExactlyPyTorchsExplicitDevices) {
  if (!fs::is_directory(kCorpus)) GTEST_SKIP() << "no corpus at " << kCorpus;
  size_t programs = 0, pins = 0;
  for (const auto& e : fs::directory_iterator(kCorpus)) {
    if (e.path().extension() != ".pt2") continue;
    const std::string name = e.path().stem().string();
    SCOPED_TRACE(name);
    serde::LoadedProgram lp = serde::load(e.path().string());
    EXPECT_TRUE(analysis::lint_devices(lp.ep, {Device::parse("cpu")}).empty());
    const auto sites = analysis::lint_devices(lp.ep, {Device::parse("cuda:0")});
    std::set<std::string> top;  // device arguments in the top graph; constants are placeholders
    for (const auto& s : sites)
      if (s.graph.empty() && s.kind != analysis::PinKind::Constant) top.insert(s.node->name());
    std::set<std::string> want = pytorch_cpu_pins(name);
    // Falcon's mask function reads torch.tensor(True), made on cpu and moved by the program to the
    // mask's device; export asserts its device before the move, and that assertion holds wherever
    // the program runs (PyTorch 2.11's own cuda:0 export of Falcon asserts cpu there too,
    // tests/fixtures/cuda/zoo/falcon.txt). Only the move itself pins.
    if (name == "hf_falcon") EXPECT_EQ(want.erase("_assert_tensor_metadata_default_1"), 1u);
    EXPECT_EQ(top, want);
    for (const auto& s : sites) EXPECT_NE(s.kind, analysis::PinKind::Mixed) << s.node->name();
    ++programs;
    pins += sites.size();
  }
  std::printf("[ device lint ] %zu corpus programs, %zu cpu-pinning sites for target cuda:0\n", programs, pins);
}

namespace {

// The judge on a GPU: tools/device/measure_cuda_memory.py moved every corpus program PyTorch 2.11
// could load onto cuda:0 and ran it (tests/fixtures/cuda/memory.json, an H100). Every program that
// failed there (a cpu tensor meeting cuda ones, a CPU-only kernel) is one `check --target cuda:0`
// flags, with a device site or a missing kernel: no false negative.
TEST(DeviceLintOnCuda, EveryProgramThatFailedOnCudaIsFlagged) {
  const std::string path = std::string(FE_FIXTURES_DIR) + "/cuda/memory.json";
  if (!fs::exists(path)) GTEST_SKIP() << "skipped: no " << path << " (run tools/device/measure_cuda_memory.py on a GPU machine)";
  const nlohmann::json fx = nlohmann::json::parse(fe_test::read_file(path))["programs"];
  size_t failed = 0, ran = 0, ran_flagged = 0;
  for (const auto& [name, e] : fx.items()) {
    const std::string err = e.value("error", "");
    if (err.find("deserializing") != std::string::npos) continue;  // PyTorch 2.11 cannot read 2.14's archive
    serde::LoadedProgram lp = serde::load(kCorpus + "/" + name + ".pt2");
    const std::vector<Device> cuda{Device::parse("cuda:0")};
    const size_t flags = analysis::lint_devices(lp.ep, cuda).size() + analysis::missing_kernels(lp.ep, cuda).size();
    if (err.empty()) {
      ++ran;
      ran_flagged += flags > 0;
      continue;
    }
    ++failed;
    EXPECT_GT(flags, 0u) << name << " failed on cuda (" << err << ") and nothing was flagged";
  }
  EXPECT_GE(failed, 30u);
  EXPECT_GE(ran, 40u);
  // Programs that ran yet pin cpu: a cpu scalar or a side computation PyTorch lets through.
  std::cout << "[ lint     ] on cuda: " << failed << " failed, all flagged; " << ran << " ran, " << ran_flagged
            << " of them with a cpu pin that did not stop them\n";
}

}  // namespace
