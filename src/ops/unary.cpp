// Unary math: exp, log, sqrt, rsqrt, sin, cos, tanh, sigmoid, erf, abs, neg, reciprocal (+ in-place).
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"

namespace fe {
namespace ops {
namespace {}  // namespace

void register_unary_ops(Registry& r) { (void)r; }

}  // namespace ops
}  // namespace fe
