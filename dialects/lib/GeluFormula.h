// gelu's formula and its derivative, written once over a vocabulary of ops:
// Emit (adjit ops on tensors) for adjit.gelu's expansion and derivative
// rule, the scalar rules' arith and math ops for its elementwise lowering.
// The value and the derivative build their shared terms with geluTerms, so
// that CSE merges them.
#ifndef ADJIT_DIALECT_LIB_GELUFORMULA_H
#define ADJIT_DIALECT_LIB_GELUFORMULA_H

#include "mlir/IR/Value.h"

#include <numbers>

namespace mlir::adjit::gelu {

inline constexpr double kSqrtTwoOverPi = std::numbers::sqrt2 * std::numbers::inv_sqrtpi;
inline constexpr double kCubic = 0.044715;

// What the value and the derivative both read (besides 0.5 x, which
// each builds alike where it needs it).
struct Terms {
  Value squared; // x^2 (the tanh approximation only)
  Value curve;   // tanh(sqrt(2/pi) (x + 0.044715 x^3)), or erf(x / sqrt(2))
};

template <class Ops>
Terms terms(Ops &o, Value x, bool approximate) {
  Terms t;
  if (approximate) {
    t.squared = o.mul(x, x);
    // x (k + k c x^2): one multiply fewer than k (x + c x^3).
    Value slope = o.add(o.splatLike(x, kSqrtTwoOverPi),
                        o.mulScalar(t.squared, kSqrtTwoOverPi * kCubic));
    t.curve = o.tanh(o.mul(x, slope));
  } else {
    t.curve = o.erf(o.mulScalar(x, 1 / std::numbers::sqrt2));
  }
  return t;
}

// 0.5 x + 0.5 x s: one fused multiply-add, where 0.5 x (1 + s) rounds 1 + s.
template <class Ops>
Value value(Ops &o, Value x, bool approximate) {
  Value half = o.mulScalar(x, 0.5);
  Terms t = terms(o, x, approximate);
  return o.add(half, o.mul(half, t.curve));
}

// 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2) with the tanh;
// 0.5 (1 + erf(x / sqrt(2))) + x e^(-x^2 / 2) / sqrt(2 pi) without.
template <class Ops>
Value derivative(Ops &o, Value x, bool approximate) {
  Terms t = terms(o, x, approximate);
  Value cdf = o.add(o.splatLike(x, 0.5), o.mulScalar(t.curve, 0.5));
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
