// adjit-overlap-row-stores: a row loop whose last pass only writes a row of
// a result runs that pass one row late, inside the next row's heaviest
// pass, so that its stores leave the core while arithmetic runs (see the
// pass description in Passes.td).

#include "BufferUses.h"
#include "RowLoops.h"

#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_OVERLAPROWSTORES
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

class RowStoreOverlap {
public:
  explicit RowStoreOverlap(scf::ForOp rows) : rows_(rows) {}

  // The last pass writes only rows of function arguments that nothing
  // reads, and reads buffers that the row body writes only after its
  // heaviest pass; what it takes from the row body can be computed again
  // for the previous row.
  bool match() {
    if (rows_.getNumResults() != 0 || !adjit::constantStep(rows_))
      return false;
    Block *body = rows_.getBody();
    store_ = dyn_cast_or_null<scf::ForOp>(body->getTerminator()->getPrevNode());
    if (!store_ || store_.getNumResults() != 0)
      return false;
    heaviest_ = adjit::heaviestPass(rows_, store_);
    if (!heaviest_ || !adjit::sameConstantRange(heaviest_, store_) ||
        !adjit::constantStep(store_) ||
        adjit::constantStep(store_) != adjit::constantStep(heaviest_))
      return false;

    // What the store pass reads and writes.
    SmallVector<Value> reads;
    SmallVector<BlockArgument> results;
    bool onlyResultRows = true;
    bool known = adjit::allMemoryEffects(store_, [&](const MemoryEffects::EffectInstance &effect) {
      Value value = effect.getValue();
      if (!value)
        return false;
      if (isa<MemoryEffects::Read>(effect.getEffect())) {
        reads.push_back(adjit::viewedBuffer(value));
        return true;
      }
      if (!isa<MemoryEffects::Write>(effect.getEffect()))
        return false;
      BlockArgument result = adjit::functionArgumentOf(value);
      onlyResultRows &= result && !adjit::isReadThroughViews(result);
      results.push_back(result);
      return true;
    });
    if (!known || !onlyResultRows)
      return false;

    // The values of the row body that the store pass uses, and theirs.
    std::optional<SmallVector<Operation *>> slice = adjit::rowSlice(rows_, store_, &reads);
    if (!slice)
      return false;
    slice_ = std::move(*slice);

    // Nothing else in the row body writes those results: the store pass
    // can come later without reordering writes to one place.
    for (Operation &op : body->without_terminator()) {
      if (&op == store_.getOperation())
        continue;
      bool writesResult = op.walk([&](MemoryEffectOpInterface nested) {
                              SmallVector<MemoryEffects::EffectInstance> instances;
                              nested.getEffects(instances);
                              for (const auto &effect : instances)
                                if (isa<MemoryEffects::Write>(effect.getEffect()) &&
                                    (!effect.getValue() ||
                                     llvm::is_contained(
                                         results, adjit::functionArgumentOf(effect.getValue()))))
                                  return WalkResult::interrupt();
                              return WalkResult::advance();
                            }).wasInterrupted();
      if (writesResult)
        return false;
    }

    // Nothing from the row body's start to its heaviest pass writes what
    // the store pass reads: those buffers still hold the previous row's
    // values there.
    for (Operation &op : *body) {
      if (adjit::mayWriteAny(&op, reads))
        return false;
      if (&op == heaviest_.getOperation())
        break;
    }
    return true;
  }

  void rewrite() {
    Location loc = store_.getLoc();
    // Before the heaviest pass: the previous row's values, and whether
    // there is a previous row in this loop.
    OpBuilder b(heaviest_);
    Value iv = rows_.getInductionVar();
    Value previous = b.create<arith::SubIOp>(loc, iv, rows_.getStep());
    Value hasPrevious =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, iv, rows_.getLowerBound());
    IRMapping previousRow;
    adjit::cloneRowSlice(b, rows_, slice_, previous, previousRow);

    // In each step of the heaviest pass, the same step of the store pass
    // for the previous row.
    OpBuilder inPass(heaviest_.getBody()->getTerminator());
    auto late = inPass.create<scf::IfOp>(loc, hasPrevious, /*withElseRegion=*/false);
    OpBuilder inLate = late.getThenBodyBuilder();
    previousRow.map(store_.getInductionVar(), heaviest_.getInductionVar());
    for (Operation &op : store_.getBody()->without_terminator())
      inLate.clone(op, previousRow);

    // After the loop: the store pass of its last row, if it had rows.
    b.setInsertionPointAfter(rows_);
    Value lower = rows_.getLowerBound(), upper = rows_.getUpperBound(), step = rows_.getStep();
    Value any = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, upper, lower);
    auto last = b.create<scf::IfOp>(loc, any, /*withElseRegion=*/false);
    OpBuilder inLast = last.getThenBodyBuilder();
    // lower + ((upper - lower - 1) / step) * step
    Value one = inLast.create<arith::ConstantIndexOp>(loc, 1);
    Value span = inLast.create<arith::SubIOp>(
        loc, inLast.create<arith::SubIOp>(loc, upper, lower), one);
    Value lastRow = inLast.create<arith::AddIOp>(
        loc, lower,
        inLast.create<arith::MulIOp>(loc, inLast.create<arith::DivUIOp>(loc, span, step), step));
    IRMapping lastMapping;
    adjit::cloneRowSlice(inLast, rows_, slice_, lastRow, lastMapping);
    inLast.clone(*store_, lastMapping);
    store_.erase();
    adjit::eraseUnusedSlice(slice_);
  }

private:
  scf::ForOp rows_, store_, heaviest_;
  SmallVector<Operation *> slice_;
};

struct OverlapRowStoresPass : adjit::impl::OverlapRowStoresBase<OverlapRowStoresPass> {
  void runOnOperation() override {
    adjit::forEachLoopInnerFirst(getOperation(), [](scf::ForOp loop) {
      if (RowStoreOverlap overlap(loop); overlap.match())
        overlap.rewrite();
    });
  }
};

} // namespace
