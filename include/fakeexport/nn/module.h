// nn::Module: parameters, buffers and submodules registered once, with PyTorch's dotted names.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fakeexport/core/tensor.h"
#include "fakeexport/ops/dispatch.h"

namespace fe::nn {

class Module;
/// Name + pointer to the slot holding a tensor (slots are stable for the module's lifetime).
using NamedTensor = std::pair<std::string, Tensor*>;
using NamedModule = std::pair<std::string, Module*>;

class Module {
 public:
  Module() = default;
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  /// Python qualified class name for nn_module_stack ("torch.nn.modules.linear.Linear").
  virtual std::string type_name() const = 0;

  /// Generic entry used by export: positional tensors in, flat tensor outputs out.
  virtual std::vector<Tensor> forward_dyn(const std::vector<Tensor>& args);
  /// Names of forward's parameters (placeholder names of user inputs); default `args_0`, ...
  virtual std::vector<std::string> forward_arg_names() const { return {}; }

  /// Parameters/buffers/modules in registration order, recursively, with dotted names.
  /// remove_duplicate=false lists a tied parameter under each of its names (torch.export does).
  std::vector<NamedTensor> named_parameters(bool recurse = true, bool remove_duplicate = true);
  std::vector<NamedTensor> named_buffers(bool recurse = true);
  std::vector<NamedModule> named_modules();
  std::vector<Tensor> parameters();
  /// Every parameter and buffer slot under every name (tied tensors repeated, non-persistent
  /// buffers included), pre-order: what placement and weight loading rewrite in place.
  std::vector<NamedTensor> named_tensor_slots();
  /// The first parameter or buffer slot in pre-order (null if none): what "the module's device"
  /// reads, without building names.
  const Tensor* first_tensor_slot() const;
  /// Every parameter and buffer slot, pre-order as named_tensor_slots() lists them, without names.
  void tensor_slots(std::vector<const Tensor*>& out) const;
  /// Appends what makes two modules alike to trace: class names, submodule and slot names, each
  /// slot's dtype, sizes and strides (not its device), in pre-order.
  void structure(std::string& out) const;
  /// state_dict(): parameters then persistent buffers per module, PyTorch's order and names.
  std::vector<std::pair<std::string, Tensor>> state_dict();
  /// Whether buffer `dotted_name` is persistent (in state_dict).
  bool is_persistent_buffer(std::string_view dotted_name);

  Module& train(bool on = true);
  Module& eval() { return train(false); }
  bool is_training() const { return training_; }

 protected:
  /// Registers a parameter (an undefined tensor registers `None`); returns its stable slot.
  Tensor& register_parameter(std::string name, Tensor t, bool requires_grad = true);
  Tensor& register_buffer(std::string name, Tensor t, bool persistent = true);
  template <class M>
  std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> m) {
    add_child(std::move(name), m);
    return m;
  }

 private:
  struct Slot {
    std::string name;
    Tensor value;
    bool persistent = true;
  };
  void add_child(std::string name, std::shared_ptr<Module> m);
  void check_new_name(const std::string& name) const;
  template <class F>
  void walk(const std::string& prefix, F&& f);

  std::vector<std::unique_ptr<Slot>> params_;
  std::vector<std::unique_ptr<Slot>> buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  bool training_ = true;
};

/// Marks `m` as executing while alive (nn_module_stack for the tracer).
class ModuleCallScope {
 public:
  explicit ModuleCallScope(const Module& m);
  ~ModuleCallScope();
  ModuleCallScope(const ModuleCallScope&) = delete;
  ModuleCallScope& operator=(const ModuleCallScope&) = delete;
};
/// Modules currently executing on this thread, outermost first.
const std::vector<const Module*>& module_call_stack();
/// Bumped whenever module_call_stack changes (lets the tracer cache its snapshot).
uint64_t module_call_epoch();

/// Calls `run`, a call of `block`, one of a model's repeated blocks (a decoder layer) on `inputs`.
/// Under export the tracer may add again the nodes of an earlier block built and called alike
/// instead of tracing this one (ExportOptions::replay_repeated); `key` tells apart blocks whose
/// calls differ beyond their structure and inputs (a sliding-window layer from a full one).
std::vector<Tensor> call_repeated(Module& block, std::span<const Tensor> inputs, uint64_t key,
                                  const std::function<std::vector<Tensor>()>& run);

/// A module whose forward takes and returns one tensor; `m(x)` records the module call.
class UnaryModule : public Module {
 public:
  Tensor operator()(const Tensor& x, SrcLocArg site = SrcLocArg::current()) {
    ModuleCallScope s(*this);
    CallSiteScope c(torch_nn_in_strict_trace(), site);
    return forward(x);
  }
  /// A torch.nn module (not a transformers one) called inside a strict trace: its ops take the
  /// call site's location.
  bool torch_nn_in_strict_trace() const;
  virtual Tensor forward(const Tensor& x) = 0;
  std::vector<Tensor> forward_dyn(const std::vector<Tensor>& args) override;
  std::vector<std::string> forward_arg_names() const override { return {"input"}; }
};

}  // namespace fe::nn
