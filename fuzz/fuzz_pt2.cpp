// libFuzzer target: fe::serde::load on arbitrary bytes (zip container, model.json, weights configs).
// Only UserErrors (FormatError, FileIOError, ...) are acceptable outcomes; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

#include "fakeexport/core/error.h"
#include "fakeexport/export/summary.h"
#include "fakeexport/serde/pt2.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/fe_fuzz_pt2_" + std::to_string(::getpid()) + ".pt2";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    fe::serde::LoadedProgram lp = fe::serde::load(path, {.materialize_weights = true});
    (void)fe::program_summary_json(lp.ep);
  } catch (const fe::UserError&) {
  }
  return 0;
}
