// Canonicalising constructors, evaluation and sympy-compatible printing for fe::sym::Expr.
// Rules mirror sympy 1.14 + torch.utils._sympy.functions (see tests/fixtures/sympy_exprs.json).
#include "fakeexport/sym/expr.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <numeric>
#include <tuple>

#include "fakeexport/core/error.h"
#include "fakeexport/core/symint.h"

namespace fe::sym {

struct Node {
  Kind kind;
  int64_t value = 0;  // Const: the value; Add: the constant term
  std::string name;   // Symbol
  std::vector<std::pair<Expr, int64_t>> terms;  // Add: term -> coef; Mul: base -> exponent
  std::vector<Expr> args;                       // FloorDiv, Mod, Min, Max
  size_t hash = 0;
};

namespace {

// ---- checked int64 arithmetic: overflow is a user-visible ShapeError, never UB
int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  FE_CHECK(!__builtin_add_overflow(a, b, &r), ShapeError,
           "symbolic expression: int64 overflow in ", a, " + ", b);
  return r;
}
int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  FE_CHECK(!__builtin_mul_overflow(a, b, &r), ShapeError,
           "symbolic expression: int64 overflow in ", a, " * ", b);
  return r;
}
int64_t checked_pow(int64_t b, int64_t e) {
  int64_t r = 1;
  for (int64_t i = 0; i < e; ++i) {
    FE_CHECK(!__builtin_mul_overflow(r, b, &r), ShapeError,
             "symbolic expression: int64 overflow in ", b, "**", e);
  }
  return r;
}
using fe::detail::py_floordiv;
using fe::detail::py_mod;

size_t mix(size_t h, size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }

Expr finish(Node n) {
  size_t h = mix(std::hash<int>()(static_cast<int>(n.kind)), std::hash<int64_t>()(n.value));
  h = mix(h, std::hash<std::string>()(n.name));
  for (const auto& [e, c] : n.terms) h = mix(mix(h, e.hash()), std::hash<int64_t>()(c));
  for (const auto& e : n.args) h = mix(h, e.hash());
  n.hash = h;
  return Expr(std::make_shared<const Node>(std::move(n)));
}

// ---- applications we do not model
// torch's CeilToInt(FloatTrueDiv(zuf0 - zuf1, -1.0)) (an arange over unbacked floats) is an integer
// we cannot compute without float symbols: it is kept as an atom, a Symbol named by its printed
// text, as its recorded metadata has it. It sorts as sympy sorts a Function (class key 4, 10000,
// its name) and its free symbols are the names inside it.
bool is_applied(const Node& n) { return n.kind == Kind::Symbol && is_applied_name(n.name); }

/// The names an applied atom's text mentions (`zuf0`), not its function names or numbers.
std::vector<std::string> inner_symbols(const std::string& text) {
  std::vector<std::string> out;
  const size_t open = text.find('(');
  for (size_t i = open; i < text.size();) {
    const auto word = [&](size_t k) { return std::isalnum(static_cast<unsigned char>(text[k])) || text[k] == '_' || text[k] == '.'; };
    if (!word(i)) { ++i; continue; }
    size_t e = i;
    while (e < text.size() && word(e)) ++e;
    if (!std::isdigit(static_cast<unsigned char>(text[i])) && text[i] != '.' && (e == text.size() || text[e] != '('))
      out.push_back(text.substr(i, e - i));
    i = e;
  }
  return out;
}

// ---- sympy's default_sort_key, rebuilt per node kind (class_key, args, exponent, coefficient)
struct Key {
  int c1 = 0, c2 = 0;
  std::string cname;
  std::string atom;  // Symbol name; empty for others
  std::vector<Key> args;
  int64_t exp = 1;
  int64_t coeff = 1;
};

int cmp_key(const Key& a, const Key& b) {
  if (auto c = std::tie(a.c1, a.c2, a.cname) <=> std::tie(b.c1, b.c2, b.cname); c != 0) return c < 0 ? -1 : 1;
  if (a.atom != b.atom) return a.atom < b.atom ? -1 : 1;
  if (a.args.size() != b.args.size()) return a.args.size() < b.args.size() ? -1 : 1;
  for (size_t i = 0; i < a.args.size(); ++i)
    if (int c = cmp_key(a.args[i], b.args[i]); c != 0) return c;
  if (a.exp != b.exp) return a.exp < b.exp ? -1 : 1;
  if (a.coeff != b.coeff) return a.coeff < b.coeff ? -1 : 1;
  return 0;
}

bool is_scaled(const Node& n) { return n.kind == Kind::Add && n.value == 0 && n.terms.size() == 1; }
bool is_pow(const Node& n) { return n.kind == Kind::Mul && n.terms.size() == 1; }

std::vector<Expr> print_order(const Node& add);
Expr scaled(const Expr& t, int64_t c);

Key key_of(const Expr& e) {
  const Node& n = e.node();
  Key k;
  switch (n.kind) {
    case Kind::Const:
      k = {1, 0, "Number", "", {}, 0, n.value};
      return k;
    case Kind::Symbol:
      if (is_applied(n)) k = {4, 10000, n.name.substr(0, n.name.find('(')), n.name, {}, 1, 1};
      else k = {2, 0, "Symbol", n.name, {}, 1, 1};
      return k;
    case Kind::Add:
      if (is_scaled(n)) {  // sympy Mul(c, T): T's key carrying coefficient c
        k = key_of(n.terms[0].first);
        k.coeff = n.terms[0].second;
        return k;
      }
      k = {3, 1, "Add", "", {}, 1, 1};
      for (const auto& t : print_order(n)) k.args.push_back(key_of(t));
      return k;
    case Kind::Mul:
      if (is_pow(n)) {  // sympy Pow(b, e) sorts as its base with exponent e
        k = key_of(n.terms[0].first);
        k.exp = n.terms[0].second;
        return k;
      }
      k = {3, 0, "Mul", "", {}, 1, 1};
      for (const auto& [b, x] : n.terms) {
        Key f = key_of(b);
        f.exp = x;
        k.args.push_back(std::move(f));
      }
      return k;
    case Kind::FloorDiv: k = {4, 10000, "FloorDiv", "", {}, 1, 1}; break;
    case Kind::Mod: k = {4, 10000, "Mod", "", {}, 1, 1}; break;
    case Kind::Min: k = {5, 0, "Min", "", {}, 1, 1}; break;
    case Kind::Max: k = {5, 0, "Max", "", {}, 1, 1}; break;
  }
  for (const auto& a : n.args) k.args.push_back(key_of(a));
  return k;
}

// ---- Add print order: sympy's Expr.as_ordered_terms (lex monomial order over sorted generators)
std::vector<Expr> print_order(const Node& add) {
  std::vector<Expr> out;
  // sympy special case: `5 - s0` (positive number first before one negative 2-arg Mul).
  if (add.value > 0 && add.terms.size() == 1 && add.terms[0].second < 0) {
    const Node& t = add.terms[0].first.node();
    if (!(t.kind == Kind::Mul && t.terms.size() > 1)) {
      out.push_back(Expr(add.value));
      out.push_back(scaled(add.terms[0].first, add.terms[0].second));
      return out;
    }
  }
  std::vector<Expr> gens;
  auto factors_of = [](const Expr& t) {
    if (t.kind() == Kind::Mul) return t.terms();
    return std::vector<std::pair<Expr, int64_t>>{{t, 1}};
  };
  for (const auto& [t, c] : add.terms)
    for (const auto& [b, x] : factors_of(t))
      if (std::find(gens.begin(), gens.end(), b) == gens.end()) gens.push_back(b);
  std::sort(gens.begin(), gens.end(), [](const Expr& a, const Expr& b) { return compare(a, b) < 0; });
  struct Row { std::vector<int64_t> monom; int64_t coeff; Expr e; };
  std::vector<Row> rows;
  for (const auto& [t, c] : add.terms) {
    Row r{std::vector<int64_t>(gens.size(), 0), c, scaled(t, c)};
    for (const auto& [b, x] : factors_of(t))
      r.monom[std::find(gens.begin(), gens.end(), b) - gens.begin()] = x;
    rows.push_back(std::move(r));
  }
  if (add.value != 0) rows.push_back({std::vector<int64_t>(gens.size(), 0), add.value, Expr(add.value)});
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.monom != b.monom) return a.monom > b.monom;  // descending lex
    return a.coeff < b.coeff;
  });
  for (auto& r : rows) out.push_back(std::move(r.e));
  return out;
}

// ---- canonical builders
struct Linear {
  int64_t c = 0;
  std::vector<std::pair<Expr, int64_t>> terms;
};

Linear linear_of(const Expr& e) {
  const Node& n = e.node();
  if (n.kind == Kind::Const) return {n.value, {}};
  if (n.kind == Kind::Add) return {n.value, n.terms};
  return {0, {{e, 1}}};
}

void accumulate(std::vector<std::pair<Expr, int64_t>>& into, const Expr& t, int64_t c) {
  for (auto& [u, d] : into)
    if (u == t) { d = checked_add(d, c); return; }
  into.emplace_back(t, c);
}

Expr make_add(int64_t c, std::vector<std::pair<Expr, int64_t>> terms) {
  std::erase_if(terms, [](const auto& p) { return p.second == 0; });
  if (terms.empty()) return Expr(c);
  if (c == 0 && terms.size() == 1 && terms[0].second == 1) return terms[0].first;
  std::sort(terms.begin(), terms.end(), [](const auto& a, const auto& b) { return compare(a.first, b.first) < 0; });
  Node n{Kind::Add};
  n.value = c;
  n.terms = std::move(terms);
  return finish(std::move(n));
}

Expr scaled(const Expr& t, int64_t c) { return make_add(0, {{t, c}}); }

Expr make_mul(std::vector<std::pair<Expr, int64_t>> factors) {
  if (factors.empty()) return Expr(1);
  if (factors.size() == 1 && factors[0].second == 1) return factors[0].first;
  std::sort(factors.begin(), factors.end(), [](const auto& a, const auto& b) { return compare(a.first, b.first) < 0; });
  Node n{Kind::Mul};
  n.terms = std::move(factors);
  return finish(std::move(n));
}

Expr make_args(Kind k, std::vector<Expr> args) {
  Node n{k};
  n.args = std::move(args);
  return finish(std::move(n));
}

// Splits a term into (integer coefficient, monomial) as sympy's as_coeff_Mul.
std::pair<int64_t, Expr> coeff_mul(const Expr& e) {
  const Node& n = e.node();
  if (n.kind == Kind::Const) return {n.value, Expr(1)};
  if (is_scaled(n)) return {n.terms[0].second, n.terms[0].first};
  return {1, e};
}

// A monomial's (base, power) factors: none for 1, the symbol itself, a Mul's; nullopt otherwise.
std::optional<std::vector<std::pair<Expr, int64_t>>> monomial_factors(const Expr& m) {
  if (m.is_constant()) return std::vector<std::pair<Expr, int64_t>>{};
  if (m.is_symbol()) return std::vector<std::pair<Expr, int64_t>>{{m, 1}};
  if (m.kind() == Kind::Mul) return m.terms();
  return std::nullopt;
}

// a / b when b divides a as monomials (sympy's `(a / b).is_integer` for products of symbols):
// the coefficient and every factor's power of b within a's; nullopt otherwise.
std::optional<Expr> monomial_quotient(const Expr& a, const Expr& b) {
  const auto [ca, ma] = coeff_mul(a);
  const auto [cb, mb] = coeff_mul(b);
  if (cb == 0 || ca % cb != 0) return std::nullopt;
  auto fa = monomial_factors(ma);
  const auto fb = monomial_factors(mb);
  if (!fa || !fb) return std::nullopt;
  for (const auto& [base, e] : *fb) {
    auto it = std::find_if(fa->begin(), fa->end(), [&](const auto& f) { return f.first == base; });
    if (it == fa->end() || it->second < e) return std::nullopt;
    it->second -= e;
  }
  std::erase_if(*fa, [](const auto& f) { return f.second == 0; });
  return Expr(ca / cb) * make_mul(std::move(*fa));
}

// The greatest common monomial of two products of symbols (coefficients' gcd, each shared
// factor's least power); nullopt when either is no such product or the gcd is 1.
std::optional<Expr> monomial_gcd(const Expr& a, const Expr& b) {
  const auto [ca, ma] = coeff_mul(a);
  const auto [cb, mb] = coeff_mul(b);
  const auto fa = monomial_factors(ma), fb = monomial_factors(mb);
  if (!fa || !fb || ca == 0 || cb == 0) return std::nullopt;
  std::vector<std::pair<Expr, int64_t>> common;
  for (const auto& [base, e] : *fa)
    for (const auto& [base_b, e_b] : *fb)
      if (base == base_b) common.emplace_back(base, std::min(e, e_b));
  const int64_t c = std::gcd(ca < 0 ? -ca : ca, cb < 0 ? -cb : cb);
  if (common.empty() && c == 1) return std::nullopt;
  return Expr(c) * make_mul(std::move(common));
}

Expr minmax(Kind k, const Expr& a, const Expr& b) {
  std::vector<Expr> in;
  for (const Expr* e : {&a, &b}) {
    if (e->kind() == k) in.insert(in.end(), e->args().begin(), e->args().end());
    else in.push_back(*e);
  }
  // Fold constants together and drop duplicates only: torch keeps Max(s0, s0 + 1) as it is.
  std::vector<Expr> keep;
  for (const auto& x : in) {
    bool drop = false;
    for (auto it = keep.begin(); it != keep.end(); ++it) {
      if (!(x == *it || (x.is_constant() && it->is_constant()))) continue;
      Expr d = x - *it;
      if ((k == Kind::Max) == (d.constant() > 0)) *it = x;
      drop = true;
      break;
    }
    if (!drop) keep.push_back(x);
  }
  if (keep.size() == 1) return keep[0];
  std::sort(keep.begin(), keep.end(), [](const Expr& x, const Expr& y) { return compare(x, y) < 0; });
  return make_args(k, std::move(keep));
}

// ---- printing (sympy StrPrinter + torch's FloorDiv._sympystr)
constexpr int kAdd = 40, kMul = 50, kPow = 60, kAtom = 1000, kFloorMod = 35;

int precedence(const Expr& e) {
  const Node& n = e.node();
  switch (n.kind) {
    case Kind::Const: return n.value < 0 ? kAdd : kAtom;
    case Kind::Symbol: case Kind::Min: case Kind::Max: return kAtom;
    case Kind::Add: return is_scaled(n) ? (n.terms[0].second < 0 ? kAdd : kMul) : kAdd;
    case Kind::Mul: return is_pow(n) ? kPow : kMul;
    case Kind::FloorDiv: case Kind::Mod: return kFloorMod;
  }
  return kAtom;
}

std::string paren(const Expr& e, double level) {
  std::string s = e.str();
  return precedence(e) <= level ? "(" + s + ")" : s;
}

std::string print_factors(const std::vector<std::pair<Expr, int64_t>>& fs) {
  std::string s;
  for (const auto& [b, x] : fs) {
    if (!s.empty()) s += "*";
    s += x == 1 ? paren(b, kMul) : paren(b, kPow) + "**" + std::to_string(x);
  }
  return s;
}

}  // namespace

// ---- Expr
Expr::Expr(int64_t v) {
  // Small constants are shared: sizes and strides use them constantly (no allocation per use).
  static constexpr int64_t kLo = -16, kHi = 1024;
  static const std::vector<Expr> small = [] {
    std::vector<Expr> out;
    for (int64_t c = kLo; c <= kHi; ++c) {
      Node n{Kind::Const};
      n.value = c;
      out.push_back(finish(std::move(n)));
    }
    return out;
  }();
  if (v >= kLo && v <= kHi && !small.empty() && static_cast<size_t>(v - kLo) < small.size()) {
    *this = small[static_cast<size_t>(v - kLo)];
    return;
  }
  Node n{Kind::Const};
  n.value = v;
  *this = finish(std::move(n));
}

Expr Expr::symbol(std::string name) {
  FE_CHECK(!name.empty(), ValueError, "symbol name must not be empty");
  Node n{Kind::Symbol};
  n.name = std::move(name);
  return finish(std::move(n));
}

Kind Expr::kind() const { return n_->kind; }
int64_t Expr::constant() const {
  FE_CHECK(is_constant(), ValueError, "expression ", str(), " is not a constant");
  return n_->value;
}
const std::string& Expr::name() const {
  FE_CHECK(is_symbol(), ValueError, "expression ", str(), " is not a symbol");
  return n_->name;
}
const std::vector<std::pair<Expr, int64_t>>& Expr::terms() const { return n_->terms; }
const std::vector<Expr>& Expr::args() const { return n_->args; }
int64_t Expr::add_constant() const { return n_->kind == Kind::Add ? n_->value : 0; }
size_t Expr::hash() const { return n_->hash; }

bool operator==(const Expr& a, const Expr& b) {
  if (a.n_ == b.n_) return true;
  const Node &x = *a.n_, &y = *b.n_;
  return x.hash == y.hash && x.kind == y.kind && x.value == y.value && x.name == y.name &&
         x.terms == y.terms && x.args == y.args;
}

int compare(const Expr& a, const Expr& b) {
  if (a == b) return 0;
  return cmp_key(key_of(a), key_of(b));
}

int64_t Expr::evaluate(const std::function<int64_t(std::string_view)>& value_of) const {
  const Node& n = *n_;
  switch (n.kind) {
    case Kind::Const: return n.value;
    case Kind::Symbol: return value_of(n.name);
    case Kind::Add: {
      int64_t r = n.value;
      for (const auto& [t, c] : n.terms) r = checked_add(r, checked_mul(c, t.evaluate(value_of)));
      return r;
    }
    case Kind::Mul: {
      int64_t r = 1;
      for (const auto& [b, x] : n.terms) r = checked_mul(r, checked_pow(b.evaluate(value_of), x));
      return r;
    }
    case Kind::FloorDiv: return py_floordiv(n.args[0].evaluate(value_of), n.args[1].evaluate(value_of));
    case Kind::Mod: return py_mod(n.args[0].evaluate(value_of), n.args[1].evaluate(value_of));
    case Kind::Min: case Kind::Max: {
      int64_t r = n.args[0].evaluate(value_of);
      for (size_t i = 1; i < n.args.size(); ++i) {
        int64_t v = n.args[i].evaluate(value_of);
        r = n.kind == Kind::Min ? std::min(r, v) : std::max(r, v);
      }
      return r;
    }
  }
  FE_INTERNAL_ASSERT(false, "bad expression kind");
}

int64_t Expr::evaluate(const std::map<std::string, int64_t, std::less<>>& values) const {
  return evaluate([&](std::string_view s) {
    auto it = values.find(s);
    FE_CHECK(it != values.end(), ValueError, "no value for symbol ", s, " in ", str());
    return it->second;
  });
}

std::set<std::string> Expr::free_symbols() const {
  std::set<std::string> out;
  std::function<void(const Expr&)> walk = [&](const Expr& e) {
    if (is_applied(e.node())) {
      for (auto& x : inner_symbols(e.node().name)) out.insert(std::move(x));
    } else if (e.is_symbol()) {
      out.insert(e.node().name);
    }
    for (const auto& [t, c] : e.terms()) walk(t);
    for (const auto& a : e.args()) walk(a);
  };
  walk(*this);
  return out;
}

Expr Expr::substitute(const std::map<std::string, Expr, std::less<>>& repl) const {
  const Node& n = *n_;
  switch (n.kind) {
    case Kind::Const: return *this;
    case Kind::Symbol: {
      auto it = repl.find(n.name);
      if (it != repl.end()) return it->second;
      if (!is_applied(n)) return *this;
      // The names inside the text, replaced word by word (parenthesized unless atoms).
      std::string text = n.name.substr(0, n.name.find('('));
      bool changed = false;
      for (size_t i = text.size(); i < n.name.size();) {
        const auto word = [&](size_t k) { return std::isalnum(static_cast<unsigned char>(n.name[k])) || n.name[k] == '_' || n.name[k] == '.'; };
        if (!word(i)) { text += n.name[i++]; continue; }
        size_t e = i;
        while (e < n.name.size() && word(e)) ++e;
        const std::string w = n.name.substr(i, e - i);
        auto r = repl.find(w);
        if (r != repl.end() && (e == n.name.size() || n.name[e] != '(')) {
          const bool atom = r->second.is_symbol() || (r->second.is_constant() && r->second.constant() >= 0);
          text += atom ? r->second.str() : "(" + r->second.str() + ")";
          changed = true;
        } else {
          text += w;
        }
        i = e;
      }
      return changed ? Expr::symbol(std::move(text)) : *this;
    }
    case Kind::Add: {
      Expr r(n.value);
      for (const auto& [t, c] : n.terms) r = r + Expr(c) * t.substitute(repl);
      return r;
    }
    case Kind::Mul: {
      Expr r(1);
      for (const auto& [b, x] : n.terms) {
        Expr s = b.substitute(repl);
        for (int64_t i = 0; i < x; ++i) r = r * s;
      }
      return r;
    }
    case Kind::FloorDiv: return floordiv(n.args[0].substitute(repl), n.args[1].substitute(repl));
    case Kind::Mod: return mod(n.args[0].substitute(repl), n.args[1].substitute(repl));
    case Kind::Min: case Kind::Max: {
      Expr r = n.args[0].substitute(repl);
      for (size_t i = 1; i < n.args.size(); ++i)
        r = n.kind == Kind::Min ? min(r, n.args[i].substitute(repl)) : max(r, n.args[i].substitute(repl));
      return r;
    }
  }
  FE_INTERNAL_ASSERT(false, "bad expression kind");
}

std::string Expr::str() const {
  const Node& n = *n_;
  switch (n.kind) {
    case Kind::Const: return std::to_string(n.value);
    case Kind::Symbol: return n.name;
    case Kind::Add: {
      if (is_scaled(n)) {  // sympy Mul(c, T): sign, |c| unless 1, then T's factors
        const auto& [t, c] = n.terms[0];
        std::string cs = std::to_string(c);
        std::string s = c < 0 ? "-" : "";
        if (c < 0) cs.erase(0, 1);
        if (cs != "1") s += cs + "*";
        if (t.kind() == Kind::Mul) return s + print_factors(t.terms());
        return s + paren(t, kMul);
      }
      std::string s;
      bool first = true;
      for (const auto& term : print_order(n)) {
        std::string t = term.str();
        bool neg = !t.empty() && t[0] == '-';
        if (neg) t.erase(0, 1);
        if (precedence(term) < kAdd) t = "(" + t + ")";
        s += first ? (neg ? "-" : "") : (neg ? " - " : " + ");
        s += t;
        first = false;
      }
      return s;
    }
    case Kind::Mul: return print_factors(n.terms);
    case Kind::FloorDiv:
      return "(" + paren(n.args[0], kAtom - 0.5) + "//" + paren(n.args[1], kAtom - 0.5) + ")";
    case Kind::Mod: case Kind::Min: case Kind::Max: {
      std::string s = n.kind == Kind::Mod ? "Mod(" : n.kind == Kind::Min ? "Min(" : "Max(";
      for (size_t i = 0; i < n.args.size(); ++i) s += (i ? ", " : "") + n.args[i].str();
      return s + ")";
    }
  }
  FE_INTERNAL_ASSERT(false, "bad expression kind");
}

// ---- arithmetic
Expr operator+(const Expr& a, const Expr& b) {
  Linear x = linear_of(a), y = linear_of(b);
  int64_t c = checked_add(x.c, y.c);
  for (const auto& [t, k] : y.terms) accumulate(x.terms, t, k);
  return make_add(c, std::move(x.terms));
}

Expr operator*(const Expr& a, const Expr& b) {
  if (b.is_constant() && !a.is_constant()) return b * a;
  if (a.is_constant()) {
    int64_t k = a.constant();
    if (k == 0) return Expr(0);
    if (k == 1) return b;
    // sympy distributes a number over an Add: 2*(s0 + 1) -> 2*s0 + 2.
    Linear y = linear_of(b);
    for (auto& [t, c] : y.terms) c = checked_mul(c, k);
    return make_add(checked_mul(y.c, k), std::move(y.terms));
  }
  auto [ca, ma] = coeff_mul(a);
  auto [cb, mb] = coeff_mul(b);
  std::vector<std::pair<Expr, int64_t>> fs;
  for (const Expr* m : {&ma, &mb}) {
    if (m->kind() == Kind::Mul) {
      for (const auto& [base, x] : m->terms()) accumulate(fs, base, x);
    } else {
      accumulate(fs, *m, 1);
    }
  }
  return scaled(make_mul(std::move(fs)), checked_mul(ca, cb));
}

Expr operator-(const Expr& a) { return Expr(-1) * a; }
Expr operator-(const Expr& a, const Expr& b) { return a + (-b); }

Expr floordiv(const Expr& a, const Expr& b) {
  // Rules of torch.utils._sympy.functions.FloorDiv.eval, in its order.
  FE_CHECK(!(b.is_constant() && b.constant() == 0), ValueError, "division by zero: ", a, " // 0");
  if (a.is_constant() && a.constant() == 0) return Expr(0);
  if (b.is_constant() && b.constant() == 1) return a;
  if (b.is_constant() && b.constant() == -1) return -a;
  if (a == b) return Expr(1);
  if (a.is_constant() && b.is_constant()) return Expr(py_floordiv(a.constant(), b.constant()));
  if (a.kind() == Kind::FloorDiv) return floordiv(a.args()[0], a.args()[1] * b);
  if (b.is_constant()) {
    int64_t d = b.constant();
    // (d*x + y) // d -> x + y // d: pull out the terms that d divides exactly.
    Linear l = linear_of(a);
    Linear rest, quot;
    for (const auto& [t, c] : l.terms) {
      if (c % d == 0) quot.terms.emplace_back(t, c / d);
      else rest.terms.emplace_back(t, c);
    }
    if (l.c % d == 0) quot.c = l.c / d;
    else rest.c = l.c;
    if (!quot.terms.empty() || quot.c != 0 || (l.c != 0 && rest.c == 0))
      return floordiv(make_add(rest.c, rest.terms), b) + make_add(quot.c, quot.terms);
    // Common integer factor of every term and the divisor cancels (simple_floordiv_gcd).
    int64_t g = d < 0 ? -d : d;
    for (const auto& [t, c] : l.terms) g = std::gcd(g, c);
    if (l.c != 0) g = std::gcd(g, l.c);
    if (g > 1) {
      for (auto& [t, c] : l.terms) c /= g;
      return floordiv(make_add(l.c / g, l.terms), Expr(d / g));
    }
  }
  if (!b.is_constant())
    if (auto g = monomial_gcd(a, b)) {  // simple_floordiv_gcd of two products
      const Expr qa = *monomial_quotient(a, *g), qb = *monomial_quotient(b, *g);
      return qb.is_constant() && qb.constant() == 1 ? qa : floordiv(qa, qb);
    }
  return make_args(Kind::FloorDiv, {a, b});
}

Expr mod(const Expr& a, const Expr& b) {
  // Rules of torch.utils._sympy.functions.Mod.eval that need no value ranges.
  FE_CHECK(!(b.is_constant() && b.constant() == 0), ValueError, "modulo by zero: ", a, " % 0");
  if ((a.is_constant() && a.constant() == 0) || a == b || a == -b ||
      (b.is_constant() && b.constant() == 1))
    return Expr(0);
  if (a.is_constant() && b.is_constant()) return Expr(py_mod(a.constant(), b.constant()));
  if (b.is_constant()) {
    int64_t q = b.constant();
    Linear l = linear_of(a);
    bool terms_divisible = std::all_of(l.terms.begin(), l.terms.end(), [&](const auto& p) { return p.second % q == 0; });
    // Only what torch decides: a multiple of q, or parity for q == 2 (Mod(4*s0 + 5, 4) stays).
    if (terms_divisible && py_mod(l.c, q) == 0) return Expr(0);
    if (terms_divisible && q == 2) return Expr(1);
  }
  if (monomial_quotient(a, b)) return Expr(0);  // `(p / q).is_integer`
  return make_args(Kind::Mod, {a, b});
}

Expr min(const Expr& a, const Expr& b) { return minmax(Kind::Min, a, b); }
Expr max(const Expr& a, const Expr& b) { return minmax(Kind::Max, a, b); }

}  // namespace fe::sym
