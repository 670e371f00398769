// libFuzzer target: fe::SafetensorsFile on arbitrary bytes, loading every tensor it accepts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

#include "fakeexport/core/error.h"
#include "fakeexport/serde/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/fe_fuzz_st_" + std::to_string(::getpid()) + ".safetensors";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    fe::SafetensorsFile st(path);
    for (const auto& e : st.entries()) (void)st.load(e.name);
  } catch (const fe::UserError&) {
  }
  return 0;
}
