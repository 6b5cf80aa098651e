#ifndef ADJIT_PASSES_EXPANDMINMAX_H
#define ADJIT_PASSES_EXPANDMINMAX_H

// What adjit-avx512-min-max and adjit-widened-f16-min-max share: replacing
// each arith.maximumf and arith.minimumf that a pass takes by its own
// expansion of IEEE 754-2019's maximum (minimum).

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::adjit {

/// Replaces each maximumf and minimumf under `root` for which `takes` holds
/// by `expand(builder, x, y, isMaximum)`.
inline void expandMinMax(Operation *root, function_ref<bool(Operation *)> takes,
                         function_ref<Value(ImplicitLocOpBuilder &, Value, Value, bool)> expand) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<arith::MaximumFOp, arith::MinimumFOp>(op) && takes(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    ImplicitLocOpBuilder b(op->getLoc(), op);
    op->getResult(0).replaceAllUsesWith(
        expand(b, op->getOperand(0), op->getOperand(1), isa<arith::MaximumFOp>(op)));
    op->erase();
  }
}

} // namespace mlir::adjit

#endif
