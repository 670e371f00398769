// Cost per node (analysis/cost.h). FLOP formulas are those of PyTorch 2.14's
// torch.utils.flop_counter (a separate table there too, keyed by op): 2·m·n·k for every matmul,
// convolutions by output (input, when transposed) points x filter x batch x c_out x c_in x 2,
// attention as its two batched matmuls. `flop_counter_flops` follows the op as it runs eagerly:
// FlopCounterMode sees dispatched ATen ops after CompositeImplicit decomposition (linear as
// addmm/mm, matmul as mm/bmm, but dot and mv are not counted), and on cpu
// scaled_dot_product_attention runs as _scaled_dot_product_flash_attention_for_cpu, which it does
// not count. Our `flops` also counts what it leaves out, by the conventions docs/cost.md lists.
#include "fakeexport/analysis/cost.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_set>

#include "fakeexport/analysis/memory.h"
#include "fakeexport/core/error.h"
#include "fakeexport/export/check.h"
#include "ops/einsum_bmms.h"
#include "ops/sdp_choice.h"

namespace fe::analysis {
namespace {

using Names = std::unordered_set<std::string_view>;

const Names kMatmul = {"mm", "addmm", "bmm", "baddbmm", "_scaled_mm", "linear", "matmul", "einsum", "dot", "mv",
                       "addmv", "outer", "convolution", "_convolution", "conv1d", "conv2d", "conv3d",
                       "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"};
const Names kAttention = {"scaled_dot_product_attention", "_scaled_dot_product_flash_attention_for_cpu",
                          "_scaled_dot_product_flash_attention", "_scaled_dot_product_efficient_attention",
                          "_scaled_dot_product_cudnn_attention"};
// Operations per element, by the usual decompositions: softmax = max, subtract, exp, sum, divide;
// layer/group/batch/RMS norm = mean, subtract, square, mean, rsqrt, multiply, affine multiply and add.
const Names kSoftmax = {"softmax", "_softmax", "log_softmax", "_log_softmax", "_safe_softmax"};
const Names kNorm = {"layer_norm", "native_layer_norm", "group_norm", "native_group_norm", "batch_norm",
                     "native_batch_norm", "_native_batch_norm_legit_no_training", "_native_batch_norm_legit",
                     "rms_norm", "_fused_rms_norm", "instance_norm"};
const Names kReduction = {"sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "prod", "var", "std",
                          "var_mean", "std_mean", "norm", "linalg_vector_norm", "cumsum", "cumprod", "logsumexp",
                          "any", "all", "count_nonzero", "topk", "sort", "argsort", "aminmax", "nansum"};
const Names kMemory = {"_to_copy", "to", "clone", "contiguous", "copy", "copy_", "cat", "stack", "index",
                       "index_select", "gather", "scatter", "embedding", "slice_scatter", "select_scatter",
                       "index_put", "index_put_", "index_copy", "index_copy_", "zeros", "ones", "full", "empty",
                       "empty_strided", "arange", "zeros_like", "ones_like", "full_like", "empty_like", "new_zeros",
                       "new_ones", "new_full", "new_empty", "scalar_tensor", "repeat", "repeat_interleave", "tile",
                       "constant_pad_nd", "pad", "roll", "flip", "_unsafe_view", "lift_fresh_copy", "type_as",
                       "fill_", "zero_", "masked_scatter", "expand_copy", "permute_copy", "view_copy",
                       "_assert_tensor_metadata", "split_with_sizes_copy", "unbind_copy", "diagonal_scatter",
                       "as_strided_scatter", "linspace", "randn", "rand", "randint", "tril_indices", "triu_indices",
                       "one_hot", "bernoulli", "nonzero", "unique", "_unique2", "searchsorted", "bucketize"};
const Names kGather = {"embedding", "index_select", "index", "gather"};

int64_t numel(const TensorMeta& m) { return m.numel().hint(); }
/// a += b, or a typed error when the total leaves int64 (absurd sizes).
void add_to(int64_t& a, int64_t b, std::string_view what) {
  FE_CHECK(!__builtin_add_overflow(a, b, &a), ValueError, "cost: the ", what, " total overflows int64");
}
int64_t nbytes(const TensorMeta& m) { return numel(m) * itemsize(m.dtype); }
/// Bytes a kernel reads from an input view: its elements, but a broadcast (stride-0) view only
/// what its storage span holds.
int64_t read_bytes(const TensorMeta& m) { return std::min(nbytes(m), m.storage_nbytes()); }
int64_t dim(const TensorMeta& m, int64_t d) { return m.sizes[static_cast<size_t>(d < 0 ? d + m.dim() : d)].hint(); }

const TensorMeta* tensor_arg(const Node& n, size_t i) {
  if (i >= n.args().size()) return nullptr;
  const auto* p = std::get_if<Node*>(&n.args()[i]);
  return p && *p && (*p)->val.size() == 1 ? &(*p)->val[0] : nullptr;
}

/// 2·B·Hq·Sq·(D·Sk + Sk·Dv): q @ k^T then scores @ v (flop_counter's sdpa_flop_count).
int64_t sdpa_flops(const TensorMeta& q, const TensorMeta& k, const TensorMeta& v) {
  if (q.dim() < 3 || k.dim() < 3 || v.dim() < 3) return 0;
  int64_t bh = 1;
  for (int64_t d = 0; d + 2 < q.dim(); ++d) bh *= dim(q, d);
  const int64_t sq = dim(q, -2), d = dim(q, -1), sk = dim(k, -2), dv = dim(v, -1);
  return 2 * bh * sq * d * sk + 2 * bh * sq * sk * dv;
}

/// flop_counter's conv_flop_count: (transposed ? input : output) points x filter x batch x c_out x c_in x 2.
int64_t conv_flops(const TensorMeta& x, const TensorMeta& w, const TensorMeta& out, bool transposed) {
  if (x.dim() < 3 || w.dim() < 3) return 0;
  const TensorMeta& points = transposed ? x : out;
  int64_t p = 1, f = 1;
  for (int64_t d = 2; d < points.dim(); ++d) p *= dim(points, d);
  for (int64_t d = 2; d < w.dim(); ++d) f *= dim(w, d);
  return p * f * dim(x, 0) * dim(w, 0) * dim(w, 1) * 2;
}

struct Flops {
  int64_t ours = 0, counter = 0;
};

/// einsum("bhqd,bhkd->bhqk", a, b): ours 2 x output elements x contracted size (of two or more
/// operands; the planner's parse decides which sizes are contracted). FlopCounterMode
/// counts the bmm calls ATen's einsum makes, which its planner decides (ops/einsum_bmms.h): letters
/// one operand holds alone are summed first, pairs with nothing left to contract multiply
/// elementwise (no bmm, no count), a single operand is permutes and sums (0).
Flops einsum_flops(const Node& n, const TensorMeta& out) {
  const auto* eq = n.args().empty() ? nullptr : std::get_if<std::string>(&n.args()[0]);
  const auto* list = n.args().size() > 1 ? std::get_if<std::vector<Node*>>(&n.args()[1]) : nullptr;
  if (!eq || !list) return {};
  std::vector<const TensorMeta*> metas;
  for (const Node* x : *list) {
    if (!x || x->val.size() != 1) return {};
    metas.push_back(&x->val[0]);
  }
  Flops f;
  MetaValue path = None{};
  if (n.args().size() > 2)
    if (const auto* p = std::get_if<std::vector<SymInt>>(&n.args()[2])) path = *p;
  const MetaValue args[3] = {*eq, metas, path};
  for (const ops::BmmSizes& b : ops::einsum_bmms(args))
    f.counter += 2 * b[0].hint() * b[1].hint() * b[2].hint() * b[3].hint();
  if (metas.size() == 1) return f;
  const int64_t contracted = ops::einsum_contracted_size(args);
  f.ours = 2 * numel(out) * contracted;
  return f;
}


Flops matmul_flops(const Node& n, const std::string& name, const TensorMeta& out) {
  const TensorMeta* a = tensor_arg(n, 0);
  if (name == "einsum") return einsum_flops(n, out);
  if (name == "convolution" || name == "_convolution" || name.starts_with("conv")) {
    const TensorMeta* w = tensor_arg(n, 1);
    bool transposed = name.starts_with("conv_transpose");
    if ((name == "convolution" || name == "_convolution") && n.args().size() > 6)
      if (const auto* t = std::get_if<bool>(&n.args()[6])) transposed = *t;
    const int64_t f = a && w ? conv_flops(*a, *w, out, transposed) : 0;
    return {f, f};
  }
  // addmm(bias, m1, m2) / baddbmm(bias, b1, b2): the product of the last two.
  const bool with_bias = name == "addmm" || name == "baddbmm" || name == "addmv";
  const TensorMeta* x = with_bias ? tensor_arg(n, 1) : a;
  if (!x || x->dim() == 0) return {};
  // Every matmul: 2 x output elements x the contracted size (x's last dim).
  const int64_t f = checked_mul(2 * numel(out), dim(*x, -1), "matmul FLOPs");
  // FlopCounterMode has no formula for dot/mv (nor addmv/outer); matmul of 1-D/2-D operands reaches them.
  const TensorMeta* y = tensor_arg(n, with_bias ? 2 : 1);
  const bool vector = name == "dot" || name == "mv" || name == "addmv" || name == "outer" ||
                      (name == "matmul" && y && (y->dim() == 1 || (x->dim() == 1 && y->dim() == 1)));
  return {f, vector ? 0 : f};
}

class Coster {
 public:
  Coster(const ExportedProgram& ep, const std::vector<DeviceCap>& devices, CostReport& r) : ep_(ep), caps_(devices), r_(r) {}

  /// Costs `g`'s nodes, `times` times over (a loop body runs once per iteration).
  void graph(const Graph& g, const std::string& path, int64_t times) {
    for (const auto& up : g.nodes()) {
      const Node& n = *up;
      if (n.op() == NodeOp::CallOther) {
        call_other(g, n, path, times);
        continue;
      }
      if (n.op() != NodeOp::CallFunction || !n.target() || n.val.empty()) continue;
      NodeCost c = node(n);
      if (c.kind == CostKind::None) continue;
      c.graph = path;
      scale(c, times);
      add(std::move(c));
    }
  }

  void finish() {
    for (DeviceCost& d : r_.devices) r_.latency_s += d.time_s;
    r_.latency_s += r_.transfer_s;
  }

 private:
  static void scale(NodeCost& c, int64_t times) {
    c.flops *= times, c.flop_counter_flops *= times, c.bytes_read *= times, c.bytes_written *= times;
  }

  void call_other(const Graph& g, const Node& n, const std::string& path, int64_t times) {
    // Subgraphs run where the op runs; loops once per iteration (scan and map over the leading dim
    // of their inputs; while_loop's count is data: once). cond: both branches are listed, the
    // larger counted (the predicate is data).
    const CallableKind kind = n.callable() ? n.callable()->kind : CallableKind::Opaque;
    int64_t iters = 1;
    if (kind == CallableKind::Scan || kind == CallableKind::MapImpl) {
      const size_t xs = kind == CallableKind::Scan ? 2 : 1;
      if (xs < n.args().size())
        if (const auto* l = std::get_if<std::vector<Node*>>(&n.args()[xs]); l && !l->empty() && (*l)[0] && (*l)[0]->val.size() == 1 && (*l)[0]->val[0].dim() > 0)
          iters = (*l)[0]->val[0].sizes[0].hint();
    }
    std::vector<const Graph*> subs;
    for (const NodeArg& a : n.args())
      if (const auto* p = std::get_if<Node*>(&a); p && *p && (*p)->op() == NodeOp::GetAttr)
        for (const auto& [name, sub] : g.subgraphs())
          if (name == (*p)->attr()) subs.push_back(sub.get());
    if (kind == CallableKind::Cond && subs.size() == 2) {
      CostReport a, b;
      Coster(ep_, caps_, a).graph(*subs[0], path, 1);
      Coster(ep_, caps_, b).graph(*subs[1], path, 1);
      const Graph* big = a.flops >= b.flops ? subs[0] : subs[1];
      graph(*big, join(path, n.name()), times);
      return;
    }
    for (const Graph* s : subs) graph(*s, join(path, n.name()), times * iters);
  }

  static std::string join(const std::string& a, const std::string& b) { return a.empty() ? b : a + "/" + b; }

  NodeCost node(const Node& n) {
    NodeCost c;
    c.node = &n;
    c.target = node_target(n);
    const std::string& name = n.target()->schema.name;
    const TensorMeta& out = n.val[0];
    c.device = out.device.normalized();
    c.dtype = out.dtype;
    const std::vector<int> alias = aliased_args(n);
    const bool writes = std::any_of(alias.begin(), alias.end(), [](int a) { return a < 0; });
    const bool inplace = n.target()->inplace;
    if (!writes && !inplace) return c;  // a view or an op returning its input: no work
    int64_t written = 0;
    for (size_t k = 0; k < n.val.size(); ++k)
      if (k >= alias.size() || alias[k] < 0 || inplace) written += nbytes(n.val[k]);
    int64_t read = 0;
    for (const NodeArg& a : n.args())
      for_each_node(a, [&](Node* in) {
        if (in->val.size() == 1) read += read_bytes(in->val[0]);
      });
    c.bytes_written = written;
    c.bytes_read = read;
    if (kMatmul.count(name)) {
      c.kind = CostKind::Matmul;
      const Flops f = matmul_flops(n, name, out);
      c.flops = f.ours, c.flop_counter_flops = f.counter;
    } else if (kAttention.count(name)) {
      c.kind = CostKind::Attention;
      const TensorMeta *q = tensor_arg(n, 0), *k = tensor_arg(n, 1), *v = tensor_arg(n, 2);
      const int64_t f = q && k && v ? sdpa_flops(*q, *k, *v) : 0;
      // Scores: scale, mask, softmax (5 operations per score) on top of the two matmuls.
      const int64_t scores = q && k && q->dim() >= 3 ? numel(*q) / dim(*q, -1) * dim(*k, -2) : 0;
      c.flops = f + 5 * scores;
      // On cpu the fused kernel (flash for cpu) is not counted; the math path's bmm's are; on
      // accelerators the flash/efficient/cudnn kernels are.
      const auto arg = [&](size_t i, auto dflt) {
        const auto* p = i < n.args().size() ? std::get_if<decltype(dflt)>(&n.args()[i]) : nullptr;
        return p ? *p : dflt;
      };
      const bool flash_cpu =
          name == "_scaled_dot_product_flash_attention_for_cpu" ||
          (c.device.is_cpu() && q && k && v && q->dim() == 4 && k->dim() == 4 && v->dim() == 4 &&
           ops::uses_flash_cpu({.q = *q, .k = *k, .v = *v, .mask = tensor_arg(n, 3), .dropout = arg(4, 0.0),
                                .causal = arg(5, false), .gqa = arg(7, false)}));
      c.flop_counter_flops = flash_cpu ? 0 : f;
    } else if (kSoftmax.count(name)) {
      c.kind = CostKind::Normalization;
      c.flops = 5 * numel(out);
    } else if (kNorm.count(name)) {
      c.kind = CostKind::Normalization;
      c.flops = 8 * numel(out);
    } else if (kReduction.count(name)) {
      c.kind = CostKind::Reduction;
      const TensorMeta* in = tensor_arg(n, 0);
      c.flops = in ? numel(*in) : numel(out);
    } else if (kMemory.count(name)) {
      c.kind = CostKind::Memory;
      // A gather reads the rows it returns (and the indices), not the whole table.
      if (kGather.count(name)) {
        c.bytes_read = written;
        for (size_t i = 1; i < n.args().size(); ++i)
          for_each_node(n.args()[i], [&](Node* in) {
            if (in->val.size() == 1 && !is_floating(in->val[0].dtype)) c.bytes_read += read_bytes(in->val[0]);
          });
      }
    } else {
      c.kind = CostKind::Elementwise;
      for (const TensorMeta& m : n.val) c.flops = std::max(c.flops, numel(m));
    }
    return c;
  }

  const DeviceSpec* spec_of(const Device& d) const {
    for (const DeviceCap& c : caps_)
      if (c.device.normalized() == d) return c.spec;
    return nullptr;
  }

  DeviceCost& device(const Device& d) {
    for (DeviceCost& x : r_.devices)
      if (x.device == d) return x;
    r_.devices.push_back(DeviceCost{d, spec_of(d)});
    return r_.devices.back();
  }

  void add(NodeCost c) {
    DeviceCost& d = device(c.device);
    if (d.spec) {
      double peak = d.spec->peak_flops_for(c.dtype);
      if (peak == 0) peak = d.spec->peak_flops_for(DType::Float32);
      if (peak > 0) c.compute_s = static_cast<double>(c.flops) / peak;
      if (d.spec->bandwidth_bytes_per_s > 0)
        c.memory_s = static_cast<double>(c.bytes_read + c.bytes_written) / d.spec->bandwidth_bytes_per_s;
    }
    const int64_t bytes = c.bytes_read + c.bytes_written;
    add_to(d.flops, c.flops, "FLOP");
    add_to(d.bytes, bytes, "byte");
    d.time_s += c.time_s();
    (c.compute_bound() ? d.compute_bound_s : d.memory_bound_s) += c.time_s();
    add_to(r_.flops, c.flops, "FLOP");
    add_to(r_.flop_counter_flops, c.flop_counter_flops, "FLOP");
    add_to(r_.bytes, bytes, "byte");
    for (OpCost* o : {&r_.by_op[c.target], &r_.by_module[node_module(*c.node)]}) {
      ++o->count;
      o->flops += c.flops;
      o->flop_counter_flops += c.flop_counter_flops;
      o->bytes += bytes;
      o->time_s += c.time_s();
    }
    transfer(c);
    r_.nodes.push_back(std::move(c));
  }

  /// A copy from one device to another crosses the link: half of the catalogue's bidirectional
  /// figure each way.
  void transfer(const NodeCost& c) {
    const std::optional<Device> from = transfer_source(*c.node);
    if (!from) return;
    r_.transfer_bytes += c.bytes_written;
    const DeviceSpec* s = spec_of(*from);
    if (!s) s = spec_of(c.device);
    if (s && s->link_bytes_per_s > 0) r_.transfer_s += static_cast<double>(c.bytes_written) / (s->link_bytes_per_s / 2);
  }

  const ExportedProgram& ep_;
  const std::vector<DeviceCap>& caps_;
  CostReport& r_;
};

}  // namespace

std::string_view cost_kind_name(CostKind k) {
  switch (k) {
    case CostKind::None: return "none";
    case CostKind::Matmul: return "matmul";
    case CostKind::Attention: return "attention";
    case CostKind::Elementwise: return "elementwise";
    case CostKind::Reduction: return "reduction";
    case CostKind::Normalization: return "normalization";
    case CostKind::Memory: return "memory";
    case CostKind::Subgraph: return "subgraph";
  }
  return "?";
}

void add_decode_attention(CostReport& r, const ExportedProgram& ep, int64_t length, int64_t batch,
                          const std::vector<DeviceCap>& devices, const KvLayout& layout) {
  FE_CHECK(length >= 1 && batch >= 1, ValueError, "decode: need a cache length >= 1 and batch >= 1, got ", length,
           " and ", batch);
  std::map<std::string, int64_t, std::less<>> q_width;  // layer prefix -> q_proj's output features
  for (const TensorInput& t : tensor_inputs(ep)) {
    const std::string& name = t.spec->target;
    if (t.spec->kind == InputKind::Parameter && name.ends_with("q_proj.weight") && t.meta->dim() == 2)
      q_width[name.substr(0, name.size() - std::string_view("q_proj.weight").size())] = t.meta->sizes[0].hint();
  }
  for (const KvProjection& p : kv_projections(ep, layout)) {
    const TensorMeta& m = *p.meta;
    const int64_t width = p.cache.width, tokens = p.cache.tokens(length);
    // The query width sets the score FLOPs: the layer's q_proj where there is one, else taken
    // equal to one of key/value (a pair's half carries one; a whole layer's width both).
    const auto q = p.prefix.empty() ? q_width.end() : q_width.find(p.prefix);
    const int64_t qw = q != q_width.end() ? q->second : (p.parts == 2 ? width : width / 2);
    const int64_t bytes = checked_mul(checked_mul(batch, tokens, "decode bytes"), width * itemsize(m.dtype), "decode bytes");
    const int64_t flops = checked_mul(checked_mul(4 * batch, tokens, "decode FLOPs"), qw, "decode FLOPs") / p.parts;
    const Device d = m.device.normalized();
    auto it = std::find_if(r.devices.begin(), r.devices.end(), [&](const DeviceCost& x) { return x.device == d; });
    if (it == r.devices.end()) {
      const DeviceSpec* spec = nullptr;
      for (const DeviceCap& c : devices)
        if (c.device.normalized() == d) spec = c.spec;
      r.devices.push_back(DeviceCost{d, spec});
      it = std::prev(r.devices.end());
    }
    double t = 0;
    bool compute = false;
    if (it->spec) {
      const double peak = it->spec->peak_flops_for(m.dtype);
      const double c = peak > 0 ? static_cast<double>(flops) / peak : 0;
      const double mem = it->spec->bandwidth_bytes_per_s > 0 ? static_cast<double>(bytes) / it->spec->bandwidth_bytes_per_s : 0;
      t = std::max(c, mem);
      compute = c >= mem && c > 0;
    }
    add_to(it->flops, flops, "FLOP"), add_to(it->bytes, bytes, "byte"), it->time_s += t;
    (compute ? it->compute_bound_s : it->memory_bound_s) += t;
    add_to(r.flops, flops, "FLOP"), add_to(r.bytes, bytes, "byte");
    OpCost& o = r.by_op["kv_cache_attention"];
    ++o.count, add_to(o.flops, flops, "FLOP"), add_to(o.bytes, bytes, "byte"), o.time_s += t;
  }
  r.latency_s = r.transfer_s;
  for (const DeviceCost& d : r.devices) r.latency_s += d.time_s;
}

CostReport program_cost(const ExportedProgram& ep, const std::vector<DeviceCap>& devices) {
  CostReport r;
  Coster c(ep, devices, r);
  c.graph(ep.graph, "", 1);
  c.finish();
  return r;
}

}  // namespace fe::analysis
