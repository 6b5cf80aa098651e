// Consecutive generics over the same loops become one generic with the
// outputs of both, when the second reads the first's values at the point
// where they are computed. Inside a block of rows (adjit-tile-and-fuse-rows)
// this turns a chain of loops over each row into a few: a value used by
// several consumers is computed once and passed in registers, where
// producer-consumer fusion (adjit-fuse-elementwise) would either write it
// out or compute it again in each consumer.

#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_MERGEGENERICS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

bool mergeable(linalg::GenericOp op) {
  return op.hasPureTensorSemantics() && !op.getLibraryCallAttr() && op.getNumLoops() > 0 &&
         !llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic);
}

// `first`'s result is final at each iteration point (its output map names
// every loop) and `second` reads it there (through the same map).
bool readsWhereComputed(linalg::GenericOp first, OpResult result, linalg::GenericOp second,
                        OpOperand &use) {
  AffineMap written = first.getIndexingMapMatchingResult(result);
  return second.isDpsInput(&use) && written.isPermutation() &&
         second.getMatchingIndexingMap(&use) == written;
}

// Merging copies both bodies: bounded, so that a long sequence is not
// copied again at every step (quadratic compile time).
constexpr size_t kMaxMergedBodyOps = 256;

// Whether merging keeps the GPU mapping of both: the two reduce over the
// same loops (two row sums, or two column sums, of the same inputs), or an
// elementwise generic joins a reduction over all loops (W1's sum and its
// gradient). A reduction's outputs must be 32-bit: the mapping shares a
// reduction among threads only for what a block-wide gpu.all_reduce
// combines, and would otherwise run the merged generic thread by thread.
bool mergesUniformly(linalg::GenericOp first, linalg::GenericOp second) {
  auto allAre = [](linalg::GenericOp op, utils::IteratorType kind) {
    return llvm::all_of(op.getIteratorTypesArray(),
                        [&](utils::IteratorType iterator) { return iterator == kind; });
  };
  auto combinable = [](linalg::GenericOp op) {
    return llvm::all_of(op.getDpsInits(), [](Value init) {
      Type element = getElementTypeOrSelf(init.getType());
      return element.isF32() || element.isInteger(32);
    });
  };
  bool firstParallel = allAre(first, utils::IteratorType::parallel),
       secondParallel = allAre(second, utils::IteratorType::parallel);
  if (first.getIteratorTypesArray() == second.getIteratorTypesArray())
    return firstParallel || (combinable(first) && combinable(second));
  return (firstParallel && allAre(second, utils::IteratorType::reduction) && combinable(second)) ||
         (secondParallel && allAre(first, utils::IteratorType::reduction) && combinable(first));
}

bool canMerge(linalg::GenericOp first, linalg::GenericOp second, bool uniformIterators) {
  if (uniformIterators && !mergesUniformly(first, second))
    return false;
  if (!mergeable(first) || !mergeable(second) || first->getBlock() != second->getBlock() ||
      first.getStaticLoopRanges() != second.getStaticLoopRanges() ||
      first.getBody()->getOperations().size() + second.getBody()->getOperations().size() >
          kMaxMergedBodyOps)
    return false;
  for (OpOperand &use : second->getOpOperands()) {
    auto result = dyn_cast<OpResult>(use.get());
    if (result && result.getOwner() == first &&
        !readsWhereComputed(first, result, second, use))
      return false;
  }
  // The merged generic stands where `second` does: no one may read
  // `first`'s values in between.
  return llvm::all_of(first->getUsers(), [&](Operation *user) {
    return user == second || (user->getBlock() == second->getBlock() &&
                              second->isBeforeInBlock(user));
  });
}

linalg::GenericOp merge(RewriterBase &rewriter, linalg::GenericOp first,
                        linalg::GenericOp second) {
  SmallVector<Value> inputs(first.getDpsInputs()), outputs(first.getDpsInits());
  SmallVector<AffineMap> inputMaps, outputMaps;
  for (OpOperand *input : first.getDpsInputOperands())
    inputMaps.push_back(first.getMatchingIndexingMap(input));
  for (OpOperand &output : first.getDpsInitsMutable())
    outputMaps.push_back(first.getMatchingIndexingMap(&output));
  SmallVector<OpOperand *> secondInputs;
  for (OpOperand *input : second.getDpsInputOperands()) {
    auto result = dyn_cast<OpResult>(input->get());
    if (result && result.getOwner() == first)
      continue;
    secondInputs.push_back(input);
    inputs.push_back(input->get());
    inputMaps.push_back(second.getMatchingIndexingMap(input));
  }
  for (OpOperand &output : second.getDpsInitsMutable()) {
    outputs.push_back(output.get());
    outputMaps.push_back(second.getMatchingIndexingMap(&output));
  }
  SmallVector<AffineMap> maps(inputMaps);
  maps.append(outputMaps);
  // A loop reduces in the merged generic if it reduces in either; an output
  // that names it is still written once per point.
  SmallVector<utils::IteratorType> iterators = first.getIteratorTypesArray();
  for (auto [merged, other] : llvm::zip(iterators, second.getIteratorTypesArray()))
    if (other == utils::IteratorType::reduction)
      merged = other;

  rewriter.setInsertionPoint(second);
  auto fused = rewriter.create<linalg::GenericOp>(second.getLoc(), ValueRange(outputs).getTypes(),
                                                  inputs, outputs, maps, iterators);
  Block *body = rewriter.createBlock(&fused.getRegion());
  for (Value v : inputs)
    body->addArgument(getElementTypeOrSelf(v.getType()), v.getLoc());
  for (Value v : outputs)
    body->addArgument(getElementTypeOrSelf(v.getType()), v.getLoc());
  unsigned firstInputs = first.getNumDpsInputs(), firstOutputs = first.getNumDpsInits();
  unsigned mergedInputs = inputs.size();

  IRMapping mapping;
  Block &firstBody = first.getRegion().front();
  for (unsigned i = 0; i < firstInputs; ++i)
    mapping.map(firstBody.getArgument(i), body->getArgument(i));
  for (unsigned i = 0; i < firstOutputs; ++i)
    mapping.map(firstBody.getArgument(firstInputs + i), body->getArgument(mergedInputs + i));
  rewriter.setInsertionPointToStart(body);
  for (Operation &op : firstBody.without_terminator())
    rewriter.clone(op, mapping);
  SmallVector<Value> yields;
  for (Value v : firstBody.getTerminator()->getOperands())
    yields.push_back(mapping.lookupOrDefault(v));

  Block &secondBody = second.getRegion().front();
  unsigned nextInput = firstInputs;
  for (OpOperand *input : second.getDpsInputOperands()) {
    BlockArgument argument = secondBody.getArgument(input->getOperandNumber());
    auto result = dyn_cast<OpResult>(input->get());
    if (result && result.getOwner() == first)
      mapping.map(argument, yields[result.getResultNumber()]);
    else
      mapping.map(argument, body->getArgument(nextInput++));
  }
  for (unsigned i = 0; i < second.getNumDpsInits(); ++i)
    mapping.map(secondBody.getArgument(second.getNumDpsInputs() + i),
                body->getArgument(mergedInputs + firstOutputs + i));
  for (Operation &op : secondBody.without_terminator())
    rewriter.clone(op, mapping);
  for (Value v : secondBody.getTerminator()->getOperands())
    yields.push_back(mapping.lookupOrDefault(v));
  rewriter.create<linalg::YieldOp>(second.getLoc(), yields);

  rewriter.replaceOp(second, fused->getResults().drop_front(firstOutputs));
  rewriter.replaceOp(first, fused->getResults().take_front(firstOutputs));
  return fused;
}

struct MergeGenericsPass : adjit::impl::MergeGenericsBase<MergeGenericsPass> {
  using MergeGenericsBase::MergeGenericsBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks) {
      linalg::GenericOp current;
      // An empty block (a module with no functions) has no front.
      for (Operation *op = block->empty() ? nullptr : &block->front(); op;
           op = op->getNextNode()) {
        auto generic = dyn_cast<linalg::GenericOp>(op);
        if (!generic || !mergeable(generic))
          continue;
        if (current && canMerge(current, generic, uniformIterators))
          generic = merge(rewriter, current, generic);
        current = generic;
        op = generic;
      }
    }
    // Outputs only the merged generic itself read are no longer written.
    RewritePatternSet patterns(&getContext());
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
