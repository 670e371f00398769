// Issue 15, beyond the goldens' configs: random variants of the golden cases (other layer counts,
// head layouts, widths, activations, tied heads, rope types, dtypes, batch and seq, one token
// included), each exported by PyTorch 2.14 from the transformers 5.12 model
// (tools/oracle/scripts/sweep_zoo.py; the committed ones are variants that once differed). Static
// prints equal, dynamic ones up to node names, and where PyTorch cannot export one (longrope's
// data-dependent branch) we refuse it too.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "fakeexport/core/error.h"
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
    if (!fs::exists(base + "_dyn.txt")) continue;
    const fe::ExportedProgram dyn =
        zoo_test::export_model(*m, {.batch = batch, .seq = seq, .dynamic_batch = true, .dynamic_seq = true});
    EXPECT_EQ(fe_test::canonical_names(fe_test::without_comments(fe::to_string(dyn, {.read_source = false}))),
              fe_test::canonical_names(fe_test::without_comments(fe_test::read_file(base + "_dyn.txt"))))
        << "dynamic";
  }
}

}  // namespace
