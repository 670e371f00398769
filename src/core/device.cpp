#include "fakeexport/core/device.h"

#include <charconv>

#include "fakeexport/core/error.h"

namespace fe {
namespace {
constexpr std::pair<std::string_view, DeviceType> kTypes[] = {
    {"cpu", DeviceType::CPU}, {"cuda", DeviceType::CUDA}, {"meta", DeviceType::Meta},
    {"mps", DeviceType::MPS}, {"xpu", DeviceType::XPU},   {"hpu", DeviceType::HPU},
    {"mtia", DeviceType::MTIA}, {"privateuseone", DeviceType::PrivateUse1},
};
}  // namespace

std::string_view device_type_name(DeviceType t) {
  for (auto [n, d] : kTypes)
    if (d == t) return n;
  return "?";
}

Device Device::parse(std::string_view s) {
  auto colon = s.find(':');
  std::string_view type = s.substr(0, colon);
  for (auto [n, d] : kTypes) {
    if (n != type) continue;
    if (colon == std::string_view::npos) return Device(d);
    std::string_view idx = s.substr(colon + 1);
    int v = -1;
    auto [p, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), v);
    const bool leading_zero = idx.size() > 1 && idx[0] == '0';  // torch.device("cuda:01") is invalid
    FE_CHECK(ec == std::errc() && p == idx.data() + idx.size() && v >= 0 && v < 128 && !leading_zero, ValueError,
             "Invalid device string: '", s, "' (index must be an integer in [0, 127])");
    return Device(d, static_cast<int8_t>(v));
  }
  throw ValueError(detail::cat("Invalid device string: '", s,
                               "' (expected cpu, cuda, meta, mps, xpu, hpu, mtia or privateuseone, optionally :index)"));
}

Device Device::normalized() const {
  if (type_ == DeviceType::CPU || type_ == DeviceType::Meta || has_index()) return *this;
  return Device(type_, 0);
}

std::string Device::str() const {
  std::string s(device_type_name(type_));
  if (has_index()) s += ":" + std::to_string(index_);
  return s;
}

std::string Device::repr() const {
  std::string s = "device(type='" + std::string(device_type_name(type_)) + "'";
  if (has_index()) s += ", index=" + std::to_string(index_);
  return s + ")";
}

}  // namespace fe
