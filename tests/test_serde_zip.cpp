// The PT2 zip container: reading PyTorch-written archives (entry tables from tests/fixtures/pt2/*.entries.txt),
// rewriting them byte for byte, PyTorchFileWriter layouts for other alignments / no crc / zip64 (fixtures from
// tools/oracle/scripts/gen_pt2_zip.py), and corrupted copies refused with typed errors.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "fakeexport/serde/zip.h"
#include "test_util.h"

namespace fs = std::filesystem;
using fe::serde::ZipEntry;
using fe::serde::ZipReader;
using fe::serde::ZipWriter;
using fe_test::what_of;

namespace {

const std::string kPt2Dir = std::string(FE_FIXTURES_DIR) + "/pt2";
const std::string kZipDir = kPt2Dir + "/zip";
const std::vector<std::string> kPt2Cases = {"seed_mlp", "gpt2_dynamic", "buffers", "tied", "seed_mlp_fake"};
const std::vector<std::string> kZipCases = {"align64", "align100", "align4096", "align1", "nocrc"};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::span<const std::byte> bytes_of(std::string_view s) { return std::as_bytes(std::span(s.data(), s.size())); }

std::string unhex(std::string_view h) {
  if (h == "-") return "";
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) out.push_back(static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
  return out;
}

std::string hex8(uint32_t v) {
  char b[9];
  std::snprintf(b, sizeof b, "%08x", v);
  return b;
}

/// One record of a <case>.ops.txt: data (bytes) or metadata-only (size).
struct Op {
  bool meta = false;
  std::string name, data;
  uint64_t size = 0;
};
struct Ops {
  ZipWriter::Options options;
  std::vector<Op> ops;
};
Ops read_ops(const std::string& path) {
  Ops r;
  std::istringstream in(slurp(path));
  std::string kind;
  while (in >> kind) {
    if (kind == "options") {
      int crc = 1;
      in >> r.options.alignment >> crc;
      r.options.compute_crc32 = crc != 0;
      continue;
    }
    Op op;
    op.meta = kind == "meta";
    std::string payload;
    in >> op.name >> payload;
    if (op.meta)
      op.size = std::stoull(payload);
    else
      op.data = unhex(payload);
    r.ops.push_back(std::move(op));
  }
  return r;
}

void replay(ZipWriter& w, const Ops& ops) {
  for (const auto& op : ops.ops) {
    if (op.meta)
      w.add_metadata_only(op.name, op.size);
    else
      w.add(op.name, std::string_view(op.data));
  }
  w.finish();
}

uint16_t rd16(const std::string& s, size_t at) { return static_cast<uint16_t>(uint8_t(s[at]) | uint8_t(s[at + 1]) << 8); }
uint32_t rd32(const std::string& s, size_t at) { return rd16(s, at) | uint32_t(rd16(s, at + 2)) << 16; }
void wr16(std::string& s, size_t at, uint16_t v) {
  s[at] = static_cast<char>(v & 0xff);
  s[at + 1] = static_cast<char>(v >> 8);
}
void wr32(std::string& s, size_t at, uint32_t v) {
  wr16(s, at, static_cast<uint16_t>(v));
  wr16(s, at + 2, static_cast<uint16_t>(v >> 16));
}
void wr64(std::string& s, size_t at, uint64_t v) {
  wr32(s, at, static_cast<uint32_t>(v));
  wr32(s, at + 4, static_cast<uint32_t>(v >> 32));
}

class ZipTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fe_zip_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string put(const std::string& name, const std::string& bytes) {
    std::string p = path(name);
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  fs::path dir_;
};

}  // namespace

TEST(ZipCrc, KnownValuesAndIncremental) {
  EXPECT_EQ(fe::serde::crc32(bytes_of("")), 0u);
  EXPECT_EQ(fe::serde::crc32(bytes_of("123456789")), 0xCBF43926u);
  EXPECT_EQ(fe::serde::crc32(bytes_of("pt2")), 0x28345c30u);     // archive_format, from the fixtures
  EXPECT_EQ(fe::serde::crc32(bytes_of("little")), 0x19e33d85u);  // byteorder
  std::string big(100003, '\0');
  std::mt19937 rng(1);
  for (auto& c : big) c = static_cast<char>(rng());
  const uint32_t whole = fe::serde::crc32(bytes_of(big));
  uint32_t crc = 0;
  for (size_t at = 0; at < big.size();) {
    size_t n = std::min<size_t>(rng() % 37, big.size() - at);
    crc = fe::serde::crc32_update(crc, bytes_of(std::string_view(big).substr(at, n)));
    at += n;
  }
  EXPECT_EQ(crc, whole);
}

TEST(ZipNames, RulesAndArchiveName) {
  EXPECT_EQ(fe::serde::zip_name_problem("model/data/weights/weight_0"), "");
  EXPECT_EQ(fe::serde::zip_name_problem("model/.data/version"), "");
  EXPECT_NE(fe::serde::zip_name_problem(""), "");
  EXPECT_NE(fe::serde::zip_name_problem("/etc/passwd"), "");
  EXPECT_NE(fe::serde::zip_name_problem("a/../b"), "");
  EXPECT_NE(fe::serde::zip_name_problem(".."), "");
  EXPECT_NE(fe::serde::zip_name_problem("a//b"), "");
  EXPECT_NE(fe::serde::zip_name_problem("a/"), "");
  EXPECT_NE(fe::serde::zip_name_problem("a\\..\\b"), "");
  EXPECT_NE(fe::serde::zip_name_problem(std::string("a\0b", 3)), "");
  EXPECT_EQ(fe::serde::pytorch_archive_name("/tmp/out/seed_mlp.pt2"), "seed_mlp");
  EXPECT_EQ(fe::serde::pytorch_archive_name("model.tar.pt2"), "model.tar");
  EXPECT_EQ(fe::serde::pytorch_archive_name("noext"), "noext");
  EXPECT_EQ(fe::serde::pytorch_archive_name("dir/"), "");
}

// Every PyTorch-written .pt2: the entry table equals what Python's zipfile saw (gen_pt2.py).
TEST(ZipReaderFixtures, EntryTablesMatchPyTorch) {
  for (const auto& c : kPt2Cases) {
    SCOPED_TRACE(c);
    ZipReader r(kPt2Dir + "/" + c + ".pt2", {.verify_crc32 = true});
    std::string table;
    for (const auto& e : r.entries())
      table += e.name + " " + std::to_string(e.data_offset) + " " + std::to_string(e.size) + " 0 " + hex8(e.crc32) + "\n";
    EXPECT_EQ(table, slurp(kPt2Dir + "/" + c + ".entries.txt"));
    EXPECT_EQ(r.root(), c);
    EXPECT_TRUE(r.has_zip64_eocd());
    EXPECT_EQ(r.text(c + "/archive_format"), "pt2");
    EXPECT_EQ(r.view(c + "/byteorder"), "little");
    EXPECT_EQ(r.text(c + "/.data/version"), "6\n");
    for (const auto& e : r.entries()) {
      EXPECT_EQ(e.data_offset % 64, 0u) << e.name;
      EXPECT_EQ(e.flags, e.size ? 0x0808 : 0x0800) << e.name;
      // Views point into the mapping: no copies.
      EXPECT_EQ(r.data(e.name).size(), e.size);
    }
    EXPECT_THROW(r.entry(c + "/missing"), fe::ValueError);
    EXPECT_FALSE(r.contains("missing"));
  }
}

// Each PyTorch .pt2, rewritten from the entries read back, is the same file byte for byte; once with
// add() and once streamed in uneven chunks.
TEST_F(ZipTest, RewritesPt2FixturesByteForByte) {
  std::mt19937 rng(7);
  for (const auto& c : kPt2Cases) {
    SCOPED_TRACE(c);
    const std::string want = slurp(kPt2Dir + "/" + c + ".pt2");
    ZipReader r(kPt2Dir + "/" + c + ".pt2");
    for (bool streamed : {false, true}) {
      const std::string out = path(c + (streamed ? ".streamed.pt2" : ".pt2"));
      ZipWriter w(out);
      for (const auto& e : r.entries()) {
        auto d = r.data(e);
        if (!streamed) {
          w.add(e.name, d);
          continue;
        }
        w.begin_entry(e.name, d.size());
        for (size_t at = 0; at < d.size();) {
          size_t n = std::min<size_t>(1 + rng() % 5000, d.size() - at);
          w.write(d.subspan(at, n));
          at += n;
        }
        w.end_entry();
      }
      EXPECT_EQ(w.entries().size(), r.entries().size());
      w.finish();
      const std::string got = slurp(out);
      ASSERT_EQ(got.size(), want.size());
      EXPECT_TRUE(got == want) << "first difference at byte "
                               << std::distance(got.begin(), std::mismatch(got.begin(), got.end(), want.begin()).first);
    }
  }
}

// PyTorchFileWriter with storage_alignment 1/64/100/4096, compute_crc32=False and a metadata-only record.
TEST_F(ZipTest, WritesPyTorchFileWriterLayouts) {
  for (const auto& c : kZipCases) {
    SCOPED_TRACE(c);
    Ops ops = read_ops(kZipDir + "/" + c + ".ops.txt");
    const std::string out = path(c + ".zip");
    {
      ZipWriter w(out, ops.options);
      replay(w, ops);
    }
    const std::string want = slurp(kZipDir + "/" + c + ".zip");
    EXPECT_TRUE(slurp(out) == want);
    // And the reader sees the records PyTorch wrote. Metadata-only records hold zeros but crc 0, so
    // CRCs are checked one by one.
    ZipReader r(kZipDir + "/" + c + ".zip");
    ASSERT_EQ(r.entries().size(), ops.ops.size());
    for (size_t i = 0; i < ops.ops.size(); ++i) {
      const auto& e = r.entries()[i];
      EXPECT_EQ(e.name, ops.ops[i].name);
      EXPECT_EQ(e.data_offset % ops.options.alignment, 0u);
      if (ops.ops[i].meta) {
        EXPECT_EQ(e.size, ops.ops[i].size);
        EXPECT_EQ(e.crc32, 0u);
        EXPECT_EQ(r.view(e.name), std::string(e.size, '\0'));
        if (e.size) {
          EXPECT_THROW(r.verify_crc32(e), fe::FormatError);
        }
      } else {
        EXPECT_EQ(r.view(e.name), ops.ops[i].data);
        if (ops.options.compute_crc32) {
          r.verify_crc32(e);
        } else {
          EXPECT_EQ(e.crc32, 0u);
        }
      }
    }
  }
}

// Archives of Python's zipfile (torch <= 2.7's legacy layout): no data descriptors, real times, zip64
// sizes in the local headers only (force_zip64); a deflated entry is refused.
TEST(ZipReaderFixtures, ReadsPythonZipfileArchives) {
  for (const std::string c : {"pyzip_legacy", "pyzip_zip64"}) {
    SCOPED_TRACE(c);
    Ops ops = read_ops(kZipDir + "/" + c + ".ops.txt");
    ZipReader r(kZipDir + "/" + c + ".zip", {.verify_crc32 = true});
    ASSERT_EQ(r.entries().size(), ops.ops.size());
    for (size_t i = 0; i < ops.ops.size(); ++i) {
      EXPECT_EQ(r.entries()[i].name, ops.ops[i].name);
      EXPECT_EQ(r.view(ops.ops[i].name), ops.ops[i].data);
    }
    EXPECT_EQ(r.root(), "");  // no root folder: PyTorchStreamReader would refuse it
    EXPECT_EQ(r.has_zip64_eocd(), false);
  }
  const std::string deflated = kZipDir + "/pyzip_deflate.zip";
  EXPECT_THROW(ZipReader{deflated}, fe::FormatError);
  EXPECT_NE(what_of([&] { ZipReader{deflated}; }).find("entry 'archive/data.pkl': is compressed (method 8, deflate)"),
            std::string::npos);
}

// An 8 GiB archive PyTorch wrote through a file-like sink (metadata-only records of 4 GiB + 100 and of
// 0xffffffff bytes): our writer makes the same file, as a sparse file here, and our reader reads it.
TEST_F(ZipTest, Zip64MatchesPyTorchOver4GiB) {
  Ops ops = read_ops(kZipDir + "/zip64.ops.txt");
  const std::string out = path("zip64.zip");
  {
    ZipWriter w(out, ops.options);
    replay(w, ops);
  }
  std::istringstream in(slurp(kZipDir + "/zip64.sparse.txt"));
  std::string tag;
  uint64_t size = 0;
  in >> tag >> size;
  ASSERT_EQ(fs::file_size(out), size);
  std::ifstream f(out, std::ios::binary);
  int runs = 0;
  for (uint64_t at; in >> tag >> at;) {
    std::string hex;
    in >> hex;
    const std::string want = unhex(hex);
    std::string got(want.size(), '\0');
    f.seekg(static_cast<std::streamoff>(at));
    f.read(got.data(), static_cast<std::streamsize>(got.size()));
    EXPECT_TRUE(got == want) << "bytes written at offset " << at << " differ from PyTorch's";
    ++runs;
  }
  EXPECT_EQ(runs, 3);

  ZipReader r(out);
  ASSERT_EQ(r.entries().size(), ops.ops.size());
  EXPECT_EQ(r.entry("archive/big").size, (uint64_t{1} << 32) + 100);
  EXPECT_EQ(r.entry("archive/exact").size, 0xffffffffu);
  EXPECT_GT(r.entry("archive/c").header_offset, 0xffffffffu);
  EXPECT_EQ(r.text("archive/c"), "hello");
  EXPECT_EQ(r.text("archive/d"), "xy");
  EXPECT_EQ(r.entry("archive/empty").size, 0u);
  r.verify_crc32("archive/d");
}

// The zip64 layout forced at small sizes/offsets reads back (the same code paths as past 4 GiB).
TEST_F(ZipTest, ForcedZip64RoundTrips) {
  const std::string out = path("forced.zip");
  std::string big(300, 'q');
  {
    ZipWriter w(out, {.zip64_threshold = 200});
    w.add("r/small", std::string_view("abc"));
    w.add("r/big", std::string_view(big));  // size >= threshold
    w.add("r/far", std::string_view("far away"));  // offset >= threshold
    w.add("r/empty", std::string_view(""));
    w.add_metadata_only("r/meta", 250);
    w.finish();
  }
  ZipReader r(out, {.verify_crc32 = false});
  ASSERT_EQ(r.names(), (std::vector<std::string>{"r/small", "r/big", "r/far", "r/empty", "r/meta"}));
  EXPECT_EQ(r.text("r/big"), big);
  EXPECT_EQ(r.text("r/far"), "far away");
  EXPECT_GE(r.entry("r/far").header_offset, 200u);
  EXPECT_EQ(r.entry("r/meta").size, 250u);
  for (const auto& n : {"r/small", "r/big", "r/far", "r/empty"}) r.verify_crc32(n);
  for (const auto& e : r.entries()) EXPECT_EQ(e.data_offset % 64, 0u);
  // The EOCD's central directory offset saturates: the zip64 record supplies it.
  const std::string bytes = slurp(out);
  EXPECT_EQ(rd32(bytes, bytes.size() - 6), 0xffffffffu);
}

TEST_F(ZipTest, WriterRefusesMisuse) {
  const std::string out = path("misuse.zip");
  {
    ZipWriter w(out);
    w.add("a/x", std::string_view("1"));
    EXPECT_THROW(w.add("a/x", std::string_view("2")), fe::ValueError);
    EXPECT_THROW(w.add("/abs", std::string_view("2")), fe::ValueError);
    EXPECT_THROW(w.add("a/../b", std::string_view("2")), fe::ValueError);
    EXPECT_THROW(w.end_entry(), fe::ValueError);
    w.begin_entry("a/y", 3);
    EXPECT_THROW(w.begin_entry("a/z", 1), fe::ValueError);
    EXPECT_NE(what_of([&] { w.write(bytes_of("abcd")); }).find("exceeds its declared size 3"), std::string::npos);
    w.write(bytes_of("ab"));
    EXPECT_NE(what_of([&] { w.end_entry(); }).find("2 bytes written but 3 declared"), std::string::npos);
    EXPECT_THROW(w.finish(), fe::ValueError);
    w.write(bytes_of("c"));
    w.end_entry();
    w.finish();
    EXPECT_THROW(w.add("a/w", std::string_view("")), fe::ValueError);
    EXPECT_THROW(ZipWriter(out, {.alignment = 0}), fe::ValueError);
  }
  ZipReader r(out);
  EXPECT_EQ(r.text("a/y"), "abc");
  {
    ZipWriter w(path("partial.zip"));
    w.add("p/x", std::string_view("1"));
  }
  EXPECT_FALSE(fs::exists(path("partial.zip"))) << "an unfinished archive is removed";
  EXPECT_THROW(ZipWriter(path("no/such/dir/x.zip")), fe::FileIOError);
}

// Corrupted copies of tied.pt2 (and of seed_mlp.pt2 where two names must have the same length).
TEST_F(ZipTest, CorruptArchivesRaiseTypedErrors) {
  const std::string tied = slurp(kPt2Dir + "/tied.pt2");
  ZipReader ref(kPt2Dir + "/tied.pt2");
  const size_t eocd = tied.size() - 22, loc = eocd - 20, z64 = loc - 56;
  const size_t cd = rd32(tied, eocd + 16);
  const ZipEntry& e0 = ref.entries()[0];  // tied/data/weights/weight_0

  struct Case {
    std::string label, bytes, expect;
    bool format = true;
    bool verify = false;
  };
  std::vector<Case> cases;
  auto patched = [&](auto f) {
    std::string s = tied;
    f(s);
    return s;
  };
  cases.push_back({"empty file", "", "truncated: 0 bytes"});
  cases.push_back({"first 10 bytes", tied.substr(0, 10), "truncated: 10 bytes"});
    // The last signature found is then the EOCD of the torch.save zip nested in data/sample_inputs/model.pt.
  cases.push_back({"last byte cut", tied.substr(0, tied.size() - 1), "-byte comment but 1480 bytes follow it"});
  cases.push_back({"first half", tied.substr(0, tied.size() / 2), "not a zip archive, or truncated"});
  cases.push_back({"trailing garbage", tied + "junk", "declares a 0-byte comment but 4 bytes follow it"});
  cases.push_back({"bad central signature", patched([&](std::string& s) { s[cd + 2] = 'X'; }),
                   "central directory entry #0 at offset " + std::to_string(cd) + ": bad signature"});
  cases.push_back({"bad local signature", patched([&](std::string& s) { s[0] = 'Q'; }),
                   "entry 'tied/data/weights/weight_0': bad local header signature"});
  cases.push_back({"deflate", patched([&](std::string& s) { wr16(s, cd + 10, 8); }),
                   "is compressed (method 8, deflate): PT2 archives store every entry uncompressed"});
  cases.push_back({"encrypted", patched([&](std::string& s) { wr16(s, cd + 8, 0x0809); }),
                   "is encrypted (general purpose flags 0x0809)"});
  cases.push_back({"local method differs", patched([&](std::string& s) { wr16(s, 8, 8); }),
                   "local header gives compression method 8"});
  cases.push_back({"local name differs", patched([&](std::string& s) { s[30 + 5] = 'D'; }),
                   "names it 'tied/Data/weights/weight_0' (local and central headers disagree)"});
  cases.push_back({"size past central directory", patched([&](std::string& s) {
                     wr32(s, cd + 20, 0x10000000);
                     wr32(s, cd + 24, 0x10000000);
                   }),
                   "data at offset 64 of 268435456 bytes runs past the start of the central directory"});
  cases.push_back({"entries overlap", patched([&](std::string& s) {
                     wr32(s, cd + 20, 300);
                     wr32(s, cd + 24, 300);
                   }),
                   "entries 'tied/data/weights/weight_0' (data 64..364) and "
                   "'tied/data/weights/model_weights_config.json' (local header at 320) overlap"});
  cases.push_back({"compressed size differs", patched([&](std::string& s) { wr32(s, cd + 20, 7); }),
                   "stored entry has compressed size 7 but size 240"});
  cases.push_back({"local header offset outside", patched([&](std::string& s) { wr32(s, cd + 42, 0x7ffffff0); }),
                   "local header at offset 2147483632 does not fit before the central directory"});
  cases.push_back({"zip64 count disagrees", patched([&](std::string& s) {
                     wr64(s, z64 + 24, 11);
                     wr64(s, z64 + 32, 11);
                   }),
                   "end-of-central-directory record gives entry count 10 but the zip64 end record gives 11"});
  cases.push_back({"offset overflows int64", patched([&](std::string& s) {
                     wr32(s, eocd + 16, 0xffffffff);
                     wr64(s, z64 + 48, 0x8000000000000000ull);
                   }),
                   "central directory offset 9223372036854775808 or size 728 overflows int64"});
  cases.push_back({"zip64 size needs extra field", patched([&](std::string& s) {
                     wr32(s, cd + 20, 0xffffffff);
                     wr32(s, cd + 24, 0xffffffff);
                   }),
                   "its size is 0xffffffff (zip64) but its zip64 extra field is missing"});
  cases.push_back({"absolute name", patched([&](std::string& s) { s[cd + 46] = '/'; }),
                   "entry '/ied/data/weights/weight_0': unsafe name: the name is an absolute path"});
  cases.push_back({"dot-dot component", patched([&](std::string& s) { s.replace(cd + 46 + 5, 4, "../x"); }),
                   "entry 'tied/../x/weights/weight_0': unsafe name: the name has a '..' component"});
  cases.push_back({"bad zip64 locator target", patched([&](std::string& s) { wr64(s, loc + 8, loc - 10); }),
                   "points at a zip64 end record at offset " + std::to_string(loc - 10) + ", which does not fit"});
  cases.push_back({"central directory offset wrong", patched([&](std::string& s) {
                     wr32(s, eocd + 16, static_cast<uint32_t>(cd + 1));
                     wr64(s, z64 + 48, cd + 1);
                   }),
                   "does not end where the zip64 end-of-central-directory record starts"});
  cases.push_back({"corrupted data (crc)", patched([&](std::string& s) { s[e0.data_offset + 3] ^= 1; }),
                   "entry 'tied/data/weights/weight_0': CRC-32 of its 240 bytes is", true, true});
  {
    // seed_mlp: weight_1's central record renamed to weight_0.
    std::string s = slurp(kPt2Dir + "/seed_mlp.pt2");
    ZipReader seed(kPt2Dir + "/seed_mlp.pt2");
    const size_t scd = rd32(s, s.size() - 22 + 16);
    const size_t rec1 = scd + 46 + seed.entries()[0].name.size();
    s[rec1 + 46 + seed.entries()[1].name.size() - 1] = '0';
    cases.push_back({"duplicate name", s, "entry 'seed_mlp/data/weights/weight_0': duplicate name (entries #0 and #1)"});
  }

  for (const auto& c : cases) {
    SCOPED_TRACE(c.label);
    const std::string p = put("bad.pt2", c.bytes);
    std::string msg;
    try {
      ZipReader r(p, {.verify_crc32 = c.verify});
      ADD_FAILURE() << "no error";
      continue;
    } catch (const fe::FormatError& e) {
      msg = e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "wrong error type: " << e.what();
      continue;
    }
    EXPECT_NE(msg.find(c.expect), std::string::npos) << msg;
    EXPECT_NE(msg.find("zip archive '" + p + "'"), std::string::npos) << msg;
  }
  EXPECT_THROW(ZipReader(path("does_not_exist.pt2")), fe::FileIOError);
}
