// Zoo family "vit" (ViTForImageClassification) against transformers 5.12: state_dicts, parameter
// counts (google/vit-base-patch16-224: 86,567,656), exports on every placement, dynamic batch, an
// eager comparison on tiny_vit, and config errors. Helpers: test_zoo_gpt2.cpp.
#include <functional>

#include <gtest/gtest.h>

#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/export/exported_program.h"
#include "fakeexport/nn/zoo.h"
#include "nn/zoo/vit_parts.h"
#include "test_util.h"

using namespace fe;

namespace zoo_gpt2_test {  // defined in test_zoo_gpt2.cpp
zoo::Config config(const std::string& name);
int64_t num_parameters(zoo::Model& m);
int64_t check_state_dict(const std::string& name);
std::vector<std::string> check_exports(const std::string& name);
std::vector<std::string> output_devices(const ExportedProgram& ep);
std::string check_dynamic_export(const std::string& name, zoo::InputOptions o);
void check_eager(const std::string& name, const std::function<std::string(std::string_view)>& rename);
std::string build_error(const std::string& json_text);
}  // namespace zoo_gpt2_test

namespace {
using namespace zoo_gpt2_test;

const char* const kConfigs[] = {"tiny_vit", "vit_default_labels", "vit_large_bf16", "vit-base-patch16-224"};

TEST(ZooVit, StateDictsMatchTransformers) {
  for (const char* name : kConfigs) check_state_dict(name);
}

TEST(ZooVit, RealVitBaseParameterCount) {
  EXPECT_EQ(check_state_dict("vit-base-patch16-224"), 86567656);
  FakeTensorMode fake;
  auto m = zoo::build(config("vit-base-patch16-224"));
  EXPECT_EQ(num_parameters(*m), 86567656);
}

TEST(ZooVit, Units) {
  FakeTensorMode fake;
  auto m = zoo::build(config("tiny_vit"));
  std::vector<std::string> paths;
  for (const zoo::Unit& u : m->units()) paths.push_back(u.path + (u.repeated ? "*" : ""));
  EXPECT_EQ(paths, (std::vector<std::string>{"vit.embeddings", "vit.layers.0*", "vit.layers.1*", "vit.layernorm",
                                             "classifier"}));
}

TEST(ZooVit, ExportsOnEveryPlacement) {
  // One cut between the layers; the head follows the last layer.
  for (const char* name : kConfigs) EXPECT_EQ(check_exports(name), std::vector<std::string>{"cuda:1"}) << name;
}

TEST(ZooVit, LogitsShapeAndDynamicBatch) {
  FakeTensorMode fake;
  auto m = zoo::build(config("vit-base-patch16-224"));
  auto in = m->example_inputs({});
  EXPECT_EQ(fe_test::ints(in.args.at(0).sizes()), (fe_test::V{2, 3, 224, 224}));
  ExportedProgram ep = export_program(*m, in.args);
  EXPECT_EQ(fe_test::ints(ep.graph.output_node()->inputs().at(0)->val.at(0).sizes), (fe_test::V{2, 1000}));
  zoo::InputOptions o;
  o.dynamic_batch = true;
  const std::string r = check_dynamic_export("tiny_vit", o);
  EXPECT_NE(r.find(":[1,1024]"), std::string::npos) << r;
}

TEST(ZooVit, EagerMatchesTransformers) {
  // The checkpoint holds ViT's legacy names (HF renames them on load and back on save).
  check_eager("tiny_vit", {});
}

TEST(ZooVit, BuiltinDefault) {
  FakeTensorMode fake;
  auto m = zoo::build(zoo::builtin_config("vit"));
  auto in = m->example_inputs({});
  ExportedProgram ep = export_program(*m, in.args);
  EXPECT_EQ(fe_test::ints(ep.graph.output_node()->inputs().at(0)->val.at(0).sizes), (fe_test::V{2, 10}));
}

TEST(ZooVit, ConfigErrors) {
  const std::string missing = build_error(
      R"({"model_type": "vit", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
          "image_size": 8, "patch_size": 4})");
  EXPECT_NE(missing.find("'intermediate_size' is missing"), std::string::npos) << missing;
  const std::string act = build_error(
      R"({"model_type": "vit", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
          "intermediate_size": 16, "image_size": 8, "patch_size": 4, "hidden_act": "prelu"})");
  EXPECT_NE(act.find("field 'hidden_act' = 'prelu' is not supported"), std::string::npos) << act;
  const std::string rect = build_error(
      R"({"model_type": "vit", "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2,
          "intermediate_size": 16, "image_size": [8, 16], "patch_size": 4})");
  EXPECT_NE(rect.find("field 'image_size' must be an integer"), std::string::npos) << rect;
}

}  // namespace
