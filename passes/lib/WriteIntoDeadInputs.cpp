// adjit-write-into-dead-inputs: elementwise results reuse the buffer of an
// input that dies at the op (see Passes.td for the policy).
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

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

void writeIntoDeadInput(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0)
    return;
  OpOperand &init = op.getDpsInitsMutable()[0];
  if (!init.get().getDefiningOp<tensor::EmptyOp>())
    return;
  AffineMap outputMap = op.getMatchingIndexingMap(&init);
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value v = input->get();
    if (v.getType() == init.get().getType() && v.hasOneUse() && ownsItsBuffer(v) &&
        op.getMatchingIndexingMap(input) == outputMap) {
      init.set(v);
      return;
    }
  }
}

struct WriteIntoDeadInputsPass
    : adjit::impl::WriteIntoDeadInputsBase<WriteIntoDeadInputsPass> {
  void runOnOperation() override { getOperation()->walk(writeIntoDeadInput); }
};

} // namespace
