// Each op family file declares its ops in one register function; registry() calls them all.
#pragma once
#include "fakeexport/ops/registry.h"

namespace fe::ops {
void register_factory_ops(Registry& r);
void register_linalg_ops(Registry& r);
void register_elementwise_ops(Registry& r);
void register_conversion_ops(Registry& r);
}  // namespace fe::ops
