// data/sample_inputs/model.pt -> the program's tensor user inputs, matched by pytree path.
#include "fakeexport/serde/sample_inputs.h"

#include <map>
#include <nlohmann/json.hpp>

#include "fakeexport/serde/torch_save.h"
#include "fakeexport/serde/zip.h"

namespace fe::serde {
namespace {

using J = nlohmann::json;

void leaves(const J& node, const std::string& path, const std::string& what, int depth, std::vector<std::string>& out) {
  FE_CHECK(depth <= 64 && node.is_object() && node.contains("children_spec") && node["children_spec"].is_array(),
           FormatError, what, ": in_spec node at '", path, "' is not a TreeSpec node");
  const J& kids = node["children_spec"];
  const J& type = node.contains("type") ? node["type"] : J();
  if (type.is_null()) {  // a leaf
    out.push_back(path);
    return;
  }
  std::vector<std::string> keys;
  const std::string t = type.is_string() ? type.get<std::string>() : "";
  if (t == "builtins.dict" || t == "collections.OrderedDict" || t == "collections.defaultdict") {
    // context: JSON text of the key list (defaultdict wraps it with its default factory)
    const J& ctx = node.contains("context") ? node["context"] : J();
    J keys_json;
    try {
      keys_json = ctx.is_string() ? J::parse(ctx.get<std::string>()) : ctx;
    } catch (const J::exception&) {
      throw FormatError(detail::cat(what, ": in_spec dict at '", path, "' has an unreadable context"));
    }
    if (keys_json.is_object() && keys_json.contains("dict_context")) keys_json = keys_json["dict_context"];
    FE_CHECK(keys_json.is_array() && keys_json.size() == kids.size(), FormatError, what, ": in_spec dict at '", path,
             "' has ", kids.size(), " children but its context lists other keys");
    for (const J& k : keys_json) keys.push_back(k.is_string() ? k.get<std::string>() : k.dump());
  }
  for (size_t i = 0; i < kids.size(); ++i) {
    const std::string k = keys.empty() ? std::to_string(i) : keys[i];
    leaves(kids[i], path.empty() ? k : path + "." + k, what, depth + 1, out);
  }
}

}  // namespace

std::vector<std::string> treespec_leaf_paths(const std::string& in_spec, const std::string& what) {
  J j;
  try {
    j = J::parse(in_spec);
  } catch (const J::exception& e) {
    throw FormatError(detail::cat(what, ": in_spec is not JSON: ", e.what()));
  }
  // treespec_dumps writes [protocol, tree]
  FE_CHECK(j.is_array() && j.size() == 2, FormatError, what, ": in_spec is not [protocol, TreeSpec]");
  std::vector<std::string> out;
  leaves(j[1], "", what, 0, out);
  return out;
}

std::vector<std::pair<std::string, Tensor>> read_sample_inputs(const std::string& archive, const ExportedProgram& ep) {
  ZipReader zip(archive);
  const std::string entry = std::string(zip.root()) + "/data/sample_inputs/model.pt";
  FE_CHECK(zip.contains(entry), FormatError, archive, ": has no sample inputs (", entry, "); pass --inputs");
  const auto data = zip.data(entry);
  FE_CHECK(!data.empty(), FormatError, archive, ": its sample inputs are empty (saved without example inputs); pass --inputs");
  std::vector<TorchSaveTensor> saved;
  try {
    saved = read_torch_save(data, archive + ":" + entry);
  } catch (const FakeSampleInputsError& e) {
    throw FormatError(detail::cat(e.what(), "; the program was exported from fake tensors: pass --inputs"));
  }
  std::map<std::string, Tensor> by_path;
  for (auto& t : saved) by_path[t.name] = t.tensor;

  // The user inputs, in signature order, are the leaves of (args, kwargs) in in_spec order.
  std::vector<std::string> paths;
  if (!ep.module_call_graph.empty() && ep.module_call_graph[0].signature)
    paths = treespec_leaf_paths(ep.module_call_graph[0].signature->in_spec, archive + ": module_call_graph[0].signature");
  std::vector<const InputSpec*> user;
  for (const InputSpec& s : ep.signature.inputs)
    if (s.kind == InputKind::UserInput) user.push_back(&s);
  if (paths.empty()) {  // no in_spec: positional tensors in order
    for (const auto& t : saved) paths.push_back(t.name);
  }
  FE_CHECK(paths.size() == user.size(), FormatError, archive, ": the in_spec has ", paths.size(),
           " inputs but the program takes ", user.size());
  std::vector<std::pair<std::string, Tensor>> out;
  for (size_t i = 0; i < user.size(); ++i) {
    if (user[i]->constant) continue;
    auto it = by_path.find(paths[i]);
    FE_CHECK(it != by_path.end(), FormatError, archive, ": sample inputs have no tensor at ", paths[i], " for input '",
             user[i]->name, "'");
    out.emplace_back(user[i]->name, it->second);
  }
  return out;
}

}  // namespace fe::serde
