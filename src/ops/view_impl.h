// Private helpers of the view family (view.cpp, view_index.cpp, view_api.cpp): shape inference,
// PyTorch's two view-stride algorithms, and the register functions of each part.
#pragma once
#include <optional>
#include <source_location>
#include <string>

#include "fakeexport/ops/registry.h"
#include "ops/meta_util.h"

namespace fe::ops {

void register_view_shape_ops(Registry& r);  // view.cpp
void register_view_index_ops(Registry& r);  // view_index.cpp


// ---- symbolic helpers (view_sym.cpp)
/// Python `a // b` with the cancellations torch's FloorDiv makes for symbolic divisors
/// ((24*s0)//(3*s0) -> 8); the shared floordiv otherwise.
SymInt sym_div(const SymInt& a, const SymInt& b);
/// Python `a % b` with torch's Mod rules for symbolic divisors (Mod(s0*s1, s0) -> 0, Mod(s0, 3*s0) -> s0).
SymInt sym_rem(const SymInt& a, const SymInt& b);
/// Whether the relation is known without a guard: the ShapeEnv's answer, else the sign of the
/// expanded difference with each symbol shifted to its lower bound (ShapeEnv._maybe_evaluate_static
/// proves Ne(s0*(s1 - 1), s1 - 1) that way).
std::optional<bool> view_static(const SymBool& b);
/// SymBool::guard, tolerating the shared ShapeEnv's division by zero while it refines ranges
/// from a guard over Mod/FloorDiv with symbolic divisors (the guard is recorded either way).
bool safe_guard(const SymBool& b, std::source_location where = std::source_location::current());
/// view_static, else the guarded answer (PyTorch's bool() / guard_or_* on backed sizes).
bool view_guard(const SymBool& b, std::source_location where = std::source_location::current());

/// "[s0, 8]": sizes for messages, printed without guards (the shared shape_str specializes).
std::string dims_str(IntSpan s);

/// Python's `a OP b` on ints and SymInts: an int on the left defers to the SymInt's reflected
/// operator, so `3 <= s0` is the relation `s0 >= 3` (as PyTorch prints its guard).
SymBool py_rel(Rel rel, const SymInt& a, const SymInt& b);
/// guard_or_false(sym_and(p, q)) on backed sizes: known parts decide without a guard; PyTorch guards
/// an undecided conjunction as one expression, here its parts guard in order.
bool guard_and(const SymBool& p, const SymBool& q, std::source_location where = std::source_location::current());
/// guard_or_false proper: a relation over data (u0, or a size over unbacked floats such as Funnel's
/// CeilToInt(...)) that ranges do not decide has no hint to guard on, and answers false; backed
/// relations are view_guard / guard_and.
bool view_guard_or_false(const SymBool& b, std::source_location where = std::source_location::current());
bool guard_and_or_false(const SymBool& p, const SymBool& q, std::source_location where = std::source_location::current());
/// torch._check(b) in view code: view_guard on backed sizes, expect_true (a runtime assertion) over data.
bool view_check(const SymBool& b, std::source_location where = std::source_location::current());
/// guard_or_true: as view_guard_or_false, answering true where data leaves it open.
bool view_guard_or_true(const SymBool& b, std::source_location where = std::source_location::current());
/// Whether any size, stride or target size has no hint (fake_impls._view_has_unbacked_input).
bool has_unbacked_input(IntSpan sizes, IntSpan strides, IntSpan shape);

/// -1 inference: fills `res` and returns "" or returns the error text. `python` picks
/// torch._prims_common.infer_size (FakeTensorMode's view) over C++ at::infer_size_dv (reshape of
/// non-contiguous tensors, unflatten): their texts differ for negative sizes, and on symbolic
/// sizes they check divisibility differently. Symbolic checks record PyTorch's guards.
std::string infer_size(IntSpan shape, const SymInt& numel, bool python, DimVector& res);
/// infer_size that throws ShapeError naming the op.
DimVector infer_size_or_throw(const MetaArgs& a, IntSpan shape, const SymInt& numel, bool python);

/// at::detail::computeStride: strides viewing (sizes, strides) as `shape`, or nullopt. On symbolic
/// sizes it records the guards PyTorch's guard_or_true/guard_or_false record on backed sizes.
std::optional<DimVector> compute_stride(IntSpan sizes, IntSpan strides, IntSpan shape);

/// torch._refs view (_reshape_view_helper, allow_copy=False): what FakeTensorMode's view and
/// _unsafe_view return; `shape` may hold -1. ShapeError with the refs' text when no view exists.
TensorMeta ref_view(const MetaArgs& a, const TensorMeta& self, IntSpan shape);

/// at::native::reshape: a ref_view when computeStride allows one (alias), else a contiguous copy.
void reshape_into(const MetaArgs& a, const TensorMeta& self, IntSpan shape, MetaOut& out);

/// Wraps dim for an op with `ndim` dims (scalars act as 1-D), IndexError naming the op.
int64_t wrap(const MetaArgs& a, int64_t dim, int64_t ndim);

/// Copies of input elements into a fresh output (reshape-as-copy, clone, contiguous).
void cpu_copy_input0(const OpDef&, std::span<const IValue> a, std::span<Tensor> o);

}  // namespace fe::ops
