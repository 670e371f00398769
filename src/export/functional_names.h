// Names PyTorch's decomposition retrace uses up at the level of FunctionalTensorMode, where every
// output is wrapped in a FunctionalTensor: _make_wrapper_subclass runs c10's computeStorageNbytes
// on the output's SymInts while the proxy mode records every SymNode operation. Those nodes die
// (DCE), but their names stay taken, so the surviving nodes are numbered after them (`sub_1` for
// the first aten sub when a `sub` of sizes came before it). Measured with
// tools/oracle/scripts/trace_dead_nodes.py on PyTorch 2.14.1.
#pragma once
#include <functional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fakeexport/core/tensor_meta.h"
#include "fakeexport/export/graph.h"
#include "fakeexport/ops/dispatch.h"
#include "fakeexport/ops/functional_level.h"
#include "export/functionalize.h"

namespace fe::detail {

/// Whether a size of `m` is not known without a guard.
bool has_symbolic_size(const TensorMeta& m);

/// Takes, in `g`, the names of the nodes computeStorageNbytes(sizes, strides, itemsize, offset)
/// records for a tensor of metadata `m`: per dim, `eq` (size == 0) and `sub` (size - 1) when the
/// size is symbolic, `mul` (stride * that) unless an operand is the int 1 (the proxy mode's
/// peephole) or both are ints, `add` once the running size is symbolic; then `add` for the offset
/// and `mul` by the item size (none for 1-byte types). A tensor of constant metadata takes none.
/// `read`, when given, is told of each size and stride as computeStorageNbytes reads it (a size
/// before its `eq`, a stride before its `mul`); it returns whether the trace knows the value.
using StorageRead = std::function<bool(const SymInt&)>;
void take_storage_nbytes_names(Graph& g, const TensorMeta& m, const StorageRead& read = {});

/// A subgraph input wrapped inside the retrace: the `sym_size_int` read of each symbolic size
/// (they are new SymNodes there), then its storage size.
void take_wrapped_input_names(Graph& g, const TensorMeta& m);

/// The functionalization level of a retrace (ops/functional_level.h): what each op dispatched
/// there records, as names taken in the graph being written (`*graph`, which a subgraph's retrace
/// switches) under the decomposition table `*table`.
class FunctionalNames final : public FunctionalLevel {
 public:
  /// `read` forces the graph value of a size or stride an output's wrap reads (Tracer::storage_read).
  FunctionalNames(Graph* const& graph, const DecompTable* const& table, StorageRead read)
      : graph_(graph), table_(table), read_(std::move(read)) {}
  /// CompositeImplicit in PyTorch's native_functions.yaml (CPU) and in the table: FunctionalTensorMode
  /// calls func.decompose(), so the decomposition's ops are wrapped one by one.
  bool decomposes_here(const OpDef& op) const override;
  /// The checks a Python decomposition makes before its first node: torch._refs' zeros and ones
  /// validate their shape (a `ge`, `length >= 0`, per symbolic length); index_add compares the
  /// source's size with the index's (an `eq`), index_copy the shapes (index_copy_checks);
  /// empty_like orders self's dims by stride (record_refs_output_perm).
  void before_decomposition(const OpDef& op, std::span<const IValue> args) override;
  /// The contiguity check of a torch._refs decomposition that ends in `.contiguous()` (triu, tril,
  /// renorm, diag_embed, index_add, index_copy; masked_fill reports its own:
  /// refs_contiguity_asked), then each new output's storage size.
  void wrapped(const OpDef& op, std::span<const IValue> args, std::span<const Tensor> outs) override;
  /// reshape, contiguous and linear ask c10 whether self is contiguous (reshape_symint's
  /// is_contiguous_or_false fast path, Tensor::contiguous, linear's _flatten_nd_linear test when
  /// it has a bias): its numel and contiguity, each computed once per tensor and recorded
  /// (record_numel_product, record_contiguity_check).
  void composite(const OpDef& op, std::span<const IValue> args) override;
  /// `t.contiguous()` in a decomposition (torch._decomp's _fused_rms_norm): the same, once per tensor.
  void contiguity_asked(const Tensor& t) override;
  /// masked_fill's `r.contiguous()` beneath: c10's check of where's result (sym_numel read first).
  void refs_contiguity_asked(const Tensor& r) override;
  /// `t.numel() == 0` in a Python reference: a `sym_numel` read the first time t's numel is asked
  /// (neither read nor computed before), then an `eq`.
  void refs_numel_compared(const Tensor& t) override;
  /// torch.broadcast_shapes in a Python decomposition (torch._decomp's matmul): record_broadcast_shapes.
  void broadcast_shapes(std::span<const std::span<const SymInt>> shapes) override;
  /// record_unsafe_view_shape: reshape's infer_size_dv and computeStride.
  void view_shape_computed(const Tensor& self, std::span<const SymInt> shape) override;
  void dropped(std::string_view base) override { (void)graph_->unique_name(base); }
  /// C++ compares t's numel with 0 (c10's product of its sizes, computed once per tensor, then an
  /// `eq`): scaled_dot_product_attention on cpu does so for the query before it chooses a kernel
  /// (measured in 2.14's trace with symbolic batch, sequence or both; the line that asks is C++).
  void numel_compared(const Tensor& t);
  /// C++ functionalization of a mutation `op` (`add_`, `copy_`, `fill_`, `masked_fill_`,
  /// `index_add_`) first records, per tensor argument with symbolic sizes, a `ge` and its storage
  /// size; then runs the in-place op's meta, whose Python ones check that the other operand
  /// broadcasts to self (torch._meta_registrations' check_inplace_broadcast).
  void mutation(const OpDef& op, std::span<const IValue> args);
  /// While open, the storage size of `op`'s own result is not taken at its wrap (the functional
  /// form of an in-place op: wrapped_self takes it after the write-back).
  class DeferredStorage {
   public:
    DeferredStorage(FunctionalNames& names, const OpDef& op) : names_(names), prev_(names.deferred_) {
      names.deferred_ = &op;
    }
    ~DeferredStorage() { names_.deferred_ = prev_; }
    DeferredStorage(const DeferredStorage&) = delete;
    DeferredStorage& operator=(const DeferredStorage&) = delete;

   private:
    FunctionalNames& names_;
    const OpDef* prev_;
  };
  /// A view made by an op dispatched at this level (einsum's view, permute and view of its bmm,
  /// each wrapped one by one): the tensor it views and the step from it.
  struct MadeView {
    Tensor view;  ///< kept alive, so that no other tensor takes its address
    Tensor parent;
    ViewStep step;
  };
  /// How `t` was made, when it is such a view; null otherwise.
  const MadeView* made_view(const TensorImpl* t) const {
    auto it = made_views_.find(t);
    return it == made_views_.end() ? nullptr : &it->second;
  }
  /// The wrap of an in-place op's returned self (its value after the write-back): its storage size.
  void wrapped_self(const Tensor& t) {
    if (t.defined()) take_storage_nbytes_names(*graph_, t.meta(), read_);
  }

 private:
  Graph* const& graph_;
  const DecompTable* const& table_;
  StorageRead read_;
  std::unordered_set<const void*> strides_read_;  ///< strides given a sym_stride read already
  /// c10's numel of `t` (its product of the sizes), computed the first time it is asked of it.
  void c10_numel(const Tensor& t);
  /// Whether C++ asks the proxy mode's FakeTensors here, whose numel is read, not computed.
  bool fake_numel() const;
  /// c10's numel and contiguity of `t`, computed the first time they are asked of it.
  void c10_contiguity(const Tensor& t);

  std::unordered_set<const void*> numel_known_;       ///< tensors (impls) whose c10 numel is computed
  std::unordered_set<const void*> contiguity_known_;  ///< tensors (impls) whose c10 contiguity is computed
  std::vector<Tensor> held_;  ///< those tensors, kept alive so that no other takes their address
  const OpDef* deferred_ = nullptr;  ///< see DeferredStorage
  std::unordered_map<const TensorImpl*, MadeView> made_views_;
};

}  // namespace fe::detail
