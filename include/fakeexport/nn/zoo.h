// The model zoo: HuggingFace architectures rebuilt on fe::nn from the fields of a config.json, with
// state_dict names, shapes and dtypes equal to transformers' for the same config; plus placement of
// a built model over devices by module-path prefix (what `device_map` does in HuggingFace).
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fakeexport/analysis/kv_layout.h"
#include "fakeexport/core/device.h"
#include "fakeexport/core/dtype.h"
#include "fakeexport/nn/module.h"
#include "fakeexport/sym/dims.h"

namespace fe {
class SafetensorsFile;
namespace serde {
class WeightsSource;
}
}  // namespace fe

namespace fe::zoo {

/// A config.json read strictly: getters name the missing or ill-typed field and the file.
class Config {
 public:
  /// Parses JSON text; `origin` names it in errors (a path, or "built-in gpt2").
  static Config parse(std::string_view text, std::string origin);
  /// Reads `path`, a config.json or a directory holding one; a file over `max_bytes` is a
  /// LimitError (read nothing: real configs are a few KB).
  static Config from_file(const std::string& path, int64_t max_bytes = kDefaultMaxJsonBytes);
  static constexpr int64_t kDefaultMaxJsonBytes = int64_t{16} << 20;  ///< --max-json-bytes

  const std::string& origin() const;
  /// The `model_type` field (required).
  std::string model_type() const;
  bool has(std::string_view key) const;
  /// Whether the field is absent or JSON null.
  bool is_null(std::string_view key) const;
  int64_t get_int(std::string_view key) const;
  int64_t get_int(std::string_view key, int64_t dflt) const;
  double get_double(std::string_view key) const;
  double get_double(std::string_view key, double dflt) const;
  bool get_bool(std::string_view key, bool dflt) const;
  std::string get_string(std::string_view key) const;
  std::string get_string(std::string_view key, std::string dflt) const;
  /// An array of integers (mlp_only_layers); absent or null: empty.
  std::vector<int64_t> get_int_list(std::string_view key) const;
  /// A nested object (rope_scaling, encoder, decoder); errors name it as "encoder.hidden_size".
  Config sub(std::string_view key) const;
  /// `key` as errors name it: with the path of a nested config ("vision_config.patch_size").
  std::string field_name(std::string_view key) const;
  /// Number of entries of an object or array field (id2label), or dflt when absent.
  int64_t size_of(std::string_view key, int64_t dflt) const;
  /// The JSON text of the whole config (for fixtures and messages).
  std::string dump() const;

  struct Impl;
 private:
  explicit Config(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

/// A stretch of the forward pass that lives on one device: "model.embed_tokens", "model.layers.3".
struct Unit {
  std::string path;
  bool repeated = false;  ///< one of the repeated blocks --pipeline splits evenly
};

/// Example-input request: sizes, and which of batch/seq are dynamic with their ranges.
struct InputOptions {
  int64_t batch = -1;  ///< -1: the family's default (mlp 4, others 2)
  int64_t seq = -1;    ///< -1: the family's default (8); images use the config's image_size
  bool dynamic_batch = false, dynamic_seq = false;
  int64_t batch_min = 1, batch_max = 1024;
  int64_t seq_min = 2, seq_max = -1;  ///< -1: the config's max_position_embeddings (or n_positions)
  /// > 1: each dynamic sequence length is m*_seq (a derived Dim over a new root `_seq`), what PyTorch
  /// suggests where a CUDA kernel pads it to m (the memory-efficient attention's mask, m = 8).
  int64_t seq_multiple = 1;
  bool attention_mask = false;  ///< decoder LMs: also pass an all-ones attention_mask [batch, seq]
};

/// Inputs for export: fake or real tensors by forward argument, and their dynamic_shapes.
struct ExampleInputs {
  std::vector<Tensor> args;
  DynamicShapes dynamic_shapes;
};

/// How a zoo model is exported beyond its inputs (a decode step: as transformers'
/// convert_and_export_with_cache exports it); see ExportOptions.
struct ExportHints {
  bool strict = false;   ///< torch.export(strict=True)
  bool no_grad = false;  ///< under torch.no_grad()
  std::map<std::string, std::string> state_access_paths;  ///< state-dict name -> attribute path read
  size_t kwarg_inputs = 0;  ///< the last this many inputs passed by name
};

/// A zoo model: an nn::Module with a generic forward, its units in forward order, example inputs.
class Model : public nn::Module {
 public:
  /// model_type of the config it was built from ("llama", "mistral", ...).
  virtual std::string model_type() const = 0;
  /// The units in forward order; the forward moves activations with `to` where their devices change.
  virtual std::vector<Unit> units() const = 0;
  /// Example inputs on the device of the first unit (token ids in [0, vocab), images ~ N(0, 1)).
  virtual ExampleInputs example_inputs(const InputOptions& opts) = 0;
  /// The state_dict name a checkpoint's key binds to, or "" to ignore it: HF checkpoints may use
  /// older names (ViT's attention.attention.query) or lack the base-model prefix (GPT-2's "h.0...").
  virtual std::string checkpoint_key(std::string_view file_key) const { return std::string(file_key); }
  /// A state_dict tensor the checkpoint stores in another layout (Mixtral's per-expert w1/w2/w3 for
  /// the fused experts.gate_up_proj/down_proj), assembled from `file`; undefined when not applicable.
  virtual Tensor checkpoint_tensor(std::string_view name, const SafetensorsFile& file) const { return Tensor(); }
  virtual ExportHints export_hints() const { return {}; }
  /// Per decoder layer, what transformers' DynamicCache holds during generation (GQA kv heads,
  /// MLA's wider keys, Falcon's broadcast or multi-query keys, sliding-window layers' last
  /// window - 1 tokens); empty: not a decoder LM with a cache.
  virtual analysis::KvLayout generation_cache() const { return {}; }
};

/// transformers' decode step with a StaticCache (integrations.executorch's
/// TorchExportableModuleWithStaticCache, exported by convert_and_export_with_cache): `model`, a
/// decoder LM on the llama blocks, with a cache of `max_cache_len` tokens for `batch` sequences as
/// non-persistent buffers (key_cache_i, value_cache_i, cumulative_length_i); forward(input_ids
/// [batch, seq], cache_position [seq]) -> logits. Build and place `model` first: each layer's cache
/// lives on the layer's device. ValueError for other families.
std::unique_ptr<Model> with_static_cache(std::unique_ptr<Model> model, int64_t batch, int64_t max_cache_len);

/// What a config may ask to be built, checked before anything is: the defaults leave 405B-class
/// models (126 layers) far inside.
struct BuildLimits {
  int64_t max_layers = 1024;  ///< repeated blocks of one stack (num_hidden_layers, ...): --max-layers
};

/// Builds the model for `config` under the caller's scopes (FakeTensorMode, DeviceScope, DTypeScope),
/// in eval mode. Unknown model_type or a missing field: ValueError naming it; a layer count over
/// the limit: LimitError naming the field and the flag.
std::unique_ptr<Model> build(const Config& config, const BuildLimits& limits = {});

/// Built-in names (`fakeexport export NAME`), each with a small documented default config.
std::vector<std::string> builtin_names();
/// The default config of a built-in name; ValueError listing the names for an unknown one.
Config builtin_config(std::string_view name);

/// Devices by module-path prefix. A prefix's last component may be a range: "model.layers.0-39".
/// The most specific (longest) matching prefix wins; later entries win ties.
class Placement {
 public:
  explicit Placement(Device default_device = Device()) : default_(default_device) {}
  /// Adds `prefix` (e.g. "model.layers.40-79") -> device. ValueError on a malformed range.
  void add(std::string_view prefix, Device device);
  /// The device of the tensor or module at `dotted_name`.
  Device device_for(std::string_view dotted_name) const;
  Device default_device() const { return default_; }
  bool empty() const { return entries_.empty(); }

  /// --pipeline: repeated units split evenly in order (the first devices take one more when the
  /// count does not divide), units before the first repeated one on the first device, others with
  /// the repeated unit before them.
  static Placement pipeline(const std::vector<Unit>& units, const std::vector<Device>& devices);

  struct Entry {
    std::string text;          ///< as given: "model.layers.0-39"
    std::string key;           ///< text without a range part: "model.layers"
    int64_t lo = -1, hi = -1;  ///< range on the last part, or -1
    int depth = 0;             ///< number of parts
    Device device;
  };
  const std::vector<Entry>& entries() const { return entries_; }
  /// Calls f(entry index) for every entry matching a prefix of `dotted_name` (O(depth) lookups).
  template <class F>
  void for_each_match(std::string_view dotted_name, F&& f) const;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  Device default_;
  std::vector<Entry> entries_;
  // Entries by key: exact prefixes, and ranges by their parent prefix (hash lookups per depth, so
  // placing a 126-layer model with a 130-entry pipeline stays linear).
  std::unordered_map<std::string, std::vector<size_t>, Hash, std::equal_to<>> exact_, ranges_;
};

template <class F>
void Placement::for_each_match(std::string_view name, F&& f) const {
  if (entries_.empty()) return;
  size_t parent_end = 0;  // end of the previous prefix (0: none)
  int depth = 0;
  for (size_t i = 0; i <= name.size(); ++i) {
    if (i < name.size() && name[i] != '.') continue;
    ++depth;
    const std::string_view prefix = name.substr(0, i), parent = name.substr(0, parent_end);
    const std::string_view part = name.substr(depth == 1 ? 0 : parent_end + 1, i - (depth == 1 ? 0 : parent_end + 1));
    if (auto it = exact_.find(prefix); it != exact_.end())
      for (size_t e : it->second) f(e);
    if (auto it = ranges_.find(parent); it != ranges_.end()) {
      int64_t v = 0;
      bool num = !part.empty();
      for (char c : part) num = num && c >= '0' && c <= '9' && (v = v * 10 + (c - '0')) <= (int64_t{1} << 40);
      if (num)
        for (size_t e : it->second)
          if (v >= entries_[e].lo && v <= entries_[e].hi) f(e);
    }
    parent_end = i;
  }
}

/// Moves every parameter and buffer of `model` to its placed device (fake tensors: metadata only;
/// tied tensors stay tied, on the device of their first name). ValueError when a prefix matches
/// nothing or a unit ends up split over devices (units are the grain of placement).
void place(Model& model, const Placement& placement);

/// Binds a safetensors checkpoint (HuggingFace's model.safetensors) by state_dict name: real CPU
/// tensors replace the model's, tied weights written once are bound to every name. ValueError
/// listing missing/unexpected names and shape/dtype mismatches at once.
void load_weights(Model& model, const std::string& safetensors_path);
/// The same binding without loading the model: a serde::SaveOptions::source for writing the
/// checkpoint into an exported program's archive (`fakeexport export -o F.pt2 --weights FILE`).
std::unique_ptr<serde::WeightsSource> checkpoint_source(Model& model, const std::string& safetensors_path);

/// Device of a module: that of its first parameter or buffer (cpu when it has none).
Device module_device(const nn::Module& m);
/// `t.to(d)` when t is elsewhere, else t itself: the pipeline's explicit transfers, only at cuts.
inline Tensor move_to(const Tensor& t, Device d) { return t.device() == d ? t : t.to(d); }
/// move_to(t, module_device(m)).
Tensor to_module_device(const Tensor& t, const nn::Module& m);

}  // namespace fe::zoo
