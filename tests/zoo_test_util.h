// Helpers shared by the model-zoo tests (test_zoo_*.cpp): config lookup and builds, the state_dict
// comparison with transformers' fixtures, device transfers, exports on every placement, eager
// comparisons with HF's outputs and config errors.
#pragma once
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "fakeexport/export/decompose.h"
#include "fakeexport/export/summary.h"
#include "fakeexport/fakeexport.h"
#include "fakeexport/nn/zoo.h"
#include "fakeexport/serde/safetensors.h"
#include "test_util.h"

namespace zoo_test {
namespace zoo = fe::zoo;
using fe_test::V;

inline const std::string kZoo = std::string(FE_FIXTURES_DIR) + "/zoo";

// tests/fixtures/zoo/configs/NAME.json, else the published configs/NAME.json at the repo root.
inline std::string config_path(const std::string& name) {
  const std::string p = kZoo + "/configs/" + name + ".json";
  return std::filesystem::exists(p) ? p : std::string(FE_FIXTURES_DIR) + "/../../configs/" + name + ".json";
}

// HF's default dtype for the config: "_fe_dtype" (as gen_zoo.py builds it), else float32.
inline fe::DType config_dtype(const zoo::Config& c) {
  const std::string d = c.get_string("_fe_dtype", "float32");
  const auto t = fe::parse_dtype(d);
  EXPECT_TRUE(t.has_value()) << d;
  return t.value_or(fe::DType::Float32);
}

// Builds config `name` under its default dtype; fake where the caller holds a FakeTensorMode.
inline std::unique_ptr<zoo::Model> build_named(const std::string& name) {
  const zoo::Config c = zoo::Config::from_file(config_path(name));
  fe::DTypeScope dt(config_dtype(c));
  return zoo::build(c);
}

// Parameter count like HF's num_parameters(): a tied tensor counts once.
inline int64_t num_parameters(zoo::Model& m) {
  std::unordered_set<const fe::TensorImpl*> seen;
  int64_t n = 0;
  for (auto& [name, t] : m.named_parameters())
    if (seen.insert(t->impl()).second) n += t->numel();
  return n;
}

// "name [d0, d1] dtype": a state_dict or buffer entry, ours (tensor) or the fixture's (json).
inline std::string row(const std::string& name, const V& sizes, std::string_view dtype) {
  std::string s = name + " [";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "] " + std::string(dtype);
}
inline std::string row(const std::string& name, const fe::Tensor& t) {
  return row(name, fe_test::ints(t.sizes()), fe::dtype_name(t.dtype()));
}
inline std::string row(const nlohmann::json& e) {
  return row(e[0].get<std::string>(), e[1].get<V>(), e[2].get<std::string>());
}

// Builds `name` fake and compares its state_dict (order, shapes, dtypes), non-persistent buffers,
// parameter count (and model_type, if given) with tests/fixtures/zoo/state_dicts/NAME.json; returns
// HF's parameter count.
inline int64_t expect_state_dict_as_hf(const std::string& name, const std::string& model_type = "") {
  SCOPED_TRACE(name);
  const auto fx = nlohmann::json::parse(fe_test::read_file(kZoo + "/state_dicts/" + name + ".json"));
  fe::FakeTensorMode fake;
  auto m = build_named(name);
  if (!model_type.empty()) {
    EXPECT_EQ(m->model_type(), model_type);
  }
  std::vector<std::string> got, want, got_np, want_np;
  for (auto& [k, t] : m->state_dict()) {
    got.push_back(row(k, t));
    EXPECT_TRUE(t.is_fake()) << k;
  }
  for (const auto& e : fx["state_dict"]) want.push_back(row(e));
  EXPECT_EQ(got, want);
  for (auto& [k, t] : m->named_buffers())
    if (!m->is_persistent_buffer(k)) got_np.push_back(row(k, *t));
  for (const auto& e : fx["nonpersistent_buffers"]) want_np.push_back(row(e));
  EXPECT_EQ(got_np, want_np);
  const int64_t n = fx["num_parameters"].get<int64_t>();
  EXPECT_EQ(num_parameters(*m), n);
  return n;
}

// The device-changing transfers (fe::device_transfers) as "from->to", in graph order.
inline std::vector<std::string> transfers(const fe::ExportedProgram& ep) {
  std::vector<std::string> out;
  for (const fe::DeviceTransfer& t : fe::device_transfers(ep)) out.push_back(t.from.str() + "->" + t.to.str());
  return out;
}

// Every aten.to.* / aten._to_copy node as "from->to", same-device ones included (torch.export
// records HF's x.to(y.device) even where it moves nothing).
inline std::vector<std::string> copies(const fe::ExportedProgram& ep) {
  std::vector<std::string> out;
  for (const auto& n : ep.graph.nodes()) {
    if (n->op() != fe::NodeOp::CallFunction || n->target() == nullptr) continue;
    const std::string& q = n->target()->qualified;
    if (q.rfind("aten::to.", 0) == 0 || q.rfind("aten::_to_copy", 0) == 0)
      out.push_back(n->inputs().at(0)->val.at(0).device.str() + "->" + n->val.at(0).device.str());
  }
  return out;
}

// The devices / concrete shapes of a program's user outputs.
inline std::vector<std::string> output_devices(const fe::ExportedProgram& ep) {
  std::vector<std::string> out;
  for (const fe::Node* n : ep.graph.output_node()->inputs()) out.push_back(n->val.at(0).device.str());
  return out;
}
inline std::vector<V> output_shapes(const fe::ExportedProgram& ep) {
  std::vector<V> out;
  for (const fe::Node* n : ep.graph.output_node()->inputs()) out.push_back(fe_test::ints(n->val.at(0).sizes));
  return out;
}

// The program's range constraints as text: "s0:[1,1024] s1:[2,32] ".
inline std::string ranges(const fe::ExportedProgram& ep) {
  std::string s;
  for (auto& [k, r] : ep.range_constraints) s += k + ":[" + std::to_string(r.lo) + "," + std::to_string(r.hi) + "] ";
  return s;
}

// The model's units as paths, "*" marking repeated ones.
inline std::vector<std::string> unit_paths(zoo::Model& m) {
  std::vector<std::string> paths;
  for (const zoo::Unit& u : m.units()) paths.push_back(u.path + (u.repeated ? "*" : ""));
  return paths;
}

// Exports the model's example inputs for `o`, with their dynamic shapes.
/// Whether a case's dynamic export (`--dynamic batch,seq`, no attention_mask) prints with PyTorch's
/// node names, by its name ("gemma3_text_v3" is a gemma3_text variant). PyTorch numbers nodes after
/// the size arithmetic its trace recorded and dropped, which the tracer records too; Whisper's
/// decoder still differs (where c10's contiguity check runs again, which depends on FakeTensor's
/// dispatch cache), so its prints are compared with nodes renamed in order.
inline bool dynamic_names_exact(std::string_view name) {
  return !name.starts_with("whisper");
}

/// The decode step of golden config NAME (tests/fixtures/zoo_golden) as gen_zoo_kv_golden.py exports
/// it: built under the config's dtype on `device`, wrapped with a cache of `len` tokens for `batch`
/// sequences, exported with the wrapper's hints (the caller holds the FakeTensorMode).
inline fe::ExportedProgram export_golden_decode_step(const std::string& name, const fe::Device& device, int64_t batch,
                                                     int64_t seq, int64_t len = 16, bool dynamic_seq = false) {
  const zoo::Config c = zoo::Config::from_file(std::string(FE_FIXTURES_DIR) + "/zoo_golden/" + name + ".config.json");
  std::unique_ptr<zoo::Model> m;
  {
    fe::DTypeScope dt(c.is_null("dtype") ? fe::DType::Float32 : fe::parse_dtype(c.get_string("dtype")).value());
    fe::DeviceScope on(device);
    m = zoo::with_static_cache(zoo::build(c), batch, len);
  }
  const zoo::ExampleInputs in = m->example_inputs({.batch = batch, .seq = seq, .dynamic_seq = dynamic_seq});
  const zoo::ExportHints h = m->export_hints();
  return fe::export_program(*m, in.args,
                            {.dynamic_shapes = in.dynamic_shapes, .strict = h.strict,
                             .state_access_paths = h.state_access_paths, .kwarg_inputs = h.kwarg_inputs,
                             .grad_enabled = !h.no_grad});
}

inline fe::ExportedProgram export_model(zoo::Model& m, const zoo::InputOptions& o = {}) {
  zoo::ExampleInputs in = m.example_inputs(o);
  return fe::export_program(m, in.args, {.dynamic_shapes = in.dynamic_shapes});
}

// The output shapes of the family's builtin default config, exported (fake) at its example inputs.
inline std::vector<V> builtin_output_shapes(const std::string& model_type) {
  fe::FakeTensorMode fake;
  auto m = zoo::build(zoo::builtin_config(model_type));
  return output_shapes(export_model(*m));
}

// Programs of one config on cpu, on cuda:0 and as a two-device pipeline (cuda:0 / cuda:1).
struct Placements {
  fe::ExportedProgram cpu, cuda, pipeline;
};

// Exports `name` (the caller holds the FakeTensorMode) under its dtype on every placement, the
// pipeline with inputs `o`; checks that the inputs start on cpu / cuda:0 / cuda:0 and that the
// single-device outputs stay there.
inline Placements export_placements(const std::string& name, const zoo::InputOptions& o = {}) {
  SCOPED_TRACE(name);
  fe::DTypeScope dt(config_dtype(zoo::Config::from_file(config_path(name))));  // for the inputs too
  const fe::Device cpu = fe::Device::parse("cpu"), cuda0 = fe::Device::parse("cuda:0");
  auto on = [&](const fe::Device& d, bool pipeline) {
    std::optional<fe::DeviceScope> ds;  // a single-device model built on cuda:0; cpu is the default
    if (!pipeline && d != cpu) ds.emplace(d);
    auto m = build_named(name);
    if (pipeline) zoo::place(*m, zoo::Placement::pipeline(m->units(), {cuda0, fe::Device::parse("cuda:1")}));
    const zoo::ExampleInputs in = m->example_inputs(pipeline ? o : zoo::InputOptions{});
    for (const fe::Tensor& a : in.args) EXPECT_EQ(a.device(), d);
    fe::ExportedProgram ep = fe::export_program(*m, in.args, {.dynamic_shapes = in.dynamic_shapes});
    if (!pipeline) {
      for (const std::string& out : output_devices(ep)) EXPECT_EQ(out, d.str());
    }
    return ep;
  };
  return {on(cpu, false), on(cuda0, false), on(cuda0, true)};
}

// Exports `name` on every placement (the caller holds the FakeTensorMode): no move on cpu or
// cuda:0, exactly `pipeline` ("from->to") across cuda:0 / cuda:1, where a move is what `moves` lists:
// `copies` (every aten.to / _to_copy node) or `transfers` (device-changing ones only, for families
// whose HF forward records same-device .to calls: GPT-2's position embeddings, the masks' casts).
inline Placements expect_moves(const std::string& name, const std::vector<std::string>& pipeline,
                               std::vector<std::string> (*moves)(const fe::ExportedProgram&),
                               const std::vector<std::string>& on_cuda = {}) {
  SCOPED_TRACE(name);
  Placements p = export_placements(name);
  EXPECT_TRUE(moves(p.cpu).empty());
  EXPECT_EQ(moves(p.cuda), on_cuda);
  EXPECT_EQ(moves(p.pipeline), pipeline);
  return p;
}
inline Placements expect_copies(const std::string& name, const std::vector<std::string>& pipeline) {
  return expect_moves(name, pipeline, copies);
}
inline Placements expect_transfers(const std::string& name, const std::vector<std::string>& pipeline,
                                   const std::vector<std::string>& on_cuda = {}) {
  return expect_moves(name, pipeline, transfers, on_cuda);
}

// A llama-style decoder's pipeline: `cut` transfers to cuda:1 at the layer cut (hidden, mask, cos,
// sin), then, when lm_head is tied to embed_tokens.weight, the logits' input back to cuda:0.
struct ExportCase {
  std::string name;
  int64_t cut;
  bool tied;
};
inline void PrintTo(const ExportCase& c, std::ostream* os) { *os << c.name; }

// ExportCase `c` on every placement (pipeline with dynamic batch and seq): transfers only at the cut.
inline void expect_exports(const ExportCase& c) {
  SCOPED_TRACE(c.name);
  fe::FakeTensorMode fake;
  // seq = 8*_seq from an example of 16: on cuda the masked attention pads seq to 8, and PyTorch
  // refuses a plain Dim("seq").
  const Placements p =
      export_placements(c.name, {.seq = 16, .dynamic_batch = true, .dynamic_seq = true, .seq_multiple = 8});
  EXPECT_EQ(p.cpu.graph.nodes().back()->op(), fe::NodeOp::Output);
  EXPECT_TRUE(transfers(p.cpu).empty());
  EXPECT_TRUE(transfers(p.cuda).empty());
  std::vector<std::string> want(c.cut, "cuda:0->cuda:1");
  if (c.tied) want.push_back("cuda:1->cuda:0");
  EXPECT_EQ(transfers(p.pipeline), want);
  EXPECT_EQ(output_devices(p.pipeline).at(0), c.tied ? "cuda:0" : "cuda:1");
  EXPECT_GE(p.pipeline.range_constraints.size(), 2u);
}

// gtest's name for a config: non-alphanumerics as '_'.
inline std::string test_name(std::string s) {
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

// Max |a - b| over two real float32 tensors; infinity (and a failure) if their shapes differ.
inline double max_abs_diff(const fe::Tensor& a, const fe::Tensor& b) {
  EXPECT_EQ(fe_test::ints(a.sizes()), fe_test::ints(b.sizes()));
  if (fe_test::ints(a.sizes()) != fe_test::ints(b.sizes())) return std::numeric_limits<double>::infinity();
  const fe::Tensor x = a.contiguous(), y = b.contiguous();
  double d = 0;
  for (int64_t i = 0; i < x.numel(); ++i) d = std::max(d, std::abs(double(x.data<float>()[i]) - y.data<float>()[i]));
  return d;
}

// Config `name` on real CPU tensors with HF's weights (tests/fixtures/zoo/eager/NAME): a static and
// a dynamic (batch, seq) export, each run on io.safetensors' input_<i>_<arg>, every output within
// 1e-4 of HF's output_<i>.
inline void expect_matches_eager(const std::string& name) {
  SCOPED_TRACE(name);
  const std::string dir = kZoo + "/eager/" + name;
  auto m = build_named(name);
  zoo::load_weights(*m, dir + "/model.safetensors");
  fe::SafetensorsFile io(dir + "/io.safetensors");
  std::map<int, fe::Tensor> in, out;
  for (const std::string& k : io.names()) {
    if (k.rfind("input_", 0) == 0) in[std::stoi(k.substr(6))] = io.load(k);
    if (k.rfind("output_", 0) == 0) out[std::stoi(k.substr(7))] = io.load(k);
  }
  std::vector<fe::Tensor> inputs, want;
  for (auto& [i, t] : in) inputs.push_back(t);
  for (auto& [i, t] : out) want.push_back(t);
  for (bool dynamic : {false, true}) {
    SCOPED_TRACE(dynamic ? "dynamic" : "static");
    const fe::ExportedProgram ep =
        dynamic ? export_model(*m, {.dynamic_batch = true, .dynamic_seq = true}) : fe::export_program(*m, inputs);
    const std::vector<fe::Tensor> got = fe::run(ep, inputs);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      const double d = max_abs_diff(got[i], want[i]);
      std::cout << "[ " << name << " ] output_" << i << ": max |ep.run - HF eager| = " << d << "\n";
      EXPECT_LE(d, 1e-4) << "output_" << i;
    }
  }
}

// The ValueError message of building config text `json`, or "<no exception>".
inline std::string build_error(const std::string& json) {
  return fe_test::error_of<fe::ValueError>([&] {
    fe::FakeTensorMode fake;
    zoo::build(zoo::Config::parse(json, "test config"));
  });
}

/// PyTorch's run_decompositions() of this program failed (`file`'s first line is its error, as
/// gen_zoo_golden.py and sweep_zoo.py write it): ours must raise a UserError carrying that text.
inline void expect_decomposition_refused(const fe::ExportedProgram& ep, const std::string& file) {
  std::string want = fe_test::read_file(file);
  want = want.substr(0, want.find('\n'));
  try {
    fe::run_decompositions(ep, fe::default_decompositions());
    ADD_FAILURE() << "PyTorch's run_decompositions() raised, ours did not: " << want;
  } catch (const fe::UserError& e) {
    EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
  }
}

}  // namespace zoo_test
