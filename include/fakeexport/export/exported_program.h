// ExportedProgram: a functional ATen graph + typed signature + state, as torch.export returns it.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "fakeexport/export/graph.h"
#include "fakeexport/sym/dims.h"
#include "fakeexport/sym/shape_env.h"

namespace fe {
namespace nn { class Module; }

enum class InputKind : uint8_t { UserInput, Parameter, Buffer, ConstantTensor, CustomObj, Token };
enum class OutputKind : uint8_t {
  UserOutput, LossOutput, BufferMutation, ParameterMutation, GradientToParameter, GradientToUserInput,
  UserInputMutation, Token
};
std::string_view input_kind_name(InputKind k);    ///< "PARAMETER"
std::string_view output_kind_name(OutputKind k);  ///< "USER_OUTPUT"

/// One graph input: its placeholder name, kind and, for state, the state_dict key.
struct InputSpec {
  InputKind kind;
  std::string name;
  std::string target;      ///< "fc1.weight"; empty for user inputs; custom objects: their name
  bool persistent = true;  ///< buffers only
  /// A user input export specialized to a constant (`use_cache=False`): its value as recorded
  /// (serialized kind `as_bool`..., Python repr, JSON). Null for every other input.
  Opaque constant;
};
struct OutputSpec {
  OutputKind kind;
  std::string name;
  std::string target;  ///< mutated buffer / input name; empty for user outputs
};
struct GraphSignature {
  std::vector<InputSpec> inputs;
  std::vector<OutputSpec> outputs;
};


/// One entry of the module call graph (root only unless signatures are preserved).
struct ModuleCallEntry {
  std::string fqn;
  std::vector<std::string> inputs, outputs;
  /// Traced root: how many of the last inputs the forward takes by name (export(args, kwargs)).
  size_t kwarg_inputs = 0;
  /// A loaded program's ModuleCallSignature, as serialized: argument names, the pytree specs as
  /// JSON text, forward_arg_names. Absent for traced programs (the writer derives the root's) and
  /// for entries serialized with `signature: null`.
  struct Signature {
    std::vector<std::string> inputs, outputs;
    std::string in_spec, out_spec;
    std::vector<std::string> forward_arg_names;
  };
  std::optional<Signature> signature;
};

struct ExportedProgram {
  /// ep.module()(*inputs): fe::run (export/run.h) on real CPU tensors with this program's weights.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs) const;

  Graph graph;
  GraphSignature signature;
  /// state_dict of the exported module (parameters and persistent buffers), in PyTorch order.
  std::vector<std::pair<std::string, Tensor>> state_dict;
  /// Non-persistent buffers and lifted constants, by target name.
  std::vector<std::pair<std::string, Tensor>> constants;
  /// Ranges of the symbolic input dims, keyed by their printed expression ("s77", "s17*s77"),
  /// in PyTorch's order (input by input, dim by dim; root symbols last).
  std::vector<std::pair<std::string, sym::ValueRange>> range_constraints;
  /// Owns the symbolic sizes in the graph's metadata; null for a static program.
  std::shared_ptr<sym::ShapeEnv> shape_env;
  std::vector<ModuleCallEntry> module_call_graph;
  /// ExportedProgram._guards_code: the trace's guards on inputs as Python source over `L['x']`
  /// (`L['y'].size()[0] == L['x'].size()[0]`). ep.module() checks them in its `_guards_fn`, so a
  /// retrace records them; run_decompositions' program has none.
  std::vector<std::string> guards_code;
  /// The IR dialect (ExportedProgram.verifiers): "TRAINING" from export, "ATEN" once decomposed.
  /// ep.module() unlifts effect tokens only for the dialect they were recorded in.
  std::string dialect = "TRAINING";
  /// OpDefs of a loaded program's ops that our registry lacks (opaque nodes: no meta function;
  /// their recorded output metadata is kept and the verifier does not re-run them).
  std::vector<std::unique_ptr<OpDef>> opaque_ops;
  /// Callables of a loaded program that are neither ops nor known higher-order ops (opaque
  /// CallOther nodes: functorch's vmap helpers, math functions, ...).
  std::vector<std::unique_ptr<Callable>> opaque_callables;
};

/// What verify() checks. Structure is what PyTorch's export verifier checks (graph soundness,
/// signature, range constraints); Full also re-runs every node's meta function on its recorded
/// inputs, which costs as much as the trace did (`fakeexport check` always does it).
enum class VerifyLevel : uint8_t { None, Structure, Full };

struct ExportOptions {
  /// Placeholder names of user inputs; default: the module's forward_arg_names(), else args_0, ...
  std::vector<std::string> input_names;
  /// Which input dims are dynamic, by forward argument name (torch.export's dynamic_shapes).
  DynamicShapes dynamic_shapes;
  /// How much of the verifier runs before returning (VerifyLevel).
  VerifyLevel verify = VerifyLevel::Full;
  /// torch.export(strict=True), the program TorchDynamo captures: parameters, then buffers, each
  /// in order of first use and only if used; torch.nn modules' ops attributed to their call site;
  /// unused Python subscripts dropped (names as if never made).
  bool strict = false;
  /// strict: the attribute path the forward reads a state tensor through, by its state-dict name
  /// (`key_cache_0` read as `static_cache.layers.0.keys`): the placeholder is named after the path.
  std::map<std::string, std::string> state_access_paths;
  /// The last this many inputs are passed by name (torch.export's kwargs): the archive's in_spec
  /// says so, and PyTorch's ep.module() takes them as keywords.
  size_t kwarg_inputs = 0;
  /// false: exported under `torch.no_grad()` (transformers' convert_and_export_with_cache), so
  /// no-grad regions inside are no grad-mode changes and record no wrap_with_set_grad_enabled.
  bool grad_enabled = true;
  /// A model's repeated blocks (nn::call_repeated: decoder layers) built and called alike are
  /// traced until two in a row record the same nodes, then the rest are added from that record
  /// without tracing; the program is the same either way (static shapes only; false: trace all).
  bool replay_repeated = true;
  /// Where set, what the trace did is counted here (ExportStats).
  struct ExportStats* stats = nullptr;
};

/// Counts of a trace's work (ExportOptions::stats).
struct ExportStats {
  size_t blocks_traced = 0;    ///< repeated blocks traced (nn::call_repeated)
  size_t blocks_replayed = 0;  ///< repeated blocks added from an earlier block's record instead
};

/// Traces `module.forward_dyn(args)` under FakeTensorMode into an ExportedProgram. Real parameters
/// and inputs are swapped for fake twins while tracing, so export never reads or allocates data.
ExportedProgram export_program(nn::Module& module, const std::vector<Tensor>& args,
                               const ExportOptions& options = {});

struct PrintOptions {
  /// Read source files to fill `code: ...` in `# File:` comments.
  bool read_source = true;
};
/// Prints exactly as str(ExportedProgram) in PyTorch 2.14.
void print_program(std::ostream& os, const ExportedProgram& ep, const PrintOptions& opts = {});
std::ostream& operator<<(std::ostream& os, const ExportedProgram& ep);
std::string to_string(const ExportedProgram& ep, const PrintOptions& opts = {});

/// Checks real inputs against the program's user inputs: rank, dtype, device, static sizes, sizes
/// related by symbols (`y.size()[0] == 2 * x.size()[0]`) and range constraints. ShapeError
/// "Guard failed: x.size()[0] >= 4 ..." naming the input and dim; DTypeError for dtype/device.
void check_inputs(const ExportedProgram& ep, const std::vector<Tensor>& inputs);

/// Checks the program: graph lint, signature consistency with placeholders/outputs, range
/// constraints, and (Full) every node's metadata equal to its meta function's re-run. Throws InternalError.
void verify(const ExportedProgram& ep, VerifyLevel level = VerifyLevel::Full);

}  // namespace fe
