// The zoo's llama family (model_type llama, mistral, qwen2, qwen3, gemma, gemma2, gemma3_text): state_dict names/shapes/dtypes,
// non-persistent buffers and parameter counts equal to transformers 5.12's (fixtures from
// tools/oracle/scripts/gen_zoo.py), export on cpu / cuda:0 / a two-device pipeline with transfers
// only at the cut, dynamic batch and seq, and ep.run equal to HF's eager logits on tiny configs.
#include <chrono>

#include "zoo_test_util.h"

namespace {
using namespace zoo_test;

class ZooLlamaStateDict : public ::testing::TestWithParam<std::string> {};
TEST_P(ZooLlamaStateDict, EqualsTransformers) { expect_state_dict_as_hf(GetParam()); }
INSTANTIATE_TEST_SUITE_P(
    Zoo, ZooLlamaStateDict,
    ::testing::Values("tiny_llama", "tiny_mistral", "tiny_qwen2", "tiny_qwen3", "tiny_gemma", "tiny_gemma2", "llama_2_mha", "llama_3_gqa", "llama_31_rope",
                      "llama_bias_headdim", "llama_bf16", "mistral_small", "mistral_no_window", "qwen2_small",
                      "qwen2_sliding_tied", "meta-llama-3-8b", "meta-llama-3-70b", "meta-llama-3.1-405b",
                      "gemma-2-2b", "tiny_qwen2_yarn", "tiny_llama_yarn_mscale", "tiny_gemma3_text", "gemma3_text_layer_types_bf16", "gemma-3-1b-it"),
    [](const auto& info) { return test_name(info.param); });

TEST(ZooLlamaParams, PublishedCounts) {
  fe::FakeTensorMode mode;
  EXPECT_EQ(num_parameters(*build_named("meta-llama-3-8b")), 8030261248);
  EXPECT_EQ(num_parameters(*build_named("meta-llama-3-70b")), 70553706496);
  EXPECT_EQ(num_parameters(*build_named("meta-llama-3.1-405b")), 405853388800);
  EXPECT_EQ(num_parameters(*build_named("gemma-2-2b")), 2614341888);
  EXPECT_EQ(num_parameters(*build_named("gemma-3-1b-it")), 999885952);
}

TEST(ZooLlamaParams, Bf16KeepsInvFreqFloat32) {
  fe::FakeTensorMode mode;
  auto m = build_named("llama_bf16");
  for (auto& [n, t] : m->named_parameters()) EXPECT_EQ(t->dtype(), fe::DType::BFloat16) << n;
  for (auto& [n, t] : m->named_buffers()) EXPECT_EQ(t->dtype(), fe::DType::Float32) << n;
  auto in = m->example_inputs({});
  fe::ExportedProgram ep = fe::export_program(*m, in.args);
  EXPECT_EQ(ep.graph.nodes().back()->inputs().at(0)->val.at(0).dtype, fe::DType::BFloat16);
}

class ZooLlamaExport : public ::testing::TestWithParam<ExportCase> {};
TEST_P(ZooLlamaExport, CpuCudaPipeline) { expect_exports(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Zoo, ZooLlamaExport,
                         ::testing::Values(ExportCase{"tiny_llama", 4, false}, ExportCase{"tiny_mistral", 4, false},
                                           ExportCase{"tiny_qwen2", 4, true}, ExportCase{"llama_3_gqa", 4, false},
                                           ExportCase{"llama_bias_headdim", 4, true},
                                           ExportCase{"mistral_no_window", 4, false},
                                           ExportCase{"qwen2_small", 4, false}, ExportCase{"llama_bf16", 4, false},
                                           ExportCase{"tiny_gemma2", 4, true}, ExportCase{"tiny_gemma3_text", 4, true}),
                         [](const auto& info) { return test_name(info.param.name); });

TEST(ZooLlamaExport, Llama31_405bPipelineIsFast) {
  fe::FakeTensorMode mode;
  const auto t0 = std::chrono::steady_clock::now();
  auto m = build_named("meta-llama-3.1-405b");
  fe::zoo::place(*m, fe::zoo::Placement::pipeline(m->units(), {fe::Device::parse("cuda:0"), fe::Device::parse("cuda:1")}));
  auto in = m->example_inputs({});
  const auto t1 = std::chrono::steady_clock::now();
  fe::ExportedProgram ep = fe::export_program(*m, in.args, {.dynamic_shapes = in.dynamic_shapes});
  const auto t2 = std::chrono::steady_clock::now();
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::cout << "[ llama-3.1-405b ] build+place " << ms(t0, t1) << " ms, export " << ms(t1, t2) << " ms, "
            << ep.graph.nodes().size() << " nodes\n";
  // hidden, the causal mask, cos, sin before model.layers.63
  EXPECT_EQ(transfers(ep), std::vector<std::string>(4, "cuda:0->cuda:1"));
  EXPECT_EQ(ep.state_dict.size(), 1137u);
}

TEST(ZooLlamaEager, TinyLlama) { expect_matches_eager("tiny_llama"); }
TEST(ZooLlamaEager, TinyMistralSlidingWindow) { expect_matches_eager("tiny_mistral"); }
TEST(ZooLlamaEager, TinyQwen2) { expect_matches_eager("tiny_qwen2"); }
TEST(ZooLlamaEager, TinyQwen3) { expect_matches_eager("tiny_qwen3"); }
TEST(ZooLlamaEager, TinyGemma) { expect_matches_eager("tiny_gemma"); }
TEST(ZooLlamaEager, TinyGemma2SandwichNormsWindowsSoftcap) { expect_matches_eager("tiny_gemma2"); }
TEST(ZooLlamaEager, TinyGemma3TextRotaryPerLayerTypeQkNorms) { expect_matches_eager("tiny_gemma3_text"); }
TEST(ZooLlamaEager, TinyQwen2YarnRope) { expect_matches_eager("tiny_qwen2_yarn"); }
TEST(ZooLlamaEager, TinyLlamaYarnMscale) { expect_matches_eager("tiny_llama_yarn_mscale"); }

TEST(ZooLlamaErrors, MissingAndUnsupportedFields) {
  const std::string base =
      R"("vocab_size": 64, "intermediate_size": 48, "num_hidden_layers": 1, "num_attention_heads": 4)";
  EXPECT_NE(build_error(R"({"model_type": "llama", )" + base + "}").find("'hidden_size' is missing"),
            std::string::npos);
  const std::string ok = R"({"model_type": "llama", "hidden_size": 32, )" + base;
  EXPECT_NE(build_error(ok + R"(, "rope_scaling": {"rope_type": "longrope", "factor": 2.0}})")
                .find("'rope_scaling.rope_type' value 'longrope' is not supported (supported: default, linear, llama3, "
                      "yarn); torch.export cannot export it either"),
            std::string::npos);
  EXPECT_NE(build_error(ok + R"(, "hidden_act": "mish"})").find("'hidden_act' = 'mish' is not supported"),
            std::string::npos);
  EXPECT_NE(build_error(ok + R"(, "num_key_value_heads": 3})").find("'num_key_value_heads' value 3"),
            std::string::npos);
  EXPECT_NE(build_error(R"({"model_type": "qwen2", "hidden_size": 32, )" + base + R"(, "layer_types": ["chunked"]})")
                .find("'layer_types'"),
            std::string::npos);
  EXPECT_EQ(build_error(ok + "}"), "<no exception>");
}

TEST(ZooLlamaBuiltins, DefaultConfigsExport) {
  fe::FakeTensorMode mode;
  for (const char* name : {"llama", "mistral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3_text", "phi3"}) {
    SCOPED_TRACE(name);
    auto m = fe::zoo::build(fe::zoo::builtin_config(name));
    EXPECT_EQ(m->model_type(), name);
    auto in = m->example_inputs({.dynamic_seq = true});
    fe::ExportedProgram ep = fe::export_program(*m, in.args, {.dynamic_shapes = in.dynamic_shapes});
    EXPECT_TRUE(transfers(ep).empty());
  }
}

}  // namespace
