// Umbrella header: everything a user of the library needs.
#pragma once
#include "fakeexport/core/error.h"
#include "fakeexport/core/scopes.h"
#include "fakeexport/core/tensor.h"
#include "fakeexport/export/exported_program.h"
#include "fakeexport/export/passes.h"
#include "fakeexport/nn/layers.h"
#include "fakeexport/nn/module.h"
#include "fakeexport/ops/api.h"
#include "fakeexport/ops/dispatch.h"
#include "fakeexport/ops/registry.h"
#include "fakeexport/serde/safetensors.h"
#include "fakeexport/sym/dims.h"
