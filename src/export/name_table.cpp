// NameTable's growth and erasure (lookups are inline in the header).
#include "fakeexport/export/name_table.h"

#include "fakeexport/core/error.h"

namespace fe {

std::pair<int64_t*, bool> NameTable::try_emplace(std::string_view key, int64_t value) {
  const uint64_t h = hash(key);
  if (const size_t i = locate(key, h); i != kNone) return {&entries_[entry_of(slots_[i])].value, false};
  if ((used_ + 1) * 4 > slots_.size() * 3) {
    // At three quarters full: twice the slots when the keys alone fill more than 3/8, else the
    // same number without the erased. Linear probing over 8-byte slots stays within a cache line
    // or two at that load; a 405B program's ~10,000 names fit 16,384 slots (128 KiB).
    size_t cap = slots_.empty() ? 1024 : slots_.size();
    while ((live_ + 1) * 8 > cap * 3) cap *= 2;
    regrow(cap);
  }
  FE_CHECK(text_.size() + key.size() < kGone && entries_.size() + 1 < kGone, ValueError,
           "name table: more than 4 GiB of names or 4 billion names (adding '", key.substr(0, 64), "')");
  size_t i = h & mask_;
  while (slots_[i] != kEmpty && slots_[i] != kErased) i = (i + 1) & mask_;
  if (slots_[i] == kEmpty) ++used_;
  ++live_;
  slots_[i] = slot_of(h, entries_.size());
  entries_.push_back({h, static_cast<uint32_t>(text_.size()), static_cast<uint32_t>(key.size()), value});
  text_.insert(text_.end(), key.begin(), key.end());
  return {&entries_.back().value, true};
}

void NameTable::erase(std::string_view key) {
  const size_t i = locate(key, hash(key));
  if (i == kNone) return;
  entries_[entry_of(slots_[i])].len = kGone;
  slots_[i] = kErased;  // probes go on past it; the slot is reused by a later insertion
  --live_;
}

void NameTable::clear() {
  slots_.clear();
  entries_.clear();
  text_.clear();
  mask_ = 0;
  live_ = used_ = 0;
}

void NameTable::regrow(size_t capacity) {
  // The present keys move to fresh slots, entries and text (erased keys are dropped), in the order
  // they were added; their stored hashes place them without hashing the text again.
  std::vector<Entry> old = std::move(entries_);
  std::vector<char> old_text = std::move(text_);
  slots_.assign(capacity, kEmpty);
  mask_ = capacity - 1;
  entries_.clear();
  entries_.reserve(capacity * 3 / 4);
  text_.clear();
  text_.reserve(old_text.size() + old_text.size() / 2);
  for (const Entry& e : old) {
    if (e.len == kGone) continue;
    size_t i = e.hash & mask_;
    while (slots_[i] != kEmpty) i = (i + 1) & mask_;
    slots_[i] = slot_of(e.hash, entries_.size());
    entries_.push_back({e.hash, static_cast<uint32_t>(text_.size()), e.len, e.value});
    text_.insert(text_.end(), old_text.begin() + e.off, old_text.begin() + e.off + e.len);
  }
  used_ = live_;
}

}  // namespace fe
