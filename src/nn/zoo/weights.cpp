// Binding a checkpoint to a zoo model: safetensors tensors by state_dict name, as
// load_state_dict(strict=True) after from_pretrained's key renaming and tied-weight handling.
// One binding serves both load_weights (real model) and `export -o --weights FILE` (fake model).
#include <algorithm>
#include <set>
#include <unordered_map>

#include "fakeexport/core/error.h"
#include "fakeexport/nn/zoo.h"
#include "fakeexport/serde/pt2.h"
#include "fakeexport/serde/safetensors.h"

namespace fe::zoo {
namespace {

std::string shape_text(DType d, const std::vector<int64_t>& s) {
  std::string out = std::string(dtype_name(d)) + "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::vector<int64_t> concrete(const Tensor& t) {
  std::vector<int64_t> v;
  for (const SymInt& s : t.sizes()) v.push_back(s.hint());
  return v;
}

std::string list(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size() && i < 8; ++i) s += (i ? ", " : "") + v[i];
  if (v.size() > 8) s += detail::cat(", ... (", v.size(), " in all)");
  return s;
}

class Binding : public serde::WeightsSource {
 public:
  Binding(Model& model, const std::string& path) : model_(model), f_(path) {
    std::set<std::string> keys;
    for (auto& [k, t] : model.state_dict()) keys.insert(k);
    for (const std::string& n : f_.names()) {
      std::string k = model.checkpoint_key(n);
      if (k.empty()) continue;  // a key HF ignores or assembles (GPT-2's attn.bias, Mixtral's experts)
      if (!keys.count(k) || !file_key_.emplace(k, n).second) unexpected_.push_back(n);
    }
    // Names without a key of their own: a tied name reads its twin's, else the model assembles it.
    std::unordered_map<const TensorImpl*, std::string> first_with_key;
    std::vector<nn::NamedTensor> slots;
    for (auto& [name, slot] : model.named_tensor_slots())
      if (keys.count(name)) {
        slots.emplace_back(name, slot);
        if (file_key_.count(name)) first_with_key.emplace(slot->impl(), name);
      }
    for (auto& [name, slot] : slots) {
      if (file_key_.count(name)) {
        const SafetensorsEntry& e = f_.entry(file_key_.at(name));
        if (e.shape != concrete(*slot) || e.dtype != slot->dtype())
          mismatched_.push_back(detail::cat(name, ": file has ", shape_text(e.dtype, e.shape), ", model wants ",
                                            shape_text(slot->dtype(), concrete(*slot))));
      } else if (auto it = first_with_key.find(slot->impl()); it != first_with_key.end()) {
        alias_.emplace(name, it->second);
      } else if (Tensor t = model.checkpoint_tensor(name, f_); t.defined()) {
        if (concrete(t) != concrete(*slot) || t.dtype() != slot->dtype())
          mismatched_.push_back(detail::cat(name, ": assembled from the file as ", shape_text(t.dtype(), concrete(t)),
                                            ", model wants ", shape_text(slot->dtype(), concrete(*slot))));
        assembled_.insert(name);
      } else {
        missing_.push_back(name);
      }
    }
  }

  /// The problems as load_weights words them (one message).
  void check_or_throw(const std::string& path) const {
    FE_CHECK(mismatched_.empty(), ValueError, path, ": wrong shapes or dtypes for the ", model_.model_type(),
             " model: ", list(mismatched_));
    FE_CHECK(missing_.empty() && unexpected_.empty(), ValueError, path, ": does not match the ", model_.model_type(),
             " model's state_dict", missing_.empty() ? "" : "; missing: " + list(missing_),
             unexpected_.empty() ? "" : "; unexpected: " + list(unexpected_));
  }

  std::vector<std::string> problems(const ExportedProgram&) const override {
    std::vector<std::string> out = mismatched_;
    for (const auto& n : missing_) out.push_back("missing '" + n + "'");
    for (const auto& n : unexpected_) out.push_back("unexpected '" + n + "' in " + f_.path());
    return out;
  }

  Tensor load(const std::string& name) const override {
    if (auto a = alias_.find(name); a != alias_.end()) return load(a->second);
    if (auto k = file_key_.find(name); k != file_key_.end()) return f_.load(k->second);
    if (assembled_.count(name)) return model_.checkpoint_tensor(name, f_);
    return Tensor();  // not a checkpoint tensor (non-persistent buffers keep their computed values)
  }

 private:
  Model& model_;
  SafetensorsFile f_;
  std::unordered_map<std::string, std::string> file_key_, alias_;
  std::set<std::string> assembled_;
  std::vector<std::string> missing_, mismatched_, unexpected_;
};

}  // namespace

void load_weights(Model& model, const std::string& path) {
  Binding b(model, path);
  b.check_or_throw(path);
  std::set<std::string> keys;
  for (auto& [k, t] : model.state_dict()) keys.insert(k);
  std::unordered_map<const TensorImpl*, Tensor> loaded;  // old handle -> new (keeps tied tensors tied)
  for (auto& [name, slot] : model.named_tensor_slots()) {
    if (!keys.count(name)) continue;  // non-persistent buffers keep their computed values
    const Tensor old = *slot;
    if (auto it = loaded.find(old.impl()); it != loaded.end()) {
      *slot = it->second;
      continue;
    }
    Tensor t = b.load(name);
    if (old.is_parameter()) t = make_parameter(t, old.requires_grad());
    if (old.device() != t.device()) t = t.to(old.device());
    loaded.emplace(old.impl(), t);
    *slot = t;
  }
}

std::unique_ptr<serde::WeightsSource> checkpoint_source(Model& model, const std::string& path) {
  return std::make_unique<Binding>(model, path);
}

}  // namespace fe::zoo
