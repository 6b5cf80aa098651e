// Which values get derivatives: varied (forward from the seeds) and useful
// (backward from the sinks), as Enzyme's activity analysis decides.
#include "adjit/Dialect/AdjitOps.h"

using namespace mlir;
using namespace mlir::adjit;

llvm::DenseSet<Value> mlir::adjit::activeValues(ArrayRef<Operation *> ops, ArrayRef<Value> seeds,
                                                ArrayRef<Value> sinks) {
  llvm::DenseSet<Value> varied;
  for (Value seed : seeds)
    if (isFloatTensor(seed.getType()))
      varied.insert(seed);
  for (Operation *op : ops) {
    if (op->hasTrait<NotDifferentiable>())
      continue;
    if (llvm::any_of(op->getOperands(), [&](Value v) { return varied.contains(v); }))
      for (Value r : op->getResults())
        if (isFloatTensor(r.getType()))
          varied.insert(r);
  }
  // A derivative reaches an operand only through a result it flows into.
  llvm::DenseSet<Value> active;
  for (Value sink : sinks)
    if (varied.contains(sink))
      active.insert(sink);
  for (Operation *op : llvm::reverse(ops))
    if (llvm::any_of(op->getResults(), [&](Value r) { return active.contains(r); }))
      for (Value v : op->getOperands())
        if (varied.contains(v))
          active.insert(v);
  return active;
}
