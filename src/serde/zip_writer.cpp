// Zip writer reproducing PyTorchStreamWriter::writeRecord (padding from detail::getPadding) on top of
// miniz 3.0.2's mz_zip_writer_add_mem_ex_v2 / mz_zip_writer_finalize_archive with MZ_ZIP_FLAG_WRITE_ZIP64.
// Layout facts were checked against archives PyTorch 2.14 wrote (tests/fixtures/pt2, tests/fixtures/pt2/zip).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include "fakeexport/serde/zip.h"
#include "zip_internal.h"

namespace fe::serde {

using namespace zipfmt;

namespace {
constexpr uint64_t kInt64Max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
}

/// The output file: a descriptor plus a write buffer (headers are a few dozen bytes each).
struct ZipWriter::File {
  int fd = -1;
  std::string buf;
  ~File() {
    if (fd >= 0) ::close(fd);
  }
};

ZipWriter::ZipWriter(std::string path, Options options)
    : path_(std::move(path)), opt_(options), file_(std::make_unique<File>()) {
  FE_CHECK(opt_.alignment >= 1 && opt_.alignment <= 32768, ValueError, "zip writer for '", path_, "': alignment ",
           opt_.alignment, " is outside 1..32768");
  FE_CHECK(opt_.zip64_threshold >= 1 && opt_.zip64_threshold <= 0xffffffffu, ValueError, "zip writer for '", path_,
           "': zip64 threshold ", opt_.zip64_threshold, " is outside 1..0xffffffff");
  file_->fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  FE_CHECK(file_->fd >= 0, FileIOError, "zip archive '", path_, "': cannot create: ", std::strerror(errno));
}

ZipWriter::~ZipWriter() {
  if (!finished_ && file_ && file_->fd >= 0) {
    // An archive without its central directory is unreadable: do not leave it behind.
    ::close(file_->fd);
    file_->fd = -1;
    ::unlink(path_.c_str());
  }
}

namespace {
void write_all(int fd, const char* p, size_t n, const std::string& path) {
  while (n) {
    ssize_t k = ::write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    FE_CHECK(k > 0, FileIOError, "zip archive '", path, "': write failed: ", k < 0 ? std::strerror(errno) : "no progress");
    p += k;
    n -= static_cast<size_t>(k);
  }
}
}  // namespace

void ZipWriter::emit(std::span<const std::byte> bytes) {
  constexpr size_t kBuf = 1 << 16;
  std::string& b = file_->buf;
  if (b.size() + bytes.size() <= kBuf) {
    b.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  } else {
    write_all(file_->fd, b.data(), b.size(), path_);
    b.clear();
    if (bytes.size() < kBuf)
      b.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    else
      write_all(file_->fd, reinterpret_cast<const char*>(bytes.data()), bytes.size(), path_);
  }
  pos_ += bytes.size();
}

void ZipWriter::skip(uint64_t n) {
  // A hole, as PyTorch's writer seeks over metadata-only records.
  write_all(file_->fd, file_->buf.data(), file_->buf.size(), path_);
  file_->buf.clear();
  FE_CHECK(n <= kInt64Max - pos_, ValueError, "zip archive '", path_, "': offset overflows int64");
  FE_CHECK(::lseek(file_->fd, static_cast<off_t>(n), SEEK_CUR) >= 0, FileIOError, "zip archive '", path_,
           "': seek failed: ", std::strerror(errno));
  pos_ += n;
}

void ZipWriter::start(std::string_view name, uint64_t size, bool metadata_only) {
  const std::string w = detail::cat("zip archive '", path_, "': entry ", quote(name));
  FE_CHECK(!finished_, ValueError, w, ": the archive is already finished");
  FE_CHECK(!open_, ValueError, w, ": entry ", quote(entries_.back().name), " is still open (call end_entry first)");
  if (std::string why = zip_name_problem(name); !why.empty()) throw ValueError(detail::cat(w, ": unsafe name: ", why));
  FE_CHECK(name.size() <= 0xffff, ValueError, w, ": name of ", name.size(), " bytes exceeds zip's 65535");
  FE_CHECK(!index_.count(name), ValueError, w, ": duplicate name (PyTorch: \"Tried to serialize file twice\")");
  FE_CHECK(size <= kInt64Max - pos_, ValueError, w, ": size ", size, " at offset ", pos_, " overflows int64");

  const uint64_t T = opt_.zip64_threshold;
  const uint64_t cursor = pos_;
  const bool big = size >= T, far = cursor >= T;
  zip64_entry_ = big || far;
  // Local extra: miniz's zip64 field (size, then compressed size, which it has not computed yet and
  // writes as 0, then the header offset), followed by PyTorch's 'FB' padding field.
  std::string extra;
  if (zip64_entry_) {
    put16(extra, kZip64ExtraId);
    put16(extra, static_cast<uint16_t>((big ? 16 : 0) + (far ? 8 : 0)));
    if (big) {
      put64(extra, size);
      put64(extra, 0);
    }
    if (far) put64(extra, cursor);
  }
  const uint64_t data_start = cursor + kLocalSize + name.size() + extra.size() + 4;
  const uint64_t pad = (opt_.alignment - data_start % opt_.alignment) % opt_.alignment;
  extra += "FB";
  put16(extra, static_cast<uint16_t>(pad));
  extra.append(pad, 'Z');

  ZipEntry e;
  e.name = std::string(name);
  e.header_offset = cursor;
  e.size = size;
  // Bit 3 (data descriptor) only when there is data, bit 11 (UTF-8 names) always: miniz's bit_flags.
  e.flags = static_cast<uint16_t>(kFlagUtf8 | (size ? kFlagDescriptor : 0));
  std::string h;
  put32(h, kLocalSig);
  put16(h, 0);  // version needed: 0 for stored entries
  put16(h, e.flags);
  put16(h, 0);  // method: stored
  put16(h, 0);  // time and date: 0 (miniz built with MINIZ_NO_TIME)
  put16(h, 0);
  put32(h, 0);  // crc and sizes live in the data descriptor
  put32(h, 0);
  put32(h, 0);
  put16(h, static_cast<uint16_t>(name.size()));
  put16(h, static_cast<uint16_t>(extra.size()));
  h += name;
  h += extra;
  emit(std::as_bytes(std::span(h)));
  e.data_offset = pos_;
  index_.emplace(e.name, entries_.size());
  entries_.push_back(std::move(e));
  open_ = true;
  written_ = 0;
  crc_ = 0;
  if (metadata_only) {
    skip(size);
    written_ = size;
  }
}

void ZipWriter::begin_entry(std::string_view name, uint64_t size) { start(name, size, false); }

void ZipWriter::write(std::span<const std::byte> chunk) {
  FE_CHECK(open_, ValueError, "zip archive '", path_, "': write() without an open entry (call begin_entry first)");
  const ZipEntry& e = entries_.back();
  FE_CHECK(chunk.size() <= e.size - written_, ValueError, "zip archive '", path_, "': entry ", quote(e.name),
           ": writing ", chunk.size(), " more bytes after ", written_, " exceeds its declared size ", e.size);
  if (opt_.compute_crc32) crc_ = crc32_update(crc_, chunk);
  emit(chunk);
  written_ += chunk.size();
}

void ZipWriter::end_entry() {
  FE_CHECK(open_, ValueError, "zip archive '", path_, "': end_entry() without an open entry");
  ZipEntry& e = entries_.back();
  FE_CHECK(written_ == e.size, ValueError, "zip archive '", path_, "': entry ", quote(e.name), ": ", written_,
           " bytes written but ", e.size, " declared");
  close_entry();
}

void ZipWriter::close_entry() {
  ZipEntry& e = entries_.back();
  e.crc32 = crc_;
  open_ = false;
  const uint64_t T = opt_.zip64_threshold;
  if (e.size) {
    // Data descriptor: 64-bit sizes whenever the local header carried a zip64 field.
    std::string d;
    put32(d, kDescriptorSig);
    put32(d, e.crc32);
    if (zip64_entry_) {
      put64(d, e.size);
      put64(d, e.size);
    } else {
      put32(d, static_cast<uint32_t>(e.size));
      put32(d, static_cast<uint32_t>(e.size));
    }
    emit(std::as_bytes(std::span(d)));
  }
  // Central directory record; its zip64 field now holds the real compressed size.
  std::string extra;
  if (zip64_entry_) {
    const bool big = e.size >= T, far = e.header_offset >= T;
    put16(extra, kZip64ExtraId);
    put16(extra, static_cast<uint16_t>((big ? 16 : 0) + (far ? 8 : 0)));
    if (big) {
      put64(extra, e.size);
      put64(extra, e.size);
    }
    if (far) put64(extra, e.header_offset);
  }
  std::string c;
  put32(c, kCentralSig);
  put16(c, 0);  // version made by: miniz leaves it 0
  put16(c, 0);  // version needed
  put16(c, e.flags);
  put16(c, 0);  // method
  put16(c, 0);  // time
  put16(c, 0);  // date
  put32(c, e.crc32);
  put32(c, field32(e.size));
  put32(c, field32(e.size));
  put16(c, static_cast<uint16_t>(e.name.size()));
  put16(c, static_cast<uint16_t>(extra.size()));
  put16(c, 0);  // comment length
  put16(c, 0);  // disk
  put16(c, 0);  // internal attributes
  put32(c, 0);  // external attributes
  put32(c, field32(e.header_offset));
  c += e.name;
  c += extra;
  central_.insert(central_.end(), reinterpret_cast<const std::byte*>(c.data()),
                  reinterpret_cast<const std::byte*>(c.data() + c.size()));
}

void ZipWriter::add(std::string_view name, std::span<const std::byte> data) {
  begin_entry(name, data.size());
  write(data);
  end_entry();
}

void ZipWriter::add_metadata_only(std::string_view name, uint64_t size) {
  start(name, size, true);
  close_entry();  // crc stays 0, as miniz skips it when there is no data
}

void ZipWriter::finish() {
  FE_CHECK(!finished_, ValueError, "zip archive '", path_, "': finish() called twice");
  FE_CHECK(!open_, ValueError, "zip archive '", path_, "': entry ", quote(entries_.back().name),
           " is still open at finish()");
  const uint64_t cd_ofs = pos_, cd_size = central_.size(), n = entries_.size();
  emit(central_);
  // The zip64 end record and locator come always: PyTorch opens miniz with MZ_ZIP_FLAG_WRITE_ZIP64.
  const uint64_t z64 = pos_;
  std::string t;
  put32(t, kZip64EocdSig);
  put64(t, kZip64EocdSize - 12);
  put16(t, 0x031e);  // version made by (miniz: "always Unix"), 3.0
  put16(t, 0x002d);  // version needed: 4.5 (zip64)
  put32(t, 0);
  put32(t, 0);
  put64(t, n);
  put64(t, n);
  put64(t, cd_size);
  put64(t, cd_ofs);
  put32(t, kZip64LocatorSig);
  put32(t, 0);
  put64(t, z64);
  put32(t, 1);  // total number of disks
  put32(t, kEocdSig);
  put16(t, 0);
  put16(t, 0);
  put16(t, static_cast<uint16_t>(std::min<uint64_t>(n, 0xffff)));
  put16(t, static_cast<uint16_t>(std::min<uint64_t>(n, 0xffff)));
  put32(t, field32(cd_size));
  put32(t, field32(cd_ofs));
  put16(t, 0);  // comment length
  emit(std::as_bytes(std::span(t)));
  write_all(file_->fd, file_->buf.data(), file_->buf.size(), path_);
  file_->buf.clear();
  const int fd = file_->fd;
  file_->fd = -1;
  FE_CHECK(::close(fd) == 0, FileIOError, "zip archive '", path_, "': close failed: ", std::strerror(errno));
  finished_ = true;
  central_.clear();
  central_.shrink_to_fit();
}

}  // namespace fe::serde
