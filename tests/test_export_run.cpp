// fe::run (ep.module()(*inputs) in C++) against PyTorch 2.14's numbers: programs exported here from
// models holding the weights PyTorch used, run on the inputs PyTorch ran, compared with its outputs
// (tests/fixtures/pt2/*.safetensors from tools/oracle/scripts/gen_pt2.py, tests/fixtures/run/* from
// tools/oracle/scripts/gen_run_cases.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "test_util.h"

#include "fakeexport/export/run.h"
#include "fakeexport/fakeexport.h"
#include "fakeexport/serde/pt2.h"
#include "gpt2_mini.h"
#include "seed_mlp_model.h"

namespace {
using namespace fe;
using fe_test::what_of;

std::string fixture_path(const std::string& rel) { return std::string(FE_FIXTURES_DIR) + "/" + rel; }

using fe_test::error_of;

/// Copies every parameter and buffer of `m` from the safetensors file, by state_dict name.
void load_weights(nn::Module& m, const std::string& path) {
  SafetensorsFile f(path);
  size_t loaded = 0;
  auto copy = [&](const std::vector<nn::NamedTensor>& slots) {
    for (const auto& [name, slot] : slots) {
      if (!f.contains(name)) continue;
      slot->copy_(f.load(name));
      ++loaded;
    }
  };
  copy(m.named_parameters());
  copy(m.named_buffers());
  EXPECT_EQ(loaded, f.entries().size()) << path << ": some weights match no parameter or buffer";
  for (const auto& [name, t] : m.state_dict()) EXPECT_TRUE(f.contains(name)) << name << " missing in " << path;
}

std::vector<Tensor> load_all(const std::string& path, const char* prefix) {
  SafetensorsFile f(path);
  std::vector<Tensor> out;
  for (size_t i = 0; f.contains(prefix + std::to_string(i)); ++i) out.push_back(f.load(prefix + std::to_string(i)));
  EXPECT_FALSE(out.empty()) << path;
  return out;
}

/// Elementwise |got - want| <= 1e-5 + 1e-5 * |want| (float32 outputs), sizes and dtype equal.
void expect_close(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_TRUE(got.has_storage()) << what;
  ASSERT_EQ(got.meta().annotation(), want.meta().annotation()) << what;
  ASSERT_EQ(got.dtype(), DType::Float32) << what;
  Tensor g = got.contiguous(), w = want.contiguous();
  const float* a = g.data<float>();
  const float* b = w.data<float>();
  int bad = 0;
  for (int64_t i = 0; i < g.numel() && bad < 5; ++i)
    if (!(std::fabs(a[i] - b[i]) <= 1e-5f + 1e-5f * std::fabs(b[i]))) {
      ADD_FAILURE() << what << ": element " << i << " is " << a[i] << ", PyTorch " << b[i];
      ++bad;
    }
}

/// Runs ep on <case>.inputs.safetensors and compares with <case>.outputs.safetensors.
void expect_matches(const ExportedProgram& ep, const std::string& case_prefix) {
  std::vector<Tensor> in = load_all(fixture_path(case_prefix + ".inputs.safetensors"), "input_");
  std::vector<Tensor> want = load_all(fixture_path(case_prefix + ".outputs.safetensors"), "output_");
  std::vector<Tensor> got = run(ep, in);
  ASSERT_EQ(got.size(), want.size()) << case_prefix;
  for (size_t i = 0; i < got.size(); ++i) expect_close(got[i], want[i], case_prefix + " output " + std::to_string(i));
}

TEST(ExportRun, SeedMlpMatchesPyTorch) {
  seed::MLP m(128, 256, 10);
  m.eval();
  load_weights(m, fixture_path("pt2/seed_mlp.weights.safetensors"));
  Tensor x = load_all(fixture_path("pt2/seed_mlp.inputs.safetensors"), "input_")[0];
  ExportedProgram ep = export_program(m, {x});
  expect_matches(ep, "pt2/seed_mlp");
  // The same numbers as the eager module (both go through the reference kernels).
  expect_close(run(ep, {x})[0], m(x), "eager");
}

TEST(ExportRun, Gpt2DynamicMatchesPyTorchOnAnySize) {
  gpt2_mini::GPT m;
  m.eval();
  load_weights(m, fixture_path("pt2/gpt2_dynamic.weights.safetensors"));
  Tensor idx = load_all(fixture_path("pt2/gpt2_dynamic.inputs.safetensors"), "input_")[0];
  ASSERT_EQ(idx.meta().annotation(), "i64[3, 8]");
  ExportedProgram ep = export_program(m, {idx}, {.dynamic_shapes = gpt2_mini::dynamic_dims()});
  ASSERT_FALSE(ep.range_constraints.empty());
  expect_matches(ep, "pt2/gpt2_dynamic");
  // Sizes other than the example's: every sym_size / view size is recomputed from the input.
  for (const char* c : {"run/gpt2_dynamic_1x5", "run/gpt2_dynamic_4x17", "run/gpt2_dynamic_2x32"}) {
    SCOPED_TRACE(c);
    expect_matches(ep, c);
  }
}

/// tools/oracle/scripts/gen_run_cases.py's CondModel, statement for statement.
class CondModel : public nn::Module {
 public:
  CondModel() : lin(register_module("lin", std::make_shared<nn::Linear>(4, 3))) {}
  std::string type_name() const override { return "__main__.CondModel"; }
  std::vector<std::string> forward_arg_names() const override { return {"x"}; }
  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& in) override {
    nn::ModuleCallScope scope(*this);
    Tensor h = (*lin)(in[0]);
    auto true_fn = [](const std::vector<Tensor>& o) { return std::vector<Tensor>{o[0].sin() * 2}; };
    auto false_fn = [](const std::vector<Tensor>& o) { return std::vector<Tensor>{o[0].cos() - 1}; };
    return cond(h.sum() > 0, true_fn, false_fn, {h});
  }
  std::shared_ptr<nn::Linear> lin;
};

TEST(ExportRun, CondRunsEachBranchLikePyTorch) {
  CondModel m;
  m.eval();
  load_weights(m, fixture_path("run/cond.weights.safetensors"));
  ExportedProgram ep = export_program(m, {randn({2, 4})}, {.dynamic_shapes = {{"x", {Dim("batch"), Dim::STATIC}}}});
  ASSERT_EQ(ep.graph.subgraphs().size(), 2u);
  expect_matches(ep, "run/cond_true");
  expect_matches(ep, "run/cond_false");
  // The two fixtures really take different branches: sin*2 lies in [-2, 2], cos-1 in [-2, 0].
  Tensor x = load_all(fixture_path("run/cond_true.inputs.safetensors"), "input_")[0];
  EXPECT_GT((*m.lin)(x).sum().item(), 0.0);
  x = load_all(fixture_path("run/cond_false.inputs.safetensors"), "input_")[0];
  EXPECT_LT((*m.lin)(x).sum().item(), 0.0);
}

/// gen_pt2.py's WithBuffers: a buffer mutated in place by forward.
class WithBuffers : public nn::Module {
 public:
  WithBuffers()
      : lin(register_module("lin", std::make_shared<nn::Linear>(4, 4))),
        scale(&register_buffer("scale", full({4}, 2.0))),
        steps(&register_buffer("steps", zeros({}, {.dtype = DType::Int64}))),
        cache(&register_buffer("cache", ones({4}), false)) {}
  std::string type_name() const override { return "__main__.WithBuffers"; }
  std::vector<std::string> forward_arg_names() const override { return {"x"}; }
  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& in) override {
    nn::ModuleCallScope scope(*this);
    steps->add_(1);
    return {(*lin)(in[0]) * *scale + *cache};
  }
  std::shared_ptr<nn::Linear> lin;
  Tensor *scale, *steps, *cache;
};

TEST(ExportRun, InPlaceBufferMutationUpdatesTheBuffer) {
  WithBuffers m;
  m.eval();
  load_weights(m, fixture_path("pt2/buffers.weights.safetensors"));
  ExportedProgram ep = export_program(m, {randn({2, 4})});
  const Tensor* steps = nullptr;
  for (const auto& [k, t] : ep.state_dict)
    if (k == "steps") steps = &t;
  ASSERT_TRUE(steps);
  EXPECT_EQ(steps->item<int64_t>(), 0);  // export itself ran on fake twins
  expect_matches(ep, "pt2/buffers");
  EXPECT_EQ(steps->item<int64_t>(), 1);  // as PyTorch's module: the buffer was incremented
  expect_matches(ep, "pt2/buffers");
  EXPECT_EQ(steps->item<int64_t>(), 2);
}

TEST(ExportRun, BufferMutationOutputsAreWrittenBackNotReturned) {
  // The functional form (torch.export's BUFFER_MUTATION): `add = steps + 1` returned first.
  ExportedProgram ep;
  Tensor steps = zeros({}, {.dtype = DType::Int64});
  Tensor x = arange(0, 3, {.dtype = DType::Float32});
  Node* b = ep.graph.placeholder("b_steps", steps.meta());
  Node* px = ep.graph.placeholder("x", x.meta());
  Node* add = ep.graph.call(op("aten::add.Tensor"), {b, SymInt(1)});
  Node* mul = ep.graph.call(op("aten::mul.Tensor"), {px, SymInt(2)});
  add->val = {steps.meta()};
  mul->val = {x.meta()};
  ep.graph.output({add, mul});
  ep.signature.inputs = {{InputKind::Buffer, "b_steps", "steps", true}, {InputKind::UserInput, "x", "", true}};
  ep.signature.outputs = {{OutputKind::BufferMutation, "add", "steps"}, {OutputKind::UserOutput, "mul", ""}};
  ep.state_dict = {{"steps", steps}};
  std::vector<Tensor> out = run(ep, {x});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].meta().annotation(), "f32[3]");
  EXPECT_EQ(out[0].data<float>()[2], 4.0f);
  EXPECT_EQ(steps.item<int64_t>(), 1);
  run(ep, {x});
  EXPECT_EQ(steps.item<int64_t>(), 2);
}

/// Size arithmetic the graph keeps as Python operator nodes (mul, add over sym_size_int).
class SymArith : public nn::Module {
 public:
  std::string type_name() const override { return "__main__.SymArith"; }
  std::vector<std::string> forward_arg_names() const override { return {"x"}; }
  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& in) override {
    nn::ModuleCallScope scope(*this);
    const Tensor& x = in[0];
    SymInt B = x.size(0), T = x.size(1);
    return {x.reshape({B * T}) * 2, x.new_ones({B + 1, T})};
  }
};

TEST(ExportRun, SymbolicIntNodesEvaluateOnTheActualSizes) {
  SymArith m;
  ExportedProgram ep = export_program(m, {randn({3, 4})}, {.dynamic_shapes = {{"x", {Dim("b"), Dim("t")}}}});
  int sym_ops = 0;
  for (const auto& n : ep.graph.nodes()) sym_ops += n->op() == NodeOp::SymOp;
  EXPECT_GE(sym_ops, 2) << ep;  // mul and add stay in the graph
  Tensor x = randn({5, 7});
  std::vector<Tensor> out = run(ep, {x});
  std::vector<Tensor> eager = m.forward_dyn({x});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].meta().annotation(), "f32[35]");
  EXPECT_EQ(out[1].meta().annotation(), "f32[6, 7]");
  expect_close(out[0], eager[0], "reshape");
  expect_close(out[1], eager[1], "new_ones");
}

TEST(ExportRun, WrongInputSizesFailTheGuards) {
  seed::MLP m(128, 256, 10);
  ExportedProgram ep = export_program(m, {randn({4, 128})});
  EXPECT_EQ(error_of<ShapeError>([&] { run(ep, {randn({4, 127})}); }),
            "Guard failed: x.size()[1] == 128 (input 'x' has f32[4, 127])");
  EXPECT_EQ(error_of<ValueError>([&] { run(ep, {}); }), "exported program: expected 1 inputs but got 0");

  gpt2_mini::GPT g;
  ExportedProgram gp = export_program(g, {zeros({3, 8}, {.dtype = DType::Int64})},
                                      {.dynamic_shapes = gpt2_mini::dynamic_dims()});
  const std::string what = error_of<ShapeError>([&] { run(gp, {zeros({2, 1}, {.dtype = DType::Int64})}); });
  EXPECT_EQ(what.rfind("Guard failed: idx.size()[1] >= 2", 0), 0u) << what;
}

TEST(ExportRun, ErrorsInsideTheGraphNameTheNode) {
  // seq_len 40 passes the program's guards (max 1024) but wpe holds only 32 positions.
  gpt2_mini::GPT g;
  ExportedProgram ep = export_program(g, {zeros({3, 8}, {.dtype = DType::Int64})},
                                      {.dynamic_shapes = gpt2_mini::dynamic_dims()});
  const std::string what = error_of<IndexError>([&] { run(ep, {zeros({1, 40}, {.dtype = DType::Int64})}); });
  EXPECT_EQ(what,
            "while running node 'embedding_1' (aten::embedding.default): aten::embedding: index 32 is out of bounds "
            "for dimension with size 32");
}

TEST(ExportRun, FakeWeightsAreRefused) {
  ExportedProgram ep = seed::fake_export(kCPU, kCPU);
  const std::string what = error_of<DataAccessError>([&] { run(ep, {randn({4, 128})}); });
  EXPECT_EQ(what.rfind("run: weights absent: the program was exported from a fake model; parameter 'fc1.weight' "
                       "(f32[256, 128]) has no data",
                       0),
            0u)
      << what;
}

TEST(ExportRun, InputsMustBeReal) {
  seed::MLP m(128, 256, 10);
  ExportedProgram ep = export_program(m, {randn({4, 128})});
  Tensor fake_x;
  {
    FakeTensorMode mode;
    fake_x = randn({4, 128});
    EXPECT_NE(error_of<UserError>([&] { run(ep, {fake_x}); }).find("FakeTensorMode"), std::string::npos);
  }
  EXPECT_EQ(error_of<DataAccessError>([&] { run(ep, {fake_x}); }),
            "run: input 'x' (f32[4, 128]) is a fake tensor; run computes on real tensors");
}

}  // namespace

// scaled_dot_product_attention on bfloat16 and float16 runs the fused CPU kernel's arithmetic
// (float scores, each exp rounded to the input dtype before the product with v, one rounding at
// the end; tools/oracle/scripts/gen_run_cases.py). Exact arithmetic rounded once differs from
// PyTorch in about a quarter of the outputs; this in 0-2% (bfloat16) and 8-16% (float16, where the
// kernel's own gemm accumulation order shows), never by more than one unit in the last place.
TEST(ExportRun, HalfAttentionFollowsTheFusedCpuKernel) {
  for (const char* dtype : {"bf16", "f16"})
    for (const char* kind : {"plain", "causal", "bool_mask", "float_mask", "gqa"}) {
      const std::string name = std::string("run/sdpa_") + dtype + "_" + kind;
      SCOPED_TRACE(name);
      const serde::LoadedProgram lp = serde::load(fixture_path(name + ".pt2"), {.materialize_weights = true});
      const std::vector<Tensor> in = load_all(fixture_path(name + ".inputs.safetensors"), "input_");
      const Tensor want = load_all(fixture_path(name + ".outputs.safetensors"), "output_")[0].contiguous();
      const Tensor got = run(lp.ep, in)[0].contiguous();
      ASSERT_EQ(got.meta().annotation(), want.meta().annotation());
      const auto* a = static_cast<const uint16_t*>(got.data_ptr());
      const auto* b = static_cast<const uint16_t*>(want.data_ptr());
      const Tensor gd = got.to(DType::Float64).contiguous(), wd = want.to(DType::Float64).contiguous();
      const double eps = std::string(dtype) == "bf16" ? 0x1p-7 : 0x1p-10;  // two units at 1.0
      int64_t differ = 0;
      double worst = 0;
      for (int64_t i = 0; i < got.numel(); ++i) {
        differ += a[i] != b[i];
        const double w = wd.data<double>()[i];
        worst = std::max(worst, std::abs(gd.data<double>()[i] - w) / (std::abs(w) + 1));
      }
      EXPECT_LE(worst, eps);
      EXPECT_LE(differ * 100, got.numel() * (std::string(dtype) == "bf16" ? 3 : 18)) << differ << " of " << got.numel();
    }
}

// pow with a scalar exponent of 3 or -2 squares first and rounds the square to the dtype
// (bfloat16, float32), as PyTorch's CPU kernel does; the other exponents and float16 round once.
// A Python scalar multiplies and divides a half tensor in float, and is added or subtracted after
// rounding to the tensor's dtype.
TEST(ExportRun, PowAndScalarArithmeticRoundAsPyTorch) {
  for (const char* dtype : {"bf16", "f16", "f32"}) {
    const std::string name = std::string("run/pow_") + dtype;
    SCOPED_TRACE(name);
    const serde::LoadedProgram lp = serde::load(fixture_path(name + ".pt2"), {.materialize_weights = true});
    const std::vector<Tensor> in = load_all(fixture_path(name + ".inputs.safetensors"), "input_");
    const std::vector<Tensor> want = load_all(fixture_path(name + ".outputs.safetensors"), "output_");
    const std::vector<Tensor> got = run(lp.ep, in);
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) {
      const Tensor g = got[k].to(DType::Float64).contiguous(), w = want[k].to(DType::Float64).contiguous();
      int64_t differ = 0;
      for (int64_t i = 0; i < g.numel(); ++i) differ += g.data<double>()[i] != w.data<double>()[i];
      EXPECT_EQ(differ, 0) << "output " << k << " of " << g.numel() << " elements";
    }
  }
}
