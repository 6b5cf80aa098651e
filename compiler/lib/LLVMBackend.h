#ifndef ADJIT_COMPILER_LLVMBACKEND_H
#define ADJIT_COMPILER_LLVMBACKEND_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>

namespace adjit::detail {

/// A target machine for this process's CPU (all its features) at -O3.
std::unique_ptr<llvm::TargetMachine> create_host_target_machine();

/// The host's triple, CPU and features (what its machine code depends on),
/// read once per process.
const std::string& host_target_description();

/// Translates a module in the LLVM dialect to LLVM IR and runs LLVM's -O3
/// pipeline for `machine`. Throws CompileError on failure.
std::unique_ptr<llvm::Module> translate_and_optimize(mlir::ModuleOp module,
                                                     llvm::LLVMContext& context,
                                                     llvm::TargetMachine& machine);

/// Assembly text or object-file bytes for an optimized module.
std::string emit_machine_code(llvm::Module& module, llvm::TargetMachine& machine,
                              bool assembly);

}  // namespace adjit::detail

#endif
