#include "adjit/runtime/Threads.h"

#include "adjit/runtime/Error.h"
#include "adjit/runtime/Gemm.h"

#include <fmt/format.h>
#include <omp.h>
#include <sched.h>

#include <atomic>
#include <cstdlib>
#include <thread>

namespace adjit::threads {

namespace {
std::atomic<int> running_calls{0};
thread_local int team_size = 0;  // 0: not inside a call
thread_local int openmp_team = 0;  // what this thread last told OpenMP
}  // namespace

int available() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  unsigned n = std::thread::hardware_concurrency();
  return n ? static_cast<int>(n) : 1;
}

int default_count() {
  static const int count = [] {
    const char* text = std::getenv("ADJIT_NUM_THREADS");
    if (!text || !*text) return available();
    char* end = nullptr;
    long n = std::strtol(text, &end, 10);
    if (*end != '\0' || n < 1 || n > kMaxThreads)
      throw Error(fmt::format("ADJIT_NUM_THREADS must be an integer from 1 to {}, got '{}'",
                              kMaxThreads, text));
    return static_cast<int>(n);
  }();
  return count;
}

int current() { return team_size > 0 ? team_size : default_count(); }

namespace {
void openmp_parallel_for(int64_t tasks, int threads, void (*task)(void*, int64_t),
                         void* context) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t t = 0; t < tasks; ++t) task(context, t);
}
constexpr adjit_gemm_threading kOpenMPTeam{[] { return current(); }, openmp_parallel_for};
}  // namespace

void lend_team_to_gemm() {
  static const bool lent = (adjit_gemm_set_threading(&kOpenMPTeam), true);
  (void)lent;
}

void prepare_parallel_regions() {
  // omp_set_num_threads costs more than a cached call's whole overhead, so
  // it is called only when the team size changes.
  int size = current();
  if (size == openmp_team) return;
  omp_set_num_threads(size);
  openmp_team = size;
}

CallThreads::CallThreads(int requested) : previous_(team_size) {
  lend_team_to_gemm();
  int wanted = requested > 0 ? requested : default_count();
  int sharing = running_calls.fetch_add(1) + 1;
  team_size = wanted / sharing > 0 ? wanted / sharing : 1;
}

CallThreads::~CallThreads() {
  running_calls.fetch_sub(1);
  team_size = previous_;
}

}  // namespace adjit::threads
