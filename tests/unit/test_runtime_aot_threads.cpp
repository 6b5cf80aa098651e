// The AOT runtime's team (runtime/lib/aot/AotThreads.cpp), driven as
// compiled parallel regions drive it: a call through adjit_aot_call_parallel
// forks regions whose members split loops with the static schedules and
// meet at barriers, and a member whose allocation fails leaves the region
// without stopping the others.

#include "adjit/runtime/AotRuntime.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace {

constexpr int32_t kStatic = 34, kStaticChunked = 33;

// What a region's members did, and what they were asked to do.
struct Region {
  int32_t schedule = kStatic;
  int64_t chunk = 0;
  uint64_t trips = 0;
  std::vector<std::atomic<int>> visits = std::vector<std::atomic<int>>(64);
  std::atomic<int> last_flags{0}, members_seen{0}, member_mask{0};
  std::atomic<int> fail_member{-1}, passed_barriers{0};
  std::atomic<int> wrong_ids{0};  // Catch2's checks are for the test's own thread
};

// A microtask as MLIR's OpenMP lowering outlines a parallel loop: ask for
// this member's iterations, run them (a chunked schedule in strides),
// then wait at the loop's barrier.
void loop_microtask(int32_t* global, int32_t*, void* argument) {
  auto& r = *static_cast<Region*>(argument);
  int32_t member = adjit_aot_kmpc_global_thread_num(nullptr);
  if (member != *global) r.wrong_ids++;
  r.member_mask.fetch_or(1 << member);
  if (member == r.fail_member.load()) adjit_kernel_out_of_memory(1, "a test's buffer");
  int32_t is_last = 0;
  uint64_t lower = 0, upper = r.trips - 1;
  int64_t stride = 0;
  adjit_aot_kmpc_for_static_init_8u(nullptr, member, r.schedule, &is_last, &lower, &upper,
                                    &stride, 1, r.chunk);
  if (r.trips > 0) {
    if (r.schedule == kStatic) {
      for (uint64_t i = lower; i <= upper; ++i) r.visits[i]++;
    } else {
      for (uint64_t first = lower; first < r.trips; first += stride)
        for (uint64_t i = first; i <= std::min(first + r.chunk - 1, r.trips - 1); ++i)
          r.visits[i]++;
    }
  }
  r.last_flags += is_last;
  adjit_aot_kmpc_for_static_fini(nullptr, member);
  adjit_aot_kmpc_barrier(nullptr, member);
  r.passed_barriers++;
  adjit_aot_kmpc_barrier(nullptr, member);
  r.passed_barriers++;
}

void fork_loop(void** descriptors) {
  adjit_aot_kmpc_fork_call(nullptr, 1, reinterpret_cast<void (*)(int32_t*, int32_t*, ...)>(loop_microtask),
                           descriptors[0]);
}

int call(Region& region, int threads) {
  void* descriptors[] = {&region};
  return adjit_aot_call_parallel(fork_loop, descriptors, threads);
}

int members_of(const Region& r) { return __builtin_popcount(r.member_mask.load()); }

}  // namespace

TEST_CASE("aot team: static schedules run every iteration once", "[runtime][aot]") {
  int threads = GENERATE(1, 2, 3, 5);
  int32_t schedule = GENERATE(kStatic, kStaticChunked);
  for (uint64_t trips = 1; trips <= 20; ++trips) {
    Region r;
    r.schedule = schedule;
    r.chunk = 3;
    r.trips = trips;
    REQUIRE(call(r, threads) == ADJIT_AOT_OK);
    INFO(threads << " threads, schedule " << schedule << ", " << trips << " iterations");
    for (uint64_t i = 0; i < 64; ++i) CHECK(r.visits[i] == (i < trips ? 1 : 0));
    CHECK(r.last_flags == 1);
    CHECK(members_of(r) == threads);
    CHECK(r.passed_barriers == 2 * threads);
    CHECK(r.wrong_ids == 0);
  }
}

TEST_CASE("aot team: a member whose allocation fails leaves the region", "[runtime][aot]") {
  int failing = GENERATE(0, 1, 2);
  Region r;
  r.trips = 30;
  r.fail_member = failing;
  CHECK(call(r, 3) == ADJIT_AOT_OUT_OF_MEMORY);
  CHECK(members_of(r) == 3);
  CHECK(r.passed_barriers == 2 * 2);  // the other two passed both barriers
  // The team works for the next call.
  Region next;
  next.trips = 30;
  CHECK(call(next, 3) == ADJIT_AOT_OK);
  CHECK(next.passed_barriers == 2 * 3);
  for (int i = 0; i < 30; ++i) CHECK(next.visits[i] == 1);
}

namespace {
void nested_microtask(int32_t*, int32_t*, void* argument) {
  adjit_aot_kmpc_fork_call(nullptr, 1, reinterpret_cast<void (*)(int32_t*, int32_t*, ...)>(loop_microtask),
                           argument);
}
void fork_nested(void** descriptors) {
  adjit_aot_kmpc_fork_call(nullptr, 1, reinterpret_cast<void (*)(int32_t*, int32_t*, ...)>(nested_microtask),
                           descriptors[0]);
}
}  // namespace

TEST_CASE("aot team: a region inside a region runs on its member alone", "[runtime][aot]") {
  Region r;
  r.trips = 10;
  void* descriptors[] = {&r};
  REQUIRE(adjit_aot_call_parallel(fork_nested, descriptors, 2) == ADJIT_AOT_OK);
  // Each of the 2 outer members ran all 10 iterations as member 0 of its own team.
  for (int i = 0; i < 10; ++i) CHECK(r.visits[i] == 2);
  CHECK(r.member_mask == 1);
  CHECK(r.last_flags == 2);
}

TEST_CASE("aot team: calls from several threads at once share the workers", "[runtime][aot]") {
  std::vector<Region> regions(4);
  std::vector<int> statuses(4, -1);
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&, t] {
      regions[t].trips = 40;
      statuses[t] = call(regions[t], 4);
    });
  for (std::thread& caller : callers) caller.join();
  for (int t = 0; t < 4; ++t) {
    CHECK(statuses[t] == ADJIT_AOT_OK);
    for (int i = 0; i < 40; ++i) CHECK(regions[t].visits[i] == 1);
    CHECK(members_of(regions[t]) <= 4);
  }
}
