// The zoo's t5 family (T5ForConditionalGeneration: T5, T5 v1.1, Flan-T5): state_dict equal to
// transformers 5.12's (the relative attention bias in each stack's first block only, wi / wi_0 wi_1,
// one tied embedding), the published t5-small and Flan-T5-XL counts, export on cpu / cuda:0 / a
// pipeline with dynamic batch and both lengths, and HF's eager outputs (ep.run, <= 1e-4).
// Node-for-node prints: tests/test_zoo_golden.cpp (t5, t5_gated).
#include "zoo_test_util.h"

namespace {
using namespace zoo_test;

class ZooT5StateDict : public ::testing::TestWithParam<std::string> {};
TEST_P(ZooT5StateDict, EqualsTransformers) { expect_state_dict_as_hf(GetParam(), "t5"); }
INSTANTIATE_TEST_SUITE_P(Zoo, ZooT5StateDict,
                         ::testing::Values("tiny_t5", "tiny_t5_gated", "t5_bf16_silu", "t5-small", "flan-t5-xl"),
                         [](const auto& info) { return test_name(info.param); });

TEST(ZooT5, PublishedCountsAndOneTiedEmbedding) {
  fe::FakeTensorMode fm;
  EXPECT_EQ(num_parameters(*build_named("t5-small")), 60506624);
  // transformers 5.12 ties lm_head to shared even where the config says tie_word_embeddings false.
  auto m = build_named("flan-t5-xl");
  EXPECT_EQ(num_parameters(*m), 2783959040);
  auto sd = m->state_dict();
  const auto get = [&](const std::string& n) {
    for (auto& [k, t] : sd)
      if (k == n) return t;
    ADD_FAILURE() << n;
    return fe::Tensor();
  };
  for (const char* n : {"lm_head.weight", "encoder.embed_tokens.weight", "decoder.embed_tokens.weight"})
    EXPECT_TRUE(get(n).is_same(get("shared.weight"))) << n;
  // shared, 24 + 24 blocks, two final norms, lm_head.
  EXPECT_EQ(m->units().size(), 1u + 24u + 1u + 24u + 1u + 1u);
}

TEST(ZooT5, ExportsOnCpuCudaPipelineAndDynamic) {
  for (const char* name : {"tiny_t5", "tiny_t5_gated", "t5-small"}) {
    SCOPED_TRACE(name);
    fe::FakeTensorMode fm;
    const Placements p = export_placements(name);
    EXPECT_TRUE(transfers(p.cpu).empty());
    EXPECT_TRUE(transfers(p.cuda).empty());
    ASSERT_EQ(output_devices(p.cpu).size(), 2u);  // logits, encoder_last_hidden_state
    EXPECT_FALSE(transfers(p.pipeline).empty());
    auto m = build_named(name);
    const fe::ExportedProgram ep = export_model(*m, {.dynamic_batch = true, .dynamic_seq = true});
    // batch (shared by both inputs), seq, decoder_seq; relative positions leave the lengths unbounded.
    ASSERT_EQ(ep.range_constraints.size(), 3u);
    EXPECT_NE(ranges(ep).find(std::to_string(fe::kIntOo)), std::string::npos) << ranges(ep);
  }
}

TEST(ZooT5Eager, Tiny) { expect_matches_eager("tiny_t5"); }
TEST(ZooT5Eager, GatedGeluUnscaledUnevenStacks) { expect_matches_eager("tiny_t5_gated"); }

TEST(ZooT5Errors, FieldsNamed) {
  const std::string base = R"({"model_type": "t5", "vocab_size": 64, "d_model": 32, "d_kv": 8, "d_ff": 64, "num_layers": 2, "num_heads": 4)";
  EXPECT_NE(build_error(base + R"(, "feed_forward_proj": "gated-gelu-x"})").find("`feed_forward_proj`: gated-gelu-x is not a valid"),
            std::string::npos);
  EXPECT_NE(build_error(base + R"(, "feed_forward_proj": "swishy"})").find("'swishy' is not supported"), std::string::npos);
  EXPECT_NE(build_error(base + R"(, "num_heads": 0})").find("'num_heads' value 0 must be positive"), std::string::npos);
  EXPECT_NE(build_error(base + R"(, "relative_attention_num_buckets": 2})").find("'relative_attention_num_buckets' value 2"),
            std::string::npos);
  EXPECT_NE(build_error(base + R"(, "relative_attention_max_distance": 4, "relative_attention_num_buckets": 8})")
                .find("'relative_attention_max_distance' value 4"),
            std::string::npos);
  EXPECT_EQ(build_error(base + R"(, "feed_forward_proj": "gated-silu"})"), "<no exception>");
}

}  // namespace
