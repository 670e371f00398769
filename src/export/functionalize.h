// Functionalization as PyTorch's retrace applies it (run_decompositions): every tensor the retrace
// computes is a FunctionalTensorWrapper-like handle on a shared "storage" (FunctionalStorageImpl).
// An in-place op runs its functional form and records an update on the storage; other handles on
// that storage (views, the base) see it lazily: the first time one is used after the update, the
// update is scattered into the base (select_scatter, slice_scatter, view, ... per view step) and
// the handle's views are replayed from the new base. The nodes this records, in this order, are
// PyTorch's, so names and placement in the printed program agree; dead replays are removed by DCE.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "fakeexport/core/tensor.h"
#include "fakeexport/ops/ivalue.h"
#include "fakeexport/ops/registry.h"

namespace fe::detail {

/// One view op between a storage's base and a handle (a ViewMeta): replayed forward on a new base,
/// inverted to scatter a mutated view back.
struct ViewStep {
  const OpDef* op = nullptr;
  std::vector<IValue> args;  ///< as called; args[0] (self) is replaced when replayed
  int out_index = -1;        ///< which output of a multi-output view (split, unbind); -1: single
};

struct FunctionalStorage;

/// A tensor of the retrace (FunctionalTensorWrapper): its current value, its storage and the
/// views from the storage's base to it. `generation` is the storage generation it last saw; a new
/// view starts at 0, so it is replayed at its first use once its storage was ever mutated.
struct FunctionalTensor {
  Tensor value;
  std::shared_ptr<FunctionalStorage> storage;
  std::vector<ViewStep> chain;
  uint64_t generation = 0;
};
using FRef = std::shared_ptr<FunctionalTensor>;

/// An in-place write waiting to reach the base: the new value of the handle with `chain`.
struct FunctionalUpdate {
  Tensor value;
  std::vector<ViewStep> chain;
};

/// The base all aliases share (FunctionalStorageImpl): generation counts committed updates.
struct FunctionalStorage {
  Tensor base;
  std::vector<FunctionalUpdate> pending;
  uint64_t generation = 0;
};

/// A tensor with storage of its own (an op's fresh output, an input).
FRef functional_fresh(const Tensor& t);
/// The handle for `out`, view number `out_index` (-1: the only one) of `base` made by `op(args)`.
FRef functional_view(const FRef& base, const OpDef& op, std::vector<IValue> args, int out_index, const Tensor& out);
/// The handle's value, brought up to date first (pending updates applied, views replayed): what
/// every op does to its tensor inputs before it runs.
const Tensor& functional_sync(FunctionalTensor& t);
/// `t.op_(...)` whose functional form computed `new_value`: replace, commit the update, sync.
void functional_mutate(FunctionalTensor& t, const Tensor& new_value);
/// Whether any in-place op ever wrote to `t`'s storage.
inline bool functional_was_mutated(const FunctionalTensor& t) { return t.storage->generation > 0; }

}  // namespace fe::detail
