// Placement by module-path prefix (HuggingFace's device_map, with ranges) and the re-homing of a
// built model's tensors. Fake tensors move by metadata alone, so placing a 405B model costs nothing.
#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "fakeexport/core/error.h"
#include "fakeexport/core/tensor.h"
#include "fakeexport/nn/zoo.h"

namespace fe::zoo {
namespace {

std::vector<std::string_view> split_dots(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == '.') {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

std::optional<int64_t> parse_index(std::string_view s) {
  int64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

// `cuda` means the current device, which fake tensors report as cuda:0 (like FakeTensorMode).
Device normalize(Device d) {
  return d.is_cpu() || d.type() == DeviceType::Meta || d.has_index() ? d : Device(d.type(), 0);
}

}  // namespace

void Placement::add(std::string_view prefix, Device device) {
  FE_CHECK(!prefix.empty(), ValueError, "placement: empty module prefix for device ", device.str());
  const auto parts = split_dots(prefix);
  for (std::string_view p : parts)
    FE_CHECK(!p.empty(), ValueError, "placement: malformed module prefix '", prefix, "' (empty component)");
  Entry e{std::string(prefix), std::string(prefix), -1, -1, static_cast<int>(parts.size()), normalize(device)};
  const std::string_view last = parts.back();
  if (auto dash = last.find('-'); dash != std::string_view::npos) {
    auto lo = parse_index(last.substr(0, dash));
    auto hi = parse_index(last.substr(dash + 1));
    FE_CHECK(lo && hi && *lo <= *hi, ValueError, "placement: malformed range '", last, "' in '", prefix,
             "' (expected FIRST-LAST with FIRST <= LAST, e.g. model.layers.0-39)");
    e.lo = *lo;
    e.hi = *hi;
    e.key = std::string(prefix.substr(0, parts.size() == 1 ? 0 : prefix.size() - last.size() - 1));
  }
  (e.lo >= 0 ? ranges_ : exact_)[e.key].push_back(entries_.size());
  entries_.push_back(std::move(e));
}

Device Placement::device_for(std::string_view dotted_name) const {
  // The deepest match wins; among equally deep ones, the entry added last.
  int best_depth = 0;
  size_t best = 0;
  for_each_match(dotted_name, [&](size_t e) {
    const int d = entries_[e].depth;
    if (d > best_depth || (d == best_depth && e > best)) best_depth = d, best = e;
  });
  return best_depth > 0 ? entries_[best].device : normalize(default_);
}

Placement Placement::pipeline(const std::vector<Unit>& units, const std::vector<Device>& devices) {
  FE_CHECK(!devices.empty(), ValueError, "--pipeline: no devices given");
  Placement p(devices.front());
  const int64_t k = static_cast<int64_t>(devices.size());
  const int64_t n = std::count_if(units.begin(), units.end(), [](const Unit& u) { return u.repeated; });
  FE_CHECK(n >= k, ValueError, "--pipeline: ", k, " devices but the model has only ", n,
           " repeated layers (each device needs at least one)");
  const int64_t q = n / k, r = n % k;
  int64_t i = 0;  // index among repeated units
  size_t dev = 0;
  for (const Unit& u : units) {
    if (u.repeated) {
      // Device j holds layers [start_j, start_j + q + (j < r)).
      int64_t start = 0;
      dev = 0;
      while (true) {
        const int64_t len = q + (static_cast<int64_t>(dev) < r ? 1 : 0);
        if (i < start + len) break;
        start += len;
        ++dev;
      }
      ++i;
    }
    p.add(u.path, devices[dev]);
  }
  return p;
}

void place(Model& model, const Placement& placement) {
  std::vector<bool> used(placement.entries().size(), false);
  // Tied tensors: one new handle per old one, on the device of the first name.
  std::unordered_map<const TensorImpl*, Tensor> moved;
  const auto slots = model.named_tensor_slots();
  moved.reserve(slots.size());
  for (auto& [name, slot] : slots) {
    // One walk of the name's prefixes: which entries are used, and the deepest (last added) wins,
    // as device_for decides.
    int best_depth = 0;
    size_t best = 0;
    placement.for_each_match(name, [&](size_t e) {
      used[e] = true;
      const int depth = placement.entries()[e].depth;
      if (depth > best_depth || (depth == best_depth && e > best)) best_depth = depth, best = e;
    });
    if (auto it = moved.find(slot->impl()); it != moved.end()) {
      *slot = it->second;
      continue;
    }
    const Device d = best_depth > 0 ? placement.entries()[best].device : placement.device_for(name);
    Tensor old = *slot;
    if (old.device() != d) {
      if (old.is_fake()) {
        auto impl = std::make_shared<TensorImpl>(*old.impl());
        impl->meta.device = d;
        impl->trace_node = nullptr;
        impl->trace_id = 0;
        *slot = Tensor(std::move(impl));
      } else {
        Tensor t = old.to(d);
        if (old.is_parameter()) t = make_parameter(t, old.requires_grad());
        *slot = t;
      }
    }
    moved.emplace(old.impl(), *slot);
  }
  for (size_t i = 0; i < used.size(); ++i)
    FE_CHECK(used[i], ValueError, "placement: '", placement.entries()[i].text, "' matches no parameter or buffer of the ",
             model.model_type(), " model");
  // Units are the grain of placement: the forward moves activations only between units.
  const std::vector<Unit> units = model.units();
  std::unordered_map<std::string_view, size_t> unit_of;
  for (size_t u = 0; u < units.size(); ++u) unit_of.emplace(units[u].path, u);
  std::vector<std::pair<std::optional<Device>, std::string>> seen(units.size());
  for (auto& [name, slot] : slots) {
    // The unit holding this tensor: the deepest unit path that is a proper prefix of its name.
    for (size_t i = name.size(); i-- > 0;) {
      if (name[i] != '.') continue;
      auto it = unit_of.find(std::string_view(name).substr(0, i));
      if (it == unit_of.end()) continue;
      const size_t u = it->second;
      const std::string& up = units[u].path;
      auto& [dev, first] = seen[u];
      if (!dev) {
        dev = slot->device();
        first = name;
      } else {
        FE_CHECK(*dev == slot->device(), ValueError, "placement splits ", up, " over two devices (", first, " on ",
                 dev->str(), ", ", name, " on ", slot->device().str(),
                 "): place whole units (embeddings, layers, norms, heads)");
      }
      break;
    }
  }
}

Device module_device(const nn::Module& m) {
  const Tensor* t = m.first_tensor_slot();
  return t ? t->device() : Device();
}

Tensor to_module_device(const Tensor& t, const nn::Module& m) { return move_to(t, module_device(m)); }

}  // namespace fe::zoo
