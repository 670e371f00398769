// The `models/<name>.json` document of a .pt2 archive (torch.export.save): PyTorch's serialized
// ExportedProgram, schema 8.x (torch/_export/serde/schema.py). Reads what torch 2.9-2.14 write
// (schema 8.14-8.20) into our ExportedProgram, and writes what 2.14 writes (schema 8.20).
// Never executes anything from the file; every malformed field is a FormatError naming it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fakeexport/core/dtype.h"
#include "fakeexport/core/layout.h"
#include "fakeexport/export/exported_program.h"
#include "fakeexport/serde/safetensors.h"  // FormatError
#include "fakeexport/sym/expr.h"

namespace fe::serde {

/// The versions a model.json names (filled by program_from_json_text when asked).
struct Pt2Versions {
  std::string schema;  ///< "8.20"; empty when the file has no schema_version object
  std::string torch;   ///< "2.14.1"; empty when absent
};

struct Pt2ReadOptions {
  /// Named in error messages ("model.json: graph_module.graph.nodes[3] ...").
  std::string source = "model.json";
  /// Fill ExportedProgram::state_dict / constants with fake tensors of the recorded metadata
  /// (the archive's weights, when read, replace them).
  bool fake_state = true;
  /// When set, receives the file's schema and torch versions (read from the same parse).
  Pt2Versions* versions = nullptr;
  /// Nodes of the program, subgraphs included, before a LimitError (--max-nodes).
  int64_t max_nodes = 1'000'000;
};

/// Builds an ExportedProgram from a model.json document. Key order matters (range_constraints
/// print in file order), so pass an ordered_json (what program_from_json_text parses into).
/// Ops our registry lacks load as opaque nodes (an OpDef owned by the program, no meta function).
/// Throws FormatError naming the field / node and the offending value.
ExportedProgram program_from_json(const nlohmann::ordered_json& model_json, const Pt2ReadOptions& opts = {});
/// Same from an nlohmann::json, whose objects are key-sorted: range constraints are then ordered
/// as export orders them (by first appearance in the user inputs' sizes).
ExportedProgram program_from_json(const nlohmann::json& model_json, const Pt2ReadOptions& opts = {});
/// Parses JSON text (FormatError on a syntax error) and reads it.
ExportedProgram program_from_json_text(std::string_view text, const Pt2ReadOptions& opts = {});

struct Pt2WriteOptions {
  std::string torch_version = "2.14.1";
  int schema_major = 8, schema_minor = 20;
  /// ExportedProgram::verifiers; empty: the program's own dialect.
  std::string verifier;
  /// Read source files for the code line of synthesized stack traces.
  bool read_source = true;
};

/// The model.json document PyTorch 2.14 writes for this program, keys in PyTorch's order.
/// Fields we cannot know for a program we traced: node metadata "torch_fn" / "source_fn_stack"
/// (Python call kinds) are omitted; stack_trace is synthesized from the C++ call site.
nlohmann::ordered_json program_to_json(const ExportedProgram& ep, const Pt2WriteOptions& opts = {});
/// json.dumps(...) bytes as torch writes them: one line, ", " and ": " separators, ASCII only.
std::string dump_python_json(const nlohmann::ordered_json& j);

// ---- building blocks shared by the reader and the writer (and the archive code)

/// A TensorMeta as schema.py's TensorMeta (dtype, sizes, requires_grad, device, strides, ...).
nlohmann::ordered_json tensor_meta_to_json(const TensorMeta& m);
/// schema.py's ScalarType numbering (FLOAT = 7, BOOL = 12, ...), not c10's.
int serialized_dtype(DType t);
/// nullopt for numbers outside the enum or dtypes we lack (FLOAT8E8M0FNU).
std::optional<DType> dtype_from_serialized(int64_t v);
int serialized_layout(Layout l);
std::optional<Layout> layout_from_serialized(int64_t v);
int serialized_memory_format(MemoryFormat m);
std::optional<MemoryFormat> memory_format_from_serialized(int64_t v);

/// Parses a SymExpr.expr_str: sympy srepr ("Mul(Integer(48), Symbol('s75', positive=True,
/// integer=True))", torch >= 2.6) or infix str() ("48*s75", older files). FormatError otherwise.
sym::Expr parse_sym_expr(std::string_view text);
/// sympy.srepr of an expression, as serialize_sym_int writes it.
std::string sym_expr_srepr(const sym::Expr& e);

}  // namespace fe::serde
