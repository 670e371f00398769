// Issue 15, the decode step: `fakeexport export MODEL --static-cache LEN` builds transformers'
// TorchExportableModuleWithStaticCache around the decoder and exports it as
// convert_and_export_with_cache does (strict, under torch.no_grad()). Each print equals PyTorch 2.14's
// of the transformers 5.12 model (tests/fixtures/zoo_golden/NAME.kv*.txt, written by
// tools/oracle/scripts/gen_zoo_kv_golden.py), compared whole except `# File:` comments.
#include <gtest/gtest.h>

#include <filesystem>

#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/export/exported_program.h"
#include "fakeexport/nn/zoo.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace {

const std::string kGolden = std::string(FE_FIXTURES_DIR) + "/zoo_golden";

/// The decode step of golden config NAME: built under the config's dtype, wrapped with a cache of
/// `len` tokens for `batch` sequences, exported with the wrapper's hints.
fe::ExportedProgram export_decode_step(const std::string& name, int64_t batch, int64_t seq, int64_t len = 16) {
  fe::FakeTensorMode fake;
  const fe::zoo::Config c = fe::zoo::Config::from_file(kGolden + "/" + name + ".config.json");
  std::unique_ptr<fe::zoo::Model> m;
  {
    fe::DTypeScope dt(c.is_null("dtype") ? fe::DType::Float32 : fe::parse_dtype(c.get_string("dtype")).value());
    m = fe::zoo::with_static_cache(fe::zoo::build(c), batch, len);
  }
  const fe::zoo::ExampleInputs in = m->example_inputs({.batch = batch, .seq = seq});
  const fe::zoo::ExportHints h = m->export_hints();
  return fe::export_program(*m, in.args,
                            {.strict = h.strict, .state_access_paths = h.state_access_paths, .grad_enabled = !h.no_grad});
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
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, StaticCacheGolden,
                         ::testing::Values("llama", "llama_mha_bias", "qwen2", "qwen3", "gemma", "mistral", "phi3",
                                           "gemma2", "gemma3_text", "qwen3_moe", "qwen2_moe", "qwen2_moe_window",
                                           "llama_bf16", "gemma2_bf16", "gemma3_text_bf16"));

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
  EXPECT_THROW(fe::zoo::with_static_cache(fe::zoo::build(fe::zoo::builtin_config("gpt2")), 1, 16), fe::ValueError);
  EXPECT_THROW(fe::zoo::with_static_cache(fe::zoo::build(fe::zoo::builtin_config("llama")), 1, 0), fe::ValueError);
  auto m = fe::zoo::with_static_cache(fe::zoo::build(fe::zoo::builtin_config("llama")), 1, 8);
  EXPECT_THROW(m->example_inputs({.seq = 9}), fe::ValueError);  // more tokens than the cache holds
  EXPECT_THROW(m->example_inputs({.seq = 4, .dynamic_seq = true}), fe::ValueError);
}

TEST(StaticCacheCli, ExportsTheDecodeStepAndRefusesBadLengths) {
  const fe_test::CliResult ok = fe_test::run_cli("export llama --static-cache 64 --json");
  ASSERT_EQ(ok.rc, 0) << ok.out;
  const fe_test::CliResult zero = fe_test::run_cli("export llama --static-cache 0");
  EXPECT_EQ(zero.rc, 2) << zero.out;
  const fe_test::CliResult gpt2 = fe_test::run_cli("export gpt2 --static-cache 16");
  EXPECT_EQ(gpt2.rc, 2) << gpt2.out;
  EXPECT_NE(gpt2.out.find("static cache"), std::string::npos) << gpt2.out;
}

}  // namespace
