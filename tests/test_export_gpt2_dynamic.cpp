// A GPT-2-style decoder exported with Dim("batch") and Dim("seq_len", min=2, max=1024): both dims stay
// symbolic end to end, compared with PyTorch 2.14's print of the same program
// (tests/fixtures/dynamic/gpt2_block.txt from tools/oracle/scripts/export_gpt2_dynamic.py; the module
// below mirrors it statement for statement).
#include <gtest/gtest.h>

#include <regex>

#include "test_util.h"

#include "fakeexport/fakeexport.h"
#include "gpt2_mini.h"

namespace {
using fe_test::blank_file_lines;
using fe_test::lines_of;
using fe_test::read_file;
using namespace fe;
using gpt2_mini::GPT;

DynamicShapes gpt_dims() { return gpt2_mini::dynamic_dims(); }

/// Numbers of `sym_size_int_N` depend on how many sym nodes make_fx created (and folded away) on the
/// way, which follows Python object identity inside PyTorch: compared modulo that numbering.
std::string renumber_sym_sizes(const std::string& s) {
  std::string out;
  std::map<std::string, std::string> names;
  std::regex re("sym_size_int(_[0-9]+)?");
  auto begin = std::sregex_iterator(s.begin(), s.end(), re);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    out += s.substr(last, static_cast<size_t>(it->position()) - last);
    auto [p, fresh] = names.emplace(it->str(), "sym_size_int_#" + std::to_string(names.size()));
    out += p->second;
    last = static_cast<size_t>(it->position() + it->length());
  }
  return out + s.substr(last);
}

void expect_same(const std::string& ours_text, const std::string& fixture) {
  auto ours = lines_of(renumber_sym_sizes(blank_file_lines(ours_text)));
  auto want = lines_of(renumber_sym_sizes(blank_file_lines(read_file(std::string(FE_FIXTURES_DIR) + fixture))));
  ASSERT_EQ(ours.size(), want.size()) << ours_text;
  for (size_t n = 0; n < ours.size(); ++n) EXPECT_EQ(ours[n], want[n]) << fixture << " line " << n + 1;
}

TEST(ExportGpt2Dynamic, StaticPrintsLikePyTorch) {
  FakeTensorMode mode;
  GPT m;
  ExportedProgram ep = export_program(m, {zeros({3, 8}, {.dtype = DType::Int64})});
  expect_same(to_string(ep, {.read_source = false}), "/dynamic/gpt2_block_static.txt");
}

TEST(ExportGpt2Dynamic, BatchAndSeqStaySymbolic) {
  FakeTensorMode mode;
  GPT m;
  ExportedProgram ep = export_program(m, {zeros({3, 8}, {.dtype = DType::Int64})}, {.dynamic_shapes = gpt_dims()});
  expect_same(to_string(ep, {.read_source = false}), "/dynamic/gpt2_block.txt");
  // No silent specialization: no symbol was replaced by a constant.
  for (const auto& [sym, value] : ep.shape_env->replacements()) EXPECT_FALSE(value.is_constant()) << sym;
  const TensorMeta& out = ep.graph.output_node()->inputs()[0]->val[0];
  EXPECT_EQ(out.annotation(), "f32[s95, s75, 64]");
}

}  // namespace
