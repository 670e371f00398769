// PyTorch's CUDA caching allocator, simulated over a program's allocations (analysis/memory.h,
// cuda_reserved): what torch.cuda.memory_reserved() would show after one run. The rules are those
// of c10/cuda/CUDACachingAllocator.cpp with its default configuration (no max_split_size, no
// expandable segments, one stream, no empty_cache): requests rounded up to 512 bytes; requests up to
// 1 MiB come from the small pool, whose segments are 2 MiB; larger ones from the large pool, whose
// segments are 20 MiB for requests under 10 MiB and the request rounded up to 2 MiB otherwise; a
// request takes the smallest free block of its pool that holds it, split when the rest is at least
// 512 bytes (small pool) or more than 1 MiB (large pool); freed blocks merge with free neighbours in
// their segment; segments are never returned.
#include <algorithm>
#include <map>
#include <set>

#include "fakeexport/analysis/memory.h"

namespace fe::analysis {
namespace {

constexpr int64_t kMinBlockSize = 512;
constexpr int64_t kSmallSize = 1 << 20;
constexpr int64_t kSmallBuffer = 2 << 20;
constexpr int64_t kLargeBuffer = 20 << 20;
constexpr int64_t kMinLargeAlloc = 10 << 20;
constexpr int64_t kRoundLarge = 2 << 20;

class CachingAllocator {
 public:
  /// Returns a handle for free().
  int64_t malloc(int64_t bytes) {
    const int64_t size = cuda_round(bytes);
    const bool small = size <= kSmallSize;
    std::set<std::pair<int64_t, int64_t>>& pool = small ? small_free_ : large_free_;  // (size, address)
    auto it = pool.lower_bound({size, -1});
    int64_t addr;
    int64_t block;
    if (it != pool.end()) {
      block = it->first;
      addr = it->second;
      pool.erase(it);
    } else {
      block = small ? kSmallBuffer : size < kMinLargeAlloc ? kLargeBuffer : (size + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
      addr = next_;
      next_ += block;
      reserved_ += block;
      segment_end_[addr] = addr + block;
    }
    const int64_t rest = block - size;
    if (small ? rest >= kMinBlockSize : rest > kSmallSize) {
      blocks_[addr + size] = {rest, false, small};
      pool.insert({rest, addr + size});
      block = size;
    }
    blocks_[addr] = {block, true, small};
    return addr;
  }

  void free(int64_t addr) {
    auto it = blocks_.find(addr);
    if (it == blocks_.end()) return;
    it->second.used = false;
    std::set<std::pair<int64_t, int64_t>>& pool = it->second.small ? small_free_ : large_free_;
    // Merge with the following and preceding free blocks of the same segment.
    const int64_t seg_start = segment_start(addr);
    const int64_t seg_end = segment_end_[seg_start];
    int64_t start = addr, size = it->second.size;
    if (auto next = blocks_.find(start + size); start + size < seg_end && next != blocks_.end() && !next->second.used) {
      pool.erase({next->second.size, next->first});
      size += next->second.size;
      blocks_.erase(next);
    }
    if (start > seg_start) {
      auto prev = blocks_.lower_bound(start);
      if (prev != blocks_.begin()) {
        --prev;
        if (!prev->second.used && prev->first + prev->second.size == start) {
          pool.erase({prev->second.size, prev->first});
          blocks_.erase(it);
          start = prev->first;
          size += prev->second.size;
          it = prev;
        }
      }
    }
    it->second.size = size;
    pool.insert({size, start});
  }

  int64_t reserved() const { return reserved_; }

 private:
  struct Block {
    int64_t size;
    bool used;
    bool small;
  };
  int64_t segment_start(int64_t addr) const {
    auto it = segment_end_.upper_bound(addr);
    return std::prev(it)->first;
  }
  std::map<int64_t, Block> blocks_;
  std::map<int64_t, int64_t> segment_end_;  // segment start -> end
  std::set<std::pair<int64_t, int64_t>> small_free_, large_free_;
  int64_t next_ = 0, reserved_ = 0;
};

}  // namespace

std::vector<std::pair<Device, int64_t>> cuda_reserved(const ExportedProgram& ep, const MemoryLedger& ledger) {
  std::map<std::string, CachingAllocator> alloc;  // by device
  std::vector<Device> order;
  auto on = [&](const Device& d) -> CachingAllocator* {
    if (d.is_cpu() || d.is_meta()) return nullptr;
    const std::string key = d.normalized().str();
    if (!alloc.count(key)) order.push_back(d.normalized());
    return &alloc[key];
  };
  // Weights as the module holds them (loaded before the run, tied ones once), then the inputs.
  for (const TensorInput& t : tensor_inputs(ep))
    if (!t.tied)
      if (CachingAllocator* a = on(t.meta->device)) a->malloc(t.meta->storage_nbytes());
  // Activations in step order: a step's allocations, then its frees.
  std::vector<std::pair<int, const Lifetime*>> events;  // (step * 2 + 0 alloc / + 1 free)
  for (const Lifetime& l : ledger.lifetimes) {
    events.emplace_back(l.first * 2, &l);
    if (l.last != Lifetime::kEnd) events.emplace_back(l.last * 2 + 1, &l);
  }
  std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::map<const Lifetime*, int64_t> addr;
  for (const auto& [key, l] : events) {
    CachingAllocator* a = on(l->device);
    if (!a || l->bytes <= 0) continue;
    if (key % 2 == 0) addr[l] = a->malloc(l->bytes);
    else if (auto it = addr.find(l); it != addr.end()) a->free(it->second);
  }
  std::vector<std::pair<Device, int64_t>> out;
  for (const Device& d : order) out.emplace_back(d, alloc[d.str()].reserved());
  return out;
}

}  // namespace fe::analysis
