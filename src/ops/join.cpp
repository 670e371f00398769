// Joining and repeating: cat, stack, repeat, repeat_interleave, triu/tril.
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"

namespace fe {
namespace ops {
namespace {}  // namespace

void register_join_ops(Registry& r) { (void)r; }

}  // namespace ops
}  // namespace fe
