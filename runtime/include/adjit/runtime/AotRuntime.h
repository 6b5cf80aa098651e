#ifndef ADJIT_RUNTIME_AOTRUNTIME_H
#define ADJIT_RUNTIME_AOTRUNTIME_H

/* What ahead-of-time objects (adjit::aot) call at run time, from
   libadjit_aot_runtime.a: the allocation of temporary buffers and the call
   of a compiled entry that turns a failed allocation into a status. The
   library is C++ compiled without the C++ library: a C program links it
   with `cc ... -ladjit_aot_runtime -lm`. The GEMM kernels (Gemm.h) are part
   of it. */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The status every generated function returns. */
enum adjit_aot_status {
  ADJIT_AOT_OK = 0,
  ADJIT_AOT_NULL_ARGUMENT = 1,        /* an input or output pointer was NULL */
  ADJIT_AOT_OUT_OF_MEMORY = 2,        /* a temporary buffer could not be allocated */
  ADJIT_AOT_MISALIGNED_WORKSPACE = 3  /* NAME_with_workspace's workspace is not aligned */
};

/* Temporary buffers of compiled code: aligned_alloc and free, with each live
   buffer remembered by the call that made it. */
void* adjit_aot_alloc(uint64_t size);
void* adjit_aot_aligned_alloc(uint64_t alignment, uint64_t size);
void adjit_aot_free(void* pointer);

/* Runs `entry(descriptors)` (an `adjit_entry_<name>` function, see MemRef.h).
   Returns ADJIT_AOT_OK, or ADJIT_AOT_OUT_OF_MEMORY after freeing the
   temporaries the call held when an allocation failed. Thread-safe; calls on
   different threads are independent. */
int adjit_aot_call(void (*entry)(void**), void** descriptors);

/* adjit_aot_call (or adjit_aot_call_parallel for `threads` != 1) whose
   arena, the temporaries the compiler placed in one block of
   `workspace_bytes`, is the caller's `workspace` (NAME_with_workspace). */
int adjit_aot_call_workspace(void (*entry)(void**), void** descriptors, int threads,
                             void* workspace, uint64_t workspace_bytes);

/* A compiled function's arena and its end: the call's workspace when it
   has one that fits and no other arena holds it, else a temporary buffer. */
void* adjit_aot_arena(uint64_t alignment, uint64_t size);
void adjit_aot_arena_free(void* arena);

/* adjit_aot_call for code compiled with AotOptions::threads != 1, whose
   parallel regions run on a team of up to `threads` threads (0: the
   ADJIT_NUM_THREADS environment variable, else every core the process may
   run on): the calling thread and workers of a pool this runtime starts at
   the first such call and keeps. Calls running at once share the count
   (each gets threads / calls, at least one), as the JIT's do. */
int adjit_aot_call_parallel(void (*entry)(void**), void** descriptors, int threads);

/* The OpenMP runtime entry points (libomp's __kmpc_*) that parallel regions
   of such code call, renamed so that a program's own OpenMP runtime is
   never mixed in (AotThreads.cpp). Static schedules only. */
int32_t adjit_aot_kmpc_global_thread_num(void* location);
void adjit_aot_kmpc_fork_call(void* location, int32_t argc,
                              void (*microtask)(int32_t*, int32_t*, ...), ...);
void adjit_aot_kmpc_for_static_init_8u(void* location, int32_t thread, int32_t schedule,
                                       int32_t* is_last, uint64_t* lower, uint64_t* upper,
                                       int64_t* stride, int64_t increment, int64_t chunk);
void adjit_aot_kmpc_for_static_fini(void* location, int32_t thread);
void adjit_aot_kmpc_barrier(void* location, int32_t thread);

/* A kernel's scratch memory (`bytes` of `what`, e.g. the GEMM kernels'
   packing space) could not be allocated: ends the adjit_aot_call in progress
   on this thread with ADJIT_AOT_OUT_OF_MEMORY, else hands the failure to the
   handler that adjit_aot_set_out_of_memory_handler installed (the JIT's),
   else prints the reason and aborts. Never returns. */
#if defined(__GNUC__)
__attribute__((noreturn))
#endif
void adjit_kernel_out_of_memory(uint64_t bytes, const char* what);
typedef void (*adjit_out_of_memory_handler)(uint64_t bytes, const char* what);
void adjit_aot_set_out_of_memory_handler(adjit_out_of_memory_handler handler);

#ifdef __cplusplus
}
#endif

#endif
