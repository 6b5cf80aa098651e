#include "CudaDriver.h"

#include <dlfcn.h>

#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "adjit/runtime/Error.h"

namespace adjit::cuda {
namespace {

struct LoadedDriver {
  Driver table{};
  std::string failure;  // empty when the driver loaded and initialised
  std::vector<CUcontext> contexts;  // primary context per device, retained once
  std::mutex contexts_mutex;
};

template <class Function>
bool resolve(void* library, const char* name, Function& slot, std::string& failure) {
  slot = reinterpret_cast<Function>(dlsym(library, name));
  if (!slot && failure.empty())
    failure = fmt::format("libcuda.so.1 lacks {} (the driver is too old)", name);
  return slot != nullptr;
}

// The driver's name for `result` (e.g. CUDA_ERROR_OUT_OF_MEMORY), or its number.
std::string error_name(const Driver& table, CUresult result) {
  const char* name = nullptr;
  table.cuGetErrorName(result, &name);
  return name ? name : fmt::format("{}", result);
}

LoadedDriver& loaded() {
  static LoadedDriver* instance = [] {
    auto* d = new LoadedDriver();  // never destroyed: kernels may run at exit
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char* reason = dlerror();
      d->failure =
          fmt::format("no CUDA driver found ({})", reason ? reason : "libcuda.so.1: not found");
      return d;
    }
    Driver& t = d->table;
    std::string& f = d->failure;
    resolve(library, "cuInit", t.cuInit, f);
    resolve(library, "cuDriverGetVersion", t.cuDriverGetVersion, f);
    resolve(library, "cuGetErrorName", t.cuGetErrorName, f);
    resolve(library, "cuGetErrorString", t.cuGetErrorString, f);
    resolve(library, "cuDeviceGetCount", t.cuDeviceGetCount, f);
    resolve(library, "cuDeviceGet", t.cuDeviceGet, f);
    resolve(library, "cuDeviceGetName", t.cuDeviceGetName, f);
    resolve(library, "cuDeviceGetAttribute", t.cuDeviceGetAttribute, f);
    resolve(library, "cuDevicePrimaryCtxRetain", t.cuDevicePrimaryCtxRetain, f);
    resolve(library, "cuCtxSetCurrent", t.cuCtxSetCurrent, f);
    resolve(library, "cuCtxSynchronize", t.cuCtxSynchronize, f);
    resolve(library, "cuMemAlloc_v2", t.cuMemAlloc, f);
    resolve(library, "cuMemFree_v2", t.cuMemFree, f);
    resolve(library, "cuMemcpyHtoD_v2", t.cuMemcpyHtoD, f);
    resolve(library, "cuMemcpyDtoH_v2", t.cuMemcpyDtoH, f);
    resolve(library, "cuMemcpyDtoD_v2", t.cuMemcpyDtoD, f);
    resolve(library, "cuModuleLoadDataEx", t.cuModuleLoadDataEx, f);
    resolve(library, "cuModuleUnload", t.cuModuleUnload, f);
    resolve(library, "cuModuleGetFunction", t.cuModuleGetFunction, f);
    resolve(library, "cuLaunchKernel", t.cuLaunchKernel, f);
    if (!f.empty()) return d;
    if (CUresult result = t.cuInit(0); result != CUDA_SUCCESS)
      f = fmt::format("no CUDA driver could be initialised (cuInit: {})", error_name(t, result));
    return d;
  }();
  return *instance;
}

// The driver's errors for a kernel that failed while running (an illegal
// or misaligned address, a trap, a timeout): they poison the context, and
// with calls returning before their kernels end they surface later.
bool is_kernel_fault(CUresult result) {
  return result == 700 || result == 702 || result == 710 || (result >= 714 && result <= 719);
}

}  // namespace

bool driver_available() { return loaded().failure.empty(); }

const Driver& driver() {
  LoadedDriver& d = loaded();
  if (!d.failure.empty()) throw RuntimeError(d.failure);
  return d.table;
}

void check(CUresult result, const std::string& what) {
  if (result == CUDA_SUCCESS) return;
  const Driver& t = driver();
  const char* text = nullptr;
  t.cuGetErrorString(result, &text);
  throw RuntimeError(fmt::format(
      "CUDA: {} failed: {}{}{}", what, error_name(t, result),
      text ? fmt::format(" ({})", text) : std::string(),
      is_kernel_fault(result)
          ? "; a kernel launched earlier on this device failed (calls return before their "
            "kernels finish: call Device::synchronize() after each call to find which)"
          : ""));
}

void make_current(int index) {
  const Driver& t = driver();
  LoadedDriver& d = loaded();
  std::lock_guard lock(d.contexts_mutex);
  if (d.contexts.empty()) {
    int count = 0;
    check(t.cuDeviceGetCount(&count), "cuDeviceGetCount");
    d.contexts.assign(count, nullptr);
  }
  if (index < 0 || index >= static_cast<int>(d.contexts.size()))
    throw RuntimeError(
        d.contexts.empty()
            ? fmt::format("no CUDA device: the driver reports none for cuda:{}", index)
            : fmt::format("no CUDA device cuda:{}; this machine has {}", index, d.contexts.size()));
  if (!d.contexts[index]) {
    CUdevice device = 0;
    check(t.cuDeviceGet(&device, index), "cuDeviceGet");
    check(t.cuDevicePrimaryCtxRetain(&d.contexts[index], device), "cuDevicePrimaryCtxRetain");
  }
  check(t.cuCtxSetCurrent(d.contexts[index]), "cuCtxSetCurrent");
}

void synchronize(int index) {
  make_current(index);
  check(driver().cuCtxSynchronize(), fmt::format("waiting for cuda:{}", index));
}

}  // namespace adjit::cuda
