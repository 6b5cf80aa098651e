#ifndef ADJIT_PASSES_LOOPNESTS_H
#define ADJIT_PASSES_LOOPNESTS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::adjit {

/// A nest of sequential scf.for loops over every position of `shape`
/// carrying `carried` (a batch of matrices, the indices of a scatter); its
/// results.
inline SmallVector<Value> loopNestOver(
    OpBuilder &b, Location loc, ArrayRef<int64_t> shape, ValueRange carried,
    function_ref<scf::ValueVector(OpBuilder &, Location, ValueRange, ValueRange)> body) {
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t size : shape) {
    lbs.push_back(zero);
    ubs.push_back(b.create<arith::ConstantIndexOp>(loc, size));
    steps.push_back(one);
  }
  return SmallVector<Value>(scf::buildLoopNest(b, loc, lbs, ubs, steps, carried, body).results);
}

} // namespace mlir::adjit

#endif
