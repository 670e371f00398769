// libFuzzer target: a config.json as `fakeexport export` takes it: parsed, checked against the
// limits, built under FakeTensorMode (no data) and exported at batch 1, seq 4. Layer counts are
// capped low so each input stays fast; any value a config may hold (zero heads, absurd widths,
// negative sizes, wrong types) must end in a fe::UserError, never a crash, a sanitizer report, an
// InternalError or a hang. Seeds (scripts/fuzz): configs/*.json and the zoo golden configs, layer
// counts cut to 2. Its first campaign found a whole-number float beyond int64 cast to int64 in
// Config::get_int (undefined behaviour), now a ValueError; docs/reliability.md has the numbers.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fakeexport/core/error.h"
#include "fakeexport/fakeexport.h"
#include "fakeexport/nn/zoo.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const fe::zoo::Config c = fe::zoo::Config::parse(text, "fuzz.json");
    fe::FakeTensorMode fake;
    std::unique_ptr<fe::zoo::Model> m = fe::zoo::build(c, {.max_layers = 8});
    fe::zoo::InputOptions io;
    io.batch = 1, io.seq = 4;
    fe::zoo::ExampleInputs in = m->example_inputs(io);
    (void)fe::export_program(*m, in.args, {.dynamic_shapes = in.dynamic_shapes});
  } catch (const fe::UserError&) {
  }
  return 0;
}
