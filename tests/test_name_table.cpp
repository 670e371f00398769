// NameTable: against std::unordered_map under a long random mix of inserts,
// erasures and lookups, through regrowth with and without erased slots; and the names a graph
// hands out when nodes are erased and their names taken again. Namespace (the graph's names):
// against FX's create_name under random requests, explicit takes and releases.
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <random>
#include <set>
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

namespace {

/// FX's _Namespace.create_name as torch/fx/graph.py writes it (a set of used names, a count per
/// base), plus the release an erased node makes: the reference for Namespace. Numbers are split
/// off up to 17 digits (ours; FX's regex has no bound).
struct FxNamespace {
  std::set<std::string> used;
  std::map<std::string, int64_t> base_count;
  const std::set<std::string> illegal = {"for", "sum", "input"};

  std::string create_name(const std::string& candidate) {
    std::string c;
    bool run = false;
    for (char ch : candidate) {
      const bool ok = std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
      if (ok) c += ch;
      else if (!run) c += '_';
      run = !ok;
    }
    if (c.empty()) c = "_unnamed";
    if (std::isdigit(static_cast<unsigned char>(c[0]))) c = "_" + c;
    std::string base = c;
    int64_t num = 0;
    const size_t us = c.rfind('_');
    if (us != std::string::npos && us + 1 < c.size() && c.size() - us <= 18 &&
        c.find_first_not_of("0123456789", us + 1) == std::string::npos) {
      base = c.substr(0, us);
      num = std::stoll(c.substr(us + 1));
      c = base + "_" + std::to_string(num);
    }
    if (!num) num = base_count[base];
    while (used.count(c) || illegal.count(c)) c = base + "_" + std::to_string(++num);
    used.insert(c);
    base_count[base] = num;
    return c;
  }
};

}  // namespace

TEST(Namespace, NamesAsFxUnderRandomTakesAndReleases) {
  // 60,000 random requests, explicit takes and releases against the reference: the names given
  // and whether each name is taken agree throughout (numbers past the bits' reach, kept as text,
  // included).
  fe::Namespace ns;
  FxNamespace fx;
  std::mt19937_64 rng(7);
  const std::vector<std::string> bases = {"x", "linear", "for", "sum", "conv1", "a.b", "0abc", "", "_", "mul_2"};
  const std::vector<std::string> numbers = {"0", "1", "2", "3", "7", "007", "00", "64", "65", "4095", "4096", "5000",
                                            "99999999", "12345678901234567", "123456789012345678"};
  auto random_name = [&] {
    std::string n = bases[rng() % bases.size()];
    if (rng() % 3) n += "_" + numbers[rng() % numbers.size()];
    return n;
  };
  const std::vector<std::string> explicit_names = {"x", "x_3", "x_0", "x_007", "linear", "linear_4096", "linear_70000",
                                                   "conv1", "conv1_2", "mul_2_5", "x_99999999", "_unnamed", "a_b", "for", "sum_1"};
  std::vector<std::string> held;
  for (int step = 0; step < 60000; ++step) {
    const int what = static_cast<int>(rng() % 10);
    if (what < 6) {
      const std::string cand = random_name();
      const std::string got = ns.create_name(cand);
      ASSERT_EQ(got, fx.create_name(cand)) << "step " << step << ", candidate '" << cand << "'";
      held.push_back(got);
    } else if (what < 8 && !held.empty()) {
      const size_t i = rng() % held.size();
      ns.release(held[i]);
      fx.used.erase(held[i]);
      held[i] = held.back();
      held.pop_back();
    } else {
      // An explicit name (set_name, a loaded program's): taken as it is when free.
      const std::string& name = explicit_names[rng() % explicit_names.size()];
      ASSERT_EQ(ns.taken(name), fx.used.count(name) > 0) << name;
      if (fx.used.count(name)) continue;
      ns.take(name);
      fx.used.insert(name);
      held.push_back(name);
    }
    if (step % 97 == 0) {
      for (const std::string& name : explicit_names) ASSERT_EQ(ns.taken(name), fx.used.count(name) > 0) << name;
      for (const std::string& name : held) ASSERT_TRUE(ns.taken(name)) << name;
    }
  }
}
