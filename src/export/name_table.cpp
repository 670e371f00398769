// NameTable's growth and erasure (lookups are inline in the header).
#include "fakeexport/export/name_table.h"

#include "fakeexport/core/error.h"

namespace fe {

std::pair<int64_t*, bool> NameTable::try_emplace(std::string_view key, int64_t value) {
  const uint64_t h = hash(key);
  if (const size_t i = locate(key, h); i != kNone) return {&slots_[i].value, false};
  if ((used_ + 1) * 2 > slots_.size()) {
    // Twice as many slots when the keys fill a quarter; else the same number, without the erased.
    size_t cap = slots_.empty() ? 64 : slots_.size();
    while ((live_ + 1) * 4 > cap) cap *= 2;
    regrow(cap);
  }
  FE_CHECK(text_.size() + key.size() < kErased, ValueError, "name table: more than 4 GiB of names (adding '",
           key.substr(0, 64), "')");
  size_t i = h & mask();
  while (slots_[i].off != kEmpty && slots_[i].off != kErased) i = (i + 1) & mask();
  if (slots_[i].off == kEmpty) ++used_;
  ++live_;
  slots_[i] = {h, static_cast<uint32_t>(text_.size()), static_cast<uint32_t>(key.size()), value};
  text_.insert(text_.end(), key.begin(), key.end());
  return {&slots_[i].value, true};
}

void NameTable::erase(std::string_view key) {
  const size_t i = locate(key, hash(key));
  if (i == kNone) return;
  slots_[i].off = kErased;  // probes go on past it; the slot is reused by a later insertion
  --live_;
}

void NameTable::clear() {
  slots_.clear();
  text_.clear();
  live_ = used_ = 0;
}

void NameTable::regrow(size_t capacity) {
  // The present keys move to fresh slots and a fresh buffer (erased keys' text is dropped).
  std::vector<Slot> old = std::move(slots_);
  std::vector<char> old_text = std::move(text_);
  slots_.assign(capacity, Slot{});
  text_.clear();
  text_.reserve(old_text.size());
  for (const Slot& s : old) {
    if (s.off == kEmpty || s.off == kErased) continue;
    size_t i = s.hash & mask();
    while (slots_[i].off != kEmpty) i = (i + 1) & mask();
    slots_[i] = {s.hash, static_cast<uint32_t>(text_.size()), s.len, s.value};
    text_.insert(text_.end(), old_text.begin() + s.off, old_text.begin() + s.off + s.len);
  }
  used_ = live_;
}

}  // namespace fe
