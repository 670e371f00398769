// Issue 15, node for node: the zoo's export of a config prints as PyTorch 2.14 prints its
// torch.export of the transformers 5.12 model with the same config.json and input_ids [2, 8]
// (tests/fixtures/zoo_golden, written by tools/oracle/scripts/gen_zoo_golden.py). Compared whole,
// except the `# File: ...` comment lines: ours name the C++ source, PyTorch's the Python one.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "fakeexport/export/exported_program.h"
#include "test_util.h"
#include "zoo_test_util.h"

namespace fs = std::filesystem;

namespace {

const std::string kGolden = std::string(FE_FIXTURES_DIR) + "/zoo_golden";

/// The print without comment and blank lines.
std::string without_comments(const std::string& s) {
  std::istringstream in(s);
  std::string line, out;
  while (std::getline(in, line)) {
    const size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos || line[first] == '#') continue;
    out += line + "\n";
  }
  return out;
}

class ZooGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooGolden, PrintsAsPyTorchExportsTransformers) {
  const std::string base = kGolden + "/" + GetParam();
  if (!fs::exists(base + ".txt")) GTEST_SKIP() << "no golden print " << base << ".txt";
  fe::FakeTensorMode fake;
  const fe::zoo::Config c = fe::zoo::Config::from_file(base + ".config.json");
  auto m = fe::zoo::build(c);
  const fe::ExportedProgram ep = zoo_test::export_model(*m, {.batch = 2, .seq = 8});
  const std::string ours = without_comments(fe::to_string(ep, {.read_source = false}));
  const std::string torch = without_comments(fe_test::read_file(base + ".txt"));
  EXPECT_EQ(ours, torch);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooGolden, ::testing::Values("llama", "llama_mha_bias", "qwen2", "mistral"));

}  // namespace
