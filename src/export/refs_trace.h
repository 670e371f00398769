// torch._refs run beneath the proxy mode, as a retrace records them: an in-place op's meta that is
// a Python reference runs on the meta copy C++ functionalization makes of `self` ("run meta
// tensors through the original op"), and every SymInt operation it makes on symbolic sizes is a
// node of the trace, later dropped. Recording the same sequence keeps later names equal to
// PyTorch's. Each function reports to `t` as dropped nodes, in PyTorch's order.
#pragma once
#include <functional>
#include <optional>
#include <span>

#include "fakeexport/core/tensor_meta.h"
#include "fakeexport/sym/shape_env.h"

namespace fe::detail {

/// torch._refs.clamp_ on `self` (clamp's reference made in-place through its out= wrapper), min
/// and/or max numbers: per bound isnan, ge/le, bitwise_or and where, each a reference's
/// _maybe_broadcast (_broadcast_shapes, should_expand per tensor) and its prim's
/// _prim_elementwise_meta (check_same_shape, the output permutation's checks, extract_shape,
/// empty_permuted's size checks and storage size), then the out= wrapper's same_shape and
/// meta_copy_ (the overlap check's contiguity, refs.expand, broadcast_in_dim's checks).
/// Returns false, recording nothing, where the model does not reach (a non-contiguous self).
bool record_refs_clamp_(sym::SymTracer& t, const TensorMeta& self, bool has_min, bool has_max);

/// torch._refs.mul(a, number) beneath the proxy mode (_index_add's `tensor * alpha` on the meta
/// copies): _maybe_broadcast, then prims.mul's _prim_elementwise_meta. False, recording nothing,
/// for a non-contiguous `a`.
bool record_refs_mul_number(sym::SymTracer& t, const TensorMeta& a);

/// torch._refs.masked_fill_(self, mask, value) with a 0-dim tensor value (masked_fill_.Tensor's
/// meta): masked_fill's where(mask, value, self) (the value expanded, as a meta tensor is no cpu
/// scalar; a broadcasting mask too), its r.contiguous(), then self.copy_(r). False, recording
/// nothing, where the model does not reach (a broadcasting mask or self not contiguous; a mask of
/// another layout that is not dense or has a size-1 dim; a self not dense or, non-contiguous, of
/// more than 4 dims).
bool record_refs_masked_fill_(sym::SymTracer& t, const TensorMeta& self, const TensorMeta& mask, const TensorMeta& value);

/// leaky_relu_'s meta, torch._decomp's inplace_op on the meta copy: the reference
/// where(gt(a, 0), a, mul(a, slope)), then a.copy_(out). False, recording nothing, for a
/// non-contiguous self.
bool record_refs_leaky_relu_(sym::SymTracer& t, const TensorMeta& self);

/// hardtanh_'s meta likewise: the reference's clamp(a, lo, hi), then a.copy_(out). False, recording
/// nothing, for a non-contiguous or integral self.
bool record_refs_hardtanh_(sym::SymTracer& t, const TensorMeta& self);

/// elu_'s meta, elu's reference through its in-place wrapper (out=self): where(a > 0, scale * a,
/// (alpha * scale) * expm1(a * input_scale)), then the out= copy. False, recording nothing, for a
/// non-contiguous or integral self.
bool record_refs_elu_(sym::SymTracer& t, const TensorMeta& self);

/// The meta of a unary floating in-place op whose reference is one prim (exp_, tanh_, neg_, ...),
/// or sigmoid_'s (`sigmoid`): the reference through its in-place wrapper (out=self), then the out=
/// copy. False, recording nothing, for an integral self or one the models do not take.
bool record_refs_unary_(sym::SymTracer& t, const TensorMeta& self, bool sigmoid);

/// pow_'s meta, pow's reference through its in-place wrapper (out=self): with a number exponent its
/// _maybe_broadcast, then `a * a` dispatched for 2 (mul's reference) or prims.pow's meta; with a
/// tensor exponent (of self's shape, strides and dtype) the wrapper's _broadcast_shapes first; then
/// the out= copy. False, recording nothing, for an integral self, exponent 1 or 0.5, or a tensor
/// exponent of another shape, layout or dtype.
bool record_refs_pow_(sym::SymTracer& t, const TensorMeta& self, const TensorMeta* exponent, double number);

/// floor_divide_(self, other)'s meta for a floating self, floor_divide's reference through the
/// in-place wrapper: _floor_divide_float's twenty references, then the out= copy. False, recording
/// nothing, for a non-contiguous self or an `other` of another shape, layout or dtype.
bool record_refs_floor_divide_(sym::SymTracer& t, const TensorMeta& self, const TensorMeta& other);

/// triu_'s and tril_'s meta, their references through the in-place wrapper (out=self): the mask
/// (arange(w).unsqueeze(-2) - arange(h).unsqueeze(-1)) compared with the diagonal, where(mask, a,
/// 0), its .contiguous(), then the out= copy. False, recording nothing, for a non-contiguous or
/// bool self.
bool record_refs_triu_(sym::SymTracer& t, const TensorMeta& self);

/// addcmul_'s meta on the meta copies: addcmul's elementwise_meta over the three tensors, then
/// check_inplace_broadcast. False, recording nothing, for tensors of another shape or dtype than
/// self's, or a self the models do not take.
bool record_meta_addcmul_(sym::SymTracer& t, const TensorMeta& self, const TensorMeta& tensor1,
                          const TensorMeta& tensor2);

/// silu_'s meta, torch._decomp's inplace_op on the meta copy: silu's meta torch.empty_like(a),
/// then a.copy_(out). False, recording nothing, for a non-contiguous self.
bool record_meta_silu_(sym::SymTracer& t, const TensorMeta& self);

/// copy_'s meta (meta_copy_) on the meta copies: the overlap check's c10 contiguity of self (its
/// numel first), then torch._refs.expand(src, self.size()) (src of self's shape, or broadcasting:
/// fewer dims, size-1 dims). False, recording nothing, for another src shape, an unbacked size or
/// a non-contiguous self of 5 or more dims. `convert` records `src.to(self)` (a src of another
/// dtype) after the overlap check.
bool record_meta_copy_(sym::SymTracer& t, const TensorMeta& self, const TensorMeta& src,
                       const std::function<void()>& convert = {});

}  // namespace fe::detail
