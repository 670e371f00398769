// check_program / `fakeexport check`: a program PyTorch wrote checks clean; one altered recorded
// field (shape, stride, dtype, device, symbolic expression) is reported naming node and field.
#include <gtest/gtest.h>

#include <filesystem>

#include "fakeexport/export/check.h"
#include "fakeexport/serde/pt2_json.h"
#include "fakeexport/serde/zip.h"
#include "test_util.h"

using namespace fe;
using nlohmann::ordered_json;

namespace {

std::string fixture(const std::string& name) { return std::string(FE_FIXTURES_DIR) + "/pt2/" + name; }
ordered_json load_json(const std::string& c) {
  return ordered_json::parse(fe_test::read_file(fixture(c + ".model.json")));
}
ordered_json& value(ordered_json& j, const std::string& name) {
  return j["graph_module"]["graph"]["tensor_values"][name];
}

/// The one mismatch of checking `j`, as "node field recorded computed".
std::string only_mismatch(const ordered_json& j) {
  ExportedProgram ep = serde::program_from_json(j);
  CheckReport r = check_program(ep);
  EXPECT_TRUE(r.graph_errors.empty());
  if (r.mismatches.empty()) return "<none>";
  const MetaMismatch& m = r.mismatches[0];
  return m.node->name() + " " + m.field + " " + m.recorded + " " + m.computed;
}

/// `archive` with its models/model.json replaced by `j` (every other entry kept).
std::string rewrite_archive(const std::string& archive, const ordered_json& j, const std::string& out) {
  serde::ZipReader in(archive);
  serde::ZipWriter w(out);
  const std::string root = std::string(in.root()) + "/";
  for (const auto& e : in.entries()) {
    if (e.name == root + "models/model.json") w.add(e.name, serde::dump_python_json(j));
    else w.add(e.name, in.data(e));
  }
  w.finish();
  return out;
}

}  // namespace

TEST(Check, PyTorchProgramsVerifyCompletely) {
  for (const char* c : {"seed_mlp", "gpt2_dynamic", "buffers", "tied"}) {
    ExportedProgram ep = serde::program_from_json(load_json(c));
    CheckReport r = check_program(ep);
    EXPECT_TRUE(r.ok()) << c;
    EXPECT_EQ(r.verified, r.nodes) << c;
    EXPECT_EQ(r.nodes, ep.graph.size()) << c;
    EXPECT_TRUE(r.unverified.empty()) << c;
  }
}

TEST(Check, OneAlteredFieldIsNamed) {
  ordered_json j = load_json("seed_mlp");
  value(j, "gelu")["sizes"][1]["as_int"] = 255;
  EXPECT_EQ(only_mismatch(j), "gelu shape [4, 255] [4, 256]");
  j = load_json("seed_mlp");
  value(j, "gelu")["strides"][0]["as_int"] = 512;
  EXPECT_EQ(only_mismatch(j), "gelu stride [512, 1] [256, 1]");
  j = load_json("seed_mlp");
  value(j, "gelu")["dtype"] = 13;  // bfloat16
  EXPECT_EQ(only_mismatch(j), "gelu dtype bfloat16 float32");
  j = load_json("seed_mlp");
  value(j, "gelu")["device"] = ordered_json{{"type", "cuda"}, {"index", 0}};
  EXPECT_EQ(only_mismatch(j), "gelu device cuda:0 cpu");
}

TEST(Check, AlteredSymbolicExpressionIsNamed) {
  ordered_json j = load_json("gpt2_dynamic");
  // embedding is [s95, s75, 16]: record s95*s75 as its first dim instead.
  value(j, "embedding")["sizes"][0] = {
      {"as_expr",
       {{"expr_str", "Mul(Symbol('s75', positive=True, integer=True), Symbol('s95', positive=True, integer=True))"},
        {"hint", {{"as_int", 24}}}}}};
  const std::string m = only_mismatch(j);
  EXPECT_EQ(m.substr(0, 16), "embedding shape ");
  EXPECT_NE(m.find("[s75*s95, s75, 16]"), std::string::npos) << m;
  EXPECT_NE(m.find("[s95, s75, 16]"), std::string::npos) << m;
}

TEST(Check, OpaqueOperatorIsUnverifiedNotRefused) {
  ordered_json j = load_json("seed_mlp");
  j["graph_module"]["graph"]["nodes"][1]["target"] = "torch.ops.mylib.frob.default";
  ExportedProgram ep = serde::program_from_json(j);
  CheckReport r = check_program(ep);
  ASSERT_EQ(r.unverified.size(), 1u);
  EXPECT_EQ(node_target(*r.unverified[0].node), "mylib.frob.default");
  EXPECT_TRUE(r.mismatches.empty());
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.verified + 1, r.nodes);
}

TEST(CheckCli, CleanArchiveExitsZeroCorruptOneBadInputTwo) {
  fe_test::CliResult ok = fe_test::run_cli("check " + fixture("gpt2_dynamic.pt2"));
  EXPECT_EQ(ok.rc, 0) << ok.out;
  EXPECT_NE(ok.out.find("0 mismatches, 0 unverified, 0 graph errors: OK"), std::string::npos) << ok.out;

  const std::string dir = testing::TempDir();
  ordered_json j = load_json("seed_mlp");
  value(j, "linear_1")["sizes"][1]["as_int"] = 11;  // the output: nothing downstream disagrees too
  const std::string bad = rewrite_archive(fixture("seed_mlp.pt2"), j, dir + "/seed_mlp.pt2");
  fe_test::CliResult r = fe_test::run_cli("check " + bad);
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("linear_1 (aten.linear.default): shape recorded [4, 11], computed [4, 10]; File: "
                       "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py:134 in forward"),
            std::string::npos)
      << r.out;
  r = fe_test::run_cli("check " + bad + " --json");
  EXPECT_EQ(r.rc, 1);
  const auto js = nlohmann::json::parse(r.out);
  ASSERT_EQ(js["mismatches"].size(), 1u);
  EXPECT_EQ(js["mismatches"][0]["node"], "linear_1");
  EXPECT_EQ(js["mismatches"][0]["target"], "aten.linear.default");
  EXPECT_EQ(js["mismatches"][0]["field"], "shape");
  EXPECT_EQ(js["mismatches"][0]["recorded"], "[4, 11]");
  EXPECT_EQ(js["mismatches"][0]["computed"], "[4, 10]");
  EXPECT_EQ(js["nodes"].get<int>() - 1, js["verified"].get<int>());

  EXPECT_EQ(fe_test::run_cli("check " + fixture("seed_mlp.txt")).rc, 2);
  EXPECT_EQ(fe_test::run_cli("check").rc, 2);
}

namespace {
/// models/model.json of a corpus archive PyTorch wrote.
ordered_json corpus_json(const std::string& name) {
  serde::ZipReader z(std::string(FE_FIXTURES_DIR) + "/corpus/" + name + ".pt2");
  const std::string want = std::string(z.root()) + "/models/model.json";
  for (const auto& e : z.entries())
    if (e.name == want) {
      const auto d = z.data(e);
      return ordered_json::parse(std::string(reinterpret_cast<const char*>(d.data()), d.size()));
    }
  ADD_FAILURE() << name << " has no " << want;
  return {};
}
}  // namespace

TEST(Check, AlteredHigherOrderResultsAreNamed) {
  // scan: a stacked per-step output has the scanned length (7) as its leading dim.
  ordered_json j = corpus_json("hop_scan");
  value(j, "getitem_2")["sizes"][0]["as_int"] = 6;
  EXPECT_EQ(only_mismatch(j), "scan output 2 shape [6, 2, 5] [7, 2, 5]");
  // while_loop: the results keep the carried values' dtype.
  j = corpus_json("hop_while_loop");
  value(j, "getitem_1")["dtype"] = 13;  // bfloat16
  EXPECT_EQ(only_mismatch(j), "while_loop output 1 dtype bfloat16 float32");
  // with_effects: output 0 is the token, torch.tensor([]).
  j = corpus_json("hop_effects");
  value(j, "getitem")["sizes"][0]["as_int"] = 1;
  EXPECT_EQ(only_mismatch(j), "with_effects token f32[1] f32[0]");
}

TEST(CheckCli, TargetListsDeviceSitesAndExitsOne) {
  const std::string seed = std::string(FE_FIXTURES_DIR) + "/corpus/seed002_decoder.pt2";
  fe_test::CliResult r = fe_test::run_cli("check " + seed + " --target cuda:0 --json");
  EXPECT_EQ(r.rc, 1) << r.out;
  const auto js = nlohmann::json::parse(r.out);
  EXPECT_TRUE(js["mismatches"].empty());
  ASSERT_FALSE(js["device_sites"].empty());
  const auto& s = js["device_sites"][0];
  EXPECT_EQ(s["node"], "arange");
  EXPECT_EQ(s["target"], "aten.arange.default");
  EXPECT_EQ(s["device"], "cpu");
  EXPECT_EQ(s["kind"], "factory");
  EXPECT_EQ(s["module"], "decoder.transformer");
  EXPECT_EQ(s["fix"], "device follows input `input_ids`");
  EXPECT_NE(s["source"].get<std::string>().find("modeling_gpt2.py:"), std::string::npos);
  r = fe_test::run_cli("check " + seed + " --target cuda:0");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("arange (aten.arange.default): pins cpu (factory); File: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(std::to_string(js["device_sites"].size()) + " device sites outside cuda:0"), std::string::npos)
      << r.out;
  EXPECT_EQ(fe_test::run_cli("check " + seed + " --target cuda:0,cpu").rc, 0);  // a CPU/GPU split
  EXPECT_EQ(fe_test::run_cli("check " + seed + " --target cpu").rc, 0);
  EXPECT_EQ(fe_test::run_cli("check " + seed + " --target warp:0").rc, 2);
  EXPECT_EQ(fe_test::run_cli("check " + seed + " --target cuda:0,").rc, 2);
}

// check MODEL: the zoo model exported on cpu as `fakeexport export MODEL` does, then checked and
// linted; a CPU export pins cpu where the forward creates tensors (aranges, masks, assertions).
TEST(CheckCli, ModelIsExportedOnCpuThenLinted) {
  fe_test::CliResult r = fe_test::run_cli("check llama");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("llama: "), std::string::npos) << r.out;
  r = fe_test::run_cli("check llama --target cuda:0 --json");
  EXPECT_EQ(r.rc, 1) << r.out;
  const auto js = nlohmann::json::parse(r.out);
  EXPECT_EQ(js["verified"], js["nodes"]);
  ASSERT_FALSE(js["device_sites"].empty());
  for (const auto& s : js["device_sites"]) {
    EXPECT_EQ(s["device"], "cpu") << s.dump();
    EXPECT_EQ(s["fix"], "device follows input `input_ids`") << s.dump();
  }
  EXPECT_TRUE(js["missing_kernels"].empty());
  EXPECT_EQ(fe_test::run_cli("check llama --target cpu").rc, 0);
  EXPECT_EQ(fe_test::run_cli("check " + std::string(FE_FIXTURES_DIR) + "/zoo/configs/no_such_config.json").rc, 2);
}
