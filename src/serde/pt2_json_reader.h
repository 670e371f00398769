// The model.json reader's state, shared by its two halves: pt2_json_read.cpp (program, symbols,
// tensor values, signature) and pt2_json_read_graph.cpp (graphs, nodes, arguments, subgraphs).
// It follows torch/_export/serde/serialize.py's GraphModuleDeserializer.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fakeexport/core/error.h"
#include "fakeexport/serde/json.h"
#include "fakeexport/serde/pt2_json.h"

namespace fe::serde::detail_read {

using OJ = json::Value;

std::string preview(const OJ& v);
std::string type_name(const OJ& v);

/// Where a value sits in model.json: a chain of segments living on the reader's stack, turned into
/// text ("graph_module.graph.nodes[3] (add).inputs[other].arg") only when a read fails, so reading a
/// well-formed file builds no path strings. A segment points at its parent, so a Path must not
/// outlive the one it was made from: the rvalue overloads are deleted to keep a named Path from
/// being built on a temporary (`Path p = (a / "x") / "y"` would dangle).
class Path {
 public:
  /// The document's root (prints as "").
  Path() = default;
  /// ".key" (no dot at the root).
  Path operator/(std::string_view key) const& { return {this, Seg::Key, key, 0}; }
  /// "[i]".
  Path operator[](size_t i) const& { return {this, Seg::Index, {}, i}; }
  /// "[key]": an argument named by its schema name.
  Path keyed(std::string_view key) const& { return {this, Seg::Keyed, key, 0}; }
  /// " (name)": a node, with the name it carries in the file.
  Path named(std::string_view name) const& { return {this, Seg::Named, name, 0}; }
  Path operator/(std::string_view) const&& = delete;
  Path operator[](size_t) const&& = delete;
  Path keyed(std::string_view) const&& = delete;
  Path named(std::string_view) const&& = delete;
  /// The dotted text of this path.
  std::string str() const;

 private:
  enum class Seg : uint8_t { Root, Key, Index, Keyed, Named };
  Path(const Path* parent, Seg seg, std::string_view key, size_t index)
      : parent_(parent), seg_(seg), key_(key), index_(index) {}
  void append_to(std::string& out) const;
  const Path* parent_ = nullptr;
  Seg seg_ = Seg::Root;
  std::string_view key_;
  size_t index_ = 0;
};

class Reader {
 public:
  Reader(const Pt2ReadOptions& o, bool keys_sorted) : opts_(o), keys_sorted_(keys_sorted) {}
  /// Reads a parsed model.json (values and names view the document, which must outlive the call).
  ExportedProgram read(const OJ& root);

 private:
  // ---- typed access; every failure names the path and the value (pt2_json_read.cpp). Checks are
  // inline so that the well-formed case costs a tag test; the messages are built out of line.
  [[noreturn]] void fail(const Path& path, const std::string& what) const;
  [[noreturn]] void type_fail(const OJ& v, const Path& path, const char* expected) const;
  const OJ& req(const OJ& o, std::string_view key, const Path& path) const {
    if (!o.is_object()) type_fail(o, path, "an object");
    const OJ* v = o.find(key);
    if (!v) fail(path, "missing field '" + std::string(key) + "'");
    return *v;
  }
  const OJ* opt(const OJ& o, std::string_view key) const {
    const OJ* v = o.find(key);  // nullptr for non-objects
    return v && !v->is_null() ? v : nullptr;
  }
  /// The elements of a list.
  std::span<const OJ> arr(const OJ& v, const Path& path) const {
    if (!v.is_array()) type_fail(v, path, "a list");
    return v.elements();
  }
  const OJ& obj(const OJ& v, const Path& path) const {
    if (!v.is_object()) type_fail(v, path, "an object");
    return v;
  }
  int64_t get_int(const OJ& v, const Path& path) const {
    if (v.kind() != json::Kind::Integer) int_fail(v, path);
    return v.as_int();
  }
  bool get_bool(const OJ& v, const Path& path) const {
    if (!v.is_boolean()) type_fail(v, path, "a bool");
    return v.as_bool();
  }
  /// A string's bytes, viewing the document.
  std::string_view get_str(const OJ& v, const Path& path) const {
    if (!v.is_string()) type_fail(v, path, "a string");
    return v.as_string();
  }
  double get_float(const OJ& v, const Path& path) const;
  /// A union: an object with exactly one key.
  std::pair<std::string_view, const OJ*> tag(const OJ& v, const Path& path) const {
    if (!v.is_object() || v.size() != 1) fail(path, "expected a union (an object with one key), got " + preview(v));
    const json::Member& m = v.members()[0];
    return {m.key, &m.value};
  }
  [[noreturn]] void int_fail(const OJ& v, const Path& path) const;

  // ---- ranges, symbols, values (pt2_json_read.cpp)
  void read_ranges(const OJ& root);
  void scan_hints(const OJ& graph, int depth);
  sym::Expr parse_cached(std::string_view text, const Path& path);
  sym::ShapeEnv& env();
  SymInt symbol(const std::string& name);
  SymInt sym_int(const OJ& v, const Path& path);
  TensorMeta tensor_meta(std::string_view name, const Path& user);
  Device device(const OJ& v, const Path& path);
  SymInt sym_value(std::string_view name, const Path& path);

  // ---- graphs (pt2_json_read_graph.cpp)
  /// One serialized Graph being read: names are local to it (save_graph_module). Names view the
  /// document (or, for nodes the file leaves unnamed, the node's own name).
  struct Scope {
    Graph* g = nullptr;
    const Path* path = nullptr;  ///< the graph's path; lives on read_graph's caller's stack
    /// The graph's value tables (null when absent), looked up with find(): the parser indexes big
    /// objects, so a table of 9,000 tensors costs no map of our own.
    const OJ* tensor_values = nullptr;
    const OJ* sym_int_values = nullptr;
    const OJ* sym_float_values = nullptr;  ///< item() of a float tensor: `Symbol('zuf0')`
    std::unordered_map<std::string_view, Node*> nodes;
  };
  Scope& cur() { return *scopes_.back(); }
  /// Reads `graph` into `g`; `specs` (top graph only) name constant inputs.
  void read_graph(const OJ& graph, Graph& g, const Path& path, const OJ* specs);
  void index_values(const OJ& graph, const Path& path);
  void read_node(const OJ& sn, const Path& path0);
  void read_sym_op(const OJ& sn, PyOp op, const Path& path);
  void read_op_call(const OJ& sn, std::string_view target, const Path& path);
  void read_other_call(const OJ& sn, std::string_view target, const Path& path);
  /// Defines the outputs of a node whose value is a tuple: one getitem per element.
  void define_elements(Node* n, const std::vector<std::string_view>& elems, const Path& path);
  Node* node_named(std::string_view name, const Path& path);
  Node* tensor_node(std::string_view name, const Path& path);
  void define(std::string_view name, Node* n, const Path& path);
  SymInt sym_arg(const OJ& v, const Path& path);
  std::string_view tensor_name(const OJ& v, const Path& path) {
    const Path p = path / "name";
    return get_str(req(v, "name", path), p);
  }
  NodeArg argument(const OJ& v, const Path& path);
  Node* graph_argument(const OJ& v, const Path& path);
  Opaque opaque(std::string_view kind, std::string repr, const OJ& v) const;
  const OpDef* opaque_op(std::string_view ns, std::string_view name, std::string_view overload,
                         std::span<const OJ> inputs, std::span<const OJ> outputs, const Path& path);
  const Callable* callable(std::string_view target);
  void read_metadata(Node* n, const OJ* md, const Path& path);
  std::shared_ptr<const ModuleStack> module_stack(std::string_view s, const Path& path);

  // ---- signature, module call graph, state (pt2_json_read.cpp)
  void read_signature(const OJ& sig, const Path& path);
  std::vector<std::string> arg_names(const OJ& list, const Path& path);
  void read_module_call_graph(const OJ& mcg, const Path& path);
  void fill_state();

  const Pt2ReadOptions& opts_;
  bool keys_sorted_;
  int64_t nodes_read_ = 0;  ///< every graph's nodes so far, against opts_.max_nodes
  ExportedProgram ep_;
  std::shared_ptr<sym::ShapeEnv> env_;
  std::vector<std::pair<std::string, sym::ValueRange>> ranges_;
  std::vector<std::unique_ptr<Scope>> scopes_;
  const OJ* hint_graph_ = nullptr;  ///< the top graph, scanned for hints when the first symbol is made
  std::unordered_map<std::string, int64_t> hints_;
  std::unordered_map<std::string_view, sym::Expr> exprs_;
  std::unordered_map<std::string, SymInt> symbols_;
  /// Symbols some size, stride or symbolic value names: PyTorch's loader keeps only their range
  /// constraints ("Symbol u0 did not appear in the graph"); storage offsets it never reads.
  std::unordered_set<std::string> used_symbols_;
  bool reading_offset_ = false;  ///< sym_int is reading a storage_offset
  std::unordered_map<std::string_view, std::shared_ptr<const ModuleStack>> stacks_;
  std::pair<std::string_view, std::shared_ptr<const ModuleStack>> last_stack_;  ///< consecutive nodes share one
  std::unordered_map<std::string_view, const OpDef*> op_cache_;  ///< "torch.ops.aten.mm.default" -> its OpDef
  std::vector<std::pair<std::string_view, Device>> devices_;      ///< serialized device objects already parsed
  std::unordered_map<std::string_view, Node*> top_nodes_;         ///< the top graph's names, for the signature
  std::vector<std::string_view> input_names_;
};

}  // namespace fe::serde::detail_read
