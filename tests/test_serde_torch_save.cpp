// torch.save archives written by PyTorch 2.14 (tests/fixtures/torch_save/,
// tools/oracle/scripts/gen_torch_save.py), read by our restricted pickle reader and compared with
// what torch.load returned; malicious and corrupt archives refused with typed errors.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "fakeexport/fakeexport.h"
#include "fakeexport/serde/pt2.h"
#include "fakeexport/serde/safetensors.h"
#include "fakeexport/serde/torch_save.h"
#include "fakeexport/serde/zip.h"
#include "seed_mlp_model.h"
#include "test_util.h"

namespace {

using fe::serde::read_torch_save;
using fe::serde::TorchSaveTensor;
using fe_test::ints;
using fe_test::what_of;

std::string fixture(const std::string& name) { return std::string(FE_FIXTURES_DIR) + "/torch_save/" + name; }

const nlohmann::json& manifest() {
  static const nlohmann::json j = nlohmann::json::parse(fe_test::read_file(fixture("manifest.json")));
  return j;
}

std::vector<std::byte> bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), {});
  std::vector<std::byte> out(s.size());
  std::memcpy(out.data(), s.data(), s.size());
  return out;
}

/// The tensor's elements in row-major order as hex, read through its strides and offset.
std::string row_major_hex(const fe::Tensor& t) {
  const int64_t isz = fe::itemsize(t.dtype());
  std::vector<int64_t> size = ints(t.sizes()), stride = ints(t.strides()), idx(size.size(), 0);
  for (int64_t s : size)
    if (s == 0) return "";
  const auto* base = static_cast<const unsigned char*>(t.data_ptr());
  std::string out;
  static const char* h = "0123456789abcdef";
  while (true) {
    int64_t off = 0;
    for (size_t d = 0; d < size.size(); ++d) off += idx[d] * stride[d];
    for (int64_t b = 0; b < isz; ++b) {
      const unsigned char c = base[off * isz + b];
      out += h[c >> 4];
      out += h[c & 15];
    }
    size_t d = size.size();
    while (d > 0 && ++idx[d - 1] == size[d - 1]) idx[--d] = 0;
    if (d == 0) return out;
  }
}

/// Compares what we read with what torch.load returned, sharing included: equal storage (object)
/// ids in the manifest must be equal fe::Storage (TensorImpl) pointers here, and distinct ones distinct.
void expect_matches(const std::vector<TorchSaveTensor>& got, const nlohmann::json& want, const std::string& c) {
  ASSERT_EQ(got.size(), want.size()) << c;
  std::map<int, const void*> storage_of, object_of;
  std::map<const void*, int> storage_id, object_id;
  for (size_t i = 0; i < got.size(); ++i) {
    const auto& w = want[i];
    const fe::Tensor& t = got[i].tensor;
    const std::string at = c + " " + got[i].name;
    EXPECT_EQ(got[i].name, w["name"].get<std::string>()) << c << " #" << i;
    EXPECT_EQ(std::string(fe::dtype_name(t.dtype())), w["dtype"].get<std::string>()) << at;
    EXPECT_EQ(ints(t.sizes()), w["shape"].get<std::vector<int64_t>>()) << at;
    EXPECT_EQ(ints(t.strides()), w["stride"].get<std::vector<int64_t>>()) << at;
    EXPECT_EQ(t.meta().storage_offset.expect_int(), w["storage_offset"].get<int64_t>()) << at;
    EXPECT_EQ(t.requires_grad(), w["requires_grad"].get<bool>()) << at;
    EXPECT_EQ(t.is_parameter(), w["is_parameter"].get<bool>()) << at;
    EXPECT_TRUE(t.device() == fe::kCPU) << at;
    EXPECT_FALSE(t.is_fake()) << at;
    ASSERT_TRUE(t.has_storage()) << at;
    EXPECT_EQ(row_major_hex(t), w["hex"].get<std::string>()) << at;
    if (t.numel() > 0) {  // PyTorch gives every empty tensor a storage of its own; we may not
      const void* st = t.impl()->storage.get();
      const int sid = w["storage"].get<int>();
      auto [a, fresh_a] = storage_of.emplace(sid, st);
      auto [b, fresh_b] = storage_id.emplace(st, sid);
      EXPECT_EQ(a->second, st) << at << ": PyTorch shares storage " << sid << ", we do not";
      EXPECT_EQ(b->second, sid) << at << ": we share a storage PyTorch does not";
    }
    const void* obj = t.impl();
    const int oid = w["object"].get<int>();
    auto [a, fa] = object_of.emplace(oid, obj);
    auto [b, fb] = object_id.emplace(obj, oid);
    EXPECT_EQ(a->second, obj) << at << ": the same tensor object in PyTorch, two here";
    EXPECT_EQ(b->second, oid) << at << ": one tensor here, two objects in PyTorch";
  }
}

TEST(TorchSave, EveryFixtureReadsAsTorchLoadReturnsIt) {
  ASSERT_GE(manifest()["files"].size(), 10u);
  for (const auto& [c, spec] : manifest()["files"].items()) {
    SCOPED_TRACE(c);
    const std::string path = fixture(c + ".pt");
    expect_matches(read_torch_save(path), spec["tensors"], c);
    // The same archive from memory (as nested in a .pt2) reads the same.
    const auto bytes = bytes_of(path);
    expect_matches(read_torch_save(std::span(bytes), c), spec["tensors"], c + " (memory)");
  }
}

TEST(TorchSave, TiedWeightsShareMemory) {
  auto t = read_torch_save(fixture("tied.pt"));
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].tensor.impl(), t[1].tensor.impl());  // one object saved under two names
  EXPECT_EQ(t[0].tensor.impl()->storage, t[2].tensor.impl()->storage);
  // a_row is a[1]: writing through a shows in a_row (and b).
  t[0].tensor.data<float>()[2] = 42.0f;
  EXPECT_EQ(t[2].tensor.data<float>()[0], 42.0f);
  EXPECT_EQ(t[1].tensor.data<float>()[2], 42.0f);

  auto sd = read_torch_save(fixture("module_state_dict.pt"));
  std::map<std::string, fe::Tensor> by;
  for (auto& x : sd) by[x.name] = x.tensor;
  ASSERT_TRUE(by.count("emb.weight") && by.count("head.weight"));
  EXPECT_NE(by["emb.weight"].impl(), by["head.weight"].impl());  // state_dict() detaches each
  EXPECT_EQ(by["emb.weight"].impl()->storage, by["head.weight"].impl()->storage);
  EXPECT_EQ(by["norm.num_batches_tracked"].dtype(), fe::DType::Int64);
  EXPECT_EQ(by["norm.num_batches_tracked"].dim(), 0);

  auto v = read_torch_save(fixture("views.pt"));
  ASSERT_EQ(v[1].name, "tview");
  EXPECT_EQ(ints(v[1].tensor.strides()), (fe_test::V{1, 6}));
  EXPECT_EQ(v[1].tensor.meta().storage_offset.expect_int(), 6);
  EXPECT_FALSE(v[1].tensor.meta().is_contiguous());
  EXPECT_EQ(v[0].tensor.impl()->storage, v[1].tensor.impl()->storage);
  EXPECT_NE(v[0].tensor.impl()->storage, v[4].tensor.impl()->storage);  // a clone has its own
}

TEST(TorchSave, ParametersAndNestedArguments) {
  auto p = read_torch_save(fixture("param.pt"));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].name, "");
  EXPECT_TRUE(p[0].tensor.is_parameter());
  EXPECT_TRUE(p[0].tensor.requires_grad());
  auto ps = read_torch_save(fixture("param_state.pt"));  // _rebuild_parameter_with_state
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_TRUE(ps[1].tensor.is_parameter());
  EXPECT_FALSE(ps[1].tensor.requires_grad());
  auto n = read_torch_save(fixture("nested_mixed.pt"));  // ((t1, 3, [t2, None, 1.5, 's']), {k: t3, n: None, 7: t1})
  std::vector<std::string> names;
  for (auto& x : n) names.push_back(x.name);
  EXPECT_EQ(names, (std::vector<std::string>{"0.0", "0.2.0", "1.k", "1.7"}));
  EXPECT_EQ(n[0].tensor.impl(), n[3].tensor.impl());
}

TEST(TorchSave, SampleInputsNestedInAPt2) {
  // data/sample_inputs/model.pt read straight out of the .pt2, and equal to the inputs PyTorch used.
  fe::serde::ZipReader zip(std::string(FE_FIXTURES_DIR) + "/pt2/seed_mlp.pt2");
  const std::string entry = "seed_mlp/data/sample_inputs/model.pt";
  auto in = read_torch_save(zip.data(entry), zip.path() + ":" + entry);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].name, "0.0");  // ((x,), {})
  fe::SafetensorsFile st(std::string(FE_FIXTURES_DIR) + "/pt2/seed_mlp.inputs.safetensors");
  auto want = st.bytes("input_0");
  ASSERT_EQ(in[0].tensor.numel() * 4, static_cast<int64_t>(want.size()));
  EXPECT_EQ(std::memcmp(in[0].tensor.data_ptr(), want.data(), want.size()), 0);

  fe::serde::ZipReader fake(std::string(FE_FIXTURES_DIR) + "/pt2/seed_mlp_fake.pt2");
  const std::string fentry = "seed_mlp_fake/data/sample_inputs/model.pt";
  try {
    read_torch_save(fake.data(fentry), fake.path() + ":" + fentry);
    ADD_FAILURE() << "fake sample inputs read";
  } catch (const fe::serde::FakeSampleInputsError& e) {
    EXPECT_NE(std::string(e.what()).find("seed_mlp_fake.pt2:" + fentry + ":archive/data.pkl: fake sample inputs"),
              std::string::npos)
        << e.what();
  }
}

TEST(TorchSave, MaliciousAndCorruptArchivesAreRefused) {
  ASSERT_GE(manifest()["refused"].size(), 8u);
  for (const auto& [c, spec] : manifest()["refused"].items()) {
    SCOPED_TRACE(c);
    const std::string path = fixture(c + ".pt");
    std::string msg;
    try {
      read_torch_save(path);
      ADD_FAILURE() << c << " was read";
      continue;
    } catch (const fe::serde::FakeSampleInputsError& e) {
      EXPECT_EQ(spec["error"], "FakeSampleInputsError");
      msg = e.what();
    } catch (const fe::FormatError& e) {
      EXPECT_EQ(spec["error"], "FormatError");
      msg = e.what();
    }
    EXPECT_EQ(msg.rfind(path + ":", 0), 0u) << msg;  // names the file (and the entry, below)
    for (const auto& s : spec["contains"]) EXPECT_NE(msg.find(s.get<std::string>()), std::string::npos) << msg;
  }
  EXPECT_EQ(what_of([] { read_torch_save(fixture("malicious_os_system.pt")); }),
            fixture("malicious_os_system.pt") +
                ":archive/data.pkl: pickled data uses global 'os.system' at byte 2, which a weights file never "
                "needs; refusing to run it");
}

/// Records of a valid archive, with data.pkl replaced.
struct Patched {
  fe::serde::ZipReader zip{fixture("dtypes.pt")};
  std::vector<std::byte> pkl;
  Patched() {
    auto d = zip.data("archive/data.pkl");
    pkl.assign(d.begin(), d.end());
  }
  std::vector<TorchSaveTensor> read(std::span<const std::byte> p) const {
    return fe::serde::read_torch_save_records(
        [&](std::string_view n) -> std::optional<std::span<const std::byte>> {
          if (n == "archive/data.pkl") return p;
          if (!zip.contains(n)) return std::nullopt;
          return zip.data(n);
        },
        "archive", "dtypes.pt");
  }
};

TEST(TorchSave, EveryTruncationAndByteFlipIsATypedError) {
  Patched p;
  EXPECT_EQ(p.read(p.pkl).size(), 16u);
  for (size_t n = 0; n < p.pkl.size(); ++n)
    EXPECT_THROW(p.read(std::span(p.pkl).first(n)), fe::FormatError) << "prefix " << n;
  // Flipped bytes: either still a valid record (a changed value) or a FormatError, never anything else.
  uint64_t rng = 12345;
  int refused = 0;
  for (int k = 0; k < 3000; ++k) {
    auto q = p.pkl;
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    q[(rng >> 33) % q.size()] ^= static_cast<std::byte>(1u << ((rng >> 20) % 8));
    try {
      p.read(q);
    } catch (const fe::FormatError&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 1000);
}

TEST(TorchSave, HandWrittenPicklesOutsideTheAllowList) {
  Patched p;
  auto msg = [&](std::string_view s) {
    return what_of([&] { p.read(std::as_bytes(std::span(s.data(), s.size()))); });
  };
  using namespace std::string_literals;
  // GLOBAL builtins.eval, then a POP, then an unknown opcode.
  EXPECT_NE(msg("\x80\x02" "cbuiltins\neval\n."s).find("global 'builtins.eval' at byte 2"), std::string::npos);
  EXPECT_NE(msg("\x80\x02N0N."s).find("opcode POP (0x30) at byte 3"), std::string::npos);
  EXPECT_NE(msg("\x80\x02\xff."s).find("opcode unknown (0xff) at byte 2, which a weights file never needs"),
            std::string::npos);
  // torch.FloatStorage is allow-listed as a storage type, not as something to call.
  EXPECT_NE(msg("\x80\x02" "ctorch\nFloatStorage\n)R."s).find("a call of 'torch.FloatStorage'"), std::string::npos);
  // BUILD setting attributes on a list.
  EXPECT_NE(msg("\x80\x02]}b."s).find("BUILD of a list from a dict"), std::string::npos);
  // A list containing itself, and a DAG of 2^40 paths, end as errors instead of running forever.
  EXPECT_NE(msg("\x80\x02]q\x00h\x00" "a."s).find("nests deeper than 64 levels"), std::string::npos);
  std::string dag = "\x80\x02]]q\x00" "a"s;  // level k+1 = (level k, level k), each appended to an outer list
  for (int k = 0; k < 40; ++k) dag += "h"s + char(k) + "h"s + char(k) + "\x86q"s + char(k + 1) + "a";
  EXPECT_NE(msg(dag + ".").find("more than a million values"), std::string::npos);
  // Values torch.save never writes where a tensor record needs them.
  EXPECT_NE(msg("\x80\x02N\x8a\x09\x01\x02\x03\x04\x05\x06\x07\x08\x09."s).find("wider than int64"), std::string::npos);
  EXPECT_NE(msg("\x80\x02Q."s).find("needs a value but the stack is empty"), std::string::npos);
  EXPECT_NE(msg("\x80\x02NN."s).find("leaves 2 values"), std::string::npos);
  EXPECT_NE(msg("\x80\x02h\x05."s).find("memo slot 5, which was never set"), std::string::npos);
  // A storage whose key escapes the archive's data folder.
  EXPECT_NE(msg("\x80\x02(X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x04\x00\x00\x00../0X\x03\x00\x00\x00" "cpuK\x01tQ."s)
                .find("storage key '../0' is not a plain record name"),
            std::string::npos);
  // A view reaching past its storage (storage '0' of dtypes.pt holds 6 floats; [2,3] at offset 1 needs 7).
  const std::string past =
      "\x80\x02" "ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storagectorch\nFloatStorage\n"
      "X\x01\x00\x00\x00" "0X\x03\x00\x00\x00" "cpuK\x06tQK\x01K\x02K\x03\x86K\x03K\x01\x86\x89"
      "ccollections\nOrderedDict\n)RtR."s;
  EXPECT_NE(msg(past).find("needs 7 elements of storage '0', which has only 6"), std::string::npos) << msg(past);
}

TEST(TorchSave, NotATorchSaveArchive) {
  std::vector<std::byte> empty;
  EXPECT_NE(what_of([&] { read_torch_save(std::span(empty), "x.pt2:model/data/sample_inputs/model.pt"); })
                .find("x.pt2:model/data/sample_inputs/model.pt: is empty (0 bytes)"),
            std::string::npos);
  const std::string legacy = "\x80\x02K\x01.";  // a bare pickle, as torch.save wrote before 1.6
  EXPECT_NE(what_of([&] { read_torch_save(std::as_bytes(std::span(legacy.data(), legacy.size())), "old.pt"); })
                .find("legacy torch.save format"),
            std::string::npos);
  // A truncated archive in memory: every cut of a real one is a FormatError.
  const auto bytes = bytes_of(fixture("views.pt"));
  for (size_t n = 0; n < bytes.size(); n += 7)
    EXPECT_THROW(read_torch_save(std::span(bytes).first(n), "views.pt"), fe::FormatError) << n;
  // A zip without data.pkl: the .pt2 itself.
  EXPECT_NE(what_of([] { read_torch_save(std::string(FE_FIXTURES_DIR) + "/pt2/seed_mlp.pt2"); })
                .find("no 'seed_mlp/data.pkl': not a torch.save archive"),
            std::string::npos);
}

}  // namespace

namespace {

// Our own writer's sample inputs (zeros of the example sizes, BININT integers) read back.
TEST(TorchSave, ReadsTheSampleInputsOurSaveWrites) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("fe_torch_save_" + std::to_string(::getpid()) + ".pt2")).string();
  fe::ExportedProgram fake = seed::fake_export(fe::kCPU, fe::kCPU);
  fe::serde::save(fake, path, {.weights = fe::serde::WeightsPolicy::Zeros});
  {
    fe::serde::ZipReader zip(path);
    const std::string entry = std::string(zip.root()) + "/data/sample_inputs/model.pt";
    auto in = read_torch_save(zip.data(entry), entry);
    ASSERT_EQ(in.size(), 1u);
    EXPECT_EQ(in[0].name, "0.0");
    EXPECT_EQ(ints(in[0].tensor.sizes()), (fe_test::V{4, 128}));
    EXPECT_EQ(in[0].tensor.data<float>()[511], 0.0f);
  }
  std::filesystem::remove(path);
}

}  // namespace

// fuzz_pickle's finding (LeakSanitizer, 6.4 million executions): a pickle whose containers reference
// each other through a memo slot it later overwrites. Read as fuzz_pickle reads it; the sanitizer
// suite (scripts/test --sanitize) fails this test if the cycle leaks.
TEST(TorchSave, OverwrittenMemoSlotCycleIsFreed) {
  const std::string bytes = fe_test::read_file(std::string(FE_FIXTURES_DIR) + "/fuzz/pickle_overwritten_memo_cycle.bin");
  ASSERT_FALSE(bytes.empty());
  static const std::array<std::byte, 4096> kStorage{};
  const std::span<const std::byte> pkl(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
  try {
    (void)fe::serde::read_torch_save_records(
        [&](std::string_view name) -> std::optional<std::span<const std::byte>> {
          if (name == "archive/data.pkl") return pkl;
          if (name.starts_with("archive/data/")) return std::span<const std::byte>(kStorage);
          if (name == "archive/byteorder") return std::as_bytes(std::span(std::string_view("little")));
          return std::nullopt;
        },
        "archive", "fuzz.pt");
  } catch (const fe::UserError& e) {
    SUCCEED() << e.what();  // a typed refusal is fine; a leak is not
  }
}
