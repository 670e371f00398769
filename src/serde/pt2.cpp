// PT2 archive loading: layout checks, model.json, and the weights payloads against their metadata.
#include "fakeexport/serde/pt2.h"

#include <cstring>
#include <map>
#include <nlohmann/json.hpp>

#include "fakeexport/core/error.h"
#include "fakeexport/serde/pt2_json.h"
#include "fakeexport/serde/zip.h"

namespace fe::serde {
namespace {

int64_t json_int(const nlohmann::json& j, const std::string& where) {
  if (j.is_object() && j.contains("as_int")) return json_int(j["as_int"], where);
  if (!j.is_number_integer()) throw FormatError(where + ": expected an integer, got " + j.dump());
  return j.get<int64_t>();
}

/// Bytes a tensor with this serialized TensorMeta addresses in its storage.
int64_t required_bytes(const nlohmann::json& meta, const std::string& where) {
  if (!meta.is_object() || !meta.contains("sizes") || !meta.contains("strides") || !meta.contains("dtype"))
    throw FormatError(where + ": tensor_meta lacks sizes/strides/dtype");
  auto dt = dtype_from_serialized(json_int(meta["dtype"], where + ".dtype"));
  if (!dt) throw FormatError(where + ".dtype: unknown dtype " + meta["dtype"].dump());
  const auto& sizes = meta["sizes"];
  const auto& strides = meta["strides"];
  if (!sizes.is_array() || !strides.is_array() || sizes.size() != strides.size())
    throw FormatError(where + ": sizes and strides must be arrays of the same length");
  int64_t len = 1 + (meta.contains("storage_offset") ? json_int(meta["storage_offset"], where + ".storage_offset") : 0);
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t s = json_int(sizes[i], where + ".sizes"), st = json_int(strides[i], where + ".strides");
    if (s < 0 || st < 0) throw FormatError(where + ": negative size or stride");
    if (s == 0) return 0;
    int64_t term;
    if (__builtin_mul_overflow(s - 1, st, &term) || __builtin_add_overflow(len, term, &len))
      throw FormatError(where + ": storage size overflows int64");
  }
  int64_t bytes;
  if (__builtin_mul_overflow(len, itemsize(*dt), &bytes)) throw FormatError(where + ": storage bytes overflow int64");
  return bytes;
}

/// One payload config (weights or constants): checks every entry, optionally materializes.
void read_payloads(const ZipReader& zip, const std::string& dir, std::vector<std::pair<std::string, Tensor>>& slots,
                   bool materialize, LoadedProgram& out) {
  const std::string cfg_name = dir + (dir.ends_with("weights/") ? "model_weights_config.json" : "model_constants_config.json");
  if (!zip.contains(cfg_name)) return;
  nlohmann::json cfg;
  try {
    cfg = nlohmann::json::parse(zip.view(cfg_name));
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(zip.path() + ":" + cfg_name + ": invalid JSON: " + e.what());
  }
  if (!cfg.is_object() || !cfg.contains("config") || !cfg["config"].is_object())
    throw FormatError(zip.path() + ":" + cfg_name + ": expected {\"config\": {...}}");
  std::map<std::string, Tensor> by_payload;  // tied names share one payload and one tensor
  for (const auto& [fqn, item] : cfg["config"].items()) {
    const std::string where = zip.path() + ":" + cfg_name + ": config['" + fqn + "']";
    if (!item.is_object() || !item.contains("path_name") || !item["path_name"].is_string())
      throw FormatError(where + ": missing path_name");
    if (item.value("use_pickle", false)) {
      out.weights_present = false;
      out.weights_note = "'" + fqn + "' is pickled (use_pickle); pickled weights are not supported";
      continue;
    }
    const std::string entry = dir + item["path_name"].get<std::string>();
    const ZipEntry* e = zip.find(entry);
    if (!e) throw FormatError(where + ": payload entry '" + entry + "' is missing");
    const int64_t need = required_bytes(item.value("tensor_meta", nlohmann::json()), where + ".tensor_meta");
    if (static_cast<int64_t>(e->size) < need) {
      if (e->size == 0) {
        out.weights_present = false;
        out.weights_note = "the weights were saved from a fake program: '" + fqn + "' needs " + std::to_string(need) +
                           " bytes but its payload '" + entry + "' is empty (PyTorch writes a 0-byte payload " +
                           "for fake tensors and would load zeros)";
        continue;
      }
      throw FormatError(where + ": payload '" + entry + "' has " + std::to_string(e->size) + " bytes but " +
                        std::to_string(need) + " are required");
    }
    for (auto& [name, t] : slots) {
      if (name != fqn) continue;
      // Tied names (one payload) become one tensor, as in the saved module.
      auto it = by_payload.find(entry);
      if (it != by_payload.end() && it->second.meta() == t.meta()) {
        t = it->second;
        break;
      }
      if (!materialize) {
        by_payload.emplace(entry, t);
        break;
      }
      auto impl = std::make_shared<TensorImpl>();
      impl->meta = t.meta();
      impl->meta.device = kCPU;
      impl->storage = std::make_shared<Storage>(static_cast<size_t>(need));
      auto bytes = zip.data(*e);
      std::memcpy(impl->storage->data(), bytes.data(), static_cast<size_t>(need));
      impl->is_parameter = item.value("is_param", false);
      t = Tensor(std::move(impl));
      by_payload.emplace(entry, t);
      break;
    }
  }
}

}  // namespace

LoadedProgram load(const std::string& path, const LoadOptions& opts) {
  ZipReader zip(path);
  const std::string root = std::string(zip.root()) + "/";
  LoadedProgram out;
  std::string model_entry = root + "models/model.json";
  if (!zip.contains(model_entry)) {
    FE_CHECK(!zip.contains("serialized_exported_program.json"), FormatError, path,
             ": a torch <= 2.7 archive (flat zip, pickled weights): only PT2 archives (torch >= 2.8) are supported");
    throw FormatError(path + ": no '" + model_entry + "': not a PT2 archive written by torch.export.save");
  }
  if (zip.contains(root + "archive_format"))
    FE_CHECK(zip.text(root + "archive_format") == "pt2", FormatError, path, ":", root,
             "archive_format: expected 'pt2', got '", zip.text(root + "archive_format"), "'");
  const std::string text(zip.view(model_entry));
  out.ep = program_from_json_text(text, {.source = path + ":" + model_entry});
  const auto doc = nlohmann::json::parse(text);
  if (doc.contains("schema_version") && doc["schema_version"].is_object())
    out.schema_version = std::to_string(doc["schema_version"].value("major", 0)) + "." +
                         std::to_string(doc["schema_version"].value("minor", 0));
  out.torch_version = doc.value("torch_version", std::string());
  out.weights_present = true;
  read_payloads(zip, root + "data/weights/", out.ep.state_dict, opts.materialize_weights, out);
  read_payloads(zip, root + "data/constants/", out.ep.constants, opts.materialize_weights, out);
  return out;
}

}  // namespace fe::serde
