// Higher-order calls of an operator, decoded once for the verifier and the runner: the operator an
// `as_operator` argument names, and auto_functionalized / auto_functionalized_v2: the
// higher-order ops run_decompositions() wraps a mutating op in (torch/_higher_order_ops/
// auto_functionalize.py). The op runs on clones of the tensors it would mutate; the node returns
// the op's outputs (one None slot for an op returning nothing), then those clones.
//   v1: auto_functionalized(op, **op_kwargs): the mutated arguments are the tensors themselves.
//   v2: auto_functionalized_v2(op, **non_mutated_kwargs, _<arg>_base_index=i, [_<arg>_size,
//       _<arg>_stride, _<arg>_storage_offset], _all_bases=[...]): a mutated argument is base i
//       (or an as_strided view of it); every base is cloned and returned.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fakeexport/export/graph.h"
#include "fakeexport/ops/registry.h"

namespace fe::export_detail {

struct AutoFunctionalizedCall {
  /// Where one schema argument of the op comes from.
  struct Slot {
    enum Kind : uint8_t { Arg, Base, Default } kind = Default;
    size_t arg = 0;   ///< Arg: index into the node's args
    size_t base = 0;  ///< Base: index into `bases`
    std::optional<size_t> size, stride, offset;  ///< Base as a view: indices of the view's args
  };
  const OpDef* op = nullptr;
  std::string op_repr;          ///< "torch.ops.mylib.add_one_.default"
  std::vector<Slot> slots;      ///< one per schema argument, in schema order
  std::vector<const Node*> bases;  ///< the tensors cloned and returned (v2: _all_bases; v1: mutated args)
  size_t op_outputs = 1;        ///< output slots before the clones
};

/// The registry op a serialized `as_operator` argument names ("torch.ops.aten._print.default" ->
/// aten::_print.default), as with_effects and auto_functionalized(_v2) carry it; null when unknown.
const OpDef* serialized_operator(std::string_view repr);

/// Decodes `n`; nullopt with `why` set when it is malformed or its op is not in the registry
/// (`unknown_op` then true).
std::optional<AutoFunctionalizedCall> decode_auto_functionalized(const Node& n, std::string& why, bool& unknown_op);

}  // namespace fe::export_detail
