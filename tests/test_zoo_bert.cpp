// Zoo family "bert" (transformers BertModel) against transformers 5.12: state_dict names, shapes,
// dtypes and non-persistent buffers per config (tests/fixtures/zoo/state_dicts, gen_zoo.py), exports
// on cpu / cuda:0 / a two-device pipeline, dynamic batch+seq, and eager outputs of tiny_bert.
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

const std::vector<std::string> kBertConfigs = {"tiny_bert",         "bert_small",     "bert_large",
                                               "bert_type_vocab16", "bert_bf16_relu", "bert-base-uncased"};

TEST(ZooBert, StateDictsMatchTransformers) {
  for (const std::string& name : kBertConfigs) {
    fe::FakeTensorMode fm;
    auto m = build_named(name);
    EXPECT_EQ(m->model_type(), "bert");
    expect_matches_fixture(*m, name);
  }
}

TEST(ZooBert, BertBaseUncasedHasThePublishedParameterCount) {
  fe::FakeTensorMode fm;
  auto m = build_named("bert-base-uncased");
  int64_t count = 0;
  for (const fe::Tensor& p : m->parameters()) count += p.numel();
  EXPECT_EQ(count, 109482240);
  EXPECT_EQ(m->units().size(), 14u);  // embeddings, 12 layers, pooler
}

TEST(ZooBert, ExportsOnCpuCudaAndPipeline) {
  for (const std::string& name : kBertConfigs) {
    SCOPED_TRACE(name);
    {
      fe::FakeTensorMode fm;
      auto m = build_named(name);
      fe::ExportedProgram ep = export_model(*m);
      EXPECT_TRUE(transfers(ep).empty());
      ASSERT_EQ(ep.graph.nodes().back()->inputs().size(), 2u);  // last_hidden_state, pooler_output
    }
    {
      fe::FakeTensorMode fm;
      fe::DeviceScope ds(fe::Device::parse("cuda:0"));
      auto m = build_named(name);
      fe::ExportedProgram ep = export_model(*m);
      EXPECT_TRUE(transfers(ep).empty());
      for (const fe::Node* out : ep.graph.nodes().back()->inputs()) EXPECT_EQ(out->val.at(0).device.str(), "cuda:0");
    }
    {
      fe::FakeTensorMode fm;
      auto m = build_named(name);
      zoo::place(*m, zoo::Placement::pipeline(m->units(), {fe::Device::parse("cuda:0"), fe::Device::parse("cuda:1")}));
      fe::ExportedProgram ep = export_model(*m);
      // One cut: the hidden states entering the first layer of cuda:1 (the pooler follows the last layer).
      EXPECT_EQ(transfers(ep), std::vector<std::string>{"cuda:0->cuda:1"});
      EXPECT_EQ(ep.graph.nodes().back()->inputs().at(1)->val.at(0).device.str(), "cuda:1");
    }
  }
}

TEST(ZooBert, ExportsWithDynamicBatchAndSeq) {
  fe::FakeTensorMode fm;
  auto m = build_named("bert-base-uncased");
  fe::ExportedProgram ep = export_model(*m, {.dynamic_batch = true, .dynamic_seq = true});
  ASSERT_EQ(ep.range_constraints.size(), 2u);  // batch in [1, 1024], seq_len in [2, 512]
  EXPECT_EQ(ep.range_constraints[1].second.hi, 512);
}

TEST(ZooBert, TinyMatchesTransformersEager) {
  const std::string dir = kZoo + "/eager/tiny_bert";
  auto m = build_named("tiny_bert");
  zoo::load_weights(*m, dir + "/model.safetensors");
  fe::SafetensorsFile io(dir + "/io.safetensors");
  const fe::Tensor ids = io.load("input_0_input_ids");
  // Static export at the fixture's sizes, and a dynamic one run at them.
  fe::ExportedProgram ep = fe::export_program(*m, {ids});
  std::vector<fe::Tensor> out = fe::run(ep, {ids});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_LE(max_abs_diff(out[0], io.load("output_0")), 1e-4);
  EXPECT_LE(max_abs_diff(out[1], io.load("output_1")), 1e-4);
  fe::ExportedProgram dyn = export_model(*m, {.dynamic_batch = true, .dynamic_seq = true});
  out = fe::run(dyn, {ids});
  EXPECT_LE(max_abs_diff(out[0], io.load("output_0")), 1e-4);
  EXPECT_LE(max_abs_diff(out[1], io.load("output_1")), 1e-4);
}

TEST(ZooBert, ConfigErrorsNameTheField) {
  const std::string base = R"("model_type": "bert", "vocab_size": 10, "num_hidden_layers": 1,
      "num_attention_heads": 2, "intermediate_size": 8, "max_position_embeddings": 16)";
  fe::FakeTensorMode fm;
  auto build = [](const std::string& text) { zoo::build(zoo::Config::parse(text, "test")); };
  EXPECT_NE(error_of<fe::ValueError>([&] { build("{" + base + "}"); }).find("hidden_size"), std::string::npos);
  const std::string ok = "{" + base + R"(, "hidden_size": 8)";
  EXPECT_EQ(error_of<fe::ValueError>([&] { build(ok + "}"); }), "<no exception>");
  EXPECT_NE(error_of<fe::ValueError>([&] { build(ok + R"(, "hidden_act": "gelu_new"})"); }).find("'hidden_act' = 'gelu_new'"),
            std::string::npos);
  EXPECT_NE(error_of<fe::ValueError>([&] { build(ok + R"(, "is_decoder": true})"); }).find("is_decoder"),
            std::string::npos);
  EXPECT_NE(error_of<fe::ValueError>([&] { build(ok + R"(, "position_embedding_type": "relative_key"})"); })
                .find("position_embedding_type"),
            std::string::npos);
  const std::string odd = "{" + base + R"(, "hidden_size": 9})";
  EXPECT_NE(error_of<fe::ValueError>([&] { build(odd); }).find("hidden_size"), std::string::npos);
}

TEST(ZooBert, BuiltinDefaultExports) {
  fe::FakeTensorMode fm;
  auto m = zoo::build(zoo::builtin_config("bert"));
  fe::ExportedProgram ep = export_model(*m);
  EXPECT_EQ(ep.graph.nodes().back()->inputs().size(), 2u);
}

}  // namespace
