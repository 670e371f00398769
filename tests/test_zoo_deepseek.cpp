// The zoo's deepseek_v3 family: state_dict (MLA's low-rank projections and norms, the router's
// correction-bias buffer, fused 3-D experts, shared experts, dense first layers) equal to
// transformers 5.12's, the published DeepSeek-V3 count (671B), export on cpu / cuda:0 / a pipeline,
// and HF's eager logits from HF's own per-expert checkpoint (ep.run, <= 1e-4). Node-for-node
// prints: tests/test_zoo_golden.cpp (deepseek_v3*).
#include "zoo_test_util.h"

namespace {
using namespace zoo_test;

class ZooDeepseekStateDict : public ::testing::TestWithParam<std::string> {};
TEST_P(ZooDeepseekStateDict, EqualsTransformers) { expect_state_dict_as_hf(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Zoo, ZooDeepseekStateDict,
                         ::testing::Values("tiny_deepseek_v3", "tiny_deepseek_v3_lite", "deepseek_v3_bf16_groups",
                                           "deepseek-v3"),
                         [](const auto& info) { return test_name(info.param); });

TEST(ZooDeepseekParams, PublishedCount) {
  fe::FakeTensorMode mode;
  // "671B total parameters" (the multi-token-prediction layer 61 is not part of the HF model).
  EXPECT_EQ(num_parameters(*build_named("deepseek-v3")), 671026404352);
}

class ZooDeepseekExport : public ::testing::TestWithParam<ExportCase> {};
TEST_P(ZooDeepseekExport, CpuCudaPipeline) { expect_exports(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Zoo, ZooDeepseekExport,
                         ::testing::Values(ExportCase{"tiny_deepseek_v3", 4, false},
                                           ExportCase{"tiny_deepseek_v3_lite", 4, false},
                                           ExportCase{"deepseek_v3_bf16_groups", 4, false},
                                           ExportCase{"deepseek-v3", 4, false}),
                         [](const auto& info) { return test_name(info.param.name); });

TEST(ZooDeepseekEager, TinyDeepseekV3) { expect_matches_eager("tiny_deepseek_v3"); }
TEST(ZooDeepseekEager, WithoutQueryRankInterleaveOrRenormalization) { expect_matches_eager("tiny_deepseek_v3_lite"); }

TEST(ZooDeepseekErrors, RoutingAndSizeFields) {
  const std::string base =
      R"({"model_type": "deepseek_v3", "vocab_size": 64, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 48, "moe_intermediate_size": 8, "q_lora_rank": 8, "kv_lora_rank": 8, "qk_rope_head_dim": 4, "qk_nope_head_dim": 4, "v_head_dim": 4, "first_k_dense_replace": 1)";
  EXPECT_NE(build_error(base + R"(, "n_routed_experts": 8, "n_group": 3, "topk_group": 1, "num_experts_per_tok": 2})")
                .find("'n_group' value 3 must divide n_routed_experts (8) into groups of at least 2 experts"),
            std::string::npos);
  EXPECT_NE(build_error(base + R"(, "n_routed_experts": 8, "n_group": 8, "topk_group": 1, "num_experts_per_tok": 2})")
                .find("'n_group' value 8"),
            std::string::npos);
  EXPECT_NE(build_error(base + R"(, "n_routed_experts": 8, "n_group": 2, "topk_group": 3, "num_experts_per_tok": 2})")
                .find("'topk_group' value 3 must be at most n_group (2)"),
            std::string::npos);
  EXPECT_NE(build_error(base + R"(, "n_routed_experts": 8, "n_group": null, "topk_group": 1, "num_experts_per_tok": 2})")
                .find("'n_group' and 'topk_group' must be set"),
            std::string::npos);
  EXPECT_NE(build_error(base + R"(, "n_routed_experts": 8, "n_group": 2, "topk_group": 1, "num_experts_per_tok": 9})")
                .find("'num_experts_per_tok' value 9"),
            std::string::npos);
  EXPECT_NE(build_error(base + R"(, "n_routed_experts": 8, "n_group": 2, "topk_group": 1, "num_experts_per_tok": 2, "kv_lora_rank": 0})")
                .find("'kv_lora_rank' value 0 must be positive"),
            std::string::npos);
  EXPECT_EQ(build_error(base + R"(, "n_routed_experts": 8, "n_group": 2, "topk_group": 1, "num_experts_per_tok": 2})"),
            "<no exception>");
}

}  // namespace
