// Lowering of the control-flow ops to scf on tensors. Region bodies move
// into the scf ops unchanged (the enclosing conversion lowers their ops);
// each pattern turns the region's adjit.yield into the scf terminator.
#include "ControlFlowToSCF.h"

#include "adjit/Dialect/AdjitOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::adjit;

namespace {

Value extractScalar(OpBuilder &b, Location loc, Value tensor) {
  return b.create<tensor::ExtractOp>(loc, tensor, ValueRange{});
}

// A loop bound as an index: a constant when the adjit value was one.
Value boundAsIndex(OpBuilder &b, Location loc, Value original, Value converted) {
  DenseIntElementsAttr value;
  if (matchPattern(original, m_Constant(&value)))
    return b.create<arith::ConstantIndexOp>(loc, (*value.begin()).getSExtValue());
  return b.create<arith::IndexCastOp>(loc, b.getIndexType(),
                                      extractScalar(b, loc, converted));
}

// Moves `region`'s only block to the end of `dest`, its arguments standing
// for `arguments`; returns the yield it ended with (now in `dest`).
YieldOp moveBody(ConversionPatternRewriter &rewriter, Region &region, Block *dest,
                 ValueRange arguments) {
  Block &body = region.front();
  auto yield = cast<YieldOp>(body.getTerminator());
  rewriter.mergeBlocks(&body, dest, arguments);
  return yield;
}

// Builds the slice op for row `row` of `stacked` (rank-reduced).
template <class Build>
Value rowOf(OpBuilder &b, Location loc, Value stacked, Value row, Build build) {
  auto type = cast<RankedTensorType>(stacked.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes, strides(type.getRank(), b.getIndexAttr(1));
  offsets[0] = row;
  sizes.push_back(b.getIndexAttr(1));
  for (int64_t d : type.getShape().drop_front())
    sizes.push_back(b.getIndexAttr(d));
  return build(type.clone(type.getShape().drop_front()), offsets, sizes, strides);
}

// Stores the rows a loop body yields into row `row` of `stacks`; returns the
// updated stacks. A row the iteration starts with (a carry the derivative
// keeps) is stored right after `prologueEnd`, before the body's ops: the
// body may then update that carry in place. Others are stored before
// `yield`.
SmallVector<Value> storeRows(ConversionPatternRewriter &rewriter, Location loc, ValueRange rows,
                             ValueRange stacks, Value row, Operation *prologueEnd,
                             Operation *yield) {
  Block *block = yield->getBlock();
  SmallVector<Value> stored;
  for (auto [y, into] : llvm::zip(rows, stacks)) {
    Operation *def = y.getDefiningOp();
    bool atStart = !def || def->getBlock() != block || !prologueEnd->isBeforeInBlock(def);
    if (atStart)
      rewriter.setInsertionPointAfter(prologueEnd);
    else
      rewriter.setInsertionPoint(yield);
    stored.push_back(rowOf(rewriter, loc, into, row, [&](auto type, auto offsets, auto sizes,
                                                         auto strides) {
      return rewriter.create<tensor::InsertSliceOp>(loc, y, into, offsets, sizes, strides);
    }));
  }
  return stored;
}

struct CondToIf : OpConversionPattern<CondOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CondOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto ifOp = rewriter.create<scf::IfOp>(loc, op.getResultTypes(),
                                           extractScalar(rewriter, loc, adaptor.getPred()),
                                           /*withElseRegion=*/true);
    for (auto [from, to] : {std::pair{&op.getThenRegion(), &ifOp.getThenRegion()},
                            std::pair{&op.getElseRegion(), &ifOp.getElseRegion()}}) {
      // Drop the blocks the builder made, to take the branch's own.
      while (!to->empty())
        rewriter.eraseBlock(&to->front());
      Block *block = rewriter.createBlock(to);
      YieldOp yield = moveBody(rewriter, *from, block, adaptor.getInputs());
      rewriter.setInsertionPoint(yield);
      rewriter.replaceOpWithNewOp<scf::YieldOp>(yield, yield.getValues());
    }
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }
};

struct ForToSCF : OpConversionPattern<ForOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ForOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lower = boundAsIndex(rewriter, loc, op.getLower(), adaptor.getLower());
    Value upper = boundAsIndex(rewriter, loc, op.getUpper(), adaptor.getUpper());
    Value zero = rewriter.create<arith::ConstantIndexOp>(loc, 0);
    Value one = rewriter.create<arith::ConstantIndexOp>(loc, 1);
    // Iteration j of [0, upper - lower) runs i = lower + j, or upper - 1 - j
    // in reverse; a stacked value's row is i - lower.
    Value count = rewriter.create<arith::SubIOp>(loc, upper, lower);
    SmallVector<Value> iterArgs(adaptor.getInits());
    for (Value stacked : op.getStackedResults()) {
      auto type = cast<RankedTensorType>(stacked.getType());
      SmallVector<Value> dynamicSizes;
      if (type.isDynamicDim(0))  // the trip count, at least 0
        dynamicSizes.push_back(rewriter.create<arith::MaxSIOp>(loc, count, zero));
      iterArgs.push_back(rewriter.create<tensor::EmptyOp>(loc, type.getShape(),
                                                          type.getElementType(), dynamicSizes));
    }
    auto loop = rewriter.create<scf::ForOp>(loc, zero, count, one, iterArgs);
    Block *block = loop.getBody();
    rewriter.setInsertionPointToStart(block);
    Value j = loop.getInductionVar();
    Value row = op.getReverse()
                    ? rewriter.create<arith::SubIOp>(
                          loc, rewriter.create<arith::SubIOp>(loc, count, one), j)
                    : j;
    Value i = rewriter.create<arith::AddIOp>(loc, lower, row);
    Value counter = rewriter.create<tensor::FromElementsOp>(
        loc, op.getLower().getType(),
        ValueRange{rewriter.create<arith::IndexCastOp>(loc, rewriter.getI32Type(), i)});
    SmallVector<Value> arguments{counter};
    llvm::append_range(arguments, loop.getRegionIterArgs().take_front(op.getNumCarries()));
    for (Value stacked : adaptor.getStacked())
      arguments.push_back(rowOf(rewriter, loc, stacked, row, [&](auto type, auto offsets,
                                                                 auto sizes, auto strides) {
        return rewriter.create<tensor::ExtractSliceOp>(loc, type, stacked, offsets, sizes,
                                                       strides);
      }));
    llvm::append_range(arguments, adaptor.getInvariants());
    // scf.for's builder may have given the body a terminator already.
    if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>())
      rewriter.eraseOp(&block->back());
    Operation *prologueEnd = &block->back();
    YieldOp yield = moveBody(rewriter, op.getBody(), block, arguments);
    SmallVector<Value> next(yield.getValues().take_front(op.getNumCarries()));
    llvm::append_range(next,
                       storeRows(rewriter, loc, yield.getValues().drop_front(op.getNumCarries()),
                                 loop.getRegionIterArgs().drop_front(op.getNumCarries()), row,
                                 prologueEnd, yield));
    rewriter.setInsertionPoint(yield);
    rewriter.replaceOpWithNewOp<scf::YieldOp>(yield, next);
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

// A while loop whose body also yields rows (the derivative's stacks of
// carries) carries, besides its carries, the count of iterations and one
// stack per stacked output, which adjit.reserve_row doubles when full: one
// pass, each row copied once on average.
struct WhileToSCF : OpConversionPattern<WhileOp> {
  using OpConversionPattern::OpConversionPattern;
  // Rows of all stacks that the first buffers hold: about 16 KiB, at least
  // one row, so that short loops of small carries never grow them.
  static constexpr int64_t kInitialStackBytes = 16 << 10;

  LogicalResult matchAndRewrite(WhileOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned numCarries = op.getNumCarries();
    bool stacking = op.getNumResults() > numCarries;
    SmallVector<Value> iterArgs(adaptor.getInits());
    if (stacking) {
      int64_t rowBytes = 0;
      for (Value stacked : op.getStackedResults()) {
        auto type = cast<RankedTensorType>(stacked.getType());
        rowBytes += ShapedType::getNumElements(type.getShape().drop_front()) *
                    std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
      }
      Value capacity = rewriter.create<arith::ConstantIndexOp>(
          loc, std::clamp<int64_t>(kInitialStackBytes / std::max<int64_t>(rowBytes, 1), 1, 1024));
      iterArgs.push_back(rewriter.create<arith::ConstantIndexOp>(loc, 0));
      for (Value stacked : op.getStackedResults())
        iterArgs.push_back(emptyStack(rewriter, loc, stacked.getType(), capacity));
    }
    TypeRange types = ValueRange(iterArgs).getTypes();
    auto loop = rewriter.create<scf::WhileOp>(loc, types, iterArgs);
    SmallVector<Location> locations(types.size(), loc);
    Block *before = rewriter.createBlock(&loop.getBefore(), {}, types, locations);
    SmallVector<Value> arguments(before->getArguments().take_front(numCarries));
    llvm::append_range(arguments, adaptor.getInvariants());
    YieldOp predicate = moveBody(rewriter, op.getCondRegion(), before, arguments);
    rewriter.setInsertionPoint(predicate);
    rewriter.replaceOpWithNewOp<scf::ConditionOp>(
        predicate, extractScalar(rewriter, loc, predicate.getValues()[0]),
        before->getArguments());

    Block *after = rewriter.createBlock(&loop.getAfter(), {}, types, locations);
    ValueRange afterArgs = after->getArguments();
    SmallVector<Value> stacks;
    Value count;
    if (stacking) {
      count = afterArgs[numCarries];
      for (Value stack : afterArgs.drop_front(numCarries + 1))
        stacks.push_back(rewriter.create<ReserveRowOp>(loc, stack, count));
    }
    // The reserve_row ops, when there are stacks, end the prologue.
    Operation *prologueEnd = stacking ? &after->back() : nullptr;
    arguments.assign(afterArgs.begin(), afterArgs.begin() + numCarries);
    llvm::append_range(arguments, adaptor.getInvariants());
    YieldOp next = moveBody(rewriter, op.getBodyRegion(), after, arguments);
    SmallVector<Value> yielded(next.getValues().take_front(numCarries));
    if (stacking) {
      llvm::append_range(yielded, storeRows(rewriter, loc, next.getValues().drop_front(numCarries),
                                            stacks, count, prologueEnd, next));
      rewriter.setInsertionPoint(next);
      Value one = rewriter.create<arith::ConstantIndexOp>(loc, 1);
      yielded.insert(yielded.begin() + numCarries,
                     rewriter.create<arith::AddIOp>(loc, count, one));
    }
    rewriter.setInsertionPoint(next);
    rewriter.replaceOpWithNewOp<scf::YieldOp>(next, yielded);

    // The stacks' first `count` rows are the results.
    rewriter.setInsertionPointAfter(loop);
    SmallVector<Value> results(loop.getResults().take_front(numCarries));
    if (stacking) {
      Value total = loop.getResult(numCarries);
      for (Value buffer : loop.getResults().drop_front(numCarries + 1)) {
        auto type = cast<RankedTensorType>(buffer.getType());
        SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0));
        SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
        SmallVector<OpFoldResult> sizes{total};
        for (int64_t d : type.getShape().drop_front())
          sizes.push_back(rewriter.getIndexAttr(d));
        results.push_back(rewriter.create<tensor::ExtractSliceOp>(loc, type, buffer, offsets,
                                                                   sizes, strides));
      }
    }
    rewriter.replaceOp(op, results);
    return success();
  }

  static Value emptyStack(OpBuilder &b, Location loc, Type type, Value rows) {
    auto tensor = cast<RankedTensorType>(type);
    return b.create<tensor::EmptyOp>(loc, tensor.getShape(), tensor.getElementType(),
                                     ValueRange{rows});
  }
};

} // namespace

void mlir::adjit::populateControlFlowToSCFPatterns(RewritePatternSet &patterns) {
  patterns.add<CondToIf, ForToSCF, WhileToSCF>(patterns.getContext());
}
