// The bad-input catalogue (docs/reliability.md): every class of malformed input, across every reader
// (the .pt2 container, model.json, the weights payloads, sample inputs, safetensors, config.json) and
// the command-line flags, driven through the CLI as a user meets it. Each must end in one line,
// "fakeexport: error: ...", naming what is wrong, and exit 2: never a crash, a hang, a silent answer.
// Inputs are built from real PyTorch archives, altered one field at a time.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "fakeexport/serde/zip.h"
#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

const std::string kFixtures = FE_FIXTURES_DIR;
const std::string kSmall = kFixtures + "/corpus/exportdb_list_contains.pt2";  // x + x, x: f32[3, 2]
const std::string kLlama = kFixtures + "/corpus/hf_llama_dyn.pt2";            // weights, symbols, a subgraph
const std::string kBert = std::string(FE_FIXTURES_DIR) + "/../../configs/bert-base-uncased.json";

/// A scratch directory for one test run, removed afterwards.
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("fe_bad_input_" + std::to_string(::getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  std::string write(const std::string& name, std::string_view bytes) const {
    std::ofstream(path(name), std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path(name);
  }
};

std::string bytes_of(const std::string& path) { return fe_test::read_file(path); }

/// `src`'s entries rewritten into `dst` (stored, PyTorch's layout), each entry whose name ends with
/// a key of `edits` replaced by its value (nullopt: dropped), then `extra` appended.
std::string rezip(const std::string& src, const std::string& dst,
                  const std::map<std::string, std::optional<std::string>>& edits,
                  const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  fe::serde::ZipReader in(src);
  fe::serde::ZipWriter out(dst);
  for (const auto& e : in.entries()) {
    std::optional<std::string> data = in.text(e.name);
    for (const auto& [suffix, v] : edits)
      if (e.name.ends_with(suffix)) data = v;
    if (data) out.add(e.name, *data);
  }
  for (const auto& [n, d] : extra) out.add(n, d);
  out.finish();
  return dst;
}

std::string entry_text(const std::string& archive, const std::string& suffix) {
  fe::serde::ZipReader z(archive);
  for (const auto& e : z.entries())
    if (e.name.ends_with(suffix)) return z.text(e.name);
  ADD_FAILURE() << archive << " has no " << suffix;
  return "";
}

/// `archive` with its model.json altered by `f`.
std::string with_model(const Scratch& s, const std::string& archive, const std::string& name,
                       const std::function<void(ordered_json&)>& f) {
  ordered_json j = ordered_json::parse(entry_text(archive, "models/model.json"));
  f(j);
  return rezip(archive, s.path(name), {{"models/model.json", j.dump()}});
}
std::string with_model_text(const Scratch& s, const std::string& archive, const std::string& name, std::string text) {
  return rezip(archive, s.path(name), {{"models/model.json", std::move(text)}});
}
std::string with_weights_config(const Scratch& s, const std::string& name, const std::function<void(ordered_json&)>& f) {
  ordered_json j = ordered_json::parse(entry_text(kLlama, "model_weights_config.json"));
  f(j);
  return rezip(kLlama, s.path(name), {{"model_weights_config.json", j.dump()}});
}

/// Every occurrence of `from` in the file replaced by `to` (same length): names in zip headers.
std::string patch(const std::string& path, const std::string& from, const std::string& to) {
  EXPECT_EQ(from.size(), to.size());
  std::string b = bytes_of(path);
  size_t n = 0;
  for (size_t i = 0; (i = b.find(from, i)) != std::string::npos; i += from.size(), ++n) b.replace(i, from.size(), to);
  EXPECT_GT(n, 0u) << from;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(b.data(), static_cast<std::streamsize>(b.size()));
  return path;
}

/// A safetensors file: the 8-byte little-endian header length, the header, the data.
std::string safetensors(const Scratch& s, const std::string& name, const std::string& header, size_t data_bytes = 0) {
  std::string b(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return s.write(name, b + header + std::string(data_bytes, '\0'));
}

/// `run` of the small program with a safetensors file of this header as its inputs.
std::string run_inputs(const Scratch& s, const std::string& name, const std::string& header, size_t data_bytes) {
  return "run " + kSmall + " --inputs " + safetensors(s, name, header, data_bytes);
}

std::string config(const Scratch& s, const std::string& name, const std::function<void(ordered_json&)>& f) {
  ordered_json j = ordered_json::parse(bytes_of(kBert));
  j["num_hidden_layers"] = 2;
  f(j);
  return s.write(name, j.dump());
}

std::string nested(size_t depth, const std::string& open, const std::string& inner, const std::string& close) {
  std::string t;
  for (size_t i = 0; i < depth; ++i) t += open;
  t += inner;
  for (size_t i = 0; i < depth; ++i) t += close;
  return t;
}

ordered_json& graph(ordered_json& j) { return j["graph_module"]["graph"]; }
ordered_json& first_tensor(ordered_json& j) { return graph(j)["tensor_values"].begin().value(); }

struct BadInput {
  const char* id;  ///< the class, as docs/reliability.md lists it
  std::function<std::string(const Scratch&)> args;  ///< writes its inputs, returns the CLI arguments
  std::string expect;  ///< in the message
};

std::vector<BadInput> catalogue() {
  using S = const Scratch&;
  std::vector<BadInput> c = {
      // ---- the .pt2 container
      {"pt2-missing-file", [](S s) { return "inspect " + s.path("nope.pt2"); }, "cannot open: No such file or directory"},
      {"pt2-directory", [](S s) { return "inspect " + s.dir.string(); }, "not a regular file (a directory)"},
      {"pt2-empty-file", [](S s) { return "inspect " + s.write("empty.pt2", ""); }, "truncated: 0 bytes"},
      {"pt2-not-a-zip", [](S s) { return "inspect " + s.write("text.pt2", std::string(300, 'x')); },
       "no end-of-central-directory record"},
      {"pt2-truncated", [](S s) { const std::string b = bytes_of(kSmall); return "inspect " + s.write("half.pt2", b.substr(0, b.size() / 2)); },
       "not a zip archive, or truncated"},
      {"pt2-trailing-garbage", [](S s) { return "inspect " + s.write("tail.pt2", bytes_of(kSmall) + "garbage"); },
       "(truncated, or trailing data)"},
      {"pt2-path-traversal", [](S s) {
         const std::string p = rezip(kSmall, s.path("trav.pt2"), {}, {{"exportdb_list_contains/xx/xx/etc/passwd", "x"}});
         return "inspect " + patch(p, "exportdb_list_contains/xx/xx/etc", "exportdb_list_contains/../../etc");
       }, "unsafe name: the name has a '..' component"},
      {"pt2-absolute-path", [](S s) {
         const std::string p = rezip(kSmall, s.path("abs.pt2"), {}, {{"xetc/passwd", "x"}});
         return "inspect " + patch(p, "xetc/passwd", "/etc/passwd");
       }, "unsafe name: the name is an absolute path"},
      {"pt2-compressed-entry", [](S s) {
         // A zip bomb needs compression: PT2 stores every entry, so any compressed entry is refused
         // before a byte is inflated (the method field, 0 -> 8, in the local and central headers).
         std::string p = rezip(kSmall, s.path("bomb.pt2"), {}, {{"exportdb_list_contains/bomb", std::string(1000, '\0')}});
         std::string b = bytes_of(p);
         const std::string name = "exportdb_list_contains/bomb";
         const size_t local = b.find(name) - 30, central = b.rfind(name) - 46;
         b[local + 8] = 8, b[central + 10] = 8;
         return "inspect " + s.write("bomb.pt2", b);
       }, "is compressed (method 8, deflate)"},
      {"pt2-entry-past-end", [](S s) {
         // The central directory claims a 2 GB entry in a 5 KB file.
         std::string b = bytes_of(rezip(kSmall, s.path("big.pt2"), {}, {{"exportdb_list_contains/big", "0123456789"}}));
         const size_t central = b.rfind("exportdb_list_contains/big") - 46;
         for (size_t off : {central + 20, central + 24}) b.replace(off, 4, std::string("\xf0\xff\xff\x7f", 4));
         return "inspect " + s.write("big.pt2", b);
       }, "exportdb_list_contains/big"},
      {"pt2-duplicate-entry", [](S s) {
         const std::string p = rezip(kSmall, s.path("dup.pt2"), {}, {{"exportdb_list_contains/models/model.jsoX", "{}"}});
         return "inspect " + patch(p, "models/model.jsoX", "models/model.json");
       }, "duplicate name"},
      {"pt2-no-model-json", [](S s) { return "inspect " + rezip(kSmall, s.path("nomodel.pt2"), {{"models/model.json", std::nullopt}}); },
       "not a PT2 archive written by torch.export.save"},
      {"pt2-wrong-archive-format", [](S s) { return "inspect " + rezip(kSmall, s.path("fmt.pt2"), {{"/archive_format", "zip"}}); },
       "archive_format: expected 'pt2', got 'zip'"},
      // ---- model.json
      {"json-syntax", [](S s) { return "inspect " + with_model_text(s, kSmall, "syntax.pt2", "{not json"); }, "not valid JSON"},
      {"json-truncated", [](S s) { return "inspect " + with_model_text(s, kSmall, "mtrunc.pt2", entry_text(kSmall, "models/model.json").substr(0, 100)); },
       "got end of input"},
      {"json-deep-nesting", [](S s) { return "inspect " + with_model_text(s, kSmall, "deep.pt2", nested(100000, "{\"a\":", "1", "}")); },
       "nesting deeper than 512 levels"},
      {"json-not-an-object", [](S s) { return "inspect " + with_model_text(s, kSmall, "null.pt2", "null"); }, "<root>: expected an object, got null"},
      {"json-oversized-record", [](S s) { return "--max-record-bytes 1000 inspect " + std::string(kSmall); },
       "bytes for a JSON record (raise it with --max-record-bytes)"},
      {"json-too-many-nodes", [](S s) { return "--max-nodes 20 inspect " + std::string(kLlama); },
       "nodes is over the limit of 20 nodes (raise it with --max-nodes)"},
      {"json-missing-field", [](S s) { return "inspect " + with_model(s, kSmall, "nofield.pt2", [](ordered_json& j) { j.erase("schema_version"); }); },
       "<root>: missing field 'schema_version'"},
      {"json-wrong-type", [](S s) { return "inspect " + with_model(s, kSmall, "type.pt2", [](ordered_json& j) { first_tensor(j)["sizes"] = "[3, 2]"; }); },
       ".sizes: expected a list, got string"},
      {"json-int-overflow", [](S s) {
         return "inspect " + with_model_text(s, kSmall, "ovf.pt2", std::regex_replace(entry_text(kSmall, "models/model.json"),
                                                                                         std::regex("\"as_int\": 3"), "\"as_int\": 99999999999999999999"));
       }, "overflows int64"},
      {"json-schema-version", [](S s) { return "inspect " + with_model(s, kSmall, "major.pt2", [](ordered_json& j) { j["schema_version"]["major"] = 99; }); },
       "unsupported schema version 99"},
      {"json-dangling-reference", [](S s) {
         return "check " + with_model(s, kSmall, "dangling.pt2", [](ordered_json& j) { graph(j)["nodes"][0]["inputs"][0]["arg"] = {{"as_tensor", {{"name", "ghost"}}}}; });
       }, "dangling name 'ghost' (no earlier node defines it)"},
      {"json-cyclic-order", [](S s) {
         // A node before the node defining its input: a graph read in order cannot hold a cycle.
         return "check " + with_model(s, kLlama, "order.pt2", [](ordered_json& j) { std::swap(graph(j)["nodes"][0], graph(j)["nodes"][3]); });
       }, "(no earlier node defines it)"},
      {"json-duplicate-name", [](S s) {
         return "check " + with_model(s, kSmall, "dupnode.pt2", [](ordered_json& j) { graph(j)["nodes"].push_back(graph(j)["nodes"][0]); });
       }, "name 'add' is defined twice"},
      {"json-negative-size", [](S s) { return "check " + with_model(s, kSmall, "neg.pt2", [](ordered_json& j) { first_tensor(j)["sizes"][0] = {{"as_int", -5}}; }); },
       ".sizes[0]: negative size -5"},
      {"json-overflowing-size", [](S s) {
         return "check " + with_model(s, kSmall, "huge.pt2", [](ordered_json& j) {
           for (auto& d : first_tensor(j)["sizes"]) d = {{"as_int", int64_t{1} << 62}};
         });
       }, "numel * itemsize overflows int64"},
      {"json-sizes-strides-mismatch", [](S s) { return "check " + with_model(s, kSmall, "rank.pt2", [](ordered_json& j) { first_tensor(j)["strides"].erase(0); }); },
       "2 sizes but 1 strides"},
      {"json-unknown-dtype", [](S s) { return "check " + with_model(s, kSmall, "dtype.pt2", [](ordered_json& j) { first_tensor(j)["dtype"] = 999; }); },
       "unknown or unsupported ScalarType 999"},
      {"json-bad-device", [](S s) { return "check " + with_model(s, kSmall, "dev.pt2", [](ordered_json& j) { first_tensor(j)["device"]["type"] = "warp"; }); },
       "bad device: Invalid device string: 'warp'"},
      {"json-output-spec-mismatch", [](S s) {
         return "check " + with_model(s, kLlama, "out.pt2", [](ordered_json& j) {
           j["graph_module"]["signature"]["output_specs"][0]["user_output"]["arg"] = {{"as_tensor", {{"name", "ghost"}}}};
         });
       }, "names 'ghost' but graph output 0 is"},
      // ---- weights and constants payloads
      {"weights-missing-payload", [](S s) {
         return "run " + with_weights_config(s, "wmiss.pt2", [](ordered_json& j) { j["config"].begin().value()["path_name"] = "weight_999"; });
       }, "payload entry 'hf_llama_dyn/data/weights/weight_999' is missing"},
      {"weights-short-payload", [](S s) { return "run " + rezip(kLlama, s.path("wshort.pt2"), {{"weights/weight_0", "1234567"}}); },
       "has 7 bytes but 16384 are required"},
      {"weights-storage-overflow", [](S s) {
         return "run " + with_weights_config(s, "woff.pt2", [](ordered_json& j) {
           j["config"].begin().value()["tensor_meta"]["storage_offset"] = {{"as_int", int64_t{1} << 62}};
         });
       }, "storage bytes overflow int64"},
      {"weights-meta-mismatch", [](S s) {
         return "run " + with_weights_config(s, "wmeta.pt2", [](ordered_json& j) {
           j["config"].begin().value()["tensor_meta"]["sizes"][0] = {{"as_int", 64}};
         });
       }, "records f32[64, 32] but the program's placeholder is f32[128, 32]"},
      {"weights-unlisted-state", [](S s) {
         return "check " + with_model(s, kLlama, "wstate.pt2", [](ordered_json& j) {
           auto& spec = j["graph_module"]["signature"]["input_specs"][0];
           spec.begin().value()["parameter_name"] = "model.nope.weight";
         });
       }, "parameter or buffer 'model.nope.weight' has no entry (the signature names it)"},
      {"weights-config-not-object", [](S s) { return "inspect " + rezip(kLlama, s.path("wcfg.pt2"), {{"model_weights_config.json", "[]"}}); },
       "expected {\"config\": {...}}"},
      // ---- sample inputs (a torch.save archive inside the .pt2, read by the restricted unpickler)
      {"pickle-truncated", [](S s) { return "run " + rezip(kLlama, s.path("sit.pt2"), {{"sample_inputs/model.pt", "PK\x03\x04 truncated"}}); },
       "cannot hold a zip archive"},
      {"pickle-forbidden-global", [](S s) {
         const std::string evil = bytes_of(kFixtures + "/torch_save/malicious_os_system.pt");
         return "run " + rezip(kLlama, s.path("evil.pt2"), {{"sample_inputs/model.pt", evil}});
       }, "uses global 'os.system' at byte 2, which a weights file never needs; refusing to run it"},
      {"pickle-legacy-format", [](S s) {
         return "run " + rezip(kLlama, s.path("legacy.pt2"), {{"sample_inputs/model.pt", std::string("\x80\x02]q\x00.", 6)}});
       }, "a bare pickle: the legacy torch.save format"},
      // ---- safetensors (run --inputs; export --weights reads the same way)
      {"st-empty", [](S s) { return "run " + kSmall + " --inputs " + s.write("e.safetensors", ""); }, "fewer than the 8-byte header length prefix"},
      {"st-header-too-large", [](S s) { return "run " + kSmall + " --inputs " + s.write("h.safetensors", std::string("\0\0\0\0\0\0\0\x80{}", 10)); },
       "exceeds safetensors' limit of 100000000 bytes"},
      {"st-header-not-json", [](S s) { return "run " + kSmall + " --inputs " + safetensors(s, "nj.safetensors", "{nope"); }, "header is not valid JSON"},
      {"st-offsets-out-of-range", [](S s) { return run_inputs(s, "off.safetensors", R"({"x": {"dtype": "F32", "shape": [4], "data_offsets": [0, 1000]}})", 16); },
       "runs past the end of the data buffer (16 bytes)"},
      {"st-unknown-dtype", [](S s) { return run_inputs(s, "dt.safetensors", R"({"x": {"dtype": "Q7", "shape": [4], "data_offsets": [0, 16]}})", 16); },
       "unknown or unsupported dtype \"Q7\""},
      {"st-shape-overflow", [](S s) { return run_inputs(s, "so.safetensors", R"({"x": {"dtype": "F32", "shape": [1099511627776, 1099511627776], "data_offsets": [0, 16]}})", 16); },
       "has numel * itemsize beyond int64"},
      {"st-negative-shape", [](S s) { return run_inputs(s, "ns.safetensors", R"({"x": {"dtype": "F32", "shape": [-1, -24], "data_offsets": [0, 24]}})", 24); },
       "not a non-negative integer"},
      {"st-deep-nesting", [](S s) { return "run " + kSmall + " --inputs " + safetensors(s, "deep.safetensors", nested(100000, "{\"a\":", "1", "}")); },
       "tensor \"a\": missing field 'dtype'"},
      {"st-missing-input", [](S s) { return run_inputs(s, "wn.safetensors", R"({"zzz": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})", 16); },
       "no tensor named 'x' (the program's input 'x')"},
      {"st-input-wrong-shape", [](S s) { return run_inputs(s, "ws.safetensors", R"({"x": {"dtype": "F32", "shape": [7], "data_offsets": [0, 28]}})", 28); },
       "input 'x' has 1 dims (f32[7]) but the program takes f32[3, 2]"},
      {"st-input-wrong-dtype", [](S s) { return run_inputs(s, "wd.safetensors", R"({"x": {"dtype": "I32", "shape": [3, 2], "data_offsets": [0, 24]}})", 24); },
       "input 'x' is i32[3, 2] on cpu but the program takes f32[3, 2] on cpu"},
      // ---- config.json
      {"cfg-not-json", [](S s) { return "export " + s.write("c1.json", "{oops"); }, "not valid JSON"},
      {"cfg-not-an-object", [](S s) { return "export " + s.write("c2.json", "[1, 2]"); }, "a config must be a JSON object, got array"},
      {"cfg-deep-nesting", [](S s) { return "export " + s.write("c3.json", nested(100000, "{\"a\":", "1", "}")); }, "field 'model_type' is missing"},
      {"cfg-oversized", [](S s) { return "--max-json-bytes 100 export " + kBert; }, "(raise it with --max-json-bytes)"},
      {"cfg-wrong-type", [](S s) { return "export " + config(s, "c4.json", [](ordered_json& j) { j["hidden_size"] = "big"; }); },
       "field 'hidden_size' must be an integer, got \"big\""},
      {"cfg-float-beyond-int64", [](S s) { return "export " + s.write("c5.json", R"({"model_type": "gpt2", "n_layer": 2e48})"); }, "n_layer"},
      {"cfg-non-positive-size", [](S s) { return "export " + config(s, "c6.json", [](ordered_json& j) { j["num_attention_heads"] = 0; }); },
       "field 'num_attention_heads' = 0 must be >= 1"},
      {"cfg-negative-layers", [](S s) { return "export " + config(s, "c7.json", [](ordered_json& j) { j["num_hidden_layers"] = -2; }); },
       "field 'num_hidden_layers' = -2 must be >= 0"},
      {"cfg-too-many-layers", [](S s) { return "export " + config(s, "c8.json", [](ordered_json& j) { j["num_hidden_layers"] = 100000000; }); },
       "is over the limit of 1024 layers (raise it with --max-layers)"},
      {"cfg-overflowing-size", [](S s) { return "export " + config(s, "c9.json", [](ordered_json& j) { j["vocab_size"] = int64_t{1} << 62; }); },
       "building the bert model: contiguous strides: int64 overflow"},
      {"cfg-indivisible-heads", [](S s) { return "export " + config(s, "c10.json", [](ordered_json& j) { j["num_attention_heads"] = 7; }); },
       "is not a multiple of 'num_attention_heads' = 7"},
      {"cfg-missing-field", [](S s) { return "export " + config(s, "c11.json", [](ordered_json& j) { j.erase("hidden_size"); }); },
       "field 'hidden_size' is missing"},
      {"cfg-unknown-model-type", [](S s) { return "export " + config(s, "c12.json", [](ordered_json& j) { j["model_type"] = "warpdrive"; }); },
       "unknown model_type 'warpdrive'"},
      {"cfg-unsupported-activation", [](S s) { return "export " + config(s, "c13.json", [](ordered_json& j) { j["hidden_act"] = "warp"; }); },
       "field 'hidden_act' = 'warp' is not supported"},
      {"cfg-unknown-model", [](S s) { return std::string("export nosuchmodel"); }, "unknown model 'nosuchmodel'"},
      // ---- flags
      {"flag-unknown", [](S s) { return std::string("export mlp --frobnicate"); }, "--frobnicate"},
      {"flag-not-an-integer", [](S s) { return std::string("export llama --batch abc"); }, "--batch: expected an integer in [1, 2147483648], got 'abc'"},
      {"flag-out-of-range", [](S s) { return std::string("export llama --seq 4611686018427387904"); }, "--seq: expected an integer in [1, 2147483648]"},
      {"flag-negative-size", [](S s) { return std::string("export llama --batch -1"); }, "--batch: expected an integer in [1, 2147483648], got '-1'"},
      {"flag-bad-device", [](S s) { return std::string("export mlp --device tpu"); }, "--device: Invalid device string: 'tpu'"},
      {"flag-bad-device-index", [](S s) { return std::string("export mlp --device cuda:-1"); }, "index must be an integer in [0, 127]"},
      {"flag-bad-dtype", [](S s) { return std::string("export llama --dtype float7"); }, "--dtype: unsupported dtype 'float7'"},
      {"flag-bad-dynamic-dim", [](S s) { return std::string("export llama --dynamic width"); }, "--dynamic: unknown dimension 'width'"},
      {"flag-empty-range", [](S s) { return std::string("export llama --dynamic-range seq=9:3"); }, "need 0 <= MIN <= MAX"},
      {"flag-bad-place", [](S s) { return std::string("export llama --place nonsense"); }, "--place: expected PREFIX=DEVICE"},
      {"flag-bad-pipeline", [](S s) { return std::string("export llama --pipeline ,"); }, "--pipeline: Invalid device string: ''"},
      {"flag-bad-map", [](S s) { return "retarget " + kSmall + " --map cpu=cuda:x"; }, "--map: Invalid device string: 'cuda:x'"},
      {"flag-bad-arch", [](S s) { return std::string("export llama --device cuda:0 --arch sm70"); }, "--arch: expected sm80 or sm90, got 'sm70'"},
      {"flag-bad-seq-multiple", [](S s) { return std::string("export llama --dynamic batch,seq --seq-multiple 3"); },
       "--seq-multiple 3 needs an example --seq that is a multiple of it, at least 6 (export specializes _seq = 1), got 8 (the default)"},
      {"flag-empty-target", [](S s) { return "check " + kSmall + " --target ''"; }, "--target: names no device"},
      {"flag-bad-capacity", [](S s) { return std::string("memory llama --cap cuda:0=lots"); }, "--cap: item 'cuda:0=lots': malformed size 'lots'"},
      {"flag-unknown-accelerator", [](S s) { return std::string("memory llama --devices 9xNoSuchGPU"); }, "unknown device 'NoSuchGPU'"},
      {"flag-negative-reserve", [](S s) { return std::string("memory llama --reserve -1GB"); }, "--reserve: negative size '-1GB'"},
      {"flag-absurd-kv-cache", [](S s) { return std::string("memory llama --kv-cache 99999999999"); }, "--kv-cache: expected a length in [0, 2147483648]"},
      {"flag-unwritable-output", [](S s) { return std::string("export mlp -o /nonexistent/dir/x.pt2"); }, "cannot create: No such file or directory"},
      {"flag-missing-library", [](S s) { return "--load-library " + s.path("nope.so") + " inspect " + kSmall; }, "cannot open shared object file"},
      {"flag-not-a-library", [](S s) { return "--load-library " + kSmall + " inspect " + kSmall; }, "invalid ELF header"},
      {"flag-unknown-operator", [](S s) { return "decompose " + kSmall + " --keep aten.nosuch.default"; }, "unknown operator 'aten.nosuch.default'"},
      {"limit-time", [](S s) {
         // A file that never delivers (a FIFO no one writes): the time limit ends the wait.
         const std::string fifo = s.path("fifo.pt2");
         EXPECT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
         return "--max-seconds 1 inspect " + fifo;
       }, "ran past its time limit of 1 s (raise it with --max-seconds, 0 for none)"},
  };
  return c;
}

}  // namespace

TEST(BadInput, EveryClassIsOneTypedLineAndExitTwo) {
  const Scratch s;
  const std::vector<BadInput> cases = catalogue();
  ASSERT_GE(cases.size(), 40u);
  for (const BadInput& b : cases) {
    SCOPED_TRACE(b.id);
    const fe_test::CliResult r = fe_test::run_cli(b.args(s));
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_EQ(r.out.rfind("fakeexport: error: ", 0), 0u) << r.out;
    ASSERT_FALSE(r.out.empty());
    EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "not one line: " << r.out;
    EXPECT_NE(r.out.find(b.expect), std::string::npos) << "expected '" << b.expect << "' in: " << r.out;
  }
}

// docs/reliability.md's table lists exactly these classes.
TEST(BadInput, CatalogueIsDocumented) {
  const std::string doc = fe_test::read_file(kFixtures + "/../../docs/reliability.md");
  std::set<std::string> documented;
  const std::regex row(R"(\n\| `([a-z0-9-]+)` \|)");
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), row); it != std::sregex_iterator(); ++it)
    documented.insert((*it)[1]);
  std::set<std::string> tested;
  for (const BadInput& b : catalogue()) EXPECT_TRUE(tested.insert(b.id).second) << "duplicate class " << b.id;
  EXPECT_EQ(documented, tested);
}
