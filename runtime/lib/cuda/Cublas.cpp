#include "Cublas.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "CudaDriver.h"
#include "adjit/runtime/Error.h"

namespace adjit::cuda {
namespace {

using Handle = struct cublasContext*;
using Status = int;
constexpr int kOpN = 0, kOpT = 1;
constexpr int kDefaultMath = 0, kTf32TensorOpMath = 3;

struct Library {
  Status (*create)(Handle*);
  Status (*set_math_mode)(Handle, int);
  Status (*sgemm)(Handle, int, int, int, int, int, const float*, const float*, int, long long,
                  const float*, int, long long, const float*, float*, int, long long, int);
  Status (*dgemm)(Handle, int, int, int, int, int, const double*, const double*, int, long long,
                  const double*, int, long long, const double*, double*, int, long long, int);
  std::string failure;
  std::mutex mutex;
  std::map<int, Handle> handles;  // per device (primary context)
};

// CUDA_HOME / CUDA_PATH, then the usual toolkit folder, after the loader's
// own search.
void* open_library() {
  for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"})
    if (void* library = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return library;
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* root = std::getenv(variable))
      for (const char* name : {"/lib64/libcublas.so", "/lib/libcublas.so"})
        if (void* library = dlopen((std::string(root) + name).c_str(), RTLD_NOW | RTLD_LOCAL))
          return library;
  return dlopen("/usr/local/cuda/lib64/libcublas.so", RTLD_NOW | RTLD_LOCAL);
}

Library& library() {
  static Library* instance = [] {
    auto* l = new Library{};  // never destroyed: handles outlive static destructors
    void* handle = open_library();
    if (!handle) {
      l->failure = "cuBLAS not found (libcublas.so; set CUDA_HOME to the CUDA toolkit)";
      return l;
    }
    auto resolve = [&](auto& slot, const char* name) {
      slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(handle, name));
      if (!slot && l->failure.empty()) l->failure = fmt::format("libcublas lacks {}", name);
    };
    resolve(l->create, "cublasCreate_v2");
    resolve(l->set_math_mode, "cublasSetMathMode");
    resolve(l->sgemm, "cublasSgemmStridedBatched");
    resolve(l->dgemm, "cublasDgemmStridedBatched");
    return l;
  }();
  return *instance;
}

Handle handle_for(int device) {
  Library& l = library();
  if (!l.failure.empty()) throw RuntimeError(l.failure);
  std::lock_guard lock(l.mutex);
  Handle& handle = l.handles[device];
  if (!handle) {
    if (Status status = l.create(&handle); status != 0)
      throw RuntimeError(fmt::format("cuBLAS: cublasCreate failed with status {}", status));
    const char* precision = std::getenv("ADJIT_GPU_MATMUL");
    bool tf32 = precision && std::string_view(precision) == "tf32";
    l.set_math_mode(handle, tf32 ? kTf32TensorOpMath : kDefaultMath);
  }
  return handle;
}

// One operand of C^T = B^T A^T in column-major terms: its transpose flag
// and leading dimension, for a (rows x columns) matrix with these strides.
struct Layout {
  int op;
  int ld;
};

Layout layout_of(int64_t rows, int64_t columns, int64_t row_stride, int64_t column_stride) {
  if (column_stride == 1)  // row-major: its transpose is column-major as stored
    return {kOpN, static_cast<int>(rows == 1 ? std::max<int64_t>(1, columns) : row_stride)};
  if (row_stride == 1)  // column-major: transposed on the fly
    return {kOpT, static_cast<int>(columns == 1 ? std::max<int64_t>(1, rows) : column_stride)};
  throw RuntimeError("gemm step: an operand is contiguous along neither matrix dimension");
}

}  // namespace

bool cublas_available() { return library().failure.empty(); }

void run_gemm(int device, const gpu::Gemm& g, void* const* pointers) {
  Handle handle = handle_for(device);
  const auto& [a, b, c] = g.strides;
  Layout a_layout = layout_of(g.m, g.k, a[1], a[2]);  // A: m x k
  Layout b_layout = layout_of(g.k, g.n, b[1], b[2]);  // B: k x n
  if (c[2] != 1) throw RuntimeError("gemm step: C must be contiguous along its columns");
  int ldc = static_cast<int>(g.m == 1 ? std::max<int64_t>(1, g.n) : c[1]);
  int n = static_cast<int>(g.n), m = static_cast<int>(g.m), k = static_cast<int>(g.k);
  int batch = static_cast<int>(g.batch);
  auto address = [&](int o, size_t bytes) {
    return static_cast<char*>(pointers[g.buffers[o]]) + g.offsets[o] * static_cast<int64_t>(bytes);
  };
  Library& l = library();
  Status status;
  // beta = 0: cuBLAS does not read C (whatever it holds, NaN included).
  if (g.element_bits == 32) {
    const float one = 1, beta = g.accumulate ? 1 : 0;
    status = l.sgemm(handle, b_layout.op, a_layout.op, n, m, k, &one,
                     reinterpret_cast<const float*>(address(1, 4)), b_layout.ld, b[0],
                     reinterpret_cast<const float*>(address(0, 4)), a_layout.ld, a[0], &beta,
                     reinterpret_cast<float*>(address(2, 4)), ldc, c[0], batch);
  } else {
    const double one = 1, beta = g.accumulate ? 1 : 0;
    status = l.dgemm(handle, b_layout.op, a_layout.op, n, m, k, &one,
                     reinterpret_cast<const double*>(address(1, 8)), b_layout.ld, b[0],
                     reinterpret_cast<const double*>(address(0, 8)), a_layout.ld, a[0], &beta,
                     reinterpret_cast<double*>(address(2, 8)), ldc, c[0], batch);
  }
  if (status != 0)
    throw RuntimeError(
        fmt::format("cuBLAS: a {}x{} by {}x{} product (batch {}) failed with status {}", g.m,
                    g.k, g.k, g.n, g.batch, status));
}

}  // namespace adjit::cuda
