#ifndef ADJIT_PASSES_PASSES_H
#define ADJIT_PASSES_PASSES_H

#include "adjit/Dialect/AdjitDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::adjit {

#define GEN_PASS_DECL
#include "adjit/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "adjit/Passes/Passes.h.inc"

/// The width in bits of the host's widest vector registers: 512 with
/// AVX-512, 256 with AVX, else 128 (what adjit-vectorize fills by default).
int64_t hostVectorBits();
/// Whether the host has fused multiply-add instructions (x86's FMA3).
bool hostHasFusedMultiplyAdd();
/// Whether the host has AVX-512DQ (vrangeps: adjit-avx512-min-max).
bool hostHasAvx512Dq();
/// Whether the host has AVX2 (libmvec's 256-bit variants for it, `d`).
bool hostHasAvx2();
/// Whether the CPU that LLVM calls `cpu` divides vectors slowly against its
/// multiplies, so that adjit-approximate-math's `one-division` pays: Intel
/// cores (a 16-lane division every 10 cycles, 20 FMA slots), not AMD Zen
/// (about 5 on Zen 5). An empty name is the host.
bool dividesSlowly(StringRef cpu);

/// The packed entry point that `adjit-emit-entry-points` adds for the public
/// function `function`: `adjit_entry_<function>(void **descriptors)`, what
/// the JIT and ahead-of-time objects call.
inline constexpr StringLiteral kEntryPointPrefix = "adjit_entry_";
inline std::string entryPointName(StringRef function) {
  return (kEntryPointPrefix + function).str();
}

} // namespace mlir::adjit

#endif
