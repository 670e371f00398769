// CRC-32 (slice-by-8 tables built at compile time) and archive name rules shared by reader and writer.
#include <array>

#include "fakeexport/serde/zip.h"
#include "zip_internal.h"

namespace fe::serde {

namespace {

// Table t[k][b]: the CRC of byte b followed by k zero bytes (reflected polynomial 0xEDB88320).
constexpr std::array<std::array<uint32_t, 256>, 8> make_tables() {
  std::array<std::array<uint32_t, 256>, 8> t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int i = 0; i < 8; ++i) c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
    t[0][b] = c;
  }
  for (size_t k = 1; k < 8; ++k)
    for (uint32_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
  return t;
}
constexpr auto kTables = make_tables();

}  // namespace

uint32_t crc32_update(uint32_t crc, std::span<const std::byte> data) {
  uint32_t c = ~crc;
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  size_t n = data.size();
  const auto& t = kTables;
  while (n >= 8) {
    uint32_t lo = c ^ (p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24);
    uint32_t hi = p[4] | p[5] << 8 | p[6] << 16 | static_cast<uint32_t>(p[7]) << 24;
    c = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^ t[3][hi & 0xff] ^
        t[2][(hi >> 8) & 0xff] ^ t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n--) c = (c >> 8) ^ t[0][(c ^ *p++) & 0xff];
  return ~c;
}

std::string zip_name_problem(std::string_view name) {
  if (name.empty()) return "the name is empty";
  if (name.front() == '/') return "the name is an absolute path";
  for (char c : name) {
    if (c == '\0') return "the name contains a NUL byte";
    if (c == '\\') return "the name contains a backslash";
  }
  size_t start = 0;
  while (true) {
    size_t end = name.find('/', start);
    std::string_view comp = name.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (comp.empty()) return end == std::string_view::npos ? "the name ends with '/' (a directory entry)"
                                                           : "the name has an empty path component ('//')";
    if (comp == "..") return "the name has a '..' component";
    if (comp == ".") return "the name has a '.' component";
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return "";
}

std::string pytorch_archive_name(std::string_view path) {
  // As PyTorchStreamWriter's basename(): after the last '/' or '\\', up to the last '.'.
  size_t start = 0;
  for (size_t i = 0; i < path.size(); ++i)
    if (path[i] == '/' || path[i] == '\\') start = i + 1;
  if (start >= path.size()) return "";
  size_t end = path.size();
  for (size_t i = end; i > start; --i)
    if (path[i - 1] == '.') {
      end = i - 1;
      break;
    }
  return std::string(path.substr(start, end - start));
}

}  // namespace fe::serde
