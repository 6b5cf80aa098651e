// Canonicalization of adjit.for and adjit.while: values a loop carries,
// stacks or takes that nothing needs are dropped, and values that do not
// change from one iteration to the next become invariants. Reverse-mode AD
// stacks every carry of a loop for its adjoint and hands it a stack of
// zeros for each unused stacked output; without these patterns the loop
// would copy every carry into its stack and read the zeros on every
// iteration.
#include "adjit/Dialect/AdjitOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::adjit;

namespace {

// Block argument positions of a loop body: i, carries, rows, invariants.
unsigned carryArg(unsigned carry) { return 1 + carry; }
unsigned firstRowArg(ForOp loop) { return 1 + loop.getNumCarries(); }
unsigned firstInvariantArg(ForOp loop) { return firstRowArg(loop) + loop.getStacked().size(); }

template <typename Range>
SmallVector<Value> kept(Range values, const llvm::BitVector &dropped, unsigned offset = 0) {
  SmallVector<Value> result;
  for (auto [i, v] : llvm::enumerate(values))
    if (!dropped.test(offset + i))
      result.push_back(v);
  return result;
}

// Replaces `loop` by a loop without the block arguments (with their
// operands) and results marked dropped, and with `extraInvariants` after
// its invariants. `useExtraArgs` gets the new body's arguments for them
// and must leave the dropped arguments unused, apart from `deadOps`, which
// are erased once the yield no longer hands over the dropped results.
// Dropped results must be unused.
void rebuildLoop(PatternRewriter &rewriter, ForOp loop, const llvm::BitVector &droppedArgs,
                 const llvm::BitVector &droppedResults, ArrayRef<Operation *> deadOps = {},
                 ValueRange extraInvariants = {},
                 llvm::function_ref<void(ValueRange)> useExtraArgs = nullptr) {
  Block &body = loop.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  SmallVector<Type> types;
  for (auto [i, result] : llvm::enumerate(loop.getResults())) {
    assert((!droppedResults.test(i) || result.use_empty()) && "dropping a result in use");
    if (!droppedResults.test(i))
      types.push_back(result.getType());
  }
  SmallVector<Value> invariants = kept(loop.getInvariants(), droppedArgs, firstInvariantArg(loop));
  llvm::append_range(invariants, extraInvariants);
  std::optional<int64_t> checkpointEvery;
  if (IntegerAttr attr = loop.getCheckpointEveryAttr())
    checkpointEvery = attr.getInt();
  rewriter.setInsertionPoint(loop);
  auto replacement = rewriter.create<ForOp>(
      loop.getLoc(), types, loop.getLower(), loop.getUpper(),
      kept(loop.getInits(), droppedArgs, carryArg(0)),
      kept(loop.getStacked(), droppedArgs, firstRowArg(loop)), invariants, loop.getReverse(),
      checkpointEvery);
  rewriter.inlineRegionBefore(loop.getBody(), replacement.getBody(), replacement.getBody().end());
  SmallVector<Value> extraArgs;
  for (Value v : extraInvariants)
    extraArgs.push_back(body.addArgument(v.getType(), v.getLoc()));
  if (useExtraArgs)
    useExtraArgs(extraArgs);
  rewriter.setInsertionPoint(yield);
  rewriter.replaceOpWithNewOp<YieldOp>(yield, kept(yield.getValues(), droppedResults));
  for (Operation *op : llvm::reverse(deadOps))
    rewriter.eraseOp(op);
  llvm::BitVector allDropped(droppedArgs);
  allDropped.resize(body.getNumArguments());
  rewriter.modifyOpInPlace(replacement, [&] { body.eraseArguments(allDropped); });
  unsigned next = 0;
  for (auto [i, result] : llvm::enumerate(loop.getResults()))
    if (!droppedResults.test(i))
      rewriter.replaceAllUsesWith(result, replacement.getResult(next++));
  rewriter.eraseOp(loop);
}

// Collects the ops of `body` that only compute, from `seeds`, values its
// terminator hands over at positions in `deadYields`, in block order;
// false when one of their values reaches anything else or one of them has
// a side effect.
bool deadSlice(Block &body, ArrayRef<BlockArgument> seeds, const llvm::BitVector &deadYields,
               SmallVectorImpl<Operation *> &slice) {
  llvm::SetVector<Operation *> ops;
  SmallVector<Value> worklist(seeds.begin(), seeds.end());
  Operation *terminator = body.getTerminator();
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      if (use.getOwner() == terminator) {
        if (!deadYields.test(use.getOperandNumber()))
          return false;
        continue;
      }
      // A use inside an op's region makes that op a reader.
      Operation *user = body.findAncestorOpInBlock(*use.getOwner());
      if (!isMemoryEffectFree(user))
        return false;
      if (ops.insert(user))
        llvm::append_range(worklist, user->getResults());
    }
  }
  slice.assign(ops.begin(), ops.end());
  llvm::sort(slice, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return true;
}

// Drops stacked outputs nobody reads, stacked inputs and invariants the
// body does not read, and carries whose final value is unused and which
// feed nothing but each other. The body's ops that only computed dropped
// values go with them.
struct DropUnusedLoopValues : OpRewritePattern<ForOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ForOp loop, PatternRewriter &rewriter) const override {
    Block &body = loop.getBody().front();
    unsigned numCarries = loop.getNumCarries();
    // Positions among the results, which are those of the yield's operands.
    llvm::BitVector droppedResults(loop.getNumResults());
    for (OpResult result : loop.getResults())
      droppedResults[result.getResultNumber()] = result.use_empty();
    // A carry whose result is unused stays when its argument reaches a
    // yield that stays; carries can feed each other, so retest until none
    // changes.
    for (bool changed = true; changed;) {
      changed = false;
      for (unsigned c = 0; c < numCarries; ++c) {
        SmallVector<Operation *> slice;
        if (droppedResults[c] && !deadSlice(body, body.getArgument(carryArg(c)), droppedResults,
                                            slice)) {
          droppedResults.reset(c);
          changed = true;
        }
      }
    }
    llvm::BitVector droppedArgs(body.getNumArguments());
    SmallVector<BlockArgument> deadCarries;
    for (unsigned c = 0; c < numCarries; ++c)
      if (droppedResults[c]) {
        droppedArgs.set(carryArg(c));
        deadCarries.push_back(body.getArgument(carryArg(c)));
      }
    SmallVector<Operation *> deadOps;
    if (!deadSlice(body, deadCarries, droppedResults, deadOps))
      return failure(); // each carry's slice was dead on its own
    for (unsigned a = firstRowArg(loop); a < body.getNumArguments(); ++a)
      droppedArgs[a] = body.getArgument(a).use_empty();
    if (droppedResults.none() && droppedArgs.none())
      return failure();
    rebuildLoop(rewriter, loop, droppedArgs, droppedResults, deadOps);
    return success();
  }
};

// A stacked output yielding the same value as an earlier one is that one;
// a stacked input that is an earlier one is read through that one's row.
struct MergeDuplicateStacks : OpRewritePattern<ForOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ForOp loop, PatternRewriter &rewriter) const override {
    Block &body = loop.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    bool changed = false;
    for (unsigned r = loop.getNumCarries(); r < loop.getNumResults(); ++r)
      for (unsigned earlier = loop.getNumCarries(); earlier < r; ++earlier)
        if (yield.getValues()[r] == yield.getValues()[earlier] && !loop.getResult(r).use_empty()) {
          rewriter.replaceAllUsesWith(loop.getResult(r), loop.getResult(earlier));
          changed = true;
          break;
        }
    OperandRange stacked = loop.getStacked();
    for (unsigned s = 0; s < stacked.size(); ++s)
      for (unsigned earlier = 0; earlier < s; ++earlier) {
        BlockArgument row = body.getArgument(firstRowArg(loop) + s);
        if (stacked[s] == stacked[earlier] && !row.use_empty()) {
          rewriter.replaceAllUsesWith(row, body.getArgument(firstRowArg(loop) + earlier));
          changed = true;
          break;
        }
      }
    // DropUnusedLoopValues then removes what is left unused.
    return success(changed);
  }
};

// A stacked input that is a splat constant has the same row every
// iteration: the body uses that row as a constant.
struct ConstantRowsIntoBody : OpRewritePattern<ForOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ForOp loop, PatternRewriter &rewriter) const override {
    Block &body = loop.getBody().front();
    bool changed = false;
    for (auto [s, stacked] : llvm::enumerate(loop.getStacked())) {
      BlockArgument row = body.getArgument(firstRowArg(loop) + s);
      SplatElementsAttr splat;
      if (row.use_empty() || !matchPattern(stacked, m_Constant(&splat)))
        continue;
      rewriter.setInsertionPointToStart(&body);
      auto rowType = cast<ShapedType>(row.getType());
      Value constant = rewriter.create<ConstantOp>(
          row.getLoc(), DenseElementsAttr::get(rowType, splat.getSplatValue<Attribute>()));
      rewriter.replaceAllUsesWith(row, constant);
      changed = true;
    }
    return success(changed);
  }
};

// A carry the body yields unchanged is an invariant, and its final value
// is its initial one. AD then reads it once instead of stacking a copy per
// iteration.
struct UnchangedCarriesToInvariants : OpRewritePattern<ForOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ForOp loop, PatternRewriter &rewriter) const override {
    Block &body = loop.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    llvm::BitVector droppedArgs(body.getNumArguments()), droppedResults(loop.getNumResults());
    SmallVector<Value> invariants;
    SmallVector<BlockArgument> carries;
    for (unsigned c = 0; c < loop.getNumCarries(); ++c) {
      BlockArgument carry = body.getArgument(carryArg(c));
      if (yield.getValues()[c] != carry)
        continue;
      rewriter.replaceAllUsesWith(loop.getResult(c), loop.getInits()[c]);
      droppedArgs.set(carryArg(c));
      droppedResults.set(c);
      invariants.push_back(loop.getInits()[c]);
      carries.push_back(carry);
    }
    if (invariants.empty())
      return failure();
    rebuildLoop(rewriter, loop, droppedArgs, droppedResults, {}, invariants,
                [&](ValueRange invariantArgs) {
                  for (auto [carry, invariant] : llvm::zip(carries, invariantArgs))
                    rewriter.replaceAllUsesWith(carry, invariant);
                });
    return success();
  }
};

// Drops the stacked outputs of a while loop that nobody reads (the
// reverse loop of its derivative reads only some of the carries it keeps).
struct DropUnusedWhileStacks : OpRewritePattern<WhileOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(WhileOp loop, PatternRewriter &rewriter) const override {
    unsigned numCarries = loop.getNumCarries();
    SmallVector<unsigned> keptResults;
    for (OpResult result : loop.getResults())
      if (result.getResultNumber() < numCarries || !result.use_empty())
        keptResults.push_back(result.getResultNumber());
    if (keptResults.size() == loop.getNumResults())
      return failure();
    auto yield = cast<YieldOp>(loop.getBodyRegion().front().getTerminator());
    SmallVector<Type> types;
    SmallVector<Value> yielded;
    for (unsigned r : keptResults) {
      types.push_back(loop.getResult(r).getType());
      yielded.push_back(yield.getValues()[r]);
    }
    auto replacement = rewriter.create<WhileOp>(loop.getLoc(), types, loop.getInits(),
                                                loop.getInvariants());
    replacement.setCheckpointEveryAttr(loop.getCheckpointEveryAttr());
    rewriter.inlineRegionBefore(loop.getCondRegion(), replacement.getCondRegion(),
                                replacement.getCondRegion().end());
    rewriter.inlineRegionBefore(loop.getBodyRegion(), replacement.getBodyRegion(),
                                replacement.getBodyRegion().end());
    rewriter.modifyOpInPlace(yield, [&] { yield.getValuesMutable().assign(yielded); });
    SmallVector<Value> results(loop.getNumResults());
    for (auto [i, r] : llvm::enumerate(keptResults))
      results[r] = replacement.getResult(i);
    rewriter.replaceOp(loop, results);
    return success();
  }
};

} // namespace

void WhileOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<DropUnusedWhileStacks>(context);
}

void ForOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<DropUnusedLoopValues, MergeDuplicateStacks, ConstantRowsIntoBody,
               UnchangedCarriesToInvariants>(context);
}
