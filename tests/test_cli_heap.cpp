// cli/heap.cpp: after prefer_huge_page_heap(), the heap's new blocks live in an advised range whose
// resident pages are all huge ones. A single 4 KiB page touched in a 2 MiB range before the advice
// (a chunk header malloc writes) makes every later fault there a 4 KiB one; in a firecracker VM
// each costs ~10 us, and that was a third of a 405B export's wall time.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/heap.h"

// AddressSanitizer replaces malloc (GCC says so with __SANITIZE_ADDRESS__, clang with __has_feature).
#if defined(__SANITIZE_ADDRESS__)
#define FE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FE_ASAN 1
#endif
#endif

namespace {

struct Vma {
  uintptr_t lo = 0, hi = 0;
  bool advised = false;      // VmFlags has "hg" (MADV_HUGEPAGE)
  int64_t anon_kb = 0;       // Anonymous
  int64_t anon_huge_kb = 0;  // AnonHugePages
};

std::vector<Vma> read_smaps() {
  std::vector<Vma> out;
  std::ifstream f("/proc/self/smaps");
  std::string line;
  while (std::getline(f, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
      out.push_back({lo, hi});
      continue;
    }
    if (out.empty()) continue;
    long kb = 0;
    if (std::sscanf(line.c_str(), "Anonymous: %ld kB", &kb) == 1) out.back().anon_kb = kb;
    if (std::sscanf(line.c_str(), "AnonHugePages: %ld kB", &kb) == 1) out.back().anon_huge_kb = kb;
    if (line.rfind("VmFlags:", 0) == 0) out.back().advised = line.find(" hg") != std::string::npos;
  }
  return out;
}

std::string thp_mode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string s;
  std::getline(f, s);
  return s;
}

}  // namespace

TEST(CliHeap, BlocksAfterTheAdviceAreOnHugePagesOnly) {
#if defined(FE_ASAN) || !defined(__linux__) || !defined(__GLIBC__)
  GTEST_SKIP() << "skipped: the huge-page heap applies to glibc's malloc (not a sanitizer's)";
#else
  const std::string mode = thp_mode();
  if (mode.empty() || mode.find("[never]") != std::string::npos)
    GTEST_SKIP() << "skipped: transparent huge pages are off here ('" << mode << "')";
  fe::cli::prefer_huge_page_heap();
  // 8 MiB in 64 KiB blocks (past the thread cache and the small bins: carved from the top), touched.
  std::vector<char*> blocks;
  for (int i = 0; i < 128; ++i) {
    blocks.push_back(static_cast<char*>(std::malloc(64 << 10)));
    std::memset(blocks.back(), i, 64 << 10);
  }
  const std::vector<Vma> vmas = read_smaps();
  const Vma* heap = nullptr;  // the advised mapping holding most blocks
  size_t best = 0;
  for (const Vma& v : vmas) {
    size_t in = 0;
    for (char* b : blocks) in += reinterpret_cast<uintptr_t>(b) >= v.lo && reinterpret_cast<uintptr_t>(b) < v.hi;
    if (v.advised && in > best) best = in, heap = &v;
  }
  ASSERT_NE(heap, nullptr) << "no block lies in a range advised MADV_HUGEPAGE";
  EXPECT_GE(best, 120u) << "most blocks should lie in the advised range";
  if (heap->anon_huge_kb == 0)
    GTEST_SKIP() << "skipped: the kernel gave no huge page (none free?); Anonymous " << heap->anon_kb << " kB";
  // Every resident page of the range is part of a huge page: none was touched before the advice.
  EXPECT_EQ(heap->anon_kb, heap->anon_huge_kb) << "4 KiB pages in the advised heap range";
  EXPECT_GE(heap->anon_huge_kb, 6 << 10);
  for (char* b : blocks) std::free(b);
#endif
}
