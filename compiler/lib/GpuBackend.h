#ifndef ADJIT_COMPILER_GPUBACKEND_H
#define ADJIT_COMPILER_GPUBACKEND_H

#include "adjit/compiler/Executable.h"
#include "adjit/runtime/GpuProgram.h"

#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>

namespace adjit::detail {

/// The CUDA toolkit's root: $CUDA_HOME, $CUDA_PATH, the toolkit CMake found
/// when adjit was built, or the folder above `ptxas` on $PATH; none if no
/// such folder holds nvvm/libdevice.
std::optional<std::string> cuda_toolkit();

/// libdevice's bitcode in the CUDA toolkit, if there is one.
std::optional<std::string> libdevice_path();

/// The kernels' PTX or cubin from a module at the `nvvm` stage; throws
/// CompileError (e.g. when kernels call libdevice and no toolkit was found).
std::string gpu_image(mlir::ModuleOp nvvm_stage, bool cubin);

/// The launch plans of a module's public functions at the `gpu` stage, with
/// the kernels' image. Throws CompileError naming the host operation that a
/// plan cannot express.
gpu::GpuProgram make_gpu_program(mlir::ModuleOp gpu_stage, const std::vector<Signature>& signatures,
                                 std::string image, const std::string& arch, bool cubin);

/// Loads a GPU program's kernels on `device` (RuntimeError without a CUDA
/// driver or device).
Executable load_onto_gpu(gpu::GpuProgram program, Device device);

}  // namespace adjit::detail

#endif
