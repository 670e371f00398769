// The symbolic (slow) paths of SymInt and SymBool: everything goes through the owning ShapeEnv.
#include "fakeexport/core/symint.h"

#include "fakeexport/core/error.h"
#include "fakeexport/sym/shape_env.h"

namespace fe {
namespace detail {

int64_t py_floordiv(int64_t a, int64_t b) {
  FE_CHECK(b != 0, ValueError, "integer division by zero: ", a, " // 0");
  FE_CHECK(!(a == INT64_MIN && b == -1), ShapeError, "int64 overflow in ", a, " // ", b);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t py_mod(int64_t a, int64_t b) {
  FE_CHECK(b != 0, ValueError, "integer modulo by zero: ", a, " % 0");
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

bool rel_holds(Rel rel, int64_t a, int64_t b) {
  switch (rel) {
    case Rel::Eq: return a == b;
    case Rel::Ne: return a != b;
    case Rel::Lt: return a < b;
    case Rel::Le: return a <= b;
    case Rel::Gt: return a > b;
    case Rel::Ge: return a >= b;
  }
  return false;
}

namespace {
sym::ShapeEnv& env_of(const SymInt& a, const SymInt& b) {
  const sym::SymNode* n = a.is_symbolic() ? a.node() : b.node();
  FE_INTERNAL_ASSERT(n && n->env, "symbolic value without a ShapeEnv");
  return *n->env;
}
}  // namespace

SymInt sym_binary(SymOp op, const SymInt& a, const SymInt& b) { return env_of(a, b).make_binary(op, a, b); }

bool sym_compare(Rel rel, const SymInt& a, const SymInt& b, std::source_location where) {
  sym::ShapeEnv& env = env_of(a, b);
  env.trace_compare(rel, a, b);
  return env.evaluate(rel, a, b, where);
}

}  // namespace detail

int64_t SymInt::guard_int(std::source_location where) const {
  n_->env->evaluate(Rel::Eq, *this, SymInt(v_), where);
  return v_;
}

std::optional<int64_t> SymInt::maybe_int() const {
  if (!n_) return v_;
  const sym::Expr& e = n_->env->simplified(*n_);
  if (e.is_constant()) return e.constant();
  return std::nullopt;
}

sym::Expr SymInt::expr() const { return n_ ? n_->env->simplified(*n_) : sym::Expr(v_); }

std::string SymInt::str() const { return n_ ? expr().str() : std::to_string(v_); }

bool SymInt::same_as(const SymInt& o) const {
  if (!n_ && !o.n_) return v_ == o.v_;
  return expr() == o.expr();
}

std::ostream& operator<<(std::ostream& os, const SymInt& s) {
  if (!s.is_symbolic()) return os << s.hint();
  return os << s.str();
}

bool SymBool::hint() const { return detail::rel_holds(rel_, a_.hint(), b_.hint()); }

std::optional<bool> SymBool::maybe_static() const {
  if (!a_.is_symbolic() && !b_.is_symbolic()) return hint();
  const sym::SymNode* n = a_.is_symbolic() ? a_.node() : b_.node();
  return n->env->static_eval(rel_, a_.expr(), b_.expr());
}

bool SymBool::guard(std::source_location where) const {
  if (!a_.is_symbolic() && !b_.is_symbolic()) return hint();
  return detail::sym_compare(rel_, a_, b_, where);
}

std::string SymBool::str() const { return sym::rel_str(rel_, a_.expr(), b_.expr()); }

void check(bool cond, std::string_view message, std::source_location where) {
  FE_CHECK(cond, UserError, "check failed at ", where.file_name(), ":", where.line(), " in ", where.function_name(),
           message.empty() ? "" : ": ", message);
}

SymBool SymBool::operator!() const { return {sym::negate(rel_), a_, b_}; }

}  // namespace fe
