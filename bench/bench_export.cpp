// Benchmarks of the hot paths: one fake op dispatch, and a whole fake export of the seed MLP.
#include <benchmark/benchmark.h>

#include "seed_mlp_model.h"

static void BM_FakeLinearDispatch(benchmark::State& state) {
  fe::FakeTensorMode mode;
  fe::Tensor x = fe::randn({4, 128});
  fe::Tensor w = fe::empty({256, 128});
  fe::Tensor b = fe::empty({256});
  for (auto _ : state) benchmark::DoNotOptimize(fe::linear(x, w, b));
}
BENCHMARK(BM_FakeLinearDispatch);

static void BM_SeedMlpFakeExport(benchmark::State& state) {
  const fe::Device gpu = fe::Device::parse("cuda");
  for (auto _ : state) benchmark::DoNotOptimize(seed::fake_export(fe::kCPU, gpu));
}
BENCHMARK(BM_SeedMlpFakeExport);

BENCHMARK_MAIN();
