// The batched matmuls ATen's einsum runs for given operands, from the one planner that gives its
// meta and its decomposition (linalg_einsum.cpp): what FlopCounterMode counts for an einsum.
#pragma once
#include <array>
#include <span>
#include <vector>

#include "fakeexport/ops/ivalue.h"

namespace fe::ops {

/// One bmm call's sizes: batch, rows, contracted, columns.
using BmmSizes = std::array<SymInt, 4>;

/// The bmm calls einsum(equation, tensors, path=path) makes, in order; `args` are the op's
/// (equation, tensor list, optional path). Throws the meta's errors for a call it would refuse.
std::vector<BmmSizes> einsum_bmms(std::span<const MetaValue> args);
/// The product of the sizes einsum sums over (letters, and an ellipsis, the output leaves out), on
/// the hints, as the planner parses the equation (implicit outputs and ellipses included).
int64_t einsum_contracted_size(std::span<const MetaValue> args);

}  // namespace fe::ops
