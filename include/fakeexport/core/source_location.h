// Call-site capture for stack traces: every public op takes `SrcLocArg loc = SrcLocArg::current()`.
#pragma once
#include <source_location>

namespace fe {
/// Where an op was called from; recorded on graph nodes, formatted only when printing.
using SrcLocArg = std::source_location;
}  // namespace fe
