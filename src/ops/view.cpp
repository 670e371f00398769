// View and shape ops: view, reshape, permute, transpose, expand, squeeze/unsqueeze, slice, select, split, ...
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"

namespace fe {
namespace ops {
namespace {}  // namespace

void register_view_ops(Registry& r) { (void)r; }

}  // namespace ops
}  // namespace fe
