// PT2 archive loading: layout checks, model.json, and the weights payloads against their metadata.
#include "fakeexport/serde/pt2.h"

#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <nlohmann/json.hpp>

#include "fakeexport/core/error.h"
#include "fakeexport/serde/json.h"
#include "fakeexport/serde/pt2_json.h"
#include "fakeexport/serde/safetensors.h"
#include "fakeexport/serde/torch_save.h"
#include "fakeexport/serde/zip.h"

namespace fe::serde {
bool is_graph_only(const ZipReader& zip);
namespace {

/// Names one payload config entry in messages: "<archive>:<config>: config['<fqn>']<suffix>",
/// built only when a check fails (an archive lists a thousand entries).
struct EntryName {
  const std::string& archive;
  const std::string& config;
  std::string_view fqn;
  std::string operator()(std::string_view suffix = {}) const {
    return fe::detail::cat(archive, ":", config, ": config['", fqn, "']", suffix);
  }
};

/// An int, or a SymInt union holding one ({"as_int": 3}); anything else names `where`.
int64_t json_int(const json::Value& j, const EntryName& where, std::string_view field) {
  if (j.kind() == json::Kind::Integer) return j.as_int();
  if (const json::Value* v = j.find("as_int")) return json_int(*v, where, field);
  throw FormatError(where(field) + ": expected an integer, got " + std::string(j.type_name()) + " " + std::string(j.raw()));
}

/// Bytes a tensor with this serialized TensorMeta addresses in its storage.
int64_t required_bytes(const json::Value* meta, const EntryName& where) {
  const json::Value* dtype = meta ? meta->find("dtype") : nullptr;
  const json::Value* sizes = meta ? meta->find("sizes") : nullptr;
  const json::Value* strides = meta ? meta->find("strides") : nullptr;
  if (!dtype || !sizes || !strides) throw FormatError(where(".tensor_meta") + ": tensor_meta lacks sizes/strides/dtype");
  auto dt = dtype_from_serialized(json_int(*dtype, where, ".tensor_meta.dtype"));
  if (!dt) throw FormatError(where(".tensor_meta.dtype") + ": unknown dtype " + std::string(dtype->raw()));
  if (!sizes->is_array() || !strides->is_array() || sizes->size() != strides->size())
    throw FormatError(where(".tensor_meta") + ": sizes and strides must be arrays of the same length");
  const json::Value* so = meta->find("storage_offset");
  int64_t len = 1 + (so ? json_int(*so, where, ".tensor_meta.storage_offset") : 0);
  for (size_t i = 0; i < sizes->size(); ++i) {
    const int64_t s = json_int((*sizes)[i], where, ".tensor_meta.sizes");
    const int64_t st = json_int((*strides)[i], where, ".tensor_meta.strides");
    if (s < 0 || st < 0) throw FormatError(where(".tensor_meta") + ": negative size or stride");
    if (s == 0) return 0;
    int64_t term;
    if (__builtin_mul_overflow(s - 1, st, &term) || __builtin_add_overflow(len, term, &len))
      throw FormatError(where(".tensor_meta") + ": storage size overflows int64");
  }
  int64_t bytes;
  if (__builtin_mul_overflow(len, itemsize(*dt), &bytes))
    throw FormatError(where(".tensor_meta") + ": storage bytes overflow int64");
  return bytes;
}

/// The config's tensor_meta records the dtype and sizes the program's placeholder has.
void check_meta_agrees(const json::Value* meta, const TensorMeta& m, const EntryName& where) {
  const auto dt = dtype_from_serialized(json_int(*meta->find("dtype"), where, ".tensor_meta.dtype"));
  const json::Value& sizes = *meta->find("sizes");
  bool same = dt == m.dtype && sizes.size() == m.sizes.size();
  for (size_t i = 0; same && i < sizes.size(); ++i) {
    const SymInt& d = m.sizes[i];
    same = d.is_symbolic() || d.hint() == json_int(sizes[i], where, ".tensor_meta.sizes");
  }
  if (same) return;
  std::string rec = dt ? std::string(dtype_short_name(*dt)) : "dtype " + std::string(meta->find("dtype")->raw());
  for (size_t i = 0; i < sizes.size(); ++i)
    rec += fe::detail::cat(i ? ", " : "[", json_int(sizes[i], where, ".tensor_meta.sizes"));
  throw FormatError(where(".tensor_meta") + ": records " + rec + (sizes.size() ? "]" : "[]") +
                    " but the program's placeholder is " + m.annotation());
}

/// A JSON record's text, refused over the limit before it is parsed.
std::string_view json_record(const ZipReader& zip, const std::string& name, const ReadLimits& limits) {
  const ZipEntry& e = zip.entry(name);
  if (static_cast<int64_t>(e.size) > limits.max_record_bytes)
    throw LimitError(fe::detail::cat(zip.path(), ":", name, ": ", e.size, " bytes is over the limit of ",
                                     limits.max_record_bytes, " bytes for a JSON record (raise it with --max-record-bytes)"));
  return zip.view(e.name);
}

/// A boolean field, false when absent; mistyped, an error naming it.
bool json_flag(const json::Value& item, std::string_view key, const EntryName& where) {
  const json::Value* v = item.find(key);
  if (!v || v->is_null()) return false;
  if (!v->is_boolean())
    throw FormatError(where(fe::detail::cat(".", key)) + ": expected a bool, got " + std::string(v->raw()));
  return v->as_bool();
}

/// The archive mapped copy-on-write: weights read lazily, in-place writes stay private to us.
std::shared_ptr<std::byte> map_private(const std::string& path, size_t size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  FE_CHECK(fd >= 0, FileIOError, path, ": cannot open for mapping weights: ", std::strerror(errno));
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  const int err = errno;
  ::close(fd);
  FE_CHECK(p != MAP_FAILED, FileIOError, path, ": cannot map ", size, " bytes of weights: ", std::strerror(err));
  return std::shared_ptr<std::byte>(static_cast<std::byte*>(p), [size](std::byte* q) { ::munmap(q, size); });
}

/// One payload config (weights or constants): checks every entry, optionally maps the tensors.
void read_payloads(const ZipReader& zip, const std::string& dir, std::vector<std::pair<std::string, Tensor>>& slots,
                   const LoadOptions& opts, LoadedProgram& out, std::shared_ptr<std::byte>& mapping) {
  const bool materialize = opts.materialize_weights;
  const bool weights = dir.ends_with("weights/");
  const std::string cfg_name = dir + (weights ? "model_weights_config.json" : "model_constants_config.json");
  if (!zip.contains(cfg_name)) return;
  json::Document doc;
  try {
    doc = json::Document::parse(json_record(zip, cfg_name, opts.limits), "");
  } catch (const FormatError& e) {
    throw FormatError(zip.path() + ":" + cfg_name + ": invalid JSON: " + e.what());
  }
  const json::Value* cfg = doc.root().find("config");
  if (!cfg || !cfg->is_object()) throw FormatError(zip.path() + ":" + cfg_name + ": expected {\"config\": {...}}");
  std::map<std::string, Tensor, std::less<>> by_payload;  // tied names share one payload and one tensor
  // Each config entry finds its slot by name (a linear scan per entry is quadratic on big programs).
  std::unordered_map<std::string_view, size_t> slot_of;
  slot_of.reserve(slots.size());
  for (size_t i = 0; i < slots.size(); ++i) slot_of.emplace(slots[i].first, i);  // the first of equal names
  std::string entry;
  std::vector<bool> seen(slots.size());
  for (const auto& [fqn, item] : cfg->members()) {
    const EntryName where{zip.path(), cfg_name, fqn};
    const json::Value* pn = item.find("path_name");
    if (!item.is_object() || !pn || !pn->is_string()) throw FormatError(where() + ": missing path_name");
    if (json_flag(item, "use_pickle", where)) {
      out.weights_present = false;
      out.weights_note = "'" + std::string(fqn) + "' is pickled (use_pickle); pickled weights are not supported";
      continue;
    }
    entry.assign(dir).append(pn->as_string());
    const ZipEntry* e = zip.find(entry);
    if (!e) throw FormatError(where() + ": payload entry '" + entry + "' is missing");
    const int64_t need = required_bytes(item.find("tensor_meta"), where);
    if (static_cast<int64_t>(e->size) < need) {
      if (e->size == 0) {
        out.weights_present = false;
        out.weights_note = fe::detail::cat("the weights were saved from a fake program: '", fqn, "' needs ", need,
                                           " bytes but its payload '", entry, "' is empty (PyTorch writes a 0-byte ",
                                           "payload for fake tensors and would load zeros)");
        continue;
      }
      throw FormatError(where() + ": payload '" + entry + "' has " + std::to_string(e->size) + " bytes but " +
                        std::to_string(need) + " are required");
    }
    auto slot = slot_of.find(fqn);
    if (slot == slot_of.end()) continue;
    Tensor& t = slots[slot->second].second;
    seen[slot->second] = true;
    // The payload is read with the program's metadata: it must be the one the config recorded,
    // or a tensor would address bytes its payload does not have.
    check_meta_agrees(item.find("tensor_meta"), t.meta(), where);
    // Tied names (one payload) become one tensor, as in the saved module.
    auto it = by_payload.find(entry);
    if (it != by_payload.end() && it->second.meta() == t.meta()) {
      t = it->second;
      continue;
    }
    if (!materialize) {
      by_payload.emplace(entry, t);
      continue;
    }
    auto impl = std::make_shared<TensorImpl>();
    impl->meta = t.meta();
    impl->meta.device = kCPU;
    if (!mapping) mapping = map_private(zip.path(), static_cast<size_t>(zip.file_size()));
    impl->storage = std::make_shared<Storage>(mapping.get() + e->data_offset, static_cast<size_t>(need), mapping);
    impl->is_parameter = json_flag(item, "is_param", where);
    t = Tensor(std::move(impl));
    by_payload.emplace(entry, t);
  }
  // PyTorch's verifier refuses a signature naming state the archive does not hold.
  for (size_t i = 0; i < slots.size(); ++i)
    FE_CHECK(seen[i] || !out.weights_present, FormatError, zip.path(), ":", cfg_name, ": the program's ",
             weights ? "parameter or buffer" : "constant", " '", slots[i].first, "' has no entry (the signature names it)");
}

/// Copies tensors read from a torch.save pickle into the program's slots, checking their metadata.
void bind_pickled(std::vector<TorchSaveTensor> tensors, std::vector<std::pair<std::string, Tensor>>& slots,
                  const std::string& where, bool materialize) {
  for (TorchSaveTensor& t : tensors)
    for (auto& [name, slot] : slots)
      if (name == t.name) {
        FE_CHECK(t.tensor.meta().sizes.size() == slot.meta().sizes.size() && t.tensor.dtype() == slot.dtype(),
                 FormatError, where, ": '", t.name, "' is ", t.tensor.meta().annotation(), " but the program records ",
                 slot.meta().annotation());
        if (materialize) slot = t.tensor;
      }
}

/// torch <= 2.7: a flat zip (no root folder) with serialized_exported_program.json and the state
/// dict / constants as nested torch.save archives (read by the restricted reader).
LoadedProgram load_legacy(const ZipReader& zip, const LoadOptions& opts) {
  LoadedProgram out;
  const std::string_view text = json_record(zip, "serialized_exported_program.json", opts.limits);
  Pt2Versions v;
  out.ep = program_from_json_text(text, {.source = zip.path() + ":serialized_exported_program.json", .versions = &v,
                                         .max_nodes = opts.limits.max_nodes});
  out.schema_version = v.schema, out.torch_version = v.torch;
  if (out.schema_version.empty() && zip.contains("version")) out.schema_version = zip.text("version");
  out.weights_present = true;
  for (const char* entry : {"serialized_state_dict.pt", "serialized_constants.pt"}) {
    if (!zip.contains(entry)) continue;
    auto& slots = std::string(entry).find("state_dict") != std::string::npos ? out.ep.state_dict : out.ep.constants;
    bind_pickled(read_torch_save(zip.data(entry), zip.path() + ":" + entry), slots, zip.path() + ":" + entry,
                 opts.materialize_weights);
  }
  return out;
}

}  // namespace

LoadedProgram load(const std::string& path, const LoadOptions& opts) {
  ZipReader zip(path);
  const std::string root = std::string(zip.root()) + "/";
  LoadedProgram out;
  std::string model_entry = root + "models/model.json";
  if (!zip.contains(model_entry)) {
    if (zip.contains("serialized_exported_program.json")) return load_legacy(zip, opts);
    throw FormatError(path + ": no '" + model_entry + "': not a PT2 archive written by torch.export.save");
  }
  if (zip.contains(root + "archive_format"))
    FE_CHECK(zip.text(root + "archive_format") == "pt2", FormatError, path, ":", root,
             "archive_format: expected 'pt2', got '", zip.text(root + "archive_format"), "'");
  // Parsed in place: the mapping outlives the parse.
  const std::string_view text = json_record(zip, model_entry, opts.limits);
  Pt2Versions v;
  out.ep = program_from_json_text(text, {.source = path + ":" + model_entry, .versions = &v, .max_nodes = opts.limits.max_nodes});
  out.schema_version = v.schema, out.torch_version = v.torch;
  out.weights_present = true;
  if (is_graph_only(zip)) {
    out.weights_present = false;
    out.weights_note = "graph-only archive (saved with weights 'none'): every weight's metadata, no payload";
    return out;
  }
  if (!zip.contains(root + "data/weights/model_weights_config.json") && zip.contains(root + "data/weights/model.pt")) {
    // torch 2.8 layout: the whole state_dict as one torch.save pickle, read by the restricted
    // reader (tensor-rebuild records only, nothing executed).
    for (const char* part : {"data/weights/model.pt", "data/constants/model.pt"}) {
      const std::string entry = root + part;
      if (!zip.contains(entry)) continue;
      auto& slots = std::string(part).find("weights") != std::string::npos ? out.ep.state_dict : out.ep.constants;
      bind_pickled(read_torch_save(zip.data(entry), path + ":" + entry), slots, path + ":" + entry,
                   opts.materialize_weights);
    }
    return out;
  }
  std::shared_ptr<std::byte> mapping;
  read_payloads(zip, root + "data/weights/", out.ep.state_dict, opts, out, mapping);
  read_payloads(zip, root + "data/constants/", out.ep.constants, opts, out, mapping);
  return out;
}

}  // namespace fe::serde

// ---------------------------------------------------------------- writing
namespace fe::serde {
namespace {

/// The graph-only marker: PyTorch ignores unknown entries but fails on the missing payloads.
constexpr const char* kGraphOnlyEntry = "extra/fakeexport_weights";

/// splitmix64: a small deterministic generator for WeightsPolicy::Random.
uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The pickle class torch.save uses for a storage of this dtype ("FloatStorage").
std::string storage_class(DType t) {
  switch (t) {
    case DType::Float32: return "FloatStorage";
    case DType::Float64: return "DoubleStorage";
    case DType::Float16: return "HalfStorage";
    case DType::BFloat16: return "BFloat16Storage";
    case DType::Int64: return "LongStorage";
    case DType::Int32: return "IntStorage";
    case DType::Int16: return "ShortStorage";
    case DType::Int8: return "CharStorage";
    case DType::UInt8: return "ByteStorage";
    case DType::Bool: return "BoolStorage";
    default: throw ValueError(detail::cat("save: no torch.save storage class for ", dtype_name(t)));
  }
}

/// Protocol-2 pickle opcodes for torch.save's tensor records (written, never executed).
struct PickleOut {
  std::string b;
  void global(const std::string& mod, const std::string& name) { b += 'c' + mod + '\n' + name + '\n'; }
  void str(const std::string& s) {
    b += 'X';
    const uint32_t n = static_cast<uint32_t>(s.size());
    b.append(reinterpret_cast<const char*>(&n), 4);
    b += s;
  }
  void integer(int64_t v) {
    if (v >= INT32_MIN && v <= INT32_MAX) {
      const int32_t x = static_cast<int32_t>(v);
      b += 'J';
      b.append(reinterpret_cast<const char*>(&x), 4);
    } else {
      b += '\x8a';
      b += '\x08';
      b.append(reinterpret_cast<const char*>(&v), 8);
    }
  }
  void int_tuple(IntSpan v) {
    b += '(';
    for (const SymInt& s : v) integer(s.hint());
    b += 't';
  }
};

void python_constant(PickleOut& p, const OpaqueValue& c);

/// A non-tensor example input as the Python value it was: a constant export specialized to
/// (return_dict=False) or a symbolic int's example value. False for a tensor.
bool python_value(PickleOut& p, const Node& ph) {
  if (ph.sym_val) {
    p.integer(ph.sym_val->hint());
    return true;
  }
  if (!ph.constant) return false;
  const OpaqueValue& c = *ph.constant;
  try {
    python_constant(p, c);
  } catch (const std::exception&) {  // a number nlohmann or strtod cannot hold (1E999): None
    p.b += 'N';
  }
  return true;
}

void python_constant(PickleOut& p, const OpaqueValue& c) {
  if (c.kind == "as_bool") p.b += c.json == "true" ? '\x88' : '\x89';
  else if (c.kind == "as_none") p.b += 'N';
  else if (c.kind == "as_int") p.integer(std::stoll(c.json));
  else if (c.kind == "as_string" && c.json.size() >= 2) p.str(nlohmann::json::parse(c.json).get<std::string>());
  else if (c.kind == "as_float") {
    const double d = std::stod(c.json);
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    p.b += 'G';
    for (int k = 7; k >= 0; --k) p.b += static_cast<char>((bits >> (8 * k)) & 0xff);  // big-endian
  } else p.b += 'N';  // a value pickle cannot say simply: None keeps the tuple's arity
}

/// Emits the example inputs as the program's in_spec nests them (tuples, lists, dicts around the
/// user inputs), so ep.module() can bind them to forward's signature; false (nothing written)
/// where the spec holds another container or does not match the inputs.
bool emit_by_spec(PickleOut& p, const nlohmann::json& spec, size_t& next, size_t leaves,
                  const std::function<void(size_t)>& leaf, int depth = 0) {
  // A spec nested deeper than any real signature (a crafted archive) takes the flat form.
  if (!spec.is_object() || depth > 64) return false;
  // By reference: json::value() would copy the whole subtree.
  const auto type_it = spec.find("type"), kids_it = spec.find("children_spec");
  static const nlohmann::json none, no_kids = nlohmann::json::array();
  const nlohmann::json& type = type_it == spec.end() ? none : *type_it;
  const nlohmann::json& children = kids_it == spec.end() || !kids_it->is_array() ? no_kids : *kids_it;
  if (type.is_null()) {
    if (next >= leaves) return false;
    leaf(next++);
    return true;
  }
  const std::string t = type.get<std::string>();
  if (t == "builtins.tuple" || t == "builtins.list") {
    p.b += t == "builtins.tuple" ? "(" : "](";
    for (const auto& c : children)
      if (!emit_by_spec(p, c, next, leaves, leaf, depth + 1)) return false;
    p.b += t == "builtins.tuple" ? 't' : 'e';
    return true;
  }
  if (t == "builtins.dict") {
    const nlohmann::json keys = nlohmann::json::parse(spec.value("context", std::string("[]")));
    if (!keys.is_array() || keys.size() != children.size()) return false;
    p.b += "}(";
    for (size_t k = 0; k < keys.size(); ++k) {
      if (keys[k].is_string()) p.str(keys[k].get<std::string>());
      else if (keys[k].is_number_integer()) p.integer(keys[k].get<int64_t>());
      else return false;
      if (!emit_by_spec(p, children[k], next, leaves, leaf, depth + 1)) return false;
    }
    p.b += 'u';
    return true;
  }
  return false;
}

/// torch.load requires data/sample_inputs/model.pt: a torch.save archive of the example inputs
/// (args, kwargs) as the in_spec nests them, else ((x, ...), {}). We have no values, so each
/// tensor is written as zeros of its example size.
std::string sample_inputs(const ExportedProgram& ep, const std::string& archive_path) {
  std::vector<int64_t> nbytes;
  auto phs = ep.graph.placeholders();
  std::vector<const Node*> users;
  for (size_t i = 0; i < phs.size() && i < ep.signature.inputs.size(); ++i)
    if (ep.signature.inputs[i].kind == InputKind::UserInput) users.push_back(phs[i]);
  PickleOut p;
  const auto leaf = [&](size_t k) {
    const Node& ph = *users[k];
    if (python_value(p, ph)) return;
    if (ph.val.size() != 1) throw ValueError("save: input '" + ph.name() + "' is neither a tensor, an int nor a constant");
    const TensorMeta& m = ph.val[0];
    const DimVector strides = contiguous_strides(m.sizes);
    int64_t numel = 1;
    for (const SymInt& s : m.sizes) numel *= s.hint();
    p.global("torch._utils", "_rebuild_tensor_v2");
    p.b += '(';
    p.b += '(';  // persistent id: ('storage', torch.<Kind>Storage, key, location, numel)
    p.str("storage");
    p.global("torch", storage_class(m.dtype));
    p.str(std::to_string(nbytes.size()));
    p.str("cpu");
    p.integer(numel);
    p.b += "tQ";
    p.integer(0);
    p.int_tuple(m.sizes);
    p.int_tuple(strides);
    p.b += '\x89';  // requires_grad False
    p.global("collections", "OrderedDict");
    p.b += ")Rt";  // OrderedDict(), close the argument tuple
    p.b += 'R';
    nbytes.push_back(numel * itemsize(m.dtype));
  };
  bool structured = false;
  for (const ModuleCallEntry& e : ep.module_call_graph) {
    if (!e.fqn.empty() || !e.signature || e.signature->in_spec.empty()) continue;
    try {
      const nlohmann::json spec = nlohmann::json::parse(e.signature->in_spec);
      p.b = "\x80\x02";
      size_t next = 0;
      structured = spec.is_array() && spec.size() == 2 && emit_by_spec(p, spec[1], next, users.size(), leaf) &&
                   next == users.size();
    } catch (const nlohmann::json::exception&) {
      structured = false;
    }
    if (!structured) nbytes.clear();
  }
  if (structured) {
    p.b += '.';
  } else {
    p.b = "\x80\x02(";
    for (size_t k = 0; k < users.size(); ++k) leaf(k);
    p.b += "t}\x86.";  // (inputs...), {} -> TUPLE2, STOP
  }
  const std::string tmp = archive_path + ".sample_inputs.tmp";
  {
    ZipWriter w(tmp);
    w.add("archive/data.pkl", std::string_view(p.b));
    w.add("archive/.format_version", std::string_view("1"));
    w.add("archive/.storage_alignment", std::string_view("64"));
    w.add("archive/byteorder", std::string_view("little"));
    for (size_t k = 0; k < nbytes.size(); ++k) {
      w.begin_entry("archive/data/" + std::to_string(k), static_cast<uint64_t>(nbytes[k]));
      std::vector<std::byte> zeros(static_cast<size_t>(std::min<int64_t>(nbytes[k], 1 << 16)));
      for (int64_t done = 0; done < nbytes[k];) {
        const int64_t n = std::min<int64_t>(nbytes[k] - done, static_cast<int64_t>(zeros.size()));
        w.write(std::span(zeros.data(), static_cast<size_t>(n)));
        done += n;
      }
      w.end_entry();
    }
    w.add("archive/version", std::string_view("3\n"));
    w.add("archive/.data/serialization_id", std::string_view("fakeexport000000000000000000000000000000"));
    w.finish();
  }
  std::ifstream in(tmp, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  in.close();
  std::remove(tmp.c_str());
  return bytes;
}

struct Payload {
  std::string path_name;
  const Tensor* tensor;
};

/// Every problem of a weights file at once: missing names, extra names, wrong shapes or dtypes.
void check_weights_file(const SafetensorsFile& f, const ExportedProgram& ep) {
  std::vector<std::string> problems;
  std::set<std::string> wanted;
  for (const auto* list : {&ep.state_dict, &ep.constants})
    for (const auto& [name, t] : *list) {
      wanted.insert(name);
      if (!f.contains(name) && t.impl()->constant) continue;  // values known to the program (rotary tables)
      if (!f.contains(name)) {
        problems.push_back("missing '" + name + "' (" + t.meta().annotation() + ")");
        continue;
      }
      const SafetensorsEntry* e = nullptr;
      for (const auto& x : f.entries())
        if (x.name == name) e = &x;
      std::vector<int64_t> shape;
      for (const SymInt& s : t.meta().sizes) shape.push_back(s.hint());
      if (e->dtype != t.meta().dtype || e->shape != shape) {
        std::string got = std::string(dtype_short_name(e->dtype)) + "[";
        for (size_t i = 0; i < e->shape.size(); ++i) got += (i ? ", " : "") + std::to_string(e->shape[i]);
        problems.push_back("'" + name + "' is " + got + "] in the file but the program takes " + t.meta().annotation());
      }
    }
  for (const auto& e : f.entries())
    if (!wanted.count(e.name)) problems.push_back("extra '" + e.name + "' (no parameter, buffer or constant)");
  if (problems.empty()) return;
  std::string msg = "save: weights file '" + f.path() + "' does not fit the program:";
  for (const auto& p : problems) msg += "\n  - " + p;
  throw ValueError(msg);
}

void write_payloads(ZipWriter& zip, const std::string& dir, const char* config_name,
                    const std::vector<std::pair<std::string, Tensor>>& tensors, const std::set<std::string>& params,
                    const std::map<std::string, Device>& program_device, const SaveOptions& opts, uint64_t& rng,
                    const SafetensorsFile* file) {
  nlohmann::ordered_json config = nlohmann::ordered_json::object();
  std::map<const void*, std::string> by_storage;  // tied weights: one payload
  int next = 0;
  std::vector<Payload> to_write;
  std::map<const Tensor*, std::string> fqn_of;
  for (const auto& [fqn, t] : tensors) {
    fqn_of.emplace(&t, fqn);
    const void* key = t.impl() && t.impl()->storage ? static_cast<const void*>(t.impl()->storage.get())
                                                    : static_cast<const void*>(t.impl());
    auto [it, fresh] = by_storage.emplace(key, std::string(dir.ends_with("weights/") ? "weight_" : "tensor_") +
                                                   std::to_string(next));
    if (fresh) {
      ++next;
      to_write.push_back({it->second, &t});
    }
    nlohmann::ordered_json item;
    item["path_name"] = it->second;
    item["is_param"] = params.count(fqn) > 0;
    item["use_pickle"] = false;
    // The device the program holds it on: weights read into host memory (to run on the reference
    // kernels) are still the program's cuda:0 parameters, and torch.export.load puts them there.
    TensorMeta m = t.meta();
    if (auto d = program_device.find(fqn); d != program_device.end()) m.device = d->second;
    item["tensor_meta"] = tensor_meta_to_json(m);
    config[fqn] = std::move(item);
  }
  if (opts.weights != WeightsPolicy::None) {
    for (const Payload& p : to_write) {
      const TensorMeta& m = p.tensor->meta();
      const int64_t nbytes = m.storage_nbytes();
      zip.begin_entry(dir + p.path_name, static_cast<uint64_t>(nbytes));
      const std::string& fqn = fqn_of.at(p.tensor);
      Tensor from_source;
      if (opts.weights == WeightsPolicy::Source) from_source = opts.source->load(fqn);
      const auto& known = p.tensor->impl()->constant;
      if (known && p.tensor->is_fake() && !(file && file->contains(fqn)) && !from_source.defined()) {
        // A fake tensor made from known values (FakeTensor.constant): its values, whatever the policy.
        zip.write(std::span(known->storage->data(), static_cast<size_t>(nbytes)));
      } else if (opts.weights == WeightsPolicy::Source) {
        FE_CHECK(from_source.defined(), ValueError, "save: the weights source has no tensor for '", fqn, "'");
        Tensor c = from_source.contiguous();
        FE_CHECK(c.has_storage() && c.meta().dtype == m.dtype && c.numel() * itemsize(m.dtype) == nbytes, ValueError,
                 "save: the weights source gave ", c.meta().annotation(), " for '", fqn, "' (", m.annotation(), ")");
        zip.write(std::span(c.impl()->storage->data() + c.meta().storage_offset.expect_int() * itemsize(m.dtype),
                            static_cast<size_t>(nbytes)));
      } else if (opts.weights == WeightsPolicy::File) {
        // The file holds the tensor contiguous: that is the storage of a contiguous program tensor.
        const std::span<const std::byte> src = file->bytes(fqn);
        FE_CHECK(static_cast<int64_t>(src.size()) == nbytes, ValueError, "save: '", fqn, "' in '",
                 file->path(), "' has ", src.size(), " bytes but its storage needs ", nbytes);
        zip.write(src);
      } else if (opts.weights == WeightsPolicy::Tensors) {
        FE_CHECK(p.tensor->has_storage(), ValueError, "save: '", p.path_name, "' (", m.annotation(),
                 ") is fake: it has no data to save; choose zeros, random or none for the weights");
        const std::byte* base = p.tensor->impl()->storage->data();
        zip.write(std::span(base, static_cast<size_t>(nbytes)));
      } else {
        // One tensor at a time, in 64 KiB chunks: the model is never materialized as a whole.
        std::vector<std::byte> chunk(std::min<int64_t>(nbytes, 1 << 16));
        const int64_t isz = itemsize(m.dtype);
        for (int64_t done = 0; done < nbytes;) {
          const int64_t n = std::min<int64_t>(nbytes - done, static_cast<int64_t>(chunk.size()));
          if (opts.weights == WeightsPolicy::Zeros || m.dtype != DType::Float32 || isz != 4) {
            std::fill(chunk.begin(), chunk.begin() + n, std::byte{0});
          } else {
            for (int64_t k = 0; k + 4 <= n; k += 4) {
              const float v = static_cast<float>(static_cast<double>(splitmix(rng) >> 11) * 0x1.0p-53 * 2.0 - 1.0);
              std::memcpy(chunk.data() + k, &v, 4);
            }
          }
          zip.write(std::span(chunk.data(), static_cast<size_t>(n)));
          done += n;
        }
      }
      zip.end_entry();
    }
  }
  zip.add(dir + config_name, dump_python_json(nlohmann::ordered_json{{"config", config}}));
}

}  // namespace

void save(const ExportedProgram& ep, const std::string& path, const SaveOptions& opts) {
  const std::string root = pytorch_archive_name(path) + "/";
  ZipWriter zip(path);
  std::set<std::string> params;
  for (const InputSpec& s : ep.signature.inputs)
    if (s.kind == InputKind::Parameter) params.insert(s.target);
  uint64_t rng = opts.seed;
  std::optional<SafetensorsFile> file;
  if (opts.weights == WeightsPolicy::File) {
    file.emplace(opts.weights_file);
    check_weights_file(*file, ep);
  }
  if (opts.weights == WeightsPolicy::Source) {
    FE_CHECK(opts.source != nullptr, ValueError, "save: weights policy Source without a source");
    const std::vector<std::string> problems = opts.source->problems(ep);
    if (!problems.empty()) {
      std::string msg = "save: the weights do not fit the program:";
      for (const auto& p : problems) msg += "\n  - " + p;
      throw ValueError(msg);
    }
  }
  const SafetensorsFile* f = file ? &*file : nullptr;
  std::map<std::string, Device> program_device;  // state fqn -> its placeholder's device
  for (const InputSpec& s : ep.signature.inputs) {
    if (s.target.empty()) continue;
    for (const Node* n : ep.graph.placeholders())
      if (n->name() == s.name && n->val.size() == 1) program_device.emplace(s.target, n->val[0].device);
  }
  write_payloads(zip, root + "data/weights/", "model_weights_config.json", ep.state_dict, params, program_device, opts,
                 rng, f);
  write_payloads(zip, root + "data/constants/", "model_constants_config.json", ep.constants, params, program_device,
                 opts, rng, f);
  zip.add(root + "models/model.json", dump_python_json(program_to_json(ep, {.torch_version = opts.torch_version})));
  zip.add(root + "data/sample_inputs/model.pt", sample_inputs(ep, path));
  zip.add(root + "archive_format", std::string_view("pt2"));
  zip.add(root + "archive_version", std::string_view("0"));
  zip.add(root + ".data/version", std::string_view("6\n"));
  zip.add(root + "byteorder", std::string_view("little"));
  if (opts.weights == WeightsPolicy::None)
    zip.add(root + kGraphOnlyEntry, std::string_view("none: graph-only archive written by fakeexport"));
  // PyTorch derives this id from hashes it does not make reproducible; ours is fixed per content.
  zip.add(root + ".data/serialization_id", std::string_view("fakeexport000000000000000000000000000000"));
  zip.finish();
}

bool is_graph_only(const ZipReader& zip) { return zip.contains(std::string(zip.root()) + "/" + kGraphOnlyEntry); }

}  // namespace fe::serde
