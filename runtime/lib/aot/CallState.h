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

}  // namespace adjit::aot_runtime
