// Little-endian field access and zip record constants shared by the zip reader and writer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace fe::serde::zipfmt {

inline constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kDescriptorSig = 0x08074b50;
inline constexpr uint32_t kEocdSig = 0x06054b50, kZip64EocdSig = 0x06064b50, kZip64LocatorSig = 0x07064b50;
inline constexpr size_t kLocalSize = 30, kCentralSize = 46, kEocdSize = 22, kZip64EocdSize = 56, kZip64LocatorSize = 20;
inline constexpr uint16_t kZip64ExtraId = 0x0001;
inline constexpr uint16_t kFlagEncrypted = 0x0001, kFlagDescriptor = 0x0008, kFlagStrongEncryption = 0x0040,
                          kFlagUtf8 = 0x0800, kFlagMaskedHeaders = 0x2000;

inline uint16_t rd16(const std::byte* p) {
  return static_cast<uint16_t>(std::to_integer<unsigned>(p[0]) | std::to_integer<unsigned>(p[1]) << 8);
}
inline uint32_t rd32(const std::byte* p) { return rd16(p) | static_cast<uint32_t>(rd16(p + 2)) << 16; }
inline uint64_t rd64(const std::byte* p) { return rd32(p) | static_cast<uint64_t>(rd32(p + 4)) << 32; }

inline void put16(std::string& s, uint16_t v) {
  s.push_back(static_cast<char>(v & 0xff));
  s.push_back(static_cast<char>(v >> 8));
}
inline void put32(std::string& s, uint32_t v) {
  put16(s, static_cast<uint16_t>(v));
  put16(s, static_cast<uint16_t>(v >> 16));
}
inline void put64(std::string& s, uint64_t v) {
  put32(s, static_cast<uint32_t>(v));
  put32(s, static_cast<uint32_t>(v >> 32));
}

/// A name for messages: quoted, with control and non-ASCII bytes escaped.
inline std::string quote(std::string_view s) {
  std::string out = "'";
  for (unsigned char c : s) {
    if (c == '\'' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "'";
}

}  // namespace fe::serde::zipfmt
