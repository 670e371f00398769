// Normalization: layer_norm, native_layer_norm, rms_norm, group_norm, batch_norm (eval).
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"

namespace fe {
namespace ops {
namespace {}  // namespace

void register_norm_ops(Registry& r) { (void)r; }

}  // namespace ops
}  // namespace fe
