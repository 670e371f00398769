// A strict, zero-copy JSON reader (RFC 8259 plus Python's NaN / Infinity / -Infinity tokens) for
// large machine-written documents such as a .pt2 archive's models/model.json.
//
// One pass, no recursion: a Document owns an arena (big chunks) holding every Value; strings are
// views into the source text unless they contain escapes, in which case they are unescaped into the
// arena. Objects keep their members in file order; duplicate keys are all kept in members() and
// find() returns the first. Objects with more than kIndexedObject members get a sorted index at parse
// time, so find() on them is O(log n) and no input can make lookups quadratic.
//
// The Value API mirrors the part of nlohmann::json that our readers use (is_*, size, find,
// contains, at, type_name), so porting is mechanical; raw() gives a value's exact source text
// (it replaces dump() for error previews and for keeping unknown values verbatim).
//
// Differences from nlohmann::json, on purpose:
// - is_number_unsigned() is true only for 2^63..2^64-1 (nlohmann: every non-negative integer);
//   is_number_integer() is true for both integer kinds, as in nlohmann.
// - Integers beyond uint64 (or below int64) and numbers with '.', 'e' or 'E' are doubles, parsed
//   exactly (correctly rounded, as Python's float()); 1e400 is inf, as in Python.
// - \uXXXX escapes of lone surrogates (which Python's json.dumps writes) are accepted and encoded as
//   WTF-8; raw (unescaped) bytes must be valid UTF-8.
// - Accessors never have undefined behaviour: a wrong type or index throws fe::FormatError.
//
// Limits (each a fe::FormatError naming the byte offset): nesting deeper than kMaxDepth, text of
// 4 GiB or more, strings longer than or containers with more than kMaxCount bytes / entries.
// Every error is a fe::FormatError (declared in fakeexport/serde/safetensors.h) with a one-line
// message: "<source>: invalid JSON at line L, column C (byte B): <what was expected>".
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fe::serde::json {

/// Deepest nesting of arrays/objects accepted; the top-level container is depth 1.
inline constexpr uint32_t kMaxDepth = 512;
/// Largest string length (bytes, after unescaping) and element/member count of one value.
inline constexpr uint32_t kMaxCount = (1u << 29) - 1;
/// Objects with more members than this get a sorted key index (find() in O(log n)).
inline constexpr uint32_t kIndexedObject = 16;

/// The kind of a Value. Integer: fits int64; Unsigned: 2^63..2^64-1; Float: everything else numeric.
enum class Kind : uint8_t { Null, Boolean, Integer, Unsigned, Float, String, Array, Object };

struct Member;
namespace detail {
class Parser;
}

/// One JSON value inside a Document; valid (by reference) as long as its Document lives.
class Value {
 public:
  /// A null value with no source text (what a default-constructed Document's root is).
  Value() = default;

  /// The kind of this value.
  Kind kind() const { return static_cast<Kind>(tag_ & 7u); }
  /// `null`.
  bool is_null() const { return kind() == Kind::Null; }
  /// `true` or `false`.
  bool is_boolean() const { return kind() == Kind::Boolean; }
  /// Any number (integer, unsigned or float, including NaN and infinities).
  bool is_number() const { return kind() >= Kind::Integer && kind() <= Kind::Float; }
  /// An integer of either integer kind (int64 or 2^63..2^64-1), as nlohmann's is_number_integer.
  bool is_number_integer() const { return kind() == Kind::Integer || kind() == Kind::Unsigned; }
  /// An integer in 2^63..2^64-1 only (unlike nlohmann, where any non-negative integer is unsigned).
  bool is_number_unsigned() const { return kind() == Kind::Unsigned; }
  /// A number written with '.', 'e' or 'E', NaN/Infinity, or an integer beyond the 64-bit ranges.
  bool is_number_float() const { return kind() == Kind::Float; }
  /// A string.
  bool is_string() const { return kind() == Kind::String; }
  /// An array.
  bool is_array() const { return kind() == Kind::Array; }
  /// An object.
  bool is_object() const { return kind() == Kind::Object; }

  /// "null", "boolean", "integer" (both integer kinds), "float", "string", "array" or "object".
  std::string_view type_name() const;
  /// Elements of an array / members of an object; 0 for null and 1 for other scalars (as nlohmann).
  size_t size() const { return is_array() || is_object() ? count() : !is_null(); }
  /// size() == 0.
  bool empty() const { return size() == 0; }

  /// The elements of an array in file order; FormatError for any other kind.
  std::span<const Value> elements() const {
    if (!is_array()) type_error("an array");
    return {p_.elems, count()};
  }
  /// Element i of an array; FormatError if this is not an array or i >= size().
  const Value& operator[](size_t i) const {
    if (!is_array() || i >= count()) index_error(i);
    return p_.elems[i];
  }
  /// The members of an object in file order (duplicates included); FormatError for any other kind.
  std::span<const Member> members() const;
  /// The value of the first member named `key`; nullptr if absent or if this is not an object.
  const Value* find(std::string_view key) const;
  /// find(key) != nullptr.
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  /// The value of the first member named `key`; FormatError if absent or not an object.
  const Value& at(std::string_view key) const {
    const Value* v = find(key);
    if (!v) missing_key(key);
    return *v;
  }

  /// An integer value as int64; FormatError for other kinds and for unsigned values above INT64_MAX.
  int64_t as_int() const {
    if (kind() != Kind::Integer) type_error("an integer");
    return p_.i;
  }
  /// A non-negative integer value as uint64; FormatError for other kinds and negative integers.
  uint64_t as_uint() const {
    if (kind() == Kind::Unsigned) return p_.u;
    if (kind() != Kind::Integer || p_.i < 0) type_error("an unsigned integer");
    return static_cast<uint64_t>(p_.i);
  }
  /// Any number as a double (integers converted); FormatError for other kinds.
  double as_double() const {
    if (kind() == Kind::Float) return p_.d;
    if (kind() == Kind::Integer) return static_cast<double>(p_.i);
    if (kind() != Kind::Unsigned) type_error("a number");
    return static_cast<double>(p_.u);
  }
  /// A boolean; FormatError for other kinds.
  bool as_bool() const {
    if (!is_boolean()) type_error("a boolean");
    return p_.b;
  }
  /// A string's (unescaped) bytes; FormatError for other kinds.
  std::string_view as_string() const {
    if (!is_string()) type_error("a string");
    return {p_.str, count()};
  }

  /// The exact source text of this value (from its first to its last byte, no surrounding space).
  std::string_view raw() const { return {raw_, raw_len_}; }

 private:
  friend class detail::Parser;
  // Entry count of strings (bytes) / arrays / objects, stored above the 3 kind bits.
  uint32_t count() const { return tag_ >> 3; }
  // The throwing paths, out of line so that the accessors above stay small enough to inline.
  [[noreturn]] void type_error(std::string_view expected) const;
  [[noreturn]] void index_error(size_t i) const;
  [[noreturn]] void missing_key(std::string_view key) const;

  const char* raw_ = nullptr;  // first byte of the value in the source text
  union {
    int64_t i;
    uint64_t u;
    double d;
    bool b;
    const char* str;     // string bytes: the source text or the arena
    const Value* elems;  // array elements in the arena
    const Member* mems;  // object members in the arena (+ a sorted index if > kIndexedObject)
  } p_{.i = 0};
  uint32_t raw_len_ = 0;  // length of raw()
  uint32_t tag_ = 0;      // Kind in bits 0-2, count() in bits 3-31 (so a Value is 24 bytes)
};

/// One object member: its (unescaped) key and its value.
struct Member {
  std::string_view key;  ///< the key's bytes (a view of the source text or of the arena)
  Value value;           ///< the member's value
};

inline std::span<const Member> Value::members() const {
  if (!is_object()) type_error("an object");
  return {p_.mems, count()};
}

/// A parsed JSON text: the root Value plus the arena that holds every value. Movable, not copyable.
class Document {
 public:
  /// An empty document whose root is null.
  Document();
  Document(Document&&) noexcept;
  Document& operator=(Document&&) noexcept;
  ~Document();

  /// Parses `text`, which the caller keeps alive and unchanged while the Document lives.
  /// `source` names the text in error messages ("model.json"). Throws fe::FormatError.
  static Document parse(std::string_view text, std::string_view source = "JSON");
  /// Parses a NUL-terminated string the caller keeps alive (a literal); as parse(string_view).
  static Document parse(const char* text, std::string_view source = "JSON");
  /// Takes ownership of `text` and parses it (temporaries land here, so they cannot dangle).
  static Document parse(std::string&& text, std::string_view source = "JSON");

  /// The top-level value.
  const Value& root() const& { return *root_; }
  /// Deleted: the values die with a temporary Document (`Document::parse(t).root()` would dangle).
  const Value& root() const&& = delete;
  /// The whole source text.
  std::string_view text() const { return text_; }
  /// Byte offset of `v` (which must belong to this document) in text().
  size_t offset_of(const Value& v) const { return static_cast<size_t>(v.raw().data() - text_.data()); }
  /// Bytes held by the arena (values, members, indexes, unescaped strings).
  size_t arena_bytes() const { return arena_bytes_; }

 private:
  friend class detail::Parser;
  std::unique_ptr<std::string> owned_;  // heap-held so that moving the Document keeps views valid
  std::string_view text_;
  /// Frees an arena chunk: mapped chunks (size != 0) are unmapped, small ones deleted.
  struct ChunkFree {
    size_t size = 0;
    void operator()(char* p) const;
  };
  std::vector<std::unique_ptr<char[], ChunkFree>> chunks_;  // the arena
  size_t arena_bytes_ = 0;
  const Value* root_;
};

}  // namespace fe::serde::json
