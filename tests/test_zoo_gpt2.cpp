// Zoo family "gpt2" (GPT2LMHeadModel) against transformers 5.12: state_dict names/shapes/dtypes and
// parameter counts for every gpt2 config, exports on cpu / fake cuda:0 / a two-device pipeline /
// dynamic shapes, an eager comparison on tiny_gpt2, and config errors.
// The helpers in namespace zoo_gpt2_test are shared with test_zoo_vit.cpp and
// test_zoo_vision_encoder_decoder.cpp (declared there).
#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <set>
#include <unordered_set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/export/exported_program.h"
#include "fakeexport/export/run.h"
#include "fakeexport/nn/zoo.h"
#include "fakeexport/ops/api.h"
#include "fakeexport/serde/safetensors.h"
#include "test_util.h"

using namespace fe;
using json = nlohmann::json;

namespace zoo_gpt2_test {

std::string config_path(const std::string& name) {
  const std::string local = std::string(FE_FIXTURES_DIR) + "/zoo/configs/" + name + ".json";
  if (std::ifstream(local).good()) return local;
  return std::string(FE_FIXTURES_DIR) + "/../../configs/" + name + ".json";
}

zoo::Config config(const std::string& name) { return zoo::Config::from_file(config_path(name)); }

DType default_dtype_of(const zoo::Config& c) {
  const std::string d = c.get_string("_fe_dtype", "float32");
  auto t = parse_dtype(d);
  EXPECT_TRUE(t.has_value()) << d;
  return t.value_or(DType::Float32);
}

// Unique tensors by impl, like HF's num_parameters() (a tied weight counts once).
int64_t num_parameters(zoo::Model& m) {
  std::unordered_set<const TensorImpl*> seen;
  int64_t n = 0;
  for (auto& [name, t] : m.named_parameters())
    if (seen.insert(t->impl()).second) n += t->numel();
  return n;
}

std::string row(const std::string& name, const Tensor& t) {
  std::string s = name + " [";
  for (size_t i = 0; i < t.sizes().size(); ++i) s += (i ? ", " : "") + std::to_string(t.sizes()[i].expect_int());
  return s + "] " + std::string(dtype_name(t.dtype()));
}
std::string row(const json& e) {
  std::string s = e[0].get<std::string>() + " [";
  for (size_t i = 0; i < e[1].size(); ++i) s += (i ? ", " : "") + std::to_string(e[1][i].get<int64_t>());
  return s + "] " + e[2].get<std::string>();
}

// Builds `name` under FakeTensorMode (and its _fe_dtype) and compares with HF's fixture; returns
// HF's num_parameters.
int64_t check_state_dict(const std::string& name) {
  SCOPED_TRACE(name);
  const zoo::Config c = config(name);
  const json fx = json::parse(fe_test::read_file(std::string(FE_FIXTURES_DIR) + "/zoo/state_dicts/" + name + ".json"));
  FakeTensorMode fake;
  DTypeScope dt(default_dtype_of(c));
  auto m = zoo::build(c);
  std::vector<std::string> got, want;
  for (auto& [k, t] : m->state_dict()) got.push_back(row(k, t));
  for (const json& e : fx["state_dict"]) want.push_back(row(e));
  EXPECT_EQ(got, want);
  std::vector<std::string> got_np, want_np;
  for (auto& [k, t] : m->named_buffers())
    if (!m->is_persistent_buffer(k)) got_np.push_back(row(k, *t));
  for (const json& e : fx["nonpersistent_buffers"]) want_np.push_back(row(e));
  EXPECT_EQ(got_np, want_np);
  const int64_t n = fx["num_parameters"].get<int64_t>();
  EXPECT_EQ(num_parameters(*m), n);
  return n;
}

bool is_transfer(const Node& n) {
  if (n.op() != NodeOp::CallFunction || n.target() == nullptr) return false;
  const std::string& q = n.target()->qualified;
  return q.rfind("aten::to.", 0) == 0 || q.rfind("aten::_to_copy", 0) == 0;
}

// Destination devices of the graph's transfer nodes, in order ("cuda:1", ...).
std::vector<std::string> transfers(const ExportedProgram& ep) {
  std::vector<std::string> out;
  for (const auto& n : ep.graph.nodes())
    if (is_transfer(*n)) out.push_back(n->val.at(0).device.str());
  return out;
}

// Every user output's device.
std::vector<std::string> output_devices(const ExportedProgram& ep) {
  std::vector<std::string> out;
  for (const Node* n : std::get<std::vector<Node*>>(ep.graph.output_node()->args().at(0)))
    out.push_back(n->val.at(0).device.str());
  return out;
}

// Exports `name` (fake) on cpu, on cuda:0 and as a two-device pipeline; single-device programs
// hold no transfer, the pipeline's transfers are returned for the caller to check.
std::vector<std::string> check_exports(const std::string& name) {
  SCOPED_TRACE(name);
  const zoo::Config c = config(name);
  FakeTensorMode fake;
  DTypeScope dt(default_dtype_of(c));
  {
    auto m = zoo::build(c);
    auto in = m->example_inputs({});
    ExportedProgram ep = export_program(*m, in.args, {.dynamic_shapes = in.dynamic_shapes});
    EXPECT_EQ(transfers(ep), std::vector<std::string>{});
    for (const std::string& d : output_devices(ep)) EXPECT_EQ(d, "cpu");
  }
  {
    DeviceScope dev(Device::parse("cuda:0"));
    auto m = zoo::build(c);
    auto in = m->example_inputs({});
    EXPECT_EQ(in.args.at(0).device().str(), "cuda:0");
    ExportedProgram ep = export_program(*m, in.args, {.dynamic_shapes = in.dynamic_shapes});
    EXPECT_EQ(transfers(ep), std::vector<std::string>{});
    for (const std::string& d : output_devices(ep)) EXPECT_EQ(d, "cuda:0");
  }
  auto m = zoo::build(c);
  zoo::place(*m, zoo::Placement::pipeline(m->units(), {Device::parse("cuda:0"), Device::parse("cuda:1")}));
  auto in = m->example_inputs({});
  EXPECT_EQ(in.args.at(0).device().str(), "cuda:0");
  ExportedProgram ep = export_program(*m, in.args, {.dynamic_shapes = in.dynamic_shapes});
  return transfers(ep);
}

// One export with dynamic batch and seq (seq only where the inputs have one); returns the
// range constraints' text.
std::string check_dynamic_export(const std::string& name, zoo::InputOptions o) {
  SCOPED_TRACE(name);
  const zoo::Config c = config(name);
  FakeTensorMode fake;
  DTypeScope dt(default_dtype_of(c));
  auto m = zoo::build(c);
  auto in = m->example_inputs(o);
  ExportedProgram ep = export_program(*m, in.args, {.dynamic_shapes = in.dynamic_shapes});
  std::string s;
  for (auto& [k, r] : ep.range_constraints) s += k + ":[" + std::to_string(r.lo) + "," + std::to_string(r.hi) + "] ";
  return s;
}

// The tiny config on real CPU tensors with HF's weights: export, run, compare every output.
// `rename` maps checkpoint keys to state_dict names first (save_pretrained writes ViT's legacy
// names); the renamed copy goes through zoo::load_weights like the original would.
void check_eager(const std::string& name, const std::function<std::string(std::string_view)>& rename) {
  SCOPED_TRACE(name);
  const std::string dir = std::string(FE_FIXTURES_DIR) + "/zoo/eager/" + name;
  auto m = zoo::build(config(name));
  std::string weights = dir + "/model.safetensors";
  if (rename) {
    SafetensorsFile ckpt(weights);
    std::vector<std::pair<std::string, Tensor>> renamed;
    for (const std::string& k : ckpt.names()) renamed.emplace_back(rename(k), ckpt.load(k));
    weights = (std::filesystem::temp_directory_path() / ("fe_zoo_" + name + "_renamed.safetensors")).string();
    save_safetensors(weights, renamed);
  }
  zoo::load_weights(*m, weights);
  SafetensorsFile io(dir + "/io.safetensors");
  std::map<std::string, Tensor> inputs_by_name, outputs_by_index;
  std::vector<Tensor> inputs, want;
  for (const std::string& k : io.names()) {
    if (k.rfind("input_", 0) == 0) inputs_by_name[k] = io.load(k);
    if (k.rfind("output_", 0) == 0) outputs_by_index[k] = io.load(k);
  }
  for (auto& [k, t] : inputs_by_name) inputs.push_back(t);  // "input_0_...", "input_1_..." sort in order
  for (auto& [k, t] : outputs_by_index) want.push_back(t);
  ExportedProgram ep = export_program(*m, inputs);
  std::vector<Tensor> got = run(ep, inputs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("output_" + std::to_string(i));
    ASSERT_EQ(fe_test::ints(got[i].sizes()), fe_test::ints(want[i].sizes()));
    Tensor g = got[i].contiguous(), w = want[i].contiguous();
    double max_diff = 0;
    for (int64_t j = 0; j < g.numel(); ++j)
      max_diff = std::max(max_diff, static_cast<double>(std::fabs(g.data<float>()[j] - w.data<float>()[j])));
    EXPECT_LE(max_diff, 1e-4);
  }
}

// The ValueError message of building `json_text`.
std::string build_error(const std::string& json_text) {
  return fe_test::error_of<ValueError>([&] {
    FakeTensorMode fake;
    zoo::build(zoo::Config::parse(json_text, "test config"));
  });
}

}  // namespace zoo_gpt2_test

namespace {
using namespace zoo_gpt2_test;

const char* const kConfigs[] = {"tiny_gpt2", "gpt2_variants", "gpt2_untied", "gpt2_cross", "gpt2_medium_bf16", "gpt2"};

TEST(ZooGpt2, StateDictsMatchTransformers) {
  for (const char* name : kConfigs) check_state_dict(name);
}

TEST(ZooGpt2, RealGpt2ParameterCount) {
  EXPECT_EQ(check_state_dict("gpt2"), 124439808);
  FakeTensorMode fake;
  auto m = zoo::build(config("gpt2"));
  EXPECT_EQ(num_parameters(*m), 124439808);
  // lm_head is wte's tensor, not a copy.
  auto sd = m->state_dict();
  EXPECT_EQ(sd.front().first, "transformer.wte.weight");
  EXPECT_EQ(sd.back().first, "lm_head.weight");
  EXPECT_EQ(sd.front().second.impl(), sd.back().second.impl());
}

TEST(ZooGpt2, Units) {
  FakeTensorMode fake;
  auto m = zoo::build(config("tiny_gpt2"));
  std::vector<std::string> paths;
  for (const zoo::Unit& u : m->units()) paths.push_back(u.path + (u.repeated ? "*" : ""));
  EXPECT_EQ(paths, (std::vector<std::string>{"transformer.wte", "transformer.wpe", "transformer.h.0*",
                                             "transformer.h.1*", "transformer.ln_f", "lm_head"}));
}

TEST(ZooGpt2, ExportsOnEveryPlacement) {
  for (const char* name : kConfigs) {
    // Layers split over two devices: the hidden state moves to cuda:1 at the cut, then back to
    // cuda:0 for the head tied to wte (untied: the head is on cuda:1 with the last layer).
    const std::vector<std::string> t = check_exports(name);
    if (std::string(name) == "gpt2_untied") EXPECT_EQ(t, std::vector<std::string>{"cuda:1"}) << name;
    else EXPECT_EQ(t, (std::vector<std::string>{"cuda:1", "cuda:0"})) << name;
  }
}

TEST(ZooGpt2, DynamicBatchAndSeq) {
  zoo::InputOptions o;
  o.dynamic_batch = o.dynamic_seq = true;
  const std::string r = check_dynamic_export("tiny_gpt2", o);
  EXPECT_NE(r.find(":[1,1024]"), std::string::npos) << r;  // batch
  EXPECT_NE(r.find(":[2,32]"), std::string::npos) << r;    // seq up to n_positions
}

TEST(ZooGpt2, EagerMatchesTransformers) { check_eager("tiny_gpt2", {}); }

// Hub GPT-2 checkpoints were saved from GPT2Model: no "transformer." prefix, plus the attn.bias
// mask buffers HF ignores on load. They bind like HF's own file.
TEST(ZooGpt2, HubStyleCheckpointBinds) {
  const std::string dir = std::string(FE_FIXTURES_DIR) + "/zoo/eager/tiny_gpt2";
  SafetensorsFile ckpt(dir + "/model.safetensors");
  std::vector<std::pair<std::string, Tensor>> hub;
  for (const std::string& k : ckpt.names())
    if (k.rfind("transformer.", 0) == 0) hub.emplace_back(k.substr(12), ckpt.load(k));
  hub.emplace_back("h.0.attn.bias", ones({1, 1, 32, 32}));
  hub.emplace_back("h.1.attn.masked_bias", ones({1}));
  const std::string path = (std::filesystem::temp_directory_path() / "fe_zoo_gpt2_hub.safetensors").string();
  save_safetensors(path, hub);
  auto a = zoo::build(config("tiny_gpt2")), b = zoo::build(config("tiny_gpt2"));
  zoo::load_weights(*a, dir + "/model.safetensors");
  zoo::load_weights(*b, path);
  Tensor ids = zeros({1, 5}, {.dtype = DType::Int64});
  Tensor ya = a->forward_dyn({ids})[0], yb = b->forward_dyn({ids})[0];
  ASSERT_EQ(ya.numel(), yb.numel());
  for (int64_t i = 0; i < ya.numel(); ++i) ASSERT_EQ(ya.data<float>()[i], yb.data<float>()[i]);
  hub.emplace_back("h.0.attn.extra", ones({1}));
  save_safetensors(path, hub);
  EXPECT_NE(fe_test::what_of([&] { zoo::load_weights(*b, path); }).find("unexpected: h.0.attn.extra"),
            std::string::npos);
}

TEST(ZooGpt2, ConfigErrors) {
  EXPECT_NE(build_error(R"({"model_type": "gpt2", "vocab_size": 10, "n_positions": 8, "n_layer": 1, "n_head": 2})")
                .find("'n_embd' is missing"),
            std::string::npos);
  const std::string act = build_error(
      R"({"model_type": "gpt2", "vocab_size": 10, "n_positions": 8, "n_embd": 8, "n_layer": 1, "n_head": 2,
          "activation_function": "mish"})");
  EXPECT_NE(act.find("field 'activation_function' = 'mish' is not supported"), std::string::npos) << act;
  const std::string heads = build_error(
      R"({"model_type": "gpt2", "vocab_size": 10, "n_positions": 8, "n_embd": 10, "n_layer": 1, "n_head": 4})");
  EXPECT_NE(heads.find("field 'n_embd' = 10 must be divisible by n_head = 4"), std::string::npos) << heads;
}

TEST(ZooGpt2, BuiltinDefault) {
  FakeTensorMode fake;
  auto m = zoo::build(zoo::builtin_config("gpt2"));
  auto in = m->example_inputs({});
  ExportedProgram ep = export_program(*m, in.args);
  const auto outs = ep.graph.output_node()->inputs();
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(fe_test::ints(outs[0]->val.at(0).sizes), (fe_test::V{2, 8, 50257}));
}

}  // namespace
