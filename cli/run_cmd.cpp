// `fakeexport run FILE.pt2 [--inputs IN.safetensors] -o OUT.safetensors`: the C++ analogue of
// torch.export.load(f).module()(*args, **kwargs) on CPU tensors with the archive's own weights.
// Inputs default to the archive's sample inputs; outputs are the user outputs in pytree order,
// named output_0 .. output_{n-1}.
#include <iostream>
#include <map>

#include "cli/commands.h"
#include "cli/model_export.h"
#include "fakeexport/core/error.h"
#include "fakeexport/export/run.h"
#include "fakeexport/serde/pt2.h"
#include "fakeexport/serde/safetensors.h"
#include "fakeexport/serde/sample_inputs.h"

namespace fe::cli {
namespace {

struct RunOptions {
  std::string file;
  std::string inputs;  ///< safetensors keyed by user input name; empty: the archive's sample inputs
  std::string output;  ///< -o OUT.safetensors
  bool json = false;
};

int run_run(const RunOptions& o) {
  serde::LoadedProgram lp = serde::load(o.file, load_options(true));
  FE_CHECK(lp.weights_present, ValueError, o.file, ": the program has no weights (", lp.weights_note,
           "); run needs real weights: export it with weights, or save them with `fakeexport export -o F.pt2 "
           "--weights FILE.safetensors`");
  std::vector<std::pair<std::string, Tensor>> named;
  if (o.inputs.empty()) {
    named = serde::read_sample_inputs(o.file, lp.ep);
  } else {
    std::map<std::string, Tensor> given;
    const SafetensorsFile f(o.inputs);
    for (const std::string& k : f.names()) given[k] = f.load(k);
    for (const InputSpec& s : lp.ep.signature.inputs) {
      if (s.kind != InputKind::UserInput || s.constant) continue;
      auto it = given.find(s.name);
      FE_CHECK(it != given.end(), ValueError, o.inputs, ": no tensor named '", s.name, "' (the program's input '",
               s.name, "')");
      named.emplace_back(s.name, it->second);
      given.erase(it);
    }
    FE_CHECK(given.empty(), ValueError, o.inputs, ": '", given.begin()->first, "' is not an input of the program");
  }
  std::vector<Tensor> inputs;
  for (auto& [k, t] : named) inputs.push_back(t);
  const std::vector<Tensor> outs = run(lp.ep, inputs);
  std::vector<std::pair<std::string, Tensor>> result;
  for (size_t k = 0; k < outs.size(); ++k)
    if (outs[k].defined()) result.emplace_back("output_" + std::to_string(k), outs[k].contiguous().clone());
  if (!o.output.empty()) save_safetensors(o.output, result);
  for (const auto& [k, t] : result) std::cout << k << ": " << t.meta().annotation() << "\n";
  if (!o.output.empty()) std::cout << "wrote " << o.output << "\n";
  return 0;
}

}  // namespace

RunFn add_run(CLI::App& cmd) {
  auto o = std::make_shared<RunOptions>();
  cmd.add_option("FILE", o->file, "the .pt2 archive (with weights)")->required();
  cmd.add_option("--inputs", o->inputs, "IN.safetensors: the user inputs by name (default: the archive's sample inputs)");
  cmd.add_option("-o", o->output, "OUT.safetensors: the user outputs as output_0 .. output_{n-1}");
  return [o] { return run_run(*o); };
}

}  // namespace fe::cli
