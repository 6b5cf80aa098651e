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

  // A function traced by adjit::custom_gradient names its backward function,
  // (inputs..., results..., cotangents..., captured values...) -> one
  // cotangent per input, and optionally its tangent function, (inputs...,
  // results..., input tangents..., captured values...) -> one tangent per
  // result. A call's operands are the callee's inputs, values the callee
  // captured, then those the backward function captured, then those the
  // tangent function captured.
  struct CustomRules {
    func::FuncOp backward, tangent;
    int64_t inputs;
    ValueRange backwardCaptures, tangentCaptures;
  };

  static FailureOr<CustomRules> customRules(func::CallOp call, func::FuncOp callee) {
    auto numInputs = callee->getAttrOfType<IntegerAttr>(kCustomVJPInputsAttrName);
    func::FuncOp backward = customRule(call, callee, kCustomVJPAttrName);
    func::FuncOp tangent = customRule(call, callee, kCustomJVPAttrName);
    int64_t m = call.getNumResults(), n = numInputs ? numInputs.getInt() : -1;
    int64_t backwardCaptures = backward ? backward.getNumArguments() - n - 2 * m : -1;
    int64_t tangentCaptures = tangent ? tangent.getNumArguments() - 2 * n - m : 0;
    bool tangentNamed = callee->hasAttr(kCustomJVPAttrName);
    if (n < 0 || backwardCaptures < 0 || tangentCaptures < 0 || (tangentNamed && !tangent) ||
        n + backwardCaptures + tangentCaptures > call.getNumOperands())
      return call.emitError() << "custom rules of '" << callee.getSymName() << "' are malformed";
    OperandRange operands = call.getOperands();
    return CustomRules{backward, tangent, n,
                       operands.drop_back(tangentCaptures).take_back(backwardCaptures),
                       operands.take_back(tangentCaptures)};
  }

  // Calls `rule` on (inputs..., results..., `derivatives` (zeros of `like`'s
  // types where null)..., `captured`...).
  static func::CallOp callRule(OpBuilder &b, func::CallOp call, func::FuncOp rule, int64_t inputs,
                               ValueRange derivatives, ValueRange like, ValueRange captured) {
    SmallVector<Value> operands(call.getOperands().take_front(inputs));
    llvm::append_range(operands, call.getResults());
    for (auto [derivative, value] : llvm::zip(derivatives, like))
      operands.push_back(orZeros(b, call.getLoc(), derivative, value.getType()));
    llvm::append_range(operands, captured);
    return b.create<func::CallOp>(call.getLoc(), rule, operands);
  }

  // A custom rule gives derivatives for the inputs alone: a value that the
  // forward function captured and whose derivative is asked for (it depends
  // on a differentiated input, `differentiated`) would silently get none.
  // JAX's custom_vjp refuses such a closure too.
  static LogicalResult refuseDifferentiatedCaptures(func::CallOp call,
                                                    const CustomRules &rules, StringRef rule,
                                                    function_ref<bool(unsigned)> differentiated) {
    unsigned end = call.getNumOperands() - rules.backwardCaptures.size() -
                   rules.tangentCaptures.size();
    for (unsigned i = rules.inputs; i < end; ++i)
      if (differentiated(i))
        return call.emitError()
               << "custom_gradient: its forward function captured a "
               << call.getOperand(i).getType()
               << " that is differentiated here, but its " << rule
               << " rule gives derivatives for its inputs only; pass that Tensor as an input "
                  "(a parameter of every rule) instead of capturing it";
    return success();
  }

  static LogicalResult buildCustomVJP(func::CallOp call, func::FuncOp callee, OpBuilder &b,
                                      ValueRange cotangents,
                                      SmallVectorImpl<Value> &operandCotangents,
                                      DerivativeContext &context) {
    FailureOr<CustomRules> rules = customRules(call, callee);
    if (failed(rules) ||
        failed(refuseDifferentiatedCaptures(call, *rules, "backward", [&](unsigned i) {
          return context.needsCotangent(call.getOperand(i));
        })))
      return failure();
    func::CallOp grads = callRule(b, call, rules->backward, rules->inputs, cotangents,
                                  call.getResults(), rules->backwardCaptures);
    llvm::append_range(operandCotangents, grads.getResults());
    // Closed-over values not differentiated (or read by the rules alone).
    operandCotangents.append(call.getNumOperands() - rules->inputs, Value());
    return success();
  }

  static LogicalResult buildCustomJVP(func::CallOp call, func::FuncOp callee, OpBuilder &b,
                                      ValueRange tangents,
                                      SmallVectorImpl<Value> &resultTangents) {
    FailureOr<CustomRules> rules = customRules(call, callee);
    if (failed(rules) ||
        failed(refuseDifferentiatedCaptures(call, *rules, "tangent",
                                            [&](unsigned i) { return bool(tangents[i]); })))
      return failure();
    ValueRange inputs = call.getOperands().take_front(rules->inputs);
    func::CallOp derived = callRule(b, call, rules->tangent, rules->inputs,
                                    tangents.take_front(rules->inputs), inputs,
                                    rules->tangentCaptures);
    llvm::append_range(resultTangents, derived.getResults());
    return success();
  }

  LogicalResult buildVJP(Operation *op, OpBuilder &b, ValueRange cotangents,
                         SmallVectorImpl<Value> &operandCotangents,
                         DerivativeContext &context) const {
    auto call = cast<func::CallOp>(op);
    if (calleeOf(call)->hasAttr(kCustomVJPAttrName))
      return buildCustomVJP(call, calleeOf(call), b, cotangents, operandCotangents, context);
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
