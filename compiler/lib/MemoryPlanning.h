#ifndef ADJIT_COMPILER_MEMORYPLANNING_H
#define ADJIT_COMPILER_MEMORYPLANNING_H

// The two halves of Program::memory_plan, each reading the stage that
// knows it.

#include "adjit/compiler/MemoryPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace adjit::detail {

/// The residuals of the reverse-mode functions that `entry` reaches, from
/// the differentiated stage.
std::vector<Residual> residuals_of(mlir::ModuleOp differentiated, llvm::StringRef entry);

/// Fills `plan`'s buffers, arena and peaks from the bufferized stage of a
/// function before adjit-plan-buffers, as that pass would place them when
/// `planning` (CompileOptions::plan_buffers).
void describe_buffers(mlir::func::FuncOp bufferized, bool planning, MemoryPlan& plan);

}  // namespace adjit::detail

#endif
