#include "adjit/runtime/AotRuntime.h"

#include <csetjmp>
#include <cstdio>
#include <cstdlib>

// Part of the ahead-of-time runtime, which links with a C compiler alone: no
// C++ library calls (no new, no exceptions, no guarded statics) here.

namespace {

// Each payload is preceded by this header: the block it lives in, and the
// links of the call's list of live temporaries (freed if the call fails).
struct Block {
  void* start;
  Block* previous;
  Block* next;
};

struct Call {
  std::jmp_buf escape;
  Block live;  // the list's sentinel
};
thread_local Call* current_call = nullptr;
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
  if (current_call) {
    Block& live = current_call->live;
    block->previous = &live;
    block->next = live.next;
    live.next->previous = block;
    live.next = block;
  } else {
    block->previous = block->next = block;
  }
  return payload;
}

}  // namespace

extern "C" {

void adjit_kernel_out_of_memory(uint64_t bytes, const char* what) {
  if (current_call) std::longjmp(current_call->escape, 1);
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
  unlink(block);
  std::free(block->start);
}

int adjit_aot_call(void (*entry)(void**), void** descriptors) {
  // Thread-local, not on this frame: locals are indeterminate after longjmp.
  thread_local Call call;
  if (current_call) {  // a kernel calling a kernel: the outer call recovers
    entry(descriptors);
    return ADJIT_AOT_OK;
  }
  call.live.previous = call.live.next = &call.live;
  current_call = &call;
  if (setjmp(call.escape) == 0) {
    entry(descriptors);
    current_call = nullptr;
    return ADJIT_AOT_OK;
  }
  current_call = nullptr;
  while (call.live.next != &call.live) {
    Block* block = call.live.next;
    unlink(block);
    std::free(block->start);
  }
  return ADJIT_AOT_OUT_OF_MEMORY;
}

}  // extern "C"
