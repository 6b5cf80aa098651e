#pragma once

#include <cstddef>

namespace adjit {

// Process-wide, thread-safe caching allocator for 64-byte-aligned host buffers.
//
// glibc maps every block of 32 MiB or more afresh with mmap, so a training loop
// that allocates its outputs every step would page-fault on every step.
// Freed blocks are kept by size class and handed out again, which makes
// steady-state allocation free. Cached bytes are bounded (1 GiB by default,
// ADJIT_ALLOCATOR_CACHE_MB overrides; 0 disables caching); the blocks released
// longest ago are freed first.

inline constexpr size_t kBufferAlignment = 64;

// Never returns null, even for 0 bytes; throws adjit::RuntimeError when the
// system is out of memory.
void* allocate_buffer(size_t bytes);
// `bytes` must be the size passed to allocate_buffer. Null is ignored.
void release_buffer(void* buffer, size_t bytes);

struct AllocatorStats {
  size_t cached_bytes;  // held in the cache, ready for reuse
  size_t live_bytes;    // handed out and not yet released
  size_t hits;          // allocations served from the cache
  size_t misses;        // allocations that went to the system
  size_t peak_live_bytes;  // the most live_bytes since the last reset_allocator_peak()
};
// Byte counts are in rounded size classes, i.e. what is really held.
AllocatorStats allocator_stats();
// Starts a new peak_live_bytes measurement from the current live bytes (to
// measure one call's arrays and temporaries).
void reset_allocator_peak();

// Returns every cached block to the system.
void empty_cache();

// Fault injection, for tests: the n-th host buffer allocation from now on
// (1: the next one; of any thread) fails as if the system were out of
// memory, with RuntimeError naming the injection; 0 disarms. It covers
// Arrays and the temporaries of compiled code.
void fail_nth_allocation(size_t n);

}  // namespace adjit
