#include "fakeexport/ops/autocast.h"

#include <string_view>
#include <unordered_set>

namespace fe {

bool autocast_lower_precision(const OpDef& op) {
  static const std::unordered_set<std::string_view> names = {
      "conv1d", "conv2d", "conv3d", "bmm", "mm", "linalg_vecdot", "baddbmm", "addmm", "addbmm", "linear",
      "_convolution", "matmul", "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "prelu",
      "scaled_dot_product_attention", "_native_multi_head_attention", "addmv", "addr", "chain_matmul",
      "multi_dot", "_scaled_dot_product_flash_attention", "_scaled_dot_product_efficient_attention"};
  return op.schema.ns == "aten" && names.count(op.schema.name);
}

}  // namespace fe
