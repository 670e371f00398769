// Issue 18: export replays a model's repeated layers once two in a row recorded the same nodes
// (ExportOptions::replay_repeated). The program must be the one a full trace gives, node for node:
// the print (names, values, source lines), every node's nn_module_stack and device, the summary.
// The golden configs of the decoder LMs (tests/fixtures/zoo_golden, PyTorch's prints) are given 7 layers here, so
// that five are replayed, on one device and as a pipeline over three, where layers move across
// devices; with dynamic batch and seq, 9 layers (the first 4-5 are traced while c10's contiguity
// checks and the sizes read from the layer before settle). Gemma 3's sliding and full layers, the
// MoE families' dense and sparse layers are different blocks: each kind is replayed from its own
// record. Whether replayed programs equal PyTorch's is checked where the goldens have 3 or more
// layers (test_zoo_golden.cpp) and by the sweeps with `--layers 4,5,6` and `--layers 6,7,8`
// (tools/oracle/scripts/sweep_zoo.py).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fakeexport/export/exported_program.h"
#include "fakeexport/export/summary.h"
#include "test_util.h"
#include "zoo_test_util.h"

namespace {

namespace zoo = fe::zoo;
const std::string kGolden = std::string(FE_FIXTURES_DIR) + "/zoo_golden";

/// Every node's name, nn_module_stack and output devices: what the print leaves out.
std::string node_details(const fe::ExportedProgram& ep) {
  std::string out;
  for (const auto& n : ep.graph.nodes()) {
    out += n->name() + ":";
    if (n->module_stack)
      for (const fe::ModuleFrame& f : *n->module_stack) out += " " + f.path + "=" + f.type_name;
    for (const fe::TensorMeta& m : n->val) out += " @" + m.device.str();
    out += "\n";
  }
  return out;
}

struct Case {
  std::string config;
  bool pipeline = false, mask = false, dynamic = false;
  std::string name() const {
    return config + (pipeline ? "_pipeline" : "") + (mask ? "_mask" : "") + (dynamic ? "_dynamic" : "");
  }
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name(); }

/// The golden config with `layers` decoder layers (Gemma 3's layer_types extended by its pattern).
zoo::Config with_layers(const std::string& config, int64_t layers) {
  nlohmann::json j = nlohmann::json::parse(fe_test::read_file(kGolden + "/" + config + ".config.json"));
  j["num_hidden_layers"] = layers;
  if (j.contains("layer_types") && j["layer_types"].is_array()) {
    const nlohmann::json types = j["layer_types"];
    j["layer_types"] = nlohmann::json::array();
    for (int64_t i = 0; i < layers; ++i) j["layer_types"].push_back(types[static_cast<size_t>(i) % types.size()]);
  }
  return zoo::Config::parse(j.dump(), config + " with " + std::to_string(layers) + " layers");
}

fe::ExportedProgram export_case(const Case& c, bool replay, fe::ExportStats* stats) {
  // Dynamic shapes: a layout is checked (c10's contiguity, traced) up to its 3rd meeting, so the
  // layers alike start later; 9 layers leave some to replay.
  const zoo::Config cfg = with_layers(c.config, c.dynamic ? 9 : 7);
  const fe::DType dtype = cfg.is_null("dtype") ? fe::DType::Float32 : fe::parse_dtype(cfg.get_string("dtype")).value();
  std::unique_ptr<zoo::Model> m;
  {
    fe::DTypeScope dt(dtype);
    m = zoo::build(cfg);
  }
  if (c.pipeline) {
    std::vector<fe::Device> devs;
    for (const char* d : {"cuda:0", "cuda:1", "cuda:2"}) devs.push_back(fe::Device::parse(d));
    zoo::place(*m, zoo::Placement::pipeline(m->units(), devs));
  }
  zoo::ExampleInputs in = m->example_inputs(
      {.batch = 2,
       .seq = c.pipeline && c.dynamic ? 16 : 8,  // a multiple of 8 above 8: _seq is not specialized to 1
       .dynamic_batch = c.dynamic,
       .dynamic_seq = c.dynamic,
       .seq_multiple = c.pipeline && c.dynamic ? 8 : 1,  // CUDA attention pads the sequence to 8
       .attention_mask = c.mask});
  return fe::export_program(*m, in.args,
                            {.dynamic_shapes = in.dynamic_shapes, .replay_repeated = replay, .stats = stats});
}

class BlockReplay : public ::testing::TestWithParam<Case> {};

TEST_P(BlockReplay, GivesTheProgramOfAFullTrace) {
  const Case& c = GetParam();
  fe::FakeTensorMode fake;
  fe::ExportStats traced_stats, replayed_stats;
  const fe::ExportedProgram traced = export_case(c, false, &traced_stats);
  const fe::ExportedProgram replayed = export_case(c, true, &replayed_stats);
  EXPECT_EQ(traced_stats.blocks_replayed, 0u);
  if (c.config == "falcon" || c.config == "falcon_40b") {
    // Falcon's rotary attention lifts two constants per layer (PyTorch's c_..._lifted_tensor_N
    // placeholders, named by the layer): a record cannot make them, so every layer is traced.
    EXPECT_EQ(replayed_stats.blocks_replayed, 0u);
  } else {
    // 7 layers of one kind: 0 recorded, 1 found equal, 2..6 replayed; with two kinds (sliding and
    // full, dense and sparse) at least the later layers of one kind.
    EXPECT_GE(replayed_stats.blocks_replayed, 2u) << "traced " << replayed_stats.blocks_traced;
    EXPECT_EQ(replayed_stats.blocks_traced + replayed_stats.blocks_replayed, c.dynamic ? 9u : 7u);
  }
  EXPECT_EQ(fe::to_string(replayed, {.read_source = false}), fe::to_string(traced, {.read_source = false}));
  EXPECT_EQ(node_details(replayed), node_details(traced));
  EXPECT_EQ(fe::program_summary_json(replayed), fe::program_summary_json(traced));
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const char* config :
       {"llama", "llama_bf16", "llama_mha_bias", "mistral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3_text",
        "phi3", "phi3_partial", "mixtral", "qwen2_moe", "qwen3_moe", "deepseek_v3", "deepseek_v3_lite", "falcon",
        "falcon_40b", "falcon_rw", "falcon_sequential", "gpt_neox", "gpt_neox_sequential"}) {
    out.push_back({config});
    out.push_back({config, true});
    out.push_back({config, false, false, true});
  }
  out.push_back({"llama", false, true});
  out.push_back({"gemma3_text", true, true});
  out.push_back({"llama", true, false, true});
  out.push_back({"mixtral", true, true, true});
  out.push_back({"gemma3_text", true, true, true});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Golden, BlockReplay, ::testing::ValuesIn(cases()), [](const auto& info) {
  return zoo_test::test_name(info.param.name());
});

// The CLI's --trace-all-layers turns replay off: the real configs' programs, placed as a pipeline
// over 8 devices, print the same either way (Llama-3.1-405B: 126 layers, 124 of them replayed),
// static and with dynamic batch and sequence.
TEST(BlockReplay, CliPrintsTheSameProgramAsTracingEveryLayer) {
  const std::string configs = std::string(FE_FIXTURES_DIR) + "/../../configs/";
  const std::string pipeline = " --pipeline cuda:0,cuda:1,cuda:2,cuda:3,cuda:4,cuda:5,cuda:6,cuda:7";
  for (const std::string m : {"meta-llama-3.1-405b", "qwen3-30b-a3b", "gemma-3-1b-it", "phi-3-mini-4k-instruct",
                              "falcon-180b", "pythia-160m", "meta-llama-3.1-405b --dynamic batch,seq",
                              "qwen3-30b-a3b --dynamic batch,seq", "gemma-3-1b-it --dynamic batch,seq"}) {
    const std::string args = "export " + configs + m.substr(0, m.find(' ')) + ".json --print" + pipeline +
                             (m.find(' ') == std::string::npos ? "" : m.substr(m.find(' ')));
    const fe_test::CliResult replayed = fe_test::run_cli(args);
    const fe_test::CliResult traced = fe_test::run_cli(args + " --trace-all-layers");
    ASSERT_EQ(replayed.rc, 0) << m << ": " << replayed.out.substr(0, 2000);
    EXPECT_EQ(traced.rc, 0) << m;
    EXPECT_GT(replayed.out.size(), 10000u) << m;
    EXPECT_TRUE(replayed.out == traced.out) << m << ": the prints differ";
  }
}

}  // namespace
