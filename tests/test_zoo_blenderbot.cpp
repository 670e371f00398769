// Zoo family "blenderbot" (transformers BlenderbotForConditionalGeneration) against transformers
// 5.12: state_dicts per config (BlenderbotConfig() defaults included: the seed 003 model), exports on
// cpu / cuda:0 / a two-device pipeline, dynamic shapes, eager outputs of tiny_blenderbot.
#include "zoo_test_util.h"

namespace {
using namespace zoo_test;

struct Case {
  std::string name;
  std::vector<std::string> pipeline_transfers;  // devices of the transfer nodes, in graph order
};

// Tied models: the hidden states, the causal mask, the encoder output and its mask enter the first
// cuda:1 decoder layer, the hidden states return to cuda:0 for lm_head (it computes on
// model.shared's device), then HF's final_logits_bias.to(lm_logits.device) (a no-op, which
// torch.export records all the same). Untied 3+1 layers: the cut is inside the encoder (hidden
// states and mask), the decoder ids follow decoder.embed_tokens, the decoder's masks are made on
// cuda:1, and final_logits_bias (default device, cuda:0) follows the logits.
const std::vector<std::string> kTied = {"cuda:0->cuda:1", "cuda:0->cuda:1", "cuda:0->cuda:1", "cuda:0->cuda:1",
                                        "cuda:1->cuda:0", "cuda:0->cuda:0"};
const std::vector<Case> kCases = {
    {"tiny_blenderbot", kTied},
    {"blenderbot_default", kTied},
    {"blenderbot_400m", kTied},
    {"blenderbot_untied_relu", {"cuda:0->cuda:1", "cuda:0->cuda:1", "cuda:0->cuda:1", "cuda:0->cuda:1"}},
    {"blenderbot_fp16", kTied},
};

TEST(ZooBlenderbot, StateDictsMatchTransformers) {
  for (const Case& c : kCases) expect_state_dict_as_hf(c.name, "blenderbot");
}

TEST(ZooBlenderbot, DefaultConfigIsTheSeedModel) {
  // BlenderbotConfig(): 2 encoder + 24 decoder layers, d_model 2560 (facebook/blenderbot-3B's shape).
  fe::FakeTensorMode fm;
  auto m = build_named("blenderbot_default");
  EXPECT_EQ(num_parameters(*m), 2696268800);
  EXPECT_EQ(m->units().size(), 2u + 2u + 1u + 1u + 24u + 1u + 1u);
  // Tied: model.shared, both embed_tokens and lm_head are one tensor.
  auto sd = m->state_dict();
  auto get = [&](const std::string& n) {
    for (auto& [k, t] : sd)
      if (k == n) return t;
    ADD_FAILURE() << n;
    return fe::Tensor();
  };
  EXPECT_TRUE(get("lm_head.weight").is_same(get("model.shared.weight")));
  EXPECT_TRUE(get("model.encoder.embed_tokens.weight").is_same(get("model.shared.weight")));
  EXPECT_TRUE(get("model.decoder.embed_tokens.weight").is_same(get("model.shared.weight")));
}

TEST(ZooBlenderbot, ExportsOnCpuCudaAndPipeline) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    fe::FakeTensorMode fm;
    const Placements p = export_placements(c.name);
    // Only HF's final_logits_bias.to(lm_logits.device), which moves nothing.
    EXPECT_EQ(copies(p.cpu), std::vector<std::string>{"cpu->cpu"});
    ASSERT_EQ(output_devices(p.cpu).size(), 2u);  // logits, encoder_last_hidden_state
    EXPECT_EQ(copies(p.cuda), std::vector<std::string>{"cuda:0->cuda:0"});
    EXPECT_EQ(copies(p.pipeline), c.pipeline_transfers);
  }
}

TEST(ZooBlenderbot, ExportsWithDynamicBatchAndSeqs) {
  fe::FakeTensorMode fm;
  auto m = build_named("blenderbot_400m");
  fe::ExportedProgram ep = export_model(*m, {.dynamic_batch = true, .dynamic_seq = true});
  // batch (shared by both inputs), seq, decoder_seq.
  ASSERT_EQ(ep.range_constraints.size(), 3u);
}

TEST(ZooBlenderbot, TinyMatchesTransformersEager) { expect_matches_eager("tiny_blenderbot"); }

TEST(ZooBlenderbot, ConfigErrorsNameTheField) {
  const std::string base = R"("model_type": "blenderbot", "vocab_size": 10, "encoder_layers": 1, "decoder_layers": 1,
      "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 8, "decoder_ffn_dim": 8)";
  EXPECT_NE(build_error("{" + base + R"(, "max_position_embeddings": 16})").find("d_model"), std::string::npos);
  const std::string ok = "{" + base + R"(, "d_model": 8, "max_position_embeddings": 16)";
  EXPECT_EQ(build_error(ok + "}"), "<no exception>");
  EXPECT_NE(build_error(ok + R"(, "activation_function": "mish"})").find("'activation_function' = 'mish'"),
            std::string::npos);
  const std::string odd = "{" + base + R"(, "d_model": 6, "max_position_embeddings": 16})";  // 6 % 2 == 0 ...
  EXPECT_EQ(build_error(odd), "<no exception>");
  const std::string odd3 = "{" + base + R"(, "d_model": 7, "max_position_embeddings": 16})";  // ... 7 % 2 != 0
  EXPECT_NE(build_error(odd3).find("'d_model' = 7"), std::string::npos);
}

TEST(ZooBlenderbot, BuiltinDefaultExports) { EXPECT_EQ(builtin_output_shapes("blenderbot").size(), 2u); }

}  // namespace
