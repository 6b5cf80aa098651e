#include "DeviceMemory.h"

#include <map>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "CudaDriver.h"
#include "adjit/runtime/Error.h"

namespace adjit::cuda {
namespace {

// 256-byte granules: the alignment cuMemAlloc guarantees and that vector
// loads in kernels expect.
constexpr size_t kGranule = 256;

size_t rounded(size_t bytes) { return (bytes + kGranule - 1) / kGranule * kGranule + kGranule * (bytes == 0); }

struct DeviceCache {
  std::mutex mutex;
  std::multimap<size_t, CUdeviceptr> free_blocks;  // by rounded size
};

DeviceCache& cache_of(int device) {
  static std::mutex mutex;
  static std::map<int, DeviceCache>* caches = new std::map<int, DeviceCache>();  // outlives exit
  std::lock_guard lock(mutex);
  return (*caches)[device];
}

// A block is cached as soon as its last launch is queued, so a queued kernel
// may still use it: wait for the device before the driver takes blocks back.
void empty(int device, DeviceCache& cache) {
  synchronize(device);
  for (auto& [size, block] : cache.free_blocks) driver().cuMemFree(block);
  cache.free_blocks.clear();
}

}  // namespace

void* allocate(int device, size_t bytes) {
  make_current(device);
  size_t size = rounded(bytes);
  DeviceCache& cache = cache_of(device);
  std::lock_guard lock(cache.mutex);
  if (auto found = cache.free_blocks.find(size); found != cache.free_blocks.end()) {
    CUdeviceptr block = found->second;
    cache.free_blocks.erase(found);
    return reinterpret_cast<void*>(block);
  }
  CUdeviceptr block = 0;
  CUresult result = driver().cuMemAlloc(&block, size);
  if (result != CUDA_SUCCESS) {
    empty(device, cache);
    result = driver().cuMemAlloc(&block, size);
  }
  check(result, fmt::format("allocating {} bytes on cuda:{}", bytes, device));
  return reinterpret_cast<void*>(block);
}

void release(int device, void* block, size_t bytes) {
  if (!block) return;
  DeviceCache& cache = cache_of(device);
  std::lock_guard lock(cache.mutex);
  cache.free_blocks.emplace(rounded(bytes), reinterpret_cast<CUdeviceptr>(block));
}

void copy_to_device(int device, void* to, const void* from, size_t bytes) {
  if (bytes == 0) return;
  make_current(device);
  check(driver().cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(to), from, bytes),
        fmt::format("copying {} bytes to cuda:{}", bytes, device));
}

void copy_to_host(int device, void* to, const void* from, size_t bytes) {
  if (bytes == 0) return;
  make_current(device);
  check(driver().cuMemcpyDtoH(to, reinterpret_cast<CUdeviceptr>(from), bytes),
        fmt::format("copying {} bytes from cuda:{}", bytes, device));
}

void copy_on_device(int device, void* to, const void* from, size_t bytes) {
  if (bytes == 0) return;
  make_current(device);
  check(driver().cuMemcpyDtoD(reinterpret_cast<CUdeviceptr>(to),
                              reinterpret_cast<CUdeviceptr>(from), bytes),
        fmt::format("copying {} bytes on cuda:{}", bytes, device));
}

}  // namespace adjit::cuda
