// How PyTorch 2.14 numbers the symbols of dynamic input dims (ShapeEnv._generate_unique_id):
// sha256(source name) mod 100, then linear probing upward (no wrap: s100 exists). Source names
// are PyTorch's, e.g. "L['x'].size()[0]" (see docs/research/symbol-names.md).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>

namespace fe::sym {

/// SHA-256 digest of `data` (FIPS 180-4), big-endian bytes.
std::array<uint8_t, 32> sha256(std::string_view data);

/// int(hashlib.sha256(name).hexdigest(), 16) % 100: the preferred symbol number of a source.
int64_t source_hash_id(std::string_view source_name);

/// "L['x'].size()[0]": the source name of dim `dim` of the forward parameter `param` (non-strict export).
std::string size_source(std::string_view param, int64_t dim);

/// Hands out symbol numbers for one export: each source takes its hash id, or the next free one.
class SymbolIds {
 public:
  /// The number for `source_name` ("s" + it is the symbol's name).
  int64_t allocate(std::string_view source_name);

 private:
  std::unordered_set<int64_t> used_;
};

}  // namespace fe::sym
