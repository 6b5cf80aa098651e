#ifndef ADJIT_COMPILER_LOADEDCODE_H
#define ADJIT_COMPILER_LOADEDCODE_H

#include "adjit/runtime/Array.h"
#include "adjit/runtime/Signature.h"

#include <cstddef>
#include <vector>

namespace adjit::detail {

/// A program's machine code loaded on one device by its back end (the host
/// JIT in CpuBackend.cpp, the CUDA driver in GpuBackend.cpp). Executable
/// holds one and calls it; entries are numbered as Executable::entries().
class LoadedCode {
 public:
  virtual ~LoadedCode() = default;
  /// Checks the arrays against entry `entry`'s `signature` and runs it,
  /// writing into `outputs` (whose handles stay as they are).
  virtual void run(const Signature& signature, size_t entry, const std::vector<Array>& inputs,
                   const std::vector<Array>& outputs) const = 0;
};

}  // namespace adjit::detail

#endif
