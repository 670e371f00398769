// FunctionSchema: the parsed form of a native_functions.yaml schema string, the single declaration
// of an op's arguments (names, types, defaults, kwarg-only, aliasing) and returns.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fakeexport/ops/ivalue.h"

namespace fe {

/// Base type of a schema argument or return.
enum class ArgBase : uint8_t {
  Tensor, Int, SymInt, Float, Bool, Str, Scalar, ScalarType, Layout, Device, MemoryFormat, Generator,
  Storage  ///< an untyped storage (aten::set_.source_Storage): parsed and printed, never a value of ours
};

/// Type of one argument: base, list-ness (`int[2]`), optional-ness (`?`), alias set (`Tensor(a!)`).
struct ArgType {
  ArgBase base = ArgBase::Tensor;
  bool is_list = false;
  int list_size = 0;  ///< `int[2]`: 2; 0 when unsized
  bool optional = false;
  char alias_set = 0;  ///< 'a' for Tensor(a), 0 when none
  bool is_write = false;
  bool alias_to_wildcard = false;  ///< `Tensor(a -> *)[]`
  bool elem_optional = false;  ///< `Tensor?[]`
};

struct Argument {
  std::string name;
  ArgType type;
  std::optional<Constant> default_value;
  std::string default_text;  ///< as written in the schema, for printing
  bool kwarg_only = false;
};

struct FunctionSchema {
  std::string ns;        ///< "aten"
  std::string name;      ///< "linear"
  std::string overload;  ///< "default" when the text names none
  std::vector<Argument> arguments;
  std::vector<Argument> returns;  ///< names may be empty

  /// "aten::linear.default"
  std::string qualified_name() const;
  /// Canonical text, identical to str(torch.ops.aten.X.Y._schema) for schemas PyTorch prints.
  std::string str() const;
  /// Index of argument `name`, or -1.
  int arg_index(std::string_view name) const;
};

/// Parses a schema string; throws ValueError naming the text and position when malformed.
FunctionSchema parse_schema(std::string_view text);

/// How many leading arguments FX prints positionally: PyTorch's torch_dispatch packing emits every
/// non-kwarg-only argument up to the last one that differs from its default (trailing defaults
/// are dropped; an earlier default-valued one is still printed). Kwarg-only arguments print as
/// `name = value` when they differ from their default.
template <class T>
size_t positional_count(const FunctionSchema& s, const std::vector<ValueT<T>>& args) {
  size_t n = 0;
  for (size_t i = 0; i < args.size() && i < s.arguments.size(); ++i) {
    const Argument& a = s.arguments[i];
    if (a.kwarg_only) break;
    if (!a.default_value || !equals_constant(args[i], *a.default_value)) n = i + 1;
  }
  return n;
}

}  // namespace fe
