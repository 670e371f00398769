// export_program: swaps state for fake twins, traces forward through the dispatcher into a Graph,
// and builds the typed signature (PyTorch's non-strict torch.export, without Python).
#include <algorithm>
#include <atomic>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "export/dynamic_shapes.h"
#include "export/tracer.h"
#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/export/cond.h"
#include "fakeexport/export/exported_program.h"
#include "fakeexport/nn/module.h"
#include "fakeexport/ops/dispatch.h"

namespace fe {
namespace {
using detail::Tracer;

/// "fc1.weight" -> "fc1_weight" (placeholder names of lifted state).
std::string flat_name(const std::string& dotted) { return detail::placeholder_name(dotted); }

/// Puts fake twins into real state slots for the trace; restores the originals on scope exit.
class StateSwap {
 public:
  /// Tied slots (one real tensor under several names) get one shared twin.
  void fakify(Tensor& slot) {
    if (!slot.defined() || slot.is_fake()) return;
    saved_.emplace_back(&slot, slot);
    auto [it, fresh] = twins_.try_emplace(slot.impl());
    if (fresh) it->second = fake_like(slot);
    slot = it->second;
  }
  ~StateSwap() {
    for (auto& [slot, orig] : saved_) *slot = orig;
  }

 private:
  std::vector<std::pair<Tensor*, Tensor>> saved_;
  std::unordered_map<const TensorImpl*, Tensor> twins_;
};

/// What TorchDynamo's capture changes (ExportOptions::strict): unused subscripts are gone (and
/// named as if never made); parameters then buffers are lifted in order of first use, unused ones
/// not at all; lifted constants and user inputs follow as before. `checks` (Tracer::strict_checks)
/// keep their names' places in the renaming and are then erased.
void lift_as_dynamo(ExportedProgram& ep, const std::vector<Node*>& subscripts, const std::vector<Node*>& checks) {
  Graph& g = ep.graph;
  size_t erased = 0;
  for (size_t i = subscripts.size(); i-- > 0;)  // later subscripts may read earlier ones
    if (subscripts[i]->users().empty()) g.erase(subscripts[i]), ++erased;
  // Order of first read: by node, then by argument within it (linear's weight before its bias).
  std::unordered_map<const Node*, size_t> first_use;
  std::vector<Node*> ins;
  for (const auto& n : g.nodes()) {
    n->inputs_into(ins);
    for (Node* in : ins) first_use.try_emplace(in, first_use.size());
  }
  std::unordered_map<std::string, const InputSpec*> spec_of;
  for (const InputSpec& s : ep.signature.inputs) spec_of.emplace(s.name, &s);
  std::vector<std::pair<size_t, Node*>> params, buffers;
  std::vector<Node*> rest, unused;
  for (Node* p : g.placeholders()) {
    auto s = spec_of.find(p->name());
    const InputKind kind = s == spec_of.end() ? InputKind::UserInput : s->second->kind;
    auto u = first_use.find(p);
    if (kind == InputKind::Parameter || kind == InputKind::Buffer) {
      if (u == first_use.end()) unused.push_back(p);
      else (kind == InputKind::Parameter ? params : buffers).emplace_back(u->second, p);
    } else {
      rest.push_back(p);
    }
  }
  std::sort(params.begin(), params.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::sort(buffers.begin(), buffers.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Node*> order;
  for (auto& [i, p] : params) order.push_back(p);
  for (auto& [i, p] : buffers) order.push_back(p);
  order.insert(order.end(), rest.begin(), rest.end());
  std::set<std::string> dropped_targets;
  for (Node* p : unused) {
    dropped_targets.insert(spec_of.at(p->name())->target);
    g.erase(p);
  }
  g.reorder_placeholders(order);
  std::vector<InputSpec> inputs;
  for (auto* list : {&params, &buffers})
    for (auto& [i, p] : *list) inputs.push_back(*spec_of.at(p->name()));
  for (const InputSpec& s : ep.signature.inputs)
    if (s.kind != InputKind::Parameter && s.kind != InputKind::Buffer) inputs.push_back(s);
  ep.signature.inputs = std::move(inputs);
  // State that is not lifted is not the program's (a tied weight's second name, an unread buffer).
  std::erase_if(ep.constants, [&](const auto& c) { return dropped_targets.count(c.first) > 0; });
  std::erase_if(ep.state_dict, [&](const auto& c) { return dropped_targets.count(c.first) > 0; });
  if (erased || !checks.empty()) g.renumber_names();
  for (size_t i = checks.size(); i-- > 0;) g.erase(checks[i]);  // their names are taken; an and_ reads the two before it
}

}  // namespace

ExportedProgram export_program(nn::Module& module, const std::vector<Tensor>& args, const ExportOptions& options) {
  ExportedProgram ep;
  Graph& g = ep.graph;
  std::unordered_map<const nn::Module*, std::string> paths;
  {
    auto modules = module.named_modules();
    paths.reserve(modules.size());
    for (auto& [p, m] : modules) paths.emplace(m, std::move(p));
  }
  ep.shape_env = std::make_shared<sym::ShapeEnv>();
  sym::ShapeEnv& env = *ep.shape_env;
  Tracer tracer(g, std::move(paths), &env);
  tracer.strict_mode = options.strict;
  tracer.replay_blocks = options.replay_repeated;
  tracer.stats = options.stats;
  // strict: a state tensor's placeholder is named after the path the forward reads it through.
  auto access_name = [&](const std::string& name) -> const std::string& {
    auto it = options.state_access_paths.find(name);
    return it == options.state_access_paths.end() ? name : it->second;
  };

  ep.state_dict = module.state_dict();  // the module's own tensors, before fake twins replace them
  FakeTensorMode fake_mode;
  ExportSemanticsScope export_semantics;  // Python builtins on SymInts as non-strict export runs them
  StateSwap swap;
  // Like torch.export, a tied parameter gets a placeholder per name; the graph uses the last one.
  auto params = module.named_parameters(true, /*remove_duplicate=*/false);
  auto buffers = module.named_buffers();
  ep.signature.inputs.reserve(params.size() + buffers.size() + args.size());
  for (auto& [name, slot] : params) {
    // Tied: non-strict export reads the last name's placeholder; dynamo the first name it met.
    swap.fakify(*slot);
    const bool bound = tracer.traced_node(*slot) != nullptr;
    Node* n = g.placeholder("p_" + flat_name(access_name(name)), slot->meta());
    if (!options.strict || !bound) tracer.bind(*slot, n);
    ep.signature.inputs.push_back({InputKind::Parameter, n->name(), name, true});
  }
  // Persistent buffers are the state_dict's (one walk; asking the module per buffer walks it again).
  std::unordered_set<std::string_view> in_state_dict;
  for (const auto& [name, t] : ep.state_dict) in_state_dict.insert(name);
  for (auto& [name, slot] : buffers) {
    const bool persistent = in_state_dict.count(name) > 0;
    if (!persistent) ep.constants.emplace_back(name, *slot);
    swap.fakify(*slot);
    Node* n = g.placeholder("b_" + flat_name(access_name(name)), slot->meta());
    tracer.bind(*slot, n);
    ep.signature.inputs.push_back({InputKind::Buffer, n->name(), name, persistent});
  }

  std::vector<std::string> names = options.input_names.empty() ? module.forward_arg_names() : options.input_names;
  for (size_t i = names.size(); i < args.size(); ++i) names.push_back("args_" + std::to_string(i));
  names.resize(args.size());  // trailing forward arguments not passed (attention_mask=None)
  std::vector<const TensorMeta*> example_metas;
  for (size_t i = 0; i < args.size(); ++i) {
    FE_CHECK(args[i].defined(), ValueError, "export: example input ", i, " is an undefined tensor");
    example_metas.push_back(&args[i].meta());
  }
  detail::validate_dynamic_shapes(options.dynamic_shapes, names, example_metas);
  std::vector<detail::InputDim> input_dims;
  std::vector<Tensor> fake_args;
  for (size_t i = 0; i < args.size(); ++i) {
    Tensor a = args[i].is_fake() ? args[i] : fake_like(args[i]);
    auto spec = options.dynamic_shapes.find(names[i]);
    if (spec != options.dynamic_shapes.end()) {
      DimVector sizes = detail::make_input_sizes(env, names[i], a.meta(), &spec->second, input_dims,
                                                 options.strict ? std::optional<size_t>(i) : std::nullopt);
      bool symbolic = false;
      for (const SymInt& s : sizes) symbolic |= s.is_symbolic();
      if (symbolic) {
        FE_CHECK(a.meta().is_contiguous(), UserError, "export: input '", names[i], "' (", a.meta().annotation(),
                 ") has dynamic dims but is not contiguous; pass a contiguous example input");
        TensorMeta m = a.meta();
        m.strides = contiguous_strides(sizes);
        m.sizes = std::move(sizes);
        a = fake_like(a);
        a.impl()->meta = std::move(m);
      }
    }
    Node* n = g.placeholder(names[i], a.meta());
    if (!tracer.first_user_input) tracer.first_user_input = n;
    tracer.bind(a, n);
    fake_args.push_back(a);
    ep.signature.inputs.push_back({InputKind::UserInput, n->target_name(), "", true});
  }

  std::vector<Tensor> outs;
  {
    TraceScope scope(&tracer);
    env.set_tracer(&tracer);
    struct Uninstall {
      sym::ShapeEnv& env;
      ~Uninstall() { env.set_tracer(nullptr); }
    } uninstall{env};
    outs = module.forward_dyn(fake_args);
  }
  // produce_guards: what dynamic_shapes promised must still hold after the trace.
  detail::apply_spec_equalities(env, input_dims);
  detail::check_constraints(env, input_dims);
  ep.range_constraints = detail::range_constraints(env, input_dims);

  std::vector<Node*> out_nodes;
  for (const Tensor& t : outs) {
    FE_CHECK(t.defined(), ValueError, "export: forward returned an undefined tensor");
    out_nodes.push_back(tracer.node_of(t));
  }
  g.output(out_nodes);
  for (Node* n : out_nodes) ep.signature.outputs.push_back({OutputKind::UserOutput, n->name(), ""});

  // Lifted constants sit between buffers and user inputs, like PyTorch's CONSTANT_TENSOR inputs.
  if (!tracer.constants.empty()) {
    size_t pos = 0;
    while (pos < ep.signature.inputs.size() && ep.signature.inputs[pos].kind != InputKind::UserInput) ++pos;
    for (size_t i = 0; i < tracer.constants.size(); ++i) {
      const auto& c = tracer.constants[i];
      ep.signature.inputs.insert(ep.signature.inputs.begin() + static_cast<long>(pos + i),
                                 {InputKind::ConstantTensor, c.node_name, c.target, true});
      ep.constants.emplace_back(c.target, c.value);
    }
  }

  if (options.strict) lift_as_dynamo(ep, tracer.subscripts, tracer.strict_checks);
  // Which input a size is read from: non-strict export re-reads it from the last input that has it,
  // dynamo from the first.
  if (!env.symbols().empty()) detail::fold_symbolic_nodes(g, env, /*last_input_wins=*/!options.strict);
  // torch.no_grad() regions become wrap_with_set_grad_enabled calls (replace_set_grad_with_hop_pass),
  // after the symbolic sizes are re-expressed (apply_runtime_assertion_pass runs first in
  // _produce_aten_artifact, so sym nodes are named while the region's nodes are still in the graph).
  // Under an outer torch.no_grad() they change no grad mode and record nothing.
  if (options.grad_enabled) detail::outline_grad_regions(g, tracer.grad_regions);

  // No dead-code elimination here: PyTorch 2.14's export keeps unused pure ops (checked by
  // tests/fixtures/export_ops_cpu.txt); DeadCodeElimination is a separate, opt-in pass.
  ModuleCallEntry root{"", {}, {}};
  FE_CHECK(options.kwarg_inputs <= args.size(), ValueError, "export: ", options.kwarg_inputs,
           " keyword inputs of ", args.size());
  root.kwarg_inputs = options.kwarg_inputs;
  for (const auto& s : ep.signature.inputs)
    if (s.kind == InputKind::UserInput) root.inputs.push_back(s.name);
  for (const auto& s : ep.signature.outputs) root.outputs.push_back(s.name);
  ep.module_call_graph.push_back(std::move(root));
  if (options.verify != VerifyLevel::None) verify(ep, options.verify);
  return ep;
}

}  // namespace fe
