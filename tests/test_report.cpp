// `fakeexport report`: the page's data agrees with what `memory`, `cost` and `check` report for the
// same program (each computed on its own path), the page is self-contained and small, and, where
// Debian's chromium is installed, it renders in a real browser without console errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "test_util.h"

namespace {

using json = nlohmann::json;
const std::string kFixtures = std::string(FE_FIXTURES_DIR);
const std::string kConfigs = kFixtures + "/../../configs/";

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("fe_report_" + std::to_string(::getpid()) + "_" + name)).string();
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

/// The data island of a written page.
json page_data(const std::string& page) {
  const std::string open = "<script id=\"fe-data\" type=\"application/json\">";
  const size_t a = page.find(open);
  EXPECT_NE(a, std::string::npos);
  const size_t b = page.find("</script>", a);
  EXPECT_NE(b, std::string::npos);
  return json::parse(page.substr(a + open.size(), b - a - open.size()));
}

struct Written {
  std::string page;
  json data;
};

Written write_report(const std::string& args, const std::string& name) {
  const std::string out = temp_path(name + ".html");
  const fe_test::CliResult r = fe_test::run_cli("report " + args + " -o " + out);
  EXPECT_EQ(r.rc, 0) << r.out;
  Written w;
  w.page = slurp(out);
  std::filesystem::remove(out);
  if (!w.page.empty()) w.data = page_data(w.page);
  return w;
}

json cli_json(const std::string& args) {
  const fe_test::CliResult r = fe_test::run_cli(args + " --json");
  EXPECT_EQ(r.rc == 0 || r.rc == 1, true) << r.out;
  return json::parse(r.out);
}

/// The largest live activation bytes of a device's timeline.
int64_t timeline_max(const json& data, int device) {
  int64_t best = 0;
  for (const json& t : data["timeline"])
    if (t["device"] == device)
      for (const json& b : t["bytes"]) best = std::max(best, b.get<int64_t>());
  return best;
}

TEST(Report, DataAgreesWithMemoryCostAndCheck) {
  const std::string model = kConfigs + "meta-llama-3-8b.json --batch 1 --seq 256 --devices 2xH100-80GB";
  const Written w = write_report(model, "llama8b");
  const json& d = w.data;
  ASSERT_TRUE(d.is_object());
  const json mem = cli_json("memory " + model);
  const json cost = cli_json("cost " + model);

  // Devices: the memory timeline rebuilt from the ledger's lifetimes peaks where `memory` says; the
  // roofline totals are `cost`'s.
  ASSERT_EQ(d["devices"].size(), 2u);
  int64_t flops = 0;
  for (size_t i = 0; i < d["devices"].size(); ++i) {
    const json& dev = d["devices"][i];
    const std::string name = dev["name"];
    EXPECT_EQ(timeline_max(d, static_cast<int>(i)), mem["devices"][name]["activation_peak_bytes"].get<int64_t>()) << name;
    EXPECT_EQ(dev["peak_bytes"], mem["devices"][name]["peak_bytes"]) << name;
    EXPECT_EQ(dev["flops"], cost["devices"][name]["flops"]) << name;
    EXPECT_DOUBLE_EQ(dev["time_s"].get<double>(), cost["devices"][name]["time_s"].get<double>()) << name;
    EXPECT_EQ(dev["spec"], "H100-SXM-80GB");
    flops += dev["flops"].get<int64_t>();
    // The peak step is the node `memory` names.
    ASSERT_GE(dev["peak_step"].get<int>(), 0);
    EXPECT_EQ(d["nodes"]["name"][dev["peak_step"].get<size_t>()], mem["devices"][name]["peak_node"]);
  }
  EXPECT_EQ(flops, cost["flops"].get<int64_t>());
  // Per-node FLOPs add up to the program's; hotspots are in decreasing time.
  int64_t node_flops = 0;
  for (const json& f : d["nodes"]["flops"]) node_flops += f.get<int64_t>();
  EXPECT_EQ(node_flops, cost["flops"].get<int64_t>());
  double last = 1e300;
  for (const json& i : d["hotspots"]["time"]) {
    const double t = d["nodes"]["time"][i.get<size_t>()];
    EXPECT_LE(t, last);
    last = t;
  }
  EXPECT_EQ(d["nodes"]["name"][d["hotspots"]["time"][0].get<size_t>()], cost["hotspots"][0]["node"]);

  // Every column has one entry per node; every module's parent is a path prefix of it.
  const size_t n = d["verdict"]["nodes"];
  for (const auto& [col, v] : d["nodes"].items()) EXPECT_EQ(v.size(), n) << col;
  const json& mods = d["modules"];
  for (size_t i = 1; i < mods["path"].size(); ++i) {
    const std::string path = mods["path"][i], parent = mods["path"][mods["parent"][i].get<size_t>()];
    EXPECT_TRUE(parent.empty() || path.starts_with(parent + ".")) << path << " under " << parent;
  }
  std::set<std::string> node_modules;
  for (const json& m : d["nodes"]["mod"]) node_modules.insert(mods["path"][m.get<size_t>()]);
  EXPECT_TRUE(node_modules.count("model.layers.0.self_attn.q_proj"));
  EXPECT_TRUE(node_modules.count("lm_head"));

  // The pipeline's one boundary: transfer nodes come from the other device.
  int transfers = 0;
  for (size_t i = 0; i < n; ++i)
    if (const int from = d["nodes"]["transfer"][i]; from > 0) {
      ++transfers;
      EXPECT_NE(from - 1, d["nodes"]["dev"][i].get<int>());
    }
  EXPECT_GE(transfers, 1);
  EXPECT_EQ(d["verdict"]["device_sites"].size(), 0u);
  EXPECT_EQ(d["verdict"]["missing_kernels"].size(), 0u);
  EXPECT_EQ(d["verdict"]["verifies"], true);  // `check` re-derives every node of our export
  for (const json& f : d["verdict"]["fits"]) EXPECT_EQ(f["fits"], true) << f.dump();
}

TEST(Report, SelfContainedAndEscaped) {
  const Written w = write_report(kConfigs + "gpt2.json", "gpt2");
  // Nothing is fetched when the page is viewed.
  for (const char* ref : {"src=\"http", "href=\"http", "src=\"//", "@import", "fetch(", "XMLHttpRequest"})
    EXPECT_EQ(w.page.find(ref), std::string::npos) << ref;
  // The data cannot close its script element or open a comment in it.
  const size_t a = w.page.find("id=\"fe-data\"");
  const size_t b = w.page.find("</script>", a);
  EXPECT_EQ(w.page.substr(a, b - a).find('<'), std::string::npos);
  // No capacities were given: no verdict per device, no times.
  for (const json& f : w.data["verdict"]["fits"]) EXPECT_TRUE(f["fits"].is_null());
  EXPECT_TRUE(w.data["latency_s"].is_null());
}

TEST(Report, ArchiveLintMatchesCheck) {
  const std::string file = kFixtures + "/corpus/seed002_decoder.pt2";
  const Written w = write_report(file + " --target cuda:0", "seed002");
  const fe_test::CliResult r = fe_test::run_cli("check " + file + " --target cuda:0 --json");
  const json check = json::parse(r.out);
  ASSERT_GT(check["device_sites"].size(), 0u);
  std::multiset<std::string> want, got;
  for (const json& s : check["device_sites"]) want.insert(s["node"].get<std::string>());
  for (const json& s : w.data["verdict"]["device_sites"]) got.insert(s["node"].get<std::string>());
  EXPECT_EQ(got, want);
}

TEST(Report, DoesNotFitIsShown) {
  const Written w = write_report(kConfigs + "meta-llama-3-8b.json --seq 128 --cap cuda:0=8GB", "small");
  ASSERT_EQ(w.data["verdict"]["fits"].size(), 1u);
  EXPECT_EQ(w.data["verdict"]["fits"][0]["fits"], false);
  EXPECT_GT(w.data["verdict"]["fits"][0]["required"].get<int64_t>(), int64_t{8'000'000'000});
}

TEST(Report, BadInput) {
  fe_test::CliResult r = fe_test::run_cli("report gpt2");
  EXPECT_EQ(r.rc, 2) << r.out;
  r = fe_test::run_cli("report gpt2 -o /nonexistent-dir/x.html");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("/nonexistent-dir/x.html"), std::string::npos) << r.out;
  r = fe_test::run_cli("report " + kFixtures + "/corpus/seed002_decoder.pt2 --device cuda:0 -o " + temp_path("x.html"));
  EXPECT_EQ(r.rc, 2) << r.out;
}

// Issue 17's size bound: Llama-3.1-405B over 8 devices (9,000 nodes) in one file under 10 MB.
TEST(Report, Llama405bOverEightDevicesUnderTenMegabytes) {
  const Written w = write_report(kConfigs + "meta-llama-3.1-405b.json --devices 8xH100-80GB --seq 2048", "405b");
  EXPECT_LT(w.page.size(), size_t{10'000'000});
  EXPECT_GT(w.data["verdict"]["nodes"].get<int>(), 9000);
  EXPECT_EQ(w.data["devices"].size(), 8u);
}

}  // namespace

namespace {

/// Debian's chromium (or FE_CHROMIUM), or empty when this machine has none.
std::string chromium() {
  if (const char* e = std::getenv("FE_CHROMIUM"); e && *e) return e;
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (std::filesystem::exists(p)) return p;
  return {};
}

std::string unescape_html(std::string s) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}}) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  }
  return s;
}

/// Opens the report of `args` in headless Chromium with the page's self-test (#selftest: it
/// expands a module by a click, opens a node's details, checks the charts) and returns the
/// self-test's result, with the browser's console errors under "console".
json browse(const std::string& args, const std::string& name) {
  const std::string out = temp_path(name + ".html"), err = temp_path(name + ".err"), profile = temp_path(name + ".profile");
  fe_test::CliResult r = fe_test::run_cli("report " + args + " -o " + out);
  EXPECT_EQ(r.rc, 0) << r.out;
  const std::string cmd = "timeout 120 " + chromium() + " --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir=" +
                          profile + " --enable-logging=stderr --v=0 --dump-dom 'file://" + out + "#selftest' 2>" + err;
  FILE* p = popen(cmd.c_str(), "r");
  std::string dom;
  std::array<char, 65536> buf{};
  while (size_t k = fread(buf.data(), 1, buf.size(), p)) dom.append(buf.data(), k);
  pclose(p);
  json result;
  std::smatch m;
  if (std::regex_search(dom, m, std::regex("<pre id=\"fe-selftest\">([^<]*)</pre>"))) result = json::parse(unescape_html(m[1]));
  json console = json::array();
  std::ifstream e(err);
  for (std::string line; std::getline(e, line);)
    if (line.find("CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos) console.push_back(line);
  result["console"] = console;
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  std::filesystem::remove_all(profile);
  return result;
}

void expect_renders(const json& r, const std::string& what) {
  ASSERT_TRUE(r.contains("interactive_ms")) << what << ": the self-test did not run: " << r.dump();
  EXPECT_TRUE(r["errors"].empty()) << what << ": " << r["errors"].dump();
  EXPECT_TRUE(r["console"].empty()) << what << ": " << r["console"].dump();
  EXPECT_GT(r["expanded_nodes"].get<int>(), 0) << what << ": expanding " << r["expanded_module"] << " showed no nodes";
  EXPECT_EQ(r["details_ok"], true) << what;
  EXPECT_EQ(r["charts_ok"], true) << what;
}

TEST(ReportBrowser, ZooModelRendersAndExpands) {
  if (chromium().empty()) GTEST_SKIP() << "skipped: no chromium (apt-get install chromium; or set FE_CHROMIUM)";
  const json r = browse(kConfigs + "meta-llama-3-8b.json --seq 512 --pipeline cuda:0,cuda:1 --devices 2xH100-80GB", "zoo");
  expect_renders(r, "llama-3-8b");
  std::cout << "[ browser  ] llama-3-8b: interactive " << r["interactive_ms"] << " ms, expand " << r["expand_ms"] << " ms\n";
}

// Issue 17: the 9,000-node program renders, expands and draws its charts in the browser. Its time to
// interactive (the page's own performance.now(), target under 2 s) is a timing, so it is measured in
// bench/report_405b.sh, not asserted here: a loaded machine would fail a correct page.
TEST(ReportBrowser, Llama405bEightDevicesRendersAndExpands) {
  if (chromium().empty()) GTEST_SKIP() << "skipped: no chromium (apt-get install chromium; or set FE_CHROMIUM)";
  const json r = browse(kConfigs + "meta-llama-3.1-405b.json --seq 2048 --devices 8xH100-80GB", "405b");
  expect_renders(r, "405b");
  EXPECT_GT(r["nodes_total"].get<int>(), 9000);
  std::cout << "[ browser  ] 405b: interactive " << r["interactive_ms"] << " ms, expand " << r["expand_ms"] << " ms\n";
}

}  // namespace
