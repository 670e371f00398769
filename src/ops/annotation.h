// torch._disable_dynamo's export annotation. While a dynamo-disabled Python function runs under
// torch.export (torch._dynamo.eval_frame's DisableContext), fx_traceback.annotate stamps every node
// recorded meanwhile with meta["custom"] = {"_torchdynamo_disable": True,
// "_torchdynamo_disable_recursive": True, "_torchdynamo_disable_method": <the function's name>},
// which the printed program shows as an "# Annotation:" comment. PyTorch's Python references
// wrapped by elementwise_type_promotion_wrapper are such functions, so a decomposition that is one
// opens a DisableDynamoScope; the nodes its nested decompositions record are stamped too (dot's
// `sum()`, sum.default lowered again to sum.dim_IntList, carries 'dot').
#pragma once
#include <string>
#include <string_view>

namespace fe {

/// Stamps the nodes recorded while it lives (a retrace's) with the annotation of `method`.
class DisableDynamoScope {
 public:
  explicit DisableDynamoScope(std::string_view method);
  ~DisableDynamoScope();
  DisableDynamoScope(const DisableDynamoScope&) = delete;
  DisableDynamoScope& operator=(const DisableDynamoScope&) = delete;

 private:
  std::string json_;
  const std::string* prev_;
};

/// The meta["custom"] JSON the current scope stamps, or null.
const std::string* disable_dynamo_annotation();

}  // namespace fe
