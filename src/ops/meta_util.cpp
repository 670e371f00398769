#include "ops/meta_util.h"
#include "ops/fresh_strides.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>

#include "fakeexport/sym/shape_env.h"

namespace fe::ops {

namespace {

bool any_symbolic(IntSpan s) {
  for (const SymInt& v : s)
    if (v.is_symbolic()) return true;
  return false;
}

/// sympy can tell e >= 1 from its assumptions alone (symbols are positive integers): a positive
/// constant, a symbol, products of those, sums of them with positive coefficients.
bool sympy_known_ge1(const sym::Expr& e) {
  switch (e.kind()) {
    case sym::Kind::Const: return e.constant() >= 1;
    // Size symbols are positive integers to sympy; unbacked ones (u0) only integers, and an applied
    // atom (CeilToInt(...)) has no assumption: Max(1, u0) stays.
    case sym::Kind::Symbol: return !sym::is_unbacked_name(e.name()) && !sym::is_applied_name(e.name());
    case sym::Kind::Mul:
      for (const auto& [base, exp] : e.terms())
        if (exp < 1 || !sympy_known_ge1(base)) return false;
      return true;
    case sym::Kind::Add:
      if (e.add_constant() < 0) return false;
      for (const auto& [term, coeff] : e.terms())
        if (coeff < 1 || !sympy_known_ge1(term)) return false;
      return true;
    default: return false;
  }
}

/// sym_max(x, 1) as sympy prints it: Max(1, s1 - 1) stays, Max(1, s1) is s1.
SymInt max1(const SymInt& x) {
  if (!x.is_symbolic()) return std::max<int64_t>(x.hint(), 1);
  if (sympy_known_ge1(x.expr())) return x;
  return sym_max(x, 1);
}


/// e as c * prod(symbol^k) (c > 0), when it is such a monomial.
bool as_monomial(const sym::Expr& e, int64_t& c, std::map<std::string, int64_t>& pw) {
  switch (e.kind()) {
    case sym::Kind::Const: c *= e.constant(); return true;
    case sym::Kind::Symbol: ++pw[e.name()]; return true;
    case sym::Kind::Mul:
      for (const auto& [base, exp] : e.terms()) {
        if (exp < 1) return false;
        for (int64_t i = 0; i < exp; ++i)
          if (!as_monomial(base, c, pw)) return false;
      }
      return true;
    case sym::Kind::Add:
      if (e.add_constant() != 0 || e.terms().size() != 1) return false;
      c *= e.terms()[0].second;
      return as_monomial(e.terms()[0].first, c, pw);
    default: return false;
  }
}

/// Whether a == b is decided by facts sympy sees and our interval check misses: Max(1, e) with
/// e >= 1, and monomials where one strictly divides the other (s1*s2 != s2 as sizes are >= 2).
std::optional<bool> known_eq_extra(const sym::ShapeEnv& env, const sym::Expr& a0, const sym::Expr& b0) {
  const sym::Expr a = env.replace(strip_max1(env, a0)), b = env.replace(strip_max1(env, b0));
  if (a == b) return true;
  if (auto k = env.static_eval(Rel::Eq, a, b)) return k;
  int64_t ca = 1, cb = 1;
  std::map<std::string, int64_t> pa, pb;
  if (!as_monomial(a, ca, pa) || !as_monomial(b, cb, pb) || ca <= 0 || cb <= 0) return std::nullopt;
  auto strictly_greater = [&](int64_t cbig, const std::map<std::string, int64_t>& big, int64_t csmall,
                              const std::map<std::string, int64_t>& small) -> bool {
    double lo = static_cast<double>(cbig);
    for (const auto& [name, k] : small) {
      auto it = big.find(name);
      if (it == big.end() || it->second < k) return false;
    }
    bool extra = false;
    for (const auto& [name, k] : big) {
      auto it = small.find(name);
      const int64_t d = k - (it == small.end() ? 0 : it->second);
      if (d <= 0) continue;
      const sym::SymbolInfo* si = env.symbol(name);
      const double slo = si ? static_cast<double>(si->range.lo) : 0;
      if (slo < 1) return false;
      extra = true;
      for (int64_t i = 0; i < d; ++i) lo *= slo;
    }
    return extra && lo > static_cast<double>(csmall);
  };
  if (strictly_greater(ca, pa, cb, pb) || strictly_greater(cb, pb, ca, pa)) return false;
  return std::nullopt;
}

}  // namespace

/// Max(1, e) -> e where e >= 1 follows from the symbol ranges (sizes are >= 2), recursively.
sym::Expr strip_max1(const sym::ShapeEnv& env, const sym::Expr& e) {
  switch (e.kind()) {
    case sym::Kind::Max: {
      const auto& args = e.args();
      if (args.size() == 2 && args[0].is_constant() && args[0].constant() == 1) {
        const sym::Expr inner = strip_max1(env, args[1]);
        if (env.bound(inner).lo >= 1) return inner;
      }
      return e;
    }
    case sym::Kind::Add: {
      sym::Expr r = e.add_constant();
      for (const auto& [term, coeff] : e.terms()) r = r + strip_max1(env, term) * coeff;
      return r;
    }
    case sym::Kind::Mul: {
      sym::Expr r = 1;
      for (const auto& [base, exp] : e.terms()) {
        if (exp < 1) return e;
        const sym::Expr b = strip_max1(env, base);
        for (int64_t i = 0; i < exp; ++i) r = r * b;
      }
      return r;
    }
    default: return e;
  }
}

bool guard_or_false_eq(const SymInt& a, const SymInt& b, std::source_location where) {
  if (!a.is_symbolic() && !b.is_symbolic()) return a.hint() == b.hint();
  if (auto known = sym_eq(a, b).maybe_static()) return *known;
  // PyTorch adds each guard to its axioms: asking the same relation again records nothing new.
  sym::ShapeEnv& env = *(a.is_symbolic() ? a.node() : b.node())->env;
  const sym::Expr l = a.expr(), r = b.expr();
  if (auto known = known_eq_extra(env, l, r)) return *known;
  for (const sym::Guard& g : env.guards()) {
    if (g.rel != Rel::Eq && g.rel != Rel::Ne) continue;
    const sym::Expr gl = env.replace(g.lhs), gr = env.replace(g.rhs);
    if ((gl == l && gr == r) || (gl == r && gr == l)) return g.rel == Rel::Eq;
  }
  if (sym::has_unbacked(a) || sym::has_unbacked(b)) return false;  // no hint to guard on
  return SymCmpArg(a, where) == SymCmpArg(b, where);
}

bool expect_true(const SymBool& b, std::source_location where) {
  if (!sym::has_unbacked(b.lhs()) && !sym::has_unbacked(b.rhs())) return b.guard(where);
  if (auto k = b.maybe_static()) return *k;
  const SymInt& s = b.lhs().is_symbolic() ? b.lhs() : b.rhs();
  s.node()->env->assume(b.rel(), b.lhs().expr(), b.rhs().expr());
  return true;
}

std::string shape_str(IntSpan s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + s[i].str();
  return out + "]";
}

std::string py_tuple(IntSpan s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + s[i].str();
  return out + (s.size() == 1 ? ",)" : ")");
}

std::string torch_size(IntSpan s) { return "torch.Size(" + shape_str(s) + ")"; }

namespace {

[[noreturn]] void broadcast_error(const MetaArgs& a, IntSpan s, const DimVector& common, const SymInt& want,
                                  const SymInt& got, size_t k, size_t arg, size_t rank) {
  // Eager's TensorIterator text follows (value calls on real tensors print that one).
  throw ShapeError(detail::cat(label(a), ": Attempting to broadcast a dimension of length ", got, " at -", k,
                               "! Mismatching argument at index ", arg, " had torch.Size(", shape_str(s),
                               "); but expected shape should be broadcastable to ", shape_str(common),
                               ". The size of tensor a (", want, ") must match the size of tensor b (", got,
                               ") at non-singleton dimension ", rank - k));
}

/// The fake fast path's infer_size (add/sub/mul/div.Tensor): a running shape folded with each
/// operand's, broadcasting tested before equality (guard order as PyTorch's: Eq(running, operand)).
DimVector infer_size_fold(const MetaArgs& a, std::span<const IntSpan> shapes) {
  DimVector common;
  bool first = true;
  size_t arg = 0, prev_rank = 0;
  for (IntSpan s : shapes) {
    const DimVector prev = first ? DimVector(s) : common;
    first = false;
    const size_t n = std::max(prev.size(), s.size());
    DimVector out(n, SymInt(1));
    for (size_t k = 1; k <= n; ++k) {
      const SymInt sa = k <= prev.size() ? prev[prev.size() - k] : SymInt(1);
      const SymInt sb = k <= s.size() ? s[s.size() - k] : SymInt(1);
      const bool a1 = guard_or_false_eq(sa, 1);
      // Undecided over data: the non-broadcast path with a runtime assertion, as PyTorch picks.
      if (!a1 && !guard_or_false_eq(sb, 1) && !expect_true(sym_eq(sa, sb))) {
        DimVector shown = prev;
        broadcast_error(a, s, shown, sa, sb, k, arg, std::max(prev_rank, s.size()));
      }
      out[n - k] = a1 ? sb : sa;
    }
    common = std::move(out);
    prev_rank = std::max(prev_rank, s.size());
    ++arg;
  }
  return common;
}

}  // namespace

DimVector broadcast_shapes(const MetaArgs& a, std::span<const IntSpan> shapes) {
  size_t n = 0;
  for (IntSpan s : shapes) n = std::max(n, s.size());
  // torch._refs._broadcast_shapes: a running common shape of full rank, filled from the right.
  // Equal or broadcastable (guard_or_false: a guard on symbolic sizes unless statically known);
  // otherwise torch._check(common == size), which guards and may replace a symbol.
  DimVector common(n, SymInt(1));
  size_t arg = 0, prev_rank = 0;
  for (IntSpan s : shapes) {
    for (size_t k = 1; k <= s.size(); ++k) {
      SymInt& want = common[n - k];
      const SymInt& got = s[s.size() - k];
      if (guard_or_false_eq(got, want)) continue;
      if (guard_or_false_eq(want, 1)) want = got;
      if (guard_or_false_eq(got, 1)) continue;
      if (!expect_true(sym_eq(want, got))) broadcast_error(a, s, common, want, got, k, arg, std::max(prev_rank, s.size()));
    }
    prev_rank = std::max(prev_rank, s.size());
    ++arg;
  }
  return common;
}

DimVector broadcast_shapes(const MetaArgs& a, std::initializer_list<IntSpan> shapes) {
  return broadcast_shapes(a, std::span<const IntSpan>(shapes.begin(), shapes.size()));
}
DimVector broadcast_shapes(const MetaArgs& a, IntSpan x, IntSpan y) { return broadcast_shapes(a, {x, y}); }

const char* cpp_type_name(DType t) {
  switch (t) {
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Float16: return "c10::Half";
    case DType::BFloat16: return "c10::BFloat16";
    case DType::Int64: return "long int";
    case DType::Int32: return "int";
    case DType::Int16: return "short int";
    case DType::Int8: return "signed char";
    case DType::UInt8: return "unsigned char";
    case DType::Bool: return "bool";
    default: return dtype_name(t).data();
  }
}

const char* scalar_type_name(DType t) {
  switch (t) {
    case DType::UInt8: return "Byte";
    case DType::Int8: return "Char";
    case DType::Int16: return "Short";
    case DType::Int32: return "Int";
    case DType::Int64: return "Long";
    case DType::Float16: return "Half";
    case DType::Float32: return "Float";
    case DType::Float64: return "Double";
    case DType::Complex32: return "ComplexHalf";
    case DType::Complex64: return "ComplexFloat";
    case DType::Complex128: return "ComplexDouble";
    case DType::Bool: return "Bool";
    case DType::BFloat16: return "BFloat16";
    default: return dtype_name(t).data();
  }
}

DimVector channels_last_strides(IntSpan sizes) {
  DimVector st(4, SymInt(0));
  st[1] = 1;
  st[3] = max1(sizes[1]);
  st[2] = st[3] * max1(sizes[3]);
  st[0] = st[2] * max1(sizes[2]);
  return st;
}

UntracedArithmetic::UntracedArithmetic(std::string_view op, IntSpan values) {
  for (const SymInt& v : values)
    if (v.is_symbolic()) env_ = v.node()->env;
  if (!env_) return;
  const sym::ShapeEnv::OpContext outer = env_->context();
  outer_op_ = outer.op;
  outer_call_ = outer.call;
  env_->set_context({op, outer.call});
}

UntracedArithmetic::~UntracedArithmetic() {
  if (env_) env_->set_context({outer_op_, outer_call_});
}

DimVector make_contiguous_strides_for(IntSpan sizes) {
  if (!any_symbolic(sizes)) return contiguous_strides(sizes);
  DimVector st(sizes.size(), SymInt(1));
  SymInt acc = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    st[i] = acc;
    acc = acc * max1(sizes[i]);
  }
  return st;
}

bool contiguous_walk(IntSpan sizes, IntSpan strides, bool (*numel_lt2)(const SymInt&),
                     bool (*eq)(const SymInt&, const SymInt&)) {
  SymInt numel = 1;
  for (const SymInt& s : sizes) numel = numel * s;
  if (numel_lt2(numel)) return true;
  SymInt expected = 1, expected_max = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (eq(sizes[d], SymInt(1))) continue;
    if (!eq(strides[d], expected) && !eq(strides[d], expected_max)) return false;
    expected_max = expected_max * max1(sizes[d]);
    expected = expected * sizes[d];
  }
  return true;
}

bool contiguous_or_false(IntSpan sizes, IntSpan strides) {
  return contiguous_walk(
      sizes, strides, [](const SymInt& numel) { return statically_known_true(sym_lt(numel, 2)); },
      [](const SymInt& l, const SymInt& r) { return guard_or_false_eq(l, r); });
}

bool channels_last_or_false(IntSpan sizes, IntSpan strides) {
  if (sizes.size() != 4) return false;
  SymInt expected = 1;
  for (size_t d : {1, 3, 2, 0}) {
    if (guard_or_false_eq(sizes[d], 1)) continue;
    if (!guard_or_false_eq(strides[d], expected)) return false;
    expected = expected * sizes[d];
  }
  return true;
}

bool non_overlapping_and_dense_or_false(IntSpan sizes, IntSpan strides) {
  SymInt numel = 1;
  for (const SymInt& s : sizes) numel = numel * s;
  if (statically_known_true(sym_lt(numel, 2))) return true;
  if (sizes.size() == 1) return guard_or_false_eq(strides[0], 1);
  // Sorted by stride (PyTorch's size-oblivious comparison; decided on hints here), then contiguous.
  std::vector<size_t> perm(sizes.size());
  std::iota(perm.begin(), perm.end(), size_t{0});
  std::stable_sort(perm.begin(), perm.end(), [&](size_t x, size_t y) {
    if (strides[x].same_as(strides[y])) return false;
    return strides[x].hint() < strides[y].hint();
  });
  DimVector ss, st;
  for (size_t i = perm.size(); i-- > 0;) {
    ss.push_back(sizes[perm[i]]);
    st.push_back(strides[perm[i]]);
  }
  return contiguous_or_false(ss, st);
}

namespace {

/// torch._prims_common.compute_elementwise_output_strides over operands already expanded to
/// `shape` (PyTorch's path for symbolic sizes: refs + prims). Contiguity and density are asked
/// like PyTorch (a size that may be 1 gets its guard); the stride sort decides on hints.
DimVector refs_output_strides(IntSpan shape, const std::vector<DimVector>& ops, bool fresh_if_single_dense) {
  const size_t nd = shape.size();
  if (nd == 0) return {};
  if (ops.empty()) return make_contiguous_strides_for(shape);
  if (nd == 1) return DimVector{SymInt(1)};
  if (ops.size() == 1 && fresh_if_single_dense) {
    if (non_overlapping_and_dense_or_false(shape, ops[0])) return ops[0];
    // else empty_like: the operand's dims sorted by stride, below
  }
  bool contig = true, cl = true;
  for (const DimVector& st : ops) {
    contig = contig && contiguous_or_false(shape, st);
    cl = cl && channels_last_or_false(shape, st);
  }
  std::vector<size_t> perm(nd);  // logical -> physical, built back-to-front like PyTorch
  if (contig && !cl) return make_contiguous_strides_for(shape);
  if (cl && !contig) return channels_last_strides(shape);
  std::iota(perm.rbegin(), perm.rend(), size_t{0});
  auto ge = [](const SymInt& x, const SymInt& y) {
    if (y.hint() == 0) return true;
    if (x.hint() == 0) return false;
    return x.hint() >= y.hint() || x.hint() % y.hint() == 0;
  };
  auto should_swap = [&](size_t d0, size_t d1) -> int {
    for (const DimVector& st : ops) {
      const SymInt &s0 = st[d0], &s1 = st[d1];
      if (s0.hint() == 0 || s1.hint() == 0) continue;
      if (s0.same_as(s1) || s0.hint() == s1.hint()) {
        if (ge(shape[d1], shape[d0])) continue;
        return 1;
      }
      if (ge(s1, s0)) return -1;
      if (ge(s0, s1)) return 1;
    }
    return 0;
  };
  sort_dims(perm, should_swap);
  // perm[0] is the innermost dim: contiguous strides over the physical order.
  DimVector physical;
  for (size_t j = nd; j-- > 0;) physical.push_back(shape[perm[j]]);
  const DimVector pst = make_contiguous_strides_for(physical);
  DimVector st(nd, SymInt(0));
  for (size_t j = 0; j < nd; ++j) st[perm[nd - 1 - j]] = pst[j];
  return st;
}

/// Strides of `t` expanded to `shape` (refs' _maybe_broadcast): new and broadcast dims get 0.
DimVector expanded_strides(IntSpan shape, const TensorMeta& t) {
  const size_t nd = shape.size(), off = nd - t.sizes.size();
  DimVector st(nd, SymInt(0));
  for (size_t i = 0; i < t.sizes.size(); ++i)
    st[off + i] = (!t.sizes[i].same_as(shape[off + i]) && t.sizes[i].maybe_int() == 1) ? SymInt(0) : t.strides[i];
  return st;
}

bool is_cpu_scalar(const TensorMeta& t) { return t.dim() == 0 && t.device.is_cpu(); }

}  // namespace

void run_meta_as(std::string_view label, const OpDef& inner, std::span<const MetaValue> args, MetaOut& out) {
  try {
    run_meta(inner, args, out);
  } catch (const Error& e) {
    const std::string prefix = inner.label() + ": ", m = e.what();
    rethrow_as(e, std::string(label) + ": " + (m.rfind(prefix, 0) == 0 ? m.substr(prefix.size()) : m));
  }
}

void renew_symint(SymInt& s) {
  if (s.is_symbolic()) s = s.node()->env->make(s.expr(), s.hint());
}

bool any_symbolic_meta(const TensorMeta& m) {
  return any_symbolic(m.sizes) || any_symbolic(m.strides) || m.storage_offset.is_symbolic();
}

DimVector symbolic_output_strides(IntSpan shape, std::span<const TensorMeta* const> ins, bool single_dense_shortcut) {
  std::vector<DimVector> ops;
  for (const TensorMeta* t : ins)
    if (!is_cpu_scalar(*t)) ops.push_back(expanded_strides(shape, *t));
  return refs_output_strides(shape, ops, single_dense_shortcut);
}

namespace {
thread_local bool fresh_iter_strides = false;
}  // namespace

FreshIterStrides::FreshIterStrides() : saved_(fresh_iter_strides) { fresh_iter_strides = true; }
FreshIterStrides::~FreshIterStrides() { fresh_iter_strides = saved_; }
bool FreshIterStrides::active() { return fresh_iter_strides; }

DimVector iter_output_strides(IntSpan shape, std::span<const TensorMeta* const> ins, int wrapped_numbers) {
  const size_t nd = shape.size();
  bool symbolic = any_symbolic(shape);
  for (const TensorMeta* t : ins) symbolic = symbolic || any_symbolic(t->sizes) || any_symbolic(t->strides);
  if (symbolic) {
    DimVector st = symbolic_output_strides(shape, ins);
    if (FreshIterStrides::active())
      for (SymInt& s : st)
        if (!s.maybe_int()) renew_symint(s);
    return st;
  }
  // Fast setup: every operand has the output's shape.
  bool same_shape = true;  // Python numbers (wrapped_numbers) are not tensors: prims decide without them
  for (const TensorMeta* t : ins) same_shape = same_shape && IntSpan(t->sizes).size() == nd &&
                                               std::equal(shape.begin(), shape.end(), t->sizes.begin());
  if (same_shape && !ins.empty()) {
    bool contig = true, cl = true, dense = true;
    for (const TensorMeta* t : ins) {
      contig = contig && t->is_contiguous();
      cl = cl && t->is_channels_last_contiguous();
      dense = dense && t->is_non_overlapping_and_dense();
    }
    // Like torch._prims_common's short-circuit: only an unambiguous layout decides. A 4-d tensor
    // with one channel can be both (strides (40, 8, 8, 1) for [2, 1, 5, 8]); the dims then sort.
    if (contig && !cl) return contiguous_strides(shape);
    if (cl && !contig) return channels_last_strides(shape);
    // Dense inputs with equal strides keep them -- unless a size-1 dim's stride is arbitrary:
    // then the dims sort (prims' permutation puts such dims outermost, [2, 1, 3, 1] strides
    // (3, 9, 1, 7) -> (3, 6, 1, 6)).
    bool size1 = false;
    for (size_t d = 0; d < nd; ++d) size1 = size1 || shape[d].expect_int() == 1;
    if (dense && !size1) {
      bool equal = true;
      for (const TensorMeta* t : ins) equal = equal && t->strides == ins.back()->strides;
      if (equal) return ins.back()->strides;
    }
  }
  if (nd <= 1) return contiguous_strides(shape);
  // Operand strides over the broadcast shape; broadcast (and missing) dims get stride 0.
  std::vector<DimVector> op_strides;
  for (const TensorMeta* t : ins) {
    DimVector st(nd, SymInt(0));
    const size_t off = nd - t->sizes.size();
    for (size_t i = 0; i < t->sizes.size(); ++i)
      st[off + i] = (t->sizes[i].expect_int() == 1 && shape[off + i].expect_int() != 1) ? SymInt(0) : t->strides[i];
    op_strides.push_back(std::move(st));
  }
  // perm[0] is the fastest-moving dim; start from row-major order, insertion-sort by strides.
  std::vector<size_t> perm(nd);
  std::iota(perm.rbegin(), perm.rend(), size_t{0});
  auto should_swap = [&](size_t d0, size_t d1) -> int {
    for (const DimVector& st : op_strides) {
      const int64_t s0 = st[d0].expect_int(), s1 = st[d1].expect_int();
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape[d0].expect_int() > shape[d1].expect_int()) return 1;
    }
    return 0;
  };
  sort_dims(perm, should_swap);
  bool inverted = true;
  for (size_t j = 0; j < nd; ++j) inverted = inverted && perm[j] == nd - j - 1;
  if (inverted) return contiguous_strides(shape);
  DimVector st(nd, SymInt(0));
  int64_t next = 1;
  for (size_t j = 0; j < nd; ++j) {
    st[perm[j]] = next;
    next *= shape[perm[j]].expect_int();
  }
  return st;
}

DimVector sorted_dense_strides(const TensorMeta& x) {
  const size_t nd = x.sizes.size();
  std::vector<size_t> perm(nd);  // perm[0]: the fastest-moving dim
  std::iota(perm.rbegin(), perm.rend(), size_t{0});
  sort_dims(perm, [&](size_t a, size_t b) -> int {
    const int64_t sa = x.strides[a].expect_int(), sb = x.strides[b].expect_int();
    if (sa == 0 || sb == 0) return 0;
    if (sa != sb) return sa < sb ? -1 : 1;
    return x.sizes[a].expect_int() > x.sizes[b].expect_int() ? 1 : 0;
  });
  DimVector st(nd, SymInt(0));
  int64_t next = 1;
  for (size_t j = 0; j < nd; ++j) {
    st[perm[j]] = next;
    next *= std::max<int64_t>(x.sizes[perm[j]].expect_int(), 1);
  }
  return st;
}

DimVector preserved_strides(const TensorMeta& m) {
  if (m.is_non_overlapping_and_dense()) return m.strides;
  // On symbolic sizes the stride sort decides on the hints, as the refs' metas FakeTensor runs
  // there do (_to_copy, zeros_like, hardtanh and index_put of `y[:, :, 1:5].transpose(1, 2)` get
  // (4l, 1, 4), not contiguous strides).
  if (any_symbolic_meta(m)) return dense_or_sorted_strides(m);
  return sorted_dense_strides(m);  // at::infer_dense_strides (empty_like, _to_copy, clone)
}

DimVector dense_or_sorted_strides(const TensorMeta& m) {
  if (!any_symbolic_meta(m)) return preserved_strides(m);
  const TensorMeta* in = &m;
  return symbolic_output_strides(m.sizes, std::span(&in, 1));
}

TensorMeta elementwise_meta(const MetaArgs& a, std::initializer_list<size_t> idx) {
  ResultTypeState rt;
  const TensorMeta* first = nullptr;
  SmallVector<IntSpan, 4> shapes;
  for (size_t i : idx) {
    if (a.is_none(i)) continue;  // `Tensor? min=None`
    if (!a.is_tensor(i)) {
      rt.add_scalar(a.scalar_category(i));
      shapes.push_back({});  // a number broadcasts like a 0-dim tensor; it keeps argument indices
      continue;
    }
    const TensorMeta& t = a.tensor(i);
    rt.add_tensor(t.dtype, t.dim() == 0);
    shapes.push_back(t.sizes);
    if (!first) first = &t;
  }
  FE_INTERNAL_ASSERT(first, label(a), ": elementwise op without tensor operands");
  bool symbolic = false;
  for (IntSpan s : shapes) symbolic = symbolic || any_symbolic(s);
  // add/sub/mul/div.Tensor have FakeTensor's fast binary impl: infer_size, then contiguous or
  // channels-last when every operand definitely is (and one has the full shape), else the refs.
  const std::string& name = a.op().schema.name;
  const bool fast_binary = symbolic && a.op().schema.overload == "Tensor" &&
                           (name == "add" || name == "sub" || name == "mul" || name == "div");
  const std::span<const IntSpan> all(shapes.data(), shapes.size());
  DimVector shape = fast_binary ? infer_size_fold(a, all) : broadcast_shapes(a, all);
  TensorMeta out;
  out.dtype = rt.result(default_dtype());
  out.sizes = shape;
  // Device: the first non-0-dim-cpu tensor's (0-dim cpu scalars follow the others).
  out.device = first->device;
  for (size_t i : idx) {
    if (!a.is_tensor(i)) continue;
    const TensorMeta& t = a.tensor(i);
    if (!(t.device.is_cpu() && t.dim() == 0)) {
      out.device = t.device;
      break;
    }
  }
  SmallVector<const TensorMeta*, 4> ins;
  int numbers = 0;
  for (size_t i : idx) {
    if (a.is_tensor(i)) ins.push_back(&a.tensor(i));
    else if (!a.is_none(i)) ++numbers;
  }
  if (fast_binary) {
    bool full = false;
    for (const TensorMeta* t : ins) {
      if (t->sizes.size() != shape.size()) continue;
      bool same = true;
      for (size_t d = 0; d < shape.size(); ++d) same = same && t->sizes[d].same_as(shape[d]);
      full = full || same;
    }
    if (full) {
      bool contig = true, cl = true;
      for (const TensorMeta* t : ins) {
        contig = contig && contiguous_or_false(t->sizes, t->strides);
        cl = cl && channels_last_or_false(t->sizes, t->strides);
      }
      if (contig) {
        out.strides = make_contiguous_strides_for(shape);
        return out;
      }
      if (cl) {
        out.strides = channels_last_strides(shape);
        return out;
      }
    }
  }
  out.strides = iter_output_strides(shape, ins, numbers);
  return out;
}

}  // namespace fe::ops
