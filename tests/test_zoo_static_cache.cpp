// Issue 15, the decode step: `fakeexport export MODEL --static-cache LEN` builds transformers'
// TorchExportableModuleWithStaticCache around the decoder and exports it as
// convert_and_export_with_cache does (strict, under torch.no_grad()). Each print equals PyTorch 2.14's
// of the transformers 5.12 model (tests/fixtures/zoo_golden/NAME.kv*.txt, written by
// tools/oracle/scripts/gen_zoo_kv_golden.py), compared whole except `# File:` comments.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "fakeexport/analysis/memory.h"
#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/export/decompose.h"
#include "fakeexport/export/exported_program.h"
#include "fakeexport/export/run.h"
#include "fakeexport/nn/zoo.h"
#include "fakeexport/ops/api.h"
#include "fakeexport/serde/pt2.h"
#include "fakeexport/serde/safetensors.h"
#include "test_util.h"
#include "zoo_test_util.h"

namespace fs = std::filesystem;

namespace {

const std::string kGolden = std::string(FE_FIXTURES_DIR) + "/zoo_golden";

/// The decode step of golden config NAME on cpu.
fe::ExportedProgram export_decode_step(const std::string& name, int64_t batch, int64_t seq, int64_t len = 16,
                                       bool dynamic_seq = false) {
  fe::FakeTensorMode fake;
  return zoo_test::export_golden_decode_step(name, fe::kCPU, batch, seq, len, dynamic_seq);
}

struct Case {
  std::string name;
  int64_t batch, seq;
  std::string file;
};

class StaticCacheGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(StaticCacheGolden, DecodeStepPrintsAsConvertAndExportWithCache) {
  for (const Case& k : {Case{GetParam(), 1, 1, ".kv.txt"}, Case{GetParam(), 2, 3, ".kv_b2s3.txt"}}) {
    SCOPED_TRACE(k.name + k.file);
    const std::string golden = kGolden + "/" + k.name + k.file;
    if (!fs::exists(golden)) GTEST_SKIP() << "no golden print " << golden;
    const fe::ExportedProgram ep = export_decode_step(k.name, k.batch, k.seq);
    EXPECT_EQ(fe_test::without_comments(fe::to_string(ep, {.read_source = false})),
              fe_test::without_comments(fe_test::read_file(golden)));
    // Lowered to Core ATen as ep.run_decompositions() lowers it: the cache writes functionalized
    // (index_put, BUFFER_MUTATION outputs), the one-query flash output's no-op contiguous.
    const std::string decomposed = kGolden + "/" + k.name + ".kv.decomposed.txt";
    if (k.file == ".kv.txt" && fs::exists(decomposed)) {
      const fe::ExportedProgram low = fe::run_decompositions(ep, fe::default_decompositions());
      EXPECT_EQ(fe_test::without_comments(fe::to_string(low, {.read_source = false})),
                fe_test::without_comments(fe_test::read_file(decomposed)))
          << "decomposed";
    }
  }
  // The step's tokens dynamic: the symbol (s11, from dynamo's `L['flat_args'][0].size()[1]`), its
  // range, every shape and every node name as PyTorch's (sym_size_int_5 and le_1 are numbered after
  // the checks AOT's trace recorded inside indexing calls and dropped).
  const std::string golden = kGolden + "/" + GetParam() + ".kv_dyn.txt";
  if (!fs::exists(golden)) GTEST_SKIP() << "no golden print " << golden;
  const fe::ExportedProgram ep = export_decode_step(GetParam(), 1, 3, 16, /*dynamic_seq=*/true);
  const std::string ours = fe_test::without_comments(fe::to_string(ep, {.read_source = false}));
  const std::string torch = fe_test::without_comments(fe_test::read_file(golden));
  EXPECT_EQ(ours, torch);
}

INSTANTIATE_TEST_SUITE_P(Zoo, StaticCacheGolden,
                         ::testing::Values("llama", "llama_mha_bias", "qwen2", "qwen3", "gemma", "mistral", "phi3",
                                           "gemma2", "gemma3_text", "qwen3_moe", "qwen2_moe", "qwen2_moe_window",
                                           "llama_bf16", "gemma2_bf16", "gemma3_text_bf16", "gpt_neox", "gpt2",
                                           "falcon_40b", "falcon_sequential"));

/// max |got - want| over float logits of equal shape; infinity when the shapes differ.
double worst_diff(const fe::Tensor& got, const fe::Tensor& want) {
  const fe::Tensor g = got.contiguous(), w = want.contiguous();
  if (fe_test::ints(g.sizes()) != fe_test::ints(w.sizes())) return INFINITY;
  double worst = 0;
  for (int64_t k = 0; k < w.numel(); ++k)
    worst = std::max(worst, std::abs(double(g.data<float>()[k]) - double(w.data<float>()[k])));
  return worst;
}

// Generation with HF's weights (tests/fixtures/zoo/eager: input_ids [2, 7] and HF's logits over the
// whole sequence): a prefill program over the first 4 tokens, then a one-token program three times,
// the cache carried between runs in the wrapper's buffers. Each step's logits are HF's for those
// positions: the cache, its positions and the mask over the whole cache compute what attention over
// the full sequence does. Mixtral too (no PyTorch golden: transformers' StaticCache fails on its config).
TEST(StaticCache, GenerationStepsRunToHuggingFacesLogits) {
  const fs::path root = fs::path(FE_FIXTURES_DIR) / "zoo";
  for (const std::string name : {"tiny_llama", "tiny_qwen2", "tiny_qwen3", "tiny_gemma", "tiny_mistral", "tiny_phi3",
                                 "tiny_gemma2", "tiny_gemma3_text", "tiny_mixtral", "tiny_qwen2_moe", "tiny_qwen3_moe",
                                 "tiny_gpt_neox", "tiny_gpt2", "tiny_falcon_40b", "tiny_falcon_sequential"}) {
    SCOPED_TRACE(name);
    if (!fs::exists(root / "eager" / name / "io.safetensors")) GTEST_SKIP() << "no eager fixture for " << name;
    auto inner = fe::zoo::build(fe::zoo::Config::from_file((root / "configs" / (name + ".json")).string()));
    fe::zoo::load_weights(*inner, (root / "eager" / name / "model.safetensors").string());
    fe::SafetensorsFile io((root / "eager" / name / "io.safetensors").string());
    const fe::Tensor ids = io.load("input_0_input_ids"), want = io.load("output_0");
    ASSERT_EQ(fe_test::ints(ids.sizes()), (std::vector<int64_t>{2, 7}));
    auto m = fe::zoo::with_static_cache(std::move(inner), 2, 16);
    const fe::zoo::ExportHints h = m->export_hints();
    const fe::ExportOptions opts{.strict = h.strict, .state_access_paths = h.state_access_paths, .kwarg_inputs = h.kwarg_inputs, .grad_enabled = !h.no_grad};
    const auto step = [&](int64_t from, int64_t n) {
      const fe::Tensor tokens = ids.slice(1, from, from + n).contiguous();
      const fe::Tensor positions = fe::arange(fe::Scalar(from), fe::Scalar(from + n), {.dtype = fe::DType::Int64});
      const fe::ExportedProgram ep = fe::export_program(*m, {tokens, positions}, opts);
      if (from == 0) {  // for PyTorch to load and run (tools/oracle/scripts/check_our_pt2.py)
        fs::create_directories(fs::path(FE_BUILD_DIR) / "pt2_out" / "static_cache");
        fe::serde::save(ep, (fs::path(FE_BUILD_DIR) / "pt2_out" / "static_cache" / (name + ".pt2")).string());
      }
      const std::vector<fe::Tensor> got = fe::run(ep, {tokens, positions});
      EXPECT_LE(worst_diff(got.at(0), want.slice(1, from, from + n)), 1e-4) << "tokens " << from << " to " << from + n;
      if (from == 0) {
        // Lowered to Core ATen (the cache writes functionalized: index_put, BUFFER_MUTATION outputs
        // written back), the prefill computes the same logits.
        // GPT-2's is refused as PyTorch refuses it (tests/fixtures/zoo_golden/gpt2.decompose_error.txt):
        // its attention output, viewed after a transpose, is not contiguous once sdpa is lowered.
        if (name == "tiny_gpt2") {
          try {
            (void)fe::run_decompositions(ep, fe::default_decompositions());
            ADD_FAILURE() << "GPT-2's prefill decomposed; PyTorch's run_decompositions fails on it";
          } catch (const fe::Error& e) {
            EXPECT_NE(std::string(e.what()).find("Cannot view a tensor with shape torch.Size([2, 4, 16])"),
                      std::string::npos) << e.what();
          }
          return;
        }
        const fe::ExportedProgram low = fe::run_decompositions(ep, fe::default_decompositions());
        EXPECT_LE(worst_diff(fe::run(low, {tokens, positions}).at(0), want.slice(1, 0, n)), 1e-4) << "decomposed";
      }
    };
    step(0, 4);
    for (int64_t k = 4; k < 7; ++k) step(k, 1);
    // One program with the step's tokens dynamic serves both: a 4-token prefill, then 1-token steps.
    fe::ExportOptions dyn = opts;
    dyn.dynamic_shapes = m->example_inputs({.seq = 3, .dynamic_seq = true}).dynamic_shapes;
    const fe::Tensor ex_ids = ids.slice(1, 0, 3).contiguous();
    const fe::ExportedProgram any = fe::export_program(*m, {ex_ids, fe::arange(fe::Scalar(3), {.dtype = fe::DType::Int64})}, dyn);
    fe::serde::save(any, (fs::path(FE_BUILD_DIR) / "pt2_out" / "static_cache" / (name + ".dyn.pt2")).string());
    for (const auto& [from, n] : std::vector<std::pair<int64_t, int64_t>>{{0, 4}, {4, 1}, {5, 1}, {6, 1}}) {
      const fe::Tensor tokens = ids.slice(1, from, from + n).contiguous();
      const fe::Tensor positions = fe::arange(fe::Scalar(from), fe::Scalar(from + n), {.dtype = fe::DType::Int64});
      EXPECT_LE(worst_diff(fe::run(any, {tokens, positions}).at(0), want.slice(1, from, from + n)), 1e-4)
          << "dynamic program, tokens " << from << " to " << from + n;
    }
  }
}

TEST(StaticCache, TheCacheIsStateTheProgramWritesInPlace) {
  const fe::ExportedProgram ep = export_decode_step("llama", 4, 1, 1024);
  // Per layer keys and values [batch, kv_heads, len, head_dim] and an int64 length, non-persistent,
  // read and written by index_copy_ / add_ (no BUFFER_MUTATION outputs in the training IR).
  int caches = 0;
  for (const fe::InputSpec& s : ep.signature.inputs)
    if (s.kind == fe::InputKind::Buffer && (s.target.starts_with("key_cache_") || s.target.starts_with("value_cache_"))) {
      ++caches;
      EXPECT_FALSE(s.persistent) << s.target;
    }
  EXPECT_EQ(caches, 4);  // tiny llama: 2 layers
  int index_copies = 0;
  for (const auto& n : ep.graph.nodes())
    if (n->op() == fe::NodeOp::CallFunction && n->target()->schema.name == "index_copy_") {
      ++index_copies;
      EXPECT_EQ(fe_test::ints(n->val[0].sizes), (std::vector<int64_t>{4, 1, 1024, 16}));
    }
  EXPECT_EQ(index_copies, 4);
  EXPECT_EQ(ep.signature.outputs.size(), 1u);
}

// memory --kv-cache estimates the cache from the key/value projections and the model's cache
// layout; the decode step holds the cache transformers allocates. The two agree byte for byte
// (GQA, a head_dim apart from hidden / heads, bfloat16, GPT-2's fused c_attn, Falcon's broadcast
// kv heads). Not for sliding-window layers: the decode step's StaticCache gives every layer LEN
// tokens, where generate()'s DynamicCache keeps window - 1 (KvCacheEstimate checks that one).
TEST(StaticCache, TheCacheTransformersAllocatesIsTheKvCacheEstimate) {
  for (const std::string name : {"llama", "qwen3", "llama_bf16", "llama_mha_bias", "gpt2", "falcon_40b", "falcon_sequential"}) {
    SCOPED_TRACE(name);
    const fe::ExportedProgram ep = export_decode_step(name, 2, 1, 48);
    int64_t cache = 0;
    const auto phs = ep.graph.placeholders();
    for (size_t i = 0; i < phs.size(); ++i) {
      const fe::InputSpec& s = ep.signature.inputs.at(i);
      if (s.target.starts_with("key_cache_") || s.target.starts_with("value_cache_"))
        cache += phs[i]->val.at(0).numel().expect_int() * fe::itemsize(phs[i]->val[0].dtype);
    }
    // What the zoo model says its generation cache holds (memory --kv-cache's layout).
    const fe::analysis::KvLayout layout =
        fe::zoo::build(fe::zoo::Config::from_file(kGolden + "/" + name + ".config.json"))->generation_cache();
    int64_t estimate = 0;
    for (const auto& [dev, bytes] : fe::analysis::kv_cache_bytes(ep, 48, 2, layout)) estimate += bytes;
    EXPECT_GT(cache, 0);
    EXPECT_EQ(cache, estimate);
  }
}

// Over a pipeline each layer's cache lives with the layer; the wrapper's copy_ of cache_position
// (on the first device) into a later layer's length is a cross-device copy, as FakeTensor allows
// copy_ (the result on self's device).
TEST(StaticCache, EachLayersCacheLivesOnItsDevice) {
  fe::FakeTensorMode fake;
  auto inner = fe::zoo::build(fe::zoo::builtin_config("llama"));  // 4 layers
  const std::vector<fe::Device> devs{fe::Device::parse("cuda:0"), fe::Device::parse("cuda:1")};
  fe::zoo::place(*inner, fe::zoo::Placement::pipeline(inner->units(), devs));
  auto m = fe::zoo::with_static_cache(std::move(inner), 1, 32);
  const fe::zoo::ExampleInputs in = m->example_inputs({});
  const fe::zoo::ExportHints h = m->export_hints();
  const fe::ExportedProgram ep = fe::export_program(
      *m, in.args, {.strict = h.strict, .state_access_paths = h.state_access_paths, .grad_enabled = !h.no_grad});
  std::map<std::string, std::string> device_of;
  const auto phs = ep.graph.placeholders();
  for (size_t i = 0; i < phs.size(); ++i) device_of[ep.signature.inputs.at(i).target] = phs[i]->val.at(0).device.str();
  EXPECT_EQ(device_of.at("key_cache_0"), "cuda:0");
  EXPECT_EQ(device_of.at("value_cache_3"), "cuda:1");
  EXPECT_EQ(device_of.at("cumulative_length_3"), "cuda:1");
  int cross = 0;
  for (const auto& n : ep.graph.nodes())
    if (n->op() == fe::NodeOp::CallFunction && n->target()->schema.name == "copy_") {
      const fe::Node* src = std::get<fe::Node*>(n->args().at(1));
      cross += src->val.at(0).device != n->val.at(0).device;
    }
  EXPECT_EQ(cross, 2);  // layers 2 and 3
}

TEST(StaticCache, FamiliesWithoutTheCacheAreRefused) {
  fe::FakeTensorMode fake;
  // DeepSeek's MLA: transformers' own convert_and_export_with_cache fails on it (index_copy_ shapes).
  const fe::zoo::Config ds = fe::zoo::Config::from_file(kGolden + "/deepseek_v3.config.json");
  EXPECT_THROW(
      {
        try {
          fe::zoo::with_static_cache(fe::zoo::build(ds), 1, 16);
        } catch (const fe::ValueError& e) {
          EXPECT_NE(std::string(e.what()).find("DeepseekV3Attention"), std::string::npos) << e.what();
          throw;
        }
      },
      fe::ValueError);
  // Falcon-7B's multi-query layout and Falcon-RW's ALiBi: transformers' export of them fails too.
  for (const std::string name : {"falcon", "falcon_rw"})
    EXPECT_THROW(fe::zoo::with_static_cache(
                     fe::zoo::build(fe::zoo::Config::from_file(kGolden + "/" + name + ".config.json")), 1, 16),
                 fe::ValueError) << name;
  EXPECT_THROW(fe::zoo::with_static_cache(fe::zoo::build(fe::zoo::builtin_config("t5")), 1, 16), fe::ValueError);
  EXPECT_THROW(fe::zoo::with_static_cache(fe::zoo::build(fe::zoo::builtin_config("llama")), 1, 0), fe::ValueError);
  auto m = fe::zoo::with_static_cache(fe::zoo::build(fe::zoo::builtin_config("llama")), 1, 8);
  EXPECT_THROW(m->example_inputs({.seq = 9}), fe::ValueError);  // more tokens than the cache holds
  EXPECT_THROW(m->example_inputs({.batch = 2, .dynamic_batch = true}), fe::ValueError);  // the cache's batch is fixed
}

TEST(StaticCacheCli, ExportsTheDecodeStepAndRefusesBadLengths) {
  const fe_test::CliResult ok = fe_test::run_cli("export llama --static-cache 64 --json");
  ASSERT_EQ(ok.rc, 0) << ok.out;
  const fe_test::CliResult zero = fe_test::run_cli("export llama --static-cache 0");
  EXPECT_EQ(zero.rc, 2) << zero.out;
  const fe_test::CliResult both = fe_test::run_cli("memory llama --static-cache 64 --kv-cache 64");
  EXPECT_EQ(both.rc, 2) << both.out;  // the decode step holds its cache: no estimate on top
  const fe_test::CliResult falcon = fe_test::run_cli("export falcon --static-cache 16");  // Falcon-7B's layout
  EXPECT_EQ(falcon.rc, 2) << falcon.out;
  EXPECT_NE(falcon.out.find("static cache"), std::string::npos) << falcon.out;
}

}  // namespace
