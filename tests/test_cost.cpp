// Cost (analysis/cost.h) on small programs with counts worked out by hand from torch.utils.flop_counter's
// formulas, the roofline on catalogue devices, and the `cost` command's interface.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <fstream>
#include <map>
#include <set>

#include "fakeexport/analysis/cost.h"
#include "fakeexport/serde/pt2.h"
#include "fakeexport/serde/safetensors.h"
#include "program_builder.h"
#include "test_util.h"

using namespace fe;
using fe_test::Builder;
using fe_test::f32;
using fe_test::syms;

namespace {

const analysis::NodeCost* cost_of(const analysis::CostReport& r, const Node* n) {
  for (const auto& c : r.nodes)
    if (c.node == n) return &c;
  return nullptr;
}

}  // namespace

// linear [4, 8] x [16, 8]^T: 2*4*16*8; relu: one per element; a view: nothing; sum: one per input
// element; softmax: five per element. FlopCounterMode counts only the matmul.
TEST(Cost, FormulasPerKindAndWhatFlopCounterModeCounts) {
  Builder b;
  Node* x = b.input("x", f32({4, 8}));
  Node* w = b.input("w", f32({16, 8}));
  Node* lin = b.call("aten::linear", {x, w, None{}}, {f32({4, 16})});
  Node* r = b.call("aten::relu", {lin}, {f32({4, 16})});
  Node* v = b.call("aten::view", {r, syms({64})}, {f32({64})});
  Node* sm = b.call("aten::softmax.int", {r, int64_t{-1}, None{}}, {f32({4, 16})});
  Node* s = b.call("aten::sum", {v, None{}}, {f32({})});
  b.output({sm, s});
  const analysis::CostReport c = analysis::program_cost(b.ep);
  ASSERT_NE(cost_of(c, lin), nullptr);
  EXPECT_EQ(cost_of(c, lin)->flops, 2 * 4 * 16 * 8);
  EXPECT_EQ(cost_of(c, lin)->flop_counter_flops, 2 * 4 * 16 * 8);
  EXPECT_EQ(cost_of(c, lin)->bytes_read, (32 + 128) * 4);
  EXPECT_EQ(cost_of(c, lin)->bytes_written, 64 * 4);
  EXPECT_EQ(cost_of(c, r)->flops, 64);
  EXPECT_EQ(cost_of(c, r)->flop_counter_flops, 0);
  EXPECT_EQ(cost_of(c, v), nullptr);  // a view does no work
  EXPECT_EQ(cost_of(c, s)->flops, 64);
  EXPECT_EQ(cost_of(c, sm)->flops, 5 * 64);
  EXPECT_EQ(c.flops, 1024 + 64 + 64 + 320);
  EXPECT_EQ(c.flop_counter_flops, 1024);
  EXPECT_EQ(c.by_op.at("aten.linear.default").count, 1);
  EXPECT_EQ(c.by_op.at("aten.relu.default").flops, 64);
}

// einsum, ours: 2 x output elements x the sizes summed over, as the planner's parse finds them (an
// implicit output, an ellipsis summed away); FlopCounterMode's: the bmms ATen's planner makes.
TEST(Cost, EinsumSumsWhatTheEquationContracts) {
  Builder b;
  Node* x = b.input("x", f32({2, 3, 4}));
  Node* y = b.input("y", f32({2, 4, 5}));
  const auto einsum = [&](const char* eq, std::vector<int64_t> out) {
    return b.call("aten::einsum", {std::string(eq), std::vector<Node*>{x, y}, None{}}, {f32(std::move(out))});
  };
  Node* implicit = einsum("...ij,...jk", {2, 3, 5});   // j contracted
  Node* reduced = einsum("bij,bjk->b", {2});           // i, j and k summed
  Node* no_batch = einsum("...ij,...jk->ij", {3, 4});  // the ellipsis and k summed
  b.output({implicit, reduced, no_batch});
  const analysis::CostReport c = analysis::program_cost(b.ep);
  EXPECT_EQ(cost_of(c, implicit)->flops, 2 * (2 * 3 * 5) * 4);
  EXPECT_EQ(cost_of(c, implicit)->flop_counter_flops, 2 * 2 * 3 * 4 * 5);  // one bmm
  EXPECT_EQ(cost_of(c, reduced)->flops, 2 * 2 * (3 * 4 * 5));
  EXPECT_EQ(cost_of(c, no_batch)->flops, 2 * (3 * 4) * (2 * 5));
}

// Attention: two batched matmuls, 2*B*H*Sq*(D*Sk + Sk*Dv); on cpu the fused kernel FlopCounterMode
// does not count, on cuda the one it does. Matmul of a matrix and a vector runs as mv: not counted.
TEST(Cost, AttentionCountsDependOnTheDeviceAndMatrixVectorIsNotCounted) {
  for (const char* dev : {"cpu", "cuda:0"}) {
    const Device d = Device::parse(dev);
    Builder b;
    Node* q = b.input("q", f32({2, 4, 16, 8}, d));
    Node* k = b.input("k", f32({2, 4, 32, 8}, d));
    Node* v = b.input("v", f32({2, 4, 32, 8}, d));
    Node* a = b.call("aten::scaled_dot_product_attention", {q, k, v, None{}, 0.0, false, None{}, false}, {f32({2, 4, 16, 8}, d)});
    b.output({a});
    const analysis::CostReport c = analysis::program_cost(b.ep);
    const int64_t mm = 2 * (2 * 4) * 16 * 8 * 32 * 2;
    EXPECT_EQ(cost_of(c, a)->flops, mm + 5 * (2 * 4 * 16 * 32)) << dev;
    EXPECT_EQ(cost_of(c, a)->flop_counter_flops, d.is_cpu() ? 0 : mm) << dev;
  }
  Builder b;
  Node* m = b.input("m", f32({8, 4}));
  Node* x = b.input("x", f32({4}));
  Node* mv = b.call("aten::matmul", {m, x}, {f32({8})});
  b.output({mv});
  const analysis::CostReport c = analysis::program_cost(b.ep);
  EXPECT_EQ(cost_of(c, mv)->flops, 2 * 8 * 4);
  EXPECT_EQ(cost_of(c, mv)->flop_counter_flops, 0);
}

// The roofline: each node's time is the larger of FLOPs over the device's peak for its dtype and
// bytes over its bandwidth; a big matmul is compute-bound on an H100, an elementwise op memory-bound.
TEST(Cost, RooflineOnACatalogueDevice) {
  const Device g = Device::parse("cuda:0");
  Builder b;
  Node* x = b.input("x", f32({4096, 4096}, g));
  Node* w = b.input("w", f32({4096, 4096}, g));
  Node* mm = b.call("aten::mm", {x, w}, {f32({4096, 4096}, g)});
  Node* r = b.call("aten::relu", {mm}, {f32({4096, 4096}, g)});
  b.output({r});
  const auto caps = analysis::parse_device_list("H100-80GB");
  const analysis::CostReport c = analysis::program_cost(b.ep, caps);
  const analysis::DeviceSpec& h100 = analysis::device_spec("H100-80GB");
  const analysis::NodeCost* m = cost_of(c, mm);
  EXPECT_DOUBLE_EQ(m->compute_s, 2.0 * 4096 * 4096 * 4096 / h100.peak_flops_for(DType::Float32));
  EXPECT_DOUBLE_EQ(m->memory_s, 3.0 * 4096 * 4096 * 4 / h100.bandwidth_bytes_per_s);
  EXPECT_TRUE(m->compute_bound());
  EXPECT_FALSE(cost_of(c, r)->compute_bound());
  ASSERT_EQ(c.devices.size(), 1u);
  EXPECT_DOUBLE_EQ(c.devices[0].time_s, m->time_s() + cost_of(c, r)->time_s());
  EXPECT_DOUBLE_EQ(c.latency_s, c.devices[0].time_s);
  EXPECT_EQ(c.devices[0].bound(), "compute");
}

// The command: JSON fields the issue names, per device totals, and bad input exits 2.
TEST(CostCli, JsonFieldsAndErrors) {
  const std::string cfg = std::string(FE_FIXTURES_DIR) + "/../../configs/meta-llama-3-8b.json";
  auto r = fe_test::run_cli("cost " + cfg + " --batch 1 --seq 128 --devices 2xH100-80GB --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  for (const char* f : {"flops", "flop_counter_flops", "by_op", "devices", "not_counted_by_flop_counter", "latency_s"})
    EXPECT_TRUE(j.contains(f)) << f;
  ASSERT_EQ(j["devices"].size(), 2u);
  int64_t sum = 0;
  for (const auto& [dev, d] : j["devices"].items()) {
    for (const char* f : {"flops", "bytes", "time_s", "bound"}) EXPECT_TRUE(d.contains(f)) << dev << " " << f;
    sum += d["flops"].get<int64_t>();
  }
  EXPECT_EQ(sum, j["flops"].get<int64_t>());
  const auto& mm = j["by_op"]["aten.linear.default"];
  EXPECT_EQ(mm["count"].get<int64_t>(), 32 * 7 + 1);
  // Llama-3-8B's linears: 2 x tokens x (parameters of the projections and the head).
  EXPECT_GT(mm["flops"].get<int64_t>(), 2 * 128 * int64_t{7'000'000'000});
  EXPECT_EQ(fe_test::run_cli("cost " + cfg + " --devices 2xNoSuchGPU").rc, 2);
  EXPECT_EQ(fe_test::run_cli("cost " + cfg + " --top -1").rc, 2);
}

// Issue 17's criterion: flop_counter_flops equals FlopCounterMode's total for ep.module() run on
// the sample inputs (tests/fixtures/cost, gen_flop_counts.py), on every corpus program and zoo
// export, except where the count is data: granitemoe's expert split sizes (routing counts read
// from data), while_loop's iteration count and Funnel's relative-position length (an arange
// between floats read by item(), which sizes its attention's bmm).
TEST(CostCalibration, FlopCounterFlopsEqualFlopCounterModesOnCorpusAndZoo) {
  const std::string fixtures = std::string(FE_FIXTURES_DIR);
  const std::set<std::string> data_dependent = {"hf_granitemoe", "hop_while_loop", "hop_while_loop_dynamic", "hf_funnel"};
  const nlohmann::json corpus = nlohmann::json::parse(fe_test::read_file(fixtures + "/cost/corpus.json"))["programs"];
  ASSERT_GE(corpus.size(), 100u);
  size_t equal = 0;
  for (const auto& [name, e] : corpus.items()) {
    serde::LoadedProgram lp = serde::load(fixtures + "/corpus/" + name + ".pt2");
    const analysis::CostReport c = analysis::program_cost(lp.ep);
    if (data_dependent.count(name)) continue;
    EXPECT_EQ(c.flop_counter_flops, e["total"].get<int64_t>()) << name << ": FlopCounterMode by op " << e["by_op"].dump();
    equal += c.flop_counter_flops == e["total"].get<int64_t>();
  }
  EXPECT_EQ(equal, corpus.size() - data_dependent.size());
  const nlohmann::json zoo = nlohmann::json::parse(fe_test::read_file(fixtures + "/cost/zoo.json"))["cases"];
  ASSERT_GE(zoo.size(), 40u);
  for (const auto& [key, e] : zoo.items()) {
    if (e.contains("error")) {  // a shape PyTorch cannot export: ours refuses it with transformers' message
      fe_test::expect_refused_as_pytorch("cost", fixtures + "/zoo_golden", key, e["error"].get<std::string>());
      continue;
    }
    std::string args = "cost " + fixtures + "/zoo_golden/" + key.substr(0, key.find('@')) + ".config.json --json --batch " +
                       std::to_string(e["batch"].get<int64_t>());
    if (!e["seq"].is_null()) args += " --seq " + std::to_string(e["seq"].get<int64_t>());
    const auto r = fe_test::run_cli(args);
    ASSERT_EQ(r.rc, 0) << args << "\n" << r.out;
    EXPECT_EQ(nlohmann::json::parse(r.out)["flop_counter_flops"].get<int64_t>(), e["total"].get<int64_t>()) << key;
  }
}

// --decode LEN: the one-token step plus every layer's cache read and attention over it; its bytes
// are exactly the KV cache (2 x layers x batch x LEN x kv heads x head dim x 2 bytes for bf16).
TEST(CostCli, DecodeStepReadsTheWholeKvCache) {
  const std::string cfg = std::string(FE_FIXTURES_DIR) + "/../../configs/meta-llama-3-8b.json";
  const auto r = fe_test::run_cli("cost " + cfg + " --decode 1024 --batch 3 --devices H100-80GB --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const int64_t kv = 2 * 32 * 3 * int64_t{1024} * 8 * 128 * 2;
  EXPECT_EQ(j["by_op"]["kv_cache_attention"]["bytes"].get<int64_t>(), kv);
  EXPECT_EQ(j["by_op"]["kv_cache_attention"]["count"].get<int64_t>(), 32);  // one per layer (its k_proj)
  const double step = j["decode"]["step_s"].get<double>();
  EXPECT_NEAR(j["decode"]["tokens_per_s"].get<double>() * step, 3.0, 1e-9);
  EXPECT_DOUBLE_EQ(step, j["latency_s"].get<double>());
  // A step reads every weight once (but only the embedding rows it gathers): at least 8.03e9 bf16
  // parameters less the 128256 x 4096 embedding table, over the bandwidth.
  EXPECT_GT(step, (8.03e9 - 128256.0 * 4096) * 2 / analysis::device_spec("H100-80GB").bandwidth_bytes_per_s);
  EXPECT_EQ(fe_test::run_cli("cost " + cfg + " --decode 16 --seq 8").rc, 2);
}

// A dynamic program is costed at one size, its export's example, and `cost` says which: every
// symbol of PyTorch's range_constraints (the corpus fixture's JSON) with its value, batch and seq
// named, their values those of the sample inputs PyTorch saved; a size read from data (u0) is
// marked as its recorded example. A static program lists none.
TEST(CostCli, SaysWhichSizesADynamicProgramIsCostedAt) {
  const std::string dir = std::string(FE_FIXTURES_DIR) + "/corpus/";
  const auto fixture = [&](const std::string& name) {
    std::ifstream f(dir + name + ".json");
    return nlohmann::json::parse(f);
  };
  auto r = fe_test::run_cli("cost " + dir + "hf_llama_dyn.pt2 --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json ranges = fixture("hf_llama_dyn")["range_constraints"];
  ASSERT_EQ(j["sizes"].size(), ranges.size());
  const SafetensorsFile inputs(dir + "hf_llama_dyn.inputs.safetensors");
  std::vector<int64_t> ids_shape;
  for (const auto& e : inputs.entries())
    if (e.name == "input_ids") ids_shape = e.shape;
  ASSERT_EQ(ids_shape.size(), 2u);
  std::map<std::string, int64_t> by_name;
  for (const auto& z : j["sizes"]) {
    EXPECT_TRUE(ranges.contains(z["symbol"].get<std::string>())) << z;
    EXPECT_EQ(z["from"], "export example") << z;
    by_name[z["name"].get<std::string>()] = z["value"].get<int64_t>();
  }
  EXPECT_EQ(by_name["batch"], ids_shape[0]);
  EXPECT_EQ(by_name["seq"], ids_shape[1]);
  r = fe_test::run_cli("cost " + dir + "hf_llama_dyn.pt2");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("at the export's example sizes: batch (s43) = " + std::to_string(ids_shape[0]) + ", seq (s53) = " +
                       std::to_string(ids_shape[1]) + "\n"),
            std::string::npos)
      << r.out;

  r = fe_test::run_cli("cost " + dir + "hf_granitemoe.pt2 --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["sizes"].size(), fixture("hf_granitemoe")["range_constraints"].size());
  for (const auto& z : j["sizes"]) {
    EXPECT_EQ(z["symbol"].get<std::string>()[0], 'u') << z;
    EXPECT_EQ(z["from"], "recorded example of a size read from data") << z;
  }
  r = fe_test::run_cli("cost " + dir + "hf_llama.pt2");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(r.out.find("example sizes"), std::string::npos) << r.out;
}
