// adjit-overlap-row-reductions: a row loop whose first pass only reduces
// rows of buffers that the loop never writes runs that pass one row early,
// inside the previous row's heaviest pass (see the pass description in
// Passes.td).

#include "BufferUses.h"
#include "RowLoops.h"

#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_OVERLAPROWREDUCTIONS
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;

namespace {

// The buffers that `op` and the ops in it read, when that is all they do
// to memory.
std::optional<SmallVector<Value>> onlyReads(Operation *op) {
  SmallVector<Value> reads;
  bool onlyReading = adjit::allMemoryEffects(op, [&](const MemoryEffects::EffectInstance &effect) {
    if (!isa<MemoryEffects::Read>(effect.getEffect()) || !effect.getValue())
      return false;
    reads.push_back(adjit::viewedBuffer(effect.getValue()));
    return true;
  });
  if (!onlyReading)
    return std::nullopt;
  return reads;
}

// A reduction pass of adjit-vectorize (vector accumulators, one vector
// read per operand and step) taken to fewer lanes, so that its steps match
// another loop's: each value of `from` lanes becomes one of `to`. Its
// results then hold the same elements' sums grouped otherwise, which only
// the vector.reductions that use them may see, and only where those allow
// reassociation.
class ReductionNarrowing {
public:
  ReductionNarrowing(scf::ForOp pass, int64_t from, int64_t to)
      : pass_(pass), from_(from), to_(to) {}

  bool applies() {
    auto wide = [&](Type type) {
      auto vector = dyn_cast<VectorType>(type);
      return vector && vector.getRank() == 1 && !vector.isScalable() &&
             vector.getDimSize(0) == from_;
    };
    for (Value result : pass_.getResults()) {
      if (!wide(result.getType()))
        return false;
      for (Operation *user : result.getUsers()) {
        auto reduction = dyn_cast<vector::ReductionOp>(user);
        if (!reduction || reduction.getVector() != result)
          return false;
        bool exact = !isa<FloatType>(reduction.getType()) ||
                     !llvm::is_contained({vector::CombiningKind::ADD, vector::CombiningKind::MUL},
                                         reduction.getKind());
        if (!exact && !bitEnumContainsAll(reduction.getFastmath(), arith::FastMathFlags::reassoc))
          return false;
      }
    }
    for (Value init : pass_.getInitArgs())
      if (!splatConstant(init))
        return false;
    for (Operation &op : pass_.getBody()->without_terminator()) {
      if (auto read = dyn_cast<vector::TransferReadOp>(op)) {
        if (!read.getPermutationMap().isMinorIdentity() || read.getMask() ||
            read.getIndices().back() != pass_.getInductionVar() ||
            read.getVectorType().getRank() != 1 || !read.getInBoundsValues().front())
          return false;
      } else if (auto broadcast = dyn_cast<vector::BroadcastOp>(op)) {
        if (isa<VectorType>(broadcast.getSourceType()))
          return false;
      } else if (isa<arith::ConstantOp>(op)) {
        if (isa<VectorType>(op.getResult(0).getType()) && !splatConstant(op.getResult(0)))
          return false;
        continue; // a scalar stays as it is
      } else if (!OpTrait::hasElementwiseMappableTraits(&op) || op.getNumRegions() != 0) {
        return false;
      }
      if (!llvm::all_of(op.getResultTypes(), wide))
        return false;
    }
    return true;
  }

  // The narrower pass, in place of the wider one, stepping by `step`; its
  // initial values before `constantsBefore`.
  void rewrite(RewriterBase &rewriter, Value step, Operation *constantsBefore) {
    Location loc = pass_.getLoc();
    rewriter.setInsertionPoint(constantsBefore);
    SmallVector<Value> inits;
    for (Value init : pass_.getInitArgs())
      inits.push_back(narrowedConstant(rewriter, loc, *splatConstant(init)));
    rewriter.setInsertionPoint(pass_);
    auto narrow = rewriter.create<scf::ForOp>(loc, pass_.getLowerBound(), pass_.getUpperBound(),
                                              step, inits);
    IRMapping mapping;
    mapping.map(pass_.getInductionVar(), narrow.getInductionVar());
    mapping.map(pass_.getRegionIterArgs(), narrow.getRegionIterArgs());
    rewriter.setInsertionPointToStart(narrow.getBody());
    for (Operation &op : pass_.getBody()->getOperations()) {
      if (auto yield = dyn_cast<scf::YieldOp>(op)) {
        rewriter.create<scf::YieldOp>(
            loc, llvm::map_to_vector(yield.getOperands(),
                                     [&](Value v) { return mapping.lookupOrDefault(v); }));
        continue;
      }
      if (isa<arith::ConstantOp>(op) && isa<VectorType>(op.getResult(0).getType())) {
        mapping.map(op.getResult(0),
                    narrowedConstant(rewriter, loc, *splatConstant(op.getResult(0))));
        continue;
      }
      Operation *copy = rewriter.clone(op, mapping);
      for (OpResult result : copy->getResults())
        result.setType(narrowed(result.getType()));
    }
    rewriter.replaceOp(pass_, narrow.getResults());
    pass_ = narrow;
  }

  scf::ForOp pass() const { return pass_; }

private:
  std::optional<DenseElementsAttr> splatConstant(Value value) {
    DenseElementsAttr splat;
    if (!matchPattern(value, m_Constant(&splat)) || !splat.isSplat())
      return std::nullopt;
    return splat;
  }

  Type narrowed(Type type) {
    auto vector = dyn_cast<VectorType>(type);
    return vector ? VectorType::get({to_}, vector.getElementType()) : type;
  }

  Value narrowedConstant(RewriterBase &rewriter, Location loc, DenseElementsAttr splat) {
    return rewriter.create<arith::ConstantOp>(
        loc, splat.resizeSplat(cast<ShapedType>(narrowed(splat.getType()))));
  }

  scf::ForOp pass_;
  int64_t from_, to_;
};

class RowReductionOverlap {
public:
  explicit RowReductionOverlap(scf::ForOp rows) : rows_(rows) {}

  // The row body's first pass with results reads, and only reads, buffers
  // that the row loop never writes; the heaviest pass comes after it, over
  // the same range in steps that divide its own; what it takes from the
  // row body can be computed for the next row.
  bool match() {
    if (!adjit::constantStep(rows_))
      return false;
    for (auto pass : rows_.getBody()->getOps<scf::ForOp>())
      if (pass.getNumResults() != 0) {
        first_ = pass;
        break;
      }
    if (!first_)
      return false;
    heaviest_ = adjit::heaviestPass(rows_, first_);
    if (!heaviest_ || !first_->isBeforeInBlock(heaviest_) ||
        !adjit::sameConstantRange(first_, heaviest_))
      return false;
    std::optional<int64_t> firstStep = adjit::constantStep(first_),
                           heaviestStep = adjit::constantStep(heaviest_);
    if (!firstStep || !heaviestStep || *firstStep % *heaviestStep != 0)
      return false;
    if (*firstStep != *heaviestStep) {
      narrowing_.emplace(first_, *firstStep, *heaviestStep);
      if (!narrowing_->applies())
        return false;
    }
    for (Value init : first_.getInitArgs())
      if (!rows_.isDefinedOutsideOfLoop(init))
        return false;
    std::optional<SmallVector<Value>> reads = onlyReads(first_);
    if (!reads || adjit::mayWriteAny(rows_, *reads))
      return false;
    std::optional<SmallVector<Operation *>> slice =
        adjit::rowSlice(rows_, first_, /*loadedBuffers=*/nullptr);
    if (!slice)
      return false;
    slice_ = std::move(*slice);
    return true;
  }

  void rewrite() {
    IRRewriter rewriter(rows_.getContext());
    Location loc = first_.getLoc();
    if (narrowing_) {
      Value step = heaviest_.getStep();
      if (!rows_.isDefinedOutsideOfLoop(step)) {
        rewriter.setInsertionPoint(rows_);
        step = rewriter.create<arith::ConstantIndexOp>(loc, *adjit::constantStep(heaviest_));
      }
      narrowing_->rewrite(rewriter, step, rows_);
      first_ = narrowing_->pass();
    }

    // Before the loop: the pass for its first row, if it has rows.
    rewriter.setInsertionPoint(rows_);
    Value lower = rows_.getLowerBound(), upper = rows_.getUpperBound();
    Value any = rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, upper, lower);
    auto firstRow = rewriter.create<scf::IfOp>(loc, first_.getResultTypes(), any,
                                               /*withElseRegion=*/true);
    rewriter.setInsertionPointToStart(firstRow.thenBlock());
    IRMapping firstMapping;
    adjit::cloneRowSlice(rewriter, rows_, slice_, lower, firstMapping);
    Operation *firstPass = rewriter.clone(*first_, firstMapping);
    rewriter.create<scf::YieldOp>(loc, firstPass->getResults());
    rewriter.setInsertionPointToStart(firstRow.elseBlock());
    rewriter.create<scf::YieldOp>(loc, first_.getInitArgs());

    // The row loop carries each row's results from the row before.
    unsigned carried = first_.getNumResults();
    auto rows = cast<scf::ForOp>(
        *rows_.replaceWithAdditionalYields(
            rewriter, firstRow.getResults(), /*replaceInitOperandUsesInLoop=*/false,
            [](OpBuilder &, Location, ArrayRef<BlockArgument> carriedArgs) {
              return SmallVector<Value>(carriedArgs.begin(), carriedArgs.end());
            }));
    rows_ = rows;

    // Before the heaviest pass: the next row, or this one again in the
    // last iteration (whose results nothing uses), and the values for it.
    rewriter.setInsertionPoint(heaviest_);
    Value iv = rows_.getInductionVar();
    Value following = rewriter.create<arith::AddIOp>(loc, iv, rows_.getStep());
    Value next = rewriter.create<arith::SelectOp>(
        loc, rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, following, upper),
        following, iv);
    IRMapping nextRow;
    adjit::cloneRowSlice(rewriter, rows_, slice_, next, nextRow);

    // Each step of the heaviest pass makes the same step of the first pass
    // for the next row.
    auto heaviest = cast<scf::ForOp>(*heaviest_.replaceWithAdditionalYields(
        rewriter, first_.getInitArgs(), /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &b, Location, ArrayRef<BlockArgument> accumulators) {
          // (Called with the body still in the old loop, whose induction
          // variable becomes the new one's.)
          nextRow.map(first_.getInductionVar(), heaviest_.getInductionVar());
          nextRow.map(first_.getRegionIterArgs(), accumulators);
          for (Operation &op : first_.getBody()->without_terminator())
            b.clone(op, nextRow);
          return llvm::map_to_vector(first_.getBody()->getTerminator()->getOperands(),
                                     [&](Value v) { return nextRow.lookupOrDefault(v); });
        }));

    // This row's results come from the loop; the next row's go to it.
    ValueRange current = rows_.getRegionIterArgs().take_back(carried);
    rewriter.replaceOp(first_, current);
    auto yield = cast<scf::YieldOp>(rows_.getBody()->getTerminator());
    unsigned kept = yield.getNumOperands() - carried;
    for (auto [i, result] : llvm::enumerate(heaviest.getResults().take_back(carried)))
      yield->setOperand(kept + i, result);
    adjit::eraseUnusedSlice(slice_);
  }

private:
  scf::ForOp rows_, first_, heaviest_;
  std::optional<ReductionNarrowing> narrowing_;
  SmallVector<Operation *> slice_;
};

struct OverlapRowReductionsPass
    : adjit::impl::OverlapRowReductionsBase<OverlapRowReductionsPass> {
  void runOnOperation() override {
    adjit::forEachLoopInnerFirst(getOperation(), [](scf::ForOp loop) {
      if (RowReductionOverlap overlap(loop); overlap.match())
        overlap.rewrite();
    });
  }
};

} // namespace
