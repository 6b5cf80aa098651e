#ifndef ADJIT_COMPILER_JITLOADER_H
#define ADJIT_COMPILER_JITLOADER_H

#include "adjit/compiler/Executable.h"
#include "adjit/runtime/GpuProgram.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace adjit::detail {

/// Loads a GPU program's kernels on `device` (RuntimeError without a CUDA
/// driver or device).
Executable load_onto_gpu(gpu::GpuProgram program, Device device);

/// Loads an object file of the host with `adjit_entry_<name>` functions
/// into a new ORC JIT instance and resolves one entry per signature.
Executable load_into_jit(const std::string& object, std::vector<Signature> signatures);

}  // namespace adjit::detail

#endif
