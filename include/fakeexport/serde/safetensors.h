// safetensors (https://github.com/huggingface/safetensors) reading and writing: an 8-byte
// little-endian header length N, N bytes of JSON, then the tensors' bytes back to back.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fakeexport/core/dtype.h"
#include "fakeexport/core/error.h"
#include "fakeexport/core/tensor.h"

namespace fe {

// FormatError and FileIOError (core/error.h) are what reading a malformed or unreadable file throws.

/// `__metadata__`: free-form string -> string pairs. Written in key order (safetensors itself keeps
/// them in a Rust HashMap, so with 2+ keys its order varies from run to run).
using SafetensorsMetadata = std::map<std::string, std::string>;

/// The safetensors dtype string ("F32", "BF16", "F8_E4M3", ...); nullopt for dtypes the format
/// (as safetensors.torch writes it) has no name for: complex32, complex128.
std::optional<std::string_view> safetensors_dtype_name(DType t);
/// The DType of a safetensors dtype string; nullopt for unknown ones and for format dtypes
/// fakeexport has no equivalent of (F4, F6_*, F8_E8M0).
std::optional<DType> parse_safetensors_dtype(std::string_view s);

/// One tensor's header entry. Offsets are relative to the start of the data buffer.
struct SafetensorsEntry {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;
  uint64_t nbytes() const { return end - begin; }
};

/// A safetensors file, memory-mapped read-only: opening parses and validates the whole header
/// but touches no tensor data; load() copies one tensor out.
class SafetensorsFile {
 public:
  /// Maps `path` and validates its header; FileIOError if unreadable, FormatError if malformed.
  explicit SafetensorsFile(std::string path);
  ~SafetensorsFile();
  SafetensorsFile(SafetensorsFile&&) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&&) noexcept;
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;

  const std::string& path() const { return path_; }
  /// Tensor names in the order of the header's JSON object.
  std::vector<std::string> names() const;
  /// Entries in header order.
  const std::vector<SafetensorsEntry>& entries() const { return entries_; }
  bool contains(std::string_view name) const;
  /// The entry called `name`; ValueError naming the file if there is none.
  const SafetensorsEntry& entry(std::string_view name) const;
  /// The raw little-endian bytes of `name` inside the mapping (valid while this object lives).
  std::span<const std::byte> bytes(std::string_view name) const;
  /// A real, contiguous CPU tensor with a copy of `name`'s data in a fresh Storage.
  Tensor load(std::string_view name) const;
  /// `__metadata__`, or nullopt when the header has none (distinct from an empty one).
  const std::optional<SafetensorsMetadata>& metadata() const { return metadata_; }
  /// Bytes of the JSON header (N) and of the data buffer after it.
  uint64_t header_size() const { return header_size_; }
  uint64_t buffer_size() const { return buffer_size_; }

 private:
  struct Mapping;
  void parse_header(std::string_view json);
  const std::byte* buffer() const;

  std::string path_;
  std::unique_ptr<Mapping> map_;
  uint64_t header_size_ = 0, buffer_size_ = 0;
  std::vector<SafetensorsEntry> entries_;
  std::map<std::string, size_t, std::less<>> index_;
  std::optional<SafetensorsMetadata> metadata_;
};

/// Writes `tensors` to `path` byte for byte as safetensors.torch.save_file (safetensors 0.8) does:
/// entries ordered by dtype (widest first, safetensors' Dtype order) then name, header padded with
/// spaces to a multiple of 8, `__metadata__` only when given. Data is streamed one tensor at a time.
/// Refuses, like save_file, tensors that share memory and non-contiguous ones (ValueError), and
/// fake tensors (DataAccessError); complex32/complex128 have no safetensors dtype (DTypeError).
void save_safetensors(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& tensors,
                      const std::optional<SafetensorsMetadata>& metadata = std::nullopt);

/// The header text save_safetensors writes for these tensors, padding included (for tests/tools).
std::string safetensors_header(const std::vector<std::pair<std::string, Tensor>>& tensors,
                               const std::optional<SafetensorsMetadata>& metadata = std::nullopt);

}  // namespace fe
