// Zoo family "bert" (transformers BertModel) against transformers 5.12: state_dict names, shapes,
// dtypes and non-persistent buffers per config (tests/fixtures/zoo/state_dicts, gen_zoo.py), exports
// on cpu / cuda:0 / a two-device pipeline, dynamic batch+seq, and eager outputs of tiny_bert.
#include "zoo_test_util.h"

namespace {
using namespace zoo_test;

const std::vector<std::string> kBertConfigs = {"tiny_bert",         "bert_small",     "bert_large",
                                               "bert_type_vocab16", "bert_bf16_relu", "bert-base-uncased"};

TEST(ZooBert, StateDictsMatchTransformers) {
  for (const std::string& name : kBertConfigs) expect_state_dict_as_hf(name, "bert");
}

TEST(ZooBert, BertBaseUncasedHasThePublishedParameterCount) {
  fe::FakeTensorMode fm;
  auto m = build_named("bert-base-uncased");
  EXPECT_EQ(num_parameters(*m), 109482240);
  EXPECT_EQ(m->units().size(), 14u);  // embeddings, 12 layers, pooler
}

TEST(ZooBert, ExportsOnCpuCudaAndPipeline) {
  for (const std::string& name : kBertConfigs) {
    SCOPED_TRACE(name);
    fe::FakeTensorMode fm;
    // One cut: the hidden states and the attention mask entering the first layer of cuda:1 (the
    // pooler follows the last layer).
    const Placements p = expect_copies(name, {"cuda:0->cuda:1", "cuda:0->cuda:1"});
    ASSERT_EQ(output_devices(p.cpu).size(), 2u);  // last_hidden_state, pooler_output
    EXPECT_EQ(output_devices(p.pipeline).at(1), "cuda:1");
  }
}

TEST(ZooBert, ExportsWithDynamicBatchAndSeq) {
  fe::FakeTensorMode fm;
  auto m = build_named("bert-base-uncased");
  fe::ExportedProgram ep = export_model(*m, {.dynamic_batch = true, .dynamic_seq = true});
  ASSERT_EQ(ep.range_constraints.size(), 2u);  // batch in [1, 1024], seq in [2, 512]
  EXPECT_EQ(ep.range_constraints[1].second.hi, 512);
}

TEST(ZooBert, TinyMatchesTransformersEager) { expect_matches_eager("tiny_bert"); }

TEST(ZooBert, ConfigErrorsNameTheField) {
  const std::string base = R"("model_type": "bert", "vocab_size": 10, "num_hidden_layers": 1,
      "num_attention_heads": 2, "intermediate_size": 8, "max_position_embeddings": 16)";
  EXPECT_NE(build_error("{" + base + "}").find("hidden_size"), std::string::npos);
  const std::string ok = "{" + base + R"(, "hidden_size": 8)";
  EXPECT_EQ(build_error(ok + "}"), "<no exception>");
  EXPECT_NE(build_error(ok + R"(, "hidden_act": "mish"})").find("'hidden_act' = 'mish'"), std::string::npos);
  EXPECT_NE(build_error(ok + R"(, "is_decoder": true})").find("is_decoder"), std::string::npos);
  EXPECT_NE(build_error(ok + R"(, "position_embedding_type": "relative_key"})").find("position_embedding_type"),
            std::string::npos);
  const std::string odd = "{" + base + R"(, "hidden_size": 9})";
  EXPECT_NE(build_error(odd).find("hidden_size"), std::string::npos);
}

TEST(ZooBert, BuiltinDefaultExports) { EXPECT_EQ(builtin_output_shapes("bert").size(), 2u); }

}  // namespace
