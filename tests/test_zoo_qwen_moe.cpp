// The zoo's qwen2_moe and qwen3_moe families: state_dict (Qwen3: experts before the router; Qwen2:
// a shared expert and its gate; fused 3-D experts; dense layers from mlp_only_layers /
// decoder_sparse_step) equal to transformers 5.12's, the published Qwen1.5-MoE-A2.7B and
// Qwen3-30B-A3B counts, export on cpu / cuda:0 / a pipeline, and HF's eager logits from HF's own
// per-expert checkpoint (ep.run, <= 1e-4). Node-for-node prints: tests/test_zoo_golden.cpp.
#include "zoo_test_util.h"

namespace {
using namespace zoo_test;

class ZooQwenMoeStateDict : public ::testing::TestWithParam<std::string> {};
TEST_P(ZooQwenMoeStateDict, EqualsTransformers) { expect_state_dict_as_hf(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Zoo, ZooQwenMoeStateDict,
                         ::testing::Values("tiny_qwen3_moe", "qwen3_moe_sparse_step", "qwen3-30b-a3b",
                                           "tiny_qwen2_moe", "qwen2_moe_sliding", "qwen1.5-moe-a2.7b"),
                         [](const auto& info) { return test_name(info.param); });

TEST(ZooQwenMoeParams, PublishedCount) {
  fe::FakeTensorMode mode;
  EXPECT_EQ(num_parameters(*build_named("qwen3-30b-a3b")), 30532122624);  // "30.5B"
  EXPECT_EQ(num_parameters(*build_named("qwen1.5-moe-a2.7b")), 14315784192);  // "14.3B"
}

class ZooQwenMoeExport : public ::testing::TestWithParam<ExportCase> {};
TEST_P(ZooQwenMoeExport, CpuCudaPipeline) { expect_exports(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Zoo, ZooQwenMoeExport,
                         ::testing::Values(ExportCase{"tiny_qwen3_moe", 4, false},
                                           ExportCase{"qwen3_moe_sparse_step", 4, false},
                                           ExportCase{"qwen3-30b-a3b", 4, false},
                                           ExportCase{"tiny_qwen2_moe", 4, false},
                                           ExportCase{"qwen1.5-moe-a2.7b", 4, false}),
                         [](const auto& info) { return test_name(info.param.name); });

TEST(ZooQwenMoeEager, TinyQwen3Moe) { expect_matches_eager("tiny_qwen3_moe"); }
TEST(ZooQwenMoeEager, TinyQwen2MoeWithSharedExpert) { expect_matches_eager("tiny_qwen2_moe"); }

TEST(ZooQwenMoeErrors, MissingAndUnsupportedFields) {
  const std::string base =
      R"({"model_type": "qwen3_moe", "vocab_size": 64, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 48)";
  EXPECT_NE(build_error(base + R"(, "num_experts": 4, "num_experts_per_tok": 5})").find("'num_experts_per_tok' value 5"),
            std::string::npos);
  EXPECT_NE(build_error(base + R"(, "num_experts": 0})").find("'num_experts' value 0 must be positive"),
            std::string::npos);
  EXPECT_NE(build_error(base + R"(, "decoder_sparse_step": 0})").find("'decoder_sparse_step' value 0"),
            std::string::npos);
  EXPECT_NE(build_error(base + R"(, "mlp_only_layers": [1, "x"]})").find("'mlp_only_layers' must be a list of integers"),
            std::string::npos);
  EXPECT_NE(build_error(base + R"(, "output_router_logits": true})").find("'output_router_logits'"), std::string::npos);
  EXPECT_EQ(build_error(base + R"(, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 16})"),
            "<no exception>");
}

TEST(ZooQwenMoeErrors, SharedExpertSize) {
  const std::string base =
      R"({"model_type": "qwen2_moe", "vocab_size": 64, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 48, "num_experts": 4, "num_experts_per_tok": 2)";
  EXPECT_NE(build_error(base + R"(, "shared_expert_intermediate_size": 0})").find("'shared_expert_intermediate_size' value 0"),
            std::string::npos);
  EXPECT_EQ(build_error(base + "}"), "<no exception>");
}

TEST(ZooQwenMoeBuiltins, DefaultConfigExportsWithItsDenseLayer) {
  fe::FakeTensorMode mode;
  auto m = fe::zoo::build(fe::zoo::builtin_config("qwen3_moe"));
  EXPECT_EQ(m->model_type(), "qwen3_moe");
  auto in = m->example_inputs({.dynamic_batch = true});
  fe::ExportedProgram ep = fe::export_program(*m, in.args, {.dynamic_shapes = in.dynamic_shapes});
  size_t grouped = 0, dense_up = 0;
  for (const auto& [name, t] : ep.state_dict) {
    grouped += name.ends_with("mlp.experts.gate_up_proj");
    dense_up += name.ends_with("mlp.up_proj.weight");
  }
  EXPECT_EQ(grouped, 3u);  // layers 0-2 sparse
  EXPECT_EQ(dense_up, 1u);  // mlp_only_layers [3]
}

}  // namespace
