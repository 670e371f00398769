// Call-site capture for stack traces: every public op takes `SrcLocArg loc = SrcLocArg::current()`.
#pragma once
#include <source_location>
#include <string>
#include <string_view>

namespace fe {
/// Where an op was called from; recorded on graph nodes, formatted only when printing.
using SrcLocArg = std::source_location;

/// The bare function name of a std::source_location::function_name() ("forward" from "virtual
/// fe::Tensor fe::nn::Linear::forward(const fe::Tensor&)"), as a Python frame names its function.
/// Never empty ("<unknown>" where the compiler gives none, as clang does inside some lambdas):
/// FX's stack-trace parser needs a name after "in ".
inline std::string short_function_name(std::string_view f) {
  size_t paren = f.find("operator()");
  paren = paren != std::string_view::npos ? paren + 8 : f.find('(');
  std::string_view head = f.substr(0, paren);
  const size_t cut = head.find_last_of(": ");
  std::string name(cut == std::string_view::npos ? head : head.substr(cut + 1));
  return name.empty() ? "<unknown>" : name;
}
}  // namespace fe
