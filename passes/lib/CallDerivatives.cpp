// Derivative rules of func.call, attached as an external model: a call is
// differentiated by calling the derived function of its callee.
#include "adjit/Passes/CallDerivatives.h"

#include "adjit/Dialect/AdjitOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::adjit;

namespace {

Value zerosOf(OpBuilder &b, Location loc, Type type) {
  auto tensor = cast<RankedTensorType>(type);
  Type element = tensor.getElementType();
  Attribute zero = isa<FloatType>(element) ? Attribute(b.getFloatAttr(element, 0))
                                           : Attribute(b.getIntegerAttr(element, 0));
  return b.create<ConstantOp>(loc, tensor, DenseElementsAttr::get(tensor, zero));
}

struct CallOpDerivatives
    : DifferentiableOpInterface::ExternalModel<CallOpDerivatives, func::CallOp> {
  static func::FuncOp calleeOf(func::CallOp call) {
    return SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
  }

  LogicalResult buildVJP(Operation *op, OpBuilder &b, ValueRange cotangents,
                         SmallVectorImpl<Value> &operandCotangents,
                         DerivativeContext &context) const {
    auto call = cast<func::CallOp>(op);
    FailureOr<func::FuncOp> reverse = context.reverseFunction(calleeOf(call));
    if (failed(reverse))
      return failure();
    SmallVector<Value> operands(call.getOperands());
    for (auto [ct, result] : llvm::zip(cotangents, call.getResults()))
      operands.push_back(ct ? ct : zerosOf(b, op->getLoc(), result.getType()));
    auto derived = b.create<func::CallOp>(op->getLoc(), *reverse, operands);
    llvm::append_range(operandCotangents, derived.getResults().drop_front(call.getNumResults()));
    return success();
  }

  LogicalResult buildJVP(Operation *op, OpBuilder &b, ValueRange tangents,
                         SmallVectorImpl<Value> &resultTangents,
                         DerivativeContext &context) const {
    auto call = cast<func::CallOp>(op);
    FailureOr<func::FuncOp> forward = context.forwardFunction(calleeOf(call));
    if (failed(forward))
      return failure();
    SmallVector<Value> operands(call.getOperands());
    for (auto [t, operand] : llvm::zip(tangents, call.getOperands()))
      operands.push_back(t ? t : zerosOf(b, op->getLoc(), operand.getType()));
    auto derived = b.create<func::CallOp>(op->getLoc(), *forward, operands);
    llvm::append_range(resultTangents, derived.getResults().drop_front(call.getNumResults()));
    return success();
  }
};

} // namespace

void mlir::adjit::registerCallDerivatives(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, func::FuncDialect *) {
    func::CallOp::attachInterface<CallOpDerivatives>(*context);
  });
}
