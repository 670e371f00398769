// Zoo family "vision-encoder-decoder" (VisionEncoderDecoderModel: ViT encoder with pooler + GPT-2
// decoder with cross-attention, enc_to_dec_proj when the widths differ) against transformers 5.12:
// state_dicts, parameter counts, exports on every placement, dynamic batch and decoder length, an
// eager comparison of both outputs on tiny_ved, and config errors.
#include "zoo_test_util.h"

namespace {
using namespace zoo_test;
using namespace fe;

const char* const kConfigs[] = {"tiny_ved", "ved_same_width", "ved_seed"};

TEST(ZooVisionEncoderDecoder, StateDictsMatchTransformers) {
  for (const char* name : kConfigs) expect_state_dict_as_hf(name);
  // The seed's toy model: default ViT (with pooler) + default GPT-2 over 1024 tokens.
  EXPECT_EQ(expect_state_dict_as_hf("ved_seed"), 201384960);
}

TEST(ZooVisionEncoderDecoder, Units) {
  FakeTensorMode fake;
  auto m = build_named("tiny_ved");
  EXPECT_EQ(unit_paths(*m),
            (std::vector<std::string>{"encoder.embeddings", "encoder.layers.0*", "encoder.layers.1*",
                                      "encoder.layernorm", "encoder.pooler", "enc_to_dec_proj",
                                      "decoder.transformer.wte", "decoder.transformer.wpe", "decoder.transformer.h.0*",
                                      "decoder.transformer.h.1*", "decoder.transformer.ln_f", "decoder.lm_head"}));
}

TEST(ZooVisionEncoderDecoder, ExportsOnEveryPlacement) {
  // The decoder's first layer on cuda:1 receives the hidden state, the causal mask, the encoder
  // states and their mask (once each); the head, tied to wte on cuda:0, takes the hidden state back.
  FakeTensorMode fake;
  for (const char* name : kConfigs)
    expect_transfers(name, {"cuda:0->cuda:1", "cuda:0->cuda:1", "cuda:0->cuda:1", "cuda:0->cuda:1", "cuda:1->cuda:0"});
}

TEST(ZooVisionEncoderDecoder, OutputsAndDynamicShapes) {
  FakeTensorMode fake;
  auto m = build_named("ved_seed");
  auto in = m->example_inputs({});
  ExportedProgram ep = export_program(*m, in.args);
  // Seq2SeqLMOutput's tensors as export returns them: logits, encoder_last_hidden_state.
  EXPECT_EQ(output_shapes(ep), (std::vector<V>{{2, 8, 1024}, {2, 197, 768}}));
  auto tiny = build_named("tiny_ved");
  const std::string r = ranges(export_model(*tiny, {.dynamic_batch = true, .dynamic_seq = true}));
  EXPECT_NE(r.find(":[1,1024]"), std::string::npos) << r;
  EXPECT_NE(r.find(":[2,32]"), std::string::npos) << r;
}

TEST(ZooVisionEncoderDecoder, EagerMatchesTransformers) {
  // The checkpoint holds ViT's legacy names (HF renames them on load and back on save).
  expect_matches_eager("tiny_ved");
}

TEST(ZooVisionEncoderDecoder, BuiltinDefault) {
  EXPECT_EQ(builtin_output_shapes("vision-encoder-decoder"), (std::vector<V>{{2, 8, 1024}, {2, 197, 64}}));
}

TEST(ZooVisionEncoderDecoder, ConfigErrors) {
  const std::string enc = R"("encoder": {"model_type": "vit", "hidden_size": 8, "num_hidden_layers": 1,
      "num_attention_heads": 2, "intermediate_size": 16, "image_size": 8, "patch_size": 4})";
  const std::string dec = R"("decoder": {"model_type": "gpt2", "vocab_size": 10, "n_positions": 8, "n_embd": 8,
      "n_layer": 1, "n_head": 2, "add_cross_attention": true})";
  const std::string no_decoder = build_error(R"({"model_type": "vision-encoder-decoder", )" + enc + "}");
  EXPECT_NE(no_decoder.find("field 'decoder' is missing"), std::string::npos) << no_decoder;
  const std::string bert = build_error(R"({"model_type": "vision-encoder-decoder", )" + enc +
                                       R"(, "decoder": {"model_type": "bert"}})");
  EXPECT_NE(bert.find("field 'decoder.model_type' = 'bert' is not supported"), std::string::npos) << bert;
  std::string dec_no_size = dec;
  dec_no_size.replace(dec_no_size.find(R"("n_embd": 8,)"), 12, "");
  const std::string nested = build_error(R"({"model_type": "vision-encoder-decoder", )" + enc + ", " + dec_no_size + "}");
  EXPECT_NE(nested.find("field 'decoder.n_embd' is missing"), std::string::npos) << nested;
  std::string no_cross = dec;
  no_cross.replace(no_cross.find("true"), 4, "false");
  const std::string cross = build_error(R"({"model_type": "vision-encoder-decoder", )" + enc + ", " + no_cross + "}");
  EXPECT_NE(cross.find("field 'decoder.add_cross_attention' = false is not supported"), std::string::npos) << cross;
}

}  // namespace
