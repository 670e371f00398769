#include "fakeexport/ops/unbacked.h"

#include "fakeexport/core/error.h"
#include "fakeexport/sym/shape_env.h"
#include "ops/meta_util.h"

namespace fe {
namespace {
thread_local UnbackedSizesScope* t_sizes = nullptr;
thread_local RealArgsScope* t_real = nullptr;
}  // namespace

UnbackedSizesScope::UnbackedSizesScope(std::vector<SymInt> sizes)
    : sizes_(std::move(sizes)), listed_(true), outer_(t_sizes) {
  t_sizes = this;
}
UnbackedSizesScope::UnbackedSizesScope(std::span<const TensorMeta> outs) : outs_(outs), outer_(t_sizes) {
  t_sizes = this;
}
UnbackedSizesScope::~UnbackedSizesScope() { t_sizes = outer_; }

const std::vector<SymInt>& UnbackedSizesScope::sizes() {
  if (listed_) return sizes_;
  listed_ = true;
  for (const TensorMeta& m : outs_)
    for (const SymInt& s : m.sizes) {
      if (!sym::is_unbacked_symbol(s)) continue;
      bool seen = false;
      for (const SymInt& f : sizes_) seen = seen || f.same_as(s);
      if (!seen) sizes_.push_back(s);
    }
  return sizes_;
}

RealArgsScope::RealArgsScope(std::span<const IValue> args) : args_(args), outer_(t_real) { t_real = this; }
RealArgsScope::~RealArgsScope() { t_real = outer_; }

SymInt unbacked_size(const MetaArgs& a, SizeFromData from_data, std::string_view what) {
  if (t_real) return SymInt(from_data(t_real->args_));
  if (t_sizes && t_sizes->next_ < t_sizes->sizes().size()) return t_sizes->sizes_[t_sizes->next_++];
  throw DataDependentError(detail::cat(ops::label(a), ": ", what));
}

}  // namespace fe
