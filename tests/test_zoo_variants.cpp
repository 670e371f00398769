// Issue 15, beyond the goldens' configs: random variants of the golden cases (other layer counts,
// head layouts, widths, activations, tied heads, rope types, dtypes, batch and seq, one token
// included), each exported by PyTorch 2.14 from the transformers 5.12 model
// (tools/oracle/scripts/sweep_zoo.py; the committed ones are variants that once differed). Static
// prints equal, dynamic ones too (up to node names where zoo_test_util.h says so), and so do, where
// the sweep wrote them, the decomposition (issue 14), the export with an attention mask and the
// decode step with a static cache. Where PyTorch cannot export one (longrope's data-dependent
// branch; a bfloat16 MoE's decode step on cpu) we refuse it too.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "fakeexport/core/error.h"
#include "fakeexport/export/decompose.h"
#include "fakeexport/export/exported_program.h"
#include "test_util.h"
#include "zoo_test_util.h"

namespace fs = std::filesystem;

namespace {

const std::string kDir = std::string(FE_FIXTURES_DIR) + "/zoo_variants";

std::vector<std::string> variants() {
  std::vector<std::string> out;
  if (!fs::exists(kDir)) return out;
  for (const auto& e : fs::directory_iterator(kDir)) {
    const std::string f = e.path().filename().string();
    if (f.ends_with(".config.json")) out.push_back(f.substr(0, f.size() - std::string(".config.json").size()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// FX's process-wide <eval_with_key>.N counter, which depends on what ran before.
std::string stable(const std::string& s) { return std::regex_replace(s, std::regex(R"(<eval_with_key>\.\d+)"), "<eval_with_key>.N"); }

/// The decode step with a 16-token static cache (NAME.kv.json: its batch and seq) prints as
/// convert_and_export_with_cache's NAME.kv.txt, or is refused where PyTorch's failed (.kv_error.txt).
void check_decode_step(const fe::zoo::Config& c, fe::DType dtype, const std::string& base) {
  const nlohmann::json kv = nlohmann::json::parse(fe_test::read_file(base + ".kv.json"));
  const int64_t batch = kv.at("batch"), seq = kv.at("seq");
  const auto step = [&](int64_t batch, int64_t seq, bool dynamic_seq = false) {
    std::unique_ptr<fe::zoo::Model> m;
    {
      fe::DTypeScope dt(dtype);
      m = fe::zoo::with_static_cache(fe::zoo::build(c), batch, 16);
    }
    const fe::zoo::ExampleInputs in = m->example_inputs({.batch = batch, .seq = seq, .dynamic_seq = dynamic_seq});
    const fe::zoo::ExportHints h = m->export_hints();
    return fe::export_program(*m, in.args,
                              {.dynamic_shapes = in.dynamic_shapes, .strict = h.strict,
                               .state_access_paths = h.state_access_paths, .kwarg_inputs = h.kwarg_inputs,
                               .grad_enabled = !h.no_grad});
  };
  if (fs::exists(base + ".kv_error.txt")) {
    EXPECT_THROW(step(batch, seq), fe::UserError) << "PyTorch could not export the decode step: "
                                                  << fe_test::read_file(base + ".kv_error.txt");
    return;
  }
  EXPECT_EQ(fe_test::without_comments(fe::to_string(step(batch, seq), {.read_source = false})),
            fe_test::without_comments(fe_test::read_file(base + ".kv.txt")))
      << "decode step";
  if (fs::exists(base + ".kv_dyn.txt")) {  // 1 x 3 tokens, the tokens dynamic
    const std::string ours = fe_test::without_comments(fe::to_string(step(1, 3, true), {.read_source = false}));
    const std::string torch = fe_test::without_comments(fe_test::read_file(base + ".kv_dyn.txt"));
    EXPECT_EQ(ours, torch) << "dynamic decode step";
  }
}

TEST(ZooVariants, PrintAsPyTorchExportsThemOrAreRefusedAsPyTorchRefuses) {
  const std::vector<std::string> names = variants();
  ASSERT_GE(names.size(), 10u) << "tests/fixtures/zoo_variants holds the committed variants";
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const std::string base = kDir + "/" + name;
    const nlohmann::json inputs = nlohmann::json::parse(fe_test::read_file(base + ".inputs.json"));
    const int64_t batch = inputs.at("batch"), seq = inputs.at("seq");
    fe::FakeTensorMode fake;
    const fe::zoo::Config c = fe::zoo::Config::from_file(base + ".config.json");
    const fe::DType dtype = c.is_null("dtype") ? fe::DType::Float32 : fe::parse_dtype(c.get_string("dtype")).value();
    if (fs::exists(base + ".error.txt")) {
      // PyTorch's export failed: building or exporting ours must fail with a typed error.
      EXPECT_THROW(
          {
            std::unique_ptr<fe::zoo::Model> m;
            {
              fe::DTypeScope dt(dtype);
              m = fe::zoo::build(c);
            }
            zoo_test::export_model(*m, {.batch = batch, .seq = seq});
          },
          fe::UserError);
      continue;
    }
    std::unique_ptr<fe::zoo::Model> m;
    {
      fe::DTypeScope dt(dtype);  // built under its dtype, exported under float32, as PyTorch's
      m = fe::zoo::build(c);
    }
    const fe::ExportedProgram ep = zoo_test::export_model(*m, {.batch = batch, .seq = seq});
    EXPECT_EQ(fe_test::without_comments(fe::to_string(ep, {.read_source = false})),
              fe_test::without_comments(fe_test::read_file(base + ".txt")));
    if (fs::exists(base + ".decomposed.txt")) {
      const fe::ExportedProgram low = fe::run_decompositions(ep, fe::default_decompositions());
      EXPECT_EQ(stable(fe_test::without_comments(fe::to_string(low, {.read_source = false}))),
                stable(fe_test::without_comments(fe_test::read_file(base + ".decomposed.txt"))))
          << "decomposed";
    }
    if (fs::exists(base + ".decompose_error.txt"))  // PyTorch's run_decompositions() failed: so must ours
      zoo_test::expect_decomposition_refused(ep, base + ".decompose_error.txt");
    if (fs::exists(base + "_mask.txt")) {
      const fe::ExportedProgram masked =
          zoo_test::export_model(*m, {.batch = batch, .seq = seq, .attention_mask = true});
      EXPECT_EQ(fe_test::without_comments(fe::to_string(masked, {.read_source = false})),
                fe_test::without_comments(fe_test::read_file(base + "_mask.txt")))
          << "with attention_mask";
    }
    if (fs::exists(base + ".kv.json")) check_decode_step(c, dtype, base);
    if (!fs::exists(base + "_dyn.txt")) continue;
    const fe::ExportedProgram dyn =
        zoo_test::export_model(*m, {.batch = batch, .seq = seq, .dynamic_batch = true, .dynamic_seq = true});
    const std::string ours = fe_test::without_comments(fe::to_string(dyn, {.read_source = false}));
    const std::string torch = fe_test::without_comments(fe_test::read_file(base + "_dyn.txt"));
    if (zoo_test::dynamic_names_exact(name)) EXPECT_EQ(ours, torch) << "dynamic";
    else EXPECT_EQ(fe_test::canonical_names(ours), fe_test::canonical_names(torch)) << "dynamic";
  }
}

}  // namespace
