// NameTable's growth and erasure (lookups are inline in the header); Namespace, FX's naming.
#include "fakeexport/export/name_table.h"

#include <algorithm>
#include <charconv>
#include <unordered_set>

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

namespace {

// Names FX refuses for values: Python keywords, builtins, and FX codegen's own globals.
const std::unordered_set<std::string_view>& illegal_names() {
  static const std::unordered_set<std::string_view> s = {
      // keywords
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
      "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
      "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
      // builtins
      "abs", "aiter", "all", "anext", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes",
      "callable", "chr", "classmethod", "compile", "complex", "copyright", "credits", "delattr", "dict", "dir",
      "divmod", "enumerate", "eval", "exec", "exit", "filter", "float", "format", "frozenset", "getattr",
      "globals", "hasattr", "hash", "help", "hex", "id", "input", "int", "isinstance", "issubclass", "iter",
      "len", "license", "list", "locals", "map", "max", "memoryview", "min", "next", "object", "oct", "open",
      "ord", "pow", "print", "property", "quit", "range", "repr", "reversed", "round", "set", "setattr",
      "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "vars", "zip", "Ellipsis",
      "NotImplemented", "__import__", "__build_class__", "__debug__", "__doc__", "__name__", "__loader__",
      "__package__", "__spec__",
      // FX codegen globals
      "inf", "nan", "NoneType", "torch", "device", "fx_pytree", "pytree",
  };
  return s;
}

bool identifier_char(char ch) {  // isalnum's C locale or '_', without a call per character
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
}
bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/// The start of `s`'s trailing `_<digits>` with 1 to 17 digits (the split FX's regex makes, up to
/// numbers an int64 holds), or npos.
size_t number_suffix(std::string_view s) {
  const size_t us = s.rfind('_');
  if (us == std::string_view::npos || us + 1 == s.size() || s.size() - us > 18) return std::string_view::npos;
  for (size_t i = us + 1; i < s.size(); ++i)
    if (!is_digit(s[i])) return std::string_view::npos;
  return us;
}

/// How a held name is kept: base and number when its digits are as we would spell the number
/// ("x_7", "x_0"), else the whole name as a bare base ("x_007", "conv1", "x").
struct Held {
  std::string_view base;
  int64_t num = 0;
  bool numbered = false;
};
Held held_form(std::string_view name) {
  const size_t us = number_suffix(name);
  if (us == std::string_view::npos || (name[us + 1] == '0' && us + 2 < name.size())) return {name, 0, false};
  Held h{name.substr(0, us), 0, true};
  std::from_chars(name.data() + us + 1, name.data() + name.size(), h.num);
  return h;
}

/// `base`_`k` into `out`.
void spell(std::string& out, std::string_view base, int64_t k) {
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof digits, k);
  out.assign(base).append(1, '_').append(digits, r.ptr);
}

}  // namespace

Namespace::Base& Namespace::base(std::string_view text) {
  auto [at, added] = index_.try_emplace(text, static_cast<int64_t>(bases_.size()));
  if (!added) return bases_[static_cast<size_t>(*at)];
  Base& b = bases_.emplace_back();
  b.keyword = illegal_names().count(text) > 0;
  return b;
}

const Namespace::Base* Namespace::find_base(std::string_view text) const {
  const int64_t* at = index_.find(text);
  return at ? &bases_[static_cast<size_t>(*at)] : nullptr;
}

bool Namespace::number_taken(const Base& b, std::string_view base, int64_t k) const {
  const auto word = static_cast<uint64_t>(k) / 64;
  if (word < b.bits.size() && (b.bits[word] >> (k % 64) & 1u)) return true;
  if (sparse_.empty()) return false;
  std::string name;
  spell(name, base, k);
  return sparse_.contains(name);
}

void Namespace::take_number(Base& b, std::string_view base, int64_t k) {
  // Bits up to 4,096 numbers past twice those held: a counting base (linear_1 .. linear_900)
  // always fits, and a base holding few numbers never costs more than 512 bytes of bits.
  if (static_cast<uint64_t>(k) < 4096 + uint64_t{128} * b.held) {
    const auto word = static_cast<size_t>(k / 64);
    if (word >= b.bits.size()) b.bits.resize(std::max(word + 1, b.bits.size() * 2), 0);
    b.bits[word] |= uint64_t{1} << (k % 64);
    ++b.held;
    return;
  }
  std::string name;
  spell(name, base, k);
  sparse_.insert(name);
}

bool Namespace::taken(std::string_view name) const {
  const Held h = held_form(name);
  const Base* b = find_base(h.base);
  if (!h.numbered) return b && b->bare_held;
  return b && number_taken(*b, h.base, h.num);  // a number kept as text has its base too
}

void Namespace::take(std::string_view name) {
  const Held h = held_form(name);
  Base& b = base(h.base);
  if (h.numbered) take_number(b, h.base, h.num);
  else b.bare_held = true;
}

void Namespace::release(std::string_view name) {
  const Held h = held_form(name);
  const int64_t* at = index_.find(h.base);
  if (!at) return;
  Base& b = bases_[static_cast<size_t>(*at)];
  if (!h.numbered) {
    b.bare_held = false;
    return;
  }
  const auto word = static_cast<uint64_t>(h.num) / 64;
  if (word < b.bits.size() && (b.bits[word] >> (h.num % 64) & 1u)) {
    b.bits[word] &= ~(uint64_t{1} << (h.num % 64));
    --b.held;
  } else {
    sparse_.erase(name);
  }
}

void Namespace::clear() {
  index_.clear();
  bases_.clear();
  sparse_.clear();
}

std::string Namespace::create_name(std::string_view cand) {
  // Each run of characters illegal in identifiers becomes one '_' (FX's regex substitution); a
  // name that is already an identifier (every name of a loaded program) is used as is.
  std::string sanitized;
  std::string_view c = cand;
  if (cand.empty() || !std::all_of(cand.begin(), cand.end(), identifier_char) || is_digit(cand[0])) {
    bool in_illegal_run = false;
    for (char ch : cand) {
      if (identifier_char(ch)) {
        sanitized += ch;
        in_illegal_run = false;
      } else if (!in_illegal_run) {
        sanitized += '_';
        in_illegal_run = true;
      }
    }
    if (sanitized.empty()) sanitized = "_unnamed";
    if (is_digit(sanitized[0])) sanitized.insert(0, 1, '_');
    c = sanitized;
  }
  // FX splits a trailing _<digits> into base and number ("mul_5": "mul", 5) and asks for the number
  // as it spells it ("x_007" is asked for as "x_7"); a bare candidate asks for the bare base.
  std::string_view base_text = c;
  int64_t asked = 0;
  bool bare = true;
  if (const size_t us = number_suffix(c); us != std::string_view::npos) {
    base_text = c.substr(0, us);
    std::from_chars(c.data() + us + 1, c.data() + c.size(), asked);
    bare = false;
  }
  Base& b = base(base_text);
  // FX: `if not num: num = base_count[base]`, then num + 1, num + 2, ... until a spelling is free.
  int64_t k = asked, next = asked ? asked : b.count;
  std::string name;
  for (;;) {
    if (bare) {
      if (!b.bare_held && !b.keyword) {
        b.bare_held = true;
        name.assign(base_text);
        break;
      }
    } else if (!number_taken(b, base_text, k)) {
      take_number(b, base_text, k);
      spell(name, base_text, k);
      break;
    }
    bare = false;
    k = ++next;
  }
  b.count = next;
  return name;
}

}  // namespace fe
