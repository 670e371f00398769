// Zoo family "clip" (CLIPModel) against transformers 5.12: state_dicts and parameter counts
// (openai/clip-vit-base-patch32: 151,277,313), units, exports on every placement, dynamic batch and
// seq, an eager comparison on tiny_clip (all eight outputs of the CLIPOutput), and config errors.
// Node-for-node prints are in test_zoo_golden.cpp.
#include "zoo_test_util.h"

namespace {
using namespace zoo_test;
using namespace fe;

TEST(ZooClip, StateDictsMatchTransformers) {
  for (const char* name : {"tiny_clip", "clip-vit-base-patch32"}) expect_state_dict_as_hf(name);
}

TEST(ZooClip, RealClipParameterCount) {
  EXPECT_EQ(expect_state_dict_as_hf("clip-vit-base-patch32"), 151277313);  // and num_parameters() equal to it
}

TEST(ZooClip, Units) {
  FakeTensorMode fake;
  auto m = build_named("tiny_clip");
  EXPECT_EQ(unit_paths(*m),
            (std::vector<std::string>{"vision_model.embeddings", "vision_model.pre_layrnorm",
                                      "vision_model.encoder.layers.0*", "vision_model.encoder.layers.1*",
                                      "vision_model.post_layernorm", "visual_projection", "text_model.embeddings",
                                      "text_model.encoder.layers.0*", "text_model.encoder.layers.1*",
                                      "text_model.final_layer_norm", "text_projection"}));
}

TEST(ZooClip, OutputsAndDynamicBatchSeq) {
  FakeTensorMode fake;
  auto m = build_named("clip-vit-base-patch32");
  auto in = m->example_inputs({});
  EXPECT_EQ(fe_test::ints(in.args.at(0).sizes()), (fe_test::V{2, 8}));
  EXPECT_EQ(fe_test::ints(in.args.at(1).sizes()), (fe_test::V{2, 3, 224, 224}));
  ExportedProgram ep = export_program(*m, in.args);
  // logits_per_image, logits_per_text, text_embeds, image_embeds, the text model's last_hidden_state
  // and pooler_output (projected), the vision model's (pooler_output projected).
  EXPECT_EQ(output_shapes(ep), (std::vector<V>{{2, 2}, {2, 2}, {2, 512}, {2, 512}, {2, 8, 512}, {2, 512},
                                               {2, 50, 768}, {2, 512}}));
  auto tiny = build_named("tiny_clip");
  const std::string r = ranges(export_model(*tiny, {.dynamic_batch = true, .dynamic_seq = true}));
  EXPECT_NE(r.find(":[1,1024]"), std::string::npos) << r;
  EXPECT_NE(r.find(":[2,12]"), std::string::npos) << r;  // the text positions bound the sequence
}

TEST(ZooClip, ExportsOnEveryPlacement) {
  FakeTensorMode fake;
  // The batch only: on cuda the masked attention pads seq to 8, so PyTorch refuses a dynamic seq
  // unless it is 8*_seq, and the tiny config's positions hold a single multiple of 8.
  const Placements p = export_placements("tiny_clip", {.dynamic_batch = true});
  EXPECT_TRUE(transfers(p.cpu).empty());
  EXPECT_TRUE(transfers(p.cuda).empty());
  // The vision tower on cuda:0, the text layers on cuda:1: at the cut the text's hidden states and
  // causal mask move; then transformers' own moves to the text's device: the token ids for pooling,
  // the image embeddings and the logit scale.
  EXPECT_EQ(transfers(p.pipeline), std::vector<std::string>(5, "cuda:0->cuda:1"));
}

TEST(ZooClip, EagerMatchesTransformers) { expect_matches_eager("tiny_clip"); }

TEST(ZooClip, BuiltinDefault) {
  EXPECT_EQ(builtin_output_shapes("clip"),
            (std::vector<V>{{2, 2}, {2, 2}, {2, 64}, {2, 64}, {2, 8, 64}, {2, 64}, {2, 50, 96}, {2, 64}}));
}

TEST(ZooClip, ConfigErrors) {
  const std::string heads = build_error(
      R"({"model_type": "clip", "text_config": {"hidden_size": 10, "num_attention_heads": 4}})");
  EXPECT_NE(heads.find("'text_config.hidden_size' = 10 is not a multiple of 'text_config.num_attention_heads' = 4"),
            std::string::npos)
      << heads;
  const std::string act = build_error(R"({"model_type": "clip", "vision_config": {"hidden_act": "prelu"}})");
  EXPECT_NE(act.find("field 'vision_config.hidden_act' = 'prelu' is not supported"), std::string::npos) << act;
  const std::string patch = build_error(R"({"model_type": "clip", "vision_config": {"patch_size": 0}})");
  EXPECT_NE(patch.find("field 'vision_config.patch_size' = 0 must be >= 1"), std::string::npos) << patch;
}

}  // namespace
