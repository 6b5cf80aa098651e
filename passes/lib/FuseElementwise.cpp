#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// A producer that only replicates data (a splat constant, a broadcast or a
// transpose: no computation in its body) costs nothing to recompute in each
// consumer, while materializing it costs a full-size buffer.
bool isReplication(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && generic.getNumDpsInputs() <= 1 &&
         generic.getBody()->getOperations().size() <= 2 &&  // yield (+ a constant)
         llvm::all_of(generic.getIteratorTypesArray(),
                      [](utils::IteratorType t) { return t == utils::IteratorType::parallel; });
}

// An all-parallel generic with a small body: recomputing it in each of its
// consumers costs a few instructions per element, while materializing it
// costs a write and a read per consumer of a full-size buffer.
bool isCheapElementwise(Operation *op) {
  constexpr size_t kMaxDuplicatedOps = 24;
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && generic.getNumResults() == 1 &&
         generic.getBody()->getOperations().size() <= kMaxDuplicatedOps &&
         llvm::all_of(generic.getIteratorTypesArray(),
                      [](utils::IteratorType t) { return t == utils::IteratorType::parallel; }) &&
         llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isProjectedPermutation(); });
}

// Fuse only when every element the producer computes is read once, or when
// it is cheap to compute again. Duplication is limited to producers that
// read materialized values (arguments, buffers), not other generics: a chain
// of shared values (forward values read by the backward pass) would
// otherwise be copied into every consumer level after level.
bool fusesWithoutRecomputation(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  auto consumer = dyn_cast<linalg::GenericOp>(fused->getOwner());
  if (!producer || !consumer || !consumer.getMatchingIndexingMap(fused).isPermutation())
    return false;
  if (producer->hasOneUse() || isReplication(producer))
    return true;
  return isCheapElementwise(producer) &&
         llvm::none_of(producer->getOperands(), [](Value v) {
           return isa_and_nonnull<linalg::GenericOp>(v.getDefiningOp());
         });
}

struct FuseElementwisePass : adjit::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, fusesWithoutRecomputation);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
