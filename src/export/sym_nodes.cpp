// After the trace, symbolic ints are re-expressed from the inputs' sizes, as PyTorch's
// insert_deferred_runtime_asserts pass does: one sym_size.int per input symbol right after the
// placeholders (no stack trace), every other sym node with the same value replaced by it, composite
// values rebuilt from operator nodes, and sym nodes nobody uses dropped.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "export/dynamic_shapes.h"
#include "fakeexport/core/error.h"
#include "fakeexport/export/graph.h"

namespace fe::detail {
namespace {

bool is_sym_node(const Node& n) {
  static const OpDef& sym_size = op("aten::sym_size.int");
  static const OpDef& sym_numel = op("aten::sym_numel");
  return n.op() == NodeOp::SymOp ||
         (n.op() == NodeOp::CallFunction && (n.target() == &sym_size || n.target() == &sym_numel));
}

class Folder {
 public:
  Folder(Graph& g, sym::ShapeEnv& env, bool last_input_wins, bool trace_from_user)
      : g_(g), env_(env), last_wins_(last_input_wins), trace_from_user_(trace_from_user) {}

  void run() {
    static const OpDef& sym_size = op("aten::sym_size.int");
    static const OpDef& sym_numel = op("aten::sym_numel");
    std::vector<Node*> order;
    for (const auto& n : g_.nodes()) order.push_back(n.get());
    Node* first_body = nullptr;
    for (Node* n : order)
      if (n->op() != NodeOp::Placeholder) {
        first_body = n;
        break;
      }
    // Each input symbol is read from its first (or last) input; the nodes come in input order.
    std::vector<Node*> phs = g_.placeholders();
    std::unordered_map<std::string, std::pair<Node*, size_t>> source;
    const auto consider = [&](Node* ph) {
      if (ph->val.empty()) return;
      const TensorMeta& m = ph->val[0];
      for (size_t d = 0; d < m.sizes.size(); ++d)
        if (m.sizes[d].is_symbolic() && m.sizes[d].expr().is_symbol())
          source.try_emplace(m.sizes[d].expr().str(), ph, d);
    };
    // A symbol that several inputs share (one Dim) is read from the input whose own symbol survived
    // the equating of its dims (CLIP's batch: input_ids, not pixel_values; a vision encoder-decoder's:
    // decoder_input_ids), else from the first (or last) input that has it.
    for (Node* ph : phs) {
      if (ph->val.empty()) continue;
      const TensorMeta& m = ph->val[0];
      for (size_t d = 0; d < m.sizes.size(); ++d) {
        if (!m.sizes[d].is_symbolic() || !m.sizes[d].expr().is_symbol()) continue;
        const std::string key = m.sizes[d].expr().str();
        const sym::SymbolInfo* info = env_.symbol(key);
        if (info && info->source == sym::size_source(ph->name(), static_cast<int64_t>(d)))
          source.try_emplace(key, ph, d);
      }
    }
    if (last_wins_) std::for_each(phs.rbegin(), phs.rend(), consider);
    else std::for_each(phs.begin(), phs.end(), consider);
    // PyTorch makes one for every input dim whose own symbol (before dims were equated) is new,
    // and keeps those the graph reads: a dim whose symbol was replaced by another input's (t5's
    // batch, read from decoder_input_ids) still takes a name.
    std::unordered_set<std::string> own_symbols;
    for (Node* ph : phs) {
      if (ph->val.empty()) continue;
      const TensorMeta& m = ph->val[0];
      for (size_t d = 0; d < m.sizes.size(); ++d) {
        const SymInt& s = m.sizes[d];
        if (!s.is_symbolic() || s.expr().is_constant()) continue;  // a specialized dim is an int
        const sym::Expr& own = s.node()->expr;
        const bool new_own = own.is_symbol() && own_symbols.insert(own.str()).second;
        const sym::Expr e = s.expr();
        const std::string key = e.is_symbol() ? e.str() : std::string();
        auto it = key.empty() ? source.end() : source.find(key);
        const bool read_here = it != source.end() && it->second == std::make_pair(ph, d) && !known_.count(key);
        if (!read_here && !new_own) continue;
        Node* n = g_.call(sym_size, {ph, SymInt(static_cast<int64_t>(d))}, "sym_size_int", first_body);
        n->sym_val = s;
        if (read_here) known_[key] = n;
      }
    }
    for (Node* n : order) {
      if (n->op() == NodeOp::Placeholder || !n->sym_val || n->users().empty()) continue;
      const sym::Expr e = n->sym_val->expr();
      if (e.is_constant()) {
        replace_with_constant(n, e.constant());
        continue;
      }
      auto it = known_.find(e.str());
      if (it != known_.end()) {
        g_.replace_all_uses_with(n, it->second);
      } else if ((n->target() == &sym_size || n->target() == &sym_numel) &&
                 n->inputs()[0]->op() != NodeOp::Placeholder && reifiable(e)) {
        // The size (or numel) of an intermediate tensor: computed from the inputs' sizes instead
        // (a size read from data, `u1`, stays the size of the tensor that has it).
        NodeArg v = reify(e, n);
        if (auto* p = std::get_if<SymInt>(&v); p && graph_node_of(*p)) g_.replace_all_uses_with(n, graph_node_of(*p));
      } else {
        known_[e.str()] = n;
      }
    }
    // Drop sym nodes without users (last to first, so chains go too).
    g_.erase_unused(is_sym_node);
  }

 private:
  /// Users of `n` read the constant instead (the value was specialized after it was traced).
  void replace_with_constant(Node* n, int64_t c) {
    std::vector<Node*> users = n->users();
    for (Node* u : users) {
      std::vector<NodeArg> args = u->args();
      auto fix = [&](SymInt& s) {
        if (graph_node_of(s) == n) s = SymInt(c);
      };
      for (NodeArg& a : args) {
        if (auto* s = std::get_if<SymInt>(&a)) fix(*s);
        if (auto* l = std::get_if<std::vector<SymInt>>(&a))
          for (SymInt& s : *l) fix(s);
      }
      g_.set_args(u, std::move(args));
    }
  }

  /// Whether every symbol of `e` already has a node (an unbacked `u0` has one only once its
  /// item() or sym_size node is met).
  bool reifiable(const sym::Expr& e) const {
    for (const std::string& f : e.free_symbols())
      if (!known_.count(f)) return false;
    return atoms_known(e);
  }

  /// An applied atom (CeilToInt(...) of unbacked floats, an arange's length) is not computed from
  /// the floats it mentions: it is read as the size of the tensor that has it, as PyTorch does.
  bool atoms_known(const sym::Expr& e) const {
    if (e.is_symbol()) return !sym::is_applied_name(e.name()) || known_.count(e.str());
    for (const auto& [t, _] : e.terms())
      if (!atoms_known(t)) return false;
    for (const auto& a : e.args())
      if (!atoms_known(a)) return false;
    return true;
  }

  SymInt value_of(const sym::Expr& e) {
    const int64_t hint = e.evaluate([&](std::string_view name) {
      const sym::SymbolInfo* s = env_.symbol(name);
      FE_INTERNAL_ASSERT(s, "reify: unknown symbol ", name);
      return s->hint;
    });
    return env_.make(e, hint);
  }

  NodeArg node_arg(Node* n) { return NodeArg(env_.make_handle(*n->sym_val, n)); }

  /// `a op b` with value `e`; `cache`: later uses of `e` reuse it (PyTorch caches each sympy
  /// (sub)expression it interprets, not the partial results of folding a flat Mul or Add).
  NodeArg binary(PyOp op, NodeArg a, NodeArg b, const sym::Expr& e, Node* before, bool cache = true) {
    Node* n = g_.sym_op(op, {std::move(a), std::move(b)}, value_of(e), before);
    // run_decompositions' retrace: the node it is made for lends its stack trace (hf_whisper_dyn's
    // `1 + sym_size_int` under create_causal_mask); export's own are left without one.
    if (trace_from_user_ && before) n->stack_trace = before->stack_trace, n->loc = before->loc;
    if (cache) known_[e.str()] = n;
    return node_arg(n);
  }

  /// sympy's flat Mul(c, f1, f2, ...) folded left: ((c * f1) * f2) * ...
  NodeArg product(int64_t c, const sym::Expr& t, const sym::Expr& e, Node* before) {
    std::vector<sym::Expr> factors;
    if (t.kind() == sym::Kind::Mul) {
      for (const auto& [base, exp] : t.terms())
        for (int64_t i = 0; i < exp; ++i) factors.push_back(base);
    } else {
      factors.push_back(t);
    }
    NodeArg acc = SymInt(c);
    sym::Expr acc_e(c);
    for (size_t i = 0; i < factors.size(); ++i) {
      acc_e = acc_e * factors[i];
      acc = binary(PyOp::Mul, acc, reify(factors[i], before), acc_e, before, i + 1 == factors.size());
    }
    return acc;
  }

  /// The expression as graph values (hash-consed on the printed expression).
  NodeArg reify(const sym::Expr& e, Node* before) {
    if (e.is_constant()) return SymInt(e.constant());
    if (auto it = known_.find(e.str()); it != known_.end()) return node_arg(it->second);
    switch (e.kind()) {
      case sym::Kind::Symbol:
        throw InternalError(detail::cat("export: symbol ", e.str(), " is not the size of any input"));
      case sym::Kind::Add: {
        if (e.terms().size() == 1 && e.add_constant() == 0) {
          const auto& [t, c] = *e.terms().begin();
          if (c != 1) return product(c, t, e, before);
        }
        // sympy's Add lists its number first: (c + t1) + t2 ... (`-1 + floordiv_6`).
        NodeArg acc;
        sym::Expr acc_e(0);
        bool first = true;
        if (e.add_constant() != 0) {
          acc = SymInt(e.add_constant());
          acc_e = sym::Expr(e.add_constant());
          first = false;
        }
        for (const auto& [t, c] : e.terms()) {
          sym::Expr te = sym::Expr(c) * t;
          NodeArg tv = c == 1 ? reify(t, before) : binary(PyOp::Mul, reify(t, before), SymInt(c), te, before);
          if (first) {
            acc = tv;
            acc_e = te;
            first = false;
          } else {
            acc_e = acc_e + te;
            acc = binary(PyOp::Add, acc, tv, acc_e, before);
          }
        }
        return acc;
      }
      case sym::Kind::Mul: {
        NodeArg acc;
        sym::Expr acc_e(1);
        bool first = true;
        for (const auto& [base, exp] : e.terms())
          for (int64_t i = 0; i < exp; ++i) {
            NodeArg bv = reify(base, before);
            if (first) {
              acc = bv;
              acc_e = base;
              first = false;
            } else {
              acc_e = acc_e * base;
              acc = binary(PyOp::Mul, acc, bv, acc_e, before, acc_e.str() == e.str());
            }
          }
        return acc;
      }
      case sym::Kind::FloorDiv:
        return binary(PyOp::FloorDiv, reify(e.args()[0], before), reify(e.args()[1], before), e, before);
      case sym::Kind::Mod:
        return binary(PyOp::Mod, reify(e.args()[0], before), reify(e.args()[1], before), e, before);
      case sym::Kind::Min:
      case sym::Kind::Max: {
        const bool is_min = e.kind() == sym::Kind::Min;
        NodeArg acc = reify(e.args()[0], before);
        sym::Expr acc_e = e.args()[0];
        for (size_t i = 1; i < e.args().size(); ++i) {
          acc_e = is_min ? sym::min(acc_e, e.args()[i]) : sym::max(acc_e, e.args()[i]);
          acc = binary(is_min ? PyOp::SymMin : PyOp::SymMax, acc, reify(e.args()[i], before), acc_e, before);
        }
        return acc;
      }
      case sym::Kind::Const: break;
    }
    return SymInt(0);
  }

  Graph& g_;
  sym::ShapeEnv& env_;
  bool last_wins_;
  bool trace_from_user_;
  std::unordered_map<std::string, Node*> known_;
};

}  // namespace

void fold_symbolic_nodes(Graph& g, sym::ShapeEnv& env, bool last_input_wins, bool trace_from_user) {
  Folder(g, env, last_input_wins, trace_from_user).run();
}

}  // namespace fe::detail
