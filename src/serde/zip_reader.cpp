// Zip reader: mmap, then strict validation of the end records, the central directory and every local
// header, so that data(name) is a plain bounds-checked view afterwards.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <optional>

#include "fakeexport/serde/zip.h"
#include "zip_internal.h"

namespace fe::serde {

using namespace zipfmt;

namespace {

constexpr uint64_t kInt64Max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

std::string hex(uint64_t v, int width = 0) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), digits[v & 15]);
    v >>= 4;
  } while (v);
  while (static_cast<int>(s.size()) < width) s.insert(s.begin(), '0');
  return "0x" + s;
}

std::string method_name(uint16_t m) {
  switch (m) {
    case 1: return "shrink";
    case 6: return "implode";
    case 8: return "deflate";
    case 9: return "deflate64";
    case 12: return "bzip2";
    case 14: return "lzma";
    case 93: return "zstd";
    case 95: return "xz";
    case 99: return "AES encryption";
    default: return "unknown";
  }
}

/// The zip64 extended-information field of an extra block, or nullopt; FormatError via `fail` when the
/// block is not a well-formed sequence of (id, length, data) fields.
template <class Fail>
std::optional<std::span<const std::byte>> zip64_field(std::span<const std::byte> extra, Fail&& fail) {
  std::optional<std::span<const std::byte>> found;
  size_t i = 0;
  while (i < extra.size()) {
    if (extra.size() - i < 4) fail(detail::cat("extra field block has ", extra.size() - i, " stray bytes at its end"));
    uint16_t id = rd16(extra.data() + i), len = rd16(extra.data() + i + 2);
    if (len > extra.size() - i - 4)
      fail(detail::cat("extra field ", hex(id, 4), " declares ", len, " bytes but only ", extra.size() - i - 4,
                       " remain in the extra block"));
    if (id == kZip64ExtraId) {
      if (found) fail("has two zip64 extra fields");
      found = extra.subspan(i + 4, len);
    }
    i += 4 + static_cast<size_t>(len);
  }
  return found;
}

}  // namespace

struct ZipReader::Mapping {
  const std::byte* data = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (data) munmap(const_cast<std::byte*>(data), size);
  }
};

ZipReader::ZipReader(ZipReader&&) noexcept = default;
ZipReader& ZipReader::operator=(ZipReader&&) noexcept = default;
ZipReader::~ZipReader() = default;

std::string ZipReader::where() const { return "zip archive '" + path_ + "'"; }
uint64_t ZipReader::file_size() const { return map_->size; }

ZipReader::ZipReader(std::string path, Options options) : path_(std::move(path)), map_(std::make_unique<Mapping>()) {
  int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  FE_CHECK(fd >= 0, FileIOError, where(), ": cannot open: ", std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    std::string err = std::strerror(errno);
    ::close(fd);
    throw FileIOError(detail::cat(where(), ": cannot stat: ", err));
  }
  if (!S_ISREG(st.st_mode)) {  // a directory or a device: not a file we could map
    ::close(fd);
    throw FileIOError(detail::cat(where(), ": not a regular file (", S_ISDIR(st.st_mode) ? "a directory" : "a device, pipe or socket", ")"));
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size < kEocdSize) {
    ::close(fd);
    throw FormatError(detail::cat(where(), ": truncated: ", size,
                                  " bytes, fewer than the 22-byte end-of-central-directory record of any zip archive"));
  }
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  std::string err = p == MAP_FAILED ? std::strerror(errno) : "";
  ::close(fd);  // the mapping outlives the descriptor
  FE_CHECK(p != MAP_FAILED, FileIOError, where(), ": cannot mmap ", size, " bytes: ", err);
  map_->data = static_cast<const std::byte*>(p);
  map_->size = size;
  parse();
  if (options.verify_crc32)
    for (const auto& e : entries_) verify_crc32(e);
}

void ZipReader::parse() {
  const std::byte* base = map_->data;
  const uint64_t size = map_->size;
  const std::string w = where();

  // End of central directory: the last 22+comment bytes; the comment must reach the end exactly.
  uint64_t eocd = 0;
  bool found = false;
  std::optional<uint64_t> misfit;  // a signature whose comment length does not match the file end
  const uint64_t lowest = size >= kEocdSize + 0xffff ? size - kEocdSize - 0xffff : 0;
  for (uint64_t pos = size - kEocdSize + 1; pos-- > lowest;) {
    if (rd32(base + pos) != kEocdSig) continue;
    if (pos + kEocdSize + rd16(base + pos + 20) == size) {
      eocd = pos;
      found = true;
      break;
    }
    if (!misfit) misfit = pos;
  }
  if (!found) {
    if (misfit)
      throw FormatError(detail::cat(w, ": no valid end-of-central-directory record: the last signature, at offset ",
                                    *misfit, ", declares a ", rd16(base + *misfit + 20), "-byte comment but ",
                                    size - *misfit - kEocdSize, " bytes follow it (truncated, or trailing data)"));
    throw FormatError(detail::cat(w, ": no end-of-central-directory record (signature 50 4b 05 06) in its last ",
                                  size - lowest, " bytes: not a zip archive, or truncated (", size, " bytes)"));
  }
  const std::byte* e = base + eocd;
  const uint16_t disk = rd16(e + 4), cd_disk = rd16(e + 6);
  FE_CHECK(disk == 0 && cd_disk == 0, FormatError, w, ": multi-disk archive (disk ", disk, ", central directory on disk ",
           cd_disk, ") is not supported");
  uint64_t count = rd16(e + 10), cd_size = rd32(e + 12), cd_ofs = rd32(e + 16);
  FE_CHECK(rd16(e + 8) == rd16(e + 10), FormatError, w, ": end-of-central-directory record counts ", rd16(e + 8),
           " entries on this disk but ", rd16(e + 10), " in total");
  comment_.assign(reinterpret_cast<const char*>(e + kEocdSize), rd16(e + 20));
  uint64_t cd_end = eocd;  // where the central directory must end

  // zip64: a locator right before the EOCD points at the zip64 end record.
  if (eocd >= kZip64LocatorSize && rd32(e - kZip64LocatorSize) == kZip64LocatorSig) {
    zip64_ = true;
    const uint64_t loc = eocd - kZip64LocatorSize;
    const std::byte* l = base + loc;
    FE_CHECK(rd32(l + 4) == 0 && rd32(l + 16) <= 1, FormatError, w, ": zip64 locator at offset ", loc,
             " names disk ", rd32(l + 4), " of ", rd32(l + 16), ": multi-disk archives are not supported");
    const uint64_t z = rd64(l + 8);
    FE_CHECK(z <= loc && loc - z >= kZip64EocdSize, FormatError, w, ": zip64 locator at offset ", loc,
             " points at a zip64 end record at offset ", z, ", which does not fit before the locator");
    const std::byte* r = base + z;
    FE_CHECK(rd32(r) == kZip64EocdSig, FormatError, w, ": bad zip64 end-of-central-directory signature ",
             hex(rd32(r), 8), " at offset ", z, " (expected 0x06064b50)");
    const uint64_t rec = rd64(r + 4);
    FE_CHECK(rec >= kZip64EocdSize - 12 && rec == loc - z - 12, FormatError, w, ": zip64 end record at offset ", z,
             " declares ", rec, " bytes after its size field, but ", loc - z - 12, " bytes lie before the locator");
    FE_CHECK(rd32(r + 16) == 0 && rd32(r + 20) == 0, FormatError, w,
             ": zip64 end record names disk ", rd32(r + 16), ": multi-disk archives are not supported");
    const uint64_t n64 = rd64(r + 32), size64 = rd64(r + 40), ofs64 = rd64(r + 48);
    FE_CHECK(rd64(r + 24) == n64, FormatError, w, ": zip64 end record counts ", rd64(r + 24),
             " entries on this disk but ", n64, " in total");
    // A 32-bit field that is not saturated must agree with its zip64 value.
    auto agree = [&](const char* what, uint64_t v32, uint64_t sat, uint64_t v64) {
      FE_CHECK(v32 == sat || v32 == v64, FormatError, w, ": end-of-central-directory record gives ", what, " ", v32,
               " but the zip64 end record gives ", v64);
    };
    agree("entry count", count, 0xffff, n64);
    agree("central directory size", cd_size, 0xffffffff, size64);
    agree("central directory offset", cd_ofs, 0xffffffff, ofs64);
    count = n64, cd_size = size64, cd_ofs = ofs64;
    cd_end = z;
  }
  FE_CHECK(cd_ofs <= kInt64Max && cd_size <= kInt64Max, FormatError, w, ": central directory offset ", cd_ofs,
           " or size ", cd_size, " overflows int64");
  FE_CHECK(cd_ofs <= cd_end && cd_size == cd_end - cd_ofs, FormatError, w, ": central directory at offset ", cd_ofs,
           " of ", cd_size, " bytes does not end where the ", zip64_ ? "zip64 " : "",
           "end-of-central-directory record starts (offset ", cd_end, ")");
  FE_CHECK(count <= cd_size / kCentralSize, FormatError, w, ": ", count,
           " entries cannot fit in a central directory of ", cd_size, " bytes");

  // Central directory.
  entries_.reserve(count);
  uint64_t p = cd_ofs;
  for (uint64_t i = 0; i < count; ++i) {
    FE_CHECK(cd_end - p >= kCentralSize, FormatError, w, ": central directory entry #", i, " at offset ", p,
             " is truncated (", cd_end - p, " bytes left, a header takes 46)");
    const std::byte* c = base + p;
    FE_CHECK(rd32(c) == kCentralSig, FormatError, w, ": central directory entry #", i, " at offset ", p,
             ": bad signature ", hex(rd32(c), 8), " (expected 0x02014b50)");
    const uint16_t flags = rd16(c + 8), method = rd16(c + 10), nlen = rd16(c + 28), xlen = rd16(c + 30),
                   clen = rd16(c + 32), edisk = rd16(c + 34);
    uint64_t csize = rd32(c + 20), usize = rd32(c + 24), lofs = rd32(c + 42);
    const uint32_t crc = rd32(c + 16);
    FE_CHECK(cd_end - p - kCentralSize >= static_cast<uint64_t>(nlen) + xlen + clen, FormatError, w,
             ": central directory entry #", i, " at offset ", p, " is truncated: its name, extra field and comment (",
             nlen, " + ", xlen, " + ", clen, " bytes) run past the end of the central directory");
    ZipEntry ent;
    ent.name.assign(reinterpret_cast<const char*>(c + kCentralSize), nlen);
    // Messages name the entry only when a check fails (an archive holds thousands of entries).
    auto ew = [&] { return detail::cat(w, ": entry ", quote(ent.name)); };
    auto fail = [&](const std::string& msg) { throw FormatError(detail::cat(ew(), ": ", msg)); };
    if (std::string why = zip_name_problem(ent.name); !why.empty()) fail("unsafe name: " + why);
    if (auto [it, fresh] = index_.emplace(ent.name, entries_.size()); !fresh)
      fail(detail::cat("duplicate name (entries #", it->second, " and #", i, ")"));
    if (flags & (kFlagEncrypted | kFlagStrongEncryption | kFlagMaskedHeaders))
      fail(detail::cat("is encrypted (general purpose flags ", hex(flags, 4),
                       "): PT2 archives hold no encrypted entries"));
    if (method != 0)
      fail(detail::cat("is compressed (method ", method, ", ", method_name(method),
                       "): PT2 archives store every entry uncompressed (method 0)"));
    FE_CHECK(edisk == 0 || edisk == 0xffff, FormatError, ew(), ": lies on disk ", edisk,
             ": multi-disk archives are not supported");
    auto z64 = zip64_field(std::span(c + kCentralSize + nlen, xlen), fail);
    size_t z64_at = 0;
    auto take64 = [&](const char* what) {
      if (!z64 || z64->size() - z64_at < 8)
        fail(detail::cat("its ", what, " is 0xffffffff (zip64) but its zip64 extra field ",
                         z64 ? detail::cat("has only ", z64->size(), " bytes") : std::string("is missing")));
      uint64_t v = rd64(z64->data() + z64_at);
      z64_at += 8;
      return v;
    };
    if (usize == 0xffffffff) usize = take64("size");
    if (csize == 0xffffffff) csize = take64("compressed size");
    if (lofs == 0xffffffff) lofs = take64("local header offset");
    FE_CHECK(usize <= kInt64Max, FormatError, ew(), ": size ", usize, " overflows int64");
    FE_CHECK(csize == usize, FormatError, ew(), ": stored entry has compressed size ", csize, " but size ", usize);
    FE_CHECK(lofs <= kInt64Max, FormatError, ew(), ": local header offset ", lofs, " overflows int64");
    ent.header_offset = lofs;
    ent.size = usize;
    ent.crc32 = crc;
    ent.flags = flags;
    entries_.push_back(std::move(ent));
    p += kCentralSize + nlen + xlen + clen;
  }
  FE_CHECK(p == cd_end, FormatError, w, ": central directory has ", cd_end - p, " bytes left over after its ", count,
           " entries");

  // Local headers: they must agree with the central directory, and the data must lie before it.
  for (auto& ent : entries_) {
    auto ew = [&] { return detail::cat(w, ": entry ", quote(ent.name)); };
    const uint64_t h = ent.header_offset;
    FE_CHECK(h <= cd_ofs && cd_ofs - h >= kLocalSize, FormatError, ew(), ": local header at offset ", h,
             " does not fit before the central directory (offset ", cd_ofs, ")");
    const std::byte* l = base + h;
    FE_CHECK(rd32(l) == kLocalSig, FormatError, ew(), ": bad local header signature ", hex(rd32(l), 8), " at offset ", h,
             " (expected 0x04034b50)");
    const uint16_t flags = rd16(l + 6), method = rd16(l + 8), nlen = rd16(l + 26), xlen = rd16(l + 28);
    const uint32_t crc = rd32(l + 14);
    uint64_t csize = rd32(l + 18), usize = rd32(l + 22);
    FE_CHECK(cd_ofs - h - kLocalSize >= static_cast<uint64_t>(nlen) + xlen, FormatError, ew(), ": local header at offset ",
             h, ": its name and extra field (", nlen, " + ", xlen, " bytes) run into the central directory");
    std::string_view lname(reinterpret_cast<const char*>(l + kLocalSize), nlen);
    FE_CHECK(lname == ent.name, FormatError, ew(), ": local header at offset ", h, " names it ", quote(lname),
             " (local and central headers disagree)");
    FE_CHECK(method == 0, FormatError, ew(), ": local header gives compression method ", method, " (", method_name(method),
             ") but the central directory gives 0 (local and central headers disagree)");
    FE_CHECK(flags == ent.flags, FormatError, ew(), ": local header flags ", hex(flags, 4), " differ from the central ",
             "directory's ", hex(ent.flags, 4), " (local and central headers disagree)");
    auto fail = [&](const std::string& msg) { throw FormatError(detail::cat(ew(), ": local header: ", msg)); };
    auto z64 = zip64_field(std::span(l + kLocalSize + nlen, xlen), fail);
    if (!(flags & kFlagDescriptor)) {
      // No data descriptor: the local header carries the real CRC and sizes.
      size_t at = 0;
      auto take64 = [&](uint64_t& v) {
        if (v != 0xffffffff) return;
        if (!z64 || z64->size() - at < 8) fail("size is 0xffffffff (zip64) but the zip64 extra field is missing or short");
        v = rd64(z64->data() + at);
        at += 8;
      };
      take64(usize);
      take64(csize);
      FE_CHECK(crc == ent.crc32 && usize == ent.size && csize == ent.size, FormatError, ew(), ": local header gives crc ",
               hex(crc, 8), ", size ", usize, ", compressed size ", csize, " but the central directory gives crc ",
               hex(ent.crc32, 8), " and size ", ent.size, " (local and central headers disagree)");
    } else {
      // With a data descriptor the local fields are zero (miniz, PyTorch) or repeat the real values.
      FE_CHECK(crc == 0 || crc == ent.crc32, FormatError, ew(), ": local header crc ", hex(crc, 8),
               " differs from the central directory's ", hex(ent.crc32, 8), " (local and central headers disagree)");
      for (uint64_t v : {csize, usize})
        FE_CHECK(v == 0 || v == 0xffffffff || v == ent.size, FormatError, ew(), ": local header size ", v,
                 " differs from the central directory's ", ent.size, " (local and central headers disagree)");
    }
    ent.data_offset = h + kLocalSize + nlen + xlen;
    FE_CHECK(ent.size <= cd_ofs - ent.data_offset, FormatError, ew(), ": data at offset ", ent.data_offset, " of ",
             ent.size, " bytes runs past the start of the central directory (offset ", cd_ofs, ", file size ", size,
             ")");
  }

  // No two entries may share bytes (overlapping entries are a zip-bomb trick, never a PyTorch output).
  std::vector<const ZipEntry*> by_offset;
  by_offset.reserve(entries_.size());
  for (const auto& ent : entries_) by_offset.push_back(&ent);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const ZipEntry* a, const ZipEntry* b) { return a->header_offset < b->header_offset; });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    const ZipEntry& a = *by_offset[i - 1];
    const ZipEntry& b = *by_offset[i];
    FE_CHECK(a.data_offset + a.size <= b.header_offset, FormatError, w, ": entries ", quote(a.name), " (data ",
             a.data_offset, "..", a.data_offset + a.size, ") and ", quote(b.name), " (local header at ",
             b.header_offset, ") overlap");
  }
}

std::vector<std::string> ZipReader::names() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& e : entries_) out.push_back(e.name);
  return out;
}

const ZipEntry* ZipReader::find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

const ZipEntry& ZipReader::entry(std::string_view name) const {
  const ZipEntry* e = find(name);
  FE_CHECK(e, ValueError, where(), " has no entry ", quote(name));
  return *e;
}

std::span<const std::byte> ZipReader::data(const ZipEntry& e) const {
  return {map_->data + e.data_offset, static_cast<size_t>(e.size)};
}

std::span<const std::byte> ZipReader::data(std::string_view name) const { return data(entry(name)); }

std::string_view ZipReader::view(std::string_view name) const {
  auto d = data(name);
  return {reinterpret_cast<const char*>(d.data()), d.size()};
}

void ZipReader::verify_crc32(const ZipEntry& e) const {
  const uint32_t got = crc32(data(e));
  FE_CHECK(got == e.crc32, FormatError, where(), ": entry ", quote(e.name), ": CRC-32 of its ", e.size, " bytes is ",
           hex(got, 8), " but the central directory records ", hex(e.crc32, 8), " (corrupted data)");
}

std::string_view ZipReader::root() const {
  if (entries_.empty()) return {};
  std::string_view n = entries_.front().name;
  size_t slash = n.find('/');
  return slash == std::string_view::npos ? std::string_view{} : n.substr(0, slash);
}

}  // namespace fe::serde
