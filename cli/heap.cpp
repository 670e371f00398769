// Why: a whole export is a short burst of small allocations. Llama-3.1-405B's touches ~14 MiB of
// fresh heap, which with 4 KiB pages is ~3,500 first-touch page faults; in a VM each can cost ~10 us
// (the host backs the page too), so 4 KiB pages doubled its wall time. glibc can advise its heap to
// use transparent huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), but tunables are read before
// main; this does the same from inside: grow the heap by 30 MiB in one step, advise that range
// before anything in it is written, start the heap's next blocks at its first 2 MiB boundary,
// never trim it (a trimmed and regrown top would lose the advice), and keep large blocks on it
// rather than in separate mmaps. Untouched reserve costs nothing: RSS grows as pages are touched.
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
  // A huge page backs a 2 MiB range only if none of its 4 KiB pages was touched before the advice:
  // a page table made by one early write (a chunk header) turns every later fault there into a
  // 4 KiB one. So nothing in the advised range may be written before madvise, including the
  // headers malloc writes at both ends of the block that grows the heap.
  constexpr size_t kHuge = size_t{2} << 20, kGrow = size_t{30} << 20, kPad = size_t{64} << 20;
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kGrow + kHuge));  // large blocks stay on the advised heap
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(kPad * 2));        // a trimmed, regrown top would lose the advice
  mallopt(M_TOP_PAD, 0);  // the growing block ends where the heap ends: its end header lies past the range
  // Through volatile: these blocks are only compared and freed, and clang may drop such a malloc.
  void* volatile grow_v = std::malloc(kGrow);
  void* grow = grow_v;
  const auto end = reinterpret_cast<uintptr_t>(sbrk(0));
  const auto at = reinterpret_cast<uintptr_t>(grow);
  // Only when the block was carved from the top just grown (not, say, from a sanitizer's allocator).
  if (grow && end > at && end - at <= kGrow + kHuge) {
    std::free(grow);  // back into the top, which now starts where the block did (`at`, less a header)
    // A block that is never freed nor touched fills the top up to the next 2 MiB boundary, so the
    // heap's next allocations start on it, in the advised range; its header sits in a page already
    // touched.
    uintptr_t begin = (at + kHuge - 1) & ~(kHuge - 1);
    if (begin - at < (size_t{64} << 10)) begin += kHuge;  // a tiny filler could come from a free list
    void* volatile filler_v = std::malloc(begin - at - 16);
    void* filler = filler_v;
    if (filler == grow && end > begin + kHuge)
      madvise(reinterpret_cast<void*>(begin), (end - begin) & ~(kHuge - 1), MADV_HUGEPAGE);  // advice only
    else
      std::free(filler);
  } else {
    std::free(grow);
  }
  mallopt(M_TOP_PAD, static_cast<int>(kPad));  // later growth in large steps
#endif
}

}  // namespace fe::cli
