#pragma once

#include <cstdint>

// The allocation functions compiled code calls for its temporary buffers
// (MLIR's memref lowering with use-generic-functions). They draw on the
// caching allocator, so a kernel whose temporaries are large does not
// page-fault on fresh mmap'd memory at every call. JIT-compiled code is
// linked against these definitions; ahead-of-time objects link the runtime.
extern "C" {
void* _mlir_memref_to_llvm_alloc(uint64_t size);
void* _mlir_memref_to_llvm_aligned_alloc(uint64_t alignment, uint64_t size);
void _mlir_memref_to_llvm_free(void* pointer);
}

namespace adjit {

/// Calls compiled code, `function(arguments)`, so that a temporary it fails
/// to allocate on this thread ends the call with adjit::RuntimeError naming
/// the size, after freeing the temporaries the call still held; the process
/// and later calls are unaffected. Compiled code cannot unwind, so the
/// failed allocation returns here with longjmp; inside a parallel region
/// (where other threads would wait for this one) it still aborts, with the
/// reason.
void run_compiled(void (*function)(void**), void** arguments);

}  // namespace adjit
