// The verifier: graph lint, signature/placeholder agreement, and every node's metadata re-derived
// by its op's meta function (the same function the tracer ran).
#include "fakeexport/core/error.h"
#include "fakeexport/export/exported_program.h"

namespace fe {
namespace {

bool same_meta(const TensorMeta& a, const TensorMeta& b) {
  return a.sizes == b.sizes && a.strides == b.strides && a.storage_offset == b.storage_offset &&
         a.dtype == b.dtype && a.device == b.device && a.layout == b.layout;
}

std::string describe(const TensorMeta& m) {
  return m.annotation() + " strides " + detail::cat("(", m.strides.size(), " dims) on ") + m.device.str();
}

}  // namespace

void verify(const ExportedProgram& ep) {
  const Graph& g = ep.graph;
  g.lint();
  auto phs = g.placeholders();
  FE_INTERNAL_ASSERT(phs.size() == ep.signature.inputs.size(), "verify: ", phs.size(), " placeholders but ",
                     ep.signature.inputs.size(), " input specs");
  for (size_t i = 0; i < phs.size(); ++i)
    FE_INTERNAL_ASSERT(phs[i]->target_name() == ep.signature.inputs[i].name, "verify: placeholder ", i, " is '",
                       phs[i]->target_name(), "' but the signature says '", ep.signature.inputs[i].name, "'");
  const auto& outs = std::get<std::vector<Node*>>(g.output_node()->args()[0]);
  FE_INTERNAL_ASSERT(outs.size() == ep.signature.outputs.size(), "verify: ", outs.size(), " outputs but ",
                     ep.signature.outputs.size(), " output specs");
  for (size_t i = 0; i < outs.size(); ++i)
    FE_INTERNAL_ASSERT(outs[i]->name() == ep.signature.outputs[i].name, "verify: output ", i, " is '",
                       outs[i]->name(), "' but the signature says '", ep.signature.outputs[i].name, "'");

  for (const auto& up : g.nodes()) {
    const Node& n = *up;
    if (n.op() == NodeOp::GetItem) {
      const Node& src = *n.inputs()[0];
      FE_INTERNAL_ASSERT(n.val.size() == 1 && same_meta(n.val[0], src.val[static_cast<size_t>(n.index())]),
                         "verify: getitem '", n.name(), "' disagrees with '", src.name(), "'[", n.index(), "]");
      continue;
    }
    if (n.op() != NodeOp::CallFunction) continue;
    if (!n.target()->meta) continue;  // an opaque op of a loaded program: its recorded metadata stands
    std::vector<MetaValue> margs;
    margs.reserve(n.args().size());
    for (const NodeArg& a : n.args()) {
      margs.push_back(map_tensors<const TensorMeta*>(a, [&](Node* in) -> const TensorMeta* {
        FE_INTERNAL_ASSERT(in->val.size() == 1, "verify: '", n.name(), "' takes '", in->name(),
                           "' as a tensor but it has ", in->val.size(), " tensor values");
        return &in->val[0];
      }));
    }
    MetaOut mo;
    try {
      run_meta(*n.target(), margs, mo);
    } catch (const UserError& e) {
      throw InternalError(detail::cat("verify: meta of '", n.name(), "' (", n.target()->qualified,
                                      ") rejects its recorded arguments: ", e.what()));
    }
    FE_INTERNAL_ASSERT(mo.outs.size() == n.val.size(), "verify: '", n.name(), "' records ", n.val.size(),
                       " outputs, meta gives ", mo.outs.size());
    for (size_t k = 0; k < mo.outs.size(); ++k)
      FE_INTERNAL_ASSERT(same_meta(mo.outs[k], n.val[k]), "verify: '", n.name(), "' output ", k, " records ",
                         describe(n.val[k]), ", meta gives ", describe(mo.outs[k]));
  }
}

}  // namespace fe
