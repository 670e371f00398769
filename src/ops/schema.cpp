#include "fakeexport/ops/schema.h"

#include <charconv>

#include "fakeexport/core/error.h"

namespace fe {
namespace {

constexpr std::pair<std::string_view, ArgBase> kBases[] = {
    {"Tensor", ArgBase::Tensor},         {"int", ArgBase::Int},
    {"SymInt", ArgBase::SymInt},         {"float", ArgBase::Float},
    {"bool", ArgBase::Bool},             {"str", ArgBase::Str},
    {"Scalar", ArgBase::Scalar},         {"ScalarType", ArgBase::ScalarType},
    {"Layout", ArgBase::Layout},         {"Device", ArgBase::Device},
    {"MemoryFormat", ArgBase::MemoryFormat}, {"Generator", ArgBase::Generator},
    {"Storage", ArgBase::Storage},
};

/// c10::ScalarType's enum values, as schemas write dtype defaults (`ScalarType? dtype=4`: int64).
constexpr std::pair<int, std::string_view> kScalarTypeCodes[] = {
    {0, "uint8"},      {1, "int8"},      {2, "int16"},       {3, "int32"},      {4, "int64"},
    {5, "float16"},    {6, "float32"},   {7, "float64"},     {8, "complex32"},  {9, "complex64"},
    {10, "complex128"}, {11, "bool"},    {15, "bfloat16"},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

[[noreturn]] void fail(std::string_view text, std::string_view why) {
  throw ValueError(detail::cat("schema parse error in '", text, "': ", why));
}

/// Splits on top-level commas (outside (), [] and quotes).
std::vector<std::string_view> split_top(std::string_view s) {
  std::vector<std::string_view> parts;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    else if (c == '(' || c == '[') ++depth;
    else if (c == ')' || c == ']') --depth;
    else if (c == ',' && depth == 0) {
      parts.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (!trim(s.substr(start)).empty()) parts.push_back(trim(s.substr(start)));
  return parts;
}

ArgType parse_type(std::string_view t, std::string_view text) {
  ArgType ty;
  size_t i = 0;
  while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_')) ++i;
  std::string_view base = t.substr(0, i);
  bool found = false;
  for (auto [n, b] : kBases)
    if (n == base) { ty.base = b; found = true; }
  if (!found) fail(text, detail::cat("unknown type '", base, "'"));
  if (i < t.size() && t[i] == '(') {  // alias annotation (a) / (a!)
    size_t close = t.find(')', i);
    if (close == std::string_view::npos) fail(text, "unclosed alias annotation");
    std::string_view ann = t.substr(i + 1, close - i - 1);
    ty.alias_set = ann.empty() ? 0 : ann[0];
    // `(a -> *)`: returns that alias `a` and then join the wildcard set (split, chunk, unbind).
    ty.alias_to_wildcard = ann.ends_with("-> *");
    if (ty.alias_to_wildcard) ann = ann.substr(0, ann.find(" ->"));
    ty.is_write = ann.ends_with('!');
    i = close + 1;
  }
  if (i < t.size() && t[i] == '?' && i + 1 < t.size() && t[i + 1] == '[') {  // Tensor?[]
    ty.elem_optional = true;
    ++i;
  }
  if (i < t.size() && t[i] == '[') {
    size_t close = t.find(']', i);
    if (close == std::string_view::npos) fail(text, "unclosed list type");
    ty.is_list = true;
    std::string_view n = t.substr(i + 1, close - i - 1);
    if (!n.empty()) std::from_chars(n.data(), n.data() + n.size(), ty.list_size);
    i = close + 1;
  }
  if (i < t.size() && t[i] == '?') {
    ty.optional = true;
    ++i;
  }
  if (i != t.size()) fail(text, detail::cat("unexpected '", t.substr(i), "' in type"));
  return ty;
}

SymInt parse_int(std::string_view s, std::string_view text) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) fail(text, detail::cat("bad integer default '", s, "'"));
  return v;
}

bool looks_float(std::string_view s) {
  return s.find_first_of(".eE") != std::string_view::npos && s.find_first_of("0123456789") != std::string_view::npos;
}

Constant parse_default(const ArgType& ty, std::string_view d, std::string_view text) {
  if (d.empty()) fail(text, "empty default value");
  if (d == "None") return None{};
  if (ty.is_list && ty.base != ArgBase::Tensor) {
    std::vector<SymInt> l;
    if (d.front() == '[') {
      if (d.back() != ']') fail(text, "unclosed list default");
      for (auto part : split_top(d.substr(1, d.size() - 2))) l.push_back(parse_int(part, text));
    } else {  // `int[2] stride=1` broadcasts
      l.assign(static_cast<size_t>(std::max(ty.list_size, 1)), parse_int(d, text));
    }
    return l;
  }
  switch (ty.base) {
    case ArgBase::Bool:
      if (d == "True") return true;
      if (d == "False") return false;
      fail(text, "bad bool default");
    case ArgBase::Int:
    case ArgBase::SymInt: return parse_int(d, text);
    case ArgBase::Float: return std::strtod(std::string(d).c_str(), nullptr);
    case ArgBase::Scalar:
      if (d == "True" || d == "False") return d == "True";
      if (looks_float(d)) return std::strtod(std::string(d).c_str(), nullptr);
      return parse_int(d, text);
    case ArgBase::Str:
      if (d.size() >= 2 && (d.front() == '"' || d.front() == '\'')) return std::string(d.substr(1, d.size() - 2));
      fail(text, "bad string default");
    case ArgBase::ScalarType: {
      if (auto t = parse_dtype(d)) return *t;
      int code = -1;
      if (auto [p, ec] = std::from_chars(d.data(), d.data() + d.size(), code); ec == std::errc() && p == d.data() + d.size())
        for (auto [c, name] : kScalarTypeCodes)
          if (c == code)
            if (auto t = parse_dtype(name)) return *t;
      fail(text, detail::cat("bad dtype default '", d, "'"));
    }
    case ArgBase::Layout:
      if (d == "strided") return Layout::Strided;
      fail(text, "bad layout default");
    case ArgBase::MemoryFormat:
      // `MemoryFormat memory_format=0` (aten::contiguous) is c10's enum value 0: contiguous_format.
      if (d == "contiguous_format" || d == "0") return MemoryFormat::Contiguous;
      if (d == "preserve_format") return MemoryFormat::Preserve;
      if (d == "channels_last") return MemoryFormat::ChannelsLast;
      fail(text, "bad memory format default");
    case ArgBase::Device: return Device::parse(d.size() >= 2 && d.front() == '"' ? d.substr(1, d.size() - 2) : d);
    default: break;
  }
  fail(text, detail::cat("unsupported default '", d, "'"));
}

Argument parse_arg(std::string_view a, bool kwarg_only, std::string_view text, bool is_return) {
  Argument arg;
  arg.kwarg_only = kwarg_only;
  size_t eq = a.find('=');
  std::string_view decl = trim(a.substr(0, eq));
  size_t sp = decl.rfind(' ');
  std::string_view type = decl, name;
  if (sp != std::string_view::npos) {
    type = decl.substr(0, sp);
    name = decl.substr(sp + 1);
  } else if (!is_return) {
    fail(text, detail::cat("argument '", a, "' has no name"));
  }
  arg.type = parse_type(trim(type), text);
  arg.name = std::string(name);
  if (eq != std::string_view::npos) {
    arg.default_text = std::string(trim(a.substr(eq + 1)));
    arg.default_value = parse_default(arg.type, arg.default_text, text);
  }
  return arg;
}

std::string type_str(const ArgType& t) {
  std::string s;
  for (auto [n, b] : kBases)
    if (b == t.base) s = std::string(n);
  if (t.alias_set)
    s += std::string("(") + t.alias_set + (t.is_write ? "!" : "") + (t.alias_to_wildcard ? " -> *" : "") + ")";
  if (t.elem_optional) s += '?';
  if (t.is_list) s += "[" + (t.list_size ? std::to_string(t.list_size) : "") + "]";
  if (t.optional) s += '?';
  return s;
}

}  // namespace

FunctionSchema parse_schema(std::string_view text) {
  FunctionSchema s;
  size_t open = text.find('(');
  size_t arrow = text.rfind(") -> ");
  if (open == std::string_view::npos || arrow == std::string_view::npos || arrow < open)
    fail(text, "expected 'name(args) -> returns'");
  std::string_view full = trim(text.substr(0, open));
  size_t colons = full.find("::");
  if (colons == std::string_view::npos) fail(text, "missing namespace 'ns::'");
  s.ns = std::string(full.substr(0, colons));
  std::string_view nm = full.substr(colons + 2);
  size_t dot = nm.find('.');
  s.name = std::string(nm.substr(0, dot));
  s.overload = dot == std::string_view::npos ? "default" : std::string(nm.substr(dot + 1));
  bool kw = false;
  for (auto part : split_top(text.substr(open + 1, arrow - open - 1))) {
    if (part == "*") {
      kw = true;
      continue;
    }
    s.arguments.push_back(parse_arg(part, kw, text, false));
  }
  std::string_view rets = trim(text.substr(arrow + 5));
  if (rets.empty()) fail(text, "missing return type after '->'");
  if (rets.front() == '(') {
    if (rets.back() != ')') fail(text, "unclosed return tuple");
    rets = rets.substr(1, rets.size() - 2);
  }
  for (auto part : split_top(rets)) s.returns.push_back(parse_arg(part, false, text, true));
  return s;
}

std::string FunctionSchema::qualified_name() const { return ns + "::" + name + "." + overload; }

std::string FunctionSchema::str() const {
  std::string out = ns + "::" + name + (overload == "default" ? "" : "." + overload) + "(";
  bool kw = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const Argument& a = arguments[i];
    if (i) out += ", ";
    if (a.kwarg_only && !kw) {
      out += "*, ";
      kw = true;
    }
    out += type_str(a.type) + " " + a.name;
    if (a.default_value) out += "=" + a.default_text;
  }
  out += ") -> ";
  bool bare = returns.size() == 1 && returns[0].name.empty();
  if (!bare) out += "(";
  for (size_t i = 0; i < returns.size(); ++i) {
    if (i) out += ", ";
    out += type_str(returns[i].type);
    if (!returns[i].name.empty()) out += " " + returns[i].name;
  }
  if (!bare) out += ")";
  return out;
}

int FunctionSchema::arg_index(std::string_view n) const {
  for (size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].name == n) return static_cast<int>(i);
  return -1;
}

}  // namespace fe
