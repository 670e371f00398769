// libFuzzer target: the restricted unpickler alone, behind the zip container that stops most byte
// mutations of a whole torch.save archive (its CRC and headers). The input is data.pkl; every storage
// record it names ("archive/data/<key>") exists and holds 4 KiB of zeros, so tensor-rebuild paths
// (sizes, strides, offsets against the storage) are reached. Only UserErrors may escape.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "fakeexport/core/error.h"
#include "fakeexport/serde/torch_save.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::array<std::byte, 4096> kStorage{};
  const std::span<const std::byte> pkl(reinterpret_cast<const std::byte*>(data), size);
  try {
    (void)fe::serde::read_torch_save_records(
        [&](std::string_view name) -> std::optional<std::span<const std::byte>> {
          if (name == "archive/data.pkl") return pkl;
          if (name.starts_with("archive/data/")) return std::span<const std::byte>(kStorage);
          if (name == "archive/byteorder") return std::as_bytes(std::span(std::string_view("little")));
          return std::nullopt;
        },
        "archive", "fuzz.pt");
  } catch (const fe::UserError&) {
  }
  return 0;
}
