#include "fakeexport/ops/ivalue.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace fe {

std::string python_float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  // Shortest round-trip digits, then Python's repr layout: fixed for 1e-4 <= |d| < 1e16, else exponent.
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string s(buf, r.ptr);
  bool neg = s[0] == '-';
  if (neg) s.erase(0, 1);
  size_t e = s.find('e');
  int exp = std::atoi(s.c_str() + e + 1);
  std::string digits = s.substr(0, e);
  if (digits.size() > 1) digits.erase(1, 1);  // drop the '.'
  std::string out;
  if (exp >= -4 && exp < 16) {
    if (exp < 0) {
      out = "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
    } else if (static_cast<int>(digits.size()) <= exp + 1) {
      out = digits + std::string(static_cast<size_t>(exp + 1) - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, static_cast<size_t>(exp) + 1) + "." + digits.substr(static_cast<size_t>(exp) + 1);
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    out += eb;
  }
  return neg ? "-" + out : out;
}

namespace {
std::string py_str_repr(const std::string& s) {
  // Python prefers single quotes; switches to double quotes if the text has a single quote only.
  bool sq = s.find('\'') != std::string::npos, dq = s.find('"') != std::string::npos;
  char q = sq && !dq ? '"' : '\'';
  std::string out(1, q);
  for (char c : s) {
    if (c == q || c == '\\') out += '\\';
    if (c == '\n') { out += "\\n"; continue; }
    out += c;
  }
  return out + q;
}
}  // namespace

std::string constant_repr(const Constant& v) {
  switch (kind_of(v)) {
    case ValueKind::None: return "None";
    case ValueKind::Bool: return std::get<bool>(v) ? "True" : "False";
    case ValueKind::Int: return std::to_string(std::get<SymInt>(v).expect_int());
    case ValueKind::Double: return python_float_repr(std::get<double>(v));
    case ValueKind::String: return py_str_repr(std::get<std::string>(v));
    case ValueKind::DType: return "torch." + std::string(dtype_name(std::get<DType>(v)));
    case ValueKind::Layout: return "torch." + std::string(layout_name(std::get<Layout>(v)));
    case ValueKind::Device: return std::get<Device>(v).repr();
    case ValueKind::MemoryFormat: return "torch." + std::string(memory_format_name(std::get<MemoryFormat>(v)));
    case ValueKind::IntList: {
      std::string s = "[";
      const auto& l = std::get<std::vector<SymInt>>(v);
      for (size_t i = 0; i < l.size(); ++i) s += (i ? ", " : "") + std::to_string(l[i].expect_int());
      return s + "]";
    }
    case ValueKind::FloatList: {
      std::string s = "[";
      const auto& l = std::get<std::vector<double>>(v);
      for (size_t i = 0; i < l.size(); ++i) s += (i ? ", " : "") + python_float_repr(l[i]);
      return s + "]";
    }
    case ValueKind::BoolList: {
      std::string s = "[";
      const auto& l = std::get<std::vector<bool>>(v);
      for (size_t i = 0; i < l.size(); ++i) s += std::string(i ? ", " : "") + (l[i] ? "True" : "False");
      return s + "]";
    }
    case ValueKind::Opaque: return std::get<Opaque>(v)->repr;
    case ValueKind::Tensor:
    case ValueKind::TensorList: break;
  }
  return "<tensor>";
}

}  // namespace fe
