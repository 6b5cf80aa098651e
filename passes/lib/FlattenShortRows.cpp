// adjit-flatten-short-rows: elementwise generics over rows shorter than a
// vector step run as one long row (see Passes.td for the policy).
#include "ContiguousTensors.h"

#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_FLATTENSHORTROWS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;
using mlir::adjit::isContiguous;

namespace {

bool flattens(linalg::GenericOp op, int64_t shortRow) {
  if (!op.hasPureTensorSemantics() || op.hasIndexSemantics() || op.getLibraryCallAttr() ||
      op.getNumLoops() < 2 || op.getNumParallelLoops() != op.getNumLoops())
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(ranges) || ranges.back() >= shortRow)
    return false;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (map.getNumResults() == 0)
      continue; // a 0-d value, the same for every element
    if (!map.isIdentity() || !isContiguous(operand.get()))
      return false;
  }
  return true;
}

struct FlattenShortRowsPass : adjit::impl::FlattenShortRowsBase<FlattenShortRowsPass> {
  using FlattenShortRowsBase::FlattenShortRowsBase;

  void runOnOperation() override {
    int64_t bits = vectorBits > 0 ? int64_t(vectorBits) : adjit::hostVectorBits();
    // adjit-vectorize's step: two registers of f32.
    int64_t shortRow = 2 * bits / 32;
    SmallVector<linalg::GenericOp> generics;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (flattens(op, shortRow))
        generics.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : generics) {
      rewriter.setInsertionPoint(op);
      ReassociationIndices all = llvm::to_vector(llvm::seq<int64_t>(0, op.getNumLoops()));
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(cast<linalg::LinalgOp>(op.getOperation()), {all}, rewriter);
      if (failed(collapsed))
        continue;
      rewriter.replaceOp(op, collapsed->results);
    }
  }
};

} // namespace
