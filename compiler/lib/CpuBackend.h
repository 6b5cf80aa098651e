#ifndef ADJIT_COMPILER_CPUBACKEND_H
#define ADJIT_COMPILER_CPUBACKEND_H

// The CPU back end: LLVM IR for the host (or another x86 CPU ahead of
// time), optimized, emitted as machine code, and loaded into this process
// through LLVM's ORC JIT.

#include "adjit/compiler/Executable.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace adjit::detail {

/// A target machine at -O3 for this process's CPU (all its features), or,
/// for ahead-of-time code, for `cpu` (an LLVM CPU name such as "x86-64-v3"
/// or "skylake-avx512") with `features` ("+avx2,-avx512f"; empty: those of
/// `cpu`, or the host's when `cpu` is empty too). Throws CompileError naming
/// the valid choices for an unknown CPU or feature.
std::unique_ptr<llvm::TargetMachine> create_target_machine(const std::string& cpu = "",
                                                           const std::string& features = "");

/// The width in bits of `machine`'s widest vector registers (512 with
/// AVX-512, 256 with AVX, else 128): what adjit-vectorize fills.
int64_t vector_register_bits(const llvm::TargetMachine& machine);

/// The host's triple, CPU and features (what its machine code depends on).
const std::string& host_target_description();

/// Translates a module in the LLVM dialect to LLVM IR for `machine`.
/// Throws CompileError on failure.
std::unique_ptr<llvm::Module> translate(mlir::ModuleOp module, llvm::LLVMContext& context,
                                        llvm::TargetMachine& machine);
/// Runs LLVM's -O3 pipeline (without loop unrolling) for `machine`.
void optimize(llvm::Module& module, llvm::TargetMachine& machine);

/// Assembly text or object-file bytes for an optimized module.
std::string emit_machine_code(llvm::Module& module, llvm::TargetMachine& machine,
                              bool assembly);

/// Loads an object file of the host with `adjit_entry_<name>` functions
/// into a new ORC JIT instance and resolves one entry per signature.
Executable load_into_jit(const std::string& object, std::vector<Signature> signatures);

}  // namespace adjit::detail

#endif
