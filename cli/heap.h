// Process-level memory set-up of the command-line tool (not the library: an embedding program owns
// its allocator).
#pragma once

namespace fe::cli {

/// Back the malloc heap with transparent huge pages where the kernel offers them on request
/// (THP "madvise" mode, glibc on Linux); a no-op elsewhere. Call once, first thing in main.
void prefer_huge_page_heap();

}  // namespace fe::cli
