// Custom operators, as torch.library.custom_op + register_fake define them in Python: an op is
// declared once by its schema string under its own namespace, with a meta function (the fake
// implementation: output metadata from input metadata, symbolic sizes included) and optionally a
// CPU kernel. It then traces, prints (`torch.ops.mylib.op.default`), saves, loads and runs like
// any built-in op. A shared library defines its ops from static initializers and is loaded with
// fe::library::load (`--load-library LIB.so` on every command), as torch.ops.load_library does.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "fakeexport/core/source_location.h"
#include "fakeexport/core/tensor.h"
#include "fakeexport/ops/ivalue.h"
#include "fakeexport/ops/registry.h"

namespace fe::library {

/// Defines `ns::name[.overload](args) -> returns`. ValueError when the schema does not parse, the
/// namespace is PyTorch's own (aten, prims, higher_order) or the op already exists.
const OpDef& define(std::string_view schema, MetaFn meta, KernelFn cpu = nullptr);

/// Calls `op` (recorded as a node while exporting): arguments in schema order, trailing defaults
/// may be omitted; returns its tensor outputs.
std::vector<Tensor> call(const OpDef& op, std::vector<IValue> args, SrcLocArg loc = SrcLocArg::current());

/// What register_fake's `torch.empty_like(x)` gives: x's strides when dense, else dense strides in
/// x's stride order; offset 0, no grad.
TensorMeta empty_like(const TensorMeta& x);

/// dlopen()s a shared library whose static initializers define ops. FileIOError naming the path
/// and dlerror() when it cannot be loaded.
void load(const std::string& path);

}  // namespace fe::library
