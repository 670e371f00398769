// Convolution and pooling: convolution, conv1d/conv2d, max_pool2d, avg_pool2d, adaptive_avg_pool2d.
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"

namespace fe {
namespace ops {
namespace {}  // namespace

void register_conv_ops(Registry& r) { (void)r; }

}  // namespace ops
}  // namespace fe
