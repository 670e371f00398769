// The device catalogue (analysis/devices.h): data/devices.json compiled in as a raw string
// (CMake writes generated/device_catalogue.inc at configure time, so the CLI needs no file at run
// time), read strictly with our JSON reader; and the --devices / --cap / byte-size parsers.
#include "fakeexport/analysis/devices.h"

#include <algorithm>
#include <limits>
#include <span>
#include <unordered_map>

#include "fakeexport/core/error.h"
#include "fakeexport/serde/json.h"

namespace fe::analysis {
namespace {

constexpr std::string_view kCatalogueText =
#include "device_catalogue.inc"
    ;

// Peak-FLOP keys the catalogue may use; anything else is a typo that would silently read as 0.
constexpr std::string_view kFlopKeys[] = {"float32", "tf32", "bfloat16", "float16", "float8"};
constexpr std::string_view kEntryKeys[] = {
    "name",       "aliases",         "vendor", "memory_bytes", "memory_note",         "memory_bandwidth_bytes_per_s",
    "peak_flops", "peak_flops_note", "link",   "sources",      "devices_per_package", "missing"};

// A Device index is an int8_t (cuda:0 ... cuda:127), so no list can name more devices than this.
constexpr int kMaxDevices = 128;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Comma-separated items, each trimmed; empty items are kept so that callers can name them.
std::vector<std::string_view> split_items(std::string_view s) {
  std::vector<std::string_view> items;
  for (size_t start = 0;;) {
    const size_t comma = s.find(',', start);
    items.push_back(trim(s.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) return items;
    start = comma + 1;
  }
}

bool contains(std::span<const std::string_view> keys, std::string_view k) {
  return std::find(keys.begin(), keys.end(), k) != keys.end();
}

// Reads one catalogue entry; `where` ("devices.json: device 3 (L4)") prefixes every error.
class EntryReader {
 public:
  EntryReader(const serde::json::Value& v, std::string where) : v_(v), where_(std::move(where)) {}

  [[noreturn]] void fail(std::string_view field, std::string_view what) const {
    throw FormatError(detail::cat(where_, ": field '", field, "' ", what));
  }
  const serde::json::Value* find(std::string_view field) const { return v_.find(field); }
  std::string string(std::string_view field) const {
    const auto* f = v_.find(field);
    if (!f) fail(field, "is missing");
    if (!f->is_string() || f->as_string().empty()) fail(field, "must be a non-empty string");
    return std::string(f->as_string());
  }
  std::vector<std::string> strings(std::string_view field, bool required) const {
    std::vector<std::string> out;
    const auto* f = v_.find(field);
    if (!f) {
      if (required) fail(field, "is missing");
      return out;
    }
    if (!f->is_array()) fail(field, "must be an array of strings");
    for (const auto& e : f->elements()) {
      if (!e.is_string() || e.as_string().empty()) fail(field, "must hold non-empty strings only");
      out.emplace_back(e.as_string());
    }
    return out;
  }
  // The value of `field` (found by the caller), which must be a positive finite number.
  double positive(const serde::json::Value* f, std::string_view field) const {
    if (!f->is_number() || !(f->as_double() > 0) || f->as_double() == std::numeric_limits<double>::infinity())
      fail(field, "must be a positive finite number");
    return f->as_double();
  }
  // A positive integer; 0 when `field` is absent and not required.
  int64_t positive_int(std::string_view field, bool required) const {
    const auto* f = v_.find(field);
    if (!f) {
      if (required) fail(field, "is missing");
      return 0;
    }
    if (f->kind() != serde::json::Kind::Integer || f->as_int() <= 0) fail(field, "must be a positive integer");
    return f->as_int();
  }

 private:
  const serde::json::Value& v_;
  std::string where_;
};

DeviceSpec read_entry(const serde::json::Value& v, const std::string& where) {
  if (!v.is_object()) throw FormatError(detail::cat(where, ": must be an object"));
  for (const auto& m : v.members())
    if (!contains(kEntryKeys, m.key)) throw FormatError(detail::cat(where, ": unknown field '", m.key, "'"));
  const EntryReader r(v, where);
  DeviceSpec d;
  d.name = r.string("name");
  d.aliases = r.strings("aliases", /*required=*/false);
  d.vendor = r.string("vendor");
  d.memory_note = r.string("memory_note");
  d.sources = r.strings("sources", /*required=*/true);
  if (d.sources.empty()) r.fail("sources", "must name at least one datasheet");
  for (const auto& url : d.sources)
    if (!url.starts_with("https://") && !url.starts_with("http://")) r.fail("sources", "must hold URLs");
  const int64_t per_package = r.positive_int("devices_per_package", /*required=*/false);
  if (per_package > 16) r.fail("devices_per_package", "must be at most 16");
  d.devices_per_package = per_package ? static_cast<int>(per_package) : 1;
  const int64_t memory = r.positive_int("memory_bytes", /*required=*/true);
  if (memory % d.devices_per_package) r.fail("memory_bytes", "does not split evenly over devices_per_package");
  // Numbers in the file are per package, as datasheets give them; a DeviceSpec is one PyTorch device.
  const double share = 1.0 / d.devices_per_package;
  d.memory_bytes = memory / d.devices_per_package;
  if (const auto* f = r.find("memory_bandwidth_bytes_per_s"))
    d.bandwidth_bytes_per_s = r.positive(f, "memory_bandwidth_bytes_per_s") * share;
  if (const auto* f = r.find("peak_flops")) {
    if (!f->is_object()) r.fail("peak_flops", "must be an object of dtype -> FLOP/s");
    for (const auto& m : f->members()) {
      if (!contains(kFlopKeys, m.key))
        r.fail("peak_flops", detail::cat("has unknown key '", m.key, "' (float32, tf32, bfloat16, float16, float8)"));
      d.peak_flops.emplace_back(std::string(m.key), r.positive(&m.value, "peak_flops") * share);
    }
  }
  if (const auto* f = r.find("link")) {
    if (!f->is_object()) r.fail("link", "must be an object {kind, bytes_per_s, note}");
    for (const auto& m : f->members())
      if (m.key != "kind" && m.key != "bytes_per_s" && m.key != "note")
        r.fail("link", detail::cat("has unknown key '", m.key, "'"));
    const EntryReader link(*f, where + ": link");
    d.link_kind = link.string("kind");
    const auto* bw = f->find("bytes_per_s");
    if (!bw) link.fail("bytes_per_s", "is missing");
    d.link_bytes_per_s = link.positive(bw, "bytes_per_s") * share;
  }
  return d;
}

// The catalogue plus its case-insensitive name index, built once.
struct Catalogue {
  std::vector<DeviceSpec> specs;
  std::unordered_map<std::string, size_t> index;  // lower-cased name or alias -> specs[i]
};

const Catalogue& catalogue() {
  static const Catalogue c = [] {
    Catalogue c;
    c.specs = parse_device_catalogue(kCatalogueText, "data/devices.json (compiled in)");
    for (size_t i = 0; i < c.specs.size(); ++i) {
      c.index.emplace(lower(c.specs[i].name), i);
      for (const auto& a : c.specs[i].aliases) c.index.emplace(lower(a), i);
    }
    return c;
  }();
  return c;
}

std::string known_names() {
  std::string out;
  for (const auto& d : catalogue().specs) out += (out.empty() ? "" : ", ") + d.name;
  return out;
}

}  // namespace

double DeviceSpec::peak_flops_named(std::string_view key) const {
  for (const auto& [k, v] : peak_flops)
    if (k == key) return v;
  return 0;
}

double DeviceSpec::peak_flops_for(DType t) const {
  switch (t) {
    case DType::Float32:
      return peak_flops_named("float32");
    case DType::BFloat16:
      return peak_flops_named("bfloat16");
    case DType::Float16:
      return peak_flops_named("float16");
    case DType::Float8_e5m2:
    case DType::Float8_e4m3fn:
    case DType::Float8_e5m2fnuz:
    case DType::Float8_e4m3fnuz:
      return peak_flops_named("float8");
    default:
      return 0;
  }
}

std::vector<DeviceSpec> parse_device_catalogue(std::string_view json, std::string_view source) {
  const auto doc = serde::json::Document::parse(json, source);
  const auto& root = doc.root();
  const auto* devices = root.is_object() ? root.find("devices") : nullptr;
  if (!devices || !devices->is_array())
    throw FormatError(detail::cat(source, ": expected an object with a \"devices\" array"));
  std::vector<DeviceSpec> specs;
  std::unordered_map<std::string, std::string> owner;  // lower-cased name/alias -> canonical name
  for (size_t i = 0; i < devices->size(); ++i) {
    const auto* name = (*devices)[i].is_object() ? (*devices)[i].find("name") : nullptr;
    std::string where = detail::cat(source, ": device ", i);
    if (name && name->is_string()) where += detail::cat(" (", name->as_string(), ")");
    DeviceSpec d = read_entry((*devices)[i], where);
    std::vector<std::string> keys{d.name};
    keys.insert(keys.end(), d.aliases.begin(), d.aliases.end());
    for (const auto& k : keys) {
      // Two entries answering to one name would make a lookup depend on file order.
      auto [it, fresh] = owner.emplace(lower(k), d.name);
      if (!fresh) throw FormatError(detail::cat(where, ": name '", k, "' is already used by ", it->second));
    }
    specs.push_back(std::move(d));
  }
  return specs;
}

const std::vector<DeviceSpec>& device_catalogue() { return catalogue().specs; }

const DeviceSpec& device_spec(std::string_view name) {
  const auto& c = catalogue();
  const auto it = c.index.find(lower(trim(name)));
  FE_CHECK(it != c.index.end(), ValueError, "unknown device '", name, "'; known: ", known_names(),
           " (case-insensitive; aliases in docs/devices.md)");
  return c.specs[it->second];
}

std::vector<DeviceCap> parse_device_list(std::string_view s) {
  FE_CHECK(!trim(s).empty(), ValueError, "--devices: no devices given (e.g. 8xH100-80GB or 2xA100-80GB,2xL4)");
  std::vector<DeviceCap> out;
  for (std::string_view item : split_items(s)) {
    FE_CHECK(!item.empty(), ValueError, "--devices: empty item in '", s, "'");
    // "8xH100-80GB": a count only when digits are followed by an 'x' (so a name may start with digits).
    int64_t count = 1;
    std::string_view name = item;
    const size_t digits = item.find_first_not_of("0123456789");
    if (digits > 0 && digits != std::string_view::npos && (item[digits] == 'x' || item[digits] == 'X')) {
      FE_CHECK(digits <= 4, ValueError, "--devices: item '", item, "' asks for more than ", kMaxDevices,
               " devices (a device index stops at cuda:", kMaxDevices - 1, ")");
      count = std::stoll(std::string(item.substr(0, digits)));
      name = trim(item.substr(digits + 1));
      FE_CHECK(count > 0, ValueError, "--devices: item '", item, "' asks for 0 devices");
      FE_CHECK(!name.empty(), ValueError, "--devices: item '", item, "' names no device after the count");
    }
    const DeviceSpec* spec = nullptr;
    try {
      spec = &device_spec(name);
    } catch (const ValueError& e) {
      rethrow_with_prefix(e, detail::cat("--devices: item '", item, "': "));
    }
    const int64_t n = count * spec->devices_per_package;
    FE_CHECK(static_cast<int64_t>(out.size()) + n <= kMaxDevices, ValueError, "--devices: item '", item,
             "' brings the list to ", static_cast<int64_t>(out.size()) + n,
             " devices; a device index stops at cuda:", kMaxDevices - 1);
    for (int64_t k = 0; k < n; ++k)
      out.push_back({Device(DeviceType::CUDA, static_cast<int8_t>(out.size())), spec->memory_bytes, spec});
  }
  return out;
}

std::vector<DeviceCap> parse_caps(std::string_view s) {
  FE_CHECK(!trim(s).empty(), ValueError, "--cap: no capacities given (e.g. cuda:0=80GB,cpu=512GiB)");
  std::vector<DeviceCap> out;
  std::vector<std::string_view> given;  // the item that named out[i], for the duplicate message
  for (std::string_view item : split_items(s)) {
    FE_CHECK(!item.empty(), ValueError, "--cap: empty item in '", s, "'");
    const size_t eq = item.find('=');
    FE_CHECK(eq != std::string_view::npos && eq > 0 && eq + 1 < item.size(), ValueError,
             "--cap: expected DEVICE=SIZE (e.g. cuda:0=80GB), got '", item, "'");
    const std::string_view dev_text = trim(item.substr(0, eq));
    Device dev;
    try {
      dev = Device::parse(dev_text).normalized();
    } catch (const ValueError& e) {
      rethrow_with_prefix(e, detail::cat("--cap: item '", item, "': "));
    }
    FE_CHECK(!dev.is_meta(), ValueError, "--cap: item '", item, "': a meta device holds no data");
    const int64_t bytes = parse_bytes(item.substr(eq + 1), detail::cat("--cap: item '", item, "'"));
    FE_CHECK(bytes > 0, ValueError, "--cap: item '", item, "': a capacity must be positive");
    for (size_t i = 0; i < out.size(); ++i)
      FE_CHECK(out[i].device != dev, ValueError, "--cap: ", dev.str(), " is given twice ('", given[i], "' and '", item,
               "')");
    out.push_back({dev, bytes, nullptr});
    given.push_back(item);
  }
  return out;
}

int64_t parse_bytes(std::string_view text, std::string_view what) {
  const std::string_view s = trim(text);
  FE_CHECK(!s.empty(), ValueError, what, ": empty size");
  FE_CHECK(s.front() != '-', ValueError, what, ": negative size '", text, "'");
  // Digits, an optional fraction, then a unit: the value is computed exactly in 128-bit integers.
  using u128 = unsigned __int128;
  constexpr u128 kMantissaCap = u128(1) << 100;  // far above any int64 size; keeps mantissa * unit in range
  u128 mantissa = 0, scale = 1;
  size_t i = 0, int_digits = 0, frac_digits = 0;
  const auto digit_at = [&](size_t k) { return k < s.size() && s[k] >= '0' && s[k] <= '9'; };
  for (; digit_at(i); ++i, ++int_digits) {
    mantissa = mantissa * 10 + static_cast<unsigned>(s[i] - '0');
    FE_CHECK(mantissa < kMantissaCap, ValueError, what, ": size '", text, "' overflows int64");
  }
  if (i < s.size() && s[i] == '.') {
    for (++i; digit_at(i); ++i, ++frac_digits) {
      FE_CHECK(frac_digits < 24, ValueError, what, ": size '", text, "' has too many decimals");
      mantissa = mantissa * 10 + static_cast<unsigned>(s[i] - '0');
      scale *= 10;
      FE_CHECK(mantissa < kMantissaCap, ValueError, what, ": size '", text, "' overflows int64");
    }
    FE_CHECK(frac_digits > 0, ValueError, what, ": malformed size '", text, "' (expected digits after '.')");
  }
  FE_CHECK(int_digits > 0, ValueError, what, ": malformed size '", text, "' (expected a number such as 80GB)");
  const std::string unit = lower(trim(s.substr(i)));
  static constexpr std::string_view kPrefixes = "kmgtpe";
  u128 factor = 0;
  if (unit.empty() || unit == "b") {
    factor = 1;
  } else if (const size_t p = kPrefixes.find(unit[0]); p != std::string_view::npos) {
    const std::string_view rest = std::string_view(unit).substr(1);
    const char upper = "KMGTPE"[p];
    FE_CHECK(!rest.empty(), ValueError, what, ": ambiguous unit '", s.substr(i), "' in '", text, "': write ",
             s.substr(0, i), upper, "B (powers of 1000) or ", s.substr(0, i), upper, "iB (powers of 1024)");
    if (rest == "b") {
      factor = 1;
      for (size_t k = 0; k <= p; ++k) factor *= 1000;
    } else if (rest == "ib" || rest == "i") {
      factor = u128(1) << (10 * (p + 1));
    }
  }
  FE_CHECK(factor != 0, ValueError, what, ": unknown unit '", trim(s.substr(i)), "' in '", text,
           "' (B; KB MB GB TB PB EB are powers of 1000, KiB MiB GiB TiB PiB EiB powers of 1024)");
  FE_CHECK(mantissa <= std::numeric_limits<u128>::max() / factor, ValueError, what, ": size '", text,
           "' overflows int64");
  const u128 scaled = mantissa * factor;
  FE_CHECK(scaled % scale == 0, ValueError, what, ": size '", text, "' is not a whole number of bytes");
  const u128 bytes = scaled / scale;
  FE_CHECK(bytes <= static_cast<u128>(std::numeric_limits<int64_t>::max()), ValueError, what, ": size '", text,
           "' overflows int64");
  return static_cast<int64_t>(bytes);
}

}  // namespace fe::analysis
