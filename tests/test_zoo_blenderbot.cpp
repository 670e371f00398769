// Zoo family "blenderbot" (transformers BlenderbotForConditionalGeneration) against transformers
// 5.12: state_dicts per config (BlenderbotConfig() defaults included: the seed 003 model), exports on
// cpu / cuda:0 / a two-device pipeline, dynamic shapes, eager outputs of tiny_blenderbot.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "fakeexport/fakeexport.h"
#include "test_util.h"

namespace {
using fe_test::error_of;
using fe_test::read_file;
namespace zoo = fe::zoo;

const std::string kZoo = std::string(FE_FIXTURES_DIR) + "/zoo";
const std::string kRealConfigs = std::string(FE_FIXTURES_DIR) + "/../../configs";

std::string config_path(const std::string& name) {
  const std::string p = kZoo + "/configs/" + name + ".json";
  return std::filesystem::exists(p) ? p : kRealConfigs + "/" + name + ".json";
}

/// Builds `name` under FakeTensorMode (the caller's) with the config's `_fe_dtype` as default dtype.
std::unique_ptr<zoo::Model> build_named(const std::string& name) {
  const zoo::Config c = zoo::Config::from_file(config_path(name));
  const fe::DType dt = *fe::parse_dtype(c.get_string("_fe_dtype", "float32"));
  fe::DTypeScope ds(dt);
  return zoo::build(c);
}

std::string row(const std::string& n, fe::IntSpan sizes, fe::DType dt) {
  nlohmann::json j = nlohmann::json::array({n, nlohmann::json::array(), std::string(fe::dtype_name(dt))});
  for (const auto& s : sizes) j[1].push_back(s.expect_int());
  return j.dump();
}

/// state_dict (order included), non-persistent buffers and num_parameters equal HF's fixture.
void expect_matches_fixture(zoo::Model& m, const std::string& name) {
  const auto fx = nlohmann::json::parse(read_file(kZoo + "/state_dicts/" + name + ".json"));
  std::vector<std::string> want, got;
  for (const auto& e : fx["state_dict"]) want.push_back(e.dump());
  for (auto& [n, t] : m.state_dict()) got.push_back(row(n, t.sizes(), t.dtype()));
  EXPECT_EQ(got, want) << name;
  std::vector<std::string> want_np, got_np;
  for (const auto& e : fx["nonpersistent_buffers"]) want_np.push_back(e.dump());
  for (auto& [n, t] : m.named_buffers())
    if (!m.is_persistent_buffer(n)) got_np.push_back(row(n, t->sizes(), t->dtype()));
  EXPECT_EQ(got_np, want_np) << name;
  int64_t count = 0;
  for (const fe::Tensor& p : m.parameters()) count += p.numel();
  EXPECT_EQ(count, fx["num_parameters"].get<int64_t>()) << name;
}

/// The transfer nodes (aten.to.* / aten._to_copy) of a program as "from->to" devices, in graph order.
std::vector<std::string> transfers(const fe::ExportedProgram& ep) {
  std::vector<std::string> out;
  for (const auto& n : ep.graph.nodes()) {
    if (!n->target()) continue;
    const std::string& q = n->target()->qualified;
    if (q.rfind("aten::to.", 0) == 0 || q.rfind("aten::_to_copy", 0) == 0)
      out.push_back(n->inputs().at(0)->val.at(0).device.str() + "->" + n->val.at(0).device.str());
  }
  return out;
}

fe::ExportedProgram export_model(zoo::Model& m, const zoo::InputOptions& o = {}) {
  zoo::ExampleInputs in = m.example_inputs(o);
  return fe::export_program(m, in.args, {.dynamic_shapes = in.dynamic_shapes});
}

double max_abs_diff(const fe::Tensor& a, const fe::Tensor& b) {
  EXPECT_EQ(fe_test::ints(a.sizes()), fe_test::ints(b.sizes()));
  fe::Tensor x = a.contiguous(), y = b.contiguous();
  double m = 0;
  for (int64_t i = 0; i < x.numel(); ++i) m = std::max(m, double(std::abs(x.data<float>()[i] - y.data<float>()[i])));
  return m;
}

struct Case {
  std::string name;
  std::vector<std::string> pipeline_transfers;  // devices of the transfer nodes, in graph order
};

// Tied models: the hidden states and the encoder output enter the first cuda:1 decoder layer, the
// hidden states return to cuda:0 for lm_head (it computes on model.shared's device), then HF's
// final_logits_bias.to(lm_logits.device) (a no-op, which torch.export records all the same). Untied
// 3+1 layers: the cut is inside the encoder, the decoder ids follow decoder.embed_tokens, and
// final_logits_bias (default device, cuda:0) follows the logits.
const std::vector<std::string> kTied = {"cuda:0->cuda:1", "cuda:0->cuda:1", "cuda:1->cuda:0", "cuda:0->cuda:0"};
const std::vector<Case> kCases = {
    {"tiny_blenderbot", kTied},
    {"blenderbot_default", kTied},
    {"blenderbot_400m", kTied},
    {"blenderbot_untied_relu", {"cuda:0->cuda:1", "cuda:0->cuda:1", "cuda:0->cuda:1"}},
    {"blenderbot_fp16", kTied},
};

int64_t num_parameters(zoo::Model& m) {
  int64_t count = 0;
  for (const fe::Tensor& p : m.parameters()) count += p.numel();
  return count;
}

TEST(ZooBlenderbot, StateDictsMatchTransformers) {
  for (const Case& c : kCases) {
    fe::FakeTensorMode fm;
    auto m = build_named(c.name);
    EXPECT_EQ(m->model_type(), "blenderbot");
    expect_matches_fixture(*m, c.name);
  }
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
    {
      fe::FakeTensorMode fm;
      auto m = build_named(c.name);
      fe::ExportedProgram ep = export_model(*m);
      // Only HF's final_logits_bias.to(lm_logits.device), which moves nothing.
      EXPECT_EQ(transfers(ep), std::vector<std::string>{"cpu->cpu"});
      ASSERT_EQ(ep.graph.nodes().back()->inputs().size(), 2u);  // logits, encoder_last_hidden_state
    }
    {
      fe::FakeTensorMode fm;
      fe::DeviceScope ds(fe::Device::parse("cuda:0"));
      auto m = build_named(c.name);
      fe::ExportedProgram ep = export_model(*m);
      EXPECT_EQ(transfers(ep), std::vector<std::string>{"cuda:0->cuda:0"});
      for (const fe::Node* out : ep.graph.nodes().back()->inputs()) EXPECT_EQ(out->val.at(0).device.str(), "cuda:0");
    }
    {
      fe::FakeTensorMode fm;
      auto m = build_named(c.name);
      zoo::place(*m, zoo::Placement::pipeline(m->units(), {fe::Device::parse("cuda:0"), fe::Device::parse("cuda:1")}));
      fe::ExportedProgram ep = export_model(*m);
      EXPECT_EQ(transfers(ep), c.pipeline_transfers);
    }
  }
}

TEST(ZooBlenderbot, ExportsWithDynamicBatchAndSeqs) {
  fe::FakeTensorMode fm;
  auto m = build_named("blenderbot_400m");
  fe::ExportedProgram ep = export_model(*m, {.dynamic_batch = true, .dynamic_seq = true});
  // batch (shared by both inputs), seq_len, decoder_seq_len.
  ASSERT_EQ(ep.range_constraints.size(), 3u);
}

TEST(ZooBlenderbot, TinyMatchesTransformersEager) {
  const std::string dir = kZoo + "/eager/tiny_blenderbot";
  auto m = build_named("tiny_blenderbot");
  zoo::load_weights(*m, dir + "/model.safetensors");
  fe::SafetensorsFile io(dir + "/io.safetensors");
  const fe::Tensor ids = io.load("input_0_input_ids"), dec = io.load("input_1_decoder_input_ids");
  fe::ExportedProgram ep = fe::export_program(*m, {ids, dec});
  std::vector<fe::Tensor> out = fe::run(ep, {ids, dec});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_LE(max_abs_diff(out[0], io.load("output_0")), 1e-4);
  EXPECT_LE(max_abs_diff(out[1], io.load("output_1")), 1e-4);
  fe::ExportedProgram dyn = export_model(*m, {.dynamic_batch = true, .dynamic_seq = true});
  out = fe::run(dyn, {ids, dec});
  EXPECT_LE(max_abs_diff(out[0], io.load("output_0")), 1e-4);
  EXPECT_LE(max_abs_diff(out[1], io.load("output_1")), 1e-4);
}

TEST(ZooBlenderbot, ConfigErrorsNameTheField) {
  const std::string base = R"("model_type": "blenderbot", "vocab_size": 10, "encoder_layers": 1, "decoder_layers": 1,
      "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 8, "decoder_ffn_dim": 8)";
  fe::FakeTensorMode fm;
  auto build = [](const std::string& text) { zoo::build(zoo::Config::parse(text, "test")); };
  EXPECT_NE(error_of<fe::ValueError>([&] { build("{" + base + R"(, "max_position_embeddings": 16})"); }).find("d_model"),
            std::string::npos);
  const std::string ok = "{" + base + R"(, "d_model": 8, "max_position_embeddings": 16)";
  EXPECT_EQ(error_of<fe::ValueError>([&] { build(ok + "}"); }), "<no exception>");
  EXPECT_NE(error_of<fe::ValueError>([&] { build(ok + R"(, "activation_function": "gelu_new"})"); })
                .find("'activation_function' = 'gelu_new'"),
            std::string::npos);
  const std::string odd = "{" + base + R"(, "d_model": 6, "max_position_embeddings": 16})";  // 6 % 2 == 0 ...
  EXPECT_EQ(error_of<fe::ValueError>([&] { build(odd); }), "<no exception>");
  const std::string odd3 = "{" + base + R"(, "d_model": 7, "max_position_embeddings": 16})";  // ... 7 % 2 != 0
  EXPECT_NE(error_of<fe::ValueError>([&] { build(odd3); }).find("'d_model' = 7"), std::string::npos);
}

TEST(ZooBlenderbot, BuiltinDefaultExports) {
  fe::FakeTensorMode fm;
  auto m = zoo::build(zoo::builtin_config("blenderbot"));
  fe::ExportedProgram ep = export_model(*m);
  EXPECT_EQ(ep.graph.nodes().back()->inputs().size(), 2u);
}

}  // namespace
