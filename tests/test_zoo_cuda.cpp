// The zoo exported on cuda:0 prints as PyTorch exports the transformers model on a GPU
// (tests/fixtures/cuda/zoo/NAME.txt: tools/device/capture_sdpa_cuda.py on a lent H200, PyTorch 2.11
// CUDA, transformers 5.17): the attention kernel PyTorch picks there decides the layout of the sdpa
// output, and with it which `.contiguous()` calls are no-ops that export does not record (Whisper
// loses one; BERT, ViT and Blenderbot, whose masks keep them on the math path, gain one the CPU
// export dropped). Compared whole, without comment lines. Cases where transformers 5.17 traces a
// different graph from 5.12 (the Llama family's rotary dtype casts) are compared in their CPU form
// only (test_zoo_golden.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "fakeexport/export/exported_program.h"
#include "test_util.h"
#include "zoo_test_util.h"

namespace fs = std::filesystem;

namespace {

using fe_test::without_comments;

class ZooCuda : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooCuda, PrintsAsPyTorchExportsTransformersOnAGpu) {
  const std::string want_file = std::string(FE_FIXTURES_DIR) + "/cuda/zoo/" + GetParam() + ".txt";
  ASSERT_TRUE(fs::exists(want_file)) << want_file;
  fe::FakeTensorMode fake;
  const fe::zoo::Config c =
      fe::zoo::Config::from_file(std::string(FE_FIXTURES_DIR) + "/zoo_golden/" + GetParam() + ".config.json");
  fe::DTypeScope dt(c.is_null("dtype") ? fe::DType::Float32 : fe::parse_dtype(c.get_string("dtype")).value());
  fe::DeviceScope dev(fe::Device::parse("cuda:0"));
  auto m = fe::zoo::build(c);
  const fe::ExportedProgram ep = zoo_test::export_model(*m, {.batch = 2, .seq = 8});
  EXPECT_EQ(without_comments(fe::to_string(ep, {.read_source = false})), without_comments(fe_test::read_file(want_file)));
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooCuda, ::testing::Values("qwen2", "qwen2_yarn", "qwen3", "gemma2", "gemma2_bf16", "clip",
                                                         "clip_eos2", "gpt2", "bert", "vit", "ved", "blenderbot",
                                                         "whisper"));

}  // namespace
