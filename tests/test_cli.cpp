// The fakeexport command line, run as a process: exit codes, --json fields, errors on stderr.
#include <gtest/gtest.h>

#include "test_util.h"
#include "fakeexport/serde/safetensors.h"

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

namespace {

using Result = fe_test::CliResult;
using fe_test::run_cli;

std::string pt2(const std::string& name) { return std::string(FE_FIXTURES_DIR) + "/pt2/" + name; }

TEST(Cli, InspectJsonDescribesThePyTorchArchive) {
  Result r = run_cli("inspect " + pt2("gpt2_dynamic.pt2") + " --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema_version"], "8.20");
  EXPECT_EQ(j["nodes"], 49);  // len(torch.export.load(...).graph.nodes)
  EXPECT_EQ(j["ops"]["aten.linear.default"], 5);
  EXPECT_EQ(j["inputs"].back()["shape"], nlohmann::json::array({"s95", "s75"}));
  EXPECT_EQ(j["range_constraints"]["s75"], nlohmann::json::array({2, 1024}));
  EXPECT_EQ(j["devices"]["cpu"]["parameter_bytes"], j["parameters"]["bytes"]);
}

TEST(Cli, TiedWeightsCountOnce) {
  Result r = run_cli("inspect " + pt2("tied.pt2") + " --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out)["parameters"]["count"], 60);  // one 10x6 table
}

TEST(Cli, InspectPrintIsPyTorchsPrint) {
  Result r = run_cli("inspect " + pt2("buffers.pt2") + " --print");
  ASSERT_EQ(r.rc, 0) << r.out;
  FILE* f = fopen(pt2("buffers.txt").c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string want;
  std::array<char, 4096> buf{};
  while (size_t n = fread(buf.data(), 1, buf.size(), f)) want.append(buf.data(), n);
  fclose(f);
  EXPECT_EQ(r.out, want);
}

TEST(Cli, BadInputExitsTwoWithOneLine) {
  Result r = run_cli("inspect " + pt2("buffers.txt"));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("fakeexport: error: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("buffers.txt"), std::string::npos) << r.out;
  EXPECT_EQ(run_cli("inspect").rc, 2);
  EXPECT_EQ(run_cli("frobnicate x").rc, 2);
}

TEST(Cli, GlobalOptionsBeforeTheCommandAndTheHelpListingEveryCommand) {
  // Only the named command's options are built: global options and their values before it must
  // not be taken for it, and with no command named the help still lists them all.
  Result r = run_cli("--max-nodes 10 --arch sm80 --max-seconds=60 inspect " + pt2("gpt2_dynamic.pt2"));
  EXPECT_EQ(r.rc, 2) << r.out;  // the limit applies: 49 nodes
  EXPECT_NE(r.out.find("--max-nodes"), std::string::npos) << r.out;
  r = run_cli("--max-nodes 100 inspect " + pt2("gpt2_dynamic.pt2") + " --json");
  EXPECT_EQ(r.rc, 0) << r.out;
  r = run_cli("--help");
  EXPECT_EQ(r.rc, 0);
  for (const char* c : {"export", "inspect", "check", "run", "retarget", "decompose", "memory", "cost", "report"})
    EXPECT_NE(r.out.find(std::string("\n  ") + c + " "), std::string::npos) << c << "\n" << r.out;
  r = run_cli("--arch sm80 inspect --help");
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("inspect [OPTIONS]"), std::string::npos) << r.out;
  EXPECT_EQ(run_cli("--arch inspect").rc, 2);  // `inspect` is --arch's (bad) value: no command named
}

}  // namespace

TEST(CliRun, RunsAnArchiveOnItsSampleInputsToPyTorchsOutputs) {
  const std::string corpus = std::string(FE_FIXTURES_DIR) + "/corpus/";
  const std::string out = testing::TempDir() + "/run_out.safetensors";
  fe_test::CliResult r = run_cli("run " + corpus + "hf_bert.pt2 -o " + out);
  ASSERT_EQ(r.rc, 0) << r.out;
  fe::SafetensorsFile got(out), want(corpus + "hf_bert.outputs.safetensors");
  ASSERT_EQ(got.names(), want.names());
  const fe::Tensor a = got.load("output_0"), b = want.load("output_0");
  ASSERT_EQ(a.numel(), b.numel());
  for (int64_t i = 0; i < a.numel(); ++i) EXPECT_NEAR(a.data<float>()[i], b.data<float>()[i], 1e-4);
  EXPECT_EQ(run_cli("run " + corpus + "hf_bert.pt2 --inputs /nonexistent.safetensors").rc, 2);
  EXPECT_EQ(run_cli("run").rc, 2);
}
