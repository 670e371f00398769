// A mistyped or missing field anywhere in a PyTorch-written archive is a FormatError naming the
// field's path (exit 2 on the CLI), never an escaped JSON library exception. One case per section
// of the serialized ExportedProgram (torch/_export/serde/schema.py) and of the payload configs,
// each applied to a real archive PyTorch 2.14 exported (a dynamic HF Llama: range constraints,
// symbolic ints, a wrap_with_set_grad_enabled subgraph, module call graph, weights).
#include <gtest/gtest.h>

#include <functional>

#include "fakeexport/serde/pt2.h"
#include "fakeexport/serde/pt2_json.h"
#include "fakeexport/serde/zip.h"
#include "test_util.h"

using namespace fe;
using nlohmann::ordered_json;

namespace {

const std::string kArchive = std::string(FE_FIXTURES_DIR) + "/corpus/hf_llama_dyn.pt2";

std::string entry_text(const std::string& suffix, const std::string& archive = kArchive) {
  serde::ZipReader z(archive);
  return std::string(z.view(std::string(z.root()) + "/" + suffix));
}

ordered_json model(const std::string& archive = kArchive) {
  return ordered_json::parse(entry_text("models/model.json", archive));
}
ordered_json& graph(ordered_json& j) { return j["graph_module"]["graph"]; }

/// The index of the first top-level node whose target starts with `prefix`.
size_t node_index(const ordered_json& j, const std::string& prefix) {
  const auto& nodes = j["graph_module"]["graph"]["nodes"];
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i]["target"].get<std::string>().rfind(prefix, 0) == 0) return i;
  ADD_FAILURE() << "no node " << prefix;
  return 0;
}

/// The message of reading `j`; "" when it reads.
std::string read_error(const ordered_json& j) {
  try {
    serde::program_from_json_text(j.dump(), {.source = "model.json"});
  } catch (const FormatError& e) {
    return e.what();
  }
  return "";
}

struct Case {
  const char* section;
  std::function<void(ordered_json&)> alter;
  std::string names;  ///< the path (and value) the message must contain
};

}  // namespace

TEST(Pt2SchemaErrors, EachSectionNamesTheField) {
  ASSERT_EQ(read_error(model()), "");
  const ordered_json base = model();
  const std::string first_tensor = base["graph_module"]["graph"]["tensor_values"].begin().key();
  const std::string first_sym = base["graph_module"]["graph"]["sym_int_values"].begin().key();
  const std::string first_range = base["range_constraints"].begin().key();
  const size_t hop = node_index(base, "torch.ops.higher_order.wrap_with_set_grad_enabled");
  const size_t emb = node_index(base, "torch.ops.aten.embedding");
  const std::string n_emb = "graph_module.graph.nodes[" + std::to_string(emb) + "]";
  const std::vector<Case> cases = {
      {"schema_version", [](ordered_json& j) { j["schema_version"]["major"] = "8"; },
       "model.json: schema_version.major: expected an integer, got string \"8\""},
      {"schema_version", [](ordered_json& j) { j.erase("schema_version"); }, "missing field 'schema_version'"},
      {"range_constraints", [&](ordered_json& j) { j["range_constraints"][first_range]["min_val"] = "two"; },
       "range_constraints." + first_range + ".min_val: expected an integer, got string"},
      {"graph.tensor_values", [&](ordered_json& j) { graph(j)["tensor_values"][first_tensor]["sizes"] = "[2, 3]"; },
       "graph_module.graph.tensor_values." + first_tensor + ".sizes: expected a list, got string"},
      {"graph.tensor_values", [&](ordered_json& j) { graph(j)["tensor_values"][first_tensor].erase("dtype"); },
       "graph_module.graph.tensor_values." + first_tensor + ": missing field 'dtype'"},
      {"graph.tensor_values", [&](ordered_json& j) { graph(j)["tensor_values"][first_tensor]["device"]["type"] = 1; },
       "graph_module.graph.tensor_values." + first_tensor + ".device.type: expected a string, got integer 1"},
      {"graph.sym_int_values", [&](ordered_json& j) { graph(j)["sym_int_values"][first_sym] = {{"as_expr", 3}}; },
       "graph_module.graph.sym_int_values." + first_sym + ".as_expr: expected an object, got integer 3"},
      {"graph.nodes.target", [&](ordered_json& j) { graph(j)["nodes"][emb]["target"] = 42; },
       n_emb + ".target: expected a string, got integer 42"},
      {"graph.nodes.inputs", [&](ordered_json& j) { graph(j)["nodes"][emb]["inputs"] = ordered_json::object(); },
       ".inputs: expected a list, got object"},
      {"graph.nodes.inputs.arg", [&](ordered_json& j) { graph(j)["nodes"][emb]["inputs"][0]["arg"] = {{"as_tensor", 7}}; },
       n_emb + " (embedding).inputs[weight].arg.as_tensor: expected an object, got integer 7"},
      {"graph.nodes.outputs", [&](ordered_json& j) { graph(j)["nodes"][emb]["outputs"] = "x"; },
       ".outputs: expected a list, got string"},
      {"graph.nodes.metadata", [&](ordered_json& j) { graph(j)["nodes"][emb]["metadata"]["stack_trace"] = 5; },
       ".metadata.stack_trace: expected a string, got integer 5"},
      {"graph.nodes (subgraph)",
       [&](ordered_json& j) {
         for (auto& in : graph(j)["nodes"][hop]["inputs"])
           if (in["arg"].contains("as_graph")) in["arg"]["as_graph"]["graph"]["nodes"][0]["target"] = false;
       },
       ".target: expected a string, got boolean false"},
      {"graph.outputs", [](ordered_json& j) { graph(j).erase("outputs"); }, "graph_module.graph: missing field 'outputs'"},
      {"signature.input_specs", [](ordered_json& j) { j["graph_module"]["signature"]["input_specs"] = 7; },
       "graph_module.signature.input_specs: expected a list, got integer 7"},
      {"signature.input_specs",
       [](ordered_json& j) {
         j["graph_module"]["signature"]["input_specs"][0] = {{"parameter", ordered_json::object()}, {"buffer", 1}};
       },
       "graph_module.signature.input_specs[0]: expected a union (an object with one key)"},
      {"signature.output_specs",
       [](ordered_json& j) { j["graph_module"]["signature"]["output_specs"][0] = {{"not_a_kind", ordered_json::object()}}; },
       "graph_module.signature.output_specs[0]: unknown output spec kind 'not_a_kind'"},
      {"module_call_graph", [](ordered_json& j) { j["graph_module"]["module_call_graph"][0]["fqn"] = 1; },
       "graph_module.module_call_graph[0].fqn: expected a string, got integer 1"},
      {"module_call_graph",
       [](ordered_json& j) { j["graph_module"]["module_call_graph"][0]["signature"]["in_spec"] = ordered_json::array(); },
       "graph_module.module_call_graph[0].signature.in_spec: expected a string, got array"},
  };
  for (const Case& c : cases) {
    ordered_json j = base;
    c.alter(j);
    const std::string msg = read_error(j);
    EXPECT_NE(msg.find(c.names), std::string::npos) << c.section << ": got '" << msg << "', want it to name '" << c.names << "'";
    EXPECT_EQ(msg.find('\n'), std::string::npos) << c.section << ": one line";
  }
}

namespace {
/// The index of the first input spec of `kind` ("buffer"); -1 when the program has none.
int spec_index(const ordered_json& j, const char* list, const char* kind) {
  const auto& specs = j["graph_module"]["signature"][list];
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].contains(kind)) return static_cast<int>(i);
  return -1;
}
}  // namespace

// The rest of the schema: the top-level fields we do not use, the graph's value tables and flags,
// graph inputs/outputs, node arguments, every input/output spec kind the archive holds, and the
// module call graph's signature. Each mistyped or deleted field is named with its full path.
TEST(Pt2SchemaErrors, EveryFieldKindIsTyped) {
  const ordered_json base = model();
  const size_t emb = node_index(base, "torch.ops.aten.embedding");
  const std::string n_emb = "graph_module.graph.nodes[" + std::to_string(emb) + "] (embedding)";
  const std::string first_tensor = base["graph_module"]["graph"]["tensor_values"].begin().key();
  const std::string tv = "graph_module.graph.tensor_values." + first_tensor;
  std::vector<Case> cases = {
      {"torch_version", [](ordered_json& j) { j["torch_version"] = 2; }, "model.json: torch_version: expected a string, got integer 2"},
      {"schema_version.minor", [](ordered_json& j) { j["schema_version"]["minor"] = "20"; },
       "schema_version.minor: expected an integer, got string"},
      {"verifiers", [](ordered_json& j) { j["verifiers"] = "TRAINING"; }, "verifiers: expected a list, got string"},
      {"verifiers[0]", [](ordered_json& j) { j["verifiers"] = {1}; }, "verifiers[0]: expected a string, got integer 1"},
      {"opset_version", [](ordered_json& j) { j["opset_version"] = {{"aten", "10"}}; },
       "opset_version.aten: expected an integer, got string"},
      {"guards_code[0]", [](ordered_json& j) { j["guards_code"] = {3}; },
       "guards_code[0]: expected a string, got integer 3"},
      {"range_constraints", [](ordered_json& j) { j["range_constraints"] = {1, 2}; },
       "range_constraints: expected an object, got array"},
      {"graph", [](ordered_json& j) { j["graph_module"]["graph"] = "g"; }, "graph_module.graph: expected an object, got string"},
      {"graph.tensor_values", [](ordered_json& j) { graph(j).erase("tensor_values"); },
       "graph_module.graph: missing field 'tensor_values'"},
      {"graph.tensor_values.requires_grad", [&](ordered_json& j) { graph(j)["tensor_values"][first_tensor]["requires_grad"] = 1; },
       tv + ".requires_grad: expected a bool, got integer 1"},
      {"graph.tensor_values.sizes[0]", [&](ordered_json& j) { graph(j)["tensor_values"][first_tensor]["sizes"][0] = {{"as_int", "4"}}; },
       tv + ".sizes[0].as_int: expected an integer, got string"},
      {"graph.tensor_values.dtype", [&](ordered_json& j) { graph(j)["tensor_values"][first_tensor]["dtype"] = "float"; },
       tv + ".dtype: expected an integer, got string"},
      {"graph.sym_bool_values", [](ordered_json& j) { graph(j)["sym_bool_values"] = ordered_json::array(); },
       "graph_module.graph.sym_bool_values: expected an object, got array"},
      {"graph.sym_float_values", [](ordered_json& j) { graph(j)["sym_float_values"] = 1; },
       "graph_module.graph.sym_float_values: expected an object, got integer 1"},
      {"graph.custom_obj_values", [](ordered_json& j) { graph(j)["custom_obj_values"] = "x"; },
       "graph_module.graph.custom_obj_values: expected an object, got string"},
      {"graph.is_single_tensor_return", [](ordered_json& j) { graph(j)["is_single_tensor_return"] = "no"; },
       "graph_module.graph.is_single_tensor_return: expected a bool, got string"},
      {"graph.inputs[0]", [](ordered_json& j) { graph(j)["inputs"][0] = 5; }, "graph_module.graph.inputs[0]: expected a union"},
      {"graph.inputs[0].as_tensor.name", [](ordered_json& j) { graph(j)["inputs"][0]["as_tensor"]["name"] = 5; },
       "graph_module.graph.inputs[0].as_tensor.name: expected a string, got integer 5"},
      {"graph.outputs[0]", [](ordered_json& j) { graph(j)["outputs"][0] = {{"as_tensor", {{"name", true}}}}; },
       "graph_module.graph.outputs[0].as_tensor.name: expected a string, got boolean true"},
      {"graph.nodes", [](ordered_json& j) { graph(j)["nodes"] = ordered_json::object(); },
       "graph_module.graph.nodes: expected a list, got object"},
      {"graph.nodes.target (missing)", [&](ordered_json& j) { graph(j)["nodes"][emb].erase("target"); },
       "graph_module.graph.nodes[" + std::to_string(emb) + "]: missing field 'target'"},
      {"graph.nodes.inputs.name", [&](ordered_json& j) { graph(j)["nodes"][emb]["inputs"][0].erase("name"); },
       n_emb + ".inputs[0]: missing field 'name'"},
      {"graph.nodes.inputs.kind", [&](ordered_json& j) { graph(j)["nodes"][emb]["inputs"][0]["kind"] = "1"; },
       n_emb + ".inputs[0].kind: expected an integer, got string"},
      {"graph.nodes.inputs.arg (missing)", [&](ordered_json& j) { graph(j)["nodes"][emb]["inputs"][0].erase("arg"); },
       n_emb + ".inputs[0]: missing field 'arg'"},
      {"graph.nodes.outputs[0]", [&](ordered_json& j) { graph(j)["nodes"][emb]["outputs"][0] = {{"as_tensor", {{"name", 9}}}}; },
       n_emb + ".outputs[0].as_tensor.name: expected a string, got integer 9"},
      {"graph.nodes.metadata", [&](ordered_json& j) { graph(j)["nodes"][emb]["metadata"] = ordered_json::array(); },
       n_emb + ".metadata: expected an object, got array"},
      {"graph.nodes.metadata.nn_module_stack", [&](ordered_json& j) { graph(j)["nodes"][emb]["metadata"]["nn_module_stack"] = 1; },
       n_emb + ".metadata.nn_module_stack: expected a string, got integer 1"},
      {"signature", [](ordered_json& j) { j["graph_module"].erase("signature"); }, "graph_module: missing field 'signature'"},
      {"signature.output_specs", [](ordered_json& j) { j["graph_module"]["signature"]["output_specs"] = "o"; },
       "graph_module.signature.output_specs: expected a list, got string"},
      {"signature.output_specs.user_output", [](ordered_json& j) {
         j["graph_module"]["signature"]["output_specs"][0]["user_output"]["arg"]["as_tensor"]["name"] = 3;
       }, "graph_module.signature.output_specs[0].user_output.arg.as_tensor.name: expected a string, got integer 3"},
      {"module_call_graph", [](ordered_json& j) { j["graph_module"]["module_call_graph"] = 0; },
       "graph_module.module_call_graph: expected a list, got integer 0"},
      {"module_call_graph.signature.inputs", [](ordered_json& j) {
         j["graph_module"]["module_call_graph"][0]["signature"]["inputs"] = ordered_json::object();
       }, "graph_module.module_call_graph[0].signature.inputs: expected a list, got object"},
      {"module_call_graph.signature.forward_arg_names", [](ordered_json& j) {
         j["graph_module"]["module_call_graph"][0]["signature"]["forward_arg_names"] = {1};
       }, "graph_module.module_call_graph[0].signature.forward_arg_names[0]: expected a string, got integer 1"},
      {"module_call_graph.signature.out_spec", [](ordered_json& j) {
         j["graph_module"]["module_call_graph"][0]["signature"].erase("out_spec");
       }, "graph_module.module_call_graph[0].signature: missing field 'out_spec'"},
  };
  // Input specs: one mistyped field of each kind the archive holds (named, found, not assumed).
  const struct {
    const char* kind;
    const char* field;
    ordered_json bad;
    const char* got;
  } spec_fields[] = {{"parameter", "parameter_name", 1, "expected a string, got integer 1"},
                     {"buffer", "persistent", "yes", "expected a bool, got string"},
                     {"buffer", "buffer_name", ordered_json::array(), "expected a string, got array"},
                     {"tensor_constant", "tensor_constant_name", 2, "expected a string, got integer 2"},
                     {"user_input", "arg", 3, "expected a union (an object with one key)"}};
  size_t spec_cases = 0;
  for (const auto& f : spec_fields) {
    const int found = spec_index(base, "input_specs", f.kind);
    if (found < 0) continue;
    const size_t i = static_cast<size_t>(found);
    ++spec_cases;
    const std::string at = "graph_module.signature.input_specs[" + std::to_string(i) + "]." + f.kind + "." + f.field;
    cases.push_back({f.kind, [i, f](ordered_json& j) { j["graph_module"]["signature"]["input_specs"][i][f.kind][f.field] = f.bad; },
                     at + ": " + f.got});
    cases.push_back({f.kind, [i, f](ordered_json& j) { j["graph_module"]["signature"]["input_specs"][i][f.kind].erase(f.field); },
                     "graph_module.signature.input_specs[" + std::to_string(i) + "]." + f.kind + ": missing field '" +
                         f.field + "'"});
  }
  EXPECT_GE(spec_cases, 3u) << "the archive should hold parameters, buffers or constants, and user inputs";
  for (const Case& c : cases) {
    ordered_json j = base;
    c.alter(j);
    const std::string msg = read_error(j);
    EXPECT_NE(msg.find(c.names), std::string::npos) << c.section << ": got '" << msg << "', want it to name '" << c.names << "'";
    EXPECT_EQ(msg.find('\n'), std::string::npos) << c.section << ": one line";
    EXPECT_EQ(msg.rfind("model.json: ", 0), 0u) << c.section << ": " << msg;
  }
}

TEST(Pt2SchemaErrors, NotJsonAndWrongRoot) {
  EXPECT_NE(read_error(ordered_json::array()).find("model.json: <root>: expected an object, got array"), std::string::npos);
  try {
    serde::program_from_json_text("{\"graph_module\": [1,", {.source = "m.json"});
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("m.json: not valid JSON", 0), 0u) << e.what();
  }
}

namespace {
/// `kArchive` with entry `suffix` replaced by `text`.
std::string rewrite(const std::string& suffix, const std::string& text, const std::string& out) {
  serde::ZipReader in(kArchive);
  serde::ZipWriter w(out);
  const std::string name = std::string(in.root()) + "/" + suffix;
  for (const auto& e : in.entries()) {
    if (e.name == name) w.add(e.name, text);
    else w.add(e.name, in.data(e));
  }
  w.finish();
  return out;
}
}  // namespace

TEST(Pt2SchemaErrors, PayloadConfigFieldsAreNamedAndTheCliExitsTwo) {
  const std::string cfg_entry = "data/weights/model_weights_config.json";
  ordered_json cfg = ordered_json::parse(entry_text(cfg_entry));
  const std::string fqn = cfg["config"].begin().key();
  struct PayloadCase {
    std::function<void(ordered_json&)> alter;
    std::string names;
  };
  const std::vector<PayloadCase> cases = {
      {[&](ordered_json& c) { c["config"][fqn]["path_name"] = 3; }, "config['" + fqn + "']: missing path_name"},
      {[&](ordered_json& c) { c["config"][fqn]["is_param"] = "yes"; }, "config['" + fqn + "'].is_param: expected a bool"},
      {[&](ordered_json& c) { c["config"][fqn]["tensor_meta"]["sizes"][0] = "4"; },
       "config['" + fqn + "'].tensor_meta.sizes: expected an integer, got string"},
      {[&](ordered_json& c) { c["config"] = 1; }, "expected {\"config\": {...}}"},
  };
  const std::string dir = testing::TempDir();
  for (size_t i = 0; i < cases.size(); ++i) {
    ordered_json c = cfg;
    cases[i].alter(c);
    const std::string bad = rewrite(cfg_entry, c.dump(), dir + "/payload_" + std::to_string(i) + ".pt2");
    try {
      serde::load(bad, {.materialize_weights = true});
      ADD_FAILURE() << "case " << i << ": no error";
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find(cases[i].names), std::string::npos) << e.what();
    }
    fe_test::CliResult r = fe_test::run_cli("run -o " + dir + "/out.safetensors " + bad);  // reads the weights
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(r.out.find(cases[i].names), std::string::npos) << r.out;
  }
  // A mistyped model.json field on the command line: exit 2 with the path, not an internal error.
  ordered_json j = model();
  graph(j)["nodes"][0]["target"] = 12;
  const std::string bad = rewrite("models/model.json", j.dump(), dir + "/model_target.pt2");
  for (const char* cmd : {"inspect --json ", "check ", "run -o /dev/null "}) {
    fe_test::CliResult r = fe_test::run_cli(cmd + bad);
    EXPECT_EQ(r.rc, 2) << cmd << r.out;
    EXPECT_NE(r.out.find("graph_module.graph.nodes[0].target: expected a string, got integer 12"), std::string::npos)
        << cmd << r.out;
    EXPECT_EQ(r.out.find("internal error"), std::string::npos) << r.out;
  }
}

// A Python operator node with the wrong number of operands (XLNet's unary `_operator.neg` given a
// second, `_operator.sub` given one) is a typed one-line error naming the node, not a crash.
TEST(Pt2SchemaErrors, PythonOperatorsTakeTheirNumberOfOperands) {
  const ordered_json base = model(std::string(FE_FIXTURES_DIR) + "/corpus/hf_xlnet_dyn.pt2");
  ASSERT_EQ(read_error(base), "");
  for (const char* target : {"_operator.neg", "_operator.sub"}) {
    ordered_json j = base;
    const size_t i = node_index(j, target);
    auto& inputs = graph(j)["nodes"][i]["inputs"];
    const bool unary = std::string(target) == "_operator.neg";
    if (unary) inputs.push_back(inputs[0]);
    else inputs.erase(inputs.size() - 1);
    const std::string msg = read_error(j);
    const std::string want = std::string(target) + " takes " + (unary ? "1 operand, not 2" : "2 operands, not 1");
    const std::string at = "graph_module.graph.nodes[" + std::to_string(i) + "] (";
    EXPECT_NE(msg.find(at), std::string::npos) << msg;
    EXPECT_NE(msg.find(").inputs: "), std::string::npos) << msg;
    EXPECT_NE(msg.find(want), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}
