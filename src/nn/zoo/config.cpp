// zoo::Config: a config.json behind typed getters that name the file and field on any error.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fakeexport/core/error.h"
#include "fakeexport/nn/zoo.h"

namespace fe::zoo {

struct Config::Impl {
  std::shared_ptr<const nlohmann::json> root;  // keeps sub-objects alive
  const nlohmann::json* obj;
  std::string origin;  // file name
  std::string path;    // "" or "encoder." for nested configs
};

namespace {
using json = nlohmann::json;

const json* find(const Config::Impl& c, std::string_view key) {
  auto it = c.obj->find(std::string(key));
  return it == c.obj->end() ? nullptr : &*it;
}

[[noreturn]] void fail(const Config::Impl& c, std::string_view key, const std::string& what) {
  throw ValueError(detail::cat(c.origin, ": field '", c.path, key, "' ", what));
}

const json& need(const Config::Impl& c, std::string_view key) {
  const json* v = find(c, key);
  if (v == nullptr || v->is_null()) {
    std::string mt = c.obj->contains("model_type") && (*c.obj)["model_type"].is_string()
                         ? " (model_type '" + (*c.obj)["model_type"].get<std::string>() + "')"
                         : "";
    fail(c, key, "is missing" + mt);
  }
  return *v;
}
}  // namespace

Config Config::parse(std::string_view text, std::string origin) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for an overflowing number
    throw ValueError(detail::cat(origin, ": not valid JSON (", e.what(), ")"));
  }
  FE_CHECK(j.is_object(), ValueError, origin, ": a config must be a JSON object, got ", j.type_name());
  auto root = std::make_shared<const json>(std::move(j));
  auto impl = std::make_shared<Impl>();
  impl->obj = root.get();
  impl->root = std::move(root);
  impl->origin = std::move(origin);
  return Config(std::move(impl));
}

Config Config::from_file(const std::string& path, int64_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p(path);
  if (fs::is_directory(p, ec)) p /= "config.json";
  if (const auto size = fs::file_size(p, ec); !ec && static_cast<int64_t>(size) > max_bytes)
    throw LimitError(detail::cat(p.string(), ": ", size, " bytes is over the limit of ", max_bytes,
                                 " bytes for a config.json (raise it with --max-json-bytes)"));
  std::ifstream in(p, std::ios::binary);
  FE_CHECK(in.good(), ValueError, p.string(), ": cannot read (", fs::exists(p, ec) ? "unreadable" : "no such file", ")");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), p.string());
}

const std::string& Config::origin() const { return impl_->origin; }
std::string Config::model_type() const { return get_string("model_type"); }
bool Config::has(std::string_view key) const { return find(*impl_, key) != nullptr; }
bool Config::is_null(std::string_view key) const {
  const json* v = find(*impl_, key);
  return v == nullptr || v->is_null();
}

int64_t Config::get_int(std::string_view key) const {
  const json& v = need(*impl_, key);
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    fail(*impl_, key, "is out of the int64 range, got " + v.dump());
  if (v.is_number_integer()) return v.get<int64_t>();
  // 1e4-style floats that are whole numbers are accepted (some configs write rope_theta = 10000.0);
  // the range is checked first (casting 2e48 to int64 is undefined behaviour).
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!(std::fabs(d) < 9.2e18)) fail(*impl_, key, "is out of the int64 range, got " + v.dump());
    if (d == std::trunc(d)) return static_cast<int64_t>(d);
  }
  fail(*impl_, key, "must be an integer, got " + v.dump());
}
int64_t Config::get_int(std::string_view key, int64_t dflt) const { return is_null(key) ? dflt : get_int(key); }

std::vector<int64_t> Config::get_int_list(std::string_view key) const {
  if (is_null(key)) return {};
  const json& v = need(*impl_, key);
  if (!v.is_array()) fail(*impl_, key, "must be a list of integers, got " + v.dump());
  std::vector<int64_t> out;
  for (const json& e : v) {
    if (!e.is_number_integer()) fail(*impl_, key, "must be a list of integers, got " + v.dump());
    out.push_back(e.get<int64_t>());
  }
  return out;
}

double Config::get_double(std::string_view key) const {
  const json& v = need(*impl_, key);
  if (!v.is_number()) fail(*impl_, key, "must be a number, got " + v.dump());
  return v.get<double>();
}
double Config::get_double(std::string_view key, double dflt) const { return is_null(key) ? dflt : get_double(key); }

bool Config::get_bool(std::string_view key, bool dflt) const {
  if (is_null(key)) return dflt;
  const json& v = need(*impl_, key);
  if (!v.is_boolean()) fail(*impl_, key, "must be true or false, got " + v.dump());
  return v.get<bool>();
}

std::string Config::get_string(std::string_view key) const {
  const json& v = need(*impl_, key);
  if (!v.is_string()) fail(*impl_, key, "must be a string, got " + v.dump());
  return v.get<std::string>();
}
std::string Config::get_string(std::string_view key, std::string dflt) const {
  return is_null(key) ? dflt : get_string(key);
}

Config Config::sub(std::string_view key) const {
  const json& v = need(*impl_, key);
  if (!v.is_object()) fail(*impl_, key, "must be an object, got " + v.dump());
  auto impl = std::make_shared<Impl>(Impl{impl_->root, &v, impl_->origin, impl_->path + std::string(key) + "."});
  return Config(std::move(impl));
}

std::string Config::field_name(std::string_view key) const { return impl_->path + std::string(key); }

int64_t Config::size_of(std::string_view key, int64_t dflt) const {
  if (is_null(key)) return dflt;
  const json& v = need(*impl_, key);
  if (!v.is_object() && !v.is_array()) fail(*impl_, key, "must be an object or a list, got " + v.dump());
  return static_cast<int64_t>(v.size());
}

std::string Config::dump() const { return impl_->obj->dump(); }

}  // namespace fe::zoo
