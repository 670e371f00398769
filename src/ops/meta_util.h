// Shared pieces of meta functions: broadcasting, elementwise result dtype, layout of new outputs.
#pragma once
#include <initializer_list>
#include <source_location>
#include <span>
#include <string>
#include <vector>

#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/ops/registry.h"
#include "fakeexport/sym/expr.h"

namespace fe::sym {
class ShapeEnv;
}

namespace fe::ops {

/// "aten::linear": the prefix of every error message an op raises.
inline std::string label(const MetaArgs& a) { return a.op().label(); }

/// Broadcast shape of a and b (torch.broadcast_shapes); ShapeError with FakeTensorMode's text
/// ("Attempting to broadcast a dimension of length 4 at -1! ...") then eager's.
DimVector broadcast_shapes(const MetaArgs& a, IntSpan x, IntSpan y);
/// Same over several shapes; the message names the index of the first mismatching shape.
DimVector broadcast_shapes(const MetaArgs& a, std::initializer_list<IntSpan> shapes);
DimVector broadcast_shapes(const MetaArgs& a, std::span<const IntSpan> shapes);

/// Output of an elementwise op over tensor/number (or None, skipped) arguments at `idx`: broadcast sizes, promoted
/// dtype, device of the tensors (the device rule already ran), strides following the first
/// full-size dense input's layout (TensorIterator's choice for the common cases) else contiguous.
TensorMeta elementwise_meta(const MetaArgs& a, std::initializer_list<size_t> idx);

/// Strides TensorIterator gives a freshly allocated output of `shape` (already broadcast) computed
/// from `ins`: its fast setup (all inputs same shape and contiguous / channels-last / equally
/// strided), else its stride-sorted dimension order. `wrapped_numbers` counts Python-number
/// operands (0-dim tensors to TensorIterator), which disable the fast setup.
DimVector iter_output_strides(IntSpan shape, std::span<const TensorMeta* const> ins, int wrapped_numbers = 0);

/// TensorIterator's insertion sort with ambiguous comparisons: should_swap(a, b) > 0 moves a after
/// b, < 0 keeps the order and stops, 0 (ambiguous) keeps looking further left.
template <class F>
void sort_dims(std::vector<size_t>& perm, F&& should_swap) {
  for (size_t i = 1; i < perm.size(); ++i) {
    size_t d1 = i;
    for (size_t d0 = i; d0-- > 0;) {
      const int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
}

/// PyTorch's guard_or_false(a == b) on backed sizes: the answer from the hints, with a guard unless
/// statically known; a relation already guarded is answered again without a second guard (PyTorch
/// keeps guards as axioms).
bool guard_or_false_eq(const SymInt& a, const SymInt& b,
                       std::source_location where = std::source_location::current());
/// torch._check(b) / expect_true: backed relations guard; one over data (u0, CeilToInt(...) of
/// unbacked floats) that ranges do not decide is taken as a fact (a deferred runtime assertion,
/// ShapeEnv::assume) and holds. False only when known false.
bool expect_true(const SymBool& b, std::source_location where = std::source_location::current());

/// `acc * x` as make_fx records it: `1 * x` and `x * 1` are x itself (its peephole makes no node),
/// so a running product from 1 takes its first factor as is. (Not in ShapeEnv::make_binary: the export
/// tracer's golden programs rely on user-level `1 * x` being recorded there.)
inline SymInt peephole_mul(const SymInt& acc, const SymInt& x) {
  if (!acc.is_symbolic() && acc.hint() == 1) return x;
  return !x.is_symbolic() && x.hint() == 1 ? acc : acc * x;
}

/// Symbolic arithmetic done in its scope is the op `op`'s own, as in a meta function: a trace
/// records none of it. For a Python reference's bookkeeping, whose nodes the retrace accounts for
/// separately (export/functional_names.h: PyTorch's walk, not ours).
class UntracedArithmetic {
 public:
  UntracedArithmetic(std::string_view op, IntSpan values);
  ~UntracedArithmetic();
  UntracedArithmetic(const UntracedArithmetic&) = delete;
  UntracedArithmetic& operator=(const UntracedArithmetic&) = delete;

 private:
  sym::ShapeEnv* env_ = nullptr;
  std::string_view outer_op_;
  const SrcLocArg* outer_call_ = nullptr;
};

/// torch._prims_common.make_contiguous_strides_for: stride[i] = prod(sym_max(size[j], 1)), j > i.
DimVector make_contiguous_strides_for(IntSpan sizes);

/// Max(1, e) -> e wherever e >= 1 follows from the symbol ranges, recursively. PyTorch folds such
/// a Max only from the ranges known when the op ran; a program's final (narrower) ranges prove more.
sym::Expr strip_max1(const sym::ShapeEnv& env, const sym::Expr& e);

/// What `op`'s meta function computes over metadata arguments (every schema argument given):
/// composite ops (diff, adaptive_avg_pool1d) compose the ops PyTorch's implementation calls.
inline MetaOut meta_calls(const OpDef& op, std::initializer_list<MetaValue> args) {
  MetaOut mo;
  run_meta(op, std::span(args.begin(), args.size()), mo);
  return mo;
}
/// run_meta of `inner` for an op implemented by it (a CompositeImplicit alias or wrapper): its
/// errors are the outer op's, labelled `label` instead of `inner`'s name.
void run_meta_as(std::string_view label, const OpDef& inner, std::span<const MetaValue> args, MetaOut& out);
/// Output 0 of meta_calls.
inline TensorMeta meta_call(const OpDef& op, std::initializer_list<MetaValue> args) {
  return std::move(meta_calls(op, args).outs.at(0));
}
/// PyTorch's is_contiguous_or_false / is_channels_last_contiguous_2d (false_if_dde) /
/// is_non_overlapping_and_dense_or_false on sizes+strides: a size that may be 1 is guarded like PyTorch.
bool contiguous_or_false(IntSpan sizes, IntSpan strides);
/// The walk of PyTorch's contiguity checks: numel < 2 is contiguous (`numel_lt2`); otherwise from
/// the innermost dim, a size equal to 1 is skipped and each stride equals the product of the sizes
/// inside it, or of their Max(1, size). `eq` decides each equality (guard_or_false, or on hints).
bool contiguous_walk(IntSpan sizes, IntSpan strides, bool (*numel_lt2)(const SymInt&),
                     bool (*eq)(const SymInt&, const SymInt&));
bool channels_last_or_false(IntSpan sizes, IntSpan strides);
bool non_overlapping_and_dense_or_false(IntSpan sizes, IntSpan strides);
/// Output strides PyTorch computes for an elementwise op on symbolic sizes (refs/prims:
/// compute_elementwise_output_strides over the operands expanded to `shape`; 0-dim cpu tensors
/// are skipped). The stride sort decides on hints without guards.
/// `single_dense_shortcut`: one dense operand keeps its strides (prims' elementwise meta); false
/// gives empty_like's permutation (refs.empty_like).
DimVector symbolic_output_strides(IntSpan shape, std::span<const TensorMeta* const> ins,
                                  bool single_dense_shortcut = true);
/// Any symbolic size, stride or offset.
bool any_symbolic_meta(const TensorMeta& m);
/// Makes `s` a new SymInt of the same value where it is a symbolic one: a size PyTorch's meta
/// computes anew (FakeTensor's split_dim, cumsum's scanned dim), which export then reads from the
/// op's output rather than from its input.
void renew_symint(SymInt& s);

/// Dtype names as C++ TORCH_CHECK messages print them (caffe2::TypeMeta): "float", "c10::Half".
const char* cpp_type_name(DType t);

/// c10::toString(ScalarType), as ATen messages print dtypes: "Float", "Double", "Long", "Bool".
const char* scalar_type_name(DType t);

/// Channels-last (NHWC) strides for 4-D sizes.
DimVector channels_last_strides(IntSpan sizes);

/// Dense strides in the order of concrete x's dims sorted by stride (ties: the larger size outer; a
/// 0 stride keeps the order), as at::infer_dense_strides and prims' permutation of one tensor:
/// [4, 1, 16] (16, 64, 1) keeps its strides, [2, 1, 3, 1] (3, 9, 1, 7) becomes (3, 6, 1, 6).
DimVector sorted_dense_strides(const TensorMeta& x);

/// Strides a `preserve_format` copy of `m` gets: m's own when non-overlapping and dense, else dense
/// strides in the order of m's (at::infer_dense_strides; on symbolic sizes the refs' stride sort,
/// dense_or_sorted_strides).
DimVector preserved_strides(const TensorMeta& m);

/// preserved_strides for ops whose symbolic-size path is the refs' (relu, sort): a dense input keeps
/// its strides, else its dims sorted by stride (refs.empty_like); concrete inputs: preserved_strides.
DimVector dense_or_sorted_strides(const TensorMeta& m);

/// "[4, 128]" for messages.
std::string shape_str(IntSpan s);
/// "(6,)", "(2, 3)", "()": a Python tuple, as PyTorch's messages print shapes and strides.
std::string py_tuple(IntSpan s);
/// "torch.Size([2, 3])".
std::string torch_size(IntSpan s);

}  // namespace fe::ops
