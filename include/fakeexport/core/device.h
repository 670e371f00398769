// A device is a type plus an optional index; no hardware is needed to name one.
#pragma once
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace fe {

/// Device kinds PyTorch knows by name (c10::DeviceType subset, same spelling).
enum class DeviceType : uint8_t { CPU, CUDA, Meta, MPS, XPU, HPU, MTIA, PrivateUse1 };

/// Device = type + index (-1 = "no index", like torch.device("cuda")).
class Device {
 public:
  constexpr Device(DeviceType t = DeviceType::CPU, int8_t index = -1) : type_(t), index_(index) {}
  /// Parses "cpu", "cuda", "cuda:3", "meta"; throws ValueError naming the string if malformed.
  static Device parse(std::string_view s);

  DeviceType type() const { return type_; }
  int8_t index() const { return index_; }
  bool has_index() const { return index_ >= 0; }
  bool is_cpu() const { return type_ == DeviceType::CPU; }
  bool is_meta() const { return type_ == DeviceType::Meta; }

  /// As FakeTensor stores it: accelerators without index become index 0; cpu and meta stay bare.
  Device normalized() const;
  /// "cpu", "cuda:0" (str(torch.device)).
  std::string str() const;
  /// "device(type='cuda', index=0)" (repr(torch.device)), the form graph printing uses.
  std::string repr() const;

  friend bool operator==(const Device&, const Device&) = default;

 private:
  DeviceType type_;
  int8_t index_;
};

std::string_view device_type_name(DeviceType t);
inline std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

inline constexpr Device kCPU{DeviceType::CPU};
inline constexpr Device kMeta{DeviceType::Meta};

}  // namespace fe

template <>
struct std::hash<fe::Device> {
  size_t operator()(const fe::Device& d) const noexcept {
    return (static_cast<size_t>(d.type()) << 8) ^ static_cast<uint8_t>(d.index());
  }
};
