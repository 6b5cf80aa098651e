#pragma once

// GPU memory for Arrays and compiled programs: a caching allocator per device
// (cuMemAlloc is slow and synchronises the device) and host<->device copies.
// All work runs on each device's default stream, in order, so a block freed
// after a launch can be handed to the next launch without waiting.

#include <cstddef>

namespace adjit::cuda {

// Never returns null, even for 0 bytes; throws adjit::RuntimeError naming the
// size when the device is out of memory (after emptying the cache once).
void* allocate(int device, size_t bytes);
// `bytes` must be the size passed to allocate. Null is ignored.
void release(int device, void* block, size_t bytes);
void copy_to_device(int device, void* to, const void* from, size_t bytes);
void copy_to_host(int device, void* to, const void* from, size_t bytes);
void copy_on_device(int device, void* to, const void* from, size_t bytes);

}  // namespace adjit::cuda
