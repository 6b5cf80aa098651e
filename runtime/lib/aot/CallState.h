#pragma once

// What a thread of the ahead-of-time runtime knows about the call it works
// for: the adjit_aot_call whose temporaries it allocates (a team's workers
// share their master's, AotThreads.cpp) and where a failed allocation jumps.

#include <csetjmp>
#include <cstdint>

namespace adjit::aot_runtime {

struct Call;

struct CallState {
  Call* call = nullptr;
  std::jmp_buf* escape = nullptr;
};

// This thread's.
CallState& call_state();

// The allocation whose failure last jumped to this thread's escape.
struct Failure {
  uint64_t bytes = 0;
  const char* what = "";
};
Failure& last_failure();

// Runs a compiled entry as the call on this thread (adjit_aot_call), its
// arena in `workspace` when one is given; on a team of `threads` threads
// (AotThreads.cpp) for run_on_team.
int run_call(void (*entry)(void**), void** descriptors, void* workspace,
             uint64_t workspace_bytes);
int run_on_team(int threads, void (*entry)(void**), void** descriptors, void* workspace,
                uint64_t workspace_bytes);

}  // namespace adjit::aot_runtime
