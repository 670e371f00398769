// The zoo's phi3 family: state_dict (o_proj before the fused qkv_proj, gate_up_proj) equal to
// transformers 5.12's, the published Phi-3-mini-4k count, export on cpu / cuda:0 / a pipeline, and
// HF's eager logits with partial rotary and a sliding window (ep.run, <= 1e-4). Node-for-node
// prints: tests/test_zoo_golden.cpp.
#include "zoo_test_util.h"

namespace {
using namespace zoo_test;

class ZooPhi3StateDict : public ::testing::TestWithParam<std::string> {};
TEST_P(ZooPhi3StateDict, EqualsTransformers) { expect_state_dict_as_hf(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Zoo, ZooPhi3StateDict, ::testing::Values("tiny_phi3", "phi-3-mini-4k-instruct"),
                         [](const auto& info) { return test_name(info.param); });

TEST(ZooPhi3Params, PublishedCount) {
  fe::FakeTensorMode mode;
  EXPECT_EQ(num_parameters(*build_named("phi-3-mini-4k-instruct")), 3821079552);  // "3.8B"
}

class ZooPhi3Export : public ::testing::TestWithParam<ExportCase> {};
TEST_P(ZooPhi3Export, CpuCudaPipeline) { expect_exports(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Zoo, ZooPhi3Export,
                         ::testing::Values(ExportCase{"tiny_phi3", 4, false}, ExportCase{"phi-3-mini-4k-instruct", 4, false}),
                         [](const auto& info) { return test_name(info.param.name); });

TEST(ZooPhi3Eager, TinyPhi3) { expect_matches_eager("tiny_phi3"); }

TEST(ZooPhi3Errors, RotaryFactor) {
  const std::string base =
      R"({"model_type": "phi3", "vocab_size": 64, "hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 4, "intermediate_size": 48, "pad_token_id": null)";
  EXPECT_NE(build_error(base + R"(, "partial_rotary_factor": 0.1})").find("'partial_rotary_factor' value 0.1 is not supported"),
            std::string::npos);
  EXPECT_NE(build_error(base + R"(, "rope_scaling": {"rope_type": "longrope", "short_factor": [1], "long_factor": [1]}})")
                .find("longrope"),
            std::string::npos);
  EXPECT_EQ(build_error(base + R"(, "partial_rotary_factor": 0.75})"), "<no exception>");
  // Other families keep refusing a partial rotary factor.
  EXPECT_NE(build_error(R"({"model_type": "llama", "vocab_size": 64, "hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 4, "intermediate_size": 48, "partial_rotary_factor": 0.5})")
                .find("(only 1.0)"),
            std::string::npos);
}

}  // namespace
