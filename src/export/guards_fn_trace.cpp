// See guards_fn_trace.h. _get_input_guards_for_graph and _convert_guards_code_to_fn build the
// guard function's code; make_fx records, per Python operation on a SymInt, one node named after
// the operator, after forcing a `sym_size.int` read of each input size it meets the first time.
#include "export/guards_fn_trace.h"

#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

namespace fe::detail {
namespace {

/// The inputs by the name guards use for them, and the sizes read so far.
struct GuardInputs {
  std::map<std::string, size_t, std::less<>> by_name;
  std::span<const GuardInput> inputs;
  const std::function<void(const SymInt&)>* read_size;
  std::set<std::pair<size_t, size_t>> read;  ///< (input, dim) sizes already read

  /// `L['x'].size()[d]` evaluated: whether it is symbolic; its first read is recorded.
  bool size(size_t input, size_t d) {
    const TensorMeta& m = *inputs[input].meta;
    if (d >= m.sizes.size()) return false;
    const SymInt& s = m.sizes[d];
    if (!s.is_symbolic() || s.maybe_int()) return false;
    if (read.insert({input, d}).second) (*read_size)(s);
    return true;
  }
};

/// A parsed guard expression: leaves are ints or sizes; inner nodes Python operators.
struct Expr {
  std::string op;  ///< "" for a leaf; "add", "sub", "mul", "floordiv", "mod", "neg", "eq", "le", ..., "or", "and"
  std::optional<std::pair<size_t, size_t>> size;  ///< leaf: (input, dim); none for an int
  int64_t value = 0;                              ///< an int leaf's value
  std::vector<Expr> kids;
};

/// Recursive descent over the guards' Python (sympy's PythonPrinter output); nullopt where the
/// text is anything else.
class Parser {
 public:
  Parser(std::string_view s, const GuardInputs& in) : s_(s), in_(in) {}
  std::optional<Expr> parse() {
    std::optional<Expr> e = either();
    skip();
    if (!e || i_ != s_.size()) return std::nullopt;
    return e;
  }

 private:
  void skip() {
    while (i_ < s_.size() && s_[i_] == ' ') ++i_;
  }
  bool eat(std::string_view t) {
    skip();
    if (s_.substr(i_, t.size()) != t) return false;
    i_ += t.size();
    return true;
  }
  static std::optional<Expr> binary(const char* op, std::optional<Expr> a, std::optional<Expr> b) {
    if (!a || !b) return std::nullopt;
    return Expr{op, std::nullopt, 0, {std::move(*a), std::move(*b)}};
  }
  std::optional<Expr> either() {
    std::optional<Expr> a = both();
    while (a && eat("or ")) a = binary("or", std::move(a), both());
    return a;
  }
  std::optional<Expr> both() {
    std::optional<Expr> a = compare();
    while (a && eat("and ")) a = binary("and", std::move(a), compare());
    return a;
  }
  std::optional<Expr> compare() {
    std::optional<Expr> a = sum();
    if (!a) return std::nullopt;
    static constexpr std::pair<std::string_view, const char*> kOps[] = {
        {"==", "eq"}, {"!=", "ne"}, {"<=", "le"}, {">=", "ge"}, {"<", "lt"}, {">", "gt"}};
    for (const auto& [tok, name] : kOps)
      if (eat(tok)) return binary(name, std::move(a), sum());
    return a;
  }
  std::optional<Expr> sum() {
    std::optional<Expr> a = product();
    while (a) {
      const char* op = eat("+") ? "add" : eat("-") ? "sub" : nullptr;
      if (!op) break;
      a = binary(op, std::move(a), product());
    }
    return a;
  }
  std::optional<Expr> product() {
    std::optional<Expr> a = unary();
    while (a) {
      const char* op = eat("//") ? "floordiv" : eat("*") ? "mul" : eat("%") ? "mod" : nullptr;
      if (!op) break;
      a = binary(op, std::move(a), unary());
    }
    return a;
  }
  std::optional<Expr> unary() {
    if (!eat("-")) return leaf();
    std::optional<Expr> e = unary();
    if (!e) return std::nullopt;
    if (e->op.empty() && !e->size) return Expr{"", std::nullopt, -e->value, {}};  // a negative literal
    return Expr{"neg", std::nullopt, 0, {std::move(*e)}};
  }
  std::optional<Expr> leaf() {
    skip();
    if (eat("(")) {
      std::optional<Expr> e = either();
      if (!e || !eat(")")) return std::nullopt;
      return e;
    }
    if (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
      int64_t v = 0;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
        if (v > (INT64_MAX - 9) / 10) return std::nullopt;
        v = v * 10 + (s_[i_++] - '0');
      }
      return Expr{"", std::nullopt, v, {}};
    }
    if (!eat("L['")) return std::nullopt;
    const size_t end = s_.find('\'', i_);
    if (end == std::string_view::npos) return std::nullopt;
    const auto it = in_.by_name.find(s_.substr(i_, end - i_));
    i_ = end + 1;
    if (it == in_.by_name.end() || !eat("].size()[")) return std::nullopt;
    size_t d = 0;
    const size_t start = i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) d = d * 10 + static_cast<size_t>(s_[i_++] - '0');
    if (i_ == start || !eat("]")) return std::nullopt;
    return Expr{"", std::pair{it->second, d}, 0, {}};
  }

  std::string_view s_;
  size_t i_ = 0;
  const GuardInputs& in_;
};

/// A value while evaluating a guard: symbolic or an int, with its (hinted) value.
struct Value {
  bool symbolic = false;
  int64_t v = 0;
};

int64_t py_floordiv(int64_t a, int64_t b) {
  if (b == 0 || (b == -1 && a == INT64_MIN)) return 0;  // the guard would raise; its names are taken all the same
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// Evaluates `e` as Python would (left operand, right operand, operator; `or`/`and` short-circuit
/// on the hinted truth value, a SymBool's bool() recording nothing), taking the names of the nodes
/// make_fx records; returns its value.
Value evaluate(Graph& g, GuardInputs& in, const Expr& e) {
  if (e.op.empty()) {
    if (!e.size) return {false, e.value};
    const TensorMeta& m = *in.inputs[e.size->first].meta;
    const int64_t hint = e.size->second < m.sizes.size() ? m.sizes[e.size->second].hint() : 0;
    return {in.size(e.size->first, e.size->second), hint};
  }
  if (e.op == "or" || e.op == "and") {
    const Value a = evaluate(g, in, e.kids[0]);
    if ((e.op == "or") == (a.v != 0)) return {false, a.v != 0};
    const Value b = evaluate(g, in, e.kids[1]);
    return {false, b.v != 0};
  }
  if (e.op == "neg") {
    const Value a = evaluate(g, in, e.kids[0]);
    if (a.symbolic) (void)g.unique_name("neg");
    return {a.symbolic, static_cast<int64_t>(0 - static_cast<uint64_t>(a.v))};
  }
  const Value a = evaluate(g, in, e.kids[0]);
  const Value b = evaluate(g, in, e.kids[1]);
  int64_t v = 0;
  // Hints only steer `or`/`and`; wrapping arithmetic keeps absurd literals defined behaviour.
  const auto wrap = [](uint64_t x) { return static_cast<int64_t>(x); };
  const uint64_t ua = static_cast<uint64_t>(a.v), ub = static_cast<uint64_t>(b.v);
  if (e.op == "add") v = wrap(ua + ub);
  else if (e.op == "sub") v = wrap(ua - ub);
  else if (e.op == "mul") v = wrap(ua * ub);
  else if (e.op == "floordiv") v = py_floordiv(a.v, b.v);
  else if (e.op == "mod") v = wrap(ua - ub * static_cast<uint64_t>(py_floordiv(a.v, b.v)));
  else if (e.op == "eq") v = a.v == b.v;
  else if (e.op == "ne") v = a.v != b.v;
  else if (e.op == "le") v = a.v <= b.v;
  else if (e.op == "ge") v = a.v >= b.v;
  else if (e.op == "lt") v = a.v < b.v;
  else if (e.op == "gt") v = a.v > b.v;
  if (!a.symbolic && !b.symbolic) return {false, v};
  // make_fx's peephole: `x * 1` returns x unrecorded.
  const bool times_one = e.op == "mul" && ((!a.symbolic && a.v == 1) || (!b.symbolic && b.v == 1));
  if (!times_one) (void)g.unique_name(e.op);
  return {true, v};
}

}  // namespace

void take_guards_fn_names(Graph& g, std::span<const GuardInput> inputs,
                          const std::vector<std::pair<std::string, sym::ValueRange>>& range_constraints,
                          const std::vector<std::string>& guards_code,
                          const std::function<void(const SymInt&)>& read_size) {
  GuardInputs in{{}, inputs, &read_size, {}};
  for (size_t k = 0; k < inputs.size(); ++k) in.by_name.emplace(inputs[k].name, k);
  // _get_input_guards_for_graph: inputs in order, dims in order.
  std::map<std::string, std::pair<size_t, size_t>> sources;  // symbol -> its first (input, dim)
  for (size_t k = 0; k < inputs.size(); ++k) {
    const TensorMeta& m = *inputs[k].meta;
    for (size_t d = 0; d < m.sizes.size(); ++d) {
      if (!m.sizes[d].is_symbolic() || m.sizes[d].maybe_int()) continue;
      const std::string expr = m.sizes[d].str();
      const sym::ValueRange* range = nullptr;
      for (const auto& [name, r] : range_constraints)
        if (name == expr) range = &r;
      if (!range) continue;
      if (auto it = sources.find(expr); it != sources.end()) {
        in.size(k, d);
        in.size(it->second.first, it->second.second);
        (void)g.unique_name("eq");
        continue;
      }
      sources.emplace(expr, std::pair{k, d});
      if (range->lo != sym::kNegInf && range->lo > 2) {
        in.size(k, d);
        (void)g.unique_name("ge");
      }
      if (range->hi != sym::kPosInf) {
        in.size(k, d);
        (void)g.unique_name("le");
      }
    }
  }
  for (const std::string& code : guards_code)
    if (std::optional<Expr> e = Parser(code, in).parse()) (void)evaluate(g, in, *e);
}

}  // namespace fe::detail
