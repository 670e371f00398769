// Zoo family "vit" (ViTForImageClassification) against transformers 5.12: state_dicts, parameter
// counts (google/vit-base-patch16-224: 86,567,656), exports on every placement, dynamic batch, an
// eager comparison on tiny_vit, and config errors.
#include "zoo_test_util.h"

namespace {
using namespace zoo_test;
using namespace fe;

const char* const kConfigs[] = {"tiny_vit", "vit_default_labels", "vit_large_bf16", "vit-base-patch16-224"};

TEST(ZooVit, StateDictsMatchTransformers) {
  for (const char* name : kConfigs) expect_state_dict_as_hf(name);
}

TEST(ZooVit, RealVitBaseParameterCount) {
  EXPECT_EQ(expect_state_dict_as_hf("vit-base-patch16-224"), 86567656);  // and num_parameters() equal to it
}

TEST(ZooVit, Units) {
  FakeTensorMode fake;
  auto m = build_named("tiny_vit");
  EXPECT_EQ(unit_paths(*m), (std::vector<std::string>{"vit.embeddings", "vit.layers.0*", "vit.layers.1*",
                                                      "vit.layernorm", "classifier"}));
}

TEST(ZooVit, ExportsOnEveryPlacement) {
  // One cut between the layers (the hidden states and the attention mask move); the head follows the
  // last layer. A half model also casts its float32 pixels (a same-device copy): transfers only.
  FakeTensorMode fake;
  for (const char* name : kConfigs) expect_transfers(name, {"cuda:0->cuda:1", "cuda:0->cuda:1"});
  // The pixels come as image processors give them, float32, whatever the model's dtype.
  for (const char* name : kConfigs) {
    const Placements p = export_placements(name);
    EXPECT_EQ(p.cpu.graph.placeholders().back()->val[0].dtype, fe::DType::Float32) << name;
  }
}

TEST(ZooVit, LogitsShapeAndDynamicBatch) {
  FakeTensorMode fake;
  auto m = build_named("vit-base-patch16-224");
  auto in = m->example_inputs({});
  EXPECT_EQ(fe_test::ints(in.args.at(0).sizes()), (fe_test::V{2, 3, 224, 224}));
  ExportedProgram ep = export_program(*m, in.args);
  EXPECT_EQ(output_shapes(ep), (std::vector<V>{{2, 1000}}));
  auto tiny = build_named("tiny_vit");
  const std::string r = ranges(export_model(*tiny, {.dynamic_batch = true}));
  EXPECT_NE(r.find(":[1,1024]"), std::string::npos) << r;
}

TEST(ZooVit, EagerMatchesTransformers) {
  // The checkpoint holds ViT's legacy names (HF renames them on load and back on save).
  expect_matches_eager("tiny_vit");
}

TEST(ZooVit, BuiltinDefault) { EXPECT_EQ(builtin_output_shapes("vit"), (std::vector<V>{{2, 10}})); }

TEST(ZooVit, ConfigErrors) {
  const std::string missing = build_error(
      R"({"model_type": "vit", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
          "image_size": 8, "patch_size": 4})");
  EXPECT_NE(missing.find("'intermediate_size' is missing"), std::string::npos) << missing;
  const std::string act = build_error(
      R"({"model_type": "vit", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
          "intermediate_size": 16, "image_size": 8, "patch_size": 4, "hidden_act": "prelu"})");
  EXPECT_NE(act.find("field 'hidden_act' = 'prelu' is not supported"), std::string::npos) << act;
  const std::string rect = build_error(
      R"({"model_type": "vit", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
          "intermediate_size": 16, "image_size": [8, 16], "patch_size": 4})");
  EXPECT_NE(rect.find("field 'image_size' must be an integer"), std::string::npos) << rect;
}

}  // namespace
