// A reduction lowered to loops reads and writes its accumulator in memory
// on every iteration. When the accumulator is a temporary of the function
// (a view of an allocation, so nothing else in the loop can alias it), it is
// carried in the loop instead: loaded once before, stored once after. LLVM
// then sees an ordinary reduction and vectorizes it, which it cannot prove
// safe for memory it reaches through the descriptors of a parallel region.

#include "BufferUses.h"

#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_PROMOTEACCUMULATORS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

struct Accumulator {
  affine::AffineLoadOp load;
  affine::AffineStoreOp store;
};

// A load and a later store of the same element, at indices fixed in the
// loop, both in its body, and no other access in the loop to any view of
// the same allocation.
std::optional<Accumulator> findAccumulator(affine::AffineForOp loop,
                                           affine::AffineLoadOp load) {
  Block *body = loop.getBody();
  Operation *allocation = adjit::allocationOf(load.getMemRef());
  if (load->getBlock() != body || !allocation ||
      llvm::any_of(load.getMapOperands(),
                   [&](Value v) { return !loop.isDefinedOutsideOfLoop(v); }))
    return std::nullopt;
  affine::AffineStoreOp store;
  bool otherAccess = false;
  body->walk([&](Operation *op) {
    if (op == load)
      return;
    for (Value operand : op->getOperands()) {
      if (!isa<MemRefType>(operand.getType()) || adjit::allocationOf(operand) != allocation)
        continue;
      auto candidate = dyn_cast<affine::AffineStoreOp>(op);
      if (candidate && !store && candidate->getBlock() == body &&
          candidate.getMemRef() == load.getMemRef() &&
          candidate.getAffineMap() == load.getAffineMap() &&
          candidate.getMapOperands() == load.getMapOperands() && load->isBeforeInBlock(candidate))
        store = candidate;
      else
        otherAccess = true;
    }
  });
  if (!store || otherAccess)
    return std::nullopt;
  return Accumulator{load, store};
}

affine::AffineForOp promote(RewriterBase &rewriter, affine::AffineForOp loop,
                            Accumulator accumulator) {
  rewriter.setInsertionPoint(loop);
  Value initial = rewriter.create<affine::AffineLoadOp>(
      accumulator.load.getLoc(), accumulator.load.getMemRef(), accumulator.load.getAffineMap(),
      accumulator.load.getMapOperands());
  Value stored = accumulator.store.getValueToStore();
  auto promoted = cast<affine::AffineForOp>(*loop.replaceWithAdditionalYields(
      rewriter, initial, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) { return SmallVector<Value>{stored}; }));
  rewriter.replaceOp(accumulator.load, promoted.getRegionIterArgs().back());
  rewriter.setInsertionPointAfter(promoted);
  rewriter.create<affine::AffineStoreOp>(accumulator.store.getLoc(), promoted.getResults().back(),
                                         accumulator.store.getMemRef(),
                                         accumulator.store.getAffineMap(),
                                         accumulator.store.getMapOperands());
  rewriter.eraseOp(accumulator.store);
  return promoted;
}

struct PromoteAccumulatorsPass
    : adjit::impl::PromoteAccumulatorsBase<PromoteAccumulatorsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Innermost loops first: the load and store a promotion leaves around
    // an inner loop can then be promoted out of its parent as well.
    SmallVector<affine::AffineForOp> loops;
    getOperation()->walk([&](affine::AffineForOp loop) { loops.push_back(loop); });
    for (affine::AffineForOp loop : loops) {
      while (true) {
        std::optional<Accumulator> found;
        for (auto load : loop.getBody()->getOps<affine::AffineLoadOp>())
          if ((found = findAccumulator(loop, load)))
            break;
        if (!found)
          break;
        loop = promote(rewriter, loop, *found);
      }
    }
  }
};

} // namespace
