// Benchmarks of the hot paths: one fake op dispatch, and a whole fake export of the seed MLP.
#include <benchmark/benchmark.h>

#include "gpt2_mini.h"

#include <cstdio>

#include "fakeexport/export/summary.h"
#include "fakeexport/serde/pt2.h"

#include "fakeexport/ops/dispatch.h"
#include "seed_mlp_model.h"

static void BM_FakeLinearDispatch(benchmark::State& state) {
  fe::FakeTensorMode mode;
  fe::Tensor x = fe::randn({4, 128});
  fe::Tensor w = fe::empty({256, 128});
  fe::Tensor b = fe::empty({256});
  for (auto _ : state) benchmark::DoNotOptimize(fe::linear(x, w, b));
}
BENCHMARK(BM_FakeLinearDispatch);

// The mix of issue 3: elementwise (broadcast add, scalar mul), views (view, transpose, slice) and
// matmul-family (bmm, matmul) calls, each one fake-mode dispatch (meta + bookkeeping). Reported per
// call: items_per_second is calls/s.
static void BM_FakeDispatchMix(benchmark::State& state) {
  using namespace fe;
  FakeTensorMode mode;
  const OpDef& add = op("aten::add.Tensor");
  const OpDef& mul = op("aten::mul.Tensor");
  const OpDef& view = op("aten::view.default");
  const OpDef& transpose = op("aten::transpose.int");
  const OpDef& slice = op("aten::slice.Tensor");
  const OpDef& bmm = op("aten::bmm.default");
  const OpDef& matmul = op("aten::matmul.default");
  const OpDef& softmax = op("aten::softmax.int");
  Tensor x = empty({8, 128, 64});
  Tensor bias = empty({64});
  Tensor w = empty({8, 64, 128});
  const SrcLocArg loc = SrcLocArg::current();
  const std::vector<SymInt> shape{8, 128, 4, 16};
  for (auto _ : state) {
    benchmark::DoNotOptimize(dispatch1(add, {x, bias, SymInt(1)}, loc));
    benchmark::DoNotOptimize(dispatch1(mul, {x, 0.5}, loc));
    benchmark::DoNotOptimize(dispatch1(view, {x, shape}, loc));
    benchmark::DoNotOptimize(dispatch1(transpose, {x, SymInt(1), SymInt(2)}, loc));
    benchmark::DoNotOptimize(dispatch1(slice, {x, SymInt(1), SymInt(0), SymInt(64), SymInt(1)}, loc));
    benchmark::DoNotOptimize(dispatch1(bmm, {x, w}, loc));
    benchmark::DoNotOptimize(dispatch1(matmul, {x, w}, loc));
    benchmark::DoNotOptimize(dispatch1(softmax, {x, SymInt(-1), None{}}, loc));
  }
  state.SetItemsProcessed(state.iterations() * 8);
}
BENCHMARK(BM_FakeDispatchMix);

static void BM_SeedMlpFakeExport(benchmark::State& state) {
  const fe::Device gpu = fe::Device::parse("cuda");
  for (auto _ : state) benchmark::DoNotOptimize(seed::fake_export(fe::kCPU, gpu));
}
BENCHMARK(BM_SeedMlpFakeExport);

// Issue 4's budget: exporting the GPT-2-style decoder with symbolic batch and seq costs at most 3x
// the static export of the same model.
static void BM_Gpt2MiniExportStatic(benchmark::State& state) {
  fe::FakeTensorMode mode;
  gpt2_mini::GPT m;
  fe::Tensor idx = fe::zeros({3, 8}, {.dtype = fe::DType::Int64});
  for (auto _ : state) benchmark::DoNotOptimize(fe::export_program(m, {idx}));
}
BENCHMARK(BM_Gpt2MiniExportStatic);

static void BM_Gpt2MiniExportDynamic(benchmark::State& state) {
  fe::FakeTensorMode mode;
  gpt2_mini::GPT m;
  fe::Tensor idx = fe::zeros({3, 8}, {.dtype = fe::DType::Int64});
  for (auto _ : state)
    benchmark::DoNotOptimize(fe::export_program(m, {idx}, {.dynamic_shapes = gpt2_mini::dynamic_dims()}));
}
BENCHMARK(BM_Gpt2MiniExportDynamic);

// Issue 5: `inspect` of a 100-layer program's archive without weights (load + summary, as the CLI).
namespace {
class Deep : public fe::nn::Module {
 public:
  explicit Deep(int layers) {
    for (int i = 0; i < layers; ++i)
      blocks.push_back(register_module("h_" + std::to_string(i), std::make_shared<gpt2_mini::Block>()));
  }
  std::string type_name() const override { return "__main__.Deep"; }
  std::vector<std::string> forward_arg_names() const override { return {"x"}; }
  std::vector<fe::Tensor> forward_dyn(const std::vector<fe::Tensor>& in) override {
    fe::nn::ModuleCallScope scope(*this);
    fe::Tensor x = in[0];
    for (auto& b : blocks) x = (*b)(x);
    return {x};
  }
  std::vector<std::shared_ptr<gpt2_mini::Block>> blocks;
};
}  // namespace

static void BM_Pt2Inspect100Layers(benchmark::State& state) {
  const std::string path = "/tmp/fakeexport_bench_deep100.pt2";
  {
    fe::FakeTensorMode mode;
    Deep m(100);
    fe::ExportedProgram ep = fe::export_program(m, {fe::zeros({2, 8, gpt2_mini::C})});
    fe::serde::save(ep, path, {.weights = fe::serde::WeightsPolicy::None});
    state.counters["nodes"] = static_cast<double>(ep.graph.size());
  }
  for (auto _ : state) {
    fe::serde::LoadedProgram lp = fe::serde::load(path);
    benchmark::DoNotOptimize(fe::program_summary_json(lp.ep));
  }
  std::remove(path.c_str());
}
BENCHMARK(BM_Pt2Inspect100Layers)->Unit(benchmark::kMillisecond);

// Llama-3.1-405B fake (bf16), placed over 8 devices, exported with the verifier (batch 1, seq 2048).
static fe::ExportedProgram export_405b_pipeline(const fe::zoo::Config& cfg) {
  std::vector<fe::Device> devs;
  for (int i = 0; i < 8; ++i) devs.push_back(fe::Device(fe::DeviceType::CUDA, static_cast<int8_t>(i)));
  fe::FakeTensorMode mode;
  fe::DTypeScope dtype(fe::DType::BFloat16);
  auto m = fe::zoo::build(cfg);
  fe::zoo::place(*m, fe::zoo::Placement::pipeline(m->units(), devs));
  auto in = m->example_inputs({.batch = 1, .seq = 2048});
  return fe::export_program(*m, in.args);
}

// In-process part of bench/export_405b.sh: build, place and export as above. The whole process
// adds startup, summary and exit.
static void BM_Zoo405BPipelineExport(benchmark::State& state) {
  const fe::zoo::Config cfg = fe::zoo::Config::from_file(FE_SOURCE_DIR "/configs/meta-llama-3.1-405b.json");
  for (auto _ : state) {
    fe::ExportedProgram ep = export_405b_pipeline(cfg);
    state.counters["nodes"] = static_cast<double>(ep.graph.size());
  }
}
BENCHMARK(BM_Zoo405BPipelineExport)->Unit(benchmark::kMillisecond);

// The structural lint the verifier runs first (names, def-before-use, use-lists) over that program.
static void BM_Zoo405BLint(benchmark::State& state) {
  const fe::ExportedProgram ep =
      export_405b_pipeline(fe::zoo::Config::from_file(FE_SOURCE_DIR "/configs/meta-llama-3.1-405b.json"));
  for (auto _ : state) ep.graph.lint();
  state.counters["nodes"] = static_cast<double>(ep.graph.size());
}
BENCHMARK(BM_Zoo405BLint)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
