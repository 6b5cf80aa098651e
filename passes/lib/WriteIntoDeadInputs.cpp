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
      if (!taken.contains(input) && v.getType() == init.get().getType() && v.hasOneUse() &&
          ownsItsBuffer(v) && op.getMatchingIndexingMap(input) == outputMap) {
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
