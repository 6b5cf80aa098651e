// adjit-write-into-dead-inputs: elementwise results reuse the buffer of an
// input that dies at the op (see Passes.td for the policy).
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_WRITEINTODEADINPUTS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// A tensor whose buffer may be overwritten once its last reader is done: a
// loop's carry or a temporary computed by a generic.
bool ownsItsBuffer(Value v) {
  if (auto argument = dyn_cast<BlockArgument>(v))
    return isa<scf::ForOp>(argument.getOwner()->getParentOp()) && argument.getArgNumber() > 0;
  return v.getDefiningOp<linalg::GenericOp>() != nullptr;
}

// Each output that starts as tensor.empty takes a different dead input of
// its type, read through the same map.
// Whether `v` is read by nothing once `op` runs: its other users come
// before `op` in its block and only read it (an input of a generic, the
// source of an insert_slice), so bufferization can overwrite it in place.
bool diesAt(Value v, Operation *op) {
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (user == op)
      continue;
    if (user->getBlock() != op->getBlock() || !user->isBeforeInBlock(op))
      return false;
    auto insert = dyn_cast<tensor::InsertSliceOp>(user);
    auto generic = dyn_cast<linalg::GenericOp>(user);
    bool onlyReads = (insert && use.getOperandNumber() == 0) ||
                     (generic && generic.isDpsInput(&use));
    if (!onlyReads)
      return false;
  }
  return true;
}

void writeIntoDeadInputs(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumReductionLoops() != 0)
    return;
  llvm::SmallPtrSet<OpOperand *, 4> taken;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    if (!init.get().getDefiningOp<tensor::EmptyOp>())
      continue;
    AffineMap outputMap = op.getMatchingIndexingMap(&init);
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value v = input->get();
      if (!taken.contains(input) && v.getType() == init.get().getType() &&
          llvm::count(op->getOperands(), v) == 1 && diesAt(v, op) && ownsItsBuffer(v) &&
          op.getMatchingIndexingMap(input) == outputMap) {
        init.set(v);
        taken.insert(input);
        break;
      }
    }
  }
}

struct WriteIntoDeadInputsPass
    : adjit::impl::WriteIntoDeadInputsBase<WriteIntoDeadInputsPass> {
  void runOnOperation() override { getOperation()->walk(writeIntoDeadInputs); }
};

} // namespace
