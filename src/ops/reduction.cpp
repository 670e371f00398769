// Reductions: sum, mean, amax, amin, max/min.dim, argmax, var/std, cumsum, any/all, topk, sort.
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"

namespace fe {
namespace ops {
namespace {}  // namespace

void register_reduction_ops(Registry& r) { (void)r; }

}  // namespace ops
}  // namespace fe
