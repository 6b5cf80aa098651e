// Bufferization of adjit.reserve_row: the stack's buffer when it has room,
// else a buffer of twice the rows into which the rows are copied. The
// result is equivalent to the operand for One-Shot Bufferize, so that a
// scf.while carrying a stack yields it in place; otherwise the loop would
// copy the whole stack on every iteration. The old buffer is not freed
// here: ownership-based deallocation frees it once the loop stops carrying
// it.
#include "ReserveRowBufferization.h"

#include "adjit/Dialect/AdjitOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::bufferization;

namespace {

// memref.subview of row `row` of `stack`, rank-reduced.
Value rowView(OpBuilder &b, Location loc, Value stack, Value row) {
  auto type = cast<MemRefType>(stack.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes{b.getIndexAttr(1)}, strides(type.getRank(), b.getIndexAttr(1));
  offsets[0] = row;
  for (int64_t d : type.getShape().drop_front())
    sizes.push_back(b.getIndexAttr(d));
  auto rowType = memref::SubViewOp::inferRankReducedResultType(
      type.getShape().drop_front(), type, offsets, sizes, strides);
  return b.create<memref::SubViewOp>(loc, cast<MemRefType>(rowType), stack, offsets, sizes,
                                     strides);
}

struct ReserveRowModel
    : public BufferizableOpInterface::ExternalModel<ReserveRowModel, adjit::ReserveRowOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &, const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &, const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *op, OpOperand &operand,
                                      const AnalysisState &) const {
    if (operand.getOperandNumber() != 0)
      return {};
    return {{op->getResult(0), BufferRelation::Equivalent, /*isDefinite=*/false}};
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options) const {
    auto reserve = cast<adjit::ReserveRowOp>(op);
    Location loc = op->getLoc();
    FailureOr<Value> stack = getBuffer(rewriter, reserve.getStack(), options);
    if (failed(stack))
      return failure();
    auto type = cast<MemRefType>(stack->getType());
    Value zero = rewriter.create<arith::ConstantIndexOp>(loc, 0);
    Value one = rewriter.create<arith::ConstantIndexOp>(loc, 1);
    Value rows = rewriter.create<memref::DimOp>(loc, *stack, zero);
    Value full = rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::uge,
                                                reserve.getCount(), rows);
    auto grow = rewriter.create<scf::IfOp>(loc, TypeRange{type}, full, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&grow.getThenRegion().front());
      Value doubled = rewriter.create<arith::MaxUIOp>(
          loc, rewriter.create<arith::AddIOp>(loc, rows, rows), one);
      auto grownType = MemRefType::get(type.getShape(), type.getElementType());
      FailureOr<Value> grown = options.createAlloc(rewriter, loc, grownType, ValueRange{doubled});
      if (failed(grown))
        return failure();
      // Row by row: copies of static shape (the row count, defined inside a
      // loop, could not bound the affine loops of one whole copy).
      LogicalResult copied = success();
      rewriter.create<scf::ForOp>(
          loc, zero, rows, one, ValueRange(),
          [&](OpBuilder &b, Location loc, Value row, ValueRange) {
            copied = options.createMemCpy(b, loc, rowView(b, loc, *stack, row),
                                          rowView(b, loc, *grown, row));
            b.create<scf::YieldOp>(loc);
          });
      if (failed(copied))
        return failure();
      Value result = *grown;
      if (grownType != type)
        result = rewriter.create<memref::CastOp>(loc, type, result);
      rewriter.create<scf::YieldOp>(loc, result);
      rewriter.setInsertionPointToStart(&grow.getElseRegion().front());
      rewriter.create<scf::YieldOp>(loc, *stack);
    }
    replaceOpWithBufferizedValues(rewriter, op, grow.getResults());
    return success();
  }
};

} // namespace

void mlir::adjit::registerReserveRowBufferization(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, AdjitDialect *) {
    ReserveRowOp::attachInterface<ReserveRowModel>(*context);
  });
}
