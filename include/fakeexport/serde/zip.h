// The ZIP container of .pt2 archives, as PyTorch's PyTorchStreamWriter / PyTorchStreamReader
// (caffe2/serialize/inline_container + miniz) write and read it: stored (uncompressed) entries whose
// data starts on a 64-byte boundary, data descriptors, and always a zip64 end-of-central-directory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fakeexport/serde/safetensors.h"  // fe::FormatError, fe::FileIOError

namespace fe::serde {

/// CRC-32 (ISO-HDLC, the zip/zlib one), computed incrementally: `crc = crc32_update(crc, chunk)`
/// starting from 0 gives the same value as crc32 over the concatenated chunks.
uint32_t crc32_update(uint32_t crc, std::span<const std::byte> data);
inline uint32_t crc32(std::span<const std::byte> data) { return crc32_update(0, data); }

/// One entry of an archive. Offsets are from the start of the file.
struct ZipEntry {
  std::string name;
  uint64_t header_offset = 0;  ///< its local file header
  uint64_t data_offset = 0;    ///< its first data byte: header_offset + 30 + name length + extra length
  uint64_t size = 0;           ///< bytes of data (stored: compressed size == size)
  uint32_t crc32 = 0;          ///< as the central directory records it
  uint16_t flags = 0;          ///< general purpose bits (PyTorch: 0x0808, or 0x0800 for empty entries)
};

/// `name` is a relative path fit for an archive: not empty, no leading '/', no '\\' or NUL, no empty,
/// "." or ".." components. Returns the reason it is not, or "" when it is fine.
std::string zip_name_problem(std::string_view name);

/// The root folder PyTorchStreamWriter puts every record under for an output file `path`: its base
/// name without the last extension ("out/model.pt2" -> "model"). Empty when there is none.
std::string pytorch_archive_name(std::string_view path);

/// A zip archive, memory-mapped read-only. Opening parses and validates the end-of-central-directory
/// record (zip64 included), the whole central directory and every local header; entry data is never
/// copied. Anything malformed or outside what a PT2 archive may hold is a fe::FormatError naming the
/// file, the entry and the offending value; unreadable files are fe::FileIOError.
class ZipReader {
 public:
  struct Options {
    bool verify_crc32 = false;  ///< check every entry's CRC-32 while opening (reads all the data)
  };
  explicit ZipReader(std::string path) : ZipReader(std::move(path), Options{}) {}
  ZipReader(std::string path, Options options);
  ~ZipReader();
  ZipReader(ZipReader&&) noexcept;
  ZipReader& operator=(ZipReader&&) noexcept;
  ZipReader(const ZipReader&) = delete;
  ZipReader& operator=(const ZipReader&) = delete;

  const std::string& path() const { return path_; }
  uint64_t file_size() const;
  /// Entries in central-directory order (PyTorch writes it in the order records were written).
  const std::vector<ZipEntry>& entries() const { return entries_; }
  std::vector<std::string> names() const;
  bool contains(std::string_view name) const { return find(name) != nullptr; }
  /// The entry called `name`, or nullptr.
  const ZipEntry* find(std::string_view name) const;
  /// The entry called `name`; fe::ValueError naming the archive when there is none.
  const ZipEntry& entry(std::string_view name) const;
  /// The bytes of `name` inside the mapping (valid while this reader lives).
  std::span<const std::byte> data(std::string_view name) const;
  std::span<const std::byte> data(const ZipEntry& e) const;
  /// The bytes of `name` as text: a view into the mapping, or a copy.
  std::string_view view(std::string_view name) const;
  std::string text(std::string_view name) const { return std::string(view(name)); }
  /// Checks the CRC-32 of one entry's data against the central directory; fe::FormatError if it differs.
  void verify_crc32(const ZipEntry& e) const;
  void verify_crc32(std::string_view name) const { verify_crc32(entry(name)); }
  /// What PyTorchStreamReader takes as the archive's root folder: the first entry's name up to its
  /// first '/' ("" when the first name has no '/', which PyTorch refuses).
  std::string_view root() const;
  /// The archive comment of the end-of-central-directory record (PyTorch writes none).
  std::string_view comment() const { return comment_; }
  /// Whether the archive carries a zip64 end-of-central-directory record (PyTorch always writes one).
  bool has_zip64_eocd() const { return zip64_; }

 private:
  struct Mapping;
  void parse();
  std::string where() const;

  std::string path_;
  std::unique_ptr<Mapping> map_;
  std::vector<ZipEntry> entries_;
  std::map<std::string, size_t, std::less<>> index_;
  std::string comment_;
  bool zip64_ = false;
};

/// Writes a zip archive exactly as PyTorchStreamWriter (PyTorch 2.14, miniz 3.0.2) does, given the
/// same records in the same order: stored entries; every entry's data aligned to `alignment` bytes by
/// an 'FB' extra field of 'Z's in its local header; zero times, version fields and attributes; UTF-8
/// flag, and a data descriptor after every non-empty entry; zip64 extra fields for entries whose size
/// or local header offset is >= 0xFFFFFFFF; a zip64 end-of-central-directory record and locator always.
/// It does not add PyTorch's own records (version, byteorder, .data/serialization_id) nor a root
/// folder: names are written as given. Data is streamed to the file; nothing is held in memory but
/// the central directory. Misuse (bad or duplicate names, writing more or fewer bytes than declared,
/// calls out of order) is fe::ValueError; I/O failures are fe::FileIOError. A writer destroyed before
/// finish() removes its incomplete file.
class ZipWriter {
 public:
  struct Options {
    /// PyTorchFileWriter's storage_alignment: entry data starts at a multiple of it (1..32768).
    uint32_t alignment = 64;
    /// PyTorchFileWriter's compute_crc32: when false every CRC is written as 0.
    bool compute_crc32 = true;
    /// Sizes and offsets >= this use zip64 fields (their 32-bit fields become 0xFFFFFFFF). miniz's
    /// value is 0xFFFFFFFF; smaller values exist to exercise the zip64 layout in tests.
    uint64_t zip64_threshold = 0xFFFFFFFFu;
  };
  explicit ZipWriter(std::string path) : ZipWriter(std::move(path), Options{}) {}
  ZipWriter(std::string path, Options options);
  ~ZipWriter();
  ZipWriter(const ZipWriter&) = delete;
  ZipWriter& operator=(const ZipWriter&) = delete;

  /// One whole entry.
  void add(std::string_view name, std::span<const std::byte> data);
  void add(std::string_view name, std::string_view text) { add(name, std::as_bytes(std::span(text))); }
  /// Streaming: declares an entry of exactly `size` bytes, given in any number of write() calls.
  void begin_entry(std::string_view name, uint64_t size);
  void write(std::span<const std::byte> chunk);
  void end_entry();
  /// PyTorchFileWriter.write_record_metadata (torch.serialization.skip_data): an entry of `size`
  /// bytes whose data is not written (a hole of zeros in the file) and whose CRC-32 is 0.
  void add_metadata_only(std::string_view name, uint64_t size);
  /// Writes the central directory and end records and closes the file.
  void finish();

  const std::string& path() const { return path_; }
  /// Bytes written so far (the offset the next local header goes to).
  uint64_t position() const { return pos_; }
  /// The entries written so far, in order.
  const std::vector<ZipEntry>& entries() const { return entries_; }
  bool finished() const { return finished_; }

 private:
  struct File;
  void start(std::string_view name, uint64_t size, bool metadata_only);
  void close_entry();
  void emit(std::span<const std::byte> bytes);
  void skip(uint64_t n);
  uint32_t field32(uint64_t v) const { return v >= opt_.zip64_threshold ? 0xFFFFFFFFu : static_cast<uint32_t>(v); }

  std::string path_;
  Options opt_;
  std::unique_ptr<File> file_;
  uint64_t pos_ = 0;
  std::vector<ZipEntry> entries_;
  std::map<std::string, size_t, std::less<>> index_;
  std::vector<std::byte> central_;  // central directory records, written by finish()
  // The entry being written.
  bool open_ = false, finished_ = false, zip64_entry_ = false;
  uint64_t written_ = 0;
  uint32_t crc_ = 0;
};

}  // namespace fe::serde
