// Resource limits (issue 18): a config asking for absurd work is refused with one line naming the
// field, the limit and the flag, before anything is built; real models pass with room.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "fakeexport/core/error.h"
#include "fakeexport/nn/zoo.h"
#include "test_util.h"

namespace {

using json = nlohmann::json;
const std::string kConfigs = std::string(FE_FIXTURES_DIR) + "/../../configs/";

/// configs/NAME.json with `edit` applied, written to a temporary file.
std::string edited_config(const std::string& name, const std::function<void(json&)>& edit) {
  std::ifstream in(kConfigs + name + ".json");
  json c = json::parse(in);
  edit(c);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("fe_limits_" + std::to_string(::getpid()) + "_" + name + ".json")).string();
  std::ofstream(path) << c.dump();
  return path;
}

TEST(Limits, HundredMillionLayersRefusedBeforeBuilding) {
  const std::string cfg = edited_config("gpt2", [](json& c) { c["n_layer"] = 100'000'000; });
  const fe_test::CliResult r = fe_test::run_cli("export " + cfg);
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("n_layer = 100000000 is over the limit of 1024 layers (raise it with --max-layers)"), std::string::npos)
      << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  std::filesystem::remove(cfg);
}

TEST(Limits, RaisedByTheFlag) {
  const std::string cfg = edited_config("gpt2", [](json& c) {
    c["n_layer"] = 1500;
    c["n_embd"] = 64, c["n_head"] = 2, c["vocab_size"] = 128;
  });
  fe_test::CliResult r = fe_test::run_cli("export " + cfg + " --json");
  EXPECT_EQ(r.rc, 2) << r.out;
  r = fe_test::run_cli("--max-layers 2000 export " + cfg + " --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_GT(json::parse(r.out)["nodes"].get<int>(), 1500 * 10);
  std::filesystem::remove(cfg);
}

TEST(Limits, NestedConfigsAreChecked) {
  const fe::zoo::Config c = fe::zoo::Config::parse(
      R"({"model_type": "vision-encoder-decoder", "encoder": {"model_type": "vit", "num_hidden_layers": 5000},
          "decoder": {"model_type": "gpt2", "n_layer": 2}})",
      "nested.json");
  const std::string msg = fe_test::error_of<fe::LimitError>([&] { fe::zoo::build(c); });
  EXPECT_NE(msg.find("num_hidden_layers = 5000 is over the limit"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nested.json"), std::string::npos) << msg;
}

TEST(Limits, ConfigBytes) {
  fe_test::CliResult r = fe_test::run_cli("--max-json-bytes 100 export " + kConfigs + "gpt2.json");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("over the limit of 100 bytes for a config.json (raise it with --max-json-bytes)"), std::string::npos)
      << r.out;
  r = fe_test::run_cli("--max-layers 0 export gpt2");
  EXPECT_EQ(r.rc, 2) << r.out;
}

TEST(Limits, RealModelsPassWithRoom) {
  for (const char* m : {"meta-llama-3.1-405b", "qwen3-30b-a3b", "mixtral-8x7b-v0.1"}) {
    const fe_test::CliResult r = fe_test::run_cli(std::string("export ") + kConfigs + m + ".json --json");
    EXPECT_EQ(r.rc, 0) << m << ": " << r.out;
  }
}

}  // namespace

namespace {

// Found by fuzz/fuzz_config.cpp: a whole-number float beyond int64 was cast to int64 (undefined
// behaviour, UBSan) and an unsigned beyond int64 wrapped; both are a ValueError naming the field.
TEST(Limits, IntegersBeyondInt64AreRefused) {
  for (const char* v : {"2e48", "-9.3e18", "18446744073709551615"}) {
    const fe::zoo::Config c =
        fe::zoo::Config::parse(std::string(R"({"model_type": "gpt2", "n_layer": )") + v + "}", "big.json");
    const std::string msg = fe_test::error_of<fe::ValueError>([&] { (void)c.get_int("n_layer"); });
    EXPECT_NE(msg.find("n_layer"), std::string::npos) << msg;
    EXPECT_NE(msg.find("out of the int64 range"), std::string::npos) << v << ": " << msg;
  }
  const fe::zoo::Config ok = fe::zoo::Config::parse(R"({"model_type": "gpt2", "n_layer": 12.0})", "ok.json");
  EXPECT_EQ(ok.get_int("n_layer"), 12);
}

}  // namespace

// fuzz_config (2026-11-27, tests/fixtures/fuzz/config_zero_head_dim.json): a Mixtral config whose
// hidden_size 31 over 32 heads makes head_dim 0 built an empty rotary table through memcpy(null, 0),
// undefined behaviour, then failed in a view; now it is refused at build, naming the fields.
// fuzz_config's finding (2026-11-27, 244,064 executions into the first campaign with the Falcon
// reader): a misspelled new_decoder_architecture left num_ln_in_parallel_attn 2 on the old layout,
// whose layer then registered ln_attn/ln_mlp but called input_layernorm (a null module).
TEST(Limits, FalconLayerNormsTheForwardCannotCallAreRefusedAtBuild) {
  const std::string path = std::string(FE_FIXTURES_DIR) + "/fuzz/config_falcon_layer_norms.json";
  try {
    fe::zoo::build(fe::zoo::Config::from_file(path));
    ADD_FAILURE() << "built";
  } catch (const fe::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("'new_decoder_architecture' false, 'parallel_attn' true and "
                                         "'num_ln_in_parallel_attn' 2 do not make a Falcon layer"),
              std::string::npos)
        << e.what();
  }
}

TEST(Limits, ZeroHeadDimIsRefusedAtBuild) {
  const std::string path = std::string(FE_FIXTURES_DIR) + "/fuzz/config_zero_head_dim.json";
  try {
    fe::zoo::build(fe::zoo::Config::from_file(path));
    ADD_FAILURE() << "built";
  } catch (const fe::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("head_dim 0 must be positive (hidden_size 31 / num_attention_heads 32)"),
              std::string::npos)
        << e.what();
  }
}

