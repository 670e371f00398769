// The zoo's mixtral family: state_dict (fused 3-D experts.gate_up_proj / down_proj, mlp.gate
// router) equal to transformers 5.12's, the published Mixtral-8x7B count, export on cpu / cuda:0 /
// a two-device pipeline, and the dense top-k MoE equal to HF's eager logits (ep.run, <= 1e-4).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "fakeexport/fakeexport.h"
#include "fakeexport/nn/zoo.h"
#include "fakeexport/serde/safetensors.h"
#include "test_util.h"

// Helpers as in test_zoo_llama.cpp (each test file is self-contained).
namespace {
using fe_test::error_of;
using fe_test::read_file;

const std::string kFix = std::string(FE_FIXTURES_DIR) + "/zoo";
const std::string kRealConfigs = std::string(FE_FIXTURES_DIR) + "/../../configs";

std::string config_path(const std::string& name) {
  const bool real = name.rfind("meta-", 0) == 0 || name.rfind("mixtral-", 0) == 0;
  return (real ? kRealConfigs : kFix + "/configs") + "/" + name + ".json";
}

// HF's default dtype for the config ("_fe_dtype", as gen_zoo.py builds it).
fe::DType config_dtype(const std::string& name) {
  auto j = nlohmann::json::parse(read_file(config_path(name)));
  return j.contains("_fe_dtype") ? *fe::parse_dtype(j["_fe_dtype"].get<std::string>()) : fe::DType::Float32;
}

// Builds the config's model under FakeTensorMode (caller holds the mode) and its default dtype.
std::unique_ptr<fe::zoo::Model> build_named(const std::string& name) {
  fe::DTypeScope dt(config_dtype(name));
  return fe::zoo::build(fe::zoo::Config::from_file(config_path(name)));
}

int64_t unique_numel(fe::zoo::Model& m) {
  int64_t n = 0;
  for (auto& [name, t] : m.named_parameters()) n += t->numel();  // tied ones listed once
  return n;
}

void expect_state_dict_as_hf(const std::string& name) {
  SCOPED_TRACE(name);
  auto fx = nlohmann::json::parse(read_file(kFix + "/state_dicts/" + name + ".json"));
  fe::FakeTensorMode mode;
  auto m = build_named(name);
  auto sd = m->state_dict();
  const auto& want = fx["state_dict"];
  ASSERT_EQ(sd.size(), want.size());
  for (size_t i = 0; i < sd.size(); ++i) {
    EXPECT_EQ(sd[i].first, want[i][0].get<std::string>()) << "entry " << i;
    EXPECT_EQ(fe_test::ints(sd[i].second.sizes()), want[i][1].get<std::vector<int64_t>>()) << sd[i].first;
    EXPECT_EQ(std::string(fe::dtype_name(sd[i].second.dtype())), want[i][2].get<std::string>()) << sd[i].first;
    EXPECT_TRUE(sd[i].second.is_fake());
  }
  std::vector<std::tuple<std::string, std::vector<int64_t>, std::string>> np, np_want;
  for (auto& [bn, t] : m->named_buffers())
    if (!m->is_persistent_buffer(bn)) np.emplace_back(bn, fe_test::ints(t->sizes()), fe::dtype_name(t->dtype()));
  for (const auto& e : fx["nonpersistent_buffers"])
    np_want.emplace_back(e[0].get<std::string>(), e[1].get<std::vector<int64_t>>(), e[2].get<std::string>());
  EXPECT_EQ(np, np_want);
  EXPECT_EQ(unique_numel(*m), fx["num_parameters"].get<int64_t>());
}

// Device-changing transfer nodes (to.* / _to_copy whose output device differs from the input's):
// the RMSNorm's float32 casts are to.dtype nodes that stay put.
std::vector<fe::Device> transfers(const fe::ExportedProgram& ep) {
  std::vector<fe::Device> out;
  for (const auto& n : ep.graph.nodes()) {
    if (n->op() != fe::NodeOp::CallFunction || n->target() == nullptr) continue;
    const std::string& q = n->target()->qualified;
    if (q.rfind("aten::to.", 0) != 0 && q.rfind("aten::_to_copy", 0) != 0) continue;
    const auto ins = n->inputs();
    if (!ins.empty() && !ins[0]->val.empty() && ins[0]->val[0].device != n->val.at(0).device)
      out.push_back(n->val.at(0).device);
  }
  return out;
}

struct ExportCase {
  std::string name;
  int64_t cut_transfers;  // hidden, cos, sin (+ mask) at the layer cut
  bool tied;              // lm_head shares embed_tokens.weight: logits move back to cuda:0
};
void PrintTo(const ExportCase& c, std::ostream* os) { *os << c.name; }

void expect_exports(const ExportCase& c) {
  SCOPED_TRACE(c.name);
  const fe::Device cuda0 = fe::Device::parse("cuda:0"), cuda1 = fe::Device::parse("cuda:1");
  fe::FakeTensorMode mode;
  {
    auto m = build_named(c.name);
    auto in = m->example_inputs({});
    fe::ExportedProgram ep = fe::export_program(*m, in.args, {.dynamic_shapes = in.dynamic_shapes});
    EXPECT_TRUE(transfers(ep).empty());
    const auto& out = ep.graph.nodes().back();
    ASSERT_EQ(out->op(), fe::NodeOp::Output);
  }
  {
    fe::DeviceScope ds(cuda0);
    auto m = build_named(c.name);
    auto in = m->example_inputs({});
    EXPECT_EQ(in.args[0].device(), cuda0);
    fe::ExportedProgram ep = fe::export_program(*m, in.args, {.dynamic_shapes = in.dynamic_shapes});
    EXPECT_TRUE(transfers(ep).empty());
  }
  {
    auto m = build_named(c.name);
    fe::zoo::place(*m, fe::zoo::Placement::pipeline(m->units(), {cuda0, cuda1}));
    auto in = m->example_inputs({.dynamic_batch = true, .dynamic_seq = true});
    EXPECT_EQ(in.args[0].device(), cuda0);
    fe::ExportedProgram ep = fe::export_program(*m, in.args, {.dynamic_shapes = in.dynamic_shapes});
    auto t = transfers(ep);
    ASSERT_EQ(static_cast<int64_t>(t.size()), c.cut_transfers + (c.tied ? 1 : 0));
    for (int64_t i = 0; i < c.cut_transfers; ++i) EXPECT_EQ(t[i], cuda1);
    if (c.tied) {
      EXPECT_EQ(t.back(), cuda0);
    }
    EXPECT_EQ(ep.graph.nodes().back()->inputs().at(0)->val.at(0).device, c.tied ? cuda0 : cuda1);
    EXPECT_GE(ep.range_constraints.size(), 2u);
  }
}

// Max |a - b| over two real float32 tensors of the same shape.
double max_abs_diff(const fe::Tensor& a, const fe::Tensor& b) {
  EXPECT_EQ(fe_test::ints(a.sizes()), fe_test::ints(b.sizes()));
  fe::Tensor x = a.contiguous(), y = b.contiguous();
  double d = 0;
  for (int64_t i = 0; i < x.numel(); ++i) d = std::max(d, std::abs(double(x.data<float>()[i]) - y.data<float>()[i]));
  return d;
}

// Real CPU model with HF's weights: export (static and dynamic), run, compare with HF's eager logits.
void expect_matches_eager(const std::string& name) {
  SCOPED_TRACE(name);
  const std::string dir = kFix + "/eager/" + name;
  auto m = fe::zoo::build(fe::zoo::Config::from_file(config_path(name)));
  fe::zoo::load_weights(*m, dir + "/model.safetensors");  // per-expert checkpoint layout, fused on load
  fe::SafetensorsFile io(dir + "/io.safetensors");
  fe::Tensor ids = io.load("input_0_input_ids"), want = io.load("output_0");
  fe::ExportedProgram ep = fe::export_program(*m, {ids});
  auto got = fe::run(ep, {ids});
  ASSERT_EQ(got.size(), 1u);
  const double d = max_abs_diff(got[0], want);
  std::cout << "[ " << name << " ] max |ep.run - HF eager| = " << d << "\n";
  EXPECT_LE(d, 1e-4);
  // The dynamic program on the same inputs.
  auto in = m->example_inputs({.dynamic_batch = true, .dynamic_seq = true});
  fe::ExportedProgram dyn = fe::export_program(*m, in.args, {.dynamic_shapes = in.dynamic_shapes});
  got = fe::run(dyn, {ids});
  EXPECT_LE(max_abs_diff(got[0], want), 1e-4);
}

class ZooMixtralStateDict : public ::testing::TestWithParam<std::string> {};
TEST_P(ZooMixtralStateDict, EqualsTransformers) { expect_state_dict_as_hf(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Zoo, ZooMixtralStateDict,
                         ::testing::Values("tiny_mixtral", "mixtral_small", "mixtral_sliding_top1", "mixtral-8x7b-v0.1"),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (char& ch : s)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return s;
                         });

TEST(ZooMixtralParams, PublishedCount) {
  fe::FakeTensorMode mode;
  EXPECT_EQ(unique_numel(*build_named("mixtral-8x7b-v0.1")), 46702792704);
}

class ZooMixtralExport : public ::testing::TestWithParam<ExportCase> {};
TEST_P(ZooMixtralExport, CpuCudaPipeline) { expect_exports(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Zoo, ZooMixtralExport,
                         ::testing::Values(ExportCase{"tiny_mixtral", 3, false}, ExportCase{"mixtral_small", 3, false},
                                           ExportCase{"mixtral_sliding_top1", 4, false},
                                           ExportCase{"mixtral-8x7b-v0.1", 3, false}),
                         [](const auto& info) {
                           std::string s = info.param.name;
                           for (char& ch : s)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return s;
                         });

TEST(ZooMixtralExport, Mixtral8x7bPipelineTiming) {
  fe::FakeTensorMode mode;
  auto m = build_named("mixtral-8x7b-v0.1");
  fe::zoo::place(*m, fe::zoo::Placement::pipeline(m->units(), {fe::Device::parse("cuda:0"), fe::Device::parse("cuda:1")}));
  auto in = m->example_inputs({.dynamic_batch = true, .dynamic_seq = true});
  const auto t0 = std::chrono::steady_clock::now();
  fe::ExportedProgram ep = fe::export_program(*m, in.args, {.dynamic_shapes = in.dynamic_shapes});
  const auto t1 = std::chrono::steady_clock::now();
  std::cout << "[ mixtral-8x7b ] export " << std::chrono::duration<double, std::milli>(t1 - t0).count() << " ms, "
            << ep.graph.nodes().size() << " nodes\n";
  // No data-dependent op: the routing is topk + one_hot, never nonzero / where(cond) / index_add.
  for (const auto& n : ep.graph.nodes())
    if (n->target() != nullptr) {
      const std::string& q = n->target()->qualified;
      EXPECT_EQ(q.find("nonzero"), std::string::npos);
      EXPECT_EQ(q.find("index_add"), std::string::npos);
    }
}

TEST(ZooMixtralEager, TinyMixtral) { expect_matches_eager("tiny_mixtral"); }

TEST(ZooMixtralErrors, MissingAndUnsupportedFields) {
  fe::FakeTensorMode mode;
  auto build_text = [](const std::string& text) { fe::zoo::build(fe::zoo::Config::parse(text, "t.json")); };
  const std::string base =
      R"({"model_type": "mixtral", "vocab_size": 64, "hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2)";
  EXPECT_NE(error_of<fe::ValueError>([&] { build_text(base + "}"); }).find("'intermediate_size' is missing"),
            std::string::npos);
  const std::string ok = base + R"(, "intermediate_size": 24)";
  EXPECT_NE(error_of<fe::ValueError>([&] { build_text(ok + R"(, "num_experts_per_tok": 9})"); })
                .find("'num_experts_per_tok' value 9"),
            std::string::npos);
  EXPECT_NE(error_of<fe::ValueError>([&] { build_text(ok + R"(, "hidden_act": "relu"})"); })
                .find("'hidden_act' value 'relu' is not supported"),
            std::string::npos);
  EXPECT_NE(error_of<fe::ValueError>([&] { build_text(ok + R"(, "output_router_logits": true})"); })
                .find("'output_router_logits'"),
            std::string::npos);
  EXPECT_EQ(error_of<fe::ValueError>([&] { build_text(ok + "}"); }), "<no exception>");
}

TEST(ZooMixtralBuiltins, DefaultConfigExports) {
  fe::FakeTensorMode mode;
  auto m = fe::zoo::build(fe::zoo::builtin_config("mixtral"));
  EXPECT_EQ(m->model_type(), "mixtral");
  auto in = m->example_inputs({.dynamic_batch = true});
  fe::ExportedProgram ep = fe::export_program(*m, in.args, {.dynamic_shapes = in.dynamic_shapes});
  EXPECT_TRUE(transfers(ep).empty());
}

}  // namespace
