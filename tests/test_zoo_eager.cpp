// Every tiny_*.json of tests/fixtures/zoo/configs: HuggingFace's weights bound to our model, our
// exported CPU program run to HF's eager outputs, and the archive written for PyTorch to run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "fakeexport/fakeexport.h"
#include "fakeexport/serde/pt2.h"
#include "test_util.h"

using namespace fe;

namespace {

// Every tiny_*.json: HF's weights bound, exported on cpu, run by our interpreter to HF's eager
// outputs (1e-4), and written to build/pt2_out/zoo_<name>.pt2 for PyTorch to load and run
// (tools/oracle/scripts/check_our_pt2.py).
TEST(ZooEager, TinyConfigsRunLikeHuggingFace) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(FE_FIXTURES_DIR) / "zoo";
  std::vector<fs::path> configs;
  for (const auto& e : fs::directory_iterator(root / "configs"))
    if (e.path().filename().string().rfind("tiny_", 0) == 0) configs.push_back(e.path());
  std::sort(configs.begin(), configs.end());
  ASSERT_GE(configs.size(), 1u);
  fs::create_directories(fs::path(FE_BUILD_DIR) / "pt2_out");
  for (const fs::path& path : configs) {
    const std::string name = path.stem().string();
    SCOPED_TRACE(name);
    auto m = zoo::build(zoo::Config::from_file(path.string()));
    zoo::load_weights(*m, (root / "eager" / name / "model.safetensors").string());
    SafetensorsFile io((root / "eager" / name / "io.safetensors").string());
    std::vector<std::pair<int, Tensor>> ins, outs;
    for (const std::string& n : io.names()) {
      if (n.rfind("input_", 0) == 0) ins.emplace_back(std::stoi(n.substr(6)), io.load(n));
      if (n.rfind("output_", 0) == 0) outs.emplace_back(std::stoi(n.substr(7)), io.load(n));
    }
    std::sort(ins.begin(), ins.end(), [](auto& a, auto& b) { return a.first < b.first; });
    std::sort(outs.begin(), outs.end(), [](auto& a, auto& b) { return a.first < b.first; });
    std::vector<Tensor> args;
    for (auto& [i, t] : ins) args.push_back(t);
    ExportedProgram ep = export_program(*m, args);
    std::vector<Tensor> got = run(ep, args);
    ASSERT_GE(got.size(), outs.size());
    for (auto& [i, want] : outs) {
      Tensor g = got[i].contiguous();
      ASSERT_EQ(fe_test::ints(g.sizes()), fe_test::ints(want.sizes())) << "output " << i;
      double worst = 0;
      for (int64_t k = 0; k < want.numel(); ++k)
        worst = std::max(worst, std::abs(double(g.data<float>()[k]) - double(want.data<float>()[k])));
      EXPECT_LE(worst, 1e-4) << "output " << i;
    }
    serde::save(ep, (fs::path(FE_BUILD_DIR) / "pt2_out" / ("zoo_" + name + ".pt2")).string());
  }
}

}  // namespace

namespace {

// `fakeexport export CONFIG --dynamic batch,seq -o F.pt2 --weights <HF's model.safetensors>`: a fake
// export whose archive carries HF's checkpoint (bound by HF's naming rules) and the known buffer
// values; loading it and running it gives HF's eager outputs. PyTorch runs the same archives
// (tools/oracle/scripts/check_our_pt2.py).
TEST(ZooEager, CliExportWithHuggingFaceCheckpointRunsLikeHuggingFace) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(FE_FIXTURES_DIR) / "zoo";
  int checked = 0;
  for (const auto& e : fs::directory_iterator(root / "configs")) {
    const std::string name = e.path().stem().string();
    if (name.rfind("tiny_", 0) != 0) continue;
    SCOPED_TRACE(name);
    const std::string out = (fs::path(FE_BUILD_DIR) / "pt2_out" / ("cli_" + name + ".pt2")).string();
    const std::string cmd = std::string(FE_CLI_PATH) + " export " + e.path().string() + " --dynamic batch,seq -o " +
                            out + " --weights " + (root / "eager" / name / "model.safetensors").string() +
                            " > /dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    serde::LoadedProgram lp = serde::load(out, {.materialize_weights = true});
    ASSERT_TRUE(lp.weights_present);
    SafetensorsFile io((root / "eager" / name / "io.safetensors").string());
    std::map<std::string, Tensor> ins, outs;  // "input_0_...", "output_0" sort in order
    for (const std::string& n : io.names()) (n.rfind("input_", 0) == 0 ? ins : outs)[n] = io.load(n);
    std::vector<Tensor> args;
    for (auto& [n, t] : ins) args.push_back(t);
    std::vector<Tensor> got = run(lp.ep, args);
    size_t i = 0;
    for (auto& [n, want] : outs) {
      Tensor g = got.at(i++).contiguous();
      ASSERT_EQ(fe_test::ints(g.sizes()), fe_test::ints(want.sizes())) << n;
      double worst = 0;
      for (int64_t k = 0; k < want.numel(); ++k)
        worst = std::max(worst, std::abs(double(g.data<float>()[k]) - double(want.data<float>()[k])));
      EXPECT_LE(worst, 1e-4) << n;
    }
    ++checked;
  }
  EXPECT_GE(checked, 9);
}

}  // namespace
