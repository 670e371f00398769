// libFuzzer target: the restricted torch.save reader behind `run`'s default inputs
// (data/sample_inputs/model.pt: a zip holding a pickle of tuples, lists, dicts, scalars and
// tensors). It interprets pickle opcodes without executing anything; only UserErrors may escape.
#include <cstddef>
#include <cstdint>
#include <span>

#include "fakeexport/core/error.h"
#include "fakeexport/serde/torch_save.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)fe::serde::read_torch_save(std::span(reinterpret_cast<const std::byte*>(data), size), "fuzz.pt");
  } catch (const fe::UserError&) {
  }
  return 0;
}
