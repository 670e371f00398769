// fe::sym::Expr: canonical forms, arithmetic, evaluation, substitution, and printing that matches
// sympy's str() (tests/fixtures/sympy_exprs.json, from tools/oracle/scripts/sympy_exprs.py).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <unordered_map>

#include "fakeexport/core/error.h"
#include "fakeexport/sym/expr.h"

using fe::sym::Expr;
using fe::sym::Kind;

namespace {

const Expr s0 = Expr::symbol("s0"), s1 = Expr::symbol("s1"), s2 = Expr::symbol("s2");
const Expr u0 = Expr::symbol("u0");

// The fixture's prefix language: ints, symbols, (OP A B) with OP in + - * neg // mod min max.
Expr parse_prefix(std::istringstream& in) {
  std::string tok;
  in >> tok;
  if (tok != "(") {
    bool num = !tok.empty() && (std::isdigit(static_cast<unsigned char>(tok.back())) && (std::isdigit(static_cast<unsigned char>(tok[0])) || tok[0] == '-'));
    return num ? Expr(std::stoll(tok)) : Expr::symbol(tok);
  }
  std::string op;
  in >> op;
  std::vector<Expr> a;
  while (in >> std::ws && in.peek() != ')') a.push_back(parse_prefix(in));
  in.get();
  if (op == "neg") return -a.at(0);
  if (op == "+") return a.at(0) + a.at(1);
  if (op == "-") return a.at(0) - a.at(1);
  if (op == "*") return a.at(0) * a.at(1);
  if (op == "//") return fe::sym::floordiv(a.at(0), a.at(1));
  if (op == "mod") return fe::sym::mod(a.at(0), a.at(1));
  if (op == "min") return fe::sym::min(a.at(0), a.at(1));
  if (op == "max") return fe::sym::max(a.at(0), a.at(1));
  ADD_FAILURE() << "unknown op " << op;
  return Expr(0);
}

Expr parse_prefix(const std::string& text) {
  std::string spaced;
  for (char c : text) spaced += (c == '(' || c == ')') ? std::string(" ") + c + " " : std::string(1, c);
  std::istringstream in(spaced);
  return parse_prefix(in);
}

}  // namespace

TEST(SymExpr, ConstantsAndSymbols) {
  EXPECT_TRUE(Expr(3).is_constant());
  EXPECT_EQ(Expr(3).constant(), 3);
  EXPECT_EQ(s0.name(), "s0");
  EXPECT_THROW(s0.constant(), fe::ValueError);
  EXPECT_THROW(Expr(1).name(), fe::ValueError);
  EXPECT_EQ(Expr(2) + Expr(3), Expr(5));
  EXPECT_EQ(Expr(2) * Expr(-3), Expr(-6));
}

TEST(SymExpr, Canonicalisation) {
  EXPECT_EQ(s0 + s0, 2 * s0);
  EXPECT_EQ(s0 + 0, s0);
  EXPECT_EQ(s0 * 1, s0);
  EXPECT_EQ(s0 * 0, Expr(0));
  EXPECT_EQ(s0 - s0, Expr(0));
  EXPECT_EQ(s0 + s1, s1 + s0);
  EXPECT_EQ((s0 + s1) + s2, s0 + (s1 + s2));
  EXPECT_EQ(s0 * s1, s1 * s0);
  EXPECT_EQ((s0 * s1) * s2, s0 * (s1 * s2));
  EXPECT_EQ(s0 * s0 * s0, s0 * (s0 * s0));
  EXPECT_EQ((s0 + 1) * (s0 + 1), (s0 + 1) * (1 + s0));
  EXPECT_EQ(2 * (s0 + 1), 2 * s0 + 2);  // sympy distributes a number over a sum
  EXPECT_EQ(-(-s0), s0);
  EXPECT_EQ(fe::sym::floordiv(s0, 1), s0);
  EXPECT_EQ(fe::sym::floordiv(s0, s0), Expr(1));
  EXPECT_EQ(fe::sym::floordiv(4 * s0 + 2, 2), 2 * s0 + 1);
  EXPECT_EQ(fe::sym::floordiv(fe::sym::floordiv(s0, 2), 3), fe::sym::floordiv(s0, 6));
  EXPECT_EQ(fe::sym::floordiv(Expr(-7), 2), Expr(-4));
  EXPECT_EQ(fe::sym::mod(s0, 1), Expr(0));
  EXPECT_EQ(fe::sym::mod(4 * s0, 2), Expr(0));
  EXPECT_EQ(fe::sym::mod(2 * s0 + 1, 2), Expr(1));
  EXPECT_EQ(fe::sym::mod(Expr(-7), 3), Expr(2));
  EXPECT_EQ(fe::sym::min(Expr(3), Expr(5)), Expr(3));
  EXPECT_EQ(fe::sym::max(s0, s0), s0);
  EXPECT_EQ(fe::sym::max(s0, s0 + 1).str(), "Max(s0, s0 + 1)");  // torch does not fold it
  EXPECT_EQ(fe::sym::min(fe::sym::min(s0, Expr(4)), Expr(2)).str(), "Min(2, s0)");
  EXPECT_EQ(fe::sym::max(s0, s1), fe::sym::max(s1, s0));
  EXPECT_EQ(fe::sym::max(fe::sym::max(s0, s1), s2), fe::sym::max(s0, fe::sym::max(s1, s2)));
  EXPECT_NE(s0 + 1, s0 + 2);
  EXPECT_NE(fe::sym::floordiv(s0, 2), fe::sym::mod(s0, 2));
  EXPECT_EQ((s0 * s1 + 1).kind(), Kind::Add);
  EXPECT_EQ((s0 * s1).kind(), Kind::Mul);
}

TEST(SymExpr, HashAsMapKey) {
  std::unordered_map<Expr, int> m;
  m[s0 * s1 + 1] = 1;
  m[s0 + 1] = 2;
  EXPECT_EQ(m.at(1 + s1 * s0), 1);
  EXPECT_EQ(m.at(s0 + s0 - s0 + 1), 2);
  EXPECT_EQ((s0 + s1).hash(), (s1 + s0).hash());
}

TEST(SymExpr, OverflowIsShapeError) {
  const int64_t big = INT64_MAX;
  EXPECT_THROW(Expr(big) + Expr(1), fe::ShapeError);
  EXPECT_THROW(Expr(big) * Expr(2), fe::ShapeError);
  EXPECT_THROW(Expr(INT64_MIN) * Expr(-1), fe::ShapeError);
  EXPECT_THROW((s0 + big) + 1, fe::ShapeError);
  try {
    (void)(Expr(big) * Expr(3));
    FAIL();
  } catch (const fe::ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("overflow in 3 * 9223372036854775807"), std::string::npos) << e.what();
  }
  EXPECT_THROW((s0 * s0 * s0).evaluate({{"s0", int64_t{1} << 30}}), fe::ShapeError);
  EXPECT_THROW(fe::sym::floordiv(s0, 0), fe::ValueError);
  EXPECT_THROW(fe::sym::mod(s0, 0), fe::ValueError);
}

TEST(SymExpr, EvaluateFloorSemantics) {
  std::map<std::string, int64_t, std::less<>> v{{"s0", 7}, {"s1", 3}, {"u0", -7}};
  EXPECT_EQ((2 * s0 + 1).evaluate(v), 15);
  EXPECT_EQ((s0 * s1 * s1).evaluate(v), 63);
  EXPECT_EQ(fe::sym::floordiv(u0, 2).evaluate(v), -4);
  EXPECT_EQ(fe::sym::floordiv(s0, -2).evaluate(v), -4);
  EXPECT_EQ(fe::sym::mod(u0, 3).evaluate(v), 2);
  EXPECT_EQ(fe::sym::mod(s0, -3 + 0 * s1).evaluate(v), -2);
  EXPECT_EQ(fe::sym::min(s0, s1).evaluate(v), 3);
  EXPECT_EQ(fe::sym::max(u0, s1 - 10).evaluate(v), -7);
  EXPECT_EQ((s0 - s1).evaluate([](std::string_view n) { return n == "s0" ? 10 : 4; }), 6);
  EXPECT_THROW((s0 + s2).evaluate(v), fe::ValueError);
}

TEST(SymExpr, FreeSymbolsAndSubstitute) {
  Expr e = fe::sym::floordiv(s0 * s1 + u0, 2) + fe::sym::max(s2, 3);
  EXPECT_EQ(e.free_symbols(), (std::set<std::string>{"s0", "s1", "s2", "u0"}));
  EXPECT_TRUE(Expr(4).free_symbols().empty());
  EXPECT_EQ((s0 + s1).substitute({{"s1", s0}}), 2 * s0);
  EXPECT_EQ((s0 * s1).substitute({{"s0", Expr(3)}, {"s1", s0}}), 3 * s0);
  EXPECT_EQ((s0 * s0).substitute({{"s0", s1 + 1}}).str(), "(s1 + 1)**2");
  EXPECT_EQ(fe::sym::floordiv(s0, 2).substitute({{"s0", Expr(9)}}), Expr(4));
  EXPECT_EQ(fe::sym::max(s0, s1).substitute({{"s0", Expr(2)}, {"s1", Expr(5)}}), Expr(5));
  EXPECT_EQ((s0 + s1).substitute({{"s0", s1}, {"s1", s0}}), s0 + s1);  // simultaneous
}

TEST(SymExpr, PrintingBasics) {
  EXPECT_EQ((s0 * Expr::symbol("s17") * Expr::symbol("s77")).str(), "s0*s17*s77");
  EXPECT_EQ((5 - s0).str(), "5 - s0");
  EXPECT_EQ((-5 - s0).str(), "-s0 - 5");
  EXPECT_EQ((5 - s0 * s1).str(), "-s0*s1 + 5");
  EXPECT_EQ((2 * s0 - 1).str(), "2*s0 - 1");
  EXPECT_EQ(fe::sym::floordiv(s0, 2).str(), "(s0//2)");
  EXPECT_EQ(fe::sym::mod(s0, 2).str(), "Mod(s0, 2)");
  std::ostringstream os;
  os << s0 + 1;
  EXPECT_EQ(os.str(), "s0 + 1");
}

TEST(SymExpr, PrintingMatchesSympy) {
  std::ifstream f(std::string(FE_FIXTURES_DIR) + "/sympy_exprs.json");
  ASSERT_TRUE(f.good()) << "missing tests/fixtures/sympy_exprs.json";
  const std::regex row(R"re(\{"build": "(.*)", "str": "(.*)"\})re");
  int n = 0;
  for (std::string line; std::getline(f, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    ++n;
    Expr e = parse_prefix(m[1].str());
    EXPECT_EQ(e.str(), m[2].str()) << "build " << m[1];
  }
  EXPECT_GE(n, 50);
}
