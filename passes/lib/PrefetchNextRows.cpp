// adjit-prefetch-next-rows: a row loop's heaviest pass prefetches the rows
// of the caller's buffers that the next iteration reads (see the pass
// description in Passes.td).

#include "BufferUses.h"
#include "RowLoops.h"

#include "adjit/Passes/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_PREFETCHNEXTROWS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// The bytes of the contiguous row that `view` takes (static sizes, all of
// them 1 but the innermost, which has stride 1), or 0 when it takes none.
int64_t rowBytes(memref::SubViewOp view) {
  MemRefType type = view.getType();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (type.getRank() == 0 || !type.hasStaticShape() || !type.getElementType().isIntOrFloat() ||
      failed(getStridesAndOffset(type, strides, offset)) || strides.back() != 1 ||
      llvm::any_of(type.getShape().drop_back(), [](int64_t size) { return size != 1; }))
    return 0;
  return type.getShape().back() * type.getElementTypeBitWidth() / 8;
}

// The ops of `loop`'s body that `view` depends on, in order, when they can
// be recomputed for another iteration: free of memory effects and regions,
// and reading no loop-carried value but the induction variable.
std::optional<SetVector<Operation *>> recomputableOperands(scf::ForOp loop,
                                                           memref::SubViewOp view) {
  BackwardSliceOptions options;
  options.filter = [&](Operation *op) { return loop->isProperAncestor(op); };
  SetVector<Operation *> slice;
  getBackwardSlice(view.getOperation(), &slice, options);
  slice.insert(view);
  for (Operation *op : slice) {
    if (op != view && (!isMemoryEffectFree(op) || op->getNumRegions() != 0))
      return std::nullopt;
    for (Value operand : op->getOperands())
      if (auto argument = dyn_cast<BlockArgument>(operand);
          argument && loop->isAncestor(argument.getOwner()->getParentOp()) &&
          operand != loop.getInductionVar())
        return std::nullopt;
  }
  slice.remove(view);
  return slice;
}

struct PrefetchNextRowsPass : adjit::impl::PrefetchNextRowsBase<PrefetchNextRowsPass> {
  using PrefetchNextRowsBase::PrefetchNextRowsBase;

  void runOnOperation() override {
    if (lineBytes <= 0) {
      getOperation().emitError("adjit-prefetch-next-rows: line-bytes must be positive, got ")
          << static_cast<int64_t>(lineBytes);
      return signalPassFailure();
    }
    getOperation().walk([&](scf::ForOp loop) { prefetchInHeaviestPass(loop); });
  }

  void prefetchInHeaviestPass(scf::ForOp loop) {
    if (llvm::range_size(loop.getBody()->getOps<scf::ForOp>()) < 2)
      return;
    scf::ForOp heaviest = adjit::heaviestPass(loop, /*except=*/nullptr);
    std::optional<int64_t> lower = getConstantIntValue(heaviest.getLowerBound());
    std::optional<int64_t> upper = getConstantIntValue(heaviest.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(heaviest.getStep());
    if (!lower || !upper || !step || *step <= 0 || *upper <= *lower)
      return;
    int64_t trips = llvm::divideCeil(*upper - *lower, *step);

    OpBuilder builder(heaviest);
    OpBuilder inPass = OpBuilder::atBlockBegin(heaviest.getBody());
    Location loc = heaviest.getLoc();
    Value zero;
    IRMapping advanced; // the next iteration's values, shared by its rows
    llvm::DenseMap<AffineMap, Value> lineStarts; // shared by rows of one size
    for (auto view : llvm::to_vector(loop.getBody()->getOps<memref::SubViewOp>())) {
      int64_t bytes = rowBytes(view);
      if (bytes == 0 || bytes < minRowBytes)
        continue;
      int64_t elementBits = view.getType().getElementTypeBitWidth();
      if (elementBits % 8 || (lineBytes * 8) % elementBits ||
          !loop.isDefinedOutsideOfLoop(view.getSource()) || !adjit::functionArgumentOf(view) ||
          !adjit::isReadThroughViews(view) || llvm::all_of(view->getOperands(), [&](Value operand) {
            return loop.isDefinedOutsideOfLoop(operand); // the same row every time
          }))
        continue;
      std::optional<SetVector<Operation *>> operands = recomputableOperands(loop, view);
      if (!operands)
        continue;
      // The same row one iteration later.
      builder.setInsertionPoint(heaviest);
      if (!advanced.contains(loop.getInductionVar()))
        advanced.map(loop.getInductionVar(), builder.create<arith::AddIOp>(
                                                 loc, loop.getInductionVar(), loop.getStep()));
      for (Operation *op : *operands)
        if (op->getNumResults() == 0 || !advanced.contains(op->getResult(0)))
          builder.clone(*op, advanced);
      Value next = builder.clone(*view, advanced)->getResult(0);

      // Its lines, spread evenly over the heaviest pass's iterations.
      int64_t lines = llvm::divideCeil(bytes, lineBytes);
      int64_t linesPerTrip = llvm::divideCeil(lines, trips);
      int64_t elementsPerLine = lineBytes * 8 / elementBits;
      AffineExpr trip = (inPass.getAffineDimExpr(0) - *lower).floorDiv(*step);
      if (!zero)
        zero = inPass.create<arith::ConstantIndexOp>(loc, 0);
      SmallVector<Value> indices(view.getType().getRank(), zero);
      for (int64_t line = 0; line < linesPerTrip; ++line) {
        auto start = AffineMap::get(1, 0, (trip * linesPerTrip + line) * elementsPerLine);
        Value &element = lineStarts[start];
        if (!element)
          element = inPass.create<affine::AffineApplyOp>(loc, start, heaviest.getInductionVar());
        indices.back() = element;
        inPass.create<memref::PrefetchOp>(loc, next, indices, /*isWrite=*/false,
                                          /*localityHint=*/3, /*isDataCache=*/true);
      }
    }
  }
};

} // namespace
