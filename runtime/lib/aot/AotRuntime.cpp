#include "adjit/runtime/AotRuntime.h"

#include "CallState.h"

#include <pthread.h>

#include <csetjmp>
#include <cstdio>
#include <cstdlib>

// Part of the ahead-of-time runtime, which links with a C compiler alone: no
// C++ library calls (no new, no exceptions, no guarded statics) here.

namespace adjit::aot_runtime {

// Each payload is preceded by this header: the block it lives in, and the
// links of the call's list of live temporaries (freed if the call fails).
struct Block {
  void* start;
  Block* previous;
  Block* next;
};

// The list is shared by the threads of a parallel call (AotThreads.cpp).
struct Call {
  std::jmp_buf escape;
  Block live;  // the list's sentinel
  // The caller's workspace (adjit_aot_call_workspace), lent to the first
  // arena that fits while no other arena holds it.
  void* workspace;
  uint64_t workspace_bytes;
  bool workspace_lent;
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

  void lock() { pthread_mutex_lock(&mutex); }
  void unlock() { pthread_mutex_unlock(&mutex); }
};

namespace {
thread_local CallState state;
thread_local Failure failure;
}  // namespace

CallState& call_state() { return state; }
Failure& last_failure() { return failure; }

}  // namespace adjit::aot_runtime

namespace {

using adjit::aot_runtime::Block;
using adjit::aot_runtime::Call;
using adjit::aot_runtime::call_state;

adjit_out_of_memory_handler out_of_memory_handler = nullptr;  // set once, before kernels run

void unlink(Block* block) {
  block->previous->next = block->next;
  block->next->previous = block->previous;
}

void* allocate(uint64_t alignment, uint64_t size) {
  if (alignment < alignof(Block)) alignment = alignof(Block);
  uint64_t header = (sizeof(Block) + alignment - 1) / alignment * alignment;
  void* start = size <= UINT64_MAX - header - alignment
                    ? std::aligned_alloc(alignment, (header + size + alignment - 1) / alignment * alignment)
                    : nullptr;
  if (!start) adjit_kernel_out_of_memory(size, "a temporary buffer");
  char* payload = static_cast<char*>(start) + header;
  Block* block = reinterpret_cast<Block*>(payload) - 1;
  block->start = start;
  if (Call* call = call_state().call) {
    Block& live = call->live;
    call->lock();
    block->previous = &live;
    block->next = live.next;
    live.next->previous = block;
    live.next = block;
    call->unlock();
  } else {
    block->previous = block->next = block;
  }
  return payload;
}

}  // namespace

extern "C" {

void adjit_kernel_out_of_memory(uint64_t bytes, const char* what) {
  if (std::jmp_buf* escape = call_state().escape) {
    adjit::aot_runtime::last_failure() = {bytes, what};
    std::longjmp(*escape, 1);
  }
  if (out_of_memory_handler) out_of_memory_handler(bytes, what);
  std::fprintf(stderr, "adjit: a compiled kernel could not allocate %llu bytes for %s: cannot recover\n",
               static_cast<unsigned long long>(bytes), what);
  std::abort();
}

void adjit_aot_set_out_of_memory_handler(adjit_out_of_memory_handler handler) {
  out_of_memory_handler = handler;
}

void* adjit_aot_alloc(uint64_t size) { return allocate(64, size); }

void* adjit_aot_aligned_alloc(uint64_t alignment, uint64_t size) {
  return allocate(alignment, size);
}

void adjit_aot_free(void* pointer) {
  if (!pointer) return;
  Block* block = static_cast<Block*>(pointer) - 1;
  if (Call* call = call_state().call) {
    call->lock();
    unlink(block);
    call->unlock();
  } else {
    unlink(block);
  }
  std::free(block->start);
}

void* adjit_aot_arena(uint64_t alignment, uint64_t size) {
  if (Call* call = call_state().call) {
    call->lock();
    bool lend = call->workspace && !call->workspace_lent && size <= call->workspace_bytes;
    if (lend) call->workspace_lent = true;
    call->unlock();
    if (lend) return call->workspace;
  }
  return allocate(alignment, size);
}

void adjit_aot_arena_free(void* arena) {
  Call* call = call_state().call;
  if (call && call->workspace_lent && arena == call->workspace) {
    call->lock();
    call->workspace_lent = false;
    call->unlock();
    return;
  }
  adjit_aot_free(arena);
}

int adjit_aot_call(void (*entry)(void**), void** descriptors) {
  return adjit::aot_runtime::run_call(entry, descriptors, nullptr, 0);
}

int adjit_aot_call_workspace(void (*entry)(void**), void** descriptors, int threads,
                             void* workspace, uint64_t workspace_bytes) {
  return threads == 1
             ? adjit::aot_runtime::run_call(entry, descriptors, workspace, workspace_bytes)
             : adjit::aot_runtime::run_on_team(threads, entry, descriptors, workspace,
                                               workspace_bytes);
}

}  // extern "C"

int adjit::aot_runtime::run_call(void (*entry)(void**), void** descriptors, void* workspace,
                                 uint64_t workspace_bytes) {
  // Thread-local, not on this frame: locals are indeterminate after longjmp.
  thread_local Call call;
  adjit::aot_runtime::CallState& state = call_state();
  if (state.call) {  // a kernel calling a kernel: the outer call recovers
    entry(descriptors);
    return ADJIT_AOT_OK;
  }
  call.live.previous = call.live.next = &call.live;
  call.workspace = workspace;
  call.workspace_bytes = workspace_bytes;
  call.workspace_lent = false;
  state = {&call, &call.escape};
  if (setjmp(call.escape) == 0) {
    entry(descriptors);
    state = {};
    return ADJIT_AOT_OK;
  }
  state = {};
  while (call.live.next != &call.live) {
    Block* block = call.live.next;
    unlink(block);
    std::free(block->start);
  }
  return ADJIT_AOT_OUT_OF_MEMORY;
}
