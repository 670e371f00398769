// Attention: scaled_dot_product_attention (causal, masks, GQA).
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"

namespace fe {
namespace ops {
namespace {}  // namespace

void register_attention_ops(Registry& r) { (void)r; }

}  // namespace ops
}  // namespace fe
