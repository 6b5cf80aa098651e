#include "ElementwiseCost.h"
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;
using mlir::adjit::isCheapElementwise;

namespace {

// A producer that only replicates data (a splat constant, a broadcast or a
// transpose: no computation in its body) costs nothing to recompute in each
// consumer, while materializing it costs a full-size buffer.
bool isReplication(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() > 1 ||
      !llvm::all_of(generic.getIteratorTypesArray(),
                    [](utils::IteratorType t) { return t == utils::IteratorType::parallel; }))
    return false;
  // The body yields its input, a constant or a value from outside.
  Block *body = generic.getBody();
  return llvm::all_of(body->getTerminator()->getOperands(), [&](Value yielded) {
    Operation *definition = yielded.getDefiningOp();
    return isa<BlockArgument>(yielded) || definition->getBlock() != body ||
           definition->hasTrait<OpTrait::ConstantLike>();
  });
}

// Whether `generic` reads `operand` once per row of its innermost loop (a
// row's max), and those rows are shorter than a register of `vectorBits`
// (in its result's elements): recomputed in each consumer, it leaves the
// reductions over those rows no full-size result to write, so that
// adjit-vectorize runs them across rows (log_softmax over 10 classes:
// 1.8x). Over longer rows the result is a row's temporary in the cache,
// cheaper to read again than to recompute (LayerNorm's x - mean: W3 6%).
bool readsPerRowValueOfShortRows(linalg::GenericOp generic, OpOperand &operand,
                                 int64_t vectorBits) {
  if (!generic.isDpsInput(&operand) || generic.getNumLoops() < 2)
    return false;
  Type element = getElementTypeOrSelf(generic->getResult(0).getType());
  if (!element.isIntOrFloat())
    return false;
  unsigned inner = generic.getNumLoops() - 1;
  int64_t row = generic.getStaticLoopRanges()[inner];
  return !ShapedType::isDynamic(row) && row < vectorBits / element.getIntOrFloatBitWidth() &&
         !generic.getMatchingIndexingMap(&operand).isFunctionOfDim(inner);
}

// Fuse when every element the producer computes is read once, or when it
// is cheap to compute again. Duplication is limited to producers that
// read materialized values (arguments, buffers), not other generics (but
// for a value per row of short rows, readsPerRowValueOfShortRows): a chain
// of shared values (forward values read by the backward pass) would
// otherwise be copied into every consumer level after level.
// Upstream's fusion copies both bodies into a new generic: without a
// bound, a chain of n ops it fuses would copy O(n^2) ops (the in-place
// fusion below copies only the producer). Bodies stop growing here (a
// chain becomes several generics, which adjit-tile-and-fuse-rows still
// runs block by block).
constexpr size_t kMaxFusedBodyOps = 256;

// The number of ops in each generic's body, counted once: a block's size is
// linear to find, and the fusion control asks for it again and again (most
// of the pass's time on long programs). Kept current as the rewrite
// inserts and erases ops.
class BodySizes : public RewriterBase::Listener {
public:
  size_t of(linalg::GenericOp generic) {
    auto [it, inserted] = sizes_.try_emplace(generic.getOperation(), 0);
    if (inserted)
      it->second = generic.getBody()->getOperations().size();
    return it->second;
  }

private:
  void forget(Operation *op) {
    sizes_.erase(op);
    if (Operation *parent = op->getParentOp())
      sizes_.erase(parent);
  }
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override { forget(op); }
  void notifyOperationErased(Operation *op) override { forget(op); }
  void notifyOperationModified(Operation *op) override { forget(op); }

  llvm::DenseMap<Operation *, size_t> sizes_;
};

// Whether `fused` may be fused; `recompute`: any elementwise producer may be
// recomputed in each consumer (the GPU policy), except in a row group (an
// scf.forall of adjit-tile-and-fuse-rows), whose intermediates stay in the
// cache: there the CPU's policy computes a shared value once, and a cheap
// one that reads only arguments and per-row scalars (LayerNorm's x - mean)
// is recomputed, which saves the thread block a row's temporary: a store, a
// barrier and a load. (Recomputing also the cheap values that read a row's
// temporaries made W3's row group 47% more instructions and 17% slower on
// an H200. W3's value alone got 21% faster; this rule gives it the same
// kernel.)
bool shouldFuse(OpOperand *fused, bool recompute, int64_t vectorBits, BodySizes &sizes) {
  Operation *producer = fused->get().getDefiningOp();
  auto consumer = dyn_cast<linalg::GenericOp>(fused->getOwner());
  if (!producer || !consumer || !consumer.getMatchingIndexingMap(fused).isPermutation())
    return false;
  if (auto generic = dyn_cast<linalg::GenericOp>(producer))
    if (sizes.of(generic) + sizes.of(consumer) > kMaxFusedBodyOps)
      return false;
  if (producer->hasOneUse() || isReplication(producer))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  if (recompute && !consumer->getParentOfType<scf::ForallOp>())
    return generic && generic.getNumResults() == 1 &&
           generic.getNumParallelLoops() == generic.getNumLoops() &&
           llvm::all_of(generic.getIndexingMapsArray(),
                        [](AffineMap m) { return m.isProjectedPermutation(); });
  // (In a row group, a per-row scalar is a tensor of one element.)
  return isCheapElementwise(producer) &&
         llvm::none_of(generic->getOpOperands(), [&](OpOperand &operand) {
           auto shaped = dyn_cast<ShapedType>(operand.get().getType());
           bool perRowScalar = recompute && shaped && shaped.hasStaticShape() &&
                               shaped.getNumElements() == 1;
           return isa_and_nonnull<linalg::GenericOp>(operand.get().getDefiningOp()) &&
                  !perRowScalar && !readsPerRowValueOfShortRows(generic, operand, vectorBits);
         });
}

// The map from the consumer's loops to an input of the producer, as the
// fused generic indexes it (upstream's fusion composes the same maps).
AffineMap producerInputMapInConsumer(linalg::GenericOp producer, OpOperand *producerInput,
                                     AffineMap producerResultMap, AffineMap consumerMap) {
  return producer.getMatchingIndexingMap(producerInput)
      .compose(inversePermutation(producerResultMap))
      .compose(consumerMap);
}

// Upstream's fusion clones both bodies into a new generic, so a chain
// fused into one growing consumer copies the consumer again at each step:
// quadratic in the fused body (kMaxFusedBodyOps keeps it from growing with
// the program, but long programs still spent most of their compile time
// copying). When the producer has one result and its body does not read
// its output, this pattern rewrites the consumer in place instead, with the
// producer's body moved in (its only use was the fused operand) or copied
// (others still read it): the generic upstream's fusion would make, with
// operands, maps and body in the same order, in time of the producer's
// size. (Upstream's also gives a multi-use producer's result as an extra
// output, which no one reads and its cleanup patterns erase.) It takes the
// operand upstream's pattern would take first, so fusions keep their order.
struct FuseProducerInPlace : OpRewritePattern<linalg::GenericOp> {
  FuseProducerInPlace(MLIRContext *context, linalg::ControlFusionFn control)
      : OpRewritePattern(context, /*benefit=*/2), control(std::move(control)) {}

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    OpOperand *fused = nullptr;
    for (OpOperand &operand : consumer->getOpOperands())
      if (linalg::areElementwiseOpsFusable(&operand) && control(&operand)) {
        fused = &operand;
        break;
      }
    if (!fused)
      return failure();
    auto producer = fused->get().getDefiningOp<linalg::GenericOp>();
    if (producer->getNumResults() != 1 || producer.hasIndexSemantics() ||
        producer.payloadUsesValueFromOperand(producer.getDpsInitOperand(0)))
      return failure();

    unsigned position = fused->getOperandNumber();
    AffineMap producerResultMap = producer.getIndexingMapMatchingResult(cast<OpResult>(fused->get()));
    AffineMap consumerMap = consumer.getMatchingIndexingMap(fused);
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *input : consumer.getDpsInputOperands()) {
      if (input != fused) {
        inputs.push_back(input->get());
        maps.push_back(consumer.getMatchingIndexingMap(input));
        continue;
      }
      for (OpOperand *producerInput : producer.getDpsInputOperands()) {
        inputs.push_back(producerInput->get());
        maps.push_back(producerInputMapInConsumer(producer, producerInput, producerResultMap,
                                                  consumerMap));
      }
    }
    for (OpOperand &output : consumer.getDpsInitsMutable())
      maps.push_back(consumer.getMatchingIndexingMap(&output));
    // The fused generic's loop bounds must follow from its operands.
    if (!inversePermutation(concatAffineMaps(maps)))
      return failure();

    Block &body = consumer.getRegion().front();
    Block &producerBody = producer.getRegion().front();
    bool moveBody = fused->get().hasOneUse();
    rewriter.startOpModification(consumer);
    // The producer's inputs take the fused input's place among the block's
    // arguments, and its body goes first.
    SmallVector<Value> producerArguments;
    for (unsigned i = 0, e = producer.getNumDpsInputs(); i < e; ++i)
      producerArguments.push_back(body.insertArgument(position + 1 + i,
                                                      producerBody.getArgument(i).getType(),
                                                      producerBody.getArgument(i).getLoc()));
    Value fusedValue;
    if (moveBody) {
      producerBody.eraseArguments(producer.getNumDpsInputs(), producer.getNumDpsInits());
      Operation *yield = producerBody.getTerminator();
      rewriter.inlineBlockBefore(&producerBody, &body, body.begin(), producerArguments);
      fusedValue = yield->getOperand(0);
      rewriter.eraseOp(yield);
    } else {
      IRMapping producerValues;
      producerValues.map(producerBody.getArguments().take_front(producerArguments.size()),
                         producerArguments);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&body);
      for (Operation &op : producerBody.without_terminator())
        rewriter.clone(op, producerValues);
      fusedValue = producerValues.lookupOrDefault(producerBody.getTerminator()->getOperand(0));
    }
    body.getArgument(position).replaceAllUsesWith(fusedValue);
    body.eraseArgument(position);
    consumer.getInputsMutable().assign(inputs);
    consumer.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    rewriter.finalizeOpModification(consumer);
    if (moveBody)
      rewriter.eraseOp(producer);
    return success();
  }

  linalg::ControlFusionFn control;
};

struct FuseElementwisePass : adjit::impl::FuseElementwiseBase<FuseElementwisePass> {
  using FuseElementwiseBase::FuseElementwiseBase;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    bool recomputeAll = recompute;
    int64_t bits = vectorBits > 0 ? int64_t(vectorBits) : adjit::hostVectorBits();
    BodySizes sizes;
    linalg::ControlFusionFn control = [&](OpOperand *fused) {
      return shouldFuse(fused, recomputeAll, bits, sizes);
    };
    patterns.add<FuseProducerInPlace>(&getContext(), control);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    GreedyRewriteConfig config;
    config.listener = &sizes;
    // A long chain (a product of 16 factors and its gradient) takes more
    // than the driver's default 10 rounds, which then failed the pass. Each
    // fusion leaves one generic fewer or a larger body, which `control`
    // bounds: the rounds end.
    config.maxIterations = GreedyRewriteConfig::kNoLimit;
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns), config))) {
      getOperation()->emitError("elementwise fusion did not reach a fixed point");
      signalPassFailure();
    }
  }
};

} // namespace
