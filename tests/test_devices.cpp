// The device catalogue (data/devices.json, compiled in) and the --devices / --cap / byte-size
// parsers of analysis/devices.h.
#include <gtest/gtest.h>

#include <cctype>
#include <limits>
#include <set>

#include "fakeexport/analysis/devices.h"
#include "fakeexport/core/error.h"

using namespace fe;
using analysis::DeviceCap;
using analysis::DeviceSpec;

namespace {

constexpr int64_t GiB = int64_t{1} << 30;

/// The message of the ErrType that `f` throws (a test failure if it throws nothing or another type).
template <class ErrType, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ErrType& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
    return {};
  }
  ADD_FAILURE() << "no exception";
  return {};
}

#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

}  // namespace

TEST(DevicesCatalogue, ParsesWithMemoryAndSourcesForEveryEntry) {
  const auto& cat = analysis::device_catalogue();
  ASSERT_GE(cat.size(), 13u);
  for (const auto& d : cat) {
    SCOPED_TRACE(d.name);
    EXPECT_FALSE(d.vendor.empty());
    EXPECT_GT(d.memory_bytes, 0);
    EXPECT_FALSE(d.memory_note.empty());
    ASSERT_FALSE(d.sources.empty());
    for (const auto& url : d.sources) EXPECT_TRUE(url.starts_with("https://")) << url;
    EXPECT_GE(d.devices_per_package, 1);
  }
  for (std::string_view name : {"H100-SXM-80GB", "H100-NVL-94GB", "H100-PCIe-80GB", "H200-SXM-141GB", "A100-SXM-40GB",
                                "A100-SXM-80GB", "L4", "L40S", "A10G", "T4", "RTX-4090", "MI300X", "MI250X"})
    EXPECT_EQ(analysis::device_spec(name).name, name);
}

TEST(DevicesCatalogue, AliasesUniqueAcrossEntries) {
  std::set<std::string> seen;
  for (const auto& d : analysis::device_catalogue()) {
    std::vector<std::string> names{d.name};
    names.insert(names.end(), d.aliases.begin(), d.aliases.end());
    for (std::string n : names) {
      for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      EXPECT_TRUE(seen.insert(n).second) << n << " names two entries";
    }
  }
}

TEST(DevicesCatalogue, WellKnownNumbers) {
  const DeviceSpec& h100 = analysis::device_spec("H100-SXM-80GB");
  EXPECT_EQ(h100.memory_bytes, 80 * GiB);
  EXPECT_DOUBLE_EQ(h100.bandwidth_bytes_per_s, 3.35e12);
  EXPECT_DOUBLE_EQ(h100.peak_flops_for(DType::BFloat16), 989.4e12);
  EXPECT_DOUBLE_EQ(h100.peak_flops_for(DType::Float8_e4m3fn), h100.peak_flops_named("float8"));
  EXPECT_DOUBLE_EQ(h100.peak_flops_named("tf32"), 494.7e12);
  EXPECT_EQ(h100.peak_flops_for(DType::Float64), 0);  // no figure: 0, not a guess
  EXPECT_EQ(h100.link_kind, "NVLink4");
  const DeviceSpec& a40 = analysis::device_spec("A100-SXM-40GB");
  EXPECT_DOUBLE_EQ(a40.bandwidth_bytes_per_s, 1.555e12);
  EXPECT_DOUBLE_EQ(a40.peak_flops_for(DType::BFloat16), 312e12);
  EXPECT_EQ(a40.peak_flops_for(DType::Float8_e5m2), 0);  // Ampere has no FP8
  EXPECT_DOUBLE_EQ(analysis::device_spec("A100-SXM-80GB").bandwidth_bytes_per_s, 2.039e12);
  EXPECT_EQ(analysis::device_spec("T4").peak_flops_for(DType::BFloat16), 0);  // Turing: no bf16
  // A10G: NVIDIA publishes no datasheet, so only AWS's memory figure is there.
  const DeviceSpec& a10g = analysis::device_spec("A10G");
  EXPECT_EQ(a10g.memory_bytes, 24 * GiB);
  EXPECT_EQ(a10g.bandwidth_bytes_per_s, 0);
  EXPECT_TRUE(a10g.peak_flops.empty());
  // MI250X: one PyTorch device is one GCD, half the package.
  const DeviceSpec& mi250x = analysis::device_spec("MI250X");
  EXPECT_EQ(mi250x.devices_per_package, 2);
  EXPECT_EQ(mi250x.memory_bytes, 64 * GiB);
  EXPECT_DOUBLE_EQ(mi250x.peak_flops_for(DType::BFloat16), 383e12 / 2);
}

TEST(DevicesCatalogue, LookupIsCaseInsensitiveAndListsKnownNames) {
  EXPECT_EQ(analysis::device_spec("h100-80gb").name, "H100-SXM-80GB");
  EXPECT_EQ(analysis::device_spec("H100").name, "H100-SXM-80GB");
  EXPECT_EQ(analysis::device_spec("h100-pcie").name, "H100-PCIe-80GB");
  EXPECT_EQ(analysis::device_spec("mi300x").name, "MI300X");
  EXPECT_EQ(&analysis::device_spec("l4"), &analysis::device_spec("L4"));
  const std::string m = error_of<ValueError>([] { analysis::device_spec("H300"); });
  EXPECT_HAS(m, "'H300'");
  EXPECT_HAS(m, "H100-SXM-80GB");
  EXPECT_HAS(m, "MI250X");
  // "A100" is deliberately no alias: 40 and 80 GB differ by 2x.
  EXPECT_HAS(error_of<ValueError>([] { analysis::device_spec("A100"); }), "A100-SXM-40GB");
}

TEST(DevicesCatalogue, ParserRefusesBrokenCatalogues) {
  const auto parse = [](std::string json) { return analysis::parse_device_catalogue(json, "t.json"); };
  const std::string ok = R"({"name": "X1", "vendor": "V", "memory_bytes": 1024, "memory_note": "n",
                             "sources": ["https://v.example/x1"])";
  EXPECT_EQ(parse(R"({"devices": [)" + ok + "}]}").at(0).memory_bytes, 1024);
  EXPECT_HAS(error_of<FormatError>([&] { parse(R"({"devices": [)" + ok + R"(, "memory_bandwith": 1}]})"); }),
             "t.json: device 0 (X1): unknown field 'memory_bandwith'");
  EXPECT_HAS(error_of<FormatError>([&] { parse(R"({"devices": [)" + ok + "}, " + ok + "}]}"); }),
             "name 'X1' is already used by X1");
  EXPECT_HAS(error_of<FormatError>([&] { parse(R"({"devices": [)" + ok + R"(, "peak_flops": {"fp32": 1}}]})"); }),
             "unknown key 'fp32'");
  EXPECT_HAS(error_of<FormatError>([] { analysis::parse_device_catalogue(R"({"devices": [{"name": "Y"}]})", "t"); }),
             "field 'vendor' is missing");
  EXPECT_HAS(error_of<FormatError>([&] {
               parse(R"({"devices": [{"name": "X1", "vendor": "V", "memory_bytes": 1024, "memory_note": "n",
                                      "sources": []}]})");
             }),
             "field 'sources' must name at least one datasheet");
}

TEST(DevicesList, CountsNamesAndIndices) {
  auto l = analysis::parse_device_list("8xH100-80GB");
  ASSERT_EQ(l.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(l[i].device, Device(DeviceType::CUDA, static_cast<int8_t>(i)));
    EXPECT_EQ(l[i].capacity_bytes, 80 * GiB);
    EXPECT_EQ(l[i].spec, &analysis::device_spec("H100-SXM-80GB"));
  }
  l = analysis::parse_device_list("H100-80GB");
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].device.str(), "cuda:0");
  l = analysis::parse_device_list(" 2xA100-80GB , 2X l4 ");
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[1].device.str(), "cuda:1");
  EXPECT_EQ(l[1].capacity_bytes, 80 * GiB);
  EXPECT_EQ(l[2].device.str(), "cuda:2");
  EXPECT_EQ(l[2].spec->name, "L4");
  EXPECT_EQ(l[3].capacity_bytes, 24 * GiB);
  // A name that starts with digits is a name, not a count.
  l = analysis::parse_device_list("4090,2x4090");
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[2].spec->name, "RTX-4090");
  // Packages PyTorch shows as two devices count as two.
  l = analysis::parse_device_list("2xMI250X");
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[3].device.str(), "cuda:3");
  EXPECT_EQ(l[3].capacity_bytes, 64 * GiB);
  EXPECT_EQ(analysis::parse_device_list("128xT4").back().device.str(), "cuda:127");
}

TEST(DevicesList, ErrorsNameTheFlagAndTheItem) {
  const auto err = [](std::string s) { return error_of<ValueError>([&] { analysis::parse_device_list(s); }); };
  std::string m = err("2xH100-80GB,4xB300");
  EXPECT_HAS(m, "--devices: item '4xB300'");
  EXPECT_HAS(m, "unknown device 'B300'");
  EXPECT_HAS(m, "H100-SXM-80GB");
  EXPECT_HAS(err("0xL4"), "--devices: item '0xL4' asks for 0 devices");
  EXPECT_HAS(err("8x"), "--devices: item '8x' names no device");
  EXPECT_HAS(err("H100,,L4"), "--devices: empty item in 'H100,,L4'");
  EXPECT_HAS(err("L4,"), "--devices: empty item");
  EXPECT_HAS(err(""), "--devices: no devices given");
  EXPECT_HAS(err("129xL4"), "--devices: item '129xL4' brings the list to 129 devices");
  EXPECT_HAS(err("100xL4,29xT4"), "item '29xT4' brings the list to 129 devices");
  EXPECT_HAS(err("65xMI250X"), "130 devices");
  EXPECT_HAS(err("99999999999999999999xL4"), "--devices: item '99999999999999999999xL4' asks for more than 128");
}

TEST(DevicesCaps, ParsesDevicesAndSizes) {
  const auto c = analysis::parse_caps("cuda:0=80GB, cuda:1=40GiB,cpu=512GiB,cuda:3 = 1.5TB");
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].device.str(), "cuda:0");
  EXPECT_EQ(c[0].capacity_bytes, 80'000'000'000);
  EXPECT_EQ(c[0].spec, nullptr);
  EXPECT_EQ(c[1].device.str(), "cuda:1");
  EXPECT_EQ(c[1].capacity_bytes, 40 * GiB);
  EXPECT_EQ(c[2].device, kCPU);
  EXPECT_EQ(c[2].capacity_bytes, 512 * GiB);
  EXPECT_EQ(c[3].device.str(), "cuda:3");
  EXPECT_EQ(c[3].capacity_bytes, 1'500'000'000'000);
  EXPECT_EQ(analysis::parse_caps("cuda=1GB")[0].device.str(), "cuda:0");  // as FakeTensor stores it
}

TEST(DevicesCaps, ErrorsNameTheFlagAndTheItem) {
  const auto err = [](std::string s) { return error_of<ValueError>([&] { analysis::parse_caps(s); }); };
  EXPECT_HAS(err("cuda:0=80GB,cuda:0=40GB"), "--cap: cuda:0 is given twice ('cuda:0=80GB' and 'cuda:0=40GB')");
  EXPECT_HAS(err("cuda:0=80GB,cuda=40GB"), "cuda:0 is given twice");
  EXPECT_HAS(err("cuda:0"), "--cap: expected DEVICE=SIZE (e.g. cuda:0=80GB), got 'cuda:0'");
  EXPECT_HAS(err("=80GB"), "got '=80GB'");
  EXPECT_HAS(err("cuda:0="), "got 'cuda:0='");
  EXPECT_HAS(err("gpu:0=80GB"), "--cap: item 'gpu:0=80GB': Invalid device string: 'gpu:0'");
  EXPECT_HAS(err("cuda:200=80GB"), "--cap: item 'cuda:200=80GB': Invalid device string");
  EXPECT_HAS(err("meta=1GB"), "--cap: item 'meta=1GB': a meta device holds no data");
  EXPECT_HAS(err("cuda:1=0GB"), "--cap: item 'cuda:1=0GB': a capacity must be positive");
  EXPECT_HAS(err("cuda:1=80XB"), "--cap: item 'cuda:1=80XB': unknown unit 'XB' in '80XB'");
  EXPECT_HAS(err("cuda:1=-8GB"), "--cap: item 'cuda:1=-8GB': negative size '-8GB'");
  EXPECT_HAS(err("cuda:0=1GB,,cpu=1GB"), "--cap: empty item");
  EXPECT_HAS(err(" "), "--cap: no capacities given");
}

TEST(DevicesBytes, Units) {
  const auto b = [](std::string_view s) { return analysis::parse_bytes(s, "--x"); };
  EXPECT_EQ(b("123"), 123);
  EXPECT_EQ(b("123B"), 123);
  EXPECT_EQ(b("0"), 0);
  EXPECT_EQ(b("64KiB"), 65536);
  EXPECT_EQ(b("64KB"), 64000);
  EXPECT_EQ(b("512MiB"), 512 << 20);
  EXPECT_EQ(b("80GB"), 80'000'000'000);
  EXPECT_EQ(b("80GiB"), 80 * GiB);
  EXPECT_EQ(b("80gib"), 80 * GiB);
  EXPECT_EQ(b("80gb"), 80'000'000'000);
  EXPECT_EQ(b("80Gi"), 80 * GiB);
  EXPECT_EQ(b(" 80 GiB "), 80 * GiB);
  EXPECT_EQ(b("1.5TB"), 1'500'000'000'000);
  EXPECT_EQ(b("1.5KiB"), 1536);
  EXPECT_EQ(b("0.5GiB"), GiB / 2);
  EXPECT_EQ(b("2TiB"), int64_t{2} << 40);
  EXPECT_EQ(b("3PB"), 3'000'000'000'000'000);
  EXPECT_EQ(b("7EiB"), int64_t{7} << 60);
  EXPECT_EQ(b("9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(b("007MB"), 7'000'000);
}

TEST(DevicesBytes, EveryErrorNamesWhatAndText) {
  const auto err = [](std::string_view s) {
    return error_of<ValueError>([&] { analysis::parse_bytes(s, "--budget"); });
  };
  EXPECT_HAS(err(""), "--budget: empty size");
  EXPECT_HAS(err("  "), "--budget: empty size");
  EXPECT_HAS(err("-1GB"), "--budget: negative size '-1GB'");
  EXPECT_HAS(err("GB"), "--budget: malformed size 'GB'");
  EXPECT_HAS(err("+5GB"), "--budget: malformed size '+5GB'");
  EXPECT_HAS(err(".5GB"), "--budget: malformed size '.5GB'");
  EXPECT_HAS(err("5.GB"), "--budget: malformed size '5.GB' (expected digits after '.')");
  EXPECT_HAS(err("1e9"), "--budget: unknown unit 'e9' in '1e9'");
  EXPECT_HAS(err("80XB"), "--budget: unknown unit 'XB' in '80XB'");
  EXPECT_HAS(err("80 G B"), "--budget: unknown unit 'G B'");
  EXPECT_HAS(err("80G"),
             "--budget: ambiguous unit 'G' in '80G': write 80GB (powers of 1000) or 80GiB (powers of 1024)");
  EXPECT_HAS(err("2t"), "write 2TB (powers of 1000) or 2TiB");
  EXPECT_HAS(err("0.5B"), "--budget: size '0.5B' is not a whole number of bytes");
  EXPECT_HAS(err("1.0000001KB"), "is not a whole number of bytes");
  EXPECT_HAS(err("9223372036854775808"), "--budget: size '9223372036854775808' overflows int64");
  EXPECT_HAS(err("8EiB"), "--budget: size '8EiB' overflows int64");
  EXPECT_HAS(err("10EB"), "overflows int64");
  EXPECT_HAS(err("99999999999999999999999999999999999999999999GB"), "overflows int64");
  EXPECT_HAS(err("1.0000000000000000000000000GB"), "too many decimals");
}
