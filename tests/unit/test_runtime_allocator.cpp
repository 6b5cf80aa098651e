#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "adjit/runtime/Allocator.h"
#include "adjit/runtime/Array.h"

using namespace adjit;

namespace {

bool is_aligned_64(const void* pointer) { return reinterpret_cast<uintptr_t>(pointer) % 64 == 0; }

}  // namespace

TEST_CASE("a released buffer is reused for the same size", "[runtime][allocator]") {
  constexpr size_t kBytes = 3 * 1024 * 1024 + 40;
  void* first = allocate_buffer(kBytes);
  REQUIRE(is_aligned_64(first));
  std::memset(first, 1, kBytes);
  release_buffer(first, kBytes);
  AllocatorStats before = allocator_stats();
  CHECK(before.cached_bytes >= kBytes);

  void* second = allocate_buffer(kBytes);
  AllocatorStats after = allocator_stats();
  CHECK(second == first);
  CHECK(after.hits == before.hits + 1);
  CHECK(after.misses == before.misses);
  CHECK(after.live_bytes >= before.live_bytes + kBytes);
  release_buffer(second, kBytes);
}

// The flags the kernel keeps for the mapping that holds `address`
// (/proc/self/smaps), empty where there is none.
std::string mapping_flags(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  auto at = reinterpret_cast<uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> begin >> dash >> end && dash == '-') inside = begin <= at && at < end;
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

TEST_CASE("buffers of 2 MiB and more start on a huge page and ask for huge pages",
          "[runtime][allocator]") {
  const char* setting = std::getenv("ADJIT_HUGE_PAGES");
  if (setting && std::string(setting) == "0") {
    WARN("not checked: ADJIT_HUGE_PAGES=0");
    return;
  }
  constexpr size_t kHuge = size_t{2} << 20;
  void* big = allocate_buffer(5 * kHuge + 12345);
  CHECK(reinterpret_cast<uintptr_t>(big) % kHuge == 0);
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  if (thp) {  // a kernel with transparent huge pages records the advice as "hg"
    std::string flags = mapping_flags(big);
    INFO(flags);
    CHECK(flags.find(" hg") != std::string::npos);
  }
  release_buffer(big, 5 * kHuge + 12345);
}

TEST_CASE("arrays reuse cached buffers step after step", "[runtime][allocator]") {
  const void* previous = Array::empty({256, 1024}, DType::f32).raw_data();
  size_t hits_before = allocator_stats().hits;
  for (int step = 0; step < 3; ++step) {
    Array output = Array::empty({256, 1024}, DType::f32);
    CHECK(output.raw_data() == previous);
  }
  CHECK(allocator_stats().hits == hits_before + 3);
}

TEST_CASE("zero-byte buffers are valid and aligned", "[runtime][allocator]") {
  void* nothing = allocate_buffer(0);
  CHECK(nothing != nullptr);
  CHECK(is_aligned_64(nothing));
  release_buffer(nothing, 0);
  release_buffer(nullptr, 16);  // ignored
}

TEST_CASE("empty_cache returns cached blocks", "[runtime][allocator]") {
  release_buffer(allocate_buffer(1000), 1000);
  CHECK(allocator_stats().cached_bytes > 0);
  empty_cache();
  CHECK(allocator_stats().cached_bytes == 0);
  size_t misses_before = allocator_stats().misses;
  release_buffer(allocate_buffer(1000), 1000);
  CHECK(allocator_stats().misses == misses_before + 1);
}

TEST_CASE("the allocator is thread-safe", "[runtime][allocator]") {
  size_t live_before = allocator_stats().live_bytes;
  std::vector<std::thread> threads;
  for (int thread = 0; thread < 4; ++thread)
    threads.emplace_back([thread] {
      for (int i = 0; i < 2000; ++i) {
        size_t bytes = 64 * static_cast<size_t>(1 + (i + thread) % 7);
        auto* block = static_cast<unsigned char*>(allocate_buffer(bytes));
        block[0] = block[bytes - 1] = 1;
        release_buffer(block, bytes);
      }
    });
  for (std::thread& thread : threads) thread.join();
  CHECK(allocator_stats().live_bytes == live_before);
}
