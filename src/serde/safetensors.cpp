// safetensors reader (mmap + strict header validation) and writer matching safetensors.torch.save_file.
#include "fakeexport/serde/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace fe {

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian; no byte swapping here");

namespace {

using ojson = nlohmann::ordered_json;
// safetensors' MAX_HEADER_SIZE: bigger headers are refused before being read.
constexpr uint64_t kMaxHeaderSize = 100'000'000;

struct DTypeName {
  DType dtype;
  std::string_view name;
  int rank;  // position in safetensors' Rust `Dtype` enum; save_file sorts by it, widest first
};
// Ranks follow the enum order observed from safetensors 0.8 (see tests/fixtures/safetensors/order).
constexpr std::array<DTypeName, 18> kDTypes{{
    {DType::Bool, "BOOL", 0},           {DType::UInt8, "U8", 1},
    {DType::Int8, "I8", 2},             {DType::Float8_e5m2, "F8_E5M2", 3},
    {DType::Float8_e4m3fn, "F8_E4M3", 4}, {DType::Float8_e4m3fnuz, "F8_E4M3FNUZ", 5},
    {DType::Float8_e5m2fnuz, "F8_E5M2FNUZ", 6}, {DType::Int16, "I16", 7},
    {DType::UInt16, "U16", 8},          {DType::Float16, "F16", 9},
    {DType::BFloat16, "BF16", 10},      {DType::Int32, "I32", 11},
    {DType::UInt32, "U32", 12},         {DType::Float32, "F32", 13},
    {DType::Complex64, "C64", 14},      {DType::Float64, "F64", 15},
    {DType::Int64, "I64", 16},          {DType::UInt64, "U64", 17},
}};

const DTypeName* find_dtype(DType t) {
  for (const auto& d : kDTypes)
    if (d.dtype == t) return &d;
  return nullptr;
}

std::string jquote(std::string_view s) {
  // Non-UTF-8 bytes are replaced so that error messages themselves never fail to format.
  return ojson(std::string(s)).dump(-1, ' ', false, ojson::error_handler_t::replace);
}

std::string shape_str(const std::vector<int64_t>& shape) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << ']';
  return os.str();
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

std::optional<std::string_view> safetensors_dtype_name(DType t) {
  const DTypeName* d = find_dtype(t);
  return d ? std::optional(d->name) : std::nullopt;
}

std::optional<DType> parse_safetensors_dtype(std::string_view s) {
  for (const auto& d : kDTypes)
    if (d.name == s) return d.dtype;
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Reader

/// The read-only mapping of the whole file; unmapped when the SafetensorsFile goes away.
struct SafetensorsFile::Mapping {
  const std::byte* data = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (data) munmap(const_cast<std::byte*>(data), size);
  }
};

SafetensorsFile::SafetensorsFile(SafetensorsFile&&) noexcept = default;
SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&&) noexcept = default;
SafetensorsFile::~SafetensorsFile() = default;

SafetensorsFile::SafetensorsFile(std::string path) : path_(std::move(path)), map_(std::make_unique<Mapping>()) {
  const std::string where = "safetensors file '" + path_ + "'";
  int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  FE_CHECK(fd >= 0, FileIOError, where, ": cannot open: ", errno_text());
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    std::string err = errno_text();
    ::close(fd);
    throw FileIOError(detail::cat(where, ": cannot stat: ", err));
  }
  if (!S_ISREG(st.st_mode)) {  // a directory or a device: not a file we could map
    ::close(fd);
    throw FileIOError(detail::cat(where, ": not a regular file (", S_ISDIR(st.st_mode) ? "a directory" : "a device, pipe or socket", ")"));
  }
  const auto file_size = static_cast<uint64_t>(st.st_size);
  if (file_size < 8) {
    ::close(fd);
    throw FormatError(detail::cat(where, ": truncated: ", file_size,
                                  " bytes, fewer than the 8-byte header length prefix"));
  }
  void* p = ::mmap(nullptr, file_size, PROT_READ, MAP_PRIVATE, fd, 0);
  std::string err = p == MAP_FAILED ? errno_text() : "";
  ::close(fd);  // the mapping stays valid without the descriptor
  FE_CHECK(p != MAP_FAILED, FileIOError, where, ": cannot mmap ", file_size, " bytes: ", err);
  map_->data = static_cast<const std::byte*>(p);
  map_->size = file_size;

  uint64_t n = 0;
  std::memcpy(&n, map_->data, 8);
  FE_CHECK(n <= kMaxHeaderSize, FormatError, where, ": header size ", n, " exceeds safetensors' limit of ",
           kMaxHeaderSize, " bytes");
  FE_CHECK(n <= file_size - 8, FormatError, where, ": header size ", n, " runs past the end of the file (",
           file_size, " bytes, so at most ", file_size - 8, " header bytes)");
  header_size_ = n;
  buffer_size_ = file_size - 8 - n;
  parse_header(std::string_view(reinterpret_cast<const char*>(map_->data) + 8, n));
}

void SafetensorsFile::parse_header(std::string_view text) {
  const std::string where = "safetensors file '" + path_ + "'";
  FE_CHECK(!text.empty() && text.front() == '{', FormatError, where,
           ": header does not start with '{' (a JSON object), first byte is ",
           text.empty() ? std::string("<none>") : jquote(text.substr(0, 1)));

  // nlohmann keeps the last of duplicate keys silently; the callback sees every key first.
  std::vector<std::pair<std::set<std::string>, std::string>> objects;  // keys seen, last key
  std::optional<std::string> duplicate;
  auto cb = [&](int, ojson::parse_event_t ev, ojson& parsed) {
    using E = ojson::parse_event_t;
    if (ev == E::object_start) {
      objects.emplace_back();
    } else if (ev == E::object_end) {
      if (!objects.empty()) objects.pop_back();
    } else if (ev == E::key && !objects.empty()) {
      std::string key = parsed.get<std::string>();
      if (!objects.back().first.insert(key).second && !duplicate) {
        duplicate = objects.size() == 1
                        ? detail::cat("duplicate entry ", jquote(key))
                        : detail::cat("duplicate key ", jquote(key), " inside entry ",
                                      jquote(objects[objects.size() - 2].second));
      }
      objects.back().second = key;
    }
    return true;
  };
  ojson header;
  try {
    header = ojson::parse(text.begin(), text.end(), cb);
  } catch (const ojson::exception& e) {  // parse_error, or out_of_range for an overflowing number
    throw FormatError(detail::cat(where, ": header is not valid JSON: ", e.what()));
  }
  FE_CHECK(!duplicate, FormatError, where, ": ", *duplicate);
  FE_CHECK(header.is_object(), FormatError, where, ": header is JSON ", header.type_name(), ", not an object");

  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const ojson& v = it.value();
    if (name == "__metadata__") {
      FE_CHECK(v.is_object(), FormatError, where, ": __metadata__ is ", v.type_name(),
               ", not an object of strings");
      SafetensorsMetadata md;
      for (auto m = v.begin(); m != v.end(); ++m) {
        FE_CHECK(m.value().is_string(), FormatError, where, ": __metadata__ key ", jquote(m.key()), " is ",
                 m.value().type_name(), " ", m.value().dump(), ", not a string");
        md.emplace(m.key(), m.value().get<std::string>());
      }
      metadata_ = std::move(md);
      continue;
    }
    const std::string ent = detail::cat(where, ": tensor ", jquote(name));
    FE_CHECK(v.is_object(), FormatError, ent, ": entry is ", v.type_name(), ", not an object");
    for (const char* field : {"dtype", "shape", "data_offsets"})
      FE_CHECK(v.contains(field), FormatError, ent, ": missing field '", field, "'");
    // Extra fields are ignored, as safetensors' own (serde) reader does.

    const ojson& jd = v["dtype"];
    FE_CHECK(jd.is_string(), FormatError, ent, ": field 'dtype' is ", jd.dump(), ", not a string");
    auto dt = parse_safetensors_dtype(jd.get<std::string>());
    FE_CHECK(dt, FormatError, ent, ": field 'dtype' is unknown or unsupported dtype ", jd.dump());

    const ojson& js = v["shape"];
    FE_CHECK(js.is_array(), FormatError, ent, ": field 'shape' is ", js.dump(), ", not an array");
    SafetensorsEntry e{name, *dt, {}, 0, 0};
    // numel * itemsize in unsigned 128-bit-free form: stop as soon as it would pass INT64_MAX.
    uint64_t nbytes = static_cast<uint64_t>(itemsize(*dt));
    constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    bool overflow = false;
    for (size_t i = 0; i < js.size(); ++i) {
      const ojson& d = js[i];
      FE_CHECK(d.is_number_unsigned() || (d.is_number_integer() && d.get<int64_t>() >= 0), FormatError, ent,
               ": field 'shape' ", js.dump(), " has entry ", i, " = ", d.dump(), ", not a non-negative integer");
      uint64_t s = d.get<uint64_t>();
      FE_CHECK(s <= kMax, FormatError, ent, ": field 'shape' ", js.dump(), " has entry ", i, " = ", s,
               ", more than int64 can hold");
      e.shape.push_back(static_cast<int64_t>(s));
      if (s != 0 && nbytes > kMax / s) overflow = true;
      else nbytes *= s;
    }
    // A zero dim makes the product 0 whatever came before it (PyTorch's numel does the same).
    if (std::find(e.shape.begin(), e.shape.end(), 0) != e.shape.end()) overflow = false, nbytes = 0;
    FE_CHECK(!overflow, FormatError, ent, ": field 'shape' ", js.dump(), " with dtype ", jd.get<std::string>(),
             " has numel * itemsize beyond int64");

    const ojson& jo = v["data_offsets"];
    FE_CHECK(jo.is_array() && jo.size() == 2 && jo[0].is_number_unsigned() && jo[1].is_number_unsigned(),
             FormatError, ent, ": field 'data_offsets' is ", jo.dump(), ", not [begin, end] with unsigned integers");
    e.begin = jo[0].get<uint64_t>();
    e.end = jo[1].get<uint64_t>();
    FE_CHECK(e.begin <= e.end, FormatError, ent, ": field 'data_offsets' [", e.begin, ", ", e.end,
             "] has begin after end");
    FE_CHECK(e.end <= buffer_size_, FormatError, ent, ": field 'data_offsets' [", e.begin, ", ", e.end,
             "] runs past the end of the data buffer (", buffer_size_, " bytes)");
    FE_CHECK(e.end - e.begin == nbytes, FormatError, ent, ": field 'data_offsets' [", e.begin, ", ", e.end,
             "] spans ", e.end - e.begin, " bytes but dtype ", jd.get<std::string>(), " and shape ",
             shape_str(e.shape), " need ", nbytes, " bytes");
    index_.emplace(name, entries_.size());
    entries_.push_back(std::move(e));
  }

  // The spec: the entries tile the buffer exactly, no overlap, no gap, nothing left over.
  std::vector<const SafetensorsEntry*> by_offset;
  for (const auto& e : entries_) by_offset.push_back(&e);
  std::sort(by_offset.begin(), by_offset.end(), [](const auto* a, const auto* b) {
    return std::pair(a->begin, a->end) < std::pair(b->begin, b->end);
  });
  uint64_t pos = 0;
  const SafetensorsEntry* prev = nullptr;
  for (const auto* e : by_offset) {
    FE_CHECK(e->begin >= pos, FormatError, where, ": tensor ", jquote(e->name), ": field 'data_offsets' [",
             e->begin, ", ", e->end, "] overlaps tensor ", jquote(prev ? prev->name : ""), " [",
             prev ? prev->begin : 0, ", ", pos, "]");
    FE_CHECK(e->begin == pos, FormatError, where, ": tensor ", jquote(e->name), ": field 'data_offsets' [",
             e->begin, ", ", e->end, "] leaves a gap of bytes [", pos, ", ", e->begin, ") after ",
             prev ? "tensor " + jquote(prev->name) : std::string("the buffer start"));
    pos = e->end;
    prev = e;
  }
  FE_CHECK(pos == buffer_size_, FormatError, where, ": data buffer has ", buffer_size_,
           " bytes but the tensors cover only [0, ", pos, "): ", buffer_size_ - pos, " trailing bytes",
           prev ? " after tensor " + jquote(prev->name) : std::string());
}

const std::byte* SafetensorsFile::buffer() const { return map_->data + 8 + header_size_; }

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& e : entries_) out.push_back(e.name);
  return out;
}

bool SafetensorsFile::contains(std::string_view name) const { return index_.find(name) != index_.end(); }

const SafetensorsEntry& SafetensorsFile::entry(std::string_view name) const {
  auto it = index_.find(name);
  FE_CHECK(it != index_.end(), ValueError, "safetensors file '", path_, "' has no tensor ", jquote(name));
  return entries_[it->second];
}

std::span<const std::byte> SafetensorsFile::bytes(std::string_view name) const {
  const SafetensorsEntry& e = entry(name);
  return {buffer() + e.begin, static_cast<size_t>(e.nbytes())};
}

Tensor SafetensorsFile::load(std::string_view name) const {
  const SafetensorsEntry& e = entry(name);
  DimVector sizes;
  for (int64_t s : e.shape) sizes.push_back(SymInt(s));
  auto impl = std::make_shared<TensorImpl>();
  impl->meta = make_contiguous(IntSpan(sizes.data(), sizes.size()), e.dtype, kCPU);
  impl->storage = std::make_shared<Storage>(static_cast<size_t>(e.nbytes()));
  if (e.nbytes()) std::memcpy(impl->storage->data(), buffer() + e.begin, e.nbytes());
  return Tensor(std::move(impl));
}

// ---------------------------------------------------------------------------------------------
// Writer

namespace {

struct Planned {
  const std::string* name;
  const Tensor* tensor;
  const DTypeName* dtype;
  uint64_t nbytes;
};

std::string json_string(const std::string& s, std::string_view what) {
  try {
    return ojson(s).dump(-1, ' ', false, ojson::error_handler_t::strict);
  } catch (const ojson::type_error&) {
    throw ValueError(detail::cat("save_safetensors: ", what, " ", jquote(s), " is not valid UTF-8"));
  }
}

// Checks every tensor before a byte is written and puts them in save_file's order.
std::vector<Planned> plan(const std::vector<std::pair<std::string, Tensor>>& tensors) {
  std::vector<Planned> out;
  std::set<std::string_view> seen;
  for (const auto& [name, t] : tensors) {
    const std::string q = jquote(name);
    FE_CHECK(seen.insert(name).second, ValueError, "save_safetensors: duplicate tensor name ", q);
    FE_CHECK(name != "__metadata__", ValueError, "save_safetensors: '__metadata__' is reserved, not a tensor name");
    FE_CHECK(t.defined(), ValueError, "save_safetensors: tensor ", q, " is undefined");
    FE_CHECK(!t.is_fake() && t.has_storage(), DataAccessError, "save_safetensors: tensor ", q, " is ",
             t.is_fake() ? "a fake tensor" : "a meta tensor", " (", t.meta().annotation(),
             ") and has no data to save; save real tensors");
    const DTypeName* d = find_dtype(t.dtype());
    FE_CHECK(d, DTypeError, "save_safetensors: tensor ", q, " has dtype ", dtype_name(t.dtype()),
             ", which safetensors cannot store");
    // save_file raises ValueError here rather than packing; we follow it.
    FE_CHECK(t.meta().is_contiguous(), ValueError, "save_safetensors: tensor ", q,
             " is not contiguous (", t.meta().annotation(), "); call .contiguous() on it before saving");
    out.push_back({&name, &t, d, static_cast<uint64_t>(t.numel() * itemsize(t.dtype()))});
  }
  // save_file refuses tensors whose bytes overlap in one storage (torch_shared_tensors).
  std::vector<std::tuple<const Storage*, uint64_t, uint64_t, const std::string*>> spans;
  for (const auto& p : out) {
    if (p.nbytes == 0) continue;
    auto start = static_cast<uint64_t>(p.tensor->meta().storage_offset.expect_int() * itemsize(p.tensor->dtype()));
    spans.emplace_back(p.tensor->impl()->storage.get(), start, start + p.nbytes, p.name);
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i) {
    const auto& [sa, ba, ea, na] = spans[i - 1];
    const auto& [sb, bb, eb, nb] = spans[i];
    FE_CHECK(sa != sb || bb >= ea, ValueError, "save_safetensors: tensors ", jquote(*na), " and ", jquote(*nb),
             " share memory; safetensors stores each tensor's bytes once, so save one of them (or clone)");
  }
  std::stable_sort(out.begin(), out.end(), [](const Planned& a, const Planned& b) {
    if (a.dtype->rank != b.dtype->rank) return a.dtype->rank > b.dtype->rank;
    return *a.name < *b.name;  // byte order, like Rust's String Ord
  });
  return out;
}

std::string header_for(const std::vector<Planned>& planned, const std::optional<SafetensorsMetadata>& metadata) {
  std::string h = "{";
  if (metadata) {
    h += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [k, v] : *metadata) {
      if (!first) h += ',';
      first = false;
      h += json_string(k, "metadata key");
      h += ':';
      h += json_string(v, "metadata value");
    }
    h += '}';
  }
  uint64_t offset = 0;
  for (const auto& p : planned) {
    if (h.size() > 1) h += ',';
    h += json_string(*p.name, "tensor name");
    h += ":{\"dtype\":\"";
    h += p.dtype->name;
    h += "\",\"shape\":[";
    for (int64_t i = 0; i < p.tensor->dim(); ++i) {
      if (i) h += ',';
      h += std::to_string(p.tensor->size(i).expect_int());
    }
    h += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + p.nbytes) + "]}";
    offset += p.nbytes;
  }
  h += '}';
  h.append((8 - h.size() % 8) % 8, ' ');  // keeps the data buffer 8-byte aligned in the file
  return h;
}

}  // namespace

std::string safetensors_header(const std::vector<std::pair<std::string, Tensor>>& tensors,
                               const std::optional<SafetensorsMetadata>& metadata) {
  return header_for(plan(tensors), metadata);
}

void save_safetensors(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& tensors,
                      const std::optional<SafetensorsMetadata>& metadata) {
  std::vector<Planned> planned = plan(tensors);
  const std::string header = header_for(planned, metadata);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  FE_CHECK(out.good(), FileIOError, "save_safetensors: cannot open '", path, "' for writing: ", errno_text());
  uint64_t n = header.size();
  std::array<char, 8> prefix;
  std::memcpy(prefix.data(), &n, 8);
  out.write(prefix.data(), 8);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  for (const auto& p : planned)
    if (p.nbytes) out.write(static_cast<const char*>(p.tensor->data_ptr()), static_cast<std::streamsize>(p.nbytes));
  out.flush();
  FE_CHECK(out.good(), FileIOError, "save_safetensors: writing '", path, "' failed: ", errno_text());
}

}  // namespace fe
