// The model.json reader's state, shared by its two halves: pt2_json_read.cpp (program, symbols,
// tensor values, signature) and pt2_json_read_graph.cpp (graphs, nodes, arguments, subgraphs).
// It follows torch/_export/serde/serialize.py's GraphModuleDeserializer.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "fakeexport/core/error.h"
#include "fakeexport/serde/json.h"
#include "fakeexport/serde/pt2_json.h"

namespace fe::serde::detail_read {

using OJ = json::Value;

std::string preview(const OJ& v);
std::string type_name(const OJ& v);

class Reader {
 public:
  Reader(const Pt2ReadOptions& o, bool keys_sorted) : opts_(o), keys_sorted_(keys_sorted) {}
  /// Reads a parsed model.json (values view the document, which must outlive the call).
  ExportedProgram read(const OJ& root);

 private:
  // ---- typed access; every failure names the path and the value (pt2_json_read.cpp)
  [[noreturn]] void fail(const std::string& path, const std::string& what) const;
  static std::string sub(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }
  const OJ& req(const OJ& o, std::string_view key, const std::string& path) const;
  const OJ* opt(const OJ& o, std::string_view key) const {
    const OJ* v = o.find(key);  // nullptr for non-objects
    return v && !v->is_null() ? v : nullptr;
  }
  /// The elements of a list.
  std::span<const OJ> arr(const OJ& v, const std::string& path) const;
  const OJ& obj(const OJ& v, const std::string& path) const;
  int64_t get_int(const OJ& v, const std::string& path) const;
  bool get_bool(const OJ& v, const std::string& path) const;
  std::string get_str(const OJ& v, const std::string& path) const;
  double get_float(const OJ& v, const std::string& path) const;
  /// A union: an object with exactly one key.
  std::pair<std::string, const OJ*> tag(const OJ& v, const std::string& path) const;

  // ---- ranges, symbols, values (pt2_json_read.cpp)
  void read_ranges(const OJ& root);
  void scan_hints(const OJ& graph, int depth);
  sym::Expr parse_cached(const std::string& text, const std::string& path);
  sym::ShapeEnv& env();
  SymInt symbol(const std::string& name);
  SymInt sym_int(const OJ& v, const std::string& path);
  TensorMeta tensor_meta(const std::string& name, const std::string& user);
  Device device(const OJ& v, const std::string& path);
  SymInt sym_value(const std::string& name, const std::string& path);

  // ---- graphs (pt2_json_read_graph.cpp)
  /// One serialized Graph being read: names are local to it (save_graph_module).
  struct Scope {
    Graph* g = nullptr;
    std::string path;
    std::unordered_map<std::string_view, const OJ*> tensor_values, sym_int_values, sym_bool_values, sym_float_values;
    std::unordered_map<std::string, Node*> nodes;
  };
  Scope& cur() { return *scopes_.back(); }
  /// Reads `graph` into `g`; `specs` (top graph only) name constant inputs.
  void read_graph(const OJ& graph, Graph& g, const std::string& path, const OJ* specs);
  void index_values(const OJ& graph, const std::string& path);
  void read_node(const OJ& sn, const std::string& path0);
  void read_sym_op(const OJ& sn, PyOp op, const std::string& path);
  void read_op_call(const OJ& sn, const std::string& target, const std::string& path);
  void read_other_call(const OJ& sn, const std::string& target, const std::string& path);
  /// Defines the outputs of a node whose value is a tuple: one getitem per element.
  void define_elements(Node* n, const std::vector<std::string>& elems, const std::string& path);
  Node* node_named(const std::string& name, const std::string& path);
  Node* tensor_node(const std::string& name, const std::string& path);
  void define(const std::string& name, Node* n, const std::string& path);
  SymInt sym_arg(const OJ& v, const std::string& path);
  std::string tensor_name(const OJ& v, const std::string& path) { return get_str(req(v, "name", path), path + ".name"); }
  NodeArg argument(const OJ& v, const std::string& path);
  Node* graph_argument(const OJ& v, const std::string& path);
  Opaque opaque(const std::string& kind, std::string repr, const OJ& v) const;
  const OpDef* opaque_op(const std::string& ns, const std::string& name, const std::string& overload,
                         std::span<const OJ> inputs, std::span<const OJ> outputs, const std::string& path);
  const Callable* callable(const std::string& target);
  void read_metadata(Node* n, const OJ* md, const std::string& path);
  /// `path` names the node's metadata (errors add ".nn_module_stack").
  std::shared_ptr<const ModuleStack> module_stack(const std::string& s, const std::string& path);

  // ---- signature, module call graph, state (pt2_json_read.cpp)
  void read_signature(const OJ& sig, const std::string& path);
  std::vector<std::string> arg_names(const OJ& list, const std::string& path);
  void read_module_call_graph(const OJ& mcg);
  void fill_state();

  const Pt2ReadOptions& opts_;
  bool keys_sorted_;
  ExportedProgram ep_;
  std::shared_ptr<sym::ShapeEnv> env_;
  std::vector<std::pair<std::string, sym::ValueRange>> ranges_;
  std::vector<std::unique_ptr<Scope>> scopes_;
  std::unordered_map<std::string, int64_t> hints_;
  std::unordered_map<std::string, sym::Expr> exprs_;
  std::unordered_map<std::string, SymInt> symbols_;
  std::unordered_map<std::string, std::shared_ptr<const ModuleStack>> stacks_;
  std::unordered_map<std::string, const OpDef*> op_cache_;  ///< "torch.ops.aten.mm.default" -> its OpDef
  std::unordered_map<std::string, Node*> top_nodes_;  ///< the top graph's names, for the signature
  std::vector<std::string> input_names_;
};

}  // namespace fe::serde::detail_read
