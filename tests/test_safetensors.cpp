// safetensors reader/writer against files written by safetensors.torch.save_file
// (tests/fixtures/safetensors, from tools/oracle/scripts/gen_safetensors.py) and malformed inputs.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/element.h"
#include "fakeexport/fakeexport.h"
#include "fakeexport/serde/safetensors.h"
#include "test_util.h"

using namespace fe;
using fe_test::what_of;
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

const std::string kDir = std::string(FE_FIXTURES_DIR) + "/safetensors";

json manifest() { return json::parse(fe_test::read_file(kDir + "/manifest.json")); }

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::string hex(std::span<const std::byte> b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (std::byte x : b) {
    s += d[static_cast<unsigned>(x) >> 4];
    s += d[static_cast<unsigned>(x) & 15];
  }
  return s;
}

/// A per-test scratch directory, removed afterwards.
class SafetensorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fe_safetensors_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  /// Writes a file with the given header text and `buffer` data bytes; `n` overrides the length prefix.
  std::string raw_file(const std::string& header, size_t buffer, std::optional<uint64_t> n = {}) {
    std::string p = path("bad.safetensors");
    std::ofstream out(p, std::ios::binary);
    uint64_t len = n.value_or(header.size());
    char prefix[8];
    std::memcpy(prefix, &len, 8);
    out.write(prefix, 8);
    out << header << std::string(buffer, '\0');
    return p;
  }

  fs::path dir_;
};

using SafetensorsFixtures = SafetensorsTest;

}  // namespace

TEST_F(SafetensorsFixtures, ReadsEveryPyTorchFile) {
  json m = manifest();
  ASSERT_FALSE(m["files"].empty());
  for (auto& [file, info] : m["files"].items()) {
    SCOPED_TRACE(file);
    SafetensorsFile f(kDir + "/" + file + ".safetensors");
    // Names in header order: the header's own key order, __metadata__ left out.
    std::vector<std::string> header_order;
    json header = json::parse(info["header"].get<std::string>());
    for (auto& [k, v] : header.items())
      if (k != "__metadata__") header_order.push_back(k);
    EXPECT_EQ(f.names(), header_order);
    EXPECT_EQ(f.header_size(), info["header"].get<std::string>().size());
    if (info["metadata"].is_null()) {
      EXPECT_FALSE(f.metadata().has_value());
    } else {
      ASSERT_TRUE(f.metadata().has_value());
      EXPECT_EQ(*f.metadata(), info["metadata"].get<SafetensorsMetadata>());
    }
    ASSERT_EQ(f.entries().size(), info["tensors"].size());
    for (auto& t : info["tensors"]) {
      std::string name = t["name"];
      SCOPED_TRACE(name);
      const SafetensorsEntry& e = f.entry(name);
      EXPECT_EQ(dtype_name(e.dtype), t["dtype"].get<std::string>());
      EXPECT_EQ(safetensors_dtype_name(e.dtype), t["st_dtype"].get<std::string>());
      EXPECT_EQ(e.shape, t["shape"].get<std::vector<int64_t>>());
      EXPECT_EQ(hex(f.bytes(name)), t["hex"].get<std::string>());

      Tensor x = f.load(name);
      EXPECT_FALSE(x.is_fake());
      EXPECT_EQ(x.dtype(), e.dtype);
      EXPECT_EQ(fe_test::ints(x.sizes()), e.shape);
      EXPECT_TRUE(x.meta().is_contiguous());
      const auto* p = static_cast<const std::byte*>(x.data_ptr());
      EXPECT_EQ(hex({p, static_cast<size_t>(e.nbytes())}), t["hex"].get<std::string>());
      // Values through the element loader, where it reads the dtype exactly.
      bool exact = !is_complex(e.dtype) && e.dtype != DType::UInt64 && e.dtype != DType::UInt32 &&
                   e.dtype != DType::UInt16 && (itemsize(e.dtype) > 1 || !is_floating(e.dtype));
      if (!exact) continue;
      auto values = t["values"].get<std::vector<double>>();
      ASSERT_EQ(values.size(), static_cast<size_t>(x.numel()));
      for (int64_t i = 0; i < x.numel(); ++i)
        EXPECT_EQ(detail::load(p + i * itemsize(e.dtype), e.dtype), values[i]) << "element " << i;
    }
  }
}

TEST_F(SafetensorsFixtures, WriterIsByteIdenticalToSaveFile) {
  json m = manifest();
  for (auto& [file, info] : m["files"].items()) {
    SCOPED_TRACE(file);
    std::string theirs = kDir + "/" + file + ".safetensors";
    SafetensorsFile f(theirs);
    // Same tensors, in the dict order the Python script passed them.
    std::vector<std::pair<std::string, Tensor>> tensors;
    for (auto& t : info["tensors"]) tensors.emplace_back(t["name"], f.load(t["name"].get<std::string>()));
    EXPECT_EQ(safetensors_header(tensors, f.metadata()), info["header"].get<std::string>());
    std::string ours = path(file + ".safetensors");
    save_safetensors(ours, tensors, f.metadata());
    EXPECT_EQ(bytes_of(ours), bytes_of(theirs));
  }
}

TEST_F(SafetensorsTest, RoundTripsViewsAndEmptyTensors) {
  Tensor a = arange(Scalar(12), {DType::Float32}).reshape({3, 4});
  Tensor row = a.select(0, 1);  // contiguous view with a storage offset: only its 4 elements are written
  Tensor b = full({2}, Scalar(true), {DType::Bool});
  Tensor e = zeros({0, 3}, {DType::Int64});
  Tensor s = full({}, Scalar(-3.5), {DType::BFloat16});
  std::string p = path("rt.safetensors");
  save_safetensors(p, {{"row", row}, {"b", b}, {"e", e}, {"s", s}}, SafetensorsMetadata{{"k", "v"}});
  SafetensorsFile f(p);
  EXPECT_EQ(f.names(), (std::vector<std::string>{"e", "row", "s", "b"}));
  EXPECT_EQ(*f.metadata(), (SafetensorsMetadata{{"k", "v"}}));
  EXPECT_EQ(f.load("row").values_string(), row.values_string());
  EXPECT_EQ(f.load("b").values_string(), b.values_string());
  EXPECT_EQ(fe_test::ints(f.load("e").sizes()), (fe_test::V{0, 3}));
  EXPECT_EQ(f.load("s").dim(), 0);
  EXPECT_EQ(f.load("s").item(), -3.5);
  EXPECT_EQ(f.buffer_size(), 16u + 2 + 2);
  // Moving the file object keeps the mapping alive.
  SafetensorsFile g = std::move(f);
  EXPECT_EQ(g.load("row").values_string(), row.values_string());
  EXPECT_EQ(g.bytes("row").size(), 16u);
  EXPECT_NE(what_of([&] { g.entry("missing"); }).find("has no tensor \"missing\""), std::string::npos);
  EXPECT_THROW(g.entry("missing"), ValueError);
}

TEST_F(SafetensorsTest, WriterRefusesWhatSaveFileRefuses) {
  std::string p = path("w.safetensors");
  Tensor a = arange(Scalar(6), {DType::Float32});
  // Non-contiguous: save_file raises ValueError rather than packing the data.
  Tensor t = a.reshape({2, 3}).t();
  EXPECT_THROW(save_safetensors(p, {{"t", t}}), ValueError);
  EXPECT_NE(what_of([&] { save_safetensors(p, {{"t", t}}); }).find("\"t\" is not contiguous"), std::string::npos);
  // Shared memory: the same tensor twice, or overlapping views; disjoint views are fine.
  EXPECT_THROW(save_safetensors(p, {{"a", a}, {"b", a}}), ValueError);
  std::string msg = what_of([&] { save_safetensors(p, {{"a", a}, {"v", a.slice(0, 2, 4)}}); });
  EXPECT_NE(msg.find("share memory"), std::string::npos) << msg;
  EXPECT_NE(msg.find("\"v\""), std::string::npos) << msg;
  save_safetensors(p, {{"lo", a.slice(0, 0, 3)}, {"hi", a.slice(0, 3, 6)}});
  EXPECT_EQ(SafetensorsFile(p).load("hi").values_string(), a.slice(0, 3, 6).values_string());
  // Duplicate names, the reserved key, dtypes without a safetensors name.
  EXPECT_THROW(save_safetensors(p, {{"a", a}, {"a", a.clone()}}), ValueError);
  EXPECT_THROW(save_safetensors(p, {{"__metadata__", a}}), ValueError);
  EXPECT_THROW(save_safetensors(p, {{"c", zeros({1}, {DType::Complex128})}}), DTypeError);
  // Fake tensors have no data.
  Tensor fake;
  {
    FakeTensorMode mode;
    fake = zeros({2, 2});
  }
  msg = what_of([&] { save_safetensors(p, {{"w", fake}}); });
  EXPECT_THROW(save_safetensors(p, {{"w", fake}}), DataAccessError);
  EXPECT_NE(msg.find("\"w\" is a fake tensor"), std::string::npos) << msg;
  // Nothing is written when validation fails up front.
  fs::remove(p);
  EXPECT_THROW(save_safetensors(p, {{"ok", a}, {"w", fake}}), DataAccessError);
  EXPECT_FALSE(fs::exists(p));
  EXPECT_THROW(save_safetensors(path("no/such/dir/x.safetensors"), {{"a", a}}), FileIOError);
}

// One test per validation rule: the typed error and a message naming the entry and field.
namespace {
template <class Err>
std::string expect_error(const std::string& path) {
  std::string msg;
  try {
    SafetensorsFile f(path);
    ADD_FAILURE() << "no error for " << path;
  } catch (const Err& e) {
    msg = e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong error type: " << e.what();
  }
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  return msg;
}
#define EXPECT_HAS(msg, text) EXPECT_NE((msg).find(text), std::string::npos) << (msg)
}  // namespace

TEST_F(SafetensorsTest, RejectsTruncatedAndOversizedHeaders) {
  std::string p = path("short.safetensors");
  std::ofstream(p, std::ios::binary) << "abc";
  EXPECT_HAS(expect_error<FormatError>(p), "truncated: 3 bytes");
  std::string m = expect_error<FormatError>(raw_file("{}", 0, 1000));
  EXPECT_HAS(m, "header size 1000 runs past the end of the file (10 bytes");
  m = expect_error<FormatError>(raw_file("{}", 0, uint64_t{1} << 62));
  EXPECT_HAS(m, "exceeds safetensors' limit");
  EXPECT_THROW(SafetensorsFile(path("missing.safetensors")), FileIOError);
}

TEST_F(SafetensorsTest, RejectsBadJson) {
  EXPECT_HAS(expect_error<FormatError>(raw_file("{\"a\": ", 0)), "not valid JSON");
  EXPECT_HAS(expect_error<FormatError>(raw_file("[1, 2]  ", 0)), "does not start with '{'");
  EXPECT_HAS(expect_error<FormatError>(raw_file("{} x", 0)), "not valid JSON");
  // nlohmann reports an overflowing number as out_of_range, not parse_error (found by fuzz_safetensors)
  EXPECT_HAS(expect_error<FormatError>(raw_file("{\"a\": 8333333333333333333333333E333333330}", 0)), "number overflow");
  EXPECT_HAS(expect_error<FormatError>(raw_file("{\"a\": 1}", 0)), "tensor \"a\": entry is number");
  std::string m = expect_error<FormatError>(raw_file(R"({"a":{"dtype":"F32","shape":[0]}})", 0));
  EXPECT_HAS(m, "tensor \"a\": missing field 'data_offsets'");
  m = expect_error<FormatError>(raw_file(R"({"__metadata__":{"k":1}})", 0));
  EXPECT_HAS(m, "__metadata__ key \"k\" is number 1, not a string");
}

TEST_F(SafetensorsTest, RejectsUnknownDtype) {
  std::string m = expect_error<FormatError>(raw_file(R"({"w":{"dtype":"F17","shape":[1],"data_offsets":[0,4]}})", 4));
  EXPECT_HAS(m, "tensor \"w\": field 'dtype' is unknown or unsupported dtype \"F17\"");
  m = expect_error<FormatError>(raw_file(R"({"w":{"dtype":7,"shape":[1],"data_offsets":[0,4]}})", 4));
  EXPECT_HAS(m, "tensor \"w\": field 'dtype' is 7");
}

TEST_F(SafetensorsTest, RejectsBadShapes) {
  std::string m = expect_error<FormatError>(raw_file(R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}})", 0));
  EXPECT_HAS(m, "tensor \"w\": field 'shape' [-1] has entry 0 = -1, not a non-negative integer");
  m = expect_error<FormatError>(raw_file(R"({"w":{"dtype":"F32","shape":[1.5],"data_offsets":[0,0]}})", 0));
  EXPECT_HAS(m, "field 'shape'");
  m = expect_error<FormatError>(
      raw_file(R"({"w":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,0]}})", 0));
  EXPECT_HAS(m, "tensor \"w\": field 'shape' [4611686018427387904,4] with dtype F32 has numel * itemsize beyond int64");
  m = expect_error<FormatError>(
      raw_file(R"({"w":{"dtype":"U8","shape":[18446744073709551615],"data_offsets":[0,0]}})", 0));
  EXPECT_HAS(m, "more than int64 can hold");
  // A zero dim makes even huge other dims empty.
  SafetensorsFile ok(raw_file(R"({"w":{"dtype":"F64","shape":[4611686018427387904,0,9],"data_offsets":[0,0]}})", 0));
  EXPECT_EQ(ok.entry("w").nbytes(), 0u);
}

TEST_F(SafetensorsTest, RejectsOffsetMismatch) {
  std::string m = expect_error<FormatError>(raw_file(R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,12]}})", 12));
  EXPECT_HAS(m, "tensor \"w\": field 'data_offsets' [0, 12] spans 12 bytes but dtype F32 and shape [2, 3] need 24 bytes");
  m = expect_error<FormatError>(raw_file(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", 4));
  EXPECT_HAS(m, "tensor \"w\": field 'data_offsets' [4, 0] has begin after end");
  m = expect_error<FormatError>(raw_file(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4,8]}})", 4));
  EXPECT_HAS(m, "tensor \"w\": field 'data_offsets' is [0,4,8]");
  m = expect_error<FormatError>(raw_file(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,-4]}})", 4));
  EXPECT_HAS(m, "field 'data_offsets'");
}

TEST_F(SafetensorsTest, RejectsOffsetsOutOfRange) {
  std::string m = expect_error<FormatError>(raw_file(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 4));
  EXPECT_HAS(m, "tensor \"w\": field 'data_offsets' [0, 8] runs past the end of the data buffer (4 bytes)");
}

TEST_F(SafetensorsTest, RejectsOverlap) {
  std::string m = expect_error<FormatError>(raw_file(
      R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 12));
  EXPECT_HAS(m, "tensor \"b\": field 'data_offsets' [4, 12] overlaps tensor \"a\" [0, 8]");
}

TEST_F(SafetensorsTest, RejectsGapsAndTrailingBytes) {
  std::string m = expect_error<FormatError>(raw_file(
      R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})", 12));
  EXPECT_HAS(m, "tensor \"b\": field 'data_offsets' [8, 12] leaves a gap of bytes [4, 8) after tensor \"a\"");
  m = expect_error<FormatError>(raw_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8));
  EXPECT_HAS(m, "gap of bytes [0, 4) after the buffer start");
  m = expect_error<FormatError>(raw_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 6));
  EXPECT_HAS(m, "2 trailing bytes after tensor \"a\"");
}

TEST_F(SafetensorsTest, RejectsDuplicateKeys) {
  std::string m = expect_error<FormatError>(raw_file(
      R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8));
  EXPECT_HAS(m, "duplicate entry \"a\"");
  m = expect_error<FormatError>(
      raw_file(R"({"a":{"dtype":"F32","dtype":"F64","shape":[1],"data_offsets":[0,4]}})", 4));
  EXPECT_HAS(m, "duplicate key \"dtype\" inside entry \"a\"");
}
