#ifndef ADJIT_INTERFACES_TD
#define ADJIT_INTERFACES_TD

// The dialect's op interfaces; docs/reference/AdjitInterfaces.md is
// generated from this file.

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

def ElementwiseOpInterface : OpInterface<"ElementwiseOpInterface"> {
  let cppNamespace = "::mlir::adjit";
  let description = [{
    An op that applies one scalar function to the elements at the same index
    of its operands, which all have the result's shape. The op states that
    function once, on scalars, with `arith` and `math` ops (`emitScalar`);
    `adjit-lower-to-linalg` wraps it in a `linalg.generic` with identity
    maps. The lowering names no op: a new elementwise op needs its ODS
    entry (with this interface), its scalar rule, its derivative rule and
    its tests, and no list kept by hand.
  }];
  let methods = [
    InterfaceMethod<[{
        The result element computed from one element of each operand, in
        operand order. When `widensHalfPrecision()` is true, f16 and bf16
        operands arrive widened to f32 and the caller rounds the result back
        to the result's element type once.
      }], "::mlir::Value", "emitScalar",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "::mlir::ValueRange":$operands)>,
    InterfaceMethod<[{
        Whether half-precision math is done in f32 and rounded once, as XLA
        does. False for ops that only choose or convert values (select,
        convert), whose rules see the operands as they are.
      }], "bool", "widensHalfPrecision", (ins), "",
      [{ return true; }]>,
  ];
}

def CompositeOpInterface : OpInterface<"CompositeOpInterface"> {
  let cppNamespace = "::mlir::adjit";
  let description = [{
    An op that stands for a formula of other adjit ops (as `adjit.gelu`), so
    that it can have a derivative rule of its own: a closed form that the
    derivative of the formula's ops would not reach, and residuals that are
    the op's operands only, as PyTorch's fused activations keep.
    `adjit-expand-composites` replaces it by its formula once the program is
    differentiated; written with the same helpers as its derivative rule,
    the formula's subexpressions (a `tanh`) are then shared with the
    derivative's by CSE.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds the op's formula from other adjit ops at the builder's
        insertion point and returns its result (the op's one result).
      }], "::mlir::Value", "expand", (ins "::mlir::OpBuilder &":$builder)>,
  ];
}

#endif
