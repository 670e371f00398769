// Symbol numbering as PyTorch 2.14 does it; expected numbers were produced by PyTorch's ShapeEnv in
// the reference environment (docs/research/symbol-names.md): the tutorial's DynamicModel gives
// w: [s15, s21->5], x: [s77], y: [s17, s94->s77], z: [s68->s17*s77].
#include <gtest/gtest.h>

#include "fakeexport/sym/symbol_names.h"

namespace {
using namespace fe::sym;

std::string hex(const std::array<uint8_t, 32>& d) {
  static const char* k = "0123456789abcdef";
  std::string s;
  for (uint8_t b : d) s += std::string{k[b >> 4], k[b & 15]};
  return s;
}

TEST(SymNames, Sha256KnownAnswers) {
  // FIPS 180-4 test vectors, plus a two-block message and a 55/56-byte padding boundary.
  EXPECT_EQ(hex(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex(sha256(std::string(55, 'a'))), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(hex(sha256(std::string(56, 'a'))), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
}

TEST(SymNames, TutorialSourcesHashLikePyTorch) {
  EXPECT_EQ(size_source("w", 0), "L['w'].size()[0]");
  EXPECT_EQ(source_hash_id("L['w'].size()[0]"), 15);
  EXPECT_EQ(source_hash_id("L['w'].size()[1]"), 21);
  EXPECT_EQ(source_hash_id("L['x'].size()[0]"), 77);
  EXPECT_EQ(source_hash_id("L['y'].size()[0]"), 17);
  EXPECT_EQ(source_hash_id("L['y'].size()[1]"), 94);
  EXPECT_EQ(source_hash_id("L['z'].size()[0]"), 68);
  EXPECT_EQ(source_hash_id("dx"), 95);  // a derived Dim's root that is no input dim
}

TEST(SymNames, CollisionsProbeUpwardWithoutWrapping) {
  // Params a24, a44, a207 all hash to 99 and a3 to 0 (PyTorch printed s99 s100 s101 s0).
  SymbolIds ids;
  EXPECT_EQ(ids.allocate("L['a24'].size()[0]"), 99);
  EXPECT_EQ(ids.allocate("L['a44'].size()[0]"), 100);
  EXPECT_EQ(ids.allocate("L['a207'].size()[0]"), 101);
  EXPECT_EQ(ids.allocate("L['a3'].size()[0]"), 0);
  EXPECT_EQ(ids.allocate("L['x'].size()[0]"), 77);
  EXPECT_EQ(ids.allocate("L['a10'].size()[0]"), 78);
}

}  // namespace
