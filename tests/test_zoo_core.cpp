// The zoo's framework: strict config.json reading, placement by module prefix (ranges, longest
// prefix, --pipeline split), re-homing a built model, checkpoint binding, and `fakeexport export`.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "fakeexport/export/summary.h"
#include "fakeexport/fakeexport.h"
#include "fakeexport/serde/pt2.h"
#include "seed_mlp_model.h"
#include "test_util.h"

namespace {
using namespace fe;
using fe_test::blank_file_lines;
using fe_test::error_of;

zoo::Config cfg(const std::string& text) { return zoo::Config::parse(text, "cfg.json"); }

TEST(ZooConfig, MissingAndIllTypedFieldsAreNamed) {
  zoo::Config c = cfg(R"({"model_type": "mlp", "in_features": 4, "hidden_features": "8", "nested": {"a": 1}})");
  EXPECT_EQ(c.get_int("in_features"), 4);
  EXPECT_EQ(c.get_int("absent", 7), 7);
  EXPECT_EQ(error_of<ValueError>([&] { c.get_int("hidden_features"); }),
            "cfg.json: field 'hidden_features' must be an integer, got \"8\"");
  EXPECT_EQ(error_of<ValueError>([&] { c.get_int("out_features"); }),
            "cfg.json: field 'out_features' is missing (model_type 'mlp')");
  EXPECT_EQ(error_of<ValueError>([&] { c.sub("nested").get_double("b"); }), "cfg.json: field 'nested.b' is missing");
  EXPECT_EQ(error_of<ValueError>([&] { zoo::build(c); }),
            "cfg.json: field 'hidden_features' must be an integer, got \"8\"");
  EXPECT_EQ(error_of<ValueError>([&] { zoo::build(cfg(R"({"model_type": "mamba"})")); }).rfind(
                "cfg.json: unknown model_type 'mamba' (known: ", 0),
            0u);
  EXPECT_EQ(error_of<ValueError>([&] { zoo::build(cfg(R"({"hidden_size": 4})")); }),
            "cfg.json: field 'model_type' is missing");
  EXPECT_EQ(error_of<ValueError>([&] { cfg("{not json"); }).rfind("cfg.json: not valid JSON (", 0), 0u);
  EXPECT_EQ(error_of<ValueError>([&] { cfg("{\"n\": 1E999999}"); }).rfind("cfg.json: not valid JSON (", 0), 0u);
  EXPECT_EQ(error_of<ValueError>([&] { cfg("[1, 2]"); }), "cfg.json: a config must be a JSON object, got array");
  EXPECT_EQ(error_of<ValueError>([&] { zoo::Config::from_file("/nonexistent/dir/config.json"); }),
            "/nonexistent/dir/config.json: cannot read (no such file)");
}

TEST(ZooPlacement, RangesAndLongestPrefix) {
  zoo::Placement p(Device::parse("cuda:0"));
  p.add("model.layers.0-39", Device::parse("cuda:0"));
  p.add("model.layers.40-79", Device::parse("cuda:1"));
  p.add("model.layers.41.mlp", kCPU);
  p.add("lm_head", Device::parse("cuda"));  // `cuda` is cuda:0, as for fake tensors
  EXPECT_EQ(p.device_for("model.layers.39.self_attn.q_proj.weight").str(), "cuda:0");
  EXPECT_EQ(p.device_for("model.layers.40.self_attn.q_proj.weight").str(), "cuda:1");
  EXPECT_EQ(p.device_for("model.layers.41.mlp.up_proj.weight").str(), "cpu");
  EXPECT_EQ(p.device_for("model.layers.80.mlp.up_proj.weight").str(), "cuda:0");  // default
  EXPECT_EQ(p.device_for("model.layers_x.1").str(), "cuda:0");
  EXPECT_EQ(p.device_for("lm_head.weight").str(), "cuda:0");
  EXPECT_EQ(error_of<ValueError>([&] { p.add("model.layers.9-2", kCPU); }),
            "placement: malformed range '9-2' in 'model.layers.9-2' (expected FIRST-LAST with FIRST <= LAST, e.g. "
            "model.layers.0-39)");
  EXPECT_EQ(error_of<ValueError>([&] { p.add("model..x", kCPU); }),
            "placement: malformed module prefix 'model..x' (empty component)");
}

TEST(ZooPlacement, PipelineSplitsRepeatedUnitsEvenly) {
  std::vector<zoo::Unit> units{{"model.embed_tokens", false}};
  for (int i = 0; i < 126; ++i) units.push_back({"model.layers." + std::to_string(i), true});
  units.push_back({"model.norm", false});
  units.push_back({"lm_head", false});
  std::vector<Device> devs;
  for (int i = 0; i < 8; ++i) devs.push_back(Device(DeviceType::CUDA, static_cast<int8_t>(i)));
  zoo::Placement p = zoo::Placement::pipeline(units, devs);
  std::vector<int> per(8, 0);
  for (int i = 0; i < 126; ++i) per[p.device_for("model.layers." + std::to_string(i) + ".mlp.w").index()]++;
  EXPECT_EQ(per, (std::vector<int>{16, 16, 16, 16, 16, 16, 15, 15}));
  // Contiguous stages: layer 15 on cuda:0, 16 on cuda:1, 125 on cuda:7.
  EXPECT_EQ(p.device_for("model.layers.15.x").str(), "cuda:0");
  EXPECT_EQ(p.device_for("model.layers.16.x").str(), "cuda:1");
  EXPECT_EQ(p.device_for("model.layers.125.x").str(), "cuda:7");
  EXPECT_EQ(p.device_for("model.embed_tokens.weight").str(), "cuda:0");
  EXPECT_EQ(p.device_for("lm_head.weight").str(), "cuda:7");
  EXPECT_EQ(error_of<ValueError>([&] { zoo::Placement::pipeline({{"a", true}}, devs); }),
            "--pipeline: 8 devices but the model has only 1 repeated layers (each device needs at least one)");
}

std::unique_ptr<zoo::Model> mlp() { return zoo::build(zoo::builtin_config("mlp")); }

// The zoo's mlp is the seed's MLP: the same program, for each of the seed's three placements.
TEST(ZooMlp, PlacementsGiveTheSeedPrograms) {
  const Device cpu = kCPU, gpu = Device::parse("cuda");
  const int64_t before = tensor_data_bytes_allocated();
  for (auto [d1, d2] : std::vector<std::pair<Device, Device>>{{cpu, cpu}, {gpu, gpu}, {cpu, gpu}}) {
    FakeTensorMode fake;
    auto m = mlp();
    zoo::Placement p(cpu);
    p.add("fc1", d1);
    p.add("fc2", d2);
    zoo::place(*m, p);
    zoo::ExampleInputs in = m->example_inputs({});
    ExportedProgram ours = export_program(*m, in.args);
    ExportedProgram seed_ep = seed::fake_export(d1, d2);
    EXPECT_EQ(blank_file_lines(to_string(ours)), blank_file_lines(to_string(seed_ep))) << d1 << " " << d2;
    EXPECT_EQ(device_transfers(ours).size(), d1 == d2 ? 0u : 1u);
  }
  EXPECT_EQ(tensor_data_bytes_allocated(), before);  // fake build, placement and export: no data
}

TEST(ZooMlp, PlaceMovesByMetadataAndRefusesSplitUnits) {
  FakeTensorMode fake;
  auto m = mlp();
  zoo::Placement split(kCPU);
  split.add("fc1.bias", Device::parse("cuda:1"));
  EXPECT_EQ(error_of<ValueError>([&] { zoo::place(*m, split); }),
            "placement splits fc1 over two devices (fc1.weight on cpu, fc1.bias on cuda:1): place whole units "
            "(embeddings, layers, norms, heads)");
  zoo::Placement typo(kCPU);
  typo.add("fc3", kCPU);
  EXPECT_EQ(error_of<ValueError>([&] { zoo::place(*m, typo); }),
            "placement: 'fc3' matches no parameter or buffer of the mlp model");
  // Fake tensors move by metadata: parameters stay parameters, no data appears.
  const int64_t before = tensor_data_bytes_allocated();
  auto m2 = mlp();
  zoo::Placement p(Device::parse("cuda:3"));
  p.add("fc2", Device::parse("meta"));
  zoo::place(*m2, p);
  auto params = m2->named_parameters();
  ASSERT_EQ(params.size(), 4u);
  EXPECT_EQ(params[0].second->device().str(), "cuda:3");
  EXPECT_EQ(params[3].second->device().str(), "meta");
  EXPECT_TRUE(params[0].second->is_parameter());
  EXPECT_TRUE(params[0].second->is_fake());
  EXPECT_EQ(tensor_data_bytes_allocated(), before);
}

TEST(ZooWeights, LoadWeightsBindsByNameAndListsMismatches) {
  const std::string dir = std::string(FE_BUILD_DIR) + "/zoo_weights";
  std::filesystem::create_directories(dir);
  auto src = mlp();  // real CPU tensors
  save_safetensors(dir + "/ok.safetensors", src->state_dict());
  auto dst = mlp();
  zoo::load_weights(*dst, dir + "/ok.safetensors");
  Tensor x = randn({4, 128});
  Tensor a = src->forward_dyn({x})[0], b = dst->forward_dyn({x})[0];
  ASSERT_EQ(a.numel(), 40);
  for (int64_t i = 0; i < 40; ++i) EXPECT_EQ(a.data<float>()[i], b.data<float>()[i]);
  auto sd = src->state_dict();
  sd.erase(sd.begin() + 1);                           // fc1.bias missing
  sd.emplace_back("extra.weight", zeros({2}));       // unexpected
  save_safetensors(dir + "/bad.safetensors", sd);
  EXPECT_EQ(error_of<ValueError>([&] { zoo::load_weights(*dst, dir + "/bad.safetensors"); }),
            dir + "/bad.safetensors: does not match the mlp model's state_dict; missing: fc1.bias; unexpected: "
                  "extra.weight");
  sd = src->state_dict();
  sd[0].second = zeros({256, 127});
  save_safetensors(dir + "/shape.safetensors", sd);
  EXPECT_EQ(error_of<ValueError>([&] { zoo::load_weights(*dst, dir + "/shape.safetensors"); }),
            dir + "/shape.safetensors: wrong shapes or dtypes for the mlp model: fc1.weight: file has float32[256, "
                  "127], model wants float32[256, 128]");
}

using Result = fe_test::CliResult;
using fe_test::run_cli;

TEST(ZooCli, ExportMlpHybridJsonAndSummary) {
  Result r = run_cli("export mlp --place fc1=cpu --place fc2=cuda:0 --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["nodes"], 11);
  EXPECT_EQ(j["ops"]["aten.to.dtype_layout"], 1);
  EXPECT_EQ(j["devices"]["cpu"]["parameter_bytes"], (256 * 128 + 256) * 4);
  EXPECT_EQ(j["devices"]["cuda:0"]["parameter_bytes"], (10 * 256 + 10) * 4);
  EXPECT_GT(j["export_seconds"].get<double>(), 0.0);  // reported; how fast is bench/'s question
  r = run_cli("export mlp --device cuda:1 --batch 3 --dynamic batch");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("  input x: float32[\"s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  cuda:1: 139.04 KiB of weights\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  transfers: 0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("range constraints: {\"s"), std::string::npos) << r.out;
}

TEST(ZooCli, ExportAttentionMaskAddsTheInput) {
  // A decoder LM takes attention_mask after input_ids, with input_ids' sizes (and dims).
  Result r = run_cli("export llama --attention-mask --dynamic batch,seq --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  std::vector<std::string> users;
  for (const auto& in : j["inputs"])
    if (in["kind"] == "USER_INPUT") users.push_back(in["name"]);
  EXPECT_EQ(users, (std::vector<std::string>{"input_ids", "attention_mask"}));
  EXPECT_EQ(j["inputs"].back()["shape"], j["inputs"][j["inputs"].size() - 2]["shape"]);
  r = run_cli("export llama --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out)["inputs"].back()["name"], "input_ids");
}

TEST(ZooCli, ExportErrorsExit2WithOneLine) {
  for (auto [args, msg] : std::vector<std::pair<std::string, std::string>>{
           {"export nope", "fakeexport: error: unknown model 'nope': not a built-in ("},
           {"export /nonexistent/config.json", "fakeexport: error: /nonexistent/config.json: no such file or directory"},
           {"export mlp --dtype int8", "fakeexport: error: --dtype: unsupported dtype 'int8'"},
           {"export mlp --place fc1", "fakeexport: error: --place: expected PREFIX=DEVICE"},
           {"export mlp --pipeline cuda:0,cuda:1,cuda:2", "fakeexport: error: --pipeline: 3 devices but the model has only 2"},
           {"export mlp --dynamic time", "fakeexport: error: --dynamic: unknown dimension 'time' (batch, seq)"},
           {"export mlp --weights maybe -o x.pt2", "fakeexport: error: --weights: expected none, zeros, random or"},
       }) {
    Result r = run_cli(args);
    EXPECT_EQ(r.rc, 2) << args << ": " << r.out;
    EXPECT_EQ(r.out.rfind(msg, 0), 0u) << args << ": " << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << args << ": " << r.out;
  }
}

TEST(ZooCli, ExportWritesALoadableArchive) {
  const std::string out = std::string(FE_BUILD_DIR) + "/pt2_out/zoo_mlp_pipeline.pt2";
  std::filesystem::create_directories(std::string(FE_BUILD_DIR) + "/pt2_out");
  Result r = run_cli("export mlp --pipeline cpu,cuda:0 -o " + out + " --weights random");
  ASSERT_EQ(r.rc, 0) << r.out;
  serde::LoadedProgram lp = serde::load(out);
  EXPECT_TRUE(lp.weights_present);
  EXPECT_EQ(device_transfers(lp.ep).size(), 1u);
  EXPECT_EQ(device_transfers(lp.ep)[0].to.str(), "cuda:0");
}

}  // namespace
