// libFuzzer target: model.json text -> program_from_json_text -> check_program -> summary. Every
// schema path of the reader (arguments, subgraphs, specs, symbols) and the verifier over whatever
// the reader accepts. Only UserErrors are acceptable outcomes; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fakeexport/core/error.h"
#include "fakeexport/export/check.h"
#include "fakeexport/export/summary.h"
#include "fakeexport/serde/pt2_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    fe::ExportedProgram ep = fe::serde::program_from_json_text(
        std::string_view(reinterpret_cast<const char*>(data), size), {.source = "fuzz.json"});
    (void)fe::check_program(ep);
    (void)fe::program_summary_json(ep);
  } catch (const fe::UserError&) {
  }
  return 0;
}
