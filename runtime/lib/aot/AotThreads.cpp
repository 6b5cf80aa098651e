#include "adjit/runtime/AotRuntime.h"
#include "adjit/runtime/Gemm.h"
#include "adjit/runtime/Threads.h"

#include "CallState.h"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

// The threads of ahead-of-time code compiled with AotOptions::threads != 1:
// a pool of workers that this runtime starts at the first parallel call and
// keeps, and the few OpenMP entry points that MLIR's OpenMP lowering makes
// compiled code call (fork a team, split a loop statically, wait at a
// barrier), under adjit_aot_ names so that a program's own OpenMP runtime
// is never interposed. Part of the runtime C programs link: no C++ library
// calls (no new, no exceptions, no guarded statics).
//
// A team runs one parallel region: the calling thread as member 0 and up to
// size - 1 idle workers. Which member runs which chunk never changes the
// result (chunks are independent, and their number is fixed at compile
// time), so a team smaller than asked for, when other calls hold the
// workers, computes the same bits. A failed allocation on any member ends
// that member's part of the region; the region finishes on the others and
// the call then returns ADJIT_AOT_OUT_OF_MEMORY.

namespace {

using adjit::aot_runtime::call_state;
using adjit::aot_runtime::CallState;
using adjit::aot_runtime::Failure;
using adjit::aot_runtime::last_failure;

void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins while `busy()` holds: briefly with pause, then yielding the core.
template <class Predicate>
void wait_while(Predicate busy) {
  for (int spins = 0; busy(); ++spins) {
    if (spins < 4096) relax();
    else sched_yield();
  }
}

[[noreturn]] void fail(const char* message, long long value) {
  std::fprintf(stderr, "adjit AOT runtime: ");
  std::fprintf(stderr, message, value);
  std::fprintf(stderr, "\n");
  std::abort();
}

struct Team {
  void (*body)(void* context, int member, int size);
  void* context;
  int size;
  adjit::aot_runtime::Call* call;
  // The barrier: members that arrived in this generation, and members
  // that left the region after a failed allocation (they count as arrived
  // at every later barrier).
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  int arrived = 0, departed = 0;
  std::atomic<unsigned> generation{0};
  std::atomic<int> finished{0};  // workers done with the region
  std::atomic<bool> failed{false};
  Failure failure;
};

thread_local Team* current_team = nullptr;  // the region this thread works in
thread_local int current_member = 0;
thread_local int call_team_size = 0;  // set by run_on_team

void release_barrier(Team& team) {  // with team.mutex held
  team.arrived = 0;
  team.generation.fetch_add(1, std::memory_order_release);
}

void arrive(Team& team) {
  if (team.size == 1) return;
  pthread_mutex_lock(&team.mutex);
  unsigned generation = team.generation.load(std::memory_order_relaxed);
  bool last = ++team.arrived + team.departed == team.size;
  if (last) release_barrier(team);
  pthread_mutex_unlock(&team.mutex);
  if (!last)
    wait_while([&] { return team.generation.load(std::memory_order_acquire) == generation; });
}

void depart(Team& team) {
  pthread_mutex_lock(&team.mutex);
  ++team.departed;
  if (team.arrived > 0 && team.arrived + team.departed == team.size) release_barrier(team);
  pthread_mutex_unlock(&team.mutex);
}

// Runs member `member`'s part of the region as part of the team's call.
void run_member(Team& team, int member) {
  CallState& state = call_state();
  const CallState outer = state;
  Team* const outer_team = current_team;
  const int outer_member = current_member;
  std::jmp_buf escape;
  state = {team.call, &escape};
  current_team = &team;
  current_member = member;
  if (setjmp(escape) == 0) {
    team.body(team.context, member, team.size);
  } else {
    if (!team.failed.exchange(true)) team.failure = last_failure();
    depart(team);
  }
  state = outer;
  current_team = outer_team;
  current_member = outer_member;
}

// ---- The pool.

struct Worker {
  pthread_t thread;
  pthread_mutex_t mutex;
  pthread_cond_t wake;
  bool sleeping;
  int member;  // written before job
  std::atomic<Team*> job;
  Worker* next_idle;
};

pthread_mutex_t pool_mutex = PTHREAD_MUTEX_INITIALIZER;
Worker* idle_workers = nullptr;
int started_workers = 0;

// After fork() the child has none of the parent's workers.
void forget_workers_in_child() {
  idle_workers = nullptr;
  started_workers = 0;
  pthread_mutex_init(&pool_mutex, nullptr);
}

void make_idle(Worker* worker) {
  pthread_mutex_lock(&pool_mutex);
  worker->next_idle = idle_workers;
  idle_workers = worker;
  pthread_mutex_unlock(&pool_mutex);
}

void* work(void* argument) {
  Worker* self = static_cast<Worker*>(argument);
  for (;;) {
    // Regions of one call follow each other closely: spin a while (16384
    // pauses, 0.4 ms on a Zen 4) before sleeping.
    Team* team = nullptr;
    for (int spins = 0; spins < 16384 && !team; ++spins) {
      relax();
      team = self->job.load(std::memory_order_acquire);
    }
    if (!team) {
      pthread_mutex_lock(&self->mutex);
      self->sleeping = true;
      while (!(team = self->job.load(std::memory_order_acquire)))
        pthread_cond_wait(&self->wake, &self->mutex);
      self->sleeping = false;
      pthread_mutex_unlock(&self->mutex);
    }
    self->job.store(nullptr, std::memory_order_relaxed);
    run_member(*team, self->member);
    make_idle(self);  // before finishing: the next region can have it at once
    team->finished.fetch_add(1, std::memory_order_release);
  }
  return nullptr;
}

Worker* start_worker() {  // with pool_mutex held
  static pthread_once_t fork_handler = PTHREAD_ONCE_INIT;
  pthread_once(&fork_handler, [] { pthread_atfork(nullptr, nullptr, forget_workers_in_child); });
  auto* worker = static_cast<Worker*>(std::calloc(1, sizeof(Worker)));
  if (!worker) return nullptr;
  pthread_mutex_init(&worker->mutex, nullptr);
  pthread_cond_init(&worker->wake, nullptr);
  if (pthread_create(&worker->thread, nullptr, work, worker) != 0) {
    std::free(worker);
    return nullptr;
  }
  pthread_detach(worker->thread);
  ++started_workers;
  return worker;
}

// Up to `wanted` workers for a team (fewer when other calls hold them, or
// when no thread can be started).
int take_workers(int wanted, Worker** taken) {
  int count = 0;
  pthread_mutex_lock(&pool_mutex);
  while (count < wanted && idle_workers) {
    taken[count++] = idle_workers;
    idle_workers = idle_workers->next_idle;
  }
  while (count < wanted && started_workers < adjit::threads::kMaxThreads) {
    Worker* worker = start_worker();
    if (!worker) break;
    taken[count++] = worker;
  }
  pthread_mutex_unlock(&pool_mutex);
  return count;
}

void hand_over(Worker* worker, Team* team, int member) {
  worker->member = member;
  worker->job.store(team, std::memory_order_release);
  pthread_mutex_lock(&worker->mutex);
  if (worker->sleeping) pthread_cond_signal(&worker->wake);
  pthread_mutex_unlock(&worker->mutex);
}

// Runs body(context, member, size) on a team of at most `size` threads, the
// calling thread included; inside a region, on this thread alone.
void run_team(int size, void (*body)(void*, int, int), void* context) {
  constexpr int kMaxWorkers = 255;  // per team
  Worker* workers[kMaxWorkers];
  int wanted = current_team ? 0 : (size - 1 < kMaxWorkers ? size - 1 : kMaxWorkers);
  int count = wanted > 0 ? take_workers(wanted, workers) : 0;
  Team team;
  team.body = body;
  team.context = context;
  team.size = count + 1;
  team.call = call_state().call;
  for (int w = 0; w < count; ++w) hand_over(workers[w], &team, w + 1);
  run_member(team, 0);
  wait_while([&] { return team.finished.load(std::memory_order_acquire) < count; });
  if (team.failed.load()) adjit_kernel_out_of_memory(team.failure.bytes, team.failure.what);
}

int default_team_size() {
  static std::atomic<int> size{0};
  int known = size.load(std::memory_order_relaxed);
  if (known > 0) return known;
  int count = 0;
  if (const char* text = std::getenv("ADJIT_NUM_THREADS"); text && *text) {
    char* end = nullptr;
    long n = std::strtol(text, &end, 10);
    if (*end == '\0' && n >= 1 && n <= adjit::threads::kMaxThreads) count = static_cast<int>(n);
    else
      std::fprintf(stderr,
                   "adjit AOT runtime: ADJIT_NUM_THREADS must be an integer from 1 to %d, got "
                   "'%s'; using every core\n",
                   adjit::threads::kMaxThreads, text);
  }
  if (count == 0) {
    cpu_set_t set;
    count = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
  }
  size.store(count, std::memory_order_relaxed);
  return count;
}

std::atomic<int> running_parallel_calls{0};

// ---- The GEMM kernels' team.

int gemm_team_size() { return current_team || call_team_size < 1 ? 1 : call_team_size; }

// Member `member`'s share of `count` tasks in static blocks, as OpenMP's
// schedule(static) splits them: the first count % members take one more.
struct Share {
  uint64_t first, count;
};
Share static_share(uint64_t count, uint64_t members, uint64_t member) {
  uint64_t per = count / members, extra = count % members;
  return {member * per + (member < extra ? member : extra), per + (member < extra ? 1 : 0)};
}

struct GemmTasks {
  int64_t tasks;
  void (*task)(void*, int64_t);
  void* context;
};

void gemm_parallel_for(int64_t tasks, int threads, void (*task)(void*, int64_t), void* context) {
  GemmTasks work{tasks, task, context};
  run_team(
      threads,
      [](void* argument, int member, int size) {
        auto& w = *static_cast<GemmTasks*>(argument);
        // Static blocks, as OpenMP's schedule(static) gives the JIT's.
        Share share = static_share(w.tasks, size, member);
        for (uint64_t t = share.first; t < share.first + share.count; ++t)
          w.task(w.context, static_cast<int64_t>(t));
      },
      &work);
}

constexpr adjit_gemm_threading kAotTeam{gemm_team_size, gemm_parallel_for};

// ---- Forked regions.

constexpr int kMaxRegionArguments = 4;
using Microtask = void (*)(int32_t*, int32_t*, ...);

struct Region {
  Microtask microtask;
  int argc;
  void* arguments[kMaxRegionArguments];
};

void run_region(void* argument, int member, int) {
  auto& r = *static_cast<Region*>(argument);
  int32_t global = member, bound = member;
  void** a = r.arguments;
  switch (r.argc) {
    case 0: reinterpret_cast<void (*)(int32_t*, int32_t*)>(r.microtask)(&global, &bound); break;
    case 1:
      reinterpret_cast<void (*)(int32_t*, int32_t*, void*)>(r.microtask)(&global, &bound, a[0]);
      break;
    case 2:
      reinterpret_cast<void (*)(int32_t*, int32_t*, void*, void*)>(r.microtask)(&global, &bound,
                                                                                a[0], a[1]);
      break;
    case 3:
      reinterpret_cast<void (*)(int32_t*, int32_t*, void*, void*, void*)>(r.microtask)(
          &global, &bound, a[0], a[1], a[2]);
      break;
    default:
      reinterpret_cast<void (*)(int32_t*, int32_t*, void*, void*, void*, void*)>(r.microtask)(
          &global, &bound, a[0], a[1], a[2], a[3]);
  }
}

}  // namespace

int adjit::aot_runtime::run_on_team(int threads, void (*entry)(void**), void** descriptors,
                                    void* workspace, uint64_t workspace_bytes) {
  static std::atomic<bool> gemm_team_lent{false};
  if (!gemm_team_lent.exchange(true)) adjit_gemm_set_threading(&kAotTeam);
  int wanted = threads > 0 ? threads : default_team_size();
  int sharing = running_parallel_calls.fetch_add(1) + 1;
  int outer = call_team_size;
  call_team_size = wanted / sharing > 0 ? wanted / sharing : 1;
  int status = run_call(entry, descriptors, workspace, workspace_bytes);
  call_team_size = outer;
  running_parallel_calls.fetch_sub(1);
  return status;
}

extern "C" {

int adjit_aot_call_parallel(void (*entry)(void**), void** descriptors, int threads) {
  return adjit::aot_runtime::run_on_team(threads, entry, descriptors, nullptr, 0);
}

int32_t adjit_aot_kmpc_global_thread_num(void*) { return current_member; }

void adjit_aot_kmpc_fork_call(void*, int32_t argc, Microtask microtask, ...) {
  if (argc < 0 || argc > kMaxRegionArguments)
    fail("a parallel region passes %lld arguments; at most 4 are supported", argc);
  Region region{microtask, argc, {}};
  va_list list;
  va_start(list, microtask);
  for (int i = 0; i < argc; ++i) region.arguments[i] = va_arg(list, void*);
  va_end(list);
  run_team(current_team ? 1 : (call_team_size > 0 ? call_team_size : 1), run_region, &region);
}

// OpenMP's static schedules (libomp's kmp_sch_static, the default, and
// kmp_sch_static_chunked) of the iterations lower, lower + increment, ...,
// upper among the team's members.
void adjit_aot_kmpc_for_static_init_8u(void*, int32_t, int32_t schedule, int32_t* is_last,
                                       uint64_t* lower, uint64_t* upper, int64_t* stride,
                                       int64_t increment, int64_t chunk) {
  constexpr int32_t kStaticChunked = 33, kStatic = 34;
  if (increment <= 0) fail("a parallel loop steps by %lld; only positive steps are supported", increment);
  uint64_t members = current_team ? current_team->size : 1;
  uint64_t member = current_team ? current_member : 0;
  uint64_t step = static_cast<uint64_t>(increment);
  if (*upper < *lower) {  // no iterations
    *is_last = 0;
    *stride = increment;
    return;
  }
  uint64_t trips = (*upper - *lower) / step + 1;
  if (schedule == kStatic) {
    // A member without iterations gets upper = lower - step.
    Share share = static_share(trips, members, member);
    *lower += share.first * step;
    *upper = *lower + share.count * step - step;
    *is_last = share.count > 0 && share.first + share.count == trips;
    *stride = static_cast<int64_t>(trips * step);
  } else if (schedule == kStaticChunked) {
    uint64_t span = static_cast<uint64_t>(chunk > 0 ? chunk : 1) * step;
    *is_last = member == ((trips - 1) / (span / step)) % members;
    *lower += span * member;
    *upper = *lower + span - step;
    *stride = static_cast<int64_t>(span * members);
  } else {
    fail("OpenMP schedule %lld of a parallel loop is not supported", schedule);
  }
}

void adjit_aot_kmpc_for_static_fini(void*, int32_t) {}

void adjit_aot_kmpc_barrier(void*, int32_t) {
  if (current_team) arrive(*current_team);
}

}  // extern "C"
