// Archives PyTorch writes on a GPU (tests/fixtures/cuda/pt2: torch.export.save on a lent H200,
// PyTorch 2.11 CUDA, tools/device/capture_sdpa_cuda.py --pt2): attention blocks on each kernel and
// a transformers Qwen2, exported on cuda:0, and their run_decompositions(), whose fused CUDA
// attention ops return tensors, None and sizes together (cuDNN's cum_seq_q, max_q). Each loads,
// every node our registry knows verifies against the metadata PyTorch recorded (the sdpa output
// layouts of the kernel it picked included), prints as PyTorch printed it, and saves back with the
// fused op's results as recorded.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fakeexport/analysis/device_lint.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/export/check.h"
#include "fakeexport/export/decompose.h"
#include "fakeexport/serde/pt2.h"
#include "fakeexport/serde/zip.h"
#include "test_util.h"

namespace fs = std::filesystem;
using namespace fe;

namespace {

const std::string kDir = std::string(FE_FIXTURES_DIR) + "/cuda/pt2";

using fe_test::without_comments;

/// The fused CUDA attention node of a decomposed program, if any.
const Node* fused_attention(const ExportedProgram& ep) {
  for (const auto& n : ep.graph.nodes())
    if (n->target() && n->target()->schema.name.starts_with("_scaled_dot_product_")) return n.get();
  return nullptr;
}

}  // namespace

TEST(Pt2Cuda, PyTorchGpuArchivesLoadVerifyPrintAndSaveBack) {
  size_t archives = 0, mixed = 0;
  for (const auto& e : fs::directory_iterator(kDir)) {
    if (e.path().extension() != ".pt2") continue;
    const std::string base = (e.path().parent_path() / e.path().stem()).string();
    SCOPED_TRACE(e.path().filename().string());
    ++archives;
    serde::LoadedProgram lp = serde::load(e.path().string(), {.materialize_weights = false});
    const CheckReport cr = check_program(lp.ep);
    EXPECT_TRUE(cr.mismatches.empty()) << cr.mismatches.size() << " mismatches, first: " << cr.mismatches[0].node->name();
    EXPECT_TRUE(analysis::lint_devices(lp.ep, {Device::parse("cuda:0")}).empty());
    const std::string printed = without_comments(to_string(lp.ep, {.read_source = false}));
    if (fs::exists(base + ".txt")) {
      EXPECT_EQ(printed, without_comments(fe_test::read_file(base + ".txt")));
    }
    // Written back and read again: the same program, the fused op's None and size results included.
    const std::string out = (fs::path(FE_BUILD_DIR) / ("cuda_" + e.path().filename().string())).string();
    serde::save(lp.ep, out, {.weights = serde::WeightsPolicy::None});
    serde::LoadedProgram again = serde::load(out, {.materialize_weights = false});
    EXPECT_EQ(without_comments(to_string(again.ep, {.read_source = false})), printed);
    if (const Node* n = fused_attention(lp.ep); n && !n->out_elems.empty()) {
      ++mixed;
      const Node* m = fused_attention(again.ep);
      ASSERT_NE(m, nullptr);
      ASSERT_EQ(m->out_elems.size(), n->out_elems.size());
      for (size_t k = 0; k < n->out_elems.size(); ++k) {
        EXPECT_EQ(m->out_elems[k].kind, n->out_elems[k].kind) << k;
        EXPECT_TRUE(m->out_elems[k].value.same_as(n->out_elems[k].value)) << k;
      }
    }
  }
  EXPECT_EQ(archives, 10u);
  EXPECT_EQ(mixed, 2u);  // the two cuDNN programs (bf16 causal; f16 GQA)
}

// run_decompositions() of the CUDA exports prints as PyTorch's: the fused op of the kernel PyTorch
// picks with its mask conversion and head-dim padding (cuDNN twice, memory-efficient with a boolean
// mask, flash with a head dim of 6), or the math path (fp32 GQA: the memory-efficient kernel takes
// no GQA). NAME.decomposed.txt is PyTorch's default order (our sm90); NAME.sm80.decomposed.txt
// under TORCH_CUDNN_SDPA_DEPRIORITIZED=1 (our sm80: flash, memory-efficient). The flash prints
// come from the capture's sdpa_export/ (the same module and inputs): PyTorch 2.11 cannot save a
// program holding _scaled_dot_product_flash_attention.
TEST(Pt2Cuda, DecomposedAsPyTorchOnEachKernel) {
  size_t compared = 0;
  for (const auto& e : fs::directory_iterator(kDir)) {
    const std::string file = e.path().filename().string();
    if (e.path().extension() != ".pt2" || file.find(".decomposed") != std::string::npos) continue;
    const std::string base = (e.path().parent_path() / e.path().stem()).string();
    for (const auto& [arch, suffix] : {std::pair{CudaArch::Sm90, ".decomposed.txt"}, std::pair{CudaArch::Sm80, ".sm80.decomposed.txt"}}) {
      if (!fs::exists(base + suffix)) continue;
      SCOPED_TRACE(file + " " + std::string(cuda_arch_name(arch)));
      const CudaArchScope scope(arch);
      serde::LoadedProgram lp = serde::load(e.path().string(), {.materialize_weights = false});
      const ExportedProgram d = run_decompositions(lp.ep, default_decompositions());
      EXPECT_TRUE(check_program(d).ok());
      EXPECT_EQ(without_comments(to_string(d, {.read_source = false})), without_comments(fe_test::read_file(base + suffix)));
      ++compared;
    }
  }
  EXPECT_EQ(compared, 7u);
}

// Weights read into host memory (to run on the reference kernels) stay the program's cuda:0
// tensors when written back: torch.export.load puts each where model_weights_config.json says (on
// the H200, an archive that said cpu ran into "mat2 is on cpu").
TEST(Pt2Cuda, WrittenWeightsKeepTheProgramsDevice) {
  serde::LoadedProgram lp = serde::load(kDir + "/attn_f32_d16_none_gqa.pt2", {.materialize_weights = true});
  ASSERT_TRUE(lp.weights_present);
  const std::string out = (fs::path(FE_BUILD_DIR) / "cuda_weights_device.pt2").string();
  serde::save(lp.ep, out, {.weights = serde::WeightsPolicy::Tensors});
  serde::ZipReader z(out);
  size_t checked = 0;
  for (const auto& e : z.entries()) {
    if (!e.name.ends_with("data/weights/model_weights_config.json")) continue;
    std::ifstream in(out, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(e.data_offset));
    std::string text(e.size, '\0');
    in.read(text.data(), static_cast<std::streamsize>(e.size));
    const nlohmann::json config = nlohmann::json::parse(text);
    for (const auto& [fqn, item] : config["config"].items()) {
      EXPECT_EQ(item["tensor_meta"]["device"]["type"], "cuda") << fqn;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4u);
}

// Our decompositions, run by PyTorch on the H200 (tools/device/run_decomposed_cuda.py over
// `fakeexport [--arch sm80] decompose NAME.pt2 -o NAME.ours[_sm80].pt2`, recorded in
// tests/fixtures/cuda/decomposed_run.json): each one PyTorch 2.11 could read computed exactly what
// PyTorch's own export computes; the ones it could not read are exactly those our decomposition
// gives a flash attention op (its uint64 seed is a dtype 2.11's serializer lacks, which is also why
// PyTorch 2.11 cannot save such a program; 2.14 has it).
TEST(Pt2Cuda, OurCudaDecompositionsRunInPyTorchWithItsValues) {
  std::ifstream in(std::string(FE_FIXTURES_DIR) + "/cuda/decomposed_run.json");
  ASSERT_TRUE(in);
  const nlohmann::json run = nlohmann::json::parse(in);
  size_t ran = 0, flash = 0;
  for (const auto& [name, r] : run["programs"].items()) {
    SCOPED_TRACE(name);
    const std::string base = name.substr(0, name.find('.'));
    const CudaArchScope arch(name.ends_with("_sm80") ? CudaArch::Sm80 : CudaArch::Sm90);
    serde::LoadedProgram lp = serde::load(kDir + "/" + base + ".pt2", {.materialize_weights = false});
    const std::string ours = to_string(run_decompositions(lp.ep, default_decompositions()), {.read_source = false});
    if (ours.find("_scaled_dot_product_flash_attention.default") != std::string::npos) {
      EXPECT_FALSE(r["loaded"].get<bool>());
      ++flash;
    } else {
      EXPECT_TRUE(r["ran"].get<bool>());
      EXPECT_TRUE(r["allclose"].get<bool>());
      EXPECT_EQ(r["max_abs_diff"].get<double>(), 0.0);
      ++ran;
    }
  }
  EXPECT_EQ(ran, 6u);
  EXPECT_EQ(flash, 4u);
}
