// adjit-overlap-row-stores: a row loop whose last pass only writes a row of
// a result runs that pass one row late, inside the next row's heaviest
// pass, so that its stores leave the core while arithmetic runs (see the
// pass description in Passes.td).

#include "BufferUses.h"

#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_OVERLAPROWSTORES
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

int64_t countOps(Operation *root) {
  int64_t count = 0;
  root->walk([&](Operation *) { ++count; });
  return count;
}

bool sameConstantBounds(scf::ForOp a, scf::ForOp b) {
  auto constant = [](Value v) { return getConstantIntValue(v); };
  std::optional<int64_t> step = constant(a.getStep());
  return step && *step > 0 && constant(a.getLowerBound()) &&
         constant(a.getLowerBound()) == constant(b.getLowerBound()) &&
         constant(a.getUpperBound()) && constant(a.getUpperBound()) == constant(b.getUpperBound()) &&
         step == constant(b.getStep());
}

class RowStoreOverlap {
public:
  explicit RowStoreOverlap(scf::ForOp rows) : rows_(rows) {}

  void run() {
    if (!match())
      return;
    rewrite();
  }

private:
  // The last pass writes only rows of function arguments that nothing
  // reads, and reads buffers that the row body writes only after its
  // heaviest pass; what it takes from the row body can be computed again
  // for the previous row.
  bool match() {
    if (rows_.getNumResults() != 0 || !getConstantIntValue(rows_.getStep()))
      return false;
    Block *body = rows_.getBody();
    store_ = dyn_cast_or_null<scf::ForOp>(body->getTerminator()->getPrevNode());
    if (!store_ || store_.getNumResults() != 0)
      return false;
    for (int64_t most = -1; auto pass : body->getOps<scf::ForOp>())
      if (int64_t ops = countOps(pass); pass != store_ && ops > most)
        most = ops, heaviest_ = pass;
    if (!heaviest_ || !sameConstantBounds(heaviest_, store_))
      return false;

    // What the store pass reads and writes.
    SmallVector<Value> reads;
    SmallVector<BlockArgument> results;
    bool onlyResultRows = true;
    WalkResult walk = store_.getBody()->walk([&](Operation *op) {
      if (isMemoryEffectFree(op))
        return WalkResult::advance();
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      if (!effects)
        return WalkResult::interrupt();
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      for (const MemoryEffects::EffectInstance &effect : instances) {
        Value value = effect.getValue();
        if (!value)
          return WalkResult::interrupt();
        if (isa<MemoryEffects::Read>(effect.getEffect()))
          reads.push_back(adjit::viewedBuffer(value));
        else if (isa<MemoryEffects::Write>(effect.getEffect())) {
          BlockArgument result = adjit::functionArgumentOf(value);
          onlyResultRows &= result && !adjit::isReadThroughViews(result);
          results.push_back(result);
        } else {
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted() || !onlyResultRows)
      return false;

    // The values of the row body that the store pass uses, and theirs.
    SetVector<Operation *> slice;
    SmallVector<Value> worklist;
    store_.getBody()->walk([&](Operation *op) {
      llvm::append_range(worklist, op->getOperands());
    });
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      if (value == rows_.getInductionVar() || rows_.isDefinedOutsideOfLoop(value))
        continue;
      Operation *op = value.getDefiningOp();
      if (!op || op->getBlock() != body)
        continue; // defined inside the store pass itself
      if (op->getNumRegions() != 0)
        return false; // a pass's result: not there before the heaviest pass
      if (slice.contains(op))
        continue;
      if (auto load = dyn_cast<memref::LoadOp>(op))
        reads.push_back(adjit::viewedBuffer(load.getMemRef()));
      else if (!isMemoryEffectFree(op))
        return false;
      slice.insert(op);
      llvm::append_range(worklist, op->getOperands());
    }
    slice_ = topologicalOrder(slice);

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
      bool clobbers = op.walk([&](Operation *nested) {
                          if (isMemoryEffectFree(nested))
                            return WalkResult::advance();
                          auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
                          if (!effects)
                            return nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
                                       ? WalkResult::advance()
                                       : WalkResult::interrupt();
                          SmallVector<MemoryEffects::EffectInstance> instances;
                          effects.getEffects(instances);
                          for (const auto &effect : instances) {
                            if (!isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()))
                              continue;
                            if (!effect.getValue() ||
                                llvm::is_contained(reads, adjit::viewedBuffer(effect.getValue())))
                              return WalkResult::interrupt();
                          }
                          return WalkResult::advance();
                        }).wasInterrupted();
      if (clobbers)
        return false;
      if (&op == heaviest_.getOperation())
        break;
    }
    return true;
  }

  static SmallVector<Operation *> topologicalOrder(const SetVector<Operation *> &ops) {
    SmallVector<Operation *> ordered(ops.begin(), ops.end());
    llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    return ordered;
  }

  // The slice of the row body for the row at `iv`, cloned at `b`.
  void cloneSlice(OpBuilder &b, Value iv, IRMapping &mapping) {
    mapping.map(rows_.getInductionVar(), iv);
    for (Operation *op : slice_)
      b.clone(*op, mapping);
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
    cloneSlice(b, previous, previousRow);

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
    cloneSlice(inLast, lastRow, lastMapping);
    inLast.clone(*store_, lastMapping);
    store_.erase();
    for (Operation *op : llvm::reverse(slice_))
      if (op->use_empty())
        op->erase();
  }

  scf::ForOp rows_, store_, heaviest_;
  SmallVector<Operation *> slice_;
};

struct OverlapRowStoresPass : adjit::impl::OverlapRowStoresBase<OverlapRowStoresPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      RowStoreOverlap(loop).run();
  }
};

} // namespace
