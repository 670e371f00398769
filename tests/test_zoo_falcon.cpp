// The zoo's falcon family: state_dict and non-persistent rotary buffers equal to transformers
// 5.12's for three layouts (Falcon-7B's multi-query, Falcon-40B's new_decoder_architecture, the
// sequential Falcon-RW order, with rotary or ALiBi), the published Falcon-7B/40B/180B and Falcon-RW-1B counts, export on cpu /
// cuda:0 / a pipeline, HF's eager logits (ep.run, <= 1e-4), and the configs refused with their
// field named. Node-for-node prints: tests/test_zoo_golden.cpp.
#include "zoo_test_util.h"

namespace {
using namespace zoo_test;

class ZooFalconStateDict : public ::testing::TestWithParam<std::string> {};
TEST_P(ZooFalconStateDict, EqualsTransformers) { expect_state_dict_as_hf(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Zoo, ZooFalconStateDict,
                         ::testing::Values("tiny_falcon", "tiny_falcon_40b", "tiny_falcon_sequential", "tiny_falcon_rw",
                                           "falcon-7b", "falcon-40b", "falcon-180b", "falcon-rw-1b"),
                         [](const auto& info) { return test_name(info.param); });

TEST(ZooFalconParams, PublishedCounts) {
  fe::FakeTensorMode mode;
  EXPECT_EQ(num_parameters(*build_named("falcon-7b")), 6921720704);
  EXPECT_EQ(num_parameters(*build_named("falcon-40b")), 41303293952);
  EXPECT_EQ(num_parameters(*build_named("falcon-rw-1b")), 1311625216);
  EXPECT_EQ(num_parameters(*build_named("falcon-180b")), 178557088768);
}

TEST(ZooFalcon, ExportsOnEveryPlacement) {
  // The mask function's torch.tensor(True) is made on the default device (cpu) and moved to the
  // mask's, on cuda:0 too (PyTorch 2.11's cuda:0 export asserts cpu on it: tests/fixtures/cuda/zoo);
  // one cut between the layers moves hidden states, mask, cos and sin; lm_head, tied to the
  // embeddings, stays on the first device, so the last hidden states come back.
  fe::FakeTensorMode fake;
  std::vector<std::string> want{"cpu->cuda:0"};
  want.insert(want.end(), 4, "cuda:0->cuda:1");
  want.push_back("cuda:1->cuda:0");
  for (const char* name : {"tiny_falcon", "tiny_falcon_40b"}) expect_transfers(name, want, {"cpu->cuda:0"});
}

class ZooFalconEager : public ::testing::TestWithParam<std::string> {};
TEST_P(ZooFalconEager, MatchesTransformers) { expect_matches_eager(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Zoo, ZooFalconEager,
                         ::testing::Values("tiny_falcon", "tiny_falcon_40b", "tiny_falcon_sequential", "tiny_falcon_rw"),
                         [](const auto& info) { return test_name(info.param); });

TEST(ZooFalconErrors, RefusedConfigsNameTheField) {
  const std::string base =
      R"({"model_type": "falcon", "vocab_size": 64, "hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 4)";
  EXPECT_NE(build_error(base + R"(, "tie_word_embeddings": false})").find("'tie_word_embeddings'"), std::string::npos);
  EXPECT_NE(build_error(base + R"(, "new_decoder_architecture": true, "num_kv_heads": 3})").find("num_kv_heads"),
            std::string::npos);
  EXPECT_NE(build_error(base + R"(, "activation": "mish"})").find("'activation' = 'mish' is not supported"),
            std::string::npos);
  EXPECT_EQ(build_error(base + "}"), "<no exception>");
}

TEST(ZooFalconErrors, AttentionMaskIsRefusedNotMiscompiled) {
  // transformers indexes the padding mask inside its vmapped mask function (a flat_apply node).
  const fe_test::CliResult r = fe_test::run_cli("export " + std::string(FE_FIXTURES_DIR) +
                                                "/zoo/configs/tiny_falcon.json --attention-mask");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("--attention-mask is not supported"), std::string::npos) << r.out;
}

}  // namespace
