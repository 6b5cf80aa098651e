#pragma once

// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1") through
// one table of function pointers (Dr.Jit's pattern): adjit builds, links and
// runs where CUDA is absent, and needs no CUDA headers. Only the types and
// constants used here are declared; they are the driver's stable ABI.

#include <cstddef>
#include <string>

namespace adjit::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
inline constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
inline constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

struct Driver {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDriverGetVersion)(int* version);
  CUresult (*cuGetErrorName)(CUresult error, const char** name);
  CUresult (*cuGetErrorString)(CUresult error, const char** text);
  CUresult (*cuDeviceGetCount)(int* count);
  CUresult (*cuDeviceGet)(CUdevice* device, int ordinal);
  CUresult (*cuDeviceGetName)(char* name, int length, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int* value, int attribute, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* context, CUdevice device);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemAlloc)(CUdeviceptr* pointer, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr pointer);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr to, const void* from, size_t bytes);
  CUresult (*cuMemcpyDtoH)(void* to, CUdeviceptr from, size_t bytes);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr to, CUdeviceptr from, size_t bytes);
  CUresult (*cuModuleLoadDataEx)(CUmodule* module, const void* image, unsigned option_count,
                                 int* options, void** option_values);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction* function, CUmodule module, const char* name);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned grid_x, unsigned grid_y,
                             unsigned grid_z, unsigned block_x, unsigned block_y,
                             unsigned block_z, unsigned shared_bytes, CUstream stream,
                             void** parameters, void** extra);
};

// Whether libcuda.so.1 could be loaded and initialised (never throws).
bool driver_available();

// The loaded driver; throws adjit::RuntimeError "no CUDA driver found ..."
// when libcuda.so.1 is missing or does not initialise.
const Driver& driver();

// Throws adjit::RuntimeError naming `what` and the driver's error. A fault
// of a kernel launched earlier surfaces at whatever call comes next: its
// message says so.
void check(CUresult result, const std::string& what);

// Makes the primary context of device `index` current on this thread;
// throws adjit::RuntimeError "no CUDA device ..." for an index out of range.
void make_current(int index);

// Waits for all work queued on device `index`; throws adjit::RuntimeError
// when some of it failed.
void synchronize(int index);

}  // namespace adjit::cuda
