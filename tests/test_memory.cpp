// The memory ledger (analysis/memory.h): liveness semantics on small graphs (views share storage,
// a storage dies after its last use, outputs live to the end, in-place results are their input),
// the peak as a formula against static exports, the KV cache, the arena plan, and per-device
// weights against the state dict.
#include <gtest/gtest.h>

#include <map>

#include "fakeexport/analysis/memory.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/fakeexport.h"
#include "fakeexport/nn/zoo.h"
#include "program_builder.h"
#include "test_util.h"

using namespace fe;
using fe_test::Builder;
using fe_test::f32;
using fe_test::syms;

namespace {

const std::string kConfigs = std::string(FE_FIXTURES_DIR) + "/../../configs";

/// MODEL exported as `fakeexport export MODEL` does, at a shape (static) or with dims dynamic.
ExportedProgram export_config(const std::string& path, zoo::InputOptions io, const std::string& pipeline = "") {
  const zoo::Config cfg = zoo::Config::from_file(path);
  FakeTensorMode fake;
  const std::string dtype = cfg.is_null("torch_dtype") ? "float32" : cfg.get_string("torch_dtype");
  DTypeScope dt(dtype == "bfloat16" ? DType::BFloat16 : dtype == "float16" ? DType::Float16 : DType::Float32);
  std::unique_ptr<zoo::Model> m = zoo::build(cfg);
  if (!pipeline.empty()) {
    std::vector<Device> devs;
    for (size_t start = 0; start < pipeline.size();) {
      const size_t end = std::min(pipeline.find(',', start), pipeline.size());
      devs.push_back(Device::parse(pipeline.substr(start, end - start)));
      start = end + 1;
    }
    zoo::place(*m, zoo::Placement::pipeline(m->units(), devs));
  }
  zoo::ExampleInputs in = m->example_inputs(io);
  return export_program(*m, in.args, {.dynamic_shapes = in.dynamic_shapes});
}

}  // namespace

// a = relu(x); b = a.view(32, 32); c = relu(b); d = relu(c); f = b + d; return f
// a lives until f (through its view b); c dies after d; f lives to the end.
TEST(Memory, ViewsKeepTheirBaseAliveAndStoragesDieAfterTheirLastUse) {
  Builder b;
  Node* x = b.input("x", f32({1024}));
  Node* a = b.call("aten::relu", {x}, {f32({1024})});
  Node* v = b.call("aten::view", {a, syms({32, 32})}, {f32({32, 32})});
  Node* c = b.call("aten::relu", {v}, {f32({32, 32})});
  Node* d = b.call("aten::relu", {c}, {f32({32, 32})});
  Node* f = b.call("aten::add.Tensor", {v, d}, {f32({32, 32})});
  b.output({f});
  const analysis::MemoryLedger l = analysis::memory_ledger(b.ep);
  ASSERT_EQ(l.devices.size(), 1u);
  const analysis::DeviceMemory& m = l.devices[0];
  EXPECT_EQ(m.input_bytes, 4096);
  EXPECT_EQ(m.activation_peak_bytes, 3 * 4096);  // a, c, d at d (a's view b is used by f)
  EXPECT_EQ(m.peak_node, d);
  EXPECT_EQ(m.peak_bytes(), 4 * 4096);
  ASSERT_EQ(m.largest_live.size(), 3u);
  std::set<const Node*> live;
  for (const auto& t : m.largest_live) live.insert(t.node);
  EXPECT_EQ(live, (std::set<const Node*>{a, c, d}));
  // Lifetimes: a from its step to f's, c to d's, f to the end.
  std::map<const Node*, std::pair<int, int>> life;
  for (const auto& lt : l.lifetimes) life[lt.node] = {lt.first, lt.last};
  EXPECT_EQ(life[a], std::make_pair(1, 5));
  EXPECT_EQ(life[c], std::make_pair(3, 4));
  EXPECT_EQ(life[f].second, analysis::Lifetime::kEnd);
  EXPECT_EQ(life.count(v), 0u);  // a view allocates nothing
}

// In-place results are their input; a node nothing uses still allocates for its own step.
TEST(Memory, InPlaceSharesItsInputAndUnusedResultsCountAtTheirStep) {
  Builder b;
  Node* x = b.input("x", f32({256}));
  Node* a = b.call("aten::relu", {x}, {f32({256})});
  Node* a2 = b.call("aten::relu_", {a}, {f32({256})});
  b.call("aten::exp", {a2}, {f32({4096})});  // dead, but allocated while a is live
  Node* c = b.call("aten::neg", {a2}, {f32({256})});
  b.output({c});
  const analysis::MemoryLedger l = analysis::memory_ledger(b.ep);
  ASSERT_EQ(l.devices.size(), 1u);
  EXPECT_EQ(l.devices[0].activation_peak_bytes, 1024 + 16384);
  EXPECT_EQ(l.devices[0].peak_node->name(), "exp");
}

// A transfer moves its bytes to the other device, which rounds requests as the CUDA allocator does.
TEST(Memory, TransfersCountTheirBytesAndCudaRoundsEachRequest) {
  Builder b;
  Node* x = b.input("x", f32({25}));
  Node* t = b.call("aten::_to_copy", {x, None{}, None{}, Device::parse("cuda:0"), None{}, false, None{}}, {f32({25}, Device::parse("cuda:0"))});
  Node* r = b.call("aten::relu", {t}, {f32({25}, Device::parse("cuda:0"))});
  b.output({r});
  const analysis::MemoryLedger l = analysis::memory_ledger(b.ep);
  EXPECT_EQ(l.transfer_bytes, 100);
  const analysis::DeviceMemory* g = l.find(Device::parse("cuda:0"));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->activation_peak_bytes, 200);
  EXPECT_EQ(g->activation_peak_allocated_bytes, 1024);
  EXPECT_EQ(l.find(kCPU)->input_bytes, 100);
  EXPECT_EQ(analysis::cuda_round(1), 512);
  EXPECT_EQ(analysis::cuda_round(512), 512);
  EXPECT_EQ(analysis::cuda_round(513), 1024);
}

// Issue 16's criterion: the peak of Llama-3-8B exported with dynamic batch and seq, evaluated at
// five points, equals the ledger of static exports at those points, device by device.
TEST(Memory, FormulaOfDynamicLlama3_8BEqualsStaticExportsAtFivePoints) {
  const std::string cfg = kConfigs + "/meta-llama-3-8b.json";
  const ExportedProgram dyn = export_config(cfg, {.batch = 2, .seq = 16, .dynamic_batch = true, .dynamic_seq = true},
                                            "cuda:0,cuda:1");
  const analysis::MemoryLedger ld = analysis::memory_ledger(dyn);
  std::string bsym, ssym;
  for (const auto& [s, name] : ld.symbol_names) (name == "batch" ? bsym : ssym) = s;
  ASSERT_FALSE(bsym.empty());
  ASSERT_FALSE(ssym.empty());
  for (const auto& [batch, seq] : {std::pair<int64_t, int64_t>{2, 16}, {3, 100}, {8, 512}, {5, 2048}, {16, 33}}) {
    const ExportedProgram st = export_config(cfg, {.batch = batch, .seq = seq}, "cuda:0,cuda:1");
    const analysis::MemoryLedger ls = analysis::memory_ledger(st);
    ASSERT_EQ(ls.devices.size(), ld.devices.size());
    for (const analysis::DeviceMemory& s : ls.devices) {
      const analysis::DeviceMemory* d = ld.find(s.device);
      ASSERT_NE(d, nullptr) << s.device;
      const int64_t b = batch, q = seq;  // lambdas cannot capture structured bindings before clang 16
      auto at = [&](std::string_view sym) { return sym == bsym ? b : sym == ssym ? q : analysis::example_value(dyn, sym); };
      EXPECT_EQ(d->peak_formula().evaluate(at), s.peak_bytes()) << s.device << " at batch " << batch << " seq " << seq
                                                               << ": " << analysis::formula_str(d->peak_formula(), ld.symbol_names);
      // The same point through MemoryOptions::values: the ledger evaluated there.
      const analysis::MemoryLedger le = analysis::memory_ledger(dyn, {.values = {{bsym, batch}, {ssym, seq}}});
      EXPECT_EQ(le.find(s.device)->peak_bytes(), s.peak_bytes()) << s.device << " " << batch << "x" << seq;
    }
  }
}

// A static program's formula is its number; the names users know are those of the first input.
TEST(Memory, StaticProgramsHaveConstantFormulasAndNoSymbols) {
  const ExportedProgram st = export_config(kConfigs + "/meta-llama-3-8b.json", {.batch = 2, .seq = 16});
  const analysis::MemoryLedger l = analysis::memory_ledger(st);
  EXPECT_TRUE(l.symbol_names.empty());
  ASSERT_EQ(l.devices.size(), 1u);
  EXPECT_TRUE(l.devices[0].activation_peak_formula.is_constant());
  EXPECT_EQ(l.devices[0].peak_formula().constant(), l.devices[0].peak_bytes());
}

// Per device, parameters and buffers are the state dict's tensors on that device (tied once).
TEST(Memory, WeightsPerDeviceAreTheStateDictsOnThatDevice) {
  for (const char* name : {"meta-llama-3-8b", "gpt2", "mixtral-8x7b-v0.1", "gemma-2-2b"}) {
    const ExportedProgram ep = export_config(kConfigs + "/" + name + ".json", {}, "cuda:0,cuda:1,cuda:2");
    std::map<std::string, int64_t> want;
    std::set<const void*> seen;
    for (const auto& [k, t] : ep.state_dict)
      if (seen.insert(t.impl()->storage ? static_cast<const void*>(t.impl()->storage.get()) : t.impl()).second)
        want[t.device().normalized().str()] += t.numel() * itemsize(t.dtype());
    for (const auto& [k, t] : ep.constants)
      if (seen.insert(t.impl()->storage ? static_cast<const void*>(t.impl()->storage.get()) : t.impl()).second)
        want[t.device().normalized().str()] += t.numel() * itemsize(t.dtype());
    const analysis::MemoryLedger l = analysis::memory_ledger(ep);
    std::map<std::string, int64_t> got;
    for (const auto& d : l.devices)
      if (d.parameter_bytes + d.buffer_bytes) got[d.device.str()] = d.parameter_bytes + d.buffer_bytes;
    EXPECT_EQ(got, want) << name;
    EXPECT_EQ(got.size(), 3u) << name;
  }
}

// 2 (key, value) x layers x batch x length x kv heads x head dim x itemsize, on each layer's device.
TEST(Memory, KvCacheIsTwoTensorsPerLayerOnTheLayersDevice) {
  const zoo::Config c = zoo::Config::from_file(kConfigs + "/meta-llama-3-8b.json");
  const ExportedProgram ep = export_config(kConfigs + "/meta-llama-3-8b.json", {}, "cuda:0,cuda:1");
  const auto kv = analysis::kv_cache_bytes(ep, 1024, 3);
  const int64_t per_layer = 2 * 3 * 1024 * c.get_int("num_key_value_heads") *
                            (c.get_int("hidden_size") / c.get_int("num_attention_heads")) * 2;  // bfloat16
  ASSERT_EQ(kv.size(), 2u);
  EXPECT_EQ(kv[0].second + kv[1].second, per_layer * c.get_int("num_hidden_layers"));
  EXPECT_EQ(kv[0].second, per_layer * 16);  // the pipeline splits 32 layers evenly
  EXPECT_THROW(analysis::kv_cache_bytes(ep, 10, 0), ValueError);
}

// The arena: no two tensors with overlapping lifetimes overlap in bytes; it holds the peak.
TEST(Memory, ArenaPlanNeverOverlapsLiveTensorsAndHoldsThePeak) {
  const ExportedProgram ep = export_config(kConfigs + "/gpt2.json", {.batch = 2, .seq = 64});
  const analysis::MemoryLedger l = analysis::memory_ledger(ep);
  const auto arenas = analysis::plan_arenas(l);
  ASSERT_EQ(arenas.size(), 1u);
  const auto& slots = arenas[0].slots;
  ASSERT_GT(slots.size(), 100u);
  for (size_t i = 0; i < slots.size(); ++i)
    for (size_t j = i + 1; j < slots.size(); ++j) {
      const auto& p = slots[i];
      const auto& q = slots[j];
      if (p.first > q.last || q.first > p.last) continue;
      EXPECT_TRUE(p.offset + p.bytes <= q.offset || q.offset + q.bytes <= p.offset)
          << p.node->name() << " and " << q.node->name() << " overlap";
    }
  EXPECT_GE(arenas[0].size, l.devices[0].activation_peak_bytes);
  EXPECT_LE(arenas[0].size, l.devices[0].activation_peak_bytes * 3 / 2);
}

// The CUDA caching allocator's reservation: a 100-byte input takes a 2 MiB small-pool segment; a
// 5 MiB activation a 20 MiB segment (split, the 15 MiB rest cached); 16 MiB does not fit the rest and
// takes its own 16 MiB segment; once the 5 MiB block is freed it merges with the rest, and a 3 MiB
// request reuses that block: 38 MiB reserved in all.
TEST(Memory, CudaCachingAllocatorReservesSegmentsAndReusesFreedBlocks) {
  const Device g = Device::parse("cuda:0");
  Builder b;
  Node* x = b.input("x", f32({25}, g));
  Node* a = b.call("aten::relu", {x}, {f32({5 << 18}, g)});
  Node* c = b.call("aten::relu", {a}, {f32({4 << 20}, g)});
  Node* d = b.call("aten::relu", {c}, {f32({3 << 18}, g)});
  b.output({d});
  const analysis::MemoryLedger l = analysis::memory_ledger(b.ep);
  const auto r = analysis::cuda_reserved(b.ep, l);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].first, g);
  EXPECT_EQ(r[0].second, (2 + 20 + 16) << 20);
  // 12 MiB instead takes the cached 15 MiB rest: no new segment.
  c->val = {f32({3 << 20}, g)};
  EXPECT_EQ(analysis::cuda_reserved(b.ep, analysis::memory_ledger(b.ep))[0].second, (2 + 20) << 20);
  // A program on cpu reserves nothing through it.
  Builder cpu;
  Node* y = cpu.input("y", f32({25}));
  cpu.output({cpu.call("aten::relu", {y}, {f32({25})})});
  EXPECT_TRUE(analysis::cuda_reserved(cpu.ep, analysis::memory_ledger(cpu.ep)).empty());
}
