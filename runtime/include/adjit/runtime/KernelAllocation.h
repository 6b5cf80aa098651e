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
