// model.json of .pt2 archives: reading PyTorch 2.14's documents (printed exactly as
// torch.export.load's program prints), malformed input, and writing what 2.14 writes.
#include <gtest/gtest.h>

#include "gpt2_mini.h"
#include "seed_mlp_model.h"
#include "fakeexport/serde/pt2_json.h"
#include "test_util.h"

using namespace fe;
using nlohmann::ordered_json;

namespace {

std::string fixture(const std::string& name) { return std::string(FE_FIXTURES_DIR) + "/pt2/" + name; }

ordered_json load_json(const std::string& c) { return ordered_json::parse(fe_test::read_file(fixture(c + ".model.json"))); }

std::string printed(const ExportedProgram& ep) { return to_string(ep, {.read_source = false}); }

/// The FormatError text of reading `j`, or a marker when it does not throw one.
std::string read_error(const ordered_json& j) {
  try {
    serde::program_from_json(j);
  } catch (const FormatError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<wrong exception> ") + e.what();
  }
  return "<no exception>";
}

}  // namespace

// ---- reader: every fixture prints exactly as PyTorch prints torch.export.load(archive)

class Pt2JsonRead : public ::testing::TestWithParam<std::string> {};

TEST_P(Pt2JsonRead, PrintsLikeTorchExportLoad) {
  const std::string c = GetParam();
  ExportedProgram ep = serde::program_from_json_text(fe_test::read_file(fixture(c + ".model.json")));
  auto got = fe_test::lines_of(printed(ep));
  auto want = fe_test::lines_of(fe_test::read_file(fixture(c + ".txt")));
  ASSERT_EQ(got.size(), want.size()) << printed(ep);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]) << "line " << i + 1;
}

TEST_P(Pt2JsonRead, MetadataAgreesWithOurMetaFunctions) {
  // The verifier re-runs every node's meta over the loaded arguments: our ops agree with 2.14's.
  ExportedProgram ep = serde::program_from_json(load_json(GetParam()));
  EXPECT_NO_THROW(verify(ep));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Pt2JsonRead,
                         ::testing::Values("seed_mlp", "seed_mlp_fake", "gpt2_dynamic", "buffers", "tied"));

TEST(Pt2JsonRead, SeedMlpStructure) {
  ExportedProgram ep = serde::program_from_json(load_json("seed_mlp"));
  ASSERT_EQ(ep.signature.inputs.size(), 5u);
  EXPECT_EQ(ep.signature.inputs[0].kind, InputKind::Parameter);
  EXPECT_EQ(ep.signature.inputs[0].target, "fc1.weight");
  ASSERT_EQ(ep.state_dict.size(), 4u);
  EXPECT_EQ(ep.state_dict[2].first, "fc2.weight");
  EXPECT_EQ(ep.state_dict[2].second.meta().annotation(), "f32[10, 256]");
  EXPECT_TRUE(ep.state_dict[2].second.is_fake());
  EXPECT_EQ(ep.shape_env, nullptr);
  ASSERT_EQ(ep.module_call_graph.size(), 4u);
  ASSERT_TRUE(ep.module_call_graph[0].signature);
  EXPECT_EQ(ep.module_call_graph[0].signature->forward_arg_names, std::vector<std::string>{"x"});
  EXPECT_FALSE(ep.module_call_graph[1].signature);
  EXPECT_EQ(ep.module_call_graph[3].fqn, "fc2");
  const Node* lin = nullptr;
  for (const auto& n : ep.graph.nodes())
    if (n->name() == "linear") lin = n.get();
  ASSERT_TRUE(lin);
  ASSERT_TRUE(lin->module_stack);
  ASSERT_EQ(lin->module_stack->size(), 2u);
  EXPECT_EQ((*lin->module_stack)[1].path, "fc1");
  EXPECT_EQ((*lin->module_stack)[1].type_name, "torch.nn.modules.linear.Linear");
  EXPECT_EQ(lin->target(), &op("aten::linear.default"));
}

TEST(Pt2JsonRead, BuffersAndConstants) {
  ExportedProgram ep = serde::program_from_json(load_json("buffers"));
  // Persistent buffers are state; the non-persistent `cache` is a constant, as in PyTorch.
  ASSERT_EQ(ep.state_dict.size(), 4u);
  EXPECT_EQ(ep.state_dict[3].first, "steps");
  ASSERT_EQ(ep.constants.size(), 1u);
  EXPECT_EQ(ep.constants[0].first, "cache");
  EXPECT_FALSE(ep.signature.inputs[4].persistent);
}

TEST(Pt2JsonRead, DynamicShapesSymbolsAndRanges) {
  ExportedProgram ep = serde::program_from_json(load_json("gpt2_dynamic"));
  ASSERT_TRUE(ep.shape_env);
  ASSERT_EQ(ep.range_constraints.size(), 2u);
  EXPECT_EQ(ep.range_constraints[0].first, "s95");
  EXPECT_EQ(ep.range_constraints[0].second.str(), "VR[0, int_oo]");
  EXPECT_EQ(ep.range_constraints[1].second.str(), "VR[2, 1024]");
  // Hints come from the file (example input 3 x 8).
  const auto* s95 = ep.shape_env->symbol("s95");
  ASSERT_TRUE(s95);
  EXPECT_EQ(s95->hint, 3);
  EXPECT_EQ(ep.shape_env->symbol("s75")->hint, 8);
  const Node* view = nullptr;
  for (const auto& n : ep.graph.nodes())
    if (n->name() == "view") view = n.get();
  ASSERT_TRUE(view);
  EXPECT_EQ(view->val[0].strides[0].str(), "48*s75");
  // The size list refers to the sym_size nodes.
  const auto& size = std::get<std::vector<SymInt>>(view->args()[1]);
  ASSERT_EQ(size.size(), 4u);
  ASSERT_TRUE(graph_node_of(size[0]));
  EXPECT_EQ(graph_node_of(size[0])->name(), "sym_size_int_3");
}

TEST(Pt2JsonRead, SortedKeysStillOrderRangesLikeExport) {
  // A plain nlohmann::json sorts keys (s75 < s95); export's order is by input dim.
  nlohmann::json sorted = nlohmann::json::parse(fe_test::read_file(fixture("gpt2_dynamic.model.json")));
  ExportedProgram ep = serde::program_from_json(sorted);
  ASSERT_EQ(ep.range_constraints.size(), 2u);
  EXPECT_EQ(ep.range_constraints[0].first, "s95");
  EXPECT_EQ(ep.range_constraints[1].first, "s75");
}

TEST(Pt2JsonRead, UnknownOpLoadsAsOpaqueNode) {
  ordered_json j = load_json("seed_mlp");
  auto& node = j["graph_module"]["graph"]["nodes"][1];  // gelu
  node["target"] = "torch.ops.mylib.fancy_act.default";
  node["inputs"].push_back({{"name", "alpha"}, {"arg", {{"as_float", 0.5}}}, {"kind", 2}});
  ExportedProgram ep = serde::program_from_json(j);
  ASSERT_EQ(ep.opaque_ops.size(), 1u);
  EXPECT_EQ(ep.opaque_ops[0]->qualified, "mylib::fancy_act.default");
  std::string text = printed(ep);
  EXPECT_NE(text.find("gelu: \"f32[4, 256]\" = torch.ops.mylib.fancy_act.default(linear, alpha = 0.5);  linear = None"),
            std::string::npos)
      << text;
  EXPECT_NO_THROW(verify(ep));  // the opaque node keeps its recorded metadata
}

TEST(Pt2JsonRead, OlderSchemaWithoutNamesAndKinds) {
  // 2.9-2.11 files (schema < 8.16) have no Node.name; very old ones no argument kind.
  ordered_json j = load_json("seed_mlp");
  for (auto& n : j["graph_module"]["graph"]["nodes"]) {
    n.erase("name");
    for (auto& in : n["inputs"]) in.erase("kind");
  }
  j["schema_version"]["minor"] = 14;
  ExportedProgram ep = serde::program_from_json(j);
  std::string text = printed(ep);
  // Without kinds, arguments with defaults become keywords (PyTorch's fallback).
  EXPECT_NE(text.find("_assert_tensor_metadata_default = torch.ops.aten._assert_tensor_metadata.default(gelu, dtype = "
                      "torch.float32, device = device(type='cpu'), layout = torch.strided)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("linear_1: \"f32[4, 10]\" = torch.ops.aten.linear.default(to, p_fc2_weight, bias = p_fc2_bias)"),
            std::string::npos)
      << text;
}

TEST(Pt2JsonRead, AsNoneAsEmptyListAndInfinityStrings) {
  // Pre-8.3 files wrote as_none as []; floats may be "Infinity".
  ordered_json j = load_json("gpt2_dynamic");
  for (auto& n : j["graph_module"]["graph"]["nodes"])
    if (n["target"] == "torch.ops.aten.scaled_dot_product_attention.default") {
      n["inputs"][3]["arg"] = {{"as_none", ordered_json::array()}};
      n["inputs"][4]["arg"] = {{"as_float", "Infinity"}};
    }
  std::string text = printed(serde::program_from_json(j));
  EXPECT_NE(text.find("scaled_dot_product_attention.default(transpose, transpose_1, transpose_2, None, inf, True)"),
            std::string::npos)
      << text;
}

// ---- reader: malformed documents raise FormatError naming the field and the value

TEST(Pt2JsonMalformed, MissingField) {
  ordered_json j = load_json("seed_mlp");
  j["graph_module"]["graph"].erase("nodes");
  EXPECT_EQ(read_error(j), "model.json: graph_module.graph: missing field 'nodes'");
  j = load_json("seed_mlp");
  j.erase("schema_version");
  EXPECT_EQ(read_error(j), "model.json: <root>: missing field 'schema_version'");
}

TEST(Pt2JsonMalformed, WrongTypes) {
  ordered_json j = load_json("seed_mlp");
  j["graph_module"]["graph"]["tensor_values"]["x"]["sizes"][0]["as_int"] = "4";
  EXPECT_EQ(read_error(j), "model.json: graph_module.graph.tensor_values.x.sizes[0].as_int: expected an integer, got "
                           "string \"4\"");
  j = load_json("seed_mlp");
  j["graph_module"]["graph"]["nodes"][0]["inputs"] = {{"a", 1}};
  EXPECT_EQ(read_error(j), "model.json: graph_module.graph.nodes[0] (linear).inputs: expected a list, got object "
                           "{\"a\":1}");
  j = load_json("buffers");
  j["graph_module"]["signature"]["input_specs"][2]["buffer"]["persistent"] = 1;
  EXPECT_EQ(read_error(j), "model.json: graph_module.signature.input_specs[2].buffer.persistent: expected a bool, got "
                           "integer 1");
}

TEST(Pt2JsonMalformed, UnknownArgumentKind) {
  ordered_json j = load_json("seed_mlp");
  j["graph_module"]["graph"]["nodes"][2]["inputs"][1]["arg"] = {{"as_quaternion", 7}};
  EXPECT_EQ(read_error(j), "model.json: graph_module.graph.nodes[2] (_assert_tensor_metadata_default).inputs[dtype].arg: "
                           "unknown argument kind 'as_quaternion'");
  j = load_json("seed_mlp");
  j["graph_module"]["graph"]["nodes"][2]["inputs"][1]["arg"] = {{"as_scalar_type", 7}, {"as_int", 3}};
  EXPECT_NE(read_error(j).find("inputs[dtype].arg: expected a union (an object with one key)"), std::string::npos);
  j = load_json("seed_mlp");
  j["graph_module"]["graph"]["nodes"][2]["inputs"][1]["arg"] = {{"as_scalar_type", 99}};
  EXPECT_EQ(read_error(j), "model.json: graph_module.graph.nodes[2] (_assert_tensor_metadata_default).inputs[dtype]"
                           ".arg.as_scalar_type: unknown or unsupported ScalarType 99");
}

TEST(Pt2JsonMalformed, Int64Overflow) {
  ordered_json j = load_json("seed_mlp");
  j["graph_module"]["graph"]["tensor_values"]["x"]["sizes"][1]["as_int"] = uint64_t{9223372036854775808u};
  EXPECT_EQ(read_error(j), "model.json: graph_module.graph.tensor_values.x.sizes[1].as_int: integer "
                           "9223372036854775808 overflows int64");
  // Beyond uint64 the JSON parser yields a float: still an overflow, not a silent wrap.
  std::string text = fe_test::read_file(fixture("seed_mlp.model.json"));
  text.replace(text.find("\"as_int\": 128"), 13, "\"as_int\": 99999999999999999999999");
  EXPECT_NE(read_error(ordered_json::parse(text)).find("overflows int64"), std::string::npos);
  j = load_json("gpt2_dynamic");
  j["graph_module"]["graph"]["tensor_values"]["idx"]["strides"][0]["as_expr"]["expr_str"] =
      "Mul(Integer(99999999999999999999), Symbol('s75', positive=True, integer=True))";
  EXPECT_NE(read_error(j).find("tensor_values.idx.strides[0].as_expr.expr_str: symbolic expression"), std::string::npos)
      << read_error(j);
}

TEST(Pt2JsonMalformed, DanglingNames) {
  ordered_json j = load_json("seed_mlp");
  j["graph_module"]["graph"]["nodes"][1]["inputs"][0]["arg"]["as_tensor"]["name"] = "nope";
  EXPECT_EQ(read_error(j), "model.json: graph_module.graph.nodes[1] (gelu).inputs[self].arg.as_tensor: dangling name "
                           "'nope' (no earlier node defines it)");
  j = load_json("seed_mlp");
  j["graph_module"]["graph"]["tensor_values"].erase("gelu");
  EXPECT_EQ(read_error(j), "model.json: graph_module.graph.nodes[1] (gelu).outputs[0]: tensor 'gelu' has no entry in "
                           "graph_module.graph.tensor_values");
  j = load_json("seed_mlp");
  j["graph_module"]["graph"]["outputs"][0]["as_tensor"]["name"] = "ghost";
  EXPECT_EQ(read_error(j), "model.json: graph_module.graph.outputs[0]: dangling name 'ghost' (no earlier node defines "
                           "it)");
  j = load_json("gpt2_dynamic");
  j["graph_module"]["graph"]["sym_int_values"].erase("sym_size_int_4");
  EXPECT_EQ(read_error(j), "model.json: graph_module.graph.nodes[1] (sym_size_int_4): symbolic int 'sym_size_int_4' "
                           "has no entry in graph_module.graph.sym_int_values");
}

TEST(Pt2JsonMalformed, SchemaAndSignatureMismatches) {
  ordered_json j = load_json("seed_mlp");
  j["graph_module"]["graph"]["nodes"][0]["inputs"][2]["name"] = "beta";
  EXPECT_EQ(read_error(j), "model.json: graph_module.graph.nodes[0] (linear).inputs[2]: 'beta' is not an argument of "
                           "aten::linear.default");
  j = load_json("seed_mlp");
  j["graph_module"]["graph"]["nodes"][0]["inputs"].erase(1);
  EXPECT_EQ(read_error(j), "model.json: graph_module.graph.nodes[0] (linear): missing argument 'weight' of "
                           "aten::linear.default");
  j = load_json("seed_mlp");
  j["graph_module"]["signature"]["input_specs"][0]["parameter"]["arg"]["name"] = "p_other";
  EXPECT_EQ(read_error(j), "model.json: graph_module.signature.input_specs[0]: names 'p_other' but graph input 0 is "
                           "'p_fc1_weight'");
  j = load_json("seed_mlp");
  j["schema_version"]["major"] = 9;
  EXPECT_EQ(read_error(j), "model.json: schema_version.major: unsupported schema version 9 (this reader knows 8.x)");
  j = load_json("seed_mlp");
  j["graph_module"]["graph"]["nodes"][1]["name"] = "linear";
  j["graph_module"]["graph"]["nodes"][1]["outputs"][0]["as_tensor"]["name"] = "linear";
  EXPECT_EQ(read_error(j), "model.json: graph_module.graph.nodes[1] (linear): name 'linear' is defined twice");
}

TEST(Pt2JsonMalformed, NotJson) {
  try {
    serde::program_from_json_text("{\"graph_module\": ");
    FAIL() << "no exception";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("model.json: not valid JSON"), std::string::npos);
  }
}

// ---- expressions

TEST(Pt2JsonExpr, SreprAndInfixParse) {
  EXPECT_EQ(serde::parse_sym_expr("Mul(Integer(48), Symbol('s75', positive=True, integer=True))").str(), "48*s75");
  EXPECT_EQ(serde::parse_sym_expr("48*s75").str(), "48*s75");
  EXPECT_EQ(serde::parse_sym_expr("Add(FloorDiv(Mul(Symbol('s0'), Symbol('s1')), Integer(4)), Integer(1))").str(),
            serde::parse_sym_expr("(s0*s1)//4 + 1").str());
  EXPECT_THROW(serde::parse_sym_expr("Sin(s0"), FormatError);
  EXPECT_THROW(serde::parse_sym_expr("CeilToInt(s0'"), FormatError);
  EXPECT_THROW(serde::parse_sym_expr("s0 / 2"), FormatError);
  EXPECT_THROW(serde::parse_sym_expr("Mul(Integer(2), "), FormatError);
}

// Sizes over unbacked floats (Funnel's arange(item(), item(), -1), PyTorch 2.14's print): the
// applications we do not compute stay atoms that print, sort and substitute as recorded.
TEST(Pt2JsonExpr, AppliedAtomsKeepTheirText) {
  const std::string c = "CeilToInt(FloatTrueDiv(zuf0 - zuf1, -1.0))";
  for (const std::string t : {c, "Max(0, " + c + " - Min(1, " + c + "))", "Max(0, Min(8, " + c + " - 1))", c + " - 2"})
    EXPECT_EQ(serde::parse_sym_expr(t).str(), t);
  const sym::Expr e = serde::parse_sym_expr(c + " - Min(2, " + c + ")");
  EXPECT_EQ(e.free_symbols(), (std::set<std::string>{"zuf0", "zuf1"}));
  EXPECT_EQ((serde::parse_sym_expr("Min(8, s0)") + serde::parse_sym_expr(c)).str(), c + " + Min(8, s0)");
  EXPECT_EQ(e.substitute({{"zuf1", sym::Expr::symbol("zuf7")}}).str(),
            "CeilToInt(FloatTrueDiv(zuf0 - zuf7, -1.0)) - Min(2, CeilToInt(FloatTrueDiv(zuf0 - zuf7, -1.0)))");
  EXPECT_THROW((void)e.evaluate({{"zuf0", 1}, {"zuf1", 2}}), ValueError);
}

TEST(Pt2JsonExpr, SreprMatchesSympy) {
  // Expected texts: sympy.srepr in PyTorch 2.14's environment (tools/oracle/scratch probe).
  auto s = [](const char* infix) { return serde::sym_expr_srepr(serde::parse_sym_expr(infix)); };
  const std::string S0 = "Symbol('s0', positive=True, integer=True)", S1 = "Symbol('s1', positive=True, integer=True)";
  EXPECT_EQ(s("s0 + 1"), "Add(" + S0 + ", Integer(1))");
  EXPECT_EQ(s("2*s0 + 3"), "Add(Mul(Integer(2), " + S0 + "), Integer(3))");
  EXPECT_EQ(s("16*s0*s1"), "Mul(Integer(16), " + S0 + ", " + S1 + ")");
  EXPECT_EQ(s("4 - s0"), "Add(Integer(4), Mul(Integer(-1), " + S0 + "))");
  EXPECT_EQ(s("s0 - 1"), "Add(" + S0 + ", Integer(-1))");
  EXPECT_EQ(s("s0//2"), "FloorDiv(" + S0 + ", Integer(2))");
  EXPECT_EQ(s("3*s0**2*s1"), "Mul(Integer(3), Pow(" + S0 + ", Integer(2)), " + S1 + ")");
  EXPECT_EQ(s("(s0*s1)//4 + 1"), "Add(FloorDiv(Mul(" + S0 + ", " + S1 + "), Integer(4)), Integer(1))");
}

// ---- writer: what PyTorch 2.14 writes for the same programs, field by field

namespace {

/// Differences between two documents (key order included), as "path: ours vs want" lines.
void json_diff(const ordered_json& a, const ordered_json& b, const std::string& path, std::vector<std::string>& out) {
  if (out.size() > 20) return;
  if (a.is_object() && b.is_object()) {
    std::vector<std::string> ka, kb;
    for (const auto& [k, v] : a.items()) ka.push_back(k);
    for (const auto& [k, v] : b.items()) kb.push_back(k);
    if (ka != kb) {
      out.push_back(path + ": keys " + ordered_json(ka).dump() + " vs " + ordered_json(kb).dump());
      return;
    }
    for (const auto& k : ka) json_diff(a[k], b[k], path + "." + k, out);
  } else if (a.is_array() && b.is_array() && a.size() == b.size()) {
    for (size_t i = 0; i < a.size(); ++i) json_diff(a[i], b[i], path + "[" + std::to_string(i) + "]", out);
  } else if (a != b) {
    out.push_back(path + ": " + a.dump() + " vs " + b.dump());
  }
}

/// Drops what legitimately differs between our trace and PyTorch's: Python stack traces and
/// torch_fn (Python call kinds), and the root module's Python module name in nn_module_stack.
ordered_json normalized(ordered_json j, const std::string& py_module) {
  for (auto& n : j["graph_module"]["graph"]["nodes"]) {
    auto& md = n["metadata"];
    md.erase("stack_trace");
    md.erase("torch_fn");
    if (md.contains("nn_module_stack")) {
      std::string s = md["nn_module_stack"];
      for (size_t p = 0; (p = s.find(py_module + ".", p)) != std::string::npos; p += 8) s.replace(p, py_module.size(), "__main__");
      md["nn_module_stack"] = s;
    }
  }
  return j;
}

std::string diff_text(const ordered_json& ours, const ordered_json& want) {
  std::vector<std::string> d;
  json_diff(ours, want, "", d);
  std::string s;
  for (const auto& l : d) s += l + "\n";
  return s;
}

}  // namespace

TEST(Pt2JsonWrite, SeedMlpLikeTorch) {
  ExportedProgram ep = seed::fake_export(kCPU, kCPU);
  ordered_json ours = serde::program_to_json(ep, {.torch_version = "2.14.1+debian"});
  ordered_json want = load_json("seed_mlp");
  EXPECT_EQ(diff_text(normalized(ours, "__main__"), normalized(want, "seed_mlp")), "");
  // The synthesized stack trace names our C++ call site in PyTorch's frame format.
  std::string st = ours["graph_module"]["graph"]["nodes"][0]["metadata"]["stack_trace"];
  EXPECT_TRUE(st.starts_with("File \"")) << st;
  EXPECT_NE(st.find("\", line "), std::string::npos) << st;
}

TEST(Pt2JsonWrite, Gpt2DynamicLikeTorch) {
  FakeTensorMode mode;
  gpt2_mini::GPT m;
  ExportedProgram ep =
      export_program(m, {zeros({3, 8}, {.dtype = DType::Int64})}, {.dynamic_shapes = gpt2_mini::dynamic_dims()});
  ordered_json ours = serde::program_to_json(ep, {.torch_version = "2.14.1+debian"});
  ordered_json want = load_json("gpt2_dynamic");
  // sym_size node numbers follow Python object identity in make_fx (see test_export_gpt2_dynamic):
  // ours are renamed to PyTorch's by order of appearance.
  std::string text = ours.dump();
  std::map<std::string, std::string> rename;
  std::vector<std::string> theirs;
  for (const auto& n : want["graph_module"]["graph"]["nodes"])
    if (n["target"] == "torch.ops.aten.sym_size.int") theirs.push_back(n["name"]);
  for (const auto& n : ours["graph_module"]["graph"]["nodes"])
    if (n["target"] == "torch.ops.aten.sym_size.int" && rename.size() < theirs.size())
      rename.emplace("\"" + n["name"].get<std::string>() + "\"", "\"" + theirs[rename.size()] + "\"");
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (size_t p = 0; (p = text.find(from, p)) != std::string::npos; p += to.size()) text.replace(p, from.size(), to);
  };
  int k = 0;  // through placeholders, so that no rename feeds another
  for (const auto& [from, to] : rename) replace_all(from, "\"@@" + std::to_string(k++) + "\"");
  k = 0;
  for (const auto& [from, to] : rename) replace_all("\"@@" + std::to_string(k++) + "\"", to);
  ours = ordered_json::parse(text);
  EXPECT_EQ(diff_text(normalized(ours, "__main__"), normalized(want, "gpt2")), "");
}

TEST(Pt2JsonWrite, RoundTripsLoadedPrograms) {
  // A loaded program writes back to the very document it came from.
  for (const char* c : {"seed_mlp", "gpt2_dynamic", "buffers", "tied", "seed_mlp_fake"}) {
    ordered_json want = load_json(c);
    ordered_json ours = serde::program_to_json(serde::program_from_json(want), {.torch_version = "2.14.1+debian"});
    EXPECT_EQ(diff_text(ours, want), "") << c;
  }
}

TEST(Pt2JsonWrite, PythonJsonDumpsFormat) {
  ordered_json j = {{"a", 1}, {"b", ordered_json::array({1.0, 1e-05, "x\"\n\u00e9"})}, {"c", nullptr}};
  EXPECT_EQ(serde::dump_python_json(j), "{\"a\": 1, \"b\": [1.0, 1e-05, \"x\\\"\\n\\u00e9\"], \"c\": null}");
  // torch wrote the fixture with json.dumps; its pretty-printed copy re-dumps to the same value.
  ordered_json want = load_json("seed_mlp");
  EXPECT_EQ(ordered_json::parse(serde::dump_python_json(want)), want);
}

TEST(Pt2JsonWrite, BytesEqualTheArchivesModelJson) {
  // The archives store models/model.json uncompressed: read -> write -> json.dumps must give
  // exactly the bytes torch.export.save wrote.
  for (const char* c : {"seed_mlp", "gpt2_dynamic", "buffers", "tied", "seed_mlp_fake"}) {
    const std::string archive = fe_test::read_file(fixture(std::string(c) + ".pt2"));
    ExportedProgram ep = serde::program_from_json(load_json(c));
    const std::string bytes = serde::dump_python_json(serde::program_to_json(ep, {.torch_version = "2.14.1+debian"}));
    EXPECT_NE(archive.find(bytes), std::string::npos) << c << ": " << bytes.substr(0, 200);
    EXPECT_EQ(archive.find(serde::dump_python_json(serde::program_to_json(ep))), std::string::npos)
        << c << ": a different torch_version must not match";
  }
}
