// program_summary_json: the `inspect --json` / `export --json` object on programs we export.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "fakeexport/export/summary.h"
#include "gpt2_mini.h"
#include "seed_mlp_model.h"

namespace {
using namespace fe;

TEST(ExportSummary, SeedMlpOnTwoDevices) {
  ExportedProgram ep = seed::fake_export(Device::parse("cuda:0"), Device::parse("cuda:1"));
  auto j = nlohmann::json::parse(program_summary_json(ep));
  // Python: len(ep.graph.nodes) = 5 placeholders + linear, gelu, _assert_tensor_metadata, to, linear + output.
  EXPECT_EQ(j["nodes"], 11);
  EXPECT_EQ(j["ops"]["aten.linear.default"], 2);
  EXPECT_EQ(j["ops"]["aten.gelu.default"], 1);
  EXPECT_EQ(j["schema_version"], "8.20");
  ASSERT_EQ(j["inputs"].size(), 5u);
  EXPECT_EQ(j["inputs"][0]["name"], "p_fc1_weight");
  EXPECT_EQ(j["inputs"][0]["kind"], "PARAMETER");
  EXPECT_EQ(j["inputs"][0]["target"], "fc1.weight");
  EXPECT_EQ(j["inputs"][0]["shape"], nlohmann::json::array({256, 128}));
  EXPECT_EQ(j["inputs"][0]["dtype"], "float32");
  EXPECT_EQ(j["inputs"][0]["device"], "cuda:0");
  EXPECT_TRUE(j["inputs"][4]["target"].is_null());
  EXPECT_EQ(j["devices"]["cuda:0"]["parameter_bytes"], (256 * 128 + 256) * 4);
  EXPECT_EQ(j["devices"]["cuda:1"]["parameter_bytes"], (10 * 256 + 10) * 4);
  EXPECT_EQ(j["parameters"]["count"], 256 * 128 + 256 + 10 * 256 + 10);
  EXPECT_EQ(j["parameters"]["bytes"], (256 * 128 + 256 + 10 * 256 + 10) * 4);
  EXPECT_EQ(j["outputs"][0]["kind"], "USER_OUTPUT");
  EXPECT_TRUE(j["range_constraints"].empty());
}

TEST(ExportSummary, SymbolicShapesAndRanges) {
  FakeTensorMode mode;
  gpt2_mini::GPT m;
  ExportedProgram ep = export_program(m, {zeros({3, 8}, {.dtype = DType::Int64})},
                                      {.dynamic_shapes = gpt2_mini::dynamic_dims()});
  auto j = nlohmann::json::parse(program_summary_json(ep, {.indent = 1}));
  const auto& idx = j["inputs"].back();
  EXPECT_EQ(idx["name"], "idx");
  EXPECT_EQ(idx["shape"], nlohmann::json::array({"s95", "s75"}));
  EXPECT_EQ(idx["dtype"], "int64");
  EXPECT_EQ(j["range_constraints"]["s95"], nlohmann::json::array({0, nullptr}));
  EXPECT_EQ(j["range_constraints"]["s75"], nlohmann::json::array({2, 1024}));
  EXPECT_EQ(j["ops"]["aten.sym_size.int"], 2);
  // The node count of PyTorch's own export of the same module and dims (its printed program:
  // forward's annotated placeholders, one line per node defined, plus the output node).
  std::ifstream f(std::string(FE_FIXTURES_DIR) + "/dynamic/gpt2_block.txt");
  ASSERT_TRUE(f.good());
  size_t pytorch_nodes = 1;
  std::regex defines(R"(^ {12}[A-Za-z_][A-Za-z0-9_]*(: "[^"]*")? = )");
  for (std::string line; std::getline(f, line);) {
    if (line.find("def forward(") != std::string::npos)
      for (size_t at = line.find(": \""); at != std::string::npos; at = line.find(": \"", at + 1)) ++pytorch_nodes;
    else if (std::regex_search(line, defines)) ++pytorch_nodes;
    if (line.starts_with("Graph signature")) break;
  }
  EXPECT_GT(pytorch_nodes, 40u);
  EXPECT_EQ(j["nodes"], pytorch_nodes);
}

}  // namespace

namespace {
// The summary is written by hand in nlohmann's dump() layout: every escape nlohmann makes (quote,
// backslash, the short escapes, \u00XX for other control bytes; bytes >= 0x20 as they are) must be
// the same text, compact and indented.
TEST(ExportSummary, TextIsNlohmannsDumpWithEveryEscape) {
  fe::ExportedProgram ep = seed::fake_export(fe::Device::parse("cuda:0"), fe::Device::parse("cuda:1"));
  const std::string odd = std::string("a\"b\\c\nd\te\rf\bg\fh") + '\x01' + "i" + '\x1f' + "\x7f" + "tail";
  ep.signature.outputs[0].name = odd;
  for (int indent : {-1, 1, 2}) {
    const std::string text = fe::program_summary_json(ep, {.indent = indent});
    const auto j = nlohmann::ordered_json::parse(text);
    EXPECT_EQ(j["outputs"][0]["name"], odd);
    EXPECT_EQ(j.dump(indent), text) << "indent " << indent;
  }
}
}  // namespace
