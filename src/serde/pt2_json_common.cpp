// Pieces of the model.json format shared by reader and writer: enum numbering (schema.py, not
// c10), sympy expression text (srepr and infix) and Python's json.dumps byte format.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <set>

#include "fakeexport/ops/ivalue.h"
#include "fakeexport/serde/pt2_json.h"

namespace fe::serde {

namespace {
struct DTypeCode {
  DType t;
  int code;
};
constexpr DTypeCode kDTypes[] = {
    {DType::UInt8, 1},          {DType::Int8, 2},           {DType::Int16, 3},          {DType::Int32, 4},
    {DType::Int64, 5},          {DType::Float16, 6},        {DType::Float32, 7},        {DType::Float64, 8},
    {DType::Complex32, 9},      {DType::Complex64, 10},     {DType::Complex128, 11},    {DType::Bool, 12},
    {DType::BFloat16, 13},      {DType::UInt16, 28},        {DType::Float8_e4m3fn, 29}, {DType::Float8_e5m2, 30},
    {DType::Float8_e4m3fnuz, 31}, {DType::Float8_e5m2fnuz, 32}, {DType::UInt32, 34},    {DType::UInt64, 35},
};
}  // namespace

int serialized_dtype(DType t) {
  for (const auto& d : kDTypes)
    if (d.t == t) return d.code;
  return 0;
}
std::optional<DType> dtype_from_serialized(int64_t v) {
  for (const auto& d : kDTypes)
    if (d.code == v) return d.t;
  return std::nullopt;
}
int serialized_layout(Layout l) {
  switch (l) {
    case Layout::Strided: return 7;
    case Layout::SparseCoo: return 1;
    case Layout::SparseCsr: return 2;
    case Layout::Mkldnn: return 6;
  }
  return 0;
}
std::optional<Layout> layout_from_serialized(int64_t v) {
  switch (v) {
    case 7: return Layout::Strided;
    case 1: return Layout::SparseCoo;
    case 2: return Layout::SparseCsr;
    case 6: return Layout::Mkldnn;
    default: return std::nullopt;
  }
}
int serialized_memory_format(MemoryFormat m) {
  switch (m) {
    case MemoryFormat::Contiguous: return 1;
    case MemoryFormat::ChannelsLast: return 2;
    case MemoryFormat::ChannelsLast3d: return 3;
    case MemoryFormat::Preserve: return 4;
  }
  return 0;
}
std::optional<MemoryFormat> memory_format_from_serialized(int64_t v) {
  switch (v) {
    case 1: return MemoryFormat::Contiguous;
    case 2: return MemoryFormat::ChannelsLast;
    case 3: return MemoryFormat::ChannelsLast3d;
    case 4: return MemoryFormat::Preserve;
    default: return std::nullopt;
  }
}

// ---- sympy expression text

namespace {

/// Recursive-descent parser of both forms: srepr is just nested calls, so one grammar covers
/// `Mul(Integer(2), Symbol('s0', integer=True))` and `2*s0 + (s1//4)`.
class ExprParser {
 public:
  explicit ExprParser(std::string_view t) : t_(t) {}
  sym::Expr parse() {
    sym::Expr e = sum();
    ws();
    if (p_ != t_.size()) fail("unexpected '" + std::string(1, t_[p_]) + "'");
    return e;
  }

 private:
  struct Arg {
    bool is_string = false, is_kw = false;
    std::string text;  // string literal / keyword name
    std::optional<sym::Expr> expr;
  };

  [[noreturn]] void fail(const std::string& what) const {
    throw FormatError(detail::cat("symbolic expression '", t_, "': ", what, " at offset ", p_));
  }
  void ws() {
    while (p_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[p_]))) ++p_;
  }
  bool eat(std::string_view s) {
    ws();
    if (t_.substr(p_, s.size()) != s) return false;
    p_ += s.size();
    return true;
  }
  sym::Expr sum() {
    sym::Expr e = product();
    for (;;) {
      if (eat("+")) e = e + product();
      else if (eat("-")) e = e - product();
      else return e;
    }
  }
  sym::Expr product() {
    sym::Expr e = unary();
    for (;;) {
      ws();
      if (t_.substr(p_, 2) == "**") return e;  // handled in power()
      if (eat("//")) e = sym::floordiv(e, unary());
      else if (eat("*")) e = e * unary();
      else if (eat("%")) e = sym::mod(e, unary());
      else if (t_.substr(p_, 1) == "/") fail("true division is not an integer expression");
      else return e;
    }
  }
  sym::Expr unary() {
    if (eat("-")) return -unary();
    if (eat("+")) return unary();
    return power();
  }
  sym::Expr power() {
    sym::Expr b = primary();
    if (eat("**")) return pow(b, unary());
    return b;
  }
  sym::Expr pow(const sym::Expr& b, const sym::Expr& e) {
    if (!e.is_constant() || e.constant() < 0 || e.constant() > 64) fail("unsupported exponent " + e.str());
    sym::Expr r(1);
    for (int64_t i = 0; i < e.constant(); ++i) r = r * b;
    return r;
  }
  std::string ident() {
    ws();
    size_t s = p_;
    while (p_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[p_])) || t_[p_] == '_')) ++p_;
    return std::string(t_.substr(s, p_ - s));
  }
  sym::Expr primary() {
    ws();
    if (p_ >= t_.size()) fail("unexpected end");
    if (eat("(")) {
      sym::Expr e = sum();
      if (!eat(")")) fail("missing ')'");
      return e;
    }
    if (std::isdigit(static_cast<unsigned char>(t_[p_]))) {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(t_.data() + p_, t_.data() + t_.size(), v);
      if (ec == std::errc::result_out_of_range) fail("integer overflows int64");
      p_ = static_cast<size_t>(end - t_.data());
      return sym::Expr(v);
    }
    std::string id = ident();
    if (id.empty()) fail("unexpected '" + std::string(1, t_[p_]) + "'");
    if (!eat("(")) {
      if (std::isdigit(static_cast<unsigned char>(id[0]))) fail("bad name " + id);
      return sym::Expr::symbol(id);
    }
    if (!kModelled.contains(id)) return applied(id);
    std::vector<Arg> args;
    if (!eat(")")) {
      do args.push_back(arg());
      while (eat(","));
      if (!eat(")")) fail("missing ')' after the arguments of " + id);
    }
    return call(id, args);
  }
  Arg arg() {
    ws();
    Arg a;
    if (p_ < t_.size() && (t_[p_] == '\'' || t_[p_] == '"')) {
      char q = t_[p_++];
      size_t e = t_.find(q, p_);
      if (e == std::string_view::npos) fail("unterminated string");
      a.is_string = true;
      a.text = std::string(t_.substr(p_, e - p_));
      p_ = e + 1;
      return a;
    }
    size_t save = p_;
    std::string id = ident();
    if (!id.empty() && eat("=")) {  // keyword (positive=True): assumptions carry no value for us
      a.is_kw = true;
      a.text = id;
      ident();
      return a;
    }
    p_ = save;
    a.expr = sum();
    return a;
  }
  /// Functions we compute with; any other (torch's CeilToInt, FloatTrueDiv, ToFloat over unbacked
  /// floats) is kept as an atom named by its text (sym::Expr's applied atoms), as recorded.
  static inline const std::set<std::string, std::less<>> kModelled = {
      "Symbol", "Integer", "Add", "Mul", "Pow", "FloorDiv", "CleanDiv", "Mod", "PythonMod", "Max", "Min"};
  /// An application of `f` (its '(' eaten) kept as an atom printed as sympy prints it:
  /// `CeilToInt(FloatTrueDiv(zuf0 - zuf1, -1.0))`, from that text or from its srepr.
  sym::Expr applied(const std::string& f) {
    std::string text = f + "(";
    if (!eat(")")) {
      do text += (text.back() == '(' ? "" : ", ") + applied_arg();
      while (eat(","));
      if (!eat(")")) fail("missing ')' after the arguments of " + f);
    }
    return sym::Expr::symbol(text + ")");
  }
  /// One argument of an application, printed: a float (`-1.0`, srepr `Float('-1.0', precision=53)`)
  /// as written, anything else as the expression it is.
  std::string applied_arg() {
    ws();
    const size_t save = p_;
    if (eat("Float(")) {
      const Arg v = arg();
      while (eat(",")) arg();  // precision=53
      if (!v.is_string || !eat(")")) fail("Float() needs a quoted value");
      return v.text;
    }
    size_t e = p_ + (p_ < t_.size() && t_[p_] == '-');
    const size_t digits = e;
    while (e < t_.size() && (std::isdigit(static_cast<unsigned char>(t_[e])) || t_[e] == '.' || t_[e] == 'e' ||
                             ((t_[e] == '-' || t_[e] == '+') && t_[e - 1] == 'e')))
      ++e;
    const std::string_view lit = t_.substr(save, e - save);
    if (e > digits && lit.find('.') != std::string_view::npos) {
      p_ = e;
      return std::string(lit);
    }
    return sum().str();
  }
  sym::Expr call(const std::string& f, const std::vector<Arg>& args) {
    std::vector<sym::Expr> xs;
    for (const Arg& a : args) {
      if (a.expr) xs.push_back(*a.expr);
      else if (a.is_string && f != "Symbol") fail(f + "() takes no string arguments");
    }
    auto need = [&](size_t n) {
      if (xs.size() != n) fail(detail::cat(f, "() takes ", n, " arguments, got ", xs.size()));
    };
    if (f == "Symbol") {
      if (args.empty() || !args[0].is_string || args[0].text.empty()) fail("Symbol() needs a quoted name");
      for (char c : args[0].text)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') fail("bad symbol name '" + args[0].text + "'");
      return sym::Expr::symbol(args[0].text);
    }
    if (f == "Integer") return need(1), xs[0];
    if (f == "Add" || f == "Mul") {
      if (xs.empty()) fail(f + "() needs arguments");
      sym::Expr r = xs[0];
      for (size_t i = 1; i < xs.size(); ++i) r = f == "Add" ? r + xs[i] : r * xs[i];
      return r;
    }
    if (f == "Pow") return need(2), pow(xs[0], xs[1]);
    if (f == "FloorDiv" || f == "CleanDiv") return need(2), sym::floordiv(xs[0], xs[1]);
    if (f == "Mod" || f == "PythonMod") return need(2), sym::mod(xs[0], xs[1]);
    if (f == "Max" || f == "Min") {
      if (xs.empty()) fail(f + "() needs arguments");
      sym::Expr r = xs[0];
      for (size_t i = 1; i < xs.size(); ++i) r = f == "Max" ? sym::max(r, xs[i]) : sym::min(r, xs[i]);
      return r;
    }
    fail("unsupported function " + f + "()");  // unreachable: kModelled lists the ones above
  }

  std::string_view t_;
  size_t p_ = 0;
};

std::string srepr_symbol(const std::string& name) {
  // Backed size symbols are positive; unbacked ones (u0) only integer; floats (zuf0) neither.
  if (sym::is_float_name(name)) return "Symbol('" + name + "')";
  return "Symbol('" + name + (name.starts_with("u") ? "', integer=True)" : "', positive=True, integer=True)");
}

/// The factors of a sympy Mul, srepr'd: Pow for exponents other than 1.
std::string srepr_factors(const sym::Expr& m) {
  std::string s;
  for (const auto& [b, x] : m.terms())
    s += (s.empty() ? "" : ", ") + (x == 1 ? sym_expr_srepr(b) : "Pow(" + sym_expr_srepr(b) + ", Integer(" + std::to_string(x) + "))");
  return s;
}

/// srepr of c*t as sympy holds it: Mul(Integer(c), factors...) (flattened), or t when c is 1.
std::string srepr_scaled(const sym::Expr& t, int64_t c) {
  if (c == 1) return sym_expr_srepr(t);
  return "Mul(Integer(" + std::to_string(c) + "), " + (t.kind() == sym::Kind::Mul ? srepr_factors(t) : sym_expr_srepr(t)) + ")";
}

/// `((x))` -> `x`: sympy may parenthesize a term inside an Add more than on its own.
std::string strip_parens(std::string s) {
  while (s.size() >= 2 && s.front() == '(' && s.back() == ')') {
    int depth = 0;
    bool outer = true;
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
      if (depth == 0) outer = false;
    }
    if (!outer) break;
    s = s.substr(1, s.size() - 2);
  }
  return s;
}

/// The top-level terms of sympy's str() of an Add, signs dropped: srepr lists them in that order.
std::vector<std::string> printed_terms(const std::string& s) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')') --depth;
    if (depth == 0 && i + 2 < s.size() && s[i] == ' ' && (s[i + 1] == '+' || s[i + 1] == '-') && s[i + 2] == ' ') {
      out.push_back(s.substr(start, i - start));
      start = i + 3;
    }
  }
  out.push_back(s.substr(start));
  for (auto& t : out) {
    if (!t.empty() && t[0] == '-') t.erase(0, 1);
    t = strip_parens(t);
  }
  return out;
}

}  // namespace

sym::Expr parse_sym_expr(std::string_view text) {
  try {
    return ExprParser(text).parse();
  } catch (const FormatError&) {
    throw;
  } catch (const UserError& e) {  // int64 overflow in the arithmetic
    throw FormatError(detail::cat("symbolic expression '", text, "': ", e.what()));
  }
}

std::string sym_expr_srepr(const sym::Expr& e) {
  switch (e.kind()) {
    case sym::Kind::Const: return "Integer(" + std::to_string(e.constant()) + ")";
    case sym::Kind::Symbol:  // an applied atom is its text, which sympify reads with torch's functions
      return sym::is_applied_name(e.name()) ? e.name() : srepr_symbol(e.name());
    case sym::Kind::Mul: return "Mul(" + srepr_factors(e) + ")";
    case sym::Kind::FloorDiv: return "FloorDiv(" + sym_expr_srepr(e.args()[0]) + ", " + sym_expr_srepr(e.args()[1]) + ")";
    case sym::Kind::Mod: return "Mod(" + sym_expr_srepr(e.args()[0]) + ", " + sym_expr_srepr(e.args()[1]) + ")";
    case sym::Kind::Min:
    case sym::Kind::Max: {
      std::string s = e.kind() == sym::Kind::Min ? "Min(" : "Max(";
      for (size_t i = 0; i < e.args().size(); ++i) s += (i ? ", " : "") + sym_expr_srepr(e.args()[i]);
      return s + ")";
    }
    case sym::Kind::Add: {
      const auto& terms = e.terms();
      if (e.add_constant() == 0 && terms.size() == 1) return srepr_scaled(terms[0].first, terms[0].second);
      // (printed text without sign, srepr) per term; then emit in sympy's printing order.
      std::vector<std::pair<std::string, std::string>> items;
      for (const auto& [t, c] : terms) {
        std::string key = (sym::Expr(c) * t).str();
        if (!key.empty() && key[0] == '-') key.erase(0, 1);
        items.emplace_back(strip_parens(key), srepr_scaled(t, c));
      }
      if (e.add_constant() != 0)
        items.emplace_back(std::to_string(std::abs(e.add_constant())), "Integer(" + std::to_string(e.add_constant()) + ")");
      std::vector<std::string> order = printed_terms(e.str());
      std::string s = "Add(";
      std::vector<bool> used(items.size(), false);
      bool first = true;
      for (const std::string& p : order)
        for (size_t i = 0; i < items.size(); ++i)
          if (!used[i] && items[i].first == p) {
            used[i] = true;
            s += (first ? "" : ", ") + items[i].second;
            first = false;
            break;
          }
      for (size_t i = 0; i < items.size(); ++i)  // anything the text did not place, in stored order
        if (!used[i]) {
          s += (first ? "" : ", ") + items[i].second;
          first = false;
        }
      return s + ")";
    }
  }
  return "";
}

// ---- json.dumps

namespace {
void dump_string(std::string& out, const std::string& s) {
  static const char* hex = "0123456789abcdef";
  auto u16 = [&](uint32_t c) {
    out += "\\u";
    for (int sh = 12; sh >= 0; sh -= 4) out += hex[(c >> sh) & 0xF];
  };
  out += '"';
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
          if (c < 0x20) u16(c);
          else out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    // ensure_ascii: decode UTF-8, write \uXXXX (surrogate pairs above the BMP).
    int len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    uint32_t cp = c & (len == 4 ? 0x07 : len == 3 ? 0x0F : 0x1F);
    for (int k = 1; k < len && i + static_cast<size_t>(k) < s.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(s[i + static_cast<size_t>(k)]) & 0x3F);
    i += static_cast<size_t>(len);
    if (cp >= 0x10000) {
      cp -= 0x10000;
      u16(0xD800 + (cp >> 10));
      u16(0xDC00 + (cp & 0x3FF));
    } else {
      u16(cp);
    }
  }
  out += '"';
}

void dump(std::string& out, const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::null: out += "null"; break;
    case nlohmann::ordered_json::value_t::boolean: out += j.get<bool>() ? "true" : "false"; break;
    case nlohmann::ordered_json::value_t::number_integer: out += std::to_string(j.get<int64_t>()); break;
    case nlohmann::ordered_json::value_t::number_unsigned: out += std::to_string(j.get<uint64_t>()); break;
    case nlohmann::ordered_json::value_t::number_float: out += python_float_repr(j.get<double>()); break;
    case nlohmann::ordered_json::value_t::string: dump_string(out, j.get_ref<const std::string&>()); break;
    case nlohmann::ordered_json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& e : j) {
        if (!first) out += ", ";
        first = false;
        dump(out, e);
      }
      out += ']';
      break;
    }
    case nlohmann::ordered_json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [k, v] : j.items()) {
        if (!first) out += ", ";
        first = false;
        dump_string(out, k);
        out += ": ";
        dump(out, v);
      }
      out += '}';
      break;
    }
    default: throw ValueError("dump_python_json: binary/discarded JSON values have no Python form");
  }
}
}  // namespace

std::string dump_python_json(const nlohmann::ordered_json& j) {
  std::string out;
  dump(out, j);
  return out;
}

}  // namespace fe::serde
