// The symbolic contiguity check c10 runs when user code calls Tensor.contiguous() on a tensor with
// symbolic sizes, as torch.export's trace records it: every SymNode operation with a symbolic
// operand becomes a node (later dropped, its name kept), so recording the same sequence keeps the
// names of the surviving nodes equal to PyTorch's.
#pragma once
#include <functional>
#include <span>
#include <vector>
#include <unordered_set>

#include "fakeexport/sym/shape_env.h"

namespace fe::detail {

/// c10's _compute_contiguous_sym (and, when it cannot say true, the hinted _compute_contiguous)
/// over `sizes`/`strides`, reported to `t` as dropped nodes: `eq`, `ne`, `sym_max`, `mul`, `or_`,
/// `and_`, and a `sym_numel`/`sym_stride` read for the numel and each stride value not read before
/// (`strides_read`, by value identity).
/// `numel_read`: the numel is first read as a `sym_numel` node (a Python caller's a.numel()); else
/// the caller has accounted for it (c10's own product of the sizes, record_numel_product).
/// `traced_stride`, when given, reads a stride through the trace first (a retrace tracks strides:
/// a read of one it tracks is its node, made there or before); it returns false for a value the
/// trace does not know, whose read is then the name by value identity as above.
using TracedStride = std::function<bool(const SymInt&)>;
void record_contiguity_check(sym::SymTracer& t, std::span<const SymInt> sizes, std::span<const SymInt> strides,
                             std::unordered_set<const void*>& strides_read, bool numel_read = true,
                             const TracedStride& traced_stride = {});

/// c10's numel of a tensor with symbolic sizes, computed in C++ the first time it is asked
/// (multiply_integers from 1): a `mul` per factor once the product is symbolic, none by the int 1
/// (the proxy mode's peephole) or while both are ints.
void record_numel_product(sym::SymTracer& t, std::span<const SymInt> sizes);

/// The shape inference functionalization does for `_unsafe_view(self, shape)` in C++ (its
/// hand-written kernel: infer_size_dv(shape, self.sym_numel()), then computeStride(self's sizes,
/// strides, shape)), reported to `t` as dropped nodes in that order: per symbolic length `eq`
/// and `gt`, the lengths' `mul`s, `eq` (numel == their product), the numel's `mul`s again and its
/// `eq` 0, then the chunk walk's `ne`, `lt`, `eq` and `mul`s. self's c10 numel is the caller's
/// (computed once per tensor: record_numel_product), or, `numel_read`, a FakeTensor's read (a
/// `sym_numel` node) where it is first compared.
void record_unsafe_view_shape(sym::SymTracer& t, std::span<const SymInt> sizes, std::span<const SymInt> strides,
                              std::span<const SymInt> shape, bool numel_read = false);

/// torch._prims_common.is_contiguous(t, false_if_dde=True) of a tensor beneath the proxy mode (its
/// numel c10's product of the sizes, computed unless `numel_known`: c10 keeps it once asked),
/// reported to `t` as dropped nodes; returns its answer.
bool record_refs_is_contiguous(sym::SymTracer& t, std::span<const SymInt> sizes, std::span<const SymInt> strides,
                               bool numel_known = false);
/// torch._prims_common._is_non_overlapping_and_dense_or_false(sizes, strides) beneath the proxy
/// mode (prims.convert_element_type's meta asks it of its input): prod(sizes)'s `mul`s and `lt`,
/// CPython's sort of the (size, stride) pairs by K.__lt__ (`lt`/`gt`, `eq`, `mod`, `ne`), then
/// check_contiguous_sizes_strides along them; returns its answer.
bool record_refs_non_overlapping_and_dense(sym::SymTracer& t, std::span<const SymInt> sizes,
                                           std::span<const SymInt> strides);
/// is_channels_last_contiguous_2d(t, false_if_dde=True) likewise (false, no node, unless 4-D).
bool record_refs_is_channels_last_2d(sym::SymTracer& t, std::span<const SymInt> sizes,
                                     std::span<const SymInt> strides);

/// torch._prims_common.compute_elementwise_output_logical_to_physical_perm of one tensor, the
/// first step of torch._refs.empty_like (preserve_format), reported to `t` as dropped nodes in
/// PyTorch's order: check_same_shape's `eq`/`and_` per size, then is_contiguous's `sym_numel` read
/// and `lt` (numel < 2), check_contiguous_sizes_strides (`eq`, `ne`, `sym_max`, `mul`), a 4-D
/// tensor's channels-last check, and the stride sort's comparisons when neither layout holds.
/// Each comparison goes as the hints (backed sizes: PyTorch's guard_or_false guards on them),
/// the sort's too.
/// `numel_product`: a tensor beneath the proxy mode, whose numel is c10's product of the sizes.
/// Returns the logical-to-physical permutation it computes.
std::vector<size_t> record_refs_output_perm(sym::SymTracer& t, std::span<const SymInt> sizes,
                                            std::span<const SymInt> strides, bool numel_product = false);

/// The rest of at::has_internal_overlap for a tensor c10 does not find contiguous (a 4-D one's
/// channels-last contiguity first: record_channels_last_check; a 5-D one's, not modelled): c10's
/// _compute_non_overlapping_and_dense (the dims sorted by stride, `lt` per symbolic comparison,
/// then `ne`/`mul` along them), and when that is false a `gt` (size > 1) per symbolic size, with an
/// `eq` (stride == 0) where it holds.
void record_internal_overlap(sym::SymTracer& t, std::span<const SymInt> sizes, std::span<const SymInt> strides);

/// c10's channels-last contiguity of a 4-D tensor it does not find contiguous (SymbolicShapeMeta,
/// asked by is_non_overlapping_and_dense before the sort): _compute_channels_last_contiguous_2d_sym
/// (its guard_or_false walk over dims {1, 3, 2, 0}, then the And/Or expression), then that
/// SymBool decided on the hints. Returns whether it holds; records nothing for other ranks.
bool record_channels_last_check(sym::SymTracer& t, std::span<const SymInt> sizes, std::span<const SymInt> strides);

/// The stride sort of compute_elementwise_output_logical_to_physical_perm over several tensors of
/// one shape (neither all contiguous nor all channels-last): should_swap's comparisons per tensor.
/// Returns the permutation it sorts out, front to back.
std::vector<size_t> record_refs_perm_sort(sym::SymTracer& t, std::span<const SymInt> sizes,
                                          std::span<const std::span<const SymInt>> strides);

/// c10's computeStorageNbytes(sizes, strides, item, offset) on SymInts: per dim `eq` (size == 0)
/// and `sub` (size - 1) for a symbolic size, `mul` (stride times that) unless an operand is the
/// int 1 (the proxy mode's peephole) or both are ints, `add` once the running size is symbolic;
/// then `add` for the offset and `mul` by the item size (none for 1-byte types). Each node is
/// reported with the size or stride it reads first (a size before its `eq`, a stride before its
/// `mul`, or before the `add` of a peephole's `stride * 1`, the offset before its `add`).
void record_storage_nbytes(sym::SymTracer& t, std::span<const SymInt> sizes, std::span<const SymInt> strides,
                           const SymInt& offset, int64_t item);

/// torch._refs._broadcast_shapes(*shapes), reported to `t` as dropped nodes: per shape, right to
/// left, `eq` (the size against the common one so far), `eq` (common == 1) and then `lt` (size < 0)
/// where it takes the size, `eq` (size == 1), and torch._check's `eq` where it broadcasts neither way.
void record_broadcast_shapes(sym::SymTracer& t, std::span<const std::span<const SymInt>> shapes);

}  // namespace fe::detail
