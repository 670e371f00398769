// ShapeEnv: the symbols of one export, their value ranges, replacements and guards
// (torch.fx.experimental.symbolic_shapes.ShapeEnv, without sympy). Owns every SymNode it hands out.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <source_location>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fakeexport/core/source_location.h"
#include "fakeexport/core/symint.h"
#include "fakeexport/sym/expr.h"
#include "fakeexport/sym/symbol_names.h"

namespace fe::sym {

/// Unbounded end of a range (PyTorch's int_oo / -int_oo).
inline constexpr int64_t kPosInf = INT64_MAX;
inline constexpr int64_t kNegInf = INT64_MIN;

/// Inclusive integer interval; kPosInf/kNegInf are infinite ends. Printed "VR[2, int_oo]".
struct ValueRange {
  int64_t lo = kNegInf, hi = kPosInf;
  bool contains(int64_t v) const { return lo <= v && v <= hi; }
  ValueRange operator&(const ValueRange& o) const;
  std::string str() const;
  friend bool operator==(const ValueRange&, const ValueRange&) = default;
};

class ShapeEnv;

/// A symbolic value: the expression as created, plus how a tracer can compute it in a graph.
struct SymNode {
  Expr expr;
  ShapeEnv* env = nullptr;
  /// Built by user arithmetic `a op b` (op valid when a or b is symbolic); a leaf otherwise.
  bool has_operands = false;
  SymOp op = SymOp::Add;
  SymInt a, b;
  /// Tracer bookkeeping: the graph node computing this value, for trace `proxy_trace`.
  mutable void* proxy = nullptr;
  mutable uint64_t proxy_trace = 0;
  /// Lazy proxy: `sym_size.int(size_of, size_dim)` for the first traced tensor having this size.
  mutable void* size_of = nullptr;
  mutable int64_t size_dim = 0;
  /// A graph's reference to the node computing this value (set on handles in graph arguments).
  mutable void* graph_node = nullptr;
  /// Cache of env->replace(expr), valid while replacement_version() is unchanged.
  mutable Expr replaced;
  mutable uint64_t replaced_version = ~uint64_t{0};
};

/// How an input dim was marked in dynamic_shapes.
enum class DimKind : uint8_t { Static, Auto, Dynamic, Named, Derived };

/// One backed symbol (`s77`): where it came from and what is known about it.
struct SymbolInfo {
  std::string name;    ///< "s77"
  std::string source;  ///< "L['x'].size()[0]", or the Dim name for a phantom root
  int64_t hint = 0;
  ValueRange range{2, kPosInf};
  DimKind kind = DimKind::Auto;
  std::string dim_name;  ///< the Dim's name for named dims (PyTorch's debug name)
};

/// A recorded guard: the relation that held on the example inputs, and who asked.
struct Guard {
  Rel rel;
  Expr lhs, rhs;
  std::string op;                ///< the ATen op whose meta asked; empty in user code
  std::optional<SrcLocArg> call; ///< that op's call site
  std::source_location where;    ///< the C++ line that turned the relation into a bool
  std::string str() const;       ///< sympy's print: "Eq(s15, s77 + 2)", "s15 <= 512"
};

/// A guard PyTorch records over `symbol % modulus` that its export constraint solver can prove
/// for no range (e.g. the padding of an attention mask to 8 columns on CUDA): export refuses a
/// named Dim it involves and suggests a multiple of `modulus` (DimConstraints' congruences).
struct ModularGuard {
  std::string text;    ///< PyTorch's print of it, `{s70}` where the source of symbol s70 goes
  std::string symbol;  ///< "s70"
  int64_t modulus = 1;
};

/// A bare unbacked symbol (`u1`): what PyTorch gives a value read from data, or a size it cannot
/// compute from its inputs.
bool is_unbacked_symbol(const SymInt& s);
/// Whether a value involves an unbacked symbol (`u0 + 3`: something read from data).
bool has_unbacked(const SymInt& s);

/// sympy's print of a relation: "Eq(a, b)", "Ne(a, b)", "a < b".
std::string rel_str(Rel rel, const Expr& lhs, const Expr& rhs);
Rel negate(Rel r);

/// Sees symbolic arithmetic and comparisons done by user code (outside op metas) while tracing, so
/// the graph can record them as FX does (operator nodes that later passes fold away).
class SymTracer {
 public:
  virtual ~SymTracer() = default;
  virtual void on_binary(const SymInt& result) = 0;
  virtual void on_compare(Rel rel, const SymInt& a, const SymInt& b) = 0;
  /// Size arithmetic PyTorch's trace records eagerly and later drops while our code need not do it
  /// (applySlice's bound check, a contiguity computation): the operands get graph values as for a
  /// recorded node and the node name `base` ("le", "sym_max") is used up, so later names match.
  virtual void on_dropped(std::string_view base, std::span<const SymInt> operands) = 0;
  /// As on_dropped, for a check ATen's C++ runs inside an indexing call (applySlice's
  /// `length <= stop`, applySelect's bounds): strict export records it too, since its AOT trace
  /// runs TorchDynamo's graph through those calls again.
  virtual void on_aten_check(std::string_view base, std::span<const SymInt> operands) { on_dropped(base, operands); }
  /// `Tensor.contiguous()` called from user code on `tensor` (its TensorImpl) with this layout: the symbolic
  /// contiguity check c10 runs the first time a layout is met (later tensors come from
  /// FakeTensor's dispatch cache with it done), recorded as PyTorch records it and dropped.
  virtual void on_contiguous(const void* tensor, std::span<const SymInt> sizes, std::span<const SymInt> strides) = 0;
  /// `value` (the size of the 1-D `tensor`) is read as that tensor's numel: its graph value, if it
  /// has none yet, is a node named as PyTorch's sym_numel read (the value first appeared as a numel).
  virtual void on_numel_read(const void* tensor, const SymInt& value) = 0;
  /// Two inputs' dims PyTorch gives separate symbols were just found equal (a padding mask's
  /// length and the tokens' at the first attention): its ShapeEnv replaces one symbol by the other,
  /// so the SymInts made from then on hold other expressions and FakeTensor's cache misses again.
  virtual void on_inputs_unified() {}
  /// A SymBool operation (`and_`, `or_`) on comparisons just recorded, made by ATen's C++ where
  /// it checks with sym_or/sym_and (einsum's broadcast check): a node the trace records and
  /// later drops, whose name is used up.
  virtual void on_bool_op(std::string_view /*base*/) {}
};

class ShapeEnv {
 public:
  ShapeEnv() = default;
  ShapeEnv(const ShapeEnv&) = delete;
  ShapeEnv& operator=(const ShapeEnv&) = delete;

  /// A new backed symbol for an input dim (sN from the source's hash), range [max(2,lo), hi].
  SymInt create_symbol(const std::string& source, int64_t hint, ValueRange range, DimKind kind,
                       std::string dim_name = {});
  /// The symbol `name` with that hint (created on first use; no hashed id). For tests and probes
  /// that need fixed names, like tools/oracle/sym_probe.py.
  SymInt named_symbol(const std::string& name, int64_t hint, ValueRange range = {2, kPosInf});
  /// Wraps an expression over this env's symbols (hint = its value on the example inputs).
  SymInt make(Expr e, int64_t hint);
  /// Result of user/meta arithmetic; remembers the operands for tracing.
  SymInt make_binary(SymOp op, const SymInt& a, const SymInt& b);
  /// A copy of `v` whose node refers to `graph_node` (how graph arguments name sym nodes).
  SymInt make_handle(const SymInt& v, void* graph_node);
  /// Installed by the export tracer for the duration of a trace.
  void set_tracer(SymTracer* t) { tracer_ = t; }
  /// Reports a user-level comparison to the tracer (called by SymInt's comparison operators).
  void trace_compare(Rel rel, const SymInt& a, const SymInt& b) {
    if (tracer_ && ctx_.op.empty()) tracer_->on_compare(rel, a, b);
  }
  /// The tracer when user code (not an op's meta) is running under a trace, else null.
  SymTracer* user_tracer() const { return ctx_.op.empty() ? tracer_ : nullptr; }

  /// The expression with every replacement applied.
  Expr replace(const Expr& e) const;
  const Expr& simplified(const SymNode& n) const;
  /// Bumped whenever a replacement is added (invalidates SymNode::replaced caches).
  uint64_t replacement_version() const { return version_; }

  /// Bounds of an expression from the symbol ranges (interval arithmetic).
  ValueRange bound(const Expr& e) const;
  /// true/false when provable from ranges after replacements; nullopt otherwise.
  std::optional<bool> static_eval(Rel rel, const Expr& lhs, const Expr& rhs) const;
  /// Answers `lhs rel rhs` on the hints; unless statically known, records the guard, refines
  /// ranges and, for equalities, adds a replacement (PyTorch's _maybe_guard_rel).
  bool evaluate(Rel rel, const SymInt& lhs, const SymInt& rhs, std::source_location where);

  /// The op being dispatched (provenance for guards asked inside meta functions).
  struct OpContext {
    std::string_view op;
    const SrcLocArg* call = nullptr;
  };
  void set_context(OpContext c) { ctx_ = c; }
  OpContext context() const { return ctx_; }

  const std::vector<Guard>& guards() const { return guards_; }
  /// Records a modular guard (once per text and symbol).
  void add_modular_guard(ModularGuard g);
  const std::vector<ModularGuard>& modular_guards() const { return modular_guards_; }
  const std::vector<SymbolInfo>& symbols() const { return symbols_; }
  const SymbolInfo* symbol(std::string_view name) const;
  SymbolInfo* symbol(std::string_view name);
  /// Symbol -> replacement, e.g. s94 -> s77, s21 -> 5.
  const std::map<std::string, Expr, std::less<>>& replacements() const { return replacements_; }
  /// Forces `sym := value` (used for 0/1-style specializations and equalities from dynamic_shapes).
  void set_replacement(const std::string& sym, const Expr& value, bool check_range = true);
  /// Applies the guard Eq(a, b) as if user code had asked it (produce_guards' source equalities).
  void equate(const Expr& a, const Expr& b, std::source_location where = std::source_location::current());
  /// Takes Eq(a, b) over values read from data as a fact (torch._check's deferred runtime
  /// assert): static evaluation uses it and ranges narrow, but no symbol is replaced, so `u3`
  /// stays u3 and the pieces' sum stays u0 + u1 + u2 + u3, as PyTorch's axioms behave.
  void assume_equal(const Expr& a, const Expr& b);
  /// torch._check / expect_true of `lhs rel rhs` over values read from data that ranges do not
  /// decide: a deferred runtime assertion. Equalities become axioms (assume_equal); an inequality
  /// answers itself and its negation later (`0 <= X - 1` once `X - 1 >= 0` is assumed, not
  /// `Min(8, X - 1) >= 0`, as PyTorch's axioms do) and narrows unbacked symbols' ranges.
  void assume(Rel rel, const Expr& lhs, const Expr& rhs);
  /// Drops assume()'s facts (guards, ranges and replacements stay), so a replay of a program (the
  /// verifier) learns them again in program order.
  void forget_assumptions();

 private:
  int64_t hint_of(const std::string& sym) const;
  std::optional<bool> static_eval_uncached(Rel rel, const Expr& lhs, const Expr& rhs) const;
  void refine_ranges(Rel rel, const Expr& lhs, const Expr& rhs);
  void maybe_replace(const Expr& lhs, const Expr& rhs);
  void intersect_range(const std::string& sym, ValueRange r);

  // Memo tables: canonical arithmetic (pure) and static answers (valid for one version_).
  struct ExprKey {
    uint8_t tag;
    Expr a, b;
    friend bool operator==(const ExprKey& x, const ExprKey& y) { return x.tag == y.tag && x.a == y.a && x.b == y.b; }
  };
  struct ExprKeyHash {
    size_t operator()(const ExprKey& k) const { return k.a.hash() * 31 + k.b.hash() * 7 + k.tag; }
  };
  std::unordered_map<ExprKey, Expr, ExprKeyHash> binary_cache_;
  mutable std::unordered_map<ExprKey, std::optional<bool>, ExprKeyHash> static_cache_;
  mutable uint64_t static_cache_version_ = 0;

  std::deque<SymNode> nodes_;
  std::vector<SymbolInfo> symbols_;
  std::map<std::string, size_t, std::less<>> by_name_;
  std::map<std::string, Expr, std::less<>> replacements_;
  std::vector<Guard> guards_;
  std::vector<ModularGuard> modular_guards_;
  std::vector<Expr> axioms_;  ///< assume_equal's facts, each as lhs - rhs == 0
  std::vector<Expr> ineq_axioms_;  ///< assume's inequalities, each as e >= 0
  SymbolIds ids_;
  uint64_t version_ = 0;
  OpContext ctx_;
  SymTracer* tracer_ = nullptr;
};

}  // namespace fe::sym
