// Indexing: index.Tensor, index_select, gather, scatter, index_put_, index_copy_, one_hot, embedding.
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "ops/cpu_util.h"
#include "ops/families.h"
#include "ops/meta_util.h"

namespace fe {
namespace ops {
namespace {}  // namespace

void register_indexing_ops(Registry& r) { (void)r; }

}  // namespace ops
}  // namespace fe
