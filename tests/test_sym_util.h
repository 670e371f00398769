// Helpers for tests of meta functions on symbolic sizes: fixed-name symbols and fake tensors with
// symbolic sizes, plus text forms of sizes/strides that match tools/oracle/sym_probe.py's output.
#pragma once
#include <string>
#include <vector>

#include "fakeexport/core/scopes.h"
#include "fakeexport/core/tensor.h"
#include "fakeexport/sym/shape_env.h"

namespace fe_test {

/// A contiguous fake tensor with the given (possibly symbolic) sizes.
inline fe::Tensor sym_tensor(std::vector<fe::SymInt> sizes, fe::DType dtype = fe::DType::Float32) {
  auto impl = std::make_shared<fe::TensorImpl>();
  impl->meta.sizes = fe::DimVector(fe::IntSpan(sizes));
  impl->meta.strides = fe::contiguous_strides(impl->meta.sizes);
  impl->meta.dtype = dtype;
  impl->fake = true;
  return fe::Tensor(std::move(impl));
}

/// "[s0, 8]": sizes or strides as sym_probe prints them.
inline std::string sym_str(fe::IntSpan s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + s[i].str();
  return out + "]";
}

/// "s2 -> s1; s3 -> 5": the env's replacements, in name order.
inline std::string replacements_str(const fe::sym::ShapeEnv& env) {
  std::string out;
  for (const auto& [k, v] : env.replacements()) out += (out.empty() ? "" : "; ") + k + " -> " + v.str();
  return out;
}

}  // namespace fe_test
