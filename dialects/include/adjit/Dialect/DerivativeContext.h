#ifndef ADJIT_DIALECT_DERIVATIVECONTEXT_H
#define ADJIT_DIALECT_DERIVATIVECONTEXT_H

#include "mlir/IR/OpDefinition.h"
#include "mlir/Support/LogicalResult.h"

namespace mlir::func {
class FuncOp;
}

namespace mlir::adjit {

/// What the AD driver offers to derivative rules that need more than local
/// algebra: calls (and, later, ops with regions) differentiate whole bodies.
class DerivativeContext {
 public:
  virtual ~DerivativeContext() = default;

  /// `(args..., result cotangents...) -> (results..., arg cotangents...)`:
  /// the reverse-mode derivative of `callee` with respect to every argument
  /// (integer arguments get zero cotangents).
  virtual FailureOr<func::FuncOp> reverseFunction(func::FuncOp callee) = 0;

  /// `(args..., arg tangents...) -> (results..., result tangents...)`: the
  /// forward-mode derivative of `callee`.
  virtual FailureOr<func::FuncOp> forwardFunction(func::FuncOp callee) = 0;
};

/// Marks ops whose results have no derivative (see NotDifferentiable in ODS).
template <typename ConcreteType>
class NotDifferentiable : public OpTrait::TraitBase<ConcreteType, NotDifferentiable> {};

}  // namespace mlir::adjit

#endif
