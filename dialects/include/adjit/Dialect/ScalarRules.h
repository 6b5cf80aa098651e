#ifndef ADJIT_DIALECT_SCALARRULES_H
#define ADJIT_DIALECT_SCALARRULES_H

// Scalar building blocks shared by the elementwise ops' scalar rules
// (ElementwiseOpInterface, dialects/lib/ScalarRules.cpp) and the lowering
// to linalg, which uses them for reductions and contractions too.

#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::adjit {

/// f16 and bf16: their math is done in f32 and rounded once, as XLA does.
bool isHalfPrecision(Type type);

/// The type a value of `element` is computed in (f32 for f16/bf16).
Type computeTypeOf(Type element);

/// `v` in its compute type (extended to f32 when it is f16/bf16).
Value widenHalfPrecision(OpBuilder &b, Location loc, Value v);

/// `v` rounded to the float type `to` (unchanged when it already is).
Value narrowTo(OpBuilder &b, Location loc, Value v, Type to);

/// A scalar arith constant of `type` (float or integer).
Value scalarConstant(OpBuilder &b, Location loc, Type type, double value);

/// `FloatOp` of x[0] and x[1] when they are floats, else `IntOp`.
template <class FloatOp, class IntOp>
Value floatOrInt(OpBuilder &b, Location loc, ValueRange x) {
  if (isa<FloatType>(x[0].getType()))
    return b.create<FloatOp>(loc, x[0], x[1]);
  return b.create<IntOp>(loc, x[0], x[1]);
}

/// x^|exponent| by repeated squaring, in the order JAX's integer_pow uses
/// (x^3 = x * x^2, x^5 = x * x^4): `multiply` is called on T values, `one`
/// serves exponent 0. Shared by adjit.integer_pow's scalar rule (T = Value)
/// and its folder (T = APFloat, APInt), so that folding computes the same
/// products in the same order.
template <class T, class Multiply>
T powerBySquaring(T x, int64_t exponent, T one, Multiply multiply) {
  uint64_t n = exponent < 0 ? 0 - static_cast<uint64_t>(exponent) : exponent;
  std::optional<T> result;
  for (T base = x; n > 0;) {
    if (n & 1)
      result = result ? multiply(*result, base) : base;
    n >>= 1;
    if (n > 0)
      base = multiply(base, base);
  }
  return result ? *result : one;
}

/// One element converted to `to` with adjit.convert's semantics (see its
/// description): round to nearest even once, saturating float-to-integer.
Value convertScalar(OpBuilder &b, Location loc, Value x, Type to);

} // namespace mlir::adjit

#endif
