// The dynamic-shape examples of the torch.export tutorial (seed 004), in C++, compared with what
// PyTorch 2.14 prints or raises for the same programs (tests/fixtures/dynamic/*.txt, written by
// tools/oracle/scripts/export_dynamic.py). Each module mirrors its Python twin statement for statement.
#include <gtest/gtest.h>

#include "test_util.h"

#include "fakeexport/fakeexport.h"
#include "fakeexport/sym/shape_env.h"

namespace {
using fe_test::blank_file_lines;
using fe_test::lines_of;
using fe_test::read_file;
using namespace fe;

std::string fixture(const std::string& name) {
  return read_file(std::string(FE_FIXTURES_DIR) + "/dynamic/" + name + ".txt");
}

void expect_prints_like(const ExportedProgram& ep, const std::string& name) {
  auto ours = lines_of(blank_file_lines(to_string(ep, {.read_source = false})));
  auto want = lines_of(blank_file_lines(fixture(name)));
  ASSERT_EQ(ours.size(), want.size()) << to_string(ep, {.read_source = false});
  for (size_t n = 0; n < ours.size(); ++n) EXPECT_EQ(ours[n], want[n]) << name << " line " << n + 1;
}

/// PyTorch's error text without its Python-only hints (TORCH_LOGS, draft_export()).
std::string expected_error(const std::string& name) {
  std::string s = fixture(name);
  s = s.substr(s.find('\n') + 1);
  const std::string logs = " For more information, run with TORCH_LOGS=\"+dynamic\".";
  if (auto p = s.find(logs); p != std::string::npos) s.erase(p, logs.size());
  if (auto p = s.find("\n\nThe error above occurred"); p != std::string::npos) s.erase(p);
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

using fe_test::error_of;

class DynamicModel : public nn::Module {
 public:
  DynamicModel() : l(register_module("l", std::make_shared<nn::Linear>(5, 3))) {}
  std::string type_name() const override { return "__main__.DynamicModel"; }
  std::vector<std::string> forward_arg_names() const override { return {"w", "x", "y", "z"}; }
  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& in) override {
    nn::ModuleCallScope scope(*this);
    const Tensor &w = in[0], &x = in[1], &y = in[2], &z = in[3];
    Tensor x0 = x + y;
    Tensor x1 = (*l)(w);
    Tensor x2 = x0.flatten();
    Tensor x3 = x2 + z;
    return {x1, x3};
  }
  std::shared_ptr<nn::Linear> l;
};

class DynamicModelChecks : public DynamicModel {
 public:
  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& in) override {
    nn::ModuleCallScope scope(*this);
    const Tensor &w = in[0], &x = in[1], &y = in[2], &z = in[3];
    check(w.size(0) <= 512);
    check(x.size(0) >= 16);
    if (w.size(0) == x.size(0) + 2) {
      Tensor x0 = x + y;
      Tensor x1 = (*l)(w);
      Tensor x2 = x0.flatten();
      Tensor x3 = x2 + z;
      return {x1, x3};
    }
    return {w};
  }
};

DynamicShapes all_auto() {
  return {{"w", {Dim::AUTO, Dim::AUTO}}, {"x", {Dim::AUTO}}, {"y", {Dim::AUTO, Dim::AUTO}}, {"z", {Dim::AUTO}}};
}

std::vector<Tensor> tutorial_inputs() { return {randn({6, 5}), randn({4}), randn({8, 4}), randn({32})}; }

TEST(ExportDynamic, StaticTutorialModel) {
  DynamicModel m;
  expect_prints_like(export_program(m, tutorial_inputs()), "static");
}

TEST(ExportDynamic, AutoDimsGetHashedSymbolsAndReplacements) {
  DynamicModel m;
  ExportedProgram ep = export_program(m, tutorial_inputs(), {.dynamic_shapes = all_auto()});
  expect_prints_like(ep, "auto");
  // s21 (w.size()[1]) was specialized to 5 by Linear, s94 replaced by s77, s68 by s17*s77.
  const auto& r = ep.shape_env->replacements();
  ASSERT_TRUE(r.count("s21") && r.count("s94") && r.count("s68"));
  EXPECT_EQ(r.at("s21").str(), "5");
  EXPECT_EQ(r.at("s94").str(), "s77");
  EXPECT_EQ(r.at("s68").str(), "s17*s77");
  // Every guard names the op whose meta asked for it.
  for (const auto& g : ep.shape_env->guards()) EXPECT_FALSE(g.op.empty()) << g.str();
}

TEST(ExportDynamic, DynamicDimSpecializedIsAnError) {
  DynamicModel m;
  DynamicShapes ds = all_auto();
  ds["w"] = {Dim::AUTO, Dim::DYNAMIC};
  EXPECT_EQ(error_of<ConstraintViolationError>([&] { export_program(m, tutorial_inputs(), {.dynamic_shapes = ds}); }),
            expected_error("dynamic_specialized_error"));
}

TEST(ExportDynamic, ConflictingStaticAndDynamicMarkers) {
  DynamicModel m;
  DynamicShapes ds = all_auto();
  ds["x"] = {Dim::STATIC};
  ds["y"] = {Dim::AUTO, Dim::DYNAMIC};
  EXPECT_EQ(error_of<ConstraintViolationError>([&] { export_program(m, tutorial_inputs(), {.dynamic_shapes = ds}); }),
            expected_error("conflicting_markers_error"));
}

TEST(ExportDynamic, ChecksAndBranchesAddBoundsAndAReplacement) {
  DynamicModelChecks m;
  ExportedProgram ep =
      export_program(m, {randn({18, 5}), randn({16}), randn({8, 16}), randn({128})}, {.dynamic_shapes = all_auto()});
  expect_prints_like(ep, "checks");
  EXPECT_EQ(ep.shape_env->replacements().at("s15").str(), "s77 + 2");
  // The user's guards carry the line that asked (this file), not an op.
  int user_guards = 0;
  for (const auto& g : ep.shape_env->guards())
    if (g.op.empty()) {
      ++user_guards;
      EXPECT_NE(std::string(g.where.file_name()).find("test_export_dynamic.cpp"), std::string::npos) << g.str();
    }
  EXPECT_EQ(user_guards, 3);
}

TEST(ExportDynamic, ZeroOneSpecialization) {
  nn::Linear lin(4, 3);
  ExportedProgram ep = export_program(lin, {randn({1, 4})}, {.dynamic_shapes = {{"input", {Dim::AUTO, Dim::STATIC}}}});
  expect_prints_like(ep, "zero_one_linear");
  EXPECT_TRUE(ep.range_constraints.empty());
}

class Named : public nn::Module {
 public:
  std::string type_name() const override { return "__main__.Named"; }
  std::vector<std::string> forward_arg_names() const override { return {"x", "y"}; }
  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& in) override {
    nn::ModuleCallScope scope(*this);
    // One line, like `return x.sum() + y.sum()`; C++ leaves the order of `+` operands open.
    Tensor a = in[0].sum(), b = in[1].sum(); return {a + b};  // NOLINT(readability-isolate-declaration)
  }
};

TEST(ExportDynamic, NamedAndDerivedDims) {
  Named m;
  Dim dx("dx", 4, 256);
  Dim dh("dh", 0, 512);
  ExportedProgram ep = export_program(m, {randn({8, 3}), randn({16, 5})},
                                      {.dynamic_shapes = {{"x", {dx, std::nullopt}}, {"y", {2 * dx, dh}}}});
  expect_prints_like(ep, "named_dims");
}

class Foo : public nn::Module {
 public:
  std::string type_name() const override { return "__main__.Foo"; }
  std::vector<std::string> forward_arg_names() const override { return {"x", "y"}; }
  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& in) override {
    nn::ModuleCallScope scope(*this);
    Tensor w = in[0] + in[1];
    return {w + ones({4})};
  }
};

TEST(ExportDynamic, FooConstraintViolationWithSuggestedFixes) {
  Foo m;
  auto d = dims({"dx", "dy", "d1"});
  DynamicShapes ds{{"x", {d[0], d[2]}}, {"y", {d[1], d[2]}}};
  EXPECT_EQ(error_of<ConstraintViolationError>(
                [&] { export_program(m, {randn({6, 4}), randn({6, 4})}, {.dynamic_shapes = ds}); }),
            expected_error("foo_constraint_violation_error"));
}

class RangeBad : public nn::Module {
 public:
  std::string type_name() const override { return "__main__.RangeBad"; }
  std::vector<std::string> forward_arg_names() const override { return {"x"}; }
  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& in) override {
    nn::ModuleCallScope scope(*this);
    check(in[0].size(0) <= 6);
    return {in[0].sin()};
  }
};

class SinPlusOne : public nn::Module {
 public:
  std::string type_name() const override { return "__main__.Sin"; }
  std::vector<std::string> forward_arg_names() const override { return {"x"}; }
  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& in) override {
    nn::ModuleCallScope scope(*this);
    return {in[0].sin() + 1};
  }
};

// PyTorch's suggested fix for a mask padded to 8 columns, seq = 8*_seq with _seq in [1, 8]: from
// an example of 16 it exports (the root's range starts at 2); from one of 8 the root is 1, which
// export specializes, and the derived dim is reported as specialized (with no suggested fix).
TEST(ExportDynamic, DerivedDimRootOfOneSpecializes) {
  SinPlusOne m;
  const Dim seq_root("_seq", 1, 8);
  const auto shapes = [&] { return DynamicShapes{{"x", {Dim("batch", 1, 1024), 8 * seq_root}}}; };
  expect_prints_like(export_program(m, {randn({2, 16})}, {.dynamic_shapes = shapes()}), "derived_root_two");
  EXPECT_EQ(error_of<ConstraintViolationError>([&] {
              export_program(m, {randn({2, 8})}, {.dynamic_shapes = shapes()});
            }),
            expected_error("derived_root_one_error"));
}

TEST(ExportDynamic, NamedDimRangeNarrowedByTheProgram) {
  RangeBad m;
  EXPECT_EQ(error_of<ConstraintViolationError>([&] {
              export_program(m, {randn({5})}, {.dynamic_shapes = {{"x", {Dim("dim", 3, 100)}}}});
            }),
            expected_error("range_violation_error"));
}

TEST(ExportDynamic, BadSpecsNameTheInput) {
  DynamicModel m;
  EXPECT_NE(error_of<UserError>([&] { export_program(m, tutorial_inputs(), {.dynamic_shapes = {{"q", {}}}}); })
                .find("'q' is not an input"),
            std::string::npos);
  EXPECT_NE(error_of<UserError>([&] {
              export_program(m, tutorial_inputs(), {.dynamic_shapes = {{"x", {Dim::AUTO, Dim::AUTO}}}});
            }).find("dynamic_shapes['x'] has 2 entries"),
            std::string::npos);
  EXPECT_NE(error_of<UserError>([&] {
              export_program(m, tutorial_inputs(), {.dynamic_shapes = {{"x", {Dim("n", 8, 16)}}}});
            }).find("4 not in range [8, 16] (dynamic_shapes['x'][0] = Dim('n', min=8, max=16)"),
            std::string::npos);
}

}  // namespace

namespace {

class Bad1 : public nn::Module {
 public:
  std::string type_name() const override { return "__main__.Bad1"; }
  std::vector<std::string> forward_arg_names() const override { return {"x"}; }
  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& in) override {
    nn::ModuleCallScope scope(*this);
    line = __LINE__ + 1;
    if ((in[0].sum() > 0).item<bool>()) return {in[0].sin()};  // the line the error must name
    return {in[0].cos()};
  }
  int line = 0;
};

TEST(ExportDynamic, DataDependentBranchNamesTheLineAndPointsToCond) {
  Bad1 m;
  const std::string what = error_of<DataDependentError>([&] { export_program(m, {randn({3, 3})}); });
  // PyTorch: "Could not guard on data-dependent expression Eq(u0, 1) ... if x.sum() > 0:" (fixture);
  // we fail one step earlier, at the value itself, naming the op, the C++ line and cond.
  EXPECT_NE(fixture("data_dependent_error").find("data-dependent"), std::string::npos);
  EXPECT_EQ(what.rfind("aten::_local_scalar_dense: ", 0), 0u) << what;
  EXPECT_NE(what.find("test_export_dynamic.cpp:" + std::to_string(m.line) + " in "), std::string::npos) << what;
  EXPECT_NE(what.find("fe::cond"), std::string::npos) << what;
}

class Bad1Fixed : public nn::Module {
 public:
  std::string type_name() const override { return "__main__.Bad1Fixed"; }
  std::vector<std::string> forward_arg_names() const override { return {"x"}; }
  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& in) override {
    nn::ModuleCallScope scope(*this);
    auto true_fn = [](const std::vector<Tensor>& o) { return std::vector<Tensor>{sin(o[0])}; };
    auto false_fn = [](const std::vector<Tensor>& o) { return std::vector<Tensor>{cos(o[0])}; };
    return cond(in[0].sum() > 0, true_fn, false_fn, {in[0]});
  }
};

TEST(ExportDynamic, CondTracesBothBranches) {
  Bad1Fixed m;
  ExportedProgram ep = export_program(m, {randn({3, 3})});
  expect_prints_like(ep, "cond");
  ASSERT_EQ(ep.graph.subgraphs().size(), 2u);
  EXPECT_EQ(ep.graph.subgraphs()[0].first, "true_graph_0");
  EXPECT_EQ(ep.graph.subgraphs()[1].second->nodes()[1]->target()->qualified, "aten::cos.default");
}

TEST(ExportDynamic, CondOnRealTensorsRunsOneBranchAndChecksBranchMetadata) {
  Tensor x = ones({2});
  auto neg = [](const std::vector<Tensor>& o) { return std::vector<Tensor>{-o[0]}; };
  auto twice = [](const std::vector<Tensor>& o) { return std::vector<Tensor>{o[0] * 2}; };
  Tensor r = cond(x.sum() > 0, neg, twice, {x})[0];  // sum 2 > 0: the true branch
  EXPECT_EQ(r.data<float>()[0], -1.0f);
  r = cond(x.sum() < 0, neg, twice, {x})[0];
  EXPECT_EQ(r.data<float>()[1], 2.0f);
  class Mismatch : public Bad1Fixed {
    std::vector<Tensor> forward_dyn(const std::vector<Tensor>& in) override {
      auto same = [](const std::vector<Tensor>& o) { return std::vector<Tensor>{o[0].sin()}; };
      auto sum = [](const std::vector<Tensor>& o) { return std::vector<Tensor>{o[0].sum()}; };
      return cond(in[0].sum() > 0, same, sum, {in[0]});
    }
  } mm;
  EXPECT_NE(error_of<UserError>([&] { export_program(mm, {randn({3, 3})}); }).find("differ"), std::string::npos);
}

}  // namespace

namespace {

TEST(ExportDynamic, InputsAreCheckedAgainstTheProgramsGuards) {
  // The fixture's run error: Linear(4, 3) exported on [1, 4] specialized batch 1.
  nn::Linear lin(4, 3);
  ExportedProgram ep = export_program(lin, {randn({1, 4})}, {.dynamic_shapes = {{"input", {Dim::AUTO, Dim::STATIC}}}});
  const std::string want = fixture("zero_one_linear_run_error");  // "ERROR AssertionError\nGuard failed: ..."
  const std::string guard = want.substr(want.find('\n') + 1, want.find('\n', want.find('\n') + 1) - want.find('\n') - 1);
  EXPECT_EQ(guard, "Guard failed: input.size()[0] == 1");
  EXPECT_EQ(error_of<ShapeError>([&] { check_inputs(ep, {randn({2, 4})}); }).rfind(guard, 0), 0u);
  EXPECT_NO_THROW(check_inputs(ep, {randn({1, 4})}));

  // Named and derived dims (tools/oracle/scratch run of the same program gave these texts).
  Named m;
  Dim dx("dx", 4, 256);
  ExportedProgram np = export_program(m, {randn({8, 3}), randn({16, 5})},
                                      {.dynamic_shapes = {{"x", {dx, std::nullopt}}, {"y", {2 * dx, Dim::AUTO}}}});
  EXPECT_NO_THROW(check_inputs(np, {randn({100, 3}), randn({200, 7})}));
  EXPECT_EQ(error_of<ShapeError>([&] { check_inputs(np, {randn({8, 4}), randn({16, 5})}); }).rfind(
                "Guard failed: x.size()[1] == 3", 0), 0u);
  EXPECT_EQ(error_of<ShapeError>([&] { check_inputs(np, {randn({2, 3}), randn({4, 5})}); }).rfind(
                "Guard failed: x.size()[0] >= 4", 0), 0u);
  EXPECT_EQ(error_of<ShapeError>([&] { check_inputs(np, {randn({300, 3}), randn({600, 5})}); }).rfind(
                "Guard failed: x.size()[0] <= 256", 0), 0u);
  EXPECT_EQ(error_of<ShapeError>([&] { check_inputs(np, {randn({8, 3}), randn({17, 5})}); }).rfind(
                "Guard failed: y.size()[0] == 2 * x.size()[0]", 0), 0u);
  // Stricter than PyTorch 2.14's ep.module(), which accepts these silently.
  EXPECT_THROW(check_inputs(np, {randn({8, 3, 1}), randn({16, 5})}), ShapeError);
  EXPECT_THROW(check_inputs(np, {randn({8, 3}, {.dtype = DType::Float64}), randn({16, 5})}), DTypeError);
}

}  // namespace
