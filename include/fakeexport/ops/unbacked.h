// Sizes that depend on a tensor's values (repeat_interleave's total without output_size): on fake
// tensors PyTorch gives each a fresh unbacked symbol (`u0`, ShapeEnv.create_unbacked_symint); on
// real tensors the kernel's data decides it.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "fakeexport/core/symint.h"
#include "fakeexport/core/tensor_meta.h"
#include "fakeexport/ops/registry.h"

namespace fe {

/// Computes the size from the call's real argument values (the sum of the repeats).
using SizeFromData = int64_t (*)(std::span<const IValue> args);

/// The data-dependent size a meta asks for: from the values when the call computes on real
/// tensors (`run`), else the next size of the innermost UnbackedSizesScope, else a
/// DataDependentError naming the op and `what` (a trace has no value to read).
SymInt unbacked_size(const MetaArgs& a, SizeFromData from_data, std::string_view what);

/// While alive on this thread, the data-dependent sizes metas ask for are `sizes`, in order: the
/// unbacked symbols a loaded node recorded for its outputs. The verifier and the retrace give them
/// to the node's meta, as PyTorch's retrace maps its fresh symbols back to the recorded ones
/// (resolve_unbacked_bindings), so a decomposition's intermediates carry `u0` too.
class UnbackedSizesScope {
 public:
  explicit UnbackedSizesScope(std::vector<SymInt> sizes);
  /// The bare unbacked symbols among `outs`' sizes, first appearance first, each once; found only
  /// when a meta asks (the verifier and the retrace open one per node: no work on the others).
  explicit UnbackedSizesScope(std::span<const TensorMeta> outs);
  ~UnbackedSizesScope();
  UnbackedSizesScope(const UnbackedSizesScope&) = delete;
  UnbackedSizesScope& operator=(const UnbackedSizesScope&) = delete;

 private:
  friend SymInt unbacked_size(const MetaArgs&, SizeFromData, std::string_view);
  const std::vector<SymInt>& sizes();
  std::span<const TensorMeta> outs_;
  std::vector<SymInt> sizes_;
  bool listed_ = false;
  size_t next_ = 0;
  UnbackedSizesScope* outer_;
};

/// While alive on this thread, metas run for a call computing on these real values (dispatch sets
/// it around run_meta when no operand is fake), so unbacked_size reads the data.
class RealArgsScope {
 public:
  explicit RealArgsScope(std::span<const IValue> args);
  ~RealArgsScope();
  RealArgsScope(const RealArgsScope&) = delete;
  RealArgsScope& operator=(const RealArgsScope&) = delete;

 private:
  friend SymInt unbacked_size(const MetaArgs&, SizeFromData, std::string_view);
  std::span<const IValue> args_;
  RealArgsScope* outer_;
};

}  // namespace fe
