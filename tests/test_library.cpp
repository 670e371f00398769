// Custom operators (fakeexport/library.h) defined in a shared library (tests/custom_ops_library.cpp),
// as torch.library.custom_op + register_fake define them in PyTorch (tools/oracle/scripts/
// gen_custom_ops.py): seed 004's example and a symbolic-shape meta export, print as PyTorch prints
// them, save, load (here, and in PyTorch by check_our_pt2.py with the same ops registered) and run
// to PyTorch's values; the CLI loads the library with --load-library.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fakeexport/export/check.h"
#include "fakeexport/fakeexport.h"
#include "fakeexport/library.h"
#include "fakeexport/serde/pt2.h"
#include "fakeexport/serde/safetensors.h"
#include "test_util.h"

using namespace fe;
namespace fs = std::filesystem;

namespace {

const std::string kFixtures = std::string(FE_FIXTURES_DIR) + "/custom_ops/";

void load_library_once() {
  static const bool loaded = (library::load(FE_CUSTOM_OPS_LIB), true);
  (void)loaded;
}

/// Seed 004: sin -> my_custom_library::custom_op -> cos.
class CustomOpExample : public nn::UnaryModule {
 public:
  std::string type_name() const override { return "__main__.CustomOpExample"; }
  std::vector<std::string> forward_arg_names() const override { return {"x"}; }
  Tensor forward(const Tensor& input) override {
    Tensor x = sin(input);
    x = library::call(op("my_custom_library::custom_op"), {x})[0];
    x = cos(x);
    return x;
  }
};

/// stack_rows(relu(x), 3) + 1: the custom op's output rows are 3 * batch.
class StackRows : public nn::UnaryModule {
 public:
  std::string type_name() const override { return "__main__.StackRows"; }
  std::vector<std::string> forward_arg_names() const override { return {"x"}; }
  Tensor forward(const Tensor& x) override { return library::call(op("mylib::stack_rows"), {relu(x), 3})[0] + 1; }
};

Tensor fixture_tensor(const std::string& file, const std::string& name) {
  return SafetensorsFile(kFixtures + file).load(name);
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  const Tensor x = a.contiguous(), y = b.contiguous();
  double worst = 0;
  for (int64_t i = 0; i < x.numel(); ++i)
    worst = std::max(worst, std::abs(double(x.data<float>()[i]) - double(y.data<float>()[i])));
  return worst;
}

/// Exports `m`, compares the print with PyTorch's, runs it on the fixture's input, saves it to
/// build/pt2_out/custom_<name>.pt2 (with our print beside it) and reads it back.
void export_print_run_save(nn::UnaryModule& m, const std::string& name, const DynamicShapes& ds) {
  const Tensor x = fixture_tensor(name + ".inputs.safetensors", "input_0");
  ExportedProgram ep = [&] {
    FakeTensorMode fake;
    const Sizes sizes(x.sizes().begin(), x.sizes().end());
    return export_program(m, {randn(sizes, {.dtype = x.dtype()})}, {.dynamic_shapes = ds});
  }();
  EXPECT_EQ(fe_test::blank_file_lines(to_string(ep)), fe_test::blank_file_lines(fe_test::read_file(kFixtures + name + ".txt")));
  EXPECT_TRUE(check_program(ep).ok());
  const std::vector<Tensor> got = run(ep, {x});
  ASSERT_EQ(got.size(), 1u);
  const Tensor want = fixture_tensor(name + ".outputs.safetensors", "output_0");
  ASSERT_EQ(fe_test::ints(got[0].sizes()), fe_test::ints(want.sizes()));
  EXPECT_LE(max_abs_diff(got[0], want), 1e-6);
  fs::create_directories(fs::path(FE_BUILD_DIR) / "pt2_out");
  const std::string out = (fs::path(FE_BUILD_DIR) / "pt2_out" / ("custom_" + name + ".pt2")).string();
  serde::save(ep, out);
  std::ofstream(out.substr(0, out.size() - 4) + ".txt") << to_string(ep);
  serde::LoadedProgram back = serde::load(out);
  EXPECT_EQ(to_string(back.ep), to_string(ep));
  EXPECT_TRUE(check_program(back.ep).ok());
}

}  // namespace

TEST(Library, Seed004CustomOpExportsPrintsSavesAndRuns) {
  load_library_once();
  const OpDef& d = op("my_custom_library::custom_op.default");
  EXPECT_EQ(d.schema.str(), "my_custom_library::custom_op(Tensor input) -> Tensor");
  CustomOpExample m;
  export_print_run_save(m, "seed004", {});
}

TEST(Library, SymbolicShapeMetaExportsWithADynamicBatch) {
  load_library_once();
  StackRows m;
  export_print_run_save(m, "stack_rows_dynamic", {{"x", {Dim("batch", 2, 64), std::nullopt}}});
}

TEST(Library, DefineRefusesPyTorchNamespacesDuplicatesAndBadSchemas) {
  load_library_once();
  auto meta = [](const MetaArgs& a, MetaOut& o) { o.push(a.tensor(0)); };
  EXPECT_NE(fe_test::what_of([&] { library::define("aten::my_relu(Tensor x) -> Tensor", meta); })
                .find("the namespace 'aten' is PyTorch's own"),
            std::string::npos);
  EXPECT_NE(fe_test::what_of([&] { library::define("mylib::stack_rows(Tensor x, SymInt times) -> Tensor", meta); })
                .find("mylib::stack_rows.default is already defined"),
            std::string::npos);
  EXPECT_NE(fe_test::what_of([&] { library::define("mylib::broken(Tensor x -> Tensor", meta); }).find("cannot parse"),
            std::string::npos);
  EXPECT_THROW(library::load("/nonexistent/libnothing.so"), FileIOError);
}

// Mutating custom ops in PyTorch's own archives: as export records them (the mutating calls in the
// graph) and after run_decompositions() (auto_functionalized_v2 on clones, a buffer mutation output).
TEST(Library, MutatingOpsAndAutoFunctionalizedLoadCheckAndRun) {
  load_library_once();
  for (const char* name : {"mutating", "mutating_functionalized"}) {
    SCOPED_TRACE(name);
    serde::LoadedProgram lp = serde::load(kFixtures + name + ".pt2", {.materialize_weights = true});
    EXPECT_EQ(to_string(lp.ep), fe_test::read_file(kFixtures + name + ".txt"));
    const CheckReport r = check_program(lp.ep);
    EXPECT_TRUE(r.ok()) << (r.unverified.empty() ? "" : r.unverified[0].reason);
    EXPECT_EQ(r.verified, r.nodes);
    const std::string io = std::string(name) + ".inputs.safetensors";
    const std::vector<Tensor> got = run(lp.ep, {fixture_tensor(io, "input_0")});
    ASSERT_EQ(got.size(), 2u);
    for (size_t k = 0; k < 2; ++k) {
      const Tensor want = fixture_tensor(std::string(name) + ".outputs.safetensors", "output_" + std::to_string(k));
      ASSERT_EQ(fe_test::ints(got[k].sizes()), fe_test::ints(want.sizes())) << k;
      EXPECT_LE(max_abs_diff(got[k], want), 1e-6) << k;
    }
  }
  // Functionalized, the mutated buffer comes back as an output; the op's None output as `as_none`.
  serde::LoadedProgram f = serde::load(kFixtures + "mutating_functionalized.pt2");
  EXPECT_EQ(output_kind_name(f.ep.signature.outputs[0].kind), "BUFFER_MUTATION");
}

TEST(LibraryCli, LoadLibraryMakesCustomOpsKnown) {
  load_library_once();
  StackRows m;
  export_print_run_save(m, "stack_rows_dynamic", {{"x", {Dim("batch", 2, 64), std::nullopt}}});
  const std::string archive = (fs::path(FE_BUILD_DIR) / "pt2_out" / "custom_stack_rows_dynamic.pt2").string();
  const std::string lib = std::string(" --load-library ") + FE_CUSTOM_OPS_LIB;
  // Without the library the op is opaque (its recorded metadata kept, not verified): exit 1.
  fe_test::CliResult r = fe_test::run_cli("check " + archive);
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("mylib::stack_rows.default is not in the registry"), std::string::npos) << r.out;
  r = fe_test::run_cli("check " + archive + lib);
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("0 unverified"), std::string::npos) << r.out;
  r = fe_test::run_cli("check" + lib + " " + archive);  // before the command's arguments too
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(fe_test::run_cli("inspect " + archive + " --load-library /nonexistent/lib.so").rc, 2);
}
