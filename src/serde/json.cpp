// The JSON reader of fakeexport/serde/json.h: an iterative one-pass parser over an explicit frame
// stack (so hostile nesting can only hit kMaxDepth, never the C++ stack). Children of an open
// container wait on a reusable stack and are copied into the arena, contiguous, when it closes:
// each value is copied once, and no container needs a per-value allocation.
#include "fakeexport/serde/json.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <limits>
#include <numeric>
#include <utility>

#include <sys/mman.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "fakeexport/core/error.h"
#include "fakeexport/serde/safetensors.h"  // fe::FormatError

namespace fe::serde::json {
namespace {

// Byte classes, so that each hot loop does one table lookup per byte.
enum : uint8_t { kWs = 1, kPlain = 2, kDigit = 4 };
constexpr std::array<uint8_t, 256> make_classes() {
  std::array<uint8_t, 256> t{};
  for (int c = 0x20; c < 0x80; ++c) t[c] = kPlain;  // printable ASCII needs no attention in a string
  t['"'] = t['\\'] = 0;
  t[' '] = t['\n'] = t['\r'] = t['\t'] = kWs;
  t[' '] |= kPlain;
  for (int c = '0'; c <= '9'; ++c) t[c] |= kDigit;
  return t;
}
constexpr std::array<uint8_t, 256> kClass = make_classes();
inline bool has(char c, uint8_t cls) { return kClass[static_cast<uint8_t>(c)] & cls; }

// Nonzero iff one of the 8 bytes (little-endian word) needs attention inside a string: '"', '\\',
// a control character or a non-ASCII byte. Only the lowest flagged byte is exact (borrows can
// flag bytes above it), which is all the scanner uses.
inline uint64_t special_bytes(uint64_t x) {
  constexpr uint64_t k01 = 0x0101010101010101ull, k80 = 0x8080808080808080ull;
  const auto zero_byte = [](uint64_t v) { return (v - k01) & ~v & k80; };
  return zero_byte(x ^ (k01 * '"')) | zero_byte(x ^ (k01 * '\\')) | ((x - k01 * 0x20) & ~x & k80) | (x & k80);
}

// Total order used by the member index: by length first (cheap and usually decisive), then bytes.
inline int key_cmp(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return a.empty() ? 0 : std::memcmp(a.data(), b.data(), a.size());
}

std::string hex_byte(unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  return {'0', 'x', kHex[c >> 4], kHex[c & 15]};
}

// How an error message shows the byte it stopped at.
std::string describe(const char* at, const char* end) {
  if (at >= end) return "end of input";
  const auto c = static_cast<unsigned char>(*at);
  if (c > 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
  return "byte " + hex_byte(c);
}

// UTF-8 encoding of a code point; surrogates get the same 3-byte form (WTF-8).
void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
    return;
  }
  const int n = cp < 0x800 ? 1 : cp < 0x10000 ? 2 : 3;  // continuation bytes
  out += static_cast<char>(((0xFF << (7 - n)) & 0xFF) | cp >> (6 * n));
  for (int i = n - 1; i >= 0; --i) out += static_cast<char>(0x80 | (cp >> (6 * i) & 0x3F));
}

const Value kNull{};

}  // namespace

namespace detail {

class Parser {
 public:
  Parser(Document& doc, std::string_view source)
      : doc_(doc), source_(source), begin_(doc.text_.data()), p_(begin_), end_(begin_ + doc.text_.size()) {
    // A first chunk in proportion to the text (indented model.json needs ~1.2 arena bytes per text
    // byte, compact JSON more); chunks are malloc'd uninitialized, so unused capacity costs no pages.
    chunk_size_ = std::clamp<size_t>(doc.text_.size() * 2, size_t{4} << 10, kMaxChunk);
  }

  void run() {
    if (doc_.text_.size() > std::numeric_limits<uint32_t>::max())
      throw FormatError(
          fe::detail::cat(source_, ": JSON text of ", doc_.text_.size(), " bytes is over the 4 GiB limit"));
    skip_ws();
    Value v;
    for (;;) {
      if (!parse_value(v)) continue;  // opened a container: its first child comes next
      // v is complete: hand it to its container, then consume ',' or closers until a value is due.
      for (;;) {
        if (frames_.empty()) return finish(v);
        const bool in_object = frames_.back().is_object;
        if (in_object) {
          members_.back().value = v;
        } else {
          values_.push_back(v);
        }
        skip_ws();
        if (p_ < end_ && *p_ == ',') {
          ++p_;
          skip_ws();
          if (in_object) parse_key(false);
          break;
        }
        if (p_ < end_ && *p_ == (in_object ? '}' : ']')) {
          ++p_;
          v = close();
          continue;
        }
        expected(p_, in_object ? "expected ',' or '}' after an object member"
                               : "expected ',' or ']' after an array element");
      }
    }
  }

 private:
  struct Frame {
    const char* begin;  // the '[' or '{'
    size_t base;        // where its children start on values_ / members_
    bool is_object;
  };
  static constexpr size_t kMaxChunk = size_t{8} << 20;
  static constexpr size_t kHugeChunk = size_t{2} << 20;  // chunks this big are mapped, huge-page advised

  static Value make(Kind k, const char* raw, size_t raw_len, size_t count = 0) {
    Value v;
    v.raw_ = raw;
    v.raw_len_ = static_cast<uint32_t>(raw_len);
    v.tag_ = static_cast<uint32_t>(k) | static_cast<uint32_t>(count) << 3;
    return v;
  }

  void skip_ws() {
    while (p_ < end_ && has(*p_, kWs)) ++p_;
  }

  // Parses the value at p_ into v and returns true, or opens a container and returns false
  // (p_ then sits at its first child).
  bool parse_value(Value& v) {
    if (p_ == end_) expected(p_, "expected a value");
    const char* s = p_;
    switch (*p_) {
      case '{':
      case '[': {
        if (frames_.size() >= kMaxDepth) fail(p_, fe::detail::cat("nesting deeper than ", kMaxDepth, " levels"));
        const bool obj = *p_ == '{';
        frames_.push_back({s, obj ? members_.size() : values_.size(), obj});
        ++p_;
        skip_ws();
        if (p_ < end_ && *p_ == (obj ? '}' : ']')) {
          ++p_;
          v = close();
          return true;
        }
        if (obj) parse_key(true);
        return false;
      }
      case '"': {
        const auto [str, n] = parse_string();
        v = make(Kind::String, s, p_ - s, n);
        v.p_.str = str;
        return true;
      }
      case 't':
      case 'f':
        v = make(Kind::Boolean, s, 0);
        v.p_.b = *p_ == 't';
        literal(v.p_.b ? "true" : "false", v);
        return true;
      case 'n':
        v = make(Kind::Null, s, 0);
        literal("null", v);
        return true;
      case 'N':  // Python's json.dumps writes these three bare tokens for non-finite floats
      case 'I':
        v = make(Kind::Float, s, 0);
        v.p_.d = *p_ == 'N' ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
        literal(*p_ == 'N' ? "NaN" : "Infinity", v);
        return true;
      default:
        if (*p_ != '-' && !has(*p_, kDigit)) expected(p_, "expected a value");
        v = parse_number();
        return true;
    }
  }

  void literal(std::string_view word, Value& v) {
    if (static_cast<size_t>(end_ - p_) < word.size() || std::memcmp(p_, word.data(), word.size()) != 0)
      fail(p_, fe::detail::cat("invalid literal: expected '", word, "'"));
    p_ += word.size();
    v.raw_len_ += static_cast<uint32_t>(word.size());
  }

  // Grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?, or -Infinity.
  Value parse_number() {
    const char* s = p_;
    const bool neg = *p_ == '-';
    if (neg && ++p_ < end_ && *p_ == 'I') {
      Value v = make(Kind::Float, s, 1);
      v.p_.d = -std::numeric_limits<double>::infinity();
      literal("Infinity", v);
      return v;
    }
    if (p_ == end_ || !has(*p_, kDigit)) expected(p_, "expected a digit after '-'");
    uint64_t u = 0;
    bool is_float = false;  // also: the integer does not fit 64 bits
    if (*p_ == '0') {
      if (++p_ < end_ && has(*p_, kDigit)) fail(s, "invalid number: leading zeros are not allowed");
    } else {
      do {
        const auto d = static_cast<uint64_t>(*p_ - '0');
        is_float |= __builtin_mul_overflow(u, 10, &u) || __builtin_add_overflow(u, d, &u);
      } while (++p_ < end_ && has(*p_, kDigit));
    }
    if (p_ < end_ && *p_ == '.') {
      if (++p_ == end_ || !has(*p_, kDigit)) expected(p_, "expected a digit after '.' in a number");
      while (++p_ < end_ && has(*p_, kDigit)) {
      }
      is_float = true;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      if (++p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !has(*p_, kDigit)) expected(p_, "expected a digit in the exponent of a number");
      while (++p_ < end_ && has(*p_, kDigit)) {
      }
      is_float = true;
    }
    constexpr uint64_t kMinMagnitude = uint64_t{1} << 63;  // |INT64_MIN|
    if (!is_float && (!neg || u <= kMinMagnitude)) {
      const bool fits_int64 = neg || u < kMinMagnitude;
      Value v = make(fits_int64 ? Kind::Integer : Kind::Unsigned, s, p_ - s);
      if (fits_int64) {
        v.p_.i = static_cast<int64_t>(neg ? uint64_t{0} - u : u);  // modular: -2^63 is INT64_MIN
      } else {
        v.p_.u = u;
      }
      return v;
    }
    Value v = make(Kind::Float, s, p_ - s);
    v.p_.d = to_double(s, p_);
    return v;
  }

  // Correctly rounded, as Python's float(); outside double's range, +-inf or +-0 as Python gives.
  static double to_double(const char* s, const char* e) {
    double d = 0;
    const auto [ptr, ec] = std::from_chars(s, e, d);
    if (ec == std::errc() && ptr == e) return d;
    FE_INTERNAL_ASSERT(ec == std::errc::result_out_of_range, "from_chars rejected a validated number");
    // Overflow or underflow: the decimal position of the first significant digit plus the exponent
    // (saturated) says which. The mantissa has one, or the value would have been 0.
    const char* q = s + (*s == '-');
    const char* exp = std::find_if(q, e, [](char c) { return c == 'e' || c == 'E'; });
    const char* dot = std::find(q, exp, '.');
    const char* first = std::find_if(q, exp, [](char c) { return c >= '1' && c <= '9'; });
    int64_t mag = first < dot ? dot - first : dot - first + 1, x = 0;
    if (exp < e) {  // the grammar guarantees digits after e[+-]
      const bool negative = exp[1] == '-';
      for (const char* c = exp + 1 + (exp[1] == '+' || negative); c < e; ++c)
        x = std::min<int64_t>(x * 10 + (*c - '0'), int64_t{1} << 40);
      mag += negative ? -x : x;
    }
    return (*s == '-' ? -1.0 : 1.0) * (mag > 0 ? std::numeric_limits<double>::infinity() : 0.0);
  }

  // Parses the string at p_ ('"'); returns its bytes (source view or arena copy) and length.
  std::pair<const char*, size_t> parse_string() {
    const char* open = p_;
    const char* s = ++p_;
    for (;;) {
      scan_plain();
      if (p_ == end_) unterminated(open);
      const char c = *p_;
      if (c == '"') {
        const size_t n = p_ - s;
        ++p_;
        if (n > kMaxCount) fail(open, fe::detail::cat("string longer than ", kMaxCount, " bytes"));
        return {s, n};
      }
      if (c == '\\') return parse_escaped(open, s);
      p_ = check_char(p_);
    }
  }

  // Advances p_ over bytes that need no attention, 8 at a time where the text allows.
  void scan_plain() {
#if defined(__SSE2__)
    // 16 bytes a step (SSE2 is part of x86-64): strings are most of a model.json's bytes (stack
    // traces, module stacks). A signed compare below 0x20 flags control and non-ASCII bytes at once.
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
    while (end_ - p_ >= 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p_));
      const __m128i special = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                                           _mm_cmplt_epi8(x, space));
      if (const int m = _mm_movemask_epi8(special)) {
        p_ += std::countr_zero(static_cast<unsigned>(m));
        return;
      }
      p_ += 16;
    }
#endif
    if constexpr (std::endian::native == std::endian::little) {
      while (end_ - p_ >= 8) {
        uint64_t x;
        std::memcpy(&x, p_, 8);
        if (const uint64_t m = special_bytes(x)) {
          p_ += std::countr_zero(m) >> 3;
          return;
        }
        p_ += 8;
      }
    }
    while (p_ < end_ && has(*p_, kPlain)) ++p_;
  }

  // The slow path once a string has an escape: decode into scratch_, then copy into the arena.
  std::pair<const char*, size_t> parse_escaped(const char* open, const char* s) {
    scratch_.assign(s, p_);
    for (;;) {
      const char c = *p_;
      if (c == '"') {
        ++p_;
        const size_t n = scratch_.size();
        if (n > kMaxCount) fail(open, fe::detail::cat("string longer than ", kMaxCount, " bytes"));
        char* dst = alloc(n);
        if (n) std::memcpy(dst, scratch_.data(), n);
        return {dst, n};
      }
      if (c == '\\') {
        decode_escape(open);
      } else {
        const char* q = check_char(p_);
        scratch_.append(p_, q);
        p_ = q;
      }
      const char* run = p_;
      scan_plain();
      scratch_.append(run, p_);
      if (p_ == end_) unterminated(open);
    }
  }

  // A control character or non-ASCII byte at q: fails, or returns the end of its UTF-8 sequence.
  const char* check_char(const char* q) const {
    const auto b0 = static_cast<unsigned char>(*q);
    if (b0 < 0x20) fail(q, "unescaped control character " + hex_byte(b0) + " in a string");
    // RFC 3629's table: the allowed range of the 2nd byte depends on the lead byte (no overlongs,
    // no UTF-16 surrogates, nothing above U+10FFFF); later bytes are 80..BF.
    struct Lead {
      int n;  // continuation bytes
      unsigned lo, hi;
    };
    const Lead l = b0 >= 0xC2 && b0 <= 0xDF   ? Lead{1, 0x80, 0xBF}
                   : b0 == 0xE0               ? Lead{2, 0xA0, 0xBF}
                   : b0 == 0xED               ? Lead{2, 0x80, 0x9F}
                   : b0 >= 0xE1 && b0 <= 0xEF ? Lead{2, 0x80, 0xBF}
                   : b0 == 0xF0               ? Lead{3, 0x90, 0xBF}
                   : b0 >= 0xF1 && b0 <= 0xF3 ? Lead{3, 0x80, 0xBF}
                   : b0 == 0xF4               ? Lead{3, 0x80, 0x8F}
                                              : Lead{0, 0, 0};
    if (l.n == 0) fail(q, "invalid UTF-8 byte " + hex_byte(b0) + " in a string");
    for (int i = 1; i <= l.n; ++i) {
      if (q + i == end_) fail(q, "truncated UTF-8 sequence at the end of the input");
      const auto b = static_cast<unsigned char>(q[i]);
      if (b < (i == 1 ? l.lo : 0x80) || b > (i == 1 ? l.hi : 0xBF))
        fail(q + i, "invalid UTF-8 byte " + hex_byte(b) + " in a string");
    }
    return q + 1 + l.n;
  }

  // p_ at '\\': appends the decoded character(s) to scratch_.
  void decode_escape(const char* open) {
    const char* esc = p_;
    if (end_ - p_ < 2) unterminated(open);
    const char e = p_[1];
    p_ += 2;
    static constexpr std::string_view kEscape = "\"\\/bfnrt", kDecoded = "\"\\/\b\f\n\r\t";
    if (const size_t i = kEscape.find(e); i != std::string_view::npos) {
      scratch_ += kDecoded[i];
      return;
    }
    if (e != 'u')
      fail(esc, "invalid escape '\\" + (e > 0x20 && e < 0x7f ? std::string(1, e) : hex_byte(e)) + "' in a string");
    uint32_t cp = hex4(p_);
    if (cp > 0xFFFF) fail(esc, "expected 4 hex digits after '\\u'");
    p_ += 4;
    // A high surrogate followed by an escaped low one is one code point; any other surrogate stays
    // alone and is written as WTF-8 (Python's json.dumps emits lone surrogates as escapes).
    if (cp >= 0xD800 && cp <= 0xDBFF && end_ - p_ >= 6 && p_[0] == '\\' && p_[1] == 'u') {
      const uint32_t lo = hex4(p_ + 2);
      if (lo >= 0xDC00 && lo <= 0xDFFF) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        p_ += 6;
      }
    }
    append_utf8(scratch_, cp);
  }

  // The 4 hex digits at q as a number, or 0x10000 if they are not 4 hex digits.
  uint32_t hex4(const char* q) const {
    uint32_t v = 0;
    if (end_ - q < 4) return 0x10000;
    const auto [ptr, ec] = std::from_chars(q, q + 4, v, 16);  // no sign or "0x" for an unsigned type
    return ec == std::errc() && ptr == q + 4 ? v : 0x10000;
  }

  // p_ at the first byte of a key ('"' expected): parses `"key" :` and pushes the member.
  void parse_key(bool first) {
    if (p_ == end_ || *p_ != '"')
      expected(p_, first ? "expected a string key or '}'" : "expected a string key after ','");
    const auto [key, n] = parse_string();
    skip_ws();
    if (p_ == end_ || *p_ != ':') expected(p_, "expected ':' after an object key");
    ++p_;
    skip_ws();
    members_.push_back({std::string_view(key, n), Value{}});
  }

  // p_ just past a closer: moves the top frame's children into the arena and returns the container.
  Value close() {
    const Frame f = frames_.back();
    frames_.pop_back();
    const size_t n = (f.is_object ? members_.size() : values_.size()) - f.base;
    if (n > kMaxCount) fail(f.begin, "too many elements in one array or object");
    Value v = make(f.is_object ? Kind::Object : Kind::Array, f.begin, p_ - f.begin, n);
    if (!f.is_object) {
      v.p_.elems = move_to_arena(values_, f.base, 0);
      return v;
    }
    Member* m = move_to_arena(members_, f.base, n > kIndexedObject ? n * sizeof(uint32_t) : 0);
    if (n > kIndexedObject) build_index(m, n);
    v.p_.mems = m;
    return v;
  }

  // Moves stack[base..] into the arena (with `extra` bytes after them) and pops them.
  template <class T>
  T* move_to_arena(std::vector<T>& stack, size_t base, size_t extra) {
    const size_t n = stack.size() - base;
    auto* out = reinterpret_cast<T*>(alloc(n * sizeof(T) + extra));
    if (n) std::memcpy(static_cast<void*>(out), stack.data() + base, n * sizeof(T));
    stack.resize(base);
    return out;
  }

  // Member numbers sorted by (key, position): a sort rather than a hash, so that no crafted set of
  // keys can make it quadratic; equal keys keep file order, so lookups find the first.
  static void build_index(Member* m, size_t n) {
    auto* idx = reinterpret_cast<uint32_t*>(m + n);
    std::iota(idx, idx + n, 0u);
    std::sort(idx, idx + n, [m](uint32_t a, uint32_t b) {
      const int c = key_cmp(m[a].key, m[b].key);
      return c < 0 || (c == 0 && a < b);
    });
  }

  void finish(const Value& v) {
    skip_ws();
    if (p_ != end_) expected(p_, "expected end of input after the top-level value");
    auto* root = reinterpret_cast<Value*>(alloc(sizeof(Value)));
    std::memcpy(static_cast<void*>(root), &v, sizeof(Value));
    doc_.root_ = root;
  }

  // 8-aligned arena memory; blocks larger than a quarter chunk get a chunk of their own.
  char* alloc(size_t bytes) {
    bytes = (bytes + 7) & ~size_t{7};
    if (bytes <= static_cast<size_t>(arena_end_ - arena_cur_)) {
      char* r = arena_cur_;
      arena_cur_ += bytes;
      return r;
    }
    if (bytes > chunk_size_ / 4) return new_chunk(bytes);
    arena_cur_ = new_chunk(chunk_size_);
    arena_end_ = arena_cur_ + chunk_size_;
    chunk_size_ = std::min(chunk_size_ * 2, kMaxChunk);
    return alloc(bytes);
  }
  char* new_chunk(size_t bytes) {
    doc_.arena_bytes_ += bytes;
    if (bytes >= kHugeChunk) {
      // A big document's arena is written once, front to back: transparent huge pages turn its
      // thousands of first-touch page faults into a few (an 8 MiB chunk: 2,048 faults -> 4).
      void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p != MAP_FAILED) {
        ::madvise(p, bytes, MADV_HUGEPAGE);  // advice only: without THP the pages stay small
        return doc_.chunks_.emplace_back(static_cast<char*>(p), Document::ChunkFree{bytes}).get();
      }
    }
    return doc_.chunks_.emplace_back(new char[bytes], Document::ChunkFree{}).get();
  }

  [[noreturn]] void unterminated(const char* open) const {
    expected(end_, fe::detail::cat("expected '\"' to close the string that starts at byte ", open - begin_));
  }
  [[noreturn]] void expected(const char* at, std::string_view what) const {
    fail(at, fe::detail::cat(what, ", got ", describe(at, end_)));
  }
  // Line and column are counted only here, on failure.
  [[noreturn]] __attribute__((cold, noinline)) void fail(const char* at, const std::string& what) const {
    size_t line = 1;
    const char* line_start = begin_;
    for (const char* q = begin_; (q = static_cast<const char*>(std::memchr(q, '\n', at - q))) != nullptr;) {
      ++line;
      line_start = ++q;
    }
    throw FormatError(fe::detail::cat(source_, ": invalid JSON at line ", line, ", column ", at - line_start + 1,
                                      " (byte ", at - begin_, "): ", what));
  }

  Document& doc_;
  std::string_view source_;
  const char* begin_;
  const char* p_;
  const char* end_;
  std::vector<Frame> frames_;
  std::vector<Value> values_;    // elements of the open arrays, innermost last
  std::vector<Member> members_;  // members of the open objects, innermost last
  std::string scratch_;          // an escaped string being decoded
  char* arena_cur_ = nullptr;
  char* arena_end_ = nullptr;
  size_t chunk_size_;
};

}  // namespace detail

// ---- Document

Document::Document() : root_(&kNull) {}
Document::Document(Document&& o) noexcept : Document() { *this = std::move(o); }
Document& Document::operator=(Document&& o) noexcept {
  if (this == &o) return *this;
  owned_ = std::move(o.owned_);
  text_ = std::exchange(o.text_, {});
  chunks_ = std::move(o.chunks_);
  arena_bytes_ = std::exchange(o.arena_bytes_, 0);
  root_ = std::exchange(o.root_, &kNull);
  return *this;
}
Document::~Document() = default;

void Document::ChunkFree::operator()(char* p) const {
  if (size) ::munmap(p, size);
  else delete[] p;
}

Document Document::parse(std::string_view text, std::string_view source) {
  Document doc;
  doc.text_ = text;
  detail::Parser(doc, source).run();
  return doc;
}
Document Document::parse(const char* text, std::string_view source) { return parse(std::string_view(text), source); }
Document Document::parse(std::string&& text, std::string_view source) {
  Document doc;
  doc.owned_ = std::make_unique<std::string>(std::move(text));
  doc.text_ = *doc.owned_;
  detail::Parser(doc, source).run();
  return doc;
}

// ---- Value

std::string_view Value::type_name() const {
  static constexpr std::string_view kNames[] = {"null",  "boolean", "integer", "integer",
                                                "float", "string",  "array",   "object"};
  return kNames[tag_ & 7u];
}

const Value* Value::find(std::string_view key) const {
  if (!is_object()) return nullptr;
  const Member* m = p_.mems;
  const uint32_t n = count();
  if (n <= kIndexedObject) {
    for (uint32_t i = 0; i < n; ++i)
      if (m[i].key == key) return &m[i].value;
    return nullptr;
  }
  const auto* idx = reinterpret_cast<const uint32_t*>(m + n);
  const uint32_t* it =
      std::lower_bound(idx, idx + n, key, [m](uint32_t i, std::string_view k) { return key_cmp(m[i].key, k) < 0; });
  return it != idx + n && m[*it].key == key ? &m[*it].value : nullptr;
}

void Value::type_error(std::string_view expected) const {
  const std::string_view r = raw();
  const std::string preview = r.size() > 80 ? std::string(r.substr(0, 77)) + "..." : std::string(r);
  if (is_number_integer())  // as_int() of 2^63.., as_uint() of a negative integer
    throw FormatError(fe::detail::cat("JSON: integer ", preview, " is out of range for ",
                                      expected == "an integer" ? "int64" : "uint64"));
  throw FormatError(fe::detail::cat("JSON: expected ", expected, ", got ", type_name(), " ", preview));
}

void Value::index_error(size_t i) const {
  if (!is_array()) type_error("an array");
  throw FormatError(fe::detail::cat("JSON: index ", i, " out of range for an array of ", count(), " elements"));
}

void Value::missing_key(std::string_view key) const {
  if (!is_object()) type_error("an object");
  throw FormatError(fe::detail::cat("JSON: missing key '", key, "'"));
}

}  // namespace fe::serde::json
