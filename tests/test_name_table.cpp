// NameTable (the graph's names): against std::unordered_map under a long random mix of inserts,
// erasures and lookups, through regrowth with and without erased slots; and the names a graph
// hands out when nodes are erased and their names taken again.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_map>

#include "fakeexport/export/graph.h"
#include "fakeexport/export/name_table.h"

namespace {

TEST(NameTable, AgreesWithUnorderedMapUnderRandomEdits) {
  fe::NameTable t;
  std::unordered_map<std::string, int64_t> ref;
  std::mt19937 rng(7);
  // Keys of every length up to 40 (the hash's 8-byte steps and tails), many sharing prefixes.
  auto key = [&] {
    const int k = static_cast<int>(rng() % 3000);
    std::string s = "model_layers_" + std::to_string(k % 97);
    s.resize(k % 41, 'x');
    return s + std::to_string(k);
  };
  for (int step = 0; step < 200000; ++step) {
    const std::string k = key();
    switch (rng() % 4) {
      case 0:
      case 1: {
        const int64_t v = static_cast<int64_t>(rng());
        auto [value, added] = t.try_emplace(k, v);
        auto [it, ref_added] = ref.try_emplace(k, v);
        ASSERT_EQ(added, ref_added) << k;
        ASSERT_EQ(*value, it->second) << k;
        break;
      }
      case 2:
        t.erase(k);
        ref.erase(k);
        break;
      default: {
        int64_t* v = t.find(k);
        auto it = ref.find(k);
        ASSERT_EQ(v != nullptr, it != ref.end()) << k;
        if (v) {
          ASSERT_EQ(*v, it->second) << k;
        }
        ASSERT_EQ(t.contains(k), it != ref.end()) << k;
      }
    }
    ASSERT_EQ(t.size(), ref.size());
  }
  for (const auto& [k, v] : ref) {
    ASSERT_NE(t.find(k), nullptr) << k;
    EXPECT_EQ(*t.find(k), v) << k;
  }
  t.clear();
  EXPECT_EQ(t.size(), 0u);
  EXPECT_FALSE(t.contains(ref.begin()->first));
  EXPECT_TRUE(t.insert(""));  // the empty name is a key like any other
  EXPECT_FALSE(t.insert(""));
}

TEST(NameTable, ValuesSurviveRegrowth) {
  fe::NameTable t;
  for (int64_t i = 0; i < 50000; ++i) ASSERT_TRUE(t.try_emplace("n" + std::to_string(i), i * 3).second);
  for (int64_t i = 0; i < 50000; i += 2) t.erase("n" + std::to_string(i));
  // Erased slots are reused and dropped at the next regrowth; the odd keys keep their values.
  for (int64_t i = 50000; i < 120000; ++i) ASSERT_TRUE(t.insert("m" + std::to_string(i)));
  for (int64_t i = 0; i < 50000; ++i) {
    int64_t* v = t.find("n" + std::to_string(i));
    if (i % 2) {
      ASSERT_NE(v, nullptr) << i;
      EXPECT_EQ(*v, i * 3);
    } else {
      EXPECT_EQ(v, nullptr) << i;
    }
  }
  EXPECT_EQ(t.size(), 25000u + 70000u);
}

TEST(NameTable, GraphTakesReleasedNamesAgain) {
  // FX's namespace: an erased node's name is free again; its base's numbering goes on.
  fe::Graph g;
  fe::Node* a = g.placeholder("x", fe::TensorMeta());
  EXPECT_EQ(a->name(), "x");
  EXPECT_EQ(g.unique_name("x"), "x_1");
  EXPECT_EQ(g.unique_name("x"), "x_2");
  g.erase(a);
  EXPECT_EQ(g.unique_name("x"), "x");
  EXPECT_EQ(g.unique_name("x"), "x_3");
  EXPECT_EQ(g.unique_name("x_1"), "x_4");  // x_1 is taken: the next free number
  EXPECT_EQ(g.unique_name("for"), "for_1");  // a Python keyword is never a name
}

}  // namespace
