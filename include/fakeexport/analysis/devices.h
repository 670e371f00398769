// The device catalogue (data/devices.json, compiled in) and the parsing of the device lists and
// capacities a user names on the command line (`--devices 8xH100-80GB`, `--cap cuda:0=80GB`), so that
// analyses can ask "does this program fit on those devices, and how fast could it run there?"
// without any of that hardware. The catalogue's numbers, units and sources: docs/devices.md.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fakeexport/core/device.h"
#include "fakeexport/core/dtype.h"

namespace fe::analysis {

/// One accelerator of the catalogue (data/devices.json), as one PyTorch device sees it: for a
/// package PyTorch shows as several devices (MI250X: two GCDs), the package's datasheet figures
/// divided by devices_per_package.
struct DeviceSpec {
  std::string name;                                        ///< canonical "H100-SXM-80GB"
  std::vector<std::string> aliases;                        ///< other accepted names ("H100-80GB", "H100")
  std::string vendor;                                      ///< "NVIDIA", "AMD"
  int64_t memory_bytes = 0;                                ///< nominal physical memory in bytes (80 GB of HBM = 80 GiB)
  std::string memory_note;                                 ///< nominal vs what the driver reports, ECC reservations
  double bandwidth_bytes_per_s = 0;                        ///< peak memory bandwidth; 0 when unknown
  std::vector<std::pair<std::string, double>> peak_flops;  ///< key ("bfloat16", "tf32") -> dense FLOP/s
  std::string link_kind;                                   ///< "NVLink4", "PCIe4", "InfinityFabric"; "" when unknown
  double link_bytes_per_s = 0;       ///< device-to-device peak, both directions together; 0 when unknown
  std::vector<std::string> sources;  ///< vendor datasheets the numbers come from
  int devices_per_package = 1;       ///< PyTorch devices per package (MI250X: 2)

  /// Dense peak FLOP/s of a matmul in `t` (float32 -> "float32", bfloat16 -> "bfloat16", any float8
  /// -> "float8"); 0 when unknown or for a dtype without a tensor-core figure (float64, integers).
  double peak_flops_for(DType t) const;
  /// Dense peak FLOP/s under a catalogue key ("tf32" has no DType); 0 when unknown.
  double peak_flops_named(std::string_view key) const;
};

/// The compiled-in catalogue, in file order (parsed once, on first use).
const std::vector<DeviceSpec>& device_catalogue();

/// Parses a catalogue text (data/devices.json's format); FormatError naming `source`, the entry
/// and the field for anything missing, mistyped, unknown, or a name/alias used twice.
std::vector<DeviceSpec> parse_device_catalogue(std::string_view json, std::string_view source);

/// By canonical name or alias, case-insensitive; ValueError listing the known names when absent.
const DeviceSpec& device_spec(std::string_view name);

/// A device the program may use and its capacity; spec null when given by --cap.
struct DeviceCap {
  Device device;                     ///< cuda:0, cuda:1, ... (cpu for a host capacity)
  int64_t capacity_bytes = 0;        ///< bytes the device holds
  const DeviceSpec* spec = nullptr;  ///< catalogue entry; null when given by --cap
};

/// `--devices`: "8xH100-80GB", "H100-80GB", "2xA100-80GB,2xL4" -> cuda:0, cuda:1, ... in order; the
/// count is of packages ("1xMI250X" is cuda:0 and cuda:1, 64 GiB each). ValueError naming the flag
/// and the bad item: unknown name, count 0, more than 128 devices in all (Device indices stop at
/// cuda:127), empty item.
std::vector<DeviceCap> parse_device_list(std::string_view s);

/// `--cap`: "cuda:0=80GB,cuda:1=40GiB,cpu=512GiB" (Device::parse for the device; "cuda" is
/// cuda:0), in the order given. ValueError naming the flag and the item for a malformed item, a
/// meta device, a zero size, or a device given twice.
std::vector<DeviceCap> parse_caps(std::string_view s);

/// A byte size: "123" or "123B" (bytes), "80GB" / "1.5TB" (powers of 1000: KB MB GB TB PB EB),
/// "80GiB" / "512MiB" (powers of 1024: KiB ... EiB; "GiB" may be written "Gi"). Units are
/// case-insensitive; a space may separate number and unit; a fraction must come to whole bytes.
/// A bare K/M/G/T/P/E is refused as ambiguous (tools disagree on 10^9 vs 2^30). ValueError naming
/// `what` and the text for malformed, negative or int64-overflowing values.
int64_t parse_bytes(std::string_view s, std::string_view what);

}  // namespace fe::analysis
