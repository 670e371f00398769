// Issue 15, dynamic node names in deeper stacks: PyTorch numbers nodes after size arithmetic its
// trace records and drops, c10's contiguity check among it, which it runs again in some later
// layers (where FakeTensor's dispatch cache misses). tests/fixtures/dynamic_names holds PyTorch's
// dynamic exports (batch and seq) of golden cases with 3-5 layers, written by
// tools/oracle/scripts/gen_dynamic_names.py (NAME_mask: with an attention_mask input, whose seq
// PyTorch unifies with the tokens' mid-trace); each must print exactly so, names included.
#include <gtest/gtest.h>

#include <filesystem>

#include "fakeexport/export/exported_program.h"
#include "test_util.h"
#include "zoo_test_util.h"

namespace fs = std::filesystem;

namespace {

TEST(DynamicNames, DeeperStacksPrintAsPyTorchExportsThem) {
  const fs::path dir = fs::path(FE_FIXTURES_DIR) / "dynamic_names";
  int compared = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string file = e.path().filename().string();
    if (!file.ends_with(".config.json")) continue;
    const std::string name = file.substr(0, file.size() - std::string(".config.json").size());
    SCOPED_TRACE(name);
    fe::FakeTensorMode fake;
    const fe::zoo::Config c = fe::zoo::Config::from_file(e.path().string());
    std::unique_ptr<fe::zoo::Model> m;
    {
      // Built under the config's dtype, as from_config(dtype=...) builds it.
      fe::DTypeScope dt(c.is_null("dtype") ? fe::DType::Float32 : fe::parse_dtype(c.get_string("dtype")).value());
      m = fe::zoo::build(c);
    }
    // NAME_mask: model(input_ids, attention_mask), as `--attention-mask` exports it.
    const bool masked = name.ends_with("_mask");
    const fe::ExportedProgram ep = zoo_test::export_model(
        *m, {.batch = 2, .seq = 8, .dynamic_batch = true, .dynamic_seq = true, .attention_mask = masked});
    EXPECT_EQ(fe_test::without_comments(fe::to_string(ep, {.read_source = false})),
              fe_test::without_comments(fe_test::read_file((dir / (name + "_dyn.txt")).string())));
    ++compared;
  }
  EXPECT_EQ(compared, 11) << "cases in " << dir;
}

}  // namespace
