// The zoo's mixtral family: state_dict (fused 3-D experts.gate_up_proj / down_proj, mlp.gate
// router) equal to transformers 5.12's, the published Mixtral-8x7B count, export on cpu / cuda:0 /
// a two-device pipeline, and the grouped top-k MoE equal to HF's eager logits (ep.run, <= 1e-4).
#include <chrono>

#include "zoo_test_util.h"

namespace {
using namespace zoo_test;

class ZooMixtralStateDict : public ::testing::TestWithParam<std::string> {};
TEST_P(ZooMixtralStateDict, EqualsTransformers) { expect_state_dict_as_hf(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Zoo, ZooMixtralStateDict,
                         ::testing::Values("tiny_mixtral", "mixtral_small", "mixtral_sliding_top1", "mixtral-8x7b-v0.1"),
                         [](const auto& info) { return test_name(info.param); });

TEST(ZooMixtralParams, PublishedCount) {
  fe::FakeTensorMode mode;
  EXPECT_EQ(num_parameters(*build_named("mixtral-8x7b-v0.1")), 46702792704);
}

class ZooMixtralExport : public ::testing::TestWithParam<ExportCase> {};
TEST_P(ZooMixtralExport, CpuCudaPipeline) { expect_exports(GetParam()); }
INSTANTIATE_TEST_SUITE_P(Zoo, ZooMixtralExport,
                         ::testing::Values(ExportCase{"tiny_mixtral", 4, false}, ExportCase{"mixtral_small", 4, false},
                                           ExportCase{"mixtral_sliding_top1", 4, false},
                                           ExportCase{"mixtral-8x7b-v0.1", 4, false}),
                         [](const auto& info) { return test_name(info.param.name); });

TEST(ZooMixtralExport, Mixtral8x7bPipelineTiming) {
  fe::FakeTensorMode mode;
  auto m = build_named("mixtral-8x7b-v0.1");
  fe::zoo::place(*m, fe::zoo::Placement::pipeline(m->units(), {fe::Device::parse("cuda:0"), fe::Device::parse("cuda:1")}));
  // seq = 8*_seq from an example of 16: on cuda the masked attention pads seq to 8, and PyTorch
  // refuses a plain Dim("seq").
  auto in = m->example_inputs({.seq = 16, .dynamic_batch = true, .dynamic_seq = true, .seq_multiple = 8});
  const auto t0 = std::chrono::steady_clock::now();
  fe::ExportedProgram ep = fe::export_program(*m, in.args, {.dynamic_shapes = in.dynamic_shapes});
  const auto t1 = std::chrono::steady_clock::now();
  std::cout << "[ mixtral-8x7b ] export " << std::chrono::duration<double, std::milli>(t1 - t0).count() << " ms, "
            << ep.graph.nodes().size() << " nodes\n";
  // No data-dependent op: the routing is topk, sort and histc offsets, never nonzero / where(cond) / index_add.
  for (const auto& n : ep.graph.nodes())
    if (n->target() != nullptr) {
      const std::string& q = n->target()->qualified;
      EXPECT_EQ(q.find("nonzero"), std::string::npos);
      EXPECT_EQ(q.find("index_add"), std::string::npos);
    }
}

TEST(ZooMixtralEager, TinyMixtral) { expect_matches_eager("tiny_mixtral"); }

TEST(ZooMixtralErrors, MissingAndUnsupportedFields) {
  const std::string base =
      R"({"model_type": "mixtral", "vocab_size": 64, "hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2)";
  EXPECT_NE(build_error(base + "}").find("'intermediate_size' is missing"), std::string::npos);
  const std::string ok = base + R"(, "intermediate_size": 24)";
  EXPECT_NE(build_error(ok + R"(, "num_experts_per_tok": 9})").find("'num_experts_per_tok' value 9"),
            std::string::npos);
  EXPECT_NE(build_error(ok + R"(, "hidden_act": "mish"})").find("'hidden_act' = 'mish' is not supported"),
            std::string::npos);
  EXPECT_NE(build_error(ok + R"(, "output_router_logits": true})").find("'output_router_logits'"), std::string::npos);
  EXPECT_EQ(build_error(ok + "}"), "<no exception>");
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
