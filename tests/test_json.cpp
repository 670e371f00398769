// fe::serde::json: every value kind, escapes, numbers as Python reads them, lookups, limits, each
// error class with its message, and a value-by-value differential test against nlohmann::json on
// the committed PyTorch-written fixtures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "fakeexport/serde/json.h"
#include "fakeexport/serde/safetensors.h"  // fe::FormatError

#ifndef FE_FIXTURES_DIR
#define FE_FIXTURES_DIR "tests/fixtures"
#endif

namespace {

using fe::serde::json::Document;
using fe::serde::json::Kind;
using fe::serde::json::Value;
namespace fs = std::filesystem;

// The message of the FormatError that parsing `text` throws ("" if it parses).
std::string parse_error(std::string_view text, std::string_view source = "JSON") {
  try {
    (void)Document::parse(text, source);
  } catch (const fe::FormatError& e) {
    return e.what();
  }
  return "";
}

// The number `text` parses to (the Document must outlive its values, so no `parse(t).root()`).
double number(std::string_view text) {
  const Document d = Document::parse(text);
  return d.root().as_double();
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// First difference between our tree and nlohmann's, as "path: what" ("" when they agree). Paths are
// built on the way back up, only for a difference.
std::string diff(const Value& a, const nlohmann::ordered_json& b) {
  using T = nlohmann::ordered_json::value_t;
  const auto bad = [](const std::string& what) { return ": " + what; };
  switch (b.type()) {
    case T::null:
      return a.is_null() ? "" : bad("expected null, got " + std::string(a.raw()));
    case T::boolean:
      return a.is_boolean() && a.as_bool() == b.get<bool>() ? "" : bad("boolean " + b.dump());
    case T::number_integer:
      return a.kind() == Kind::Integer && a.as_int() == b.get<int64_t>() ? "" : bad("integer " + b.dump());
    case T::number_unsigned:  // nlohmann calls every non-negative integer unsigned
      return a.is_number_integer() && a.as_uint() == b.get<uint64_t>() &&
                     (a.kind() == Kind::Unsigned) == (b.get<uint64_t>() > uint64_t{INT64_MAX})
                 ? ""
                 : bad("unsigned " + b.dump());
    case T::number_float: {
      const double x = b.get<double>(), y = a.is_number_float() ? a.as_double() : 0.0;
      const bool same =
          a.is_number_float() && (std::isnan(x) ? std::isnan(y) : x == y && std::signbit(x) == std::signbit(y));
      return same ? "" : bad("float " + b.dump() + " vs " + std::string(a.raw()));
    }
    case T::string:
      return a.is_string() && a.as_string() == b.get_ref<const std::string&>() ? "" : bad("string " + b.dump());
    case T::array: {
      if (!a.is_array() || a.size() != b.size()) return bad("array of " + std::to_string(b.size()));
      for (size_t i = 0; i < b.size(); ++i)
        if (std::string d = diff(a[i], b[i]); !d.empty()) return "[" + std::to_string(i) + "]" + d;
      return "";
    }
    case T::object: {
      if (!a.is_object() || a.size() != b.size()) return bad("object of " + std::to_string(b.size()));
      size_t i = 0;
      for (const auto& [k, v] : b.items()) {
        const auto& m = a.members()[i++];
        if (m.key != k)
          return bad("member " + std::to_string(i - 1) + " is '" + std::string(m.key) + "', not '" + k + "'");
        if (a.find(k) != &m.value) return "." + k + bad("find() does not return this member");
        if (std::string d = diff(m.value, v); !d.empty()) return "." + k + d;
      }
      return "";
    }
    default:
      return bad("unexpected nlohmann type");
  }
}

// diff() on two texts.
std::string diff(std::string_view ours, std::string_view theirs) {
  const Document d = Document::parse(ours);
  return diff(d.root(), nlohmann::ordered_json::parse(theirs));
}

// ---- values

TEST(Json, ScalarsKindsAndRaw) {
  const Document d = Document::parse(R"( [null, true, false, 0, -0, 42, -7, 1.5, "hi", [], {}] )");
  const Value& r = d.root();
  ASSERT_TRUE(r.is_array());
  EXPECT_EQ(r.raw(), R"([null, true, false, 0, -0, 42, -7, 1.5, "hi", [], {}])");
  ASSERT_EQ(r.size(), 11u);
  const char* names[] = {"null",    "boolean", "boolean", "integer", "integer", "integer",
                         "integer", "float",   "string",  "array",   "object"};
  for (size_t i = 0; i < r.size(); ++i) EXPECT_EQ(r[i].type_name(), names[i]) << i;
  EXPECT_TRUE(r[0].is_null());
  EXPECT_EQ(r[0].size(), 0u);
  EXPECT_TRUE(r[1].as_bool());
  EXPECT_FALSE(r[2].as_bool());
  EXPECT_EQ(r[3].as_int(), 0);
  EXPECT_EQ(r[4].as_int(), 0);
  EXPECT_EQ(r[5].as_int(), 42);
  EXPECT_EQ(r[5].size(), 1u);
  EXPECT_EQ(r[6].as_int(), -7);
  EXPECT_TRUE(r[7].is_number() && r[7].is_number_float() && !r[7].is_number_integer());
  EXPECT_EQ(r[7].as_double(), 1.5);
  EXPECT_EQ(r[8].as_string(), "hi");
  EXPECT_EQ(r[8].raw(), "\"hi\"");
  EXPECT_TRUE(r[9].is_array() && r[9].empty() && r[9].elements().empty());
  EXPECT_TRUE(r[10].is_object() && r[10].empty() && r[10].members().empty());
  EXPECT_EQ(r[6].raw(), "-7");
  EXPECT_EQ(r[1].raw(), "true");
  EXPECT_EQ(d.offset_of(r[5]), 28u);
  const Document top = Document::parse("  \"top\"\n");
  EXPECT_EQ(top.root().as_string(), "top");
  EXPECT_EQ(top.root().raw(), "\"top\"");
  const Document empty;
  EXPECT_TRUE(empty.root().is_null());
}

TEST(Json, IntegersByRange) {
  const Document d = Document::parse(
      "[9223372036854775807, 9223372036854775808, 18446744073709551615, 18446744073709551616,"
      " -9223372036854775808, -9223372036854775809, 123456789012345678901234567890]");
  const Value& r = d.root();
  EXPECT_EQ(r[0].kind(), Kind::Integer);
  EXPECT_EQ(r[0].as_int(), INT64_MAX);
  EXPECT_EQ(r[1].kind(), Kind::Unsigned);
  EXPECT_TRUE(r[1].is_number_integer() && r[1].is_number_unsigned());
  EXPECT_EQ(r[1].as_uint(), uint64_t{1} << 63);
  EXPECT_EQ(r[1].type_name(), "integer");
  EXPECT_EQ(r[2].as_uint(), UINT64_MAX);
  EXPECT_EQ(r[3].kind(), Kind::Float);  // beyond uint64: a double, as nlohmann
  EXPECT_EQ(r[3].as_double(), 18446744073709551616.0);
  EXPECT_EQ(r[4].kind(), Kind::Integer);
  EXPECT_EQ(r[4].as_int(), INT64_MIN);
  EXPECT_EQ(r[5].kind(), Kind::Float);
  EXPECT_EQ(r[5].as_double(), -9223372036854775809.0);
  EXPECT_EQ(r[6].as_double(), 1.2345678901234568e29);
  EXPECT_EQ(r[3].raw(), "18446744073709551616");
  // Accessor errors: never UB.
  EXPECT_THROW(r[1].as_int(), fe::FormatError);
  const Document minus_one = Document::parse("-1");
  EXPECT_THROW(minus_one.root().as_uint(), fe::FormatError);
  EXPECT_EQ(minus_one.root().as_double(), -1.0);
  EXPECT_EQ(r[1].as_double(), 9223372036854775808.0);
}

TEST(Json, FloatsAsPythonReadsThem) {
  const char* cases[] = {"0.1",
                         "0.30000000000000004",
                         "1e2",
                         "1E-2",
                         "-2.5e+3",
                         "9007199254740993.0",
                         "1.7976931348623157e308",
                         "2.2250738585072011e-308",
                         "5e-324",
                         "4.9406564584124654e-324",
                         "0.000001",
                         "1234567890.0987654321",
                         "-0.0"};
  for (const char* c : cases) {
    const Document d = Document::parse(c);
    const Value& v = d.root();
    EXPECT_TRUE(v.is_number_float()) << c;
    EXPECT_EQ(v.as_double(), std::strtod(c, nullptr)) << c;
    EXPECT_EQ(std::signbit(v.as_double()), std::signbit(std::strtod(c, nullptr))) << c;
  }
  // Outside double's range Python gives inf / 0, not an error.
  EXPECT_EQ(number("1e400"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(number("-1.7976931348623159e308"), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(number("123456789e99999999999999999999"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(number("1e-400"), 0.0);
  EXPECT_TRUE(std::signbit(number("-0.000001e-999")));
  EXPECT_EQ(number("0e99999"), 0.0);
  EXPECT_EQ(number("0." + std::string(400, '0') + "1"), 0.0);
  EXPECT_EQ(number("-1" + std::string(400, '0')), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(number("1" + std::string(400, '0') + "e-500"), 1e-100);
  const std::string long_digits = "0.0000" + std::string(400, '1') + "E+300";
  EXPECT_EQ(number(long_digits), std::strtod(long_digits.c_str(), nullptr));
  // Python's json.dumps spellings of non-finite floats.
  const Document d = Document::parse("[NaN, Infinity, -Infinity]");
  EXPECT_TRUE(std::isnan(d.root()[0].as_double()));
  EXPECT_EQ(d.root()[1].as_double(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(d.root()[2].as_double(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(d.root()[2].raw(), "-Infinity");
  EXPECT_EQ(d.root()[2].type_name(), "float");
}

TEST(Json, StringEscapesAndUtf8) {
  const std::string text = R"(["plain", "q\"b\\s\/b\bf\fn\nr\rt\t", "\u0041\u00e9\u20ac", "\ud83d\ude00", "\uD800",
      "\udc00", "\ud800\u0041", "\ud800\ud800\udc00", "é€😀", "", "\u0000"])";
  const Document d = Document::parse(text);
  const Value& r = d.root();
  EXPECT_EQ(r[0].as_string(), "plain");
  EXPECT_GE(r[0].as_string().data(), text.data());  // zero-copy: a view of the text
  EXPECT_LT(r[0].as_string().data(), text.data() + text.size());
  EXPECT_EQ(r[1].as_string(), "q\"b\\s/b\bf\fn\nr\rt\t");
  EXPECT_EQ(r[2].as_string(), "A\xc3\xa9\xe2\x82\xac");
  EXPECT_EQ(r[3].as_string(), "\xf0\x9f\x98\x80");  // a surrogate pair is one code point
  EXPECT_EQ(r[4].as_string(), "\xed\xa0\x80");      // lone surrogates: WTF-8
  EXPECT_EQ(r[5].as_string(), "\xed\xb0\x80");
  EXPECT_EQ(r[6].as_string(),
            "\xed\xa0\x80"
            "A");
  EXPECT_EQ(r[7].as_string(), "\xed\xa0\x80\xf0\x90\x80\x80");
  EXPECT_EQ(r[8].as_string(), "é€😀");
  EXPECT_EQ(r[9].as_string(), "");
  EXPECT_EQ(r[10].as_string(), std::string_view("\0", 1));
  EXPECT_EQ(r[1].raw(), R"("q\"b\\s\/b\bf\fn\nr\rt\t")");
  // Escaped keys are unescaped and found by their decoded bytes.
  const Document o = Document::parse(R"({"a\u00e9": 1, "t\tb": 2})");
  EXPECT_EQ(o.root().members()[0].key, "a\xc3\xa9");
  EXPECT_EQ(o.root().at("t\tb").as_int(), 2);
}

TEST(Json, ObjectsMembersFindAndDuplicates) {
  const Document d = Document::parse(R"({"b": 1, "a": {"x": [1, 2]}, "c": null, "b": 2})");
  const Value& r = d.root();
  ASSERT_EQ(r.size(), 4u);
  std::string order;
  for (const auto& m : r.members()) order += std::string(m.key) + ",";
  EXPECT_EQ(order, "b,a,c,b,");         // file order, duplicates kept
  EXPECT_EQ(r.find("b")->as_int(), 1);  // the first of duplicates
  EXPECT_EQ(r.members()[3].value.as_int(), 2);
  EXPECT_TRUE(r.contains("c") && r.find("c")->is_null());
  EXPECT_EQ(r.find("zz"), nullptr);
  EXPECT_EQ(r.find(""), nullptr);
  EXPECT_EQ(r.at("a").raw(), R"({"x": [1, 2]})");
  EXPECT_EQ(r.at("a").at("x")[1].as_int(), 2);
  EXPECT_EQ(r.at("a").find("x")->elements().size(), 2u);
  EXPECT_EQ(r.at("c").find("x"), nullptr);  // find on a non-object: absent, as nlohmann
  EXPECT_THROW(r.at("zz"), fe::FormatError);
  EXPECT_THROW(r.at("a").at("x")[2], fe::FormatError);
  EXPECT_THROW(r.elements(), fe::FormatError);
  EXPECT_THROW(r.at("c").members(), fe::FormatError);
}

TEST(Json, LargeObjectsUseTheIndex) {
  for (int n : {17, 100, 10000}) {
    std::string text = "{";
    for (int i = n - 1; i >= 0; --i) text += "\"k" + std::to_string(i * 7 % n) + "\": " + std::to_string(i) + ", ";
    text += "\"k3\": -1, \"\": 0, \"k\": 5}";  // a late duplicate and short keys
    const Document d = Document::parse(text);
    const Value& r = d.root();
    ASSERT_EQ(r.size(), static_cast<size_t>(n) + 3);
    for (int i = 0; i < n; ++i) {
      const Value* v = r.find("k" + std::to_string(i * 7 % n));
      ASSERT_NE(v, nullptr) << n << " " << i;
      EXPECT_EQ(v->as_int(), i);
    }
    EXPECT_NE(r.find("k3")->as_int(), -1);  // the first "k3" wins
    EXPECT_EQ(r.find("")->as_int(), 0);
    EXPECT_EQ(r.find("k")->as_int(), 5);
    EXPECT_EQ(r.find("k" + std::to_string(n)), nullptr);
    EXPECT_EQ(r.find("j0"), nullptr);
    EXPECT_EQ(r.members().back().key, "k");
  }
}

TEST(Json, OwnershipAndMoves) {
  Document d = Document::parse(std::string(R"({"a": "b"})"));  // a short (SSO) temporary, owned
  Document moved = std::move(d);
  EXPECT_EQ(moved.root().at("a").as_string(), "b");
  EXPECT_TRUE(d.root().is_null());  // NOLINT(bugprone-use-after-move): the moved-from state is defined
  Document other;
  other = std::move(moved);
  EXPECT_EQ(other.root().raw(), R"({"a": "b"})");
  EXPECT_EQ(other.text(), R"({"a": "b"})");
  EXPECT_GT(other.arena_bytes(), 0u);
}

TEST(Json, AccessorTypeErrors) {
  const Document d = Document::parse(R"(["abc", 1.5, {"k": 1}])");
  try {
    (void)d.root()[0].as_int();
    FAIL();
  } catch (const fe::FormatError& e) {
    EXPECT_STREQ(e.what(), "JSON: expected an integer, got string \"abc\"");
  }
  EXPECT_THROW(d.root()[1].as_int(), fe::FormatError);
  EXPECT_THROW(d.root()[1].as_string(), fe::FormatError);
  const Document big = Document::parse("[9223372036854775808, -1]");
  for (const auto& [v, msg] : {std::pair{&big.root()[0], "JSON: integer 9223372036854775808 is out of range for int64"},
                               std::pair{&big.root()[1], "JSON: integer -1 is out of range for uint64"}}) {
    try {
      (void)(v == &big.root()[0] ? v->as_int() : static_cast<int64_t>(v->as_uint()));
      ADD_FAILURE() << msg;
    } catch (const fe::FormatError& e) {
      EXPECT_STREQ(e.what(), msg);
    }
  }
  try {
    (void)d.root()[3];
    ADD_FAILURE();
  } catch (const fe::FormatError& e) {
    EXPECT_STREQ(e.what(), "JSON: index 3 out of range for an array of 3 elements");
  }
  try {
    (void)d.root()[2].at("x");
    ADD_FAILURE();
  } catch (const fe::FormatError& e) {
    EXPECT_STREQ(e.what(), "JSON: missing key 'x'");
  }
  EXPECT_THROW(d.root()[2].as_bool(), fe::FormatError);
  EXPECT_THROW(d.root()[2].as_double(), fe::FormatError);
}

// ---- limits and errors

TEST(Json, DepthLimit) {
  const auto nested = [](size_t n) { return std::string(n, '[') + std::string(n, ']'); };
  EXPECT_EQ(parse_error(nested(fe::serde::json::kMaxDepth)), "");
  EXPECT_EQ(parse_error(nested(fe::serde::json::kMaxDepth + 1)),
            "JSON: invalid JSON at line 1, column 513 (byte 512): nesting deeper than 512 levels");
  // Far deeper hostile input fails at the limit, not on the C++ stack.
  EXPECT_NE(parse_error(std::string(1'000'000, '[')).find("nesting deeper"), std::string::npos);
  std::string objs;
  for (int i = 0; i < 600; ++i) objs += "{\"a\":";
  EXPECT_NE(parse_error(objs).find("(byte 2560): nesting deeper than 512 levels"), std::string::npos);
}

TEST(Json, ErrorMessages) {
  const std::pair<const char*, const char*> cases[] = {
      // truncated
      {"", "line 1, column 1 (byte 0): expected a value, got end of input"},
      {"  \n ", "line 2, column 2 (byte 4): expected a value, got end of input"},
      {"[1, 2", "line 1, column 6 (byte 5): expected ',' or ']' after an array element, got end of input"},
      {"{\"a\": 1", "line 1, column 8 (byte 7): expected ',' or '}' after an object member, got end of input"},
      {"{\"a\"", "line 1, column 5 (byte 4): expected ':' after an object key, got end of input"},
      {"\"abc", "line 1, column 5 (byte 4): expected '\"' to close the string that starts at byte 0, got end of input"},
      {"\"ab\\",
       "line 1, column 5 (byte 4): expected '\"' to close the string that starts at byte 0, got end of input"},
      // trailing garbage
      {"{} x", "line 1, column 4 (byte 3): expected end of input after the top-level value, got 'x'"},
      {"1 2", "line 1, column 3 (byte 2): expected end of input after the top-level value, got '2'"},
      {"truex", "line 1, column 5 (byte 4): expected end of input after the top-level value, got 'x'"},
      // structure
      {"{\n  \"a\": 1\n  \"b\": 2\n}",
       "line 3, column 3 (byte 13): expected ',' or '}' after an object member, got '\"'"},
      {"{\"a\" 1}", "line 1, column 6 (byte 5): expected ':' after an object key, got '1'"},
      {"{1: 2}", "line 1, column 2 (byte 1): expected a string key or '}', got '1'"},
      {"{\"a\": 1,}", "line 1, column 9 (byte 8): expected a string key after ',', got '}'"},
      {"[1,]", "line 1, column 4 (byte 3): expected a value, got ']'"},
      {"[1 2]", "line 1, column 4 (byte 3): expected ',' or ']' after an array element, got '2'"},
      {"[}", "line 1, column 2 (byte 1): expected a value, got '}'"},
      // escapes
      {"\"a\\qb\"", "line 1, column 3 (byte 2): invalid escape '\\q' in a string"},
      {"\"\\u12G4\"", "line 1, column 2 (byte 1): expected 4 hex digits after '\\u'"},
      {"\"\\u12\"", "line 1, column 2 (byte 1): expected 4 hex digits after '\\u'"},
      // numbers
      {"-", "line 1, column 2 (byte 1): expected a digit after '-', got end of input"},
      {"-a", "line 1, column 2 (byte 1): expected a digit after '-', got 'a'"},
      {"01", "line 1, column 1 (byte 0): invalid number: leading zeros are not allowed"},
      {"[-012]", "line 1, column 2 (byte 1): invalid number: leading zeros are not allowed"},
      {"1.", "line 1, column 3 (byte 2): expected a digit after '.' in a number, got end of input"},
      {"1.e5", "line 1, column 3 (byte 2): expected a digit after '.' in a number, got 'e'"},
      {"1e", "line 1, column 3 (byte 2): expected a digit in the exponent of a number, got end of input"},
      {"1e+", "line 1, column 4 (byte 3): expected a digit in the exponent of a number, got end of input"},
      {".5", "line 1, column 1 (byte 0): expected a value, got '.'"},
      {"+1", "line 1, column 1 (byte 0): expected a value, got '+'"},
      {"-Inf", "line 1, column 2 (byte 1): invalid literal: expected 'Infinity'"},
      // control characters and bytes
      {"\"a\nb\"", "line 1, column 3 (byte 2): unescaped control character 0x0a in a string"},
      {"\"\t\"", "line 1, column 2 (byte 1): unescaped control character 0x09 in a string"},
      {"\"\xff\"", "line 1, column 2 (byte 1): invalid UTF-8 byte 0xff in a string"},
      {"\"\xc0\xaf\"", "line 1, column 2 (byte 1): invalid UTF-8 byte 0xc0 in a string"},          // overlong
      {"\"\xed\xa0\x80\"", "line 1, column 3 (byte 2): invalid UTF-8 byte 0xa0 in a string"},      // raw surrogate
      {"\"\xf4\x90\x80\x80\"", "line 1, column 3 (byte 2): invalid UTF-8 byte 0x90 in a string"},  // > U+10FFFF
      {"\"\xe2\x82x\"", "line 1, column 4 (byte 3): invalid UTF-8 byte 0x78 in a string"},
      {"\"\xe2\x82", "line 1, column 2 (byte 1): truncated UTF-8 sequence at the end of the input"},
      {"\xef\xbb\xbf{}", "line 1, column 1 (byte 0): expected a value, got byte 0xef"},  // no BOM, as RFC 8259
      // literals
      {"tru", "line 1, column 1 (byte 0): invalid literal: expected 'true'"},
      {"[nul]", "line 1, column 2 (byte 1): invalid literal: expected 'null'"},
      {"fals", "line 1, column 1 (byte 0): invalid literal: expected 'false'"},
      {"nan", "line 1, column 1 (byte 0): invalid literal: expected 'null'"},
      {"NaN1", "line 1, column 4 (byte 3): expected end of input after the top-level value, got '1'"},
      {"Inf", "line 1, column 1 (byte 0): invalid literal: expected 'Infinity'"},
      {"[\x01]", "line 1, column 2 (byte 1): expected a value, got byte 0x01"},
  };
  for (const auto& [text, msg] : cases)
    EXPECT_EQ(parse_error(text), std::string("JSON: invalid JSON at ") + msg) << "input: " << text;
  EXPECT_EQ(
      parse_error("{\"a\": 1 2}", "model.json"),
      "model.json: invalid JSON at line 1, column 9 (byte 8): expected ',' or '}' after an object member, got '2'");
  // A NUL byte inside the text is not the end of it.
  EXPECT_EQ(parse_error(std::string_view("[1]\0", 4)),
            "JSON: invalid JSON at line 1, column 4 (byte 3): expected end of input after the top-level value, got "
            "byte 0x00");
}

// ---- differential: the committed fixtures, against nlohmann

TEST(Json, DiffSeesDifferences) {  // the differential test below is only as good as diff()
  EXPECT_EQ(diff(R"({"a": [1, -2, 2.5, "s", null, true, 18446744073709551615]})",
                 R"({"a": [1, -2, 2.5, "s", null, true, 18446744073709551615]})"),
            "");
  EXPECT_EQ(diff(R"({"a": [1, 2]})", R"({"a": [1, 3]})"), ".a[1]: unsigned 3");
  EXPECT_EQ(diff(R"({"a": 1, "b": 2})", R"({"b": 2, "a": 1})"), ": member 0 is 'a', not 'b'");
  EXPECT_EQ(diff(R"([0.0])", R"([-0.0])"), "[0]: float -0.0 vs 0.0");
  EXPECT_EQ(diff(R"(["x"])", R"(["y"])"), "[0]: string \"y\"");
  EXPECT_EQ(diff(R"([1.0])", R"([1])"), "[0]: unsigned 1");
}

TEST(Json, SameTreesAsNlohmannOnFixtures) {
  size_t files = 0, bytes = 0;
  for (const char* dir : {"pt2", "ops"}) {
    const fs::path root = fs::path(FE_FIXTURES_DIR) / dir;
    if (!fs::exists(root)) continue;
    for (const auto& e : fs::directory_iterator(root)) {
      const std::string name = e.path().filename().string();
      if (e.path().extension() != ".json") continue;
      const std::string text = slurp(e.path());
      const Document d = Document::parse(std::string_view(text), name);
      const auto expected = nlohmann::ordered_json::parse(text);
      EXPECT_EQ(diff(d.root(), expected), "") << name;
      EXPECT_EQ(d.root().raw(), std::string_view(text).substr(0, text.find_last_not_of(" \n\r\t") + 1)) << name;
      ++files;
      bytes += text.size();
    }
  }
  EXPECT_GE(files, 5u);  // at least the pt2 model.json fixtures
  RecordProperty("fixture_bytes", static_cast<int>(bytes));
}

}  // namespace
