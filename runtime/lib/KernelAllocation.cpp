#include "adjit/runtime/KernelAllocation.h"

#include "adjit/runtime/Allocator.h"
#include "adjit/runtime/AotRuntime.h"

#include "adjit/runtime/Error.h"
#include "adjit/runtime/Threads.h"

#include <fmt/format.h>
#include <omp.h>

#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <unordered_map>
#include <utility>

namespace {

// A call of compiled code in progress on this thread (run_compiled): where a
// failed allocation escapes to, and the temporaries to free if it does.
struct CompiledCall {
  std::jmp_buf escape;
  std::unordered_map<void*, uint64_t> live;  // block -> bytes
  std::string failure;
};
thread_local CompiledCall* current_call = nullptr;

// Each payload is preceded by the block it lives in and the block's size,
// since the free function receives only the payload pointer.
struct BlockHeader {
  void* block;
  uint64_t block_bytes;
};

uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// Ends the call in progress: recovery longjmps back to run_compiled. Not
// possible without one, nor inside a parallel region, where the other
// threads would wait for this one: then report and stop rather than crash
// later.
[[noreturn]] void escape_failed_allocation(uint64_t size, const char* what, std::string reason) {
  if (!reason.empty()) reason = ": " + reason;
  if (!current_call || omp_get_level() > 0) {
    std::fprintf(stderr, "adjit: compiled code could not allocate %llu bytes for %s%s (%s: cannot recover)\n",
                 static_cast<unsigned long long>(size), what, reason.c_str(),
                 current_call ? "inside a parallel region" : "not called through run_compiled");
    std::abort();
  }
  current_call->failure =
      fmt::format("compiled code could not allocate {} bytes for {}{}", size, what, reason);
  std::string().swap(reason);  // longjmp skips its destructor
  std::longjmp(current_call->escape, 1);
}

// Scratch memory the kernels allocate themselves (the GEMM kernels' packing
// space) fails as a temporary does.
const bool kernel_failures_escape = [] {
  adjit_aot_set_out_of_memory_handler(
      [](uint64_t bytes, const char* what) { escape_failed_allocation(bytes, what, {}); });
  return true;
}();

void* allocate_payload(uint64_t alignment, uint64_t size) {
  if (alignment < alignof(BlockHeader)) alignment = alignof(BlockHeader);
  uint64_t block_bytes = size + sizeof(BlockHeader) + alignment;
  void* block = nullptr;
  std::string failure;
  try {
    block = adjit::allocate_buffer(block_bytes);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  if (!block) escape_failed_allocation(size, "a temporary buffer", std::move(failure));
  if (current_call) current_call->live.emplace(block, block_bytes);
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
  if (current_call) current_call->live.erase(header.block);
  adjit::release_buffer(header.block, header.block_bytes);
}

}  // extern "C"

namespace adjit {

void run_compiled(void (*function)(void**), void** arguments) {
  // Thread-local, not on this frame: the frame's variables are
  // indeterminate after longjmp, and a call costs no allocation.
  thread_local CompiledCall call;
  threads::lend_team_to_gemm();
  if (current_call) {  // compiled code calling compiled code: the outer call recovers
    function(arguments);
    return;
  }
  current_call = &call;
  if (setjmp(call.escape) == 0) {
    function(arguments);
    current_call = nullptr;
    call.live.clear();
    return;
  }
  current_call = nullptr;
  for (auto [block, bytes] : call.live) release_buffer(block, bytes);
  call.live.clear();
  throw RuntimeError(std::exchange(call.failure, std::string()));
}

}  // namespace adjit
