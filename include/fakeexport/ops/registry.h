// The operator registry: every ATen op we know, declared once (schema + meta + optional kernel).
#pragma once
#include <span>
#include <string_view>
#include <unordered_map>
#include <memory>
#include <vector>

#include "fakeexport/core/source_location.h"
#include "fakeexport/core/symint.h"
#include "fakeexport/ops/schema.h"

namespace fe {

struct OpDef;

/// Read access to the arguments of a call during meta computation; errors name the op.
class MetaArgs {
 public:
  MetaArgs(const OpDef& op, std::span<const MetaValue> v) : op_(op), v_(v) {}
  const OpDef& op() const { return op_; }
  size_t size() const { return v_.size(); }
  const MetaValue& operator[](size_t i) const { return v_[i]; }
  std::span<const MetaValue> values() const { return v_; }

  bool is_none(size_t i) const { return kind_of(v_[i]) == ValueKind::None; }
  /// Whether slot i holds a tensor (not a Python number standing in a Tensor slot).
  bool is_tensor(size_t i) const { return kind_of(v_[i]) == ValueKind::Tensor; }
  const TensorMeta& tensor(size_t i) const;
  const TensorMeta* opt_tensor(size_t i) const { return is_none(i) ? nullptr : &tensor(i); }
  /// Tensor list (`Tensor[]`; for `Tensor?[]` None elements are nullptr).
  const std::vector<const TensorMeta*>& tensor_list(size_t i) const;
  int64_t to_int(size_t i) const;
  /// The SymInt in slot i (keeps symbolic values symbolic; prefer it in shape arithmetic).
  SymInt sym_int(size_t i) const;
  std::optional<int64_t> opt_int(size_t i) const;
  std::optional<double> opt_double(size_t i) const;
  /// Whether slot i holds an int (not a float or bool), e.g. to tell Scalar kinds apart.
  bool is_int(size_t i) const { return kind_of(v_[i]) == ValueKind::Int; }
  double to_double(size_t i) const;
  bool to_bool(size_t i) const;
  const std::string& str(size_t i) const;
  const std::vector<SymInt>& int_list(size_t i) const;
  std::optional<DType> opt_dtype(size_t i) const;
  std::optional<Layout> opt_layout(size_t i) const;
  std::optional<Device> opt_device(size_t i) const;
  std::optional<MemoryFormat> opt_memory_format(size_t i) const;
  /// Category of a Python number in slot i (bool/int/float).
  TypeCategory scalar_category(size_t i) const;

 private:
  const OpDef& op_;
  std::span<const MetaValue> v_;
};

/// What a meta function computes: output metadata, and whether the outputs alias input 0.
struct MetaOut {
  std::vector<TensorMeta> outs;
  /// View ops (view, split, select, no-op `to`): every output shares input 0's storage.
  bool alias_input0 = false;
  /// Output k is input 0 itself (native_dropout in eval mode returns `(input, mask)`); -1: none.
  int self_output = -1;
  /// Non-tensor int returns (`sym_size.int`), in return order.
  std::vector<SymInt> ints;
  void push(TensorMeta m) { outs.push_back(std::move(m)); }
};

/// Pure shape/stride/dtype/device inference. The only place output metadata is computed.
using MetaFn = void (*)(const MetaArgs& args, MetaOut& out);
/// Reference CPU kernel: fills pre-allocated outputs (never called for aliasing outputs).
using KernelFn = void (*)(const OpDef& op, std::span<const IValue> args, std::span<Tensor> outs);

/// A decomposition: the op's computation as calls of other registered ops (through the public API,
/// so each call dispatches, is traced and may decompose further). `args` are complete, in schema
/// order; returns the op's tensor outputs. Runs only inside a DecomposeScope that lists the op.
using DecompFn = std::vector<Tensor> (*)(std::span<const IValue> args, const SrcLocArg& loc);

/// Bytes the eager kernel allocates on its device beyond its outputs while it runs, as PyTorch's
/// dispatch shows them (a CompositeImplicit op's intermediate results, such as sdpa's converted
/// mask and the fused kernel's logsumexp); what memory analysis adds at the op's step.
using ScratchFn = SymInt (*)(const MetaArgs& args);

/// One result of an op whose results mix kinds (CUDA attention: tensors, None, sizes). Its meta
/// pushes an empty placeholder (sizes [0], on output 0's device) for each None and size result.
struct OutputElem {
  enum Kind : uint8_t { Tensor, None, SymInt } kind = Tensor;
  fe::SymInt value;  ///< SymInt results: the size
};
/// The metadata a None or size result holds in a node's `val`: no bytes, on `device` (the op's
/// tensors'). Metas push it and the .pt2 reader fills it in, so the verifier compares like with like.
inline TensorMeta no_result_meta(Device device) {
  TensorMeta m;
  m.sizes = {0};
  m.strides = {1};
  m.device = device;
  return m;
}
/// The kinds (and sizes) of an op's results for these arguments; see OpDef::out_elems.
using OutElemsFn = std::vector<OutputElem> (*)(std::span<const IValue> args);

/// How the dispatcher checks devices before meta runs.
enum class DeviceRule : uint8_t {
  SameDevice,  ///< PyTorch's rule: one device for all tensors, 0-dim cpu tensors exempt
  None,        ///< the op decides (factories, `to`, `_to_copy`, copies)
};

/// One operator. Declared once in its family file (src/ops/<family>.cpp).
struct OpDef {
  FunctionSchema schema;
  std::string qualified;   ///< "aten::linear.default"
  std::string node_name;   ///< FX node name base: the overload packet name, "linear"
  MetaFn meta = nullptr;
  KernelFn cpu = nullptr;
  DeviceRule device_rule = DeviceRule::SameDevice;
  bool side_effect = false;  ///< kept by dead-code elimination even without users
  bool may_return_self = false;  ///< `to`: a no-op conversion returns the input tensor itself
  /// In-place op (`add_`, `index_put_`): `Tensor(a!) self` returned as `Tensor(a!)`; the call
  /// returns `self` itself, whose metadata the meta function must leave unchanged.
  bool inplace = false;
  /// PyTorch always calls this op from Python with only this many leading arguments positional,
  /// the rest as keywords (export's `_assert_tensor_metadata(x, dtype=..., ...)`); -1: no limit.
  int max_positional = -1;
  /// How PyTorch 2.14 decomposes the op (its decomposition table or CompositeImplicitAutograd
  /// body); null when the op is Core ATen or has none.
  DecompFn decomp = nullptr;
  /// Memory the eager kernel holds beyond its outputs while it runs; null when none.
  ScratchFn scratch = nullptr;
  /// Ops whose results are not all tensors: what each one is (recorded on traced nodes as
  /// Node::out_elems); null when every result is a tensor.
  OutElemsFn out_elems = nullptr;

  /// "aten::relu": how PyTorch's error messages name the op (no overload).
  std::string label() const { return schema.ns + "::" + schema.name; }
};

/// Declaration record used by the family files: `{schema text, meta, cpu kernel, device rule}`.
struct OpDecl {
  const char* schema;
  MetaFn meta;
  KernelFn cpu = nullptr;
  DeviceRule device_rule = DeviceRule::SameDevice;
  bool may_return_self = false;
  const char* node_name = nullptr;  ///< FX node name base when not the op's name
  int max_positional = -1;          ///< see OpDef::max_positional
  DecompFn decomp = nullptr;        ///< see OpDef::decomp (declare with designated initializers)
  ScratchFn scratch = nullptr;      ///< see OpDef::scratch
  OutElemsFn out_elems = nullptr;   ///< see OpDef::out_elems
};

class Registry {
 public:
  /// Adds an op; InternalError if declared twice or the schema fails to parse.
  const OpDef& add(const OpDecl& d);
  /// Looks up "aten::linear.default" / "aten::linear" (default overload); UnknownOpError if absent.
  const OpDef& get(std::string_view qualified) const;
  const OpDef* find(std::string_view qualified) const;
  std::span<const OpDef* const> all() const { return order_; }

 private:
  std::vector<std::unique_ptr<OpDef>> ops_;
  std::vector<const OpDef*> order_;
  std::unordered_map<std::string, const OpDef*> by_name_;
};

/// The process registry, filled on first use by each op family's register function.
const Registry& registry();
/// The same registry, for fe::library::define (user ops); everything else reads registry().
Registry& mutable_registry();
/// Shorthand: registry().get(qualified).
inline const OpDef& op(std::string_view qualified) { return registry().get(qualified); }

/// Runs the device rule and the meta function of `op` over metadata-only arguments.
void run_meta(const OpDef& op, std::span<const MetaValue> args, MetaOut& out);

}  // namespace fe
