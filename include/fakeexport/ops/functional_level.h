// The level of PyTorch's FunctionalTensorMode in a decomposition retrace. run_decompositions
// traces with functionalization above the proxy mode that records nodes: every op dispatched at
// that level has its outputs wrapped in FunctionalTensors (whose storage-size arithmetic the
// proxy mode records), a CompositeImplicit op decomposes right there (func.decompose(), so its
// inner ops are wrapped one by one), and any other decomposition runs beneath, in the proxy
// mode (its inner ops are not wrapped; its results are, once).
#pragma once
#include <span>
#include <string_view>

#include "fakeexport/ops/registry.h"

namespace fe {

/// What the retrace does at the functionalization level (the Retracer implements it).
class FunctionalLevel {
 public:
  virtual ~FunctionalLevel() = default;
  /// Whether `op` is decomposed at this level (CompositeImplicit and in the table).
  virtual bool decomposes_here(const OpDef& op) const = 0;
  /// `op`, dispatched at this level, is about to run its decomposition beneath (a Python
  /// reference, whose own checks come before the nodes it records).
  virtual void before_decomposition(const OpDef& op, std::span<const IValue> args) = 0;
  /// `op`, CompositeImplicit, is about to decompose right here (its ATen C++ runs at this level, so
  /// what it asks of its arguments' metadata is recorded before the ops it calls).
  virtual void composite(const OpDef& /*op*/, std::span<const IValue> /*args*/) {}
  /// A decomposition running at this level called `t.contiguous()` (a Python reference's or ATen
  /// C++'s): c10 computes t's contiguity, which the trace records once per tensor.
  virtual void contiguity_asked(const Tensor& /*t*/) {}
  /// A Python reference running beneath this level ends in `r.contiguous()` (torch._refs'
  /// masked_fill): c10 computes r's contiguity on the FakeTensor, its numel read first, before
  /// the clone that may follow.
  virtual void refs_contiguity_asked(const Tensor& /*r*/) {}
  /// A Python reference running beneath this level asks `t.numel() == 0` (torch._refs.logsumexp):
  /// the FakeTensor's numel is read (a `sym_numel` node, once per tensor), then compared.
  virtual void refs_numel_compared(const Tensor& /*t*/) {}
  /// A Python decomposition running at this level called torch.broadcast_shapes(*shapes)
  /// (torch._refs._broadcast_shapes: its comparisons are recorded and dropped).
  virtual void broadcast_shapes(std::span<const std::span<const SymInt>> /*shapes*/) {}
  /// ATen C++ at this level inferred `shape` for a view of `self` and its strides
  /// (infer_size_dv with self's numel, then computeStride: reshape of a non-contiguous self).
  virtual void view_shape_computed(const Tensor& /*self*/, std::span<const SymInt> /*shape*/) {}
  /// ATen C++ at (or beneath) this level made a check on sizes that the trace records and drops
  /// (a node named `base`: "gt"), answered without a guard where it runs.
  virtual void dropped(std::string_view /*base*/) {}
  /// `op`, dispatched at this level on `args`, returned `outs`: FunctionalTensorMode wraps them.
  virtual void wrapped(const OpDef& op, std::span<const IValue> args, std::span<const Tensor> outs) = 0;
};

/// Reports `t.contiguous()`, called by a decomposition, to the functionalization level it runs
/// at (FunctionalLevel::contiguity_asked); nothing outside a retrace or beneath the level.
void note_contiguity_asked(const Tensor& t);

/// Reports FunctionalLevel::refs_contiguity_asked to the retrace's level, from beneath it; nothing
/// outside a retrace.
void note_refs_contiguity_asked(const Tensor& r);

/// Reports FunctionalLevel::refs_numel_compared to the retrace's level, from beneath it; nothing
/// outside a retrace.
void note_refs_numel_compared(const Tensor& t);

/// Reports torch.broadcast_shapes(*shapes), called by a decomposition, to the functionalization
/// level of the retrace, beneath it too (the proxy mode records a Python decomposition's
/// arithmetic wherever it runs); nothing outside a retrace.
void note_broadcast_shapes(std::span<const std::span<const SymInt>> shapes);

/// Reports FunctionalLevel::dropped to the retrace's level, beneath it too.
void note_dropped(std::string_view base);

/// Reports FunctionalLevel::view_shape_computed to the retrace's level, beneath it too.
void note_view_shape_computed(const Tensor& self, std::span<const SymInt> shape);

/// While open, ops dispatched at the functionalization level run under ATen's C++
/// functionalization, called by an op's C++ functionalization kernel (an in-place op's functional
/// form: `t[:, :, 0] += 3`'s add): their results get C++ wrappers, whose storage size nothing
/// records (FunctionalLevel::wrapped is not told), and C++ asks the FakeTensors beneath.
class CppFunctionalizationScope {
 public:
  CppFunctionalizationScope();
  ~CppFunctionalizationScope();
  CppFunctionalizationScope(const CppFunctionalizationScope&) = delete;
  CppFunctionalizationScope& operator=(const CppFunctionalizationScope&) = delete;

 private:
  bool prev_;
};

/// Whether a CppFunctionalizationScope is open on this thread: C++ then asks its questions of the
/// proxy mode's FakeTensors, whose numel is a value made with them (read as a `sym_numel` node),
/// not computed on a FunctionalTensor wrapper.
bool in_cpp_functionalization();
/// Whether a retrace's dispatch runs beneath its functionalization level (a decomposition in the
/// proxy mode, e.g. the cpu flash kernel's): C++ asks the FakeTensors there too.
bool beneath_functional_level();

/// The dispatches made on this thread while it is open (and not beneath one of them) run at
/// `level`. A null level (beneath) keeps the retrace's level for what the proxy mode records at
/// any depth (note_broadcast_shapes, note_view_shape_computed).
class FunctionalLevelScope {
 public:
  explicit FunctionalLevelScope(FunctionalLevel* level);
  ~FunctionalLevelScope();
  FunctionalLevelScope(const FunctionalLevelScope&) = delete;
  FunctionalLevelScope& operator=(const FunctionalLevelScope&) = delete;

 private:
  FunctionalLevel* prev_;
  FunctionalLevel* prev_retrace_;
};

}  // namespace fe
