// Zoo family "gpt2" (GPT2LMHeadModel) against transformers 5.12: state_dict names/shapes/dtypes and
// parameter counts for every gpt2 config, exports on cpu / fake cuda:0 / a two-device pipeline /
// dynamic shapes, an eager comparison on tiny_gpt2, and config errors.
#include <filesystem>

#include "zoo_test_util.h"

namespace {
using namespace zoo_test;
using namespace fe;

const char* const kConfigs[] = {"tiny_gpt2", "gpt2_variants", "gpt2_untied", "gpt2_cross", "gpt2_medium_bf16", "gpt2"};

TEST(ZooGpt2, StateDictsMatchTransformers) {
  for (const char* name : kConfigs) expect_state_dict_as_hf(name);
}

TEST(ZooGpt2, RealGpt2ParameterCount) {
  EXPECT_EQ(expect_state_dict_as_hf("gpt2"), 124439808);
  FakeTensorMode fake;
  auto m = build_named("gpt2");
  EXPECT_EQ(num_parameters(*m), 124439808);
  // lm_head is wte's tensor, not a copy.
  auto sd = m->state_dict();
  EXPECT_EQ(sd.front().first, "transformer.wte.weight");
  EXPECT_EQ(sd.back().first, "lm_head.weight");
  EXPECT_EQ(sd.front().second.impl(), sd.back().second.impl());
}

TEST(ZooGpt2, Units) {
  FakeTensorMode fake;
  EXPECT_EQ(unit_paths(*build_named("tiny_gpt2")),
            (std::vector<std::string>{"transformer.wte", "transformer.wpe", "transformer.h.0*", "transformer.h.1*",
                                      "transformer.ln_f", "lm_head"}));
}

TEST(ZooGpt2, ExportsOnEveryPlacement) {
  // Layers split over two devices: the hidden state and the causal mask move to cuda:1 at the cut,
  // then the hidden state back to cuda:0 for the head tied to wte (untied: the head is on cuda:1
  // with the last layer). HF's same-device .to calls stay in the graph but move nothing.
  FakeTensorMode fake;
  for (const char* name : kConfigs)
    expect_transfers(name, std::string(name) == "gpt2_untied"
                               ? std::vector<std::string>{"cuda:0->cuda:1", "cuda:0->cuda:1"}
                               : std::vector<std::string>{"cuda:0->cuda:1", "cuda:0->cuda:1", "cuda:1->cuda:0"});
}

TEST(ZooGpt2, DynamicBatchAndSeq) {
  FakeTensorMode fake;
  auto m = build_named("tiny_gpt2");
  const std::string r = ranges(export_model(*m, {.dynamic_batch = true, .dynamic_seq = true}));
  EXPECT_NE(r.find(":[1,1024]"), std::string::npos) << r;  // batch
  EXPECT_NE(r.find(":[2,32]"), std::string::npos) << r;    // seq up to n_positions
}

TEST(ZooGpt2, EagerMatchesTransformers) { expect_matches_eager("tiny_gpt2"); }

// Hub GPT-2 checkpoints were saved from GPT2Model: no "transformer." prefix, plus the attn.bias
// mask buffers HF ignores on load. They bind like HF's own file.
TEST(ZooGpt2, HubStyleCheckpointBinds) {
  const std::string dir = kZoo + "/eager/tiny_gpt2";
  SafetensorsFile ckpt(dir + "/model.safetensors");
  std::vector<std::pair<std::string, Tensor>> hub;
  for (const std::string& k : ckpt.names())
    if (k.rfind("transformer.", 0) == 0) hub.emplace_back(k.substr(12), ckpt.load(k));
  hub.emplace_back("h.0.attn.bias", ones({1, 1, 32, 32}));
  hub.emplace_back("h.1.attn.masked_bias", ones({1}));
  const std::string path = (std::filesystem::temp_directory_path() / "fe_zoo_gpt2_hub.safetensors").string();
  save_safetensors(path, hub);
  auto a = build_named("tiny_gpt2"), b = build_named("tiny_gpt2");
  zoo::load_weights(*a, dir + "/model.safetensors");
  zoo::load_weights(*b, path);
  Tensor ids = zeros({1, 5}, {.dtype = DType::Int64});
  Tensor ya = a->forward_dyn({ids})[0], yb = b->forward_dyn({ids})[0];
  ASSERT_EQ(ya.numel(), yb.numel());
  for (int64_t i = 0; i < ya.numel(); ++i) ASSERT_EQ(ya.data<float>()[i], yb.data<float>()[i]);
  hub.emplace_back("h.0.attn.extra", ones({1}));
  save_safetensors(path, hub);
  EXPECT_NE(fe_test::what_of([&] { zoo::load_weights(*b, path); }).find("unexpected: h.0.attn.extra"),
            std::string::npos);
}

TEST(ZooGpt2, ConfigErrors) {
  EXPECT_NE(build_error(R"({"model_type": "gpt2", "vocab_size": 10, "n_positions": 8, "n_layer": 1, "n_head": 2})")
                .find("'n_embd' is missing"),
            std::string::npos);
  const std::string act = build_error(
      R"({"model_type": "gpt2", "vocab_size": 10, "n_positions": 8, "n_embd": 8, "n_layer": 1, "n_head": 2,
          "activation_function": "mish"})");
  EXPECT_NE(act.find("field 'activation_function' = 'mish' is not supported"), std::string::npos) << act;
  const std::string heads = build_error(
      R"({"model_type": "gpt2", "vocab_size": 10, "n_positions": 8, "n_embd": 10, "n_layer": 1, "n_head": 4})");
  EXPECT_NE(heads.find("field 'n_embd' = 10 must be divisible by n_head = 4"), std::string::npos) << heads;
}

TEST(ZooGpt2, BuiltinDefault) { EXPECT_EQ(builtin_output_shapes("gpt2"), (std::vector<V>{{2, 8, 50257}})); }

}  // namespace
