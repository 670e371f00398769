// Zoo family "whisper" (WhisperForConditionalGeneration) against transformers 5.12: state_dicts and
// parameter counts (openai/whisper-tiny: 37,760,640), units, exports on every placement, dynamic batch
// and decoder length, an eager comparison on tiny_whisper, and config errors. Node-for-node prints are
// in test_zoo_golden.cpp.
#include "zoo_test_util.h"

namespace {
using namespace zoo_test;
using namespace fe;

TEST(ZooWhisper, StateDictsMatchTransformers) {
  for (const char* name : {"tiny_whisper", "whisper-tiny"}) expect_state_dict_as_hf(name);
}

TEST(ZooWhisper, RealWhisperTinyParameterCount) {
  EXPECT_EQ(expect_state_dict_as_hf("whisper-tiny"), 37760640);  // and num_parameters() equal to it
}

TEST(ZooWhisper, Units) {
  FakeTensorMode fake;
  auto m = build_named("tiny_whisper");
  EXPECT_EQ(unit_paths(*m),
            (std::vector<std::string>{"model.encoder.conv1", "model.encoder.conv2", "model.encoder.embed_positions",
                                      "model.encoder.layers.0*", "model.encoder.layers.1*", "model.encoder.layer_norm",
                                      "model.decoder.embed_tokens", "model.decoder.embed_positions",
                                      "model.decoder.layers.0*", "model.decoder.layers.1*",
                                      "model.decoder.layer_norm"}));
}

TEST(ZooWhisper, OutputsAndDynamicBatchSeq) {
  FakeTensorMode fake;
  auto m = build_named("whisper-tiny");
  auto in = m->example_inputs({});
  EXPECT_EQ(fe_test::ints(in.args.at(0).sizes()), (fe_test::V{2, 80, 3000}));  // 30 s of log-mel frames
  EXPECT_EQ(fe_test::ints(in.args.at(1).sizes()), (fe_test::V{2, 8}));
  ExportedProgram ep = export_program(*m, in.args);
  EXPECT_EQ(output_shapes(ep), (std::vector<V>{{2, 8, 51865}, {2, 1500, 384}}));
  auto tiny = build_named("tiny_whisper");
  const std::string r = ranges(export_model(*tiny, {.dynamic_batch = true, .dynamic_seq = true}));
  EXPECT_NE(r.find(":[1,1024]"), std::string::npos) << r;
  EXPECT_NE(r.find(":[2,12]"), std::string::npos) << r;  // the decoder positions bound its length
}

TEST(ZooWhisper, ExportsOnEveryPlacement) {
  FakeTensorMode fake;
  // The batch only: on cuda the masked attention pads seq to 8, so PyTorch refuses a dynamic seq
  // unless it is 8*_seq, and the tiny config's positions hold a single multiple of 8.
  const Placements p = export_placements("tiny_whisper", {.dynamic_batch = true});
  EXPECT_TRUE(transfers(p.cpu).empty());
  EXPECT_TRUE(transfers(p.cuda).empty());
  // The encoder on cuda:0, the decoder's layers on cuda:1: its hidden states, causal mask and the
  // encoder output move at the cut; proj_out is tied to the decoder's embeddings on cuda:0.
  EXPECT_EQ(transfers(p.pipeline), (std::vector<std::string>{"cuda:0->cuda:1", "cuda:0->cuda:1", "cuda:0->cuda:1",
                                                             "cuda:1->cuda:0"}));
}

TEST(ZooWhisper, EagerMatchesTransformers) { expect_matches_eager("tiny_whisper"); }

TEST(ZooWhisper, BuiltinDefault) {
  EXPECT_EQ(builtin_output_shapes("whisper"), (std::vector<V>{{2, 8, 1024}, {2, 1500, 64}}));
}

TEST(ZooWhisper, ConfigErrors) {
  const std::string heads = build_error(R"({"model_type": "whisper", "d_model": 10, "encoder_attention_heads": 4})");
  EXPECT_NE(heads.find("'d_model' = 10 is not a multiple of 'encoder_attention_heads' = 4"), std::string::npos)
      << heads;
  const std::string act = build_error(R"({"model_type": "whisper", "activation_function": "prelu"})");
  EXPECT_NE(act.find("field 'activation_function' = 'prelu' is not supported"), std::string::npos) << act;
  const std::string spec = build_error(R"({"model_type": "whisper", "apply_spec_augment": true})");
  EXPECT_NE(spec.find("'apply_spec_augment' value true is not supported"), std::string::npos) << spec;
}

TEST(ZooWhisper, WrongFeatureLengthIsAValueError) {
  FakeTensorMode fake;
  auto m = build_named("tiny_whisper");
  auto in = m->example_inputs({});
  in.args[0] = randn({2, 8, 10});
  try {
    export_program(*m, in.args);
    ADD_FAILURE() << "no error";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("Whisper expects the mel input features to be of length 12"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
