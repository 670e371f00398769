// libFuzzer target: fe::serde::json::Document::parse on arbitrary bytes, checked three ways:
// 1. only fe::FormatError may escape (anything else, a crash or a sanitizer report is a bug);
// 2. a parsed tree is self-consistent: raw() lies inside the input, find() returns the first member
//    of each key (the sorted index of large objects included), accessors agree with kind();
// 3. differential against nlohmann::ordered_json: a text nlohmann accepts we accept too (except
//    beyond our depth limit, or with a BOM) with the same values; a text we accept that uses none
//    of our extensions (NaN/Infinity, lone surrogates, floats out of range) nlohmann accepts too.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>

#include "fakeexport/serde/json.h"
#include "fakeexport/serde/safetensors.h"  // fe::FormatError

namespace {

using fe::serde::json::Document;
using fe::serde::json::Kind;
using fe::serde::json::Value;

[[noreturn]] void bug(const std::string& what) {
  std::fprintf(stderr, "fuzz_json: %s\n", what.c_str());
  std::abort();
}

// Checks v's invariants; returns whether some object below has duplicate keys (nlohmann keeps one).
bool check(const Value& v, std::string_view text) {
  const std::string_view r = v.raw();
  if (r.data() < text.data() || r.data() + r.size() > text.data() + text.size() || r.empty())
    bug("raw() outside the input");
  bool dup = false;
  switch (v.kind()) {
    case Kind::Null:
      break;
    case Kind::Boolean:
      (void)v.as_bool();
      break;
    case Kind::Integer:
      (void)v.as_int();
      break;
    case Kind::Unsigned:
      if (v.as_uint() <= static_cast<uint64_t>(INT64_MAX)) bug("small unsigned");
      break;
    case Kind::Float:
      (void)v.as_double();
      break;
    case Kind::String:
      if (r.front() != '"' || r.back() != '"') bug("string raw()");
      (void)v.as_string();
      break;
    case Kind::Array:
      if (r.front() != '[' || r.back() != ']') bug("array raw()");
      for (const Value& e : v.elements()) dup |= check(e, text);
      break;
    case Kind::Object: {
      if (r.front() != '{' || r.back() != '}') bug("object raw()");
      std::unordered_map<std::string_view, const Value*> first;
      for (const auto& m : v.members()) {
        dup |= !first.emplace(m.key, &m.value).second;
        dup |= check(m.value, text);
      }
      for (const auto& [k, p] : first)
        if (v.find(k) != p) bug("find() does not return the first member of its key");
      if (v.find(std::string(v.size() + 1, 'z')) != nullptr && !first.count(std::string(v.size() + 1, 'z')))
        bug("find() of an absent key");
      break;
    }
  }
  return dup;
}

bool same(const Value& a, const nlohmann::ordered_json& b) {
  using T = nlohmann::ordered_json::value_t;
  switch (b.type()) {
    case T::null:
      return a.is_null();
    case T::boolean:
      return a.is_boolean() && a.as_bool() == b.get<bool>();
    case T::number_integer:
      return a.kind() == Kind::Integer && a.as_int() == b.get<int64_t>();
    case T::number_unsigned:
      return a.is_number_integer() && a.as_uint() == b.get<uint64_t>();
    case T::number_float: {
      const double x = b.get<double>();
      return a.is_number_float() && (std::isnan(x) ? std::isnan(a.as_double()) : x == a.as_double());
    }
    case T::string:
      return a.is_string() && a.as_string() == b.get_ref<const std::string&>();
    case T::array: {
      if (!a.is_array() || a.size() != b.size()) return false;
      for (size_t i = 0; i < b.size(); ++i)
        if (!same(a[i], b[i])) return false;
      return true;
    }
    case T::object: {
      if (!a.is_object() || a.size() != b.size()) return false;
      size_t i = 0;
      for (const auto& [k, v] : b.items()) {
        const auto& m = a.members()[i++];
        if (m.key != k || !same(m.value, v)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

// Whether the text may use one of our extensions over nlohmann (or a long digit run that overflows),
// or a NUL byte, where nlohmann stops reading.
bool may_use_extensions(std::string_view t) {
  if (t.find_first_of(std::string_view("NI\\eE\0", 6)) != std::string_view::npos) return true;
  size_t run = 0;
  for (char c : t) {
    run = c >= '0' && c <= '9' ? run + 1 : 0;
    if (run > 300) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  nlohmann::ordered_json theirs;
  bool they_accept = true;
  try {
    theirs = nlohmann::ordered_json::parse(text);
    they_accept = text.find('\0') == std::string_view::npos;
  } catch (const std::exception&) {
    they_accept = false;
  }
  try {
    const Document doc = Document::parse(text, "fuzz");
    const bool dup = check(doc.root(), text);
    if (they_accept && !dup && !same(doc.root(), theirs)) bug("values differ from nlohmann's");
    if (!they_accept && !may_use_extensions(text)) bug("accepted a text nlohmann rejects");
  } catch (const fe::FormatError& e) {
    const std::string_view msg = e.what();
    if (msg.rfind("fuzz: invalid JSON at line ", 0) != 0) bug("message format: " + std::string(msg));
    const bool bom = text.substr(0, 3) == "\xef\xbb\xbf";
    if (they_accept && !bom && msg.find("nesting deeper than") == std::string_view::npos)
      bug("rejected a text nlohmann accepts: " + std::string(msg));
  }
  return 0;
}
