#pragma once

// How many threads compiled code uses. Parallel loops of compiled code and
// the GEMM kernels run on one OpenMP runtime (LLVM's libomp), whose team
// size for a call is set on the calling thread by a CallThreads scope.
//
// Policy: a call asks for `requested` threads (JitOptions::threads; 0 means
// the default: ADJIT_NUM_THREADS, else every core). When several user
// threads run compiled code at once, each call gets requested / (calls
// running now) threads, at least one, so concurrent callers do not
// oversubscribe the cores.
namespace adjit::threads {

// The most threads a call may ask for (JitOptions::threads,
// ADJIT_NUM_THREADS): OpenMP aborts the process when it cannot start a team.
inline constexpr int kMaxThreads = 4096;

// The cores this process may run on.
int available();

// ADJIT_NUM_THREADS when set (a positive integer), else available().
int default_count();

// The team size set for compiled code called from this thread.
int current();

// Lets the GEMM kernels (which know no thread runtime) use this OpenMP
// team; done by every CallThreads and every call of compiled code
// (run_compiled).
void lend_team_to_gemm();

// Tells OpenMP the team size current() on this thread, which the parallel
// regions of compiled code then fork (the GEMM kernels name theirs). Called
// only before code that has such regions runs: OpenMP's first use costs
// about a millisecond, which programs without them never pay.
void prepare_parallel_regions();

class CallThreads {
 public:
  explicit CallThreads(int requested);
  ~CallThreads();
  CallThreads(const CallThreads&) = delete;
  CallThreads& operator=(const CallThreads&) = delete;

 private:
  int previous_;
};

}  // namespace adjit::threads
