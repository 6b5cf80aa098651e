#include "adjit/runtime/Allocator.h"

#include "adjit/runtime/Environment.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <iterator>
#include <list>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include <sys/mman.h>

#include <fmt/format.h>

#include "adjit/runtime/Error.h"

namespace adjit {
namespace {

constexpr size_t kDefaultCacheLimitBytes = size_t{1} << 30;
// Up to this size every multiple of the alignment is its own class, so a
// steady workload reuses blocks with no waste.
constexpr size_t kFineClassLimit = size_t{1} << 20;

size_t round_up(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Bigger sizes get 8 classes per power of two (at most 12.5% slack), so
// slightly varying big requests still find a cached block.
size_t size_class(size_t bytes) {
  if (bytes <= kFineClassLimit) return round_up(bytes == 0 ? 1 : bytes, kBufferAlignment);
  size_t octave = size_t{1} << (63 - __builtin_clzll(bytes));
  return round_up(bytes, octave / 8);
}

size_t cache_limit_from_environment() {
  return megabytes_variable("ADJIT_ALLOCATOR_CACHE_MB").value_or(kDefaultCacheLimitBytes);
}

// Blocks of this size and more start on a huge-page boundary and are
// advised for transparent huge pages, which the kernel's usual mode
// (madvise) gives only to memory that asks. With 4 KiB pages, each row of
// a 1024-wide f32 matrix is a page of its own, and a row loop's accesses
// and prefetches of the next row missed the TLB on every row: W3's
// gradient took 8% longer (the other workloads within 2%).
// ADJIT_HUGE_PAGES=0 turns the advice off (to measure what it does).
constexpr size_t kHugePageBytes = size_t{2} << 20;

bool huge_pages_from_environment() {
  const char* setting = std::getenv("ADJIT_HUGE_PAGES");
  if (!setting || !*setting) return true;
  std::string_view value(setting);
  if (value == "0" || value == "1") return value == "1";
  throw Error(fmt::format("ADJIT_HUGE_PAGES='{}' is neither 0 nor 1", setting));
}

void* allocate_block(size_t bytes, bool huge_pages) {
  if (!huge_pages || bytes < kHugePageBytes) return std::aligned_alloc(kBufferAlignment, bytes);
  void* block = nullptr;
  if (posix_memalign(&block, kHugePageBytes, bytes) != 0) return nullptr;
  // Advice only: where the kernel has no huge pages to give, 4 KiB pages serve.
  madvise(block, bytes / kHugePageBytes * kHugePageBytes, MADV_HUGEPAGE);
  return block;
}

// Allocations left before an injected failure; 0: none armed.
std::atomic<size_t> allocations_before_failure{0};

bool injected_failure_now() {
  size_t left = allocations_before_failure.load(std::memory_order_relaxed);
  while (left > 0)
    if (allocations_before_failure.compare_exchange_weak(left, left - 1)) return left == 1;
  return false;
}

class CachingAllocator {
 public:
  void* allocate(size_t bytes) {
    if (injected_failure_now())
      throw RuntimeError(fmt::format(
          "out of memory allocating a host buffer of {} bytes (a failure injected by "
          "adjit::fail_nth_allocation)",
          bytes));
    if (bytes > PTRDIFF_MAX)  // also keeps the size-class arithmetic from wrapping
      throw RuntimeError(fmt::format("cannot allocate a host buffer of {} bytes", bytes));
    size_t block_size = size_class(bytes);
    {
      std::lock_guard lock(mutex_);
      auto found = free_by_class_.find(block_size);
      if (found != free_by_class_.end() && !found->second.empty()) {
        // Newest first: its pages are most likely still in cache and TLB.
        auto entry = found->second.back();
        found->second.pop_back();
        void* block = entry->block;
        release_order_.erase(entry);
        cached_bytes_ -= block_size;
        add_live(block_size);
        ++hits_;
        return block;
      }
      ++misses_;
      add_live(block_size);
    }
    void* block = allocate_block(block_size, huge_pages_);
    if (!block) {
      empty();  // cached blocks of other sizes may be what is missing
      block = allocate_block(block_size, huge_pages_);
    }
    if (!block) {
      std::lock_guard lock(mutex_);
      live_bytes_ -= block_size;
      throw RuntimeError(fmt::format("out of memory allocating a host buffer of {} bytes", bytes));
    }
    return block;
  }

  void release(void* block, size_t bytes) {
    if (!block) return;
    size_t block_size = size_class(bytes);
    std::unique_lock lock(mutex_);
    live_bytes_ -= block_size;
    if (block_size > cache_limit_) {
      lock.unlock();
      std::free(block);
      return;
    }
    release_order_.push_back({block_size, block});
    free_by_class_[block_size].push_back(std::prev(release_order_.end()));
    cached_bytes_ += block_size;
    while (cached_bytes_ > cache_limit_) evict_oldest();
  }

  void empty() {
    std::lock_guard lock(mutex_);
    while (!release_order_.empty()) evict_oldest();
  }

  AllocatorStats stats() {
    std::lock_guard lock(mutex_);
    return {cached_bytes_, live_bytes_, hits_, misses_, peak_live_bytes_};
  }

  void reset_peak() {
    std::lock_guard lock(mutex_);
    peak_live_bytes_ = live_bytes_;
  }

 private:
  struct CachedBlock {
    size_t size;
    void* block;
  };
  using ReleaseOrder = std::list<CachedBlock>;

  void add_live(size_t bytes) {
    live_bytes_ += bytes;
    peak_live_bytes_ = std::max(peak_live_bytes_, live_bytes_);
  }

  // The oldest block of the whole cache is also the oldest of its class, i.e.
  // the front of that class's queue.
  void evict_oldest() {
    CachedBlock oldest = release_order_.front();
    free_by_class_[oldest.size].pop_front();
    release_order_.pop_front();
    cached_bytes_ -= oldest.size;
    std::free(oldest.block);
  }

  std::mutex mutex_;
  const size_t cache_limit_ = cache_limit_from_environment();
  const bool huge_pages_ = huge_pages_from_environment();
  ReleaseOrder release_order_;  // oldest release first
  std::unordered_map<size_t, std::deque<ReleaseOrder::iterator>> free_by_class_;
  size_t cached_bytes_ = 0;
  size_t live_bytes_ = 0;
  size_t peak_live_bytes_ = 0;
  size_t hits_ = 0;
  size_t misses_ = 0;
};

// Deliberately never destroyed: arrays in static storage may release their
// buffers after every other static object is gone.
CachingAllocator& allocator() {
  static auto* instance = new CachingAllocator;
  return *instance;
}

}  // namespace

void* allocate_buffer(size_t bytes) { return allocator().allocate(bytes); }
void release_buffer(void* buffer, size_t bytes) { allocator().release(buffer, bytes); }
AllocatorStats allocator_stats() { return allocator().stats(); }
void reset_allocator_peak() { allocator().reset_peak(); }
void empty_cache() { allocator().empty(); }
void fail_nth_allocation(size_t n) { allocations_before_failure.store(n); }

}  // namespace adjit
