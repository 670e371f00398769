// The zoo's gpt_neox family: state_dict and non-persistent rotary buffers (rotary_pct of each head)
// equal to transformers 5.12's, the published Pythia-160M count, export on cpu / cuda:0 / a pipeline,
// and HF's eager logits (ep.run, <= 1e-4). Node-for-node prints: tests/test_zoo_golden.cpp.
#include "zoo_test_util.h"

namespace {
using namespace zoo_test;

class ZooGptNeoXStateDict : public ::testing::TestWithParam<std::string> {};
TEST_P(ZooGptNeoXStateDict, EqualsTransformers) { expect_state_dict_as_hf(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Zoo, ZooGptNeoXStateDict, ::testing::Values("tiny_gpt_neox", "pythia-160m"),
                         [](const auto& info) { return test_name(info.param); });

TEST(ZooGptNeoXParams, PublishedCount) {
  fe::FakeTensorMode mode;
  EXPECT_EQ(num_parameters(*build_named("pythia-160m")), 162322944);
}

TEST(ZooGptNeoX, ExportsOnEveryPlacement) {
  // One cut between the layers: hidden states, mask, cos and sin move; embed_out follows the last layer.
  fe::FakeTensorMode fake;
  for (const char* name : {"tiny_gpt_neox", "pythia-160m"})
    expect_transfers(name, std::vector<std::string>(4, "cuda:0->cuda:1"));
}

TEST(ZooGptNeoXEager, TinyGptNeoX) { expect_matches_eager("tiny_gpt_neox"); }

TEST(ZooGptNeoXErrors, RotaryPctAndTying) {
  const std::string base =
      R"({"model_type": "gpt_neox", "vocab_size": 64, "hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 4, "intermediate_size": 48)";
  EXPECT_NE(build_error(base + R"(, "rotary_pct": 0.1})").find("'rotary_pct' value 0.1"), std::string::npos);
  EXPECT_NE(build_error(base + R"(, "tie_word_embeddings": true})").find("'tie_word_embeddings'"), std::string::npos);
  EXPECT_NE(build_error(base + R"(, "hidden_act": "mish"})").find("'hidden_act' = 'mish' is not supported"), std::string::npos);
  EXPECT_EQ(build_error(base + "}"), "<no exception>");
}

}  // namespace
