// Why: a whole export is a short burst of small allocations. Llama-3.1-405B's touches ~20 MiB of
// fresh heap, which with 4 KiB pages is ~5,000 first-touch page faults: ~15% of its wall time
// (perf: exc_page_fault, memcg charging). glibc can advise its heap to use transparent huge pages
// (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), but tunables are read before main; this does the same
// from inside: reserve the heap's growth in one 64 MiB step, never trim it (a trimmed and regrown
// top would lose the advice), keep large blocks on it rather than in separate mmaps, and advise the
// reserved range. Untouched reserve costs nothing: RSS grows as pages are touched.
#include "cli/heap.h"

#include <cstdint>
#include <cstdlib>  // first: defines __GLIBC__ (features.h)

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace fe::cli {

void prefer_huge_page_heap() {
#if defined(__linux__) && defined(__GLIBC__)
  if (const char* t = std::getenv("GLIBC_TUNABLES"); t && *t) return;  // the user tunes malloc themselves
  constexpr size_t kReserve = size_t{64} << 20, kHuge = size_t{2} << 20;
  mallopt(M_TOP_PAD, static_cast<int>(kReserve));
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(kReserve * 2));
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kReserve / 2));
  void* probe = std::malloc(kHuge);  // more than the top holds: the heap grows by it and the reserve (untouched)
  const auto end = reinterpret_cast<uintptr_t>(sbrk(0));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(probe) + kHuge - 1) & ~(kHuge - 1);
  // Only when the probe was carved from the top just grown (not, say, from a sanitizer's allocator).
  const auto at = reinterpret_cast<uintptr_t>(probe);
  if (probe && end > at && end - at <= kReserve + 2 * kHuge && end > begin + kHuge)
    madvise(reinterpret_cast<void*>(begin), (end - begin) & ~(kHuge - 1), MADV_HUGEPAGE);  // advice only: failure is harmless
  std::free(probe);
#endif
}

}  // namespace fe::cli
