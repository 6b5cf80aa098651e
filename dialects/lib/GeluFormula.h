// gelu's formula and its derivative, written once over a vocabulary of ops:
// Emit (adjit ops on tensors) for adjit.gelu's expansion and derivative
// rule, the scalar rules' arith and math ops for its elementwise lowering.
// The value and the derivative build their shared terms with geluTerms, so
// that CSE merges them.
#ifndef ADJIT_DIALECT_LIB_GELUFORMULA_H
#define ADJIT_DIALECT_LIB_GELUFORMULA_H

#include "adjit/Dialect/AdjitOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Value.h"

#include <numbers>

namespace mlir::adjit::gelu {

inline constexpr double kSqrtTwoOverPi = std::numbers::sqrt2 * std::numbers::inv_sqrtpi;
inline constexpr double kCubic = 0.044715;

// Numerical Recipes' erfcc: erfc(z) = t exp(P(t) - z^2) with t = 1 / (1 +
// z / 2), for z >= 0, within 1.2e-7 relative everywhere. P's coefficients,
// constant term first.
inline constexpr double kErfcPolynomial[] = {
    -1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806,
    0.27886807,  -1.13520398, 1.48851587, -0.82215223, 0.17087277};

// What the value and the derivative both read (besides 0.5 x, which
// each builds alike where it needs it).
struct Terms {
  Value squared; // x^2 (the tanh approximation only)
  Value curve;   // tanh(sqrt(2/pi) (x + 0.044715 x^3)), or erf(x / sqrt(2))
  // Exact f32: Phi(x) itself. 0.5 (1 + erf(x / sqrt(2))) cancels for
  // negative x (all digits lost below x = -5.4, where JAX's erfc-based gelu
  // keeps them); 0.5 erfc(|x| / sqrt(2)) does not.
  Value cdf;
};

// Whether the exact gelu takes Phi from erfc (f32, whose erfc formula above
// is accurate enough) rather than from erf (f64: libm's erf; f16 and bf16).
inline bool cdfFromErfc(Value x) { return getElementTypeOrSelf(x.getType()).isF32(); }

template <class Ops>
Terms terms(Ops &o, Value x, bool approximate) {
  Terms t;
  if (approximate) {
    t.squared = o.mul(x, x);
    // x (k + k c x^2): one multiply fewer than k (x + c x^3).
    Value slope = o.add(o.splatLike(x, kSqrtTwoOverPi),
                        o.mulScalar(t.squared, kSqrtTwoOverPi * kCubic));
    t.curve = o.tanh(o.mul(x, slope));
  } else if (cdfFromErfc(x)) {
    Value one = o.splatLike(x, 1);
    Value ratio = o.div(one, o.add(one, o.mulScalar(o.abs(x), 0.5 / std::numbers::sqrt2)));
    Value polynomial = o.splatLike(x, kErfcPolynomial[9]);
    for (int i = 8; i >= 0; --i)
      polynomial = o.add(o.mul(polynomial, ratio), o.splatLike(x, kErfcPolynomial[i]));
    // 0.5 erfc(|x| / sqrt(2)) = Phi(-|x|), with one exponential. P + x (-x
    // / 2) is one fused multiply-add: x^2 / 2 is not rounded on its own (its
    // rounding would add an error of x^2 / 2 * 2^-24 relative to the result).
    Value exponent = o.add(polynomial, o.mul(x, o.mulScalar(x, -0.5)));
    Value lower = o.mulScalar(o.mul(ratio, o.exp(exponent)), 0.5);
    Value negative = o.compare(ComparisonDirection::lt, x, o.splatLike(x, 0));
    t.cdf = o.select(negative, lower, o.sub(one, lower));
  } else {
    t.curve = o.erf(o.mulScalar(x, 1 / std::numbers::sqrt2));
  }
  return t;
}

// 0.5 x + 0.5 x s: one fused multiply-add, where 0.5 x (1 + s) rounds 1 + s.
template <class Ops>
Value value(Ops &o, Value x, bool approximate) {
  if (!approximate && cdfFromErfc(x))
    return o.mul(x, terms(o, x, approximate).cdf);
  Value half = o.mulScalar(x, 0.5);
  Terms t = terms(o, x, approximate);
  return o.add(half, o.mul(half, t.curve));
}

// 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2) with the tanh;
// Phi(x) + x e^(-x^2 / 2) / sqrt(2 pi) without.
template <class Ops>
Value derivative(Ops &o, Value x, bool approximate) {
  Terms t = terms(o, x, approximate);
  Value cdf = t.cdf ? t.cdf : o.add(o.splatLike(x, 0.5), o.mulScalar(t.curve, 0.5));
  if (approximate) {
    // 0.5 x (1 - t^2) as 0.5 x - (0.5 x t) t: the value's 0.5 x t (CSE
    // merges them) and one fused multiply-subtract, a multiply fewer.
    Value half = o.mulScalar(x, 0.5);
    Value halfSech2 = o.sub(half, o.mul(o.mul(half, t.curve), t.curve));
    Value slope = o.add(o.splatLike(x, kSqrtTwoOverPi),
                        o.mulScalar(t.squared, 3 * kSqrtTwoOverPi * kCubic));
    return o.add(cdf, o.mul(halfSech2, slope));
  }
  Value density = o.mulScalar(o.exp(o.mulScalar(o.mul(x, x), -0.5)),
                              0.5 * std::numbers::sqrt2 * std::numbers::inv_sqrtpi);
  return o.add(cdf, o.mul(x, density));
}

} // namespace mlir::adjit::gelu

#endif // ADJIT_DIALECT_LIB_GELUFORMULA_H
