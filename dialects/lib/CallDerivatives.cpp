// Derivative rules of func.call, attached as an external model: a call is
// differentiated by calling the derived function of its callee.
#include "adjit/Dialect/AdjitOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::adjit;

namespace {

// Which of `derivatives` (one per result or operand, null = zero) are
// given; the given ones are appended to `operands`: the derived function
// takes those alone.
SmallVector<bool> appendGiven(ValueRange derivatives, SmallVectorImpl<Value> &operands) {
  SmallVector<bool> given;
  for (Value d : derivatives) {
    given.push_back(static_cast<bool>(d));
    if (d)
      operands.push_back(d);
  }
  return given;
}

struct CallOpDerivatives
    : DifferentiableOpInterface::ExternalModel<CallOpDerivatives, func::CallOp> {
  static func::FuncOp calleeOf(func::CallOp call) {
    return SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
  }

  static func::FuncOp customRule(func::CallOp call, func::FuncOp callee, StringRef attrName) {
    auto name = callee->getAttrOfType<FlatSymbolRefAttr>(attrName);
    return name ? SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, name) : func::FuncOp();
  }

  // The call's operands: its callee's n inputs, values the callee captured,
  // then those its backward function captured, then those its tangent
  // function captured. Returns the counts of the last two.
  static FailureOr<std::pair<int64_t, int64_t>> customCaptures(func::CallOp call,
                                                               func::FuncOp callee, int64_t &n) {
    auto numInputs = callee->getAttrOfType<IntegerAttr>(kCustomVJPInputsAttrName);
    func::FuncOp backward = customRule(call, callee, kCustomVJPAttrName);
    func::FuncOp tangent = customRule(call, callee, kCustomJVPAttrName);
    int64_t m = call.getNumResults();
    n = numInputs ? numInputs.getInt() : -1;
    int64_t backwardCaptures = backward ? backward.getNumArguments() - n - 2 * m : -1;
    int64_t tangentCaptures = tangent ? tangent.getNumArguments() - 2 * n - m : 0;
    bool tangentNamed = callee->hasAttr(kCustomJVPAttrName);
    if (n < 0 || backwardCaptures < 0 || tangentCaptures < 0 || (tangentNamed && !tangent) ||
        n + backwardCaptures + tangentCaptures > call.getNumOperands())
      return call.emitError() << "custom rules of '" << callee.getSymName() << "' are malformed";
    return std::make_pair(backwardCaptures, tangentCaptures);
  }

  // A function traced by adjit::custom_gradient names its backward function:
  // (inputs..., results..., cotangents..., captured values...) -> one
  // cotangent per input.
  static LogicalResult buildCustomVJP(func::CallOp call, func::FuncOp callee, OpBuilder &b,
                                      ValueRange cotangents,
                                      SmallVectorImpl<Value> &operandCotangents) {
    int64_t n;
    auto captures = customCaptures(call, callee, n);
    if (failed(captures))
      return failure();
    auto [backwardCaptures, tangentCaptures] = *captures;
    SmallVector<Value> operands(call.getOperands().take_front(n));
    llvm::append_range(operands, call.getResults());
    for (auto [ct, result] : llvm::zip(cotangents, call.getResults()))
      operands.push_back(orZeros(b, call.getLoc(), ct, result.getType()));
    llvm::append_range(operands, call.getOperands()
                                     .drop_back(tangentCaptures)
                                     .take_back(backwardCaptures));
    auto grads = b.create<func::CallOp>(call.getLoc(),
                                        customRule(call, callee, kCustomVJPAttrName), operands);
    llvm::append_range(operandCotangents, grads.getResults());
    // Closed-over values are constants to the user's rule.
    operandCotangents.append(call.getNumOperands() - n, Value());
    return success();
  }

  // ... and optionally its tangent function: (inputs..., results..., input
  // tangents..., captured values...) -> one tangent per result.
  static LogicalResult buildCustomJVP(func::CallOp call, func::FuncOp callee, OpBuilder &b,
                                      ValueRange tangents,
                                      SmallVectorImpl<Value> &resultTangents) {
    int64_t n;
    auto captures = customCaptures(call, callee, n);
    if (failed(captures))
      return failure();
    SmallVector<Value> operands(call.getOperands().take_front(n));
    llvm::append_range(operands, call.getResults());
    for (auto [t, input] : llvm::zip(tangents.take_front(n), call.getOperands().take_front(n)))
      operands.push_back(orZeros(b, call.getLoc(), t, input.getType()));
    llvm::append_range(operands, call.getOperands().take_back(captures->second));
    auto derived = b.create<func::CallOp>(call.getLoc(),
                                          customRule(call, callee, kCustomJVPAttrName), operands);
    llvm::append_range(resultTangents, derived.getResults());
    return success();
  }

  LogicalResult buildVJP(Operation *op, OpBuilder &b, ValueRange cotangents,
                         SmallVectorImpl<Value> &operandCotangents,
                         DerivativeContext &context) const {
    auto call = cast<func::CallOp>(op);
    if (calleeOf(call)->hasAttr(kCustomVJPAttrName))
      return buildCustomVJP(call, calleeOf(call), b, cotangents, operandCotangents);
    SmallVector<Value> operands(call.getOperands());
    // A checkpoint's recomputation reads its inputs through a barrier, so
    // that once inlined it is not merged back into the forward pass.
    if (call->hasAttr(kCheckpointAttrName) && !operands.empty()) {
      auto barrier = b.create<OptimizationBarrierOp>(op->getLoc(), operands);
      operands.assign(barrier->result_begin(), barrier->result_end());
    }
    SmallVector<bool> given = appendGiven(cotangents, operands);
    FailureOr<func::FuncOp> reverse = context.reverseFunction(calleeOf(call), given);
    if (failed(reverse))
      return failure();
    auto derived = b.create<func::CallOp>(op->getLoc(), *reverse, operands);
    llvm::append_range(operandCotangents, derived.getResults().drop_front(call.getNumResults()));
    return success();
  }

  LogicalResult buildJVP(Operation *op, OpBuilder &b, ValueRange tangents,
                         SmallVectorImpl<Value> &resultTangents,
                         DerivativeContext &context) const {
    // Without a tangent rule, a custom gradient is a reverse-mode rule:
    // forward mode differentiates the forward function as written (as JAX's
    // jvp of a custom_vjp's forward rule), which is what forward-over-reverse
    // (hvp) needs.
    auto call = cast<func::CallOp>(op);
    if (calleeOf(call)->hasAttr(kCustomJVPAttrName))
      return buildCustomJVP(call, calleeOf(call), b, tangents, resultTangents);
    SmallVector<Value> operands(call.getOperands());
    SmallVector<bool> given = appendGiven(tangents, operands);
    FailureOr<func::FuncOp> forward = context.forwardFunction(calleeOf(call), given);
    if (failed(forward))
      return failure();
    auto derived = b.create<func::CallOp>(op->getLoc(), *forward, operands);
    llvm::append_range(resultTangents, derived.getResults().drop_front(call.getNumResults()));
    return success();
  }
};

} // namespace

void mlir::adjit::registerDerivativeRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, func::FuncDialect *) {
    func::CallOp::attachInterface<CallOpDerivatives>(*context);
  });
}
