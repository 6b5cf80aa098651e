#ifndef ADJIT_DIFFERENTIABLE_OP_INTERFACE_TD
#define ADJIT_DIFFERENTIABLE_OP_INTERFACE_TD

include "mlir/IR/OpBase.td"

def DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::mlir::adjit";
  let description = [{
    The derivative rules of an op, used by `adjit-differentiate`. The driver
    never names an op: every op it differentiates implements this interface
    (directly, or through an external model for upstream ops such as
    `func.call`), and an op with regions supplies its rule the same way,
    using the driver's services in `DerivativeContext`.

    Rules emit ops of the `adjit` dialect, so derivatives are differentiable
    again. A null cotangent or tangent stands for zero.
  }];
  let methods = [
    InterfaceMethod<[{
        Reverse mode: given one cotangent per result (null = zero, at least
        one non-null), append one cotangent per operand to
        `operandCotangents` (null where nothing flows to that operand).
      }], "::mlir::LogicalResult", "buildVJP",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ValueRange":$resultCotangents,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandCotangents,
           "::mlir::adjit::DerivativeContext &":$context)>,
    InterfaceMethod<[{
        Forward mode: given one tangent per operand (null = zero, at least
        one non-null), append one tangent per result to `resultTangents`
        (null = zero).
      }], "::mlir::LogicalResult", "buildJVP",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ValueRange":$operandTangents,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$resultTangents,
           "::mlir::adjit::DerivativeContext &":$context)>,
  ];
}

// Ops whose results carry no derivative (booleans, indices): the AD pass
// treats their results as constants. Explicit, so that a forgotten rule is
// an error rather than a silent zero.
def NotDifferentiable : NativeOpTrait<"NotDifferentiable"> {
  let cppNamespace = "::mlir::adjit";
}

#endif
