#include "adjit/runtime/KernelAllocation.h"

#include "adjit/runtime/Allocator.h"

#include <cstdio>
#include <cstdlib>
#include <exception>

namespace {

// Each payload is preceded by the block it lives in and the block's size,
// since the free function receives only the payload pointer.
struct BlockHeader {
  void* block;
  uint64_t block_bytes;
};

uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

void* allocate_payload(uint64_t alignment, uint64_t size) {
  if (alignment < alignof(BlockHeader)) alignment = alignof(BlockHeader);
  uint64_t block_bytes = size + sizeof(BlockHeader) + alignment;
  void* block;
  try {
    block = adjit::allocate_buffer(block_bytes);
  } catch (const std::exception& e) {
    // Compiled code cannot unwind: report and stop rather than crash later.
    std::fprintf(stderr, "adjit: compiled code could not allocate %llu bytes: %s\n",
                 static_cast<unsigned long long>(size), e.what());
    std::abort();
  }
  uint64_t start = reinterpret_cast<uint64_t>(block) + sizeof(BlockHeader);
  auto* payload = reinterpret_cast<char*>(align_up(start, alignment));
  reinterpret_cast<BlockHeader*>(payload)[-1] = {block, block_bytes};
  return payload;
}

}  // namespace

extern "C" {

void* _mlir_memref_to_llvm_alloc(uint64_t size) {
  return allocate_payload(adjit::kBufferAlignment, size);
}

void* _mlir_memref_to_llvm_aligned_alloc(uint64_t alignment, uint64_t size) {
  return allocate_payload(alignment, size);
}

void _mlir_memref_to_llvm_free(void* pointer) {
  if (!pointer) return;
  BlockHeader header = reinterpret_cast<BlockHeader*>(pointer)[-1];
  adjit::release_buffer(header.block, header.block_bytes);
}

}  // extern "C"
