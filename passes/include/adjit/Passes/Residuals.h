#ifndef ADJIT_PASSES_RESIDUALS_H
#define ADJIT_PASSES_RESIDUALS_H

// The forward/backward split of a reverse-mode function (one that
// adjit-differentiate made, marked adjit.cotangents_from): what its forward
// part computes and which of those values its backward part reads. Used by
// adjit-rematerialize and reported by Program::memory_plan.

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <optional>

namespace mlir::adjit {

struct ReverseSplit {
  /// The top-level ops the primal results need: the forward pass. Every
  /// other op of the body (the adjoint sweep, cotangent-independent masks
  /// of derivative rules included) is the backward pass.
  llvm::DenseSet<Operation *> forward;
  /// The residuals: results of forward ops, constants aside, that a
  /// backward op (or an op nested in one) reads, in program order.
  llvm::SetVector<Value> residuals;
};

/// The split of `function`, or nothing when it is not a reverse-mode
/// function (no adjit.cotangents_from, or a declaration).
std::optional<ReverseSplit> splitReverseFunction(func::FuncOp function);

} // namespace mlir::adjit

#endif // ADJIT_PASSES_RESIDUALS_H
