// Helpers shared by the test files: file reading, line splitting, error text capture.
#pragma once
#include <array>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>

#include <gtest/gtest.h>

#include "fakeexport/ops/dispatch.h"

namespace fe_test {

/// Concrete values of sizes/strides, for EXPECT_EQ against `V{...}`.
using V = std::vector<int64_t>;
inline V ints(fe::IntSpan s) {
  V v;
  for (const auto& x : s) v.push_back(x.expect_int());
  return v;
}

/// A TraceSink recording every dispatched op: its qualified name, arguments and source line.
struct Recorder : fe::TraceSink {
  std::vector<std::string> ops;
  std::vector<std::vector<fe::IValue>> args;
  std::vector<unsigned> lines;
  void record(const fe::OpDef& op, std::span<const fe::IValue> a, std::span<const fe::Tensor>,
              const fe::SrcLocArg& loc) override {
    ops.push_back(op.qualified);
    args.emplace_back(a.begin(), a.end());
    lines.push_back(loc.line());
  }
};

/// Whole file as text; a test failure if it cannot be read.
inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A printed program without comment and blank lines (ours name the C++ source where PyTorch's name
/// the Python one) and without trailing spaces (PyTorch 2.11 prints "Graph signature: ").
inline std::string without_comments(const std::string& s) {
  std::istringstream in(s);
  std::string line, out;
  while (std::getline(in, line)) {
    const size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos || line[first] == '#') continue;
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

/// `s` with every node renamed in order of definition (N0, N1, ...); op names (after a dot) kept.
inline std::string canonical_names(const std::string& s) {
  static const std::regex def(R"(\n\s+([A-Za-z_]\w*)(?:: "[^"]*")? = )");
  std::map<std::string, std::string> names;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), def); it != std::sregex_iterator(); ++it)
    names.emplace((*it)[1].str(), "N" + std::to_string(names.size()));
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const bool start = (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_') &&
                       (i == 0 || !(std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_' || s[i - 1] == '.'));
    if (!start) {
      out += s[i++];
      continue;
    }
    size_t e = i;
    while (e < s.size() && (std::isalnum(static_cast<unsigned char>(s[e])) || s[e] == '_')) ++e;
    const std::string word = s.substr(i, e - i);
    auto it = names.find(word);
    out += it != names.end() ? it->second : word;
    i = e;
  }
  return out;
}

inline std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

/// Replaces the text of every `# File:` comment line (ours point at C++ sources, PyTorch's at Python).
inline std::string blank_file_lines(const std::string& s) {
  return std::regex_replace(s, std::regex("# File: [^\n]*"), "# File: <source>");
}

/// The message of the exception f throws, or "<no exception>".
inline std::string what_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "<no exception>";
}

/// The message of the E that f throws; "<other exception> ..." or "<no exception>" otherwise, so a
/// wrong exception type fails the comparison.
template <class E>
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<other exception> ") + e.what();
  }
  return "<no exception>";
}

/// Exit status and combined stdout+stderr of the fakeexport CLI run with `args` (FE_CLI_PATH).
struct CliResult {
  int rc;
  std::string out;
};
inline CliResult run_cli(const std::string& args) {
  const std::string cmd = std::string(FE_CLI_PATH) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  EXPECT_NE(p, nullptr);
  std::string out;
  std::array<char, 4096> buf{};
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

/// A calibration fixture's case `key` ("NAME@BxS") that PyTorch could not export (`error`: its
/// "Type: message" line): `fakeexport COMMAND` of the golden config at that shape must exit 2 with
/// the same message (transformers' own check, e.g. CLIP's texts past their positions).
inline void expect_refused_as_pytorch(const std::string& command, const std::string& golden_dir, const std::string& key,
                                      const std::string& error) {
  const std::string name = key.substr(0, key.find('@')), shape = key.substr(key.find('@') + 1);
  const std::string args = command + " " + golden_dir + "/" + name + ".config.json --json --batch " +
                           shape.substr(0, shape.find('x')) + " --seq " + shape.substr(shape.find('x') + 1);
  const CliResult r = run_cli(args);
  EXPECT_EQ(r.rc, 2) << args << "\n" << r.out;
  const std::string head = error.substr(error.find(": ") + 2, 40);  // past the exception type
  EXPECT_NE(r.out.find(head), std::string::npos) << key << ": PyTorch: " << error << "\nours: " << r.out;
}

}  // namespace fe_test
