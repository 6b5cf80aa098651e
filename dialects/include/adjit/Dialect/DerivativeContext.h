#ifndef ADJIT_DIALECT_DERIVATIVECONTEXT_H
#define ADJIT_DIALECT_DERIVATIVECONTEXT_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::func {
class FuncOp;
}

namespace mlir::adjit {

/// What the AD driver offers to derivative rules that need more than local
/// algebra: calls and ops with regions differentiate whole bodies.
class DerivativeContext {
 public:
  virtual ~DerivativeContext() = default;

  /// `(args..., cotangents of the results `given`...) -> (results..., arg
  /// cotangents...)`: the reverse-mode derivative of `callee` with respect
  /// to every argument (integer arguments get zero cotangents). `given` has
  /// one flag per result: the others' cotangents are zero and take no part
  /// (no 0 * inf = NaN from a zero cotangent times an infinite partial, as
  /// JAX's symbolic zeros).
  virtual FailureOr<func::FuncOp> reverseFunction(func::FuncOp callee, ArrayRef<bool> given) = 0;

  /// `(args..., tangents of the args `given`...) -> (results..., result
  /// tangents...)`: the forward-mode derivative of `callee`, the other
  /// arguments' tangents zero (and taking no part).
  virtual FailureOr<func::FuncOp> forwardFunction(func::FuncOp callee, ArrayRef<bool> given) = 0;

  /// Reverse mode over one block, for ops with regions: clones `body`'s ops
  /// at `builder` with its arguments standing for `arguments`, then appends
  /// their adjoint for `resultCotangents` (one per value of the terminator;
  /// null = zero). `results` gets the clones of the terminator's values;
  /// `argumentCotangents` one cotangent per argument (null where nothing
  /// flows or `needed` is false; a value passed twice gets it once).
  /// `primalClones`, when given, maps `body`'s ops and values to their
  /// clones (rules may insert more ops among them).
  virtual LogicalResult reverseBlock(OpBuilder &builder, Block &body, ValueRange arguments,
                                     ArrayRef<bool> needed, ValueRange resultCotangents,
                                     SmallVectorImpl<Value> &results,
                                     SmallVectorImpl<Value> &argumentCotangents,
                                     IRMapping *primalClones = nullptr) = 0;

  /// Forward mode over one block: clones `body`'s ops at `builder` with
  /// their tangents (`argumentTangents`: one per argument, null = zero).
  /// `resultTangents` gets one tangent per terminator value (null = zero).
  virtual LogicalResult forwardBlock(OpBuilder &builder, Block &body, ValueRange arguments,
                                     ValueRange argumentTangents, SmallVectorImpl<Value> &results,
                                     SmallVectorImpl<Value> &resultTangents) = 0;

  /// Reverse mode: whether `operand` of the op being differentiated needs a
  /// cotangent (it depends on a differentiated input).
  virtual bool needsCotangent(Value operand) = 0;

  /// Replaces the results of `op`, which a rule is differentiating, by
  /// `values` computed by a derived op that yields them as well (a loop
  /// that also stacks its carries), so the primal work is done once.
  virtual void replacePrimal(Operation *op, ValueRange values) = 0;
};

/// Marks ops whose results have no derivative (see NotDifferentiable in ODS).
template <typename ConcreteType>
class NotDifferentiable : public OpTrait::TraitBase<ConcreteType, NotDifferentiable> {};

/// Activity analysis (Enzyme's term), shared by the AD pass and the
/// GradientTape: among `ops` (in program order), the values a derivative
/// flows through. Such a value is a float tensor that depends on a float
/// `seed` through differentiable ops (varied) and on which a `sink` depends
/// through ops that have a varied result (useful).
llvm::DenseSet<Value> activeValues(ArrayRef<Operation *> ops, ArrayRef<Value> seeds,
                                   ArrayRef<Value> sinks);

/// `derivative`, or zeros of `type` where it is null (no derivative flows).
Value orZeros(OpBuilder &builder, Location loc, Value derivative, Type type);

/// Registers the derivative rules that ODS does not declare on adjit ops:
/// today func.call's (an external model calling the callee's derivative).
/// The one place to attach rules to other dialects' ops.
void registerDerivativeRules(DialectRegistry &registry);

}  // namespace mlir::adjit

#endif
