#pragma once

// A program compiled for an NVIDIA GPU: one PTX (or cubin) module with every
// kernel, and for each entry a launch plan (the host side: which buffers to
// allocate, which kernels to launch on which buffers, when to free). The
// compiler makes it from the host function of the `gpu` stage; the runtime
// runs it through the CUDA driver, with no MLIR or LLVM (as XLA's thunks do).
// It serializes to a self-contained text file, so a program compiled on one
// machine runs on another (scripts/gpu-check.sh, ahead-of-time use).

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "adjit/runtime/Array.h"
#include "adjit/runtime/Device.h"
#include "adjit/runtime/Signature.h"

namespace adjit::gpu {

// A buffer the plan uses: an entry's input or output (index = its position),
// a temporary it allocates, or a constant uploaded when the program loads
// (index = its position in GpuProgram::constants).
struct Buffer {
  enum class Kind { input, output, temporary, constant };
  Kind kind;
  int index = 0;
  size_t bytes = 0;
};

// One kernel parameter group: a buffer as a memref descriptor (base pointer
// twice, offset, sizes and strides in elements, as MLIR's NVVM lowering
// expands it) or a scalar of 4 or 8 bytes.
struct KernelArgument {
  enum class Kind { buffer, scalar };
  Kind kind;
  int buffer = -1;
  int64_t offset = 0;
  std::vector<int64_t> sizes, strides;
  int bytes = 0;
  uint64_t bits = 0;
};

// C[b, i, j] += sum_p A[b, i, p] * B[b, p, j] through the GEMM library
// (cuBLAS), for operands addressed by element offsets and element strides
// along (batch, row, column); each of A and B is contiguous along one of its
// matrix dimensions and C along its columns. Without `accumulate`, C = the
// sum (C's contents are not read: a zero fill folded in).
struct Gemm {
  int element_bits = 32;  // f32 or f64
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool accumulate = true;
  std::array<int, 3> buffers{};  // A, B, C
  std::array<int64_t, 3> offsets{};
  std::array<std::array<int64_t, 3>, 3> strides{};
};

struct Step {
  enum class Kind { allocate, release, launch, gemm };
  Kind kind;
  int buffer = -1;  // allocate, release
  std::string kernel;  // launch
  std::array<unsigned, 3> grid{1, 1, 1}, block{1, 1, 1};
  unsigned shared_bytes = 0;
  std::vector<KernelArgument> arguments;
  Gemm gemm;  // gemm
};

struct EntryPlan {
  Signature signature;
  std::vector<Buffer> buffers;
  std::vector<Step> steps;
};

struct GpuProgram {
  std::string arch;           // "sm_90"
  std::string format;         // "ptx" or "cubin"
  std::string image;          // the module's PTX text or cubin bytes
  std::vector<std::string> constants;  // bytes of each constant buffer
  std::vector<EntryPlan> entries;

  std::string serialize() const;
  // Throws adjit::Error naming what is malformed.
  static GpuProgram deserialize(std::string_view text);
};

// Whether the GEMM library (cuBLAS, loaded with dlopen) is on this machine;
// the compiler plans gemm steps only then. Never throws.
bool gemm_library_available();

// A GpuProgram loaded on one GPU: its module, kernels and constants. Running
// it is thread-safe and synchronous: results are in the outputs on return,
// and a kernel fault is reported as adjit::RuntimeError by the call that
// launched it.
class LoadedGpuProgram {
 public:
  LoadedGpuProgram(std::shared_ptr<const GpuProgram> program, Device device);
  ~LoadedGpuProgram();
  LoadedGpuProgram(const LoadedGpuProgram&) = delete;
  LoadedGpuProgram& operator=(const LoadedGpuProgram&) = delete;

  const GpuProgram& program() const { return *program_; }
  Device device() const { return device_; }
  // Runs entries[entry]; inputs and outputs must have its types and live on
  // device().
  void run(size_t entry, const std::vector<Array>& inputs,
           const std::vector<Array>& outputs) const;

 private:
  struct Module;
  std::shared_ptr<const GpuProgram> program_;
  Device device_;
  std::unique_ptr<Module> module_;
};

}  // namespace adjit::gpu
