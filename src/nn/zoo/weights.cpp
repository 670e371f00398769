// Binding a checkpoint to a zoo model: safetensors tensors by state_dict name, as
// load_state_dict(strict=True) after from_pretrained's tied-weight handling.
#include <algorithm>
#include <set>
#include <unordered_map>

#include "fakeexport/core/error.h"
#include "fakeexport/nn/zoo.h"
#include "fakeexport/serde/safetensors.h"

namespace fe::zoo {

void load_weights(Model& model, const std::string& path) {
  SafetensorsFile f(path);
  std::set<std::string> keys;
  for (auto& [k, t] : model.state_dict()) keys.insert(k);
  std::unordered_map<const TensorImpl*, Tensor> loaded;  // old handle -> new (keeps tied tensors tied)
  std::vector<std::string> missing, mismatched, unexpected;
  // Our name -> the file's key, through the model's checkpoint naming rules.
  std::unordered_map<std::string, std::string> file_key;
  for (const std::string& n : f.names()) {
    std::string k = model.checkpoint_key(n);
    if (k.empty()) continue;  // a key HF ignores on load (GPT-2's attn.bias masks)
    if (!keys.count(k) || !file_key.emplace(k, n).second) unexpected.push_back(n);
  }
  for (auto& [name, slot] : model.named_tensor_slots()) {
    if (!keys.count(name)) continue;  // non-persistent buffers keep their computed values
    const Tensor old = *slot;
    auto fk = file_key.find(name);
    if (fk == file_key.end()) {
      // A tied weight written once (save_pretrained drops lm_head.weight when tied to the embedding).
      if (auto it = loaded.find(old.impl()); it != loaded.end()) {
        *slot = it->second;
      } else if (Tensor t = model.checkpoint_tensor(name, f); t.defined()) {
        FE_CHECK(std::equal(t.sizes().begin(), t.sizes().end(), old.sizes().begin(), old.sizes().end(),
                            [](const SymInt& a, const SymInt& b) { return a.expect_int() == b.expect_int(); }) &&
                     t.dtype() == old.dtype(),
                 ValueError, path, ": ", name,
                 " assembled from the checkpoint has the wrong shape or dtype");
        if (old.is_parameter()) t = make_parameter(t, old.requires_grad());
        loaded.emplace(old.impl(), t);
        *slot = t;
      } else {
        missing.push_back(name);
      }
      continue;
    }
    const SafetensorsEntry& e = f.entry(fk->second);
    const auto sizes = old.sizes();
    std::vector<int64_t> want;
    for (const SymInt& s : sizes) want.push_back(s.expect_int());
    if (e.shape != want || e.dtype != old.dtype()) {
      std::string ws, gs;
      for (int64_t v : want) ws += (ws.empty() ? "" : ", ") + std::to_string(v);
      for (int64_t v : e.shape) gs += (gs.empty() ? "" : ", ") + std::to_string(v);
      mismatched.push_back(detail::cat(name, ": file has ", dtype_name(e.dtype), "[", gs, "], model wants ",
                                       dtype_name(old.dtype()), "[", ws, "]"));
      continue;
    }
    Tensor t = f.load(fk->second);
    if (old.is_parameter()) t = make_parameter(t, old.requires_grad());
    if (old.device() != t.device()) t = t.to(old.device());
    loaded.emplace(old.impl(), t);
    *slot = t;
  }
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size() && i < 8; ++i) s += (i ? ", " : "") + v[i];
    if (v.size() > 8) s += detail::cat(", ... (", v.size(), " in all)");
    return s;
  };
  FE_CHECK(mismatched.empty(), ValueError, path, ": wrong shapes or dtypes for the ", model.model_type(), " model: ",
           list(mismatched));
  FE_CHECK(missing.empty() && unexpected.empty(), ValueError, path, ": does not match the ", model.model_type(),
           " model's state_dict", missing.empty() ? "" : "; missing: " + list(missing),
           unexpected.empty() ? "" : "; unexpected: " + list(unexpected));
}

}  // namespace fe::zoo
