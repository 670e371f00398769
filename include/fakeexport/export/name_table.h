// NameTable: a flat, open-addressed map from name to int64. Namespace: FX's _Namespace (the names a
// graph has taken and the numbering per base) on top of it.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fe {

/// A map from name to an int64: the keys' text in one growing buffer, one entry per key (text,
/// hash, value), and an index of 8-byte slots (a 32-bit hash tag and the entry's number), probed
/// linearly. Why not std::unordered_set<std::string>: a 405B export takes ~10,000 names, and a node
/// plus a heap string per name, with rehashes that re-hash every string, were a tenth of the whole
/// export; and why small slots: each new name costs one probe of the index, which misses cache, so
/// the denser the index the fewer misses. Erased keys leave their entry and text until the next regrowth.
class NameTable {
 public:
  /// The value of `key`, or nullptr when absent. Valid until the next insertion.
  int64_t* find(std::string_view key) {
    const size_t i = locate(key, hash(key));
    return i == kNone ? nullptr : &entries_[entry_of(slots_[i])].value;
  }
  const int64_t* find(std::string_view key) const {
    const size_t i = locate(key, hash(key));
    return i == kNone ? nullptr : &entries_[entry_of(slots_[i])].value;
  }
  bool contains(std::string_view key) const { return locate(key, hash(key)) != kNone; }
  bool empty() const { return live_ == 0; }
  /// Adds `key` with `value` unless present: its value (new or old) and whether it was added.
  std::pair<int64_t*, bool> try_emplace(std::string_view key, int64_t value = 0);
  /// Adds `key` unless present; whether it was added.
  bool insert(std::string_view key) { return try_emplace(key).second; }
  void erase(std::string_view key);
  void clear();
  size_t size() const { return live_; }

 private:
  struct Entry {
    uint64_t hash;
    uint32_t off, len;  ///< the key's text in text_; len kGone once erased
    int64_t value;
  };
  static constexpr uint32_t kGone = UINT32_MAX;
  static constexpr uint64_t kEmpty = 0, kErased = UINT64_MAX;  ///< slot values besides (tag << 32 | entry + 1)
  static constexpr size_t kNone = SIZE_MAX;
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
  static size_t entry_of(uint64_t slot) { return static_cast<size_t>((slot & 0xFFFFFFFFu) - 1); }
  static uint64_t slot_of(uint64_t h, size_t entry) { return (h & ~uint64_t{0xFFFFFFFFu}) | (entry + 1); }
  /// The slot holding `key` (hash `h`), or kNone. The slot index comes from the hash's low bits, the
  /// tag from its high bits, so a tag match is rarely a different key.
  size_t locate(std::string_view key, uint64_t h) const {
    if (slots_.empty()) return kNone;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const uint64_t s = slots_[i];
      if (s == kEmpty) return kNone;
      if (s != kErased && (s >> 32) == (h >> 32)) {
        const Entry& e = entries_[entry_of(s)];
        // (memcmp of nothing still needs valid pointers: the text of "" alone may be no buffer at all.)
        if (e.len == key.size() && (key.empty() || std::memcmp(text_.data() + e.off, key.data(), key.size()) == 0))
          return i;
      }
    }
  }
  void regrow(size_t capacity);

  std::vector<uint64_t> slots_;  ///< a power of two in size, at most 3/4 used (erased slots count)
  std::vector<Entry> entries_;
  std::vector<char> text_;
  size_t mask_ = 0;
  size_t live_ = 0, used_ = 0;  ///< keys present; slots not empty (present or erased)
};

/// FX's _Namespace.create_name, and the names a graph holds. A name is kept by its base and number
/// (FX's `(.*)_(\d+)$` split): "linear_57" is bit 57 of base "linear", "linear" the base's bare
/// flag. Why not one table of name texts: a 405B export takes ~10,000 names, nearly all a base's
/// next number, and a hashed insert of each spelling (a probe that misses cache, the text stored,
/// regrowth copying all) was 6% of its wall time; a base's bits stay in cache. A number beyond what
/// its base's bits may cover (see take_number) is kept as text, so a hostile name ("x_99999999")
/// costs one entry, not megabytes of bits.
class Namespace {
 public:
  /// FX's create_name: `candidate` made an identifier, then its first free spelling (`linear`,
  /// `linear_1`, ...; never a Python keyword or builtin), which is taken.
  std::string create_name(std::string_view candidate);
  bool taken(std::string_view name) const;
  /// Takes `name` as it is (the caller has checked it is free).
  void take(std::string_view name);
  /// Frees `name`: its spelling may be given again; its base's numbering goes on.
  void release(std::string_view name);
  void clear();

 private:
  struct Base {
    int64_t count = 0;        ///< FX's _base_count: the last number given (or asked for)
    uint32_t held = 0;        ///< numbers held in `bits`
    bool bare_held = false;   ///< the bare spelling is taken
    bool keyword = false;     ///< the bare spelling is a Python keyword or builtin: never given
    std::vector<uint64_t> bits;  ///< bit k: base_k is taken
  };
  Base& base(std::string_view text);
  const Base* find_base(std::string_view text) const;
  bool number_taken(const Base& b, std::string_view base, int64_t k) const;
  void take_number(Base& b, std::string_view base, int64_t k);

  NameTable index_;          ///< base text -> position in bases_
  std::vector<Base> bases_;
  NameTable sparse_;         ///< numbered names whose bit was not allowed (take_number)
};

}  // namespace fe
