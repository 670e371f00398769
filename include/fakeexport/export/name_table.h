// NameTable: the graph's table of names (taken node names; numbering per base), flat and open-addressed.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace fe {

/// A map from name to an int64, its keys' text in one growing buffer and its slots in one flat
/// array (linear probing, stored hashes). Why not std::unordered_set<std::string>: a 405B export
/// takes ~10,000 names, and a node plus a heap string per name, with rehashes that re-hash every
/// string, were a tenth of the whole export. Erased keys leave their text until the next regrowth.
class NameTable {
 public:
  /// The value of `key`, or nullptr when absent. Valid until the next insertion.
  int64_t* find(std::string_view key) {
    const size_t i = locate(key, hash(key));
    return i == kNone ? nullptr : &slots_[i].value;
  }
  bool contains(std::string_view key) const { return locate(key, hash(key)) != kNone; }
  /// Adds `key` with `value` unless present: its value (new or old) and whether it was added.
  std::pair<int64_t*, bool> try_emplace(std::string_view key, int64_t value = 0);
  /// Adds `key` unless present; whether it was added.
  bool insert(std::string_view key) { return try_emplace(key).second; }
  void erase(std::string_view key);
  void clear();
  size_t size() const { return live_; }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX, kErased = UINT32_MAX - 1;
  struct Slot {
    uint64_t hash = 0;
    uint32_t off = kEmpty, len = 0;  ///< the key's text in text_
    int64_t value = 0;
  };
  static uint64_t hash(std::string_view s) {
    // 8 bytes at a time, each mixed by a multiply (names are ASCII identifiers, 5-60 bytes).
    uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
    const char* p = s.data();
    size_t n = s.size();
    for (; n >= 8; p += 8, n -= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
      h ^= h >> 31;
    }
    if (n) {
      uint64_t w = 0;
      std::memcpy(&w, p, n);
      h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
    }
    h ^= h >> 29;
    h *= 0x94D049BB133111EBull;
    return h ^ (h >> 32);
  }
  size_t mask() const { return slots_.size() - 1; }
  static constexpr size_t kNone = SIZE_MAX;
  /// The slot holding `key` (hash `h`), or kNone.
  size_t locate(std::string_view key, uint64_t h) const {
    if (slots_.empty()) return kNone;
    for (size_t i = h & mask();; i = (i + 1) & mask()) {
      const Slot& s = slots_[i];
      if (s.off == kEmpty) return kNone;
      if (s.hash == h && s.off != kErased && equal(s, key)) return i;
    }
  }
  bool equal(const Slot& s, std::string_view key) const {
    return s.len == key.size() && std::memcmp(text_.data() + s.off, key.data(), key.size()) == 0;
  }
  void regrow(size_t capacity);

  std::vector<Slot> slots_;  ///< a power of two in size, at most half used (erased slots count)
  std::vector<char> text_;
  size_t live_ = 0, used_ = 0;  ///< keys present; slots not empty (present or erased)
};

}  // namespace fe
