#include "fakeexport/nn/module.h"

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "fakeexport/core/error.h"

namespace fe::nn {
namespace {
thread_local std::vector<const Module*> t_call_stack;
thread_local uint64_t t_call_epoch = 0;
}  // namespace

ModuleCallScope::ModuleCallScope(const Module& m) {
  t_call_stack.push_back(&m);
  ++t_call_epoch;
}
ModuleCallScope::~ModuleCallScope() {
  t_call_stack.pop_back();
  ++t_call_epoch;
}
const std::vector<const Module*>& module_call_stack() { return t_call_stack; }
uint64_t module_call_epoch() { return t_call_epoch; }

std::vector<Tensor> Module::forward_dyn(const std::vector<Tensor>&) {
  throw UserError(detail::cat(type_name(), " has no generic forward (override forward_dyn to export it)"));
}

void Module::check_new_name(const std::string& name) const {
  FE_CHECK(!name.empty() && name.find('.') == std::string::npos, ValueError, type_name(),
           ": attribute name can't be empty or contain \".\", got '", name, "'");
  auto taken = [&](const auto& v) {
    return std::any_of(v.begin(), v.end(), [&](const auto& s) { return s->name == name; });
  };
  bool child = std::any_of(children_.begin(), children_.end(), [&](const auto& c) { return c.first == name; });
  FE_CHECK(!taken(params_) && !taken(buffers_) && !child, ValueError, type_name(), ": attribute '", name,
           "' already exists");
}

Tensor& Module::register_parameter(std::string name, Tensor t, bool requires_grad) {
  check_new_name(name);
  if (t.defined()) t = make_parameter(std::move(t), requires_grad);
  params_.push_back(std::make_unique<Slot>(Slot{std::move(name), std::move(t), true}));
  return params_.back()->value;
}

Tensor& Module::register_buffer(std::string name, Tensor t, bool persistent) {
  check_new_name(name);
  buffers_.push_back(std::make_unique<Slot>(Slot{std::move(name), std::move(t), persistent}));
  return buffers_.back()->value;
}

void Module::add_child(std::string name, std::shared_ptr<Module> m) {
  check_new_name(name);
  FE_CHECK(m, ValueError, type_name(), ": submodule '", name, "' is null");
  children_.emplace_back(std::move(name), std::move(m));
}

template <class F>
void Module::walk(const std::string& prefix, F&& f) {
  // One path buffer, extended and cut back around each child: a 126-layer model has ~1,400 modules,
  // and export walks them several times (a fresh string per module and level was most of a walk).
  std::string path = prefix;
  auto visit = [&](auto& self, Module& m) -> void {
    f(std::as_const(path), m);
    for (auto& [name, child] : m.children_) {
      const size_t len = path.size();
      if (len) path += '.';
      path += name;
      self(self, *child);
      path.resize(len);
    }
  };
  visit(visit, *this);
}

std::vector<NamedModule> Module::named_modules() {
  std::vector<NamedModule> out;
  std::unordered_set<const Module*> seen;
  // Like PyTorch, a module reachable twice is listed once (first path wins).
  walk("", [&](const std::string& p, Module& m) {
    if (seen.insert(&m).second) out.emplace_back(p, &m);
  });
  return out;
}

std::vector<NamedTensor> Module::named_parameters(bool recurse, bool remove_duplicate) {
  std::vector<NamedTensor> out;
  std::unordered_set<const TensorImpl*> seen;
  auto add = [&](const std::string& prefix, Module& m) {
    for (auto& s : m.params_) {
      if (!s->value.defined()) continue;
      // Shared parameters (tied weights) appear once, under their first name.
      if (remove_duplicate && !seen.insert(s->value.impl()).second) continue;
      out.emplace_back(prefix.empty() ? s->name : prefix + "." + s->name, &s->value);
    }
  };
  if (!recurse) {
    add("", *this);
    return out;
  }
  // named_modules() without its list of paths: each module once, at its first path.
  std::unordered_set<const Module*> modules;
  walk("", [&](const std::string& p, Module& m) {
    if (modules.insert(&m).second) add(p, m);
  });
  return out;
}

std::vector<NamedTensor> Module::named_buffers(bool recurse) {
  std::vector<NamedTensor> out;
  auto add = [&](const std::string& prefix, Module& m) {
    for (auto& s : m.buffers_)
      if (s->value.defined()) out.emplace_back(prefix.empty() ? s->name : prefix + "." + s->name, &s->value);
  };
  if (!recurse) {
    add("", *this);
    return out;
  }
  // named_modules() without its list of paths: each module once, at its first path.
  std::unordered_set<const Module*> modules;
  walk("", [&](const std::string& p, Module& m) {
    if (modules.insert(&m).second) add(p, m);
  });
  return out;
}

std::vector<Tensor> Module::parameters() {
  std::vector<Tensor> out;
  for (auto& [n, t] : named_parameters()) out.push_back(*t);
  return out;
}

std::vector<NamedTensor> Module::named_tensor_slots() {
  std::vector<NamedTensor> out;
  walk("", [&](const std::string& prefix, Module& m) {
    auto full = [&](const std::string& n) { return prefix.empty() ? n : prefix + "." + n; };
    for (auto& s : m.params_)
      if (s->value.defined()) out.emplace_back(full(s->name), &s->value);
    for (auto& s : m.buffers_)
      if (s->value.defined()) out.emplace_back(full(s->name), &s->value);
  });
  return out;
}

void Module::tensor_slots(std::vector<const Tensor*>& out) const {
  for (const auto* list : {&params_, &buffers_})
    for (const auto& s : *list)
      if (s->value.defined()) out.push_back(&s->value);
  for (const auto& [name, child] : children_) child->tensor_slots(out);
}

void Module::structure(std::string& out) const {
  out += type_name();
  out += '{';
  for (const auto* list : {&params_, &buffers_}) {
    for (const auto& s : *list) {
      out += s->name;
      if (!s->value.defined()) {
        out += "=None;";
        continue;
      }
      const TensorMeta& m = s->value.meta();
      out += '=';
      out += dtype_name(m.dtype);
      for (const auto* dims : {&m.sizes, &m.strides}) {
        out += '[';
        for (const SymInt& d : *dims) out.append(d.str()).append(",");
        out += ']';
      }
      out += s->persistent ? ";" : "~;";
    }
    out += '|';
  }
  for (const auto& [name, child] : children_) {
    out += name;
    out += ':';
    child->structure(out);
  }
  out += '}';
}

std::vector<Tensor> call_repeated(Module& block, std::span<const Tensor> inputs, uint64_t key,
                                  const std::function<std::vector<Tensor>()>& run) {
  TraceSink* sink = active_trace_sink();
  return sink ? sink->repeated_block(block, inputs, key, run) : run();
}

const Tensor* Module::first_tensor_slot() const {
  for (const auto& list : {&params_, &buffers_})
    for (const auto& s : *list)
      if (s->value.defined()) return &s->value;
  for (const auto& [name, child] : children_)
    if (const Tensor* t = child->first_tensor_slot()) return t;
  return nullptr;
}

std::vector<std::pair<std::string, Tensor>> Module::state_dict() {
  std::vector<std::pair<std::string, Tensor>> out;
  // Per module (pre-order): its parameters, then its persistent buffers; tied tensors under every name.
  walk("", [&](const std::string& prefix, Module& m) {
    auto full = [&](const std::string& n) { return prefix.empty() ? n : prefix + "." + n; };
    for (auto& s : m.params_)
      if (s->value.defined()) out.emplace_back(full(s->name), s->value);
    for (auto& s : m.buffers_)
      if (s->value.defined() && s->persistent) out.emplace_back(full(s->name), s->value);
  });
  return out;
}

bool Module::is_persistent_buffer(std::string_view dotted) {
  for (auto& [p, m] : named_modules())
    for (auto& s : m->buffers_)
      if ((p.empty() ? s->name : p + "." + s->name) == dotted) return s->persistent;
  throw ValueError(detail::cat(type_name(), ": no buffer named '", dotted, "'"));
}

Module& Module::train(bool on) {
  walk("", [&](const std::string&, Module& m) { m.training_ = on; });
  return *this;
}

bool UnaryModule::torch_nn_in_strict_trace() const {
  const TraceSink* sink = active_trace_sink();
  return sink && sink->strict() && type_name().starts_with("torch.nn.modules.");
}

std::vector<Tensor> UnaryModule::forward_dyn(const std::vector<Tensor>& args) {
  FE_CHECK(args.size() == 1, ValueError, type_name(), ".forward() takes 1 tensor argument but ", args.size(),
           " were given");
  return {(*this)(args[0])};
}

}  // namespace fe::nn
