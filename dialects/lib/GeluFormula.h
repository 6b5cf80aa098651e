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

#include <iterator>
#include <numbers>

namespace mlir::adjit::gelu {

inline constexpr double kSqrtTwoOverPi = std::numbers::sqrt2 * std::numbers::inv_sqrtpi;
inline constexpr double kCubic = 0.044715;

// erfc(z) = t exp(P(t) - z^2) with t = 1 / (1 + z / 2), z >= 0, and P smooth
// on (0, 1]. f32: Numerical Recipes' erfcc, P a polynomial in t within
// 1.2e-7 of it (coefficients constant term first). f64: the Chebyshev series
// of P in u = 2 t - 1 within 4e-16 (scripts/fit-erfc.py computes it).
inline constexpr double kErfcPolynomial[] = {
    -1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806,
    0.27886807,  -1.13520398, 1.48851587, -0.82215223, 0.17087277};
inline constexpr double kErfcChebyshev[] = {
    -0.6513268598908547, 0.6419697923564902, 0.019476473204185836,
    -0.009561514786808632, -0.0009465953444820369, 0.00036683949785276145,
    4.252332480690777e-05, -2.0278578112534242e-05, -1.6242900046470256e-06,
    1.3036558355805232e-06, 1.5626441722066142e-08, -8.523809591492654e-08,
    6.5290544390988515e-09, 5.0593434955514685e-09, -9.913641564930322e-10,
    -2.2736512229318417e-10, 9.646791102014962e-11, 2.394038083065756e-12,
    -6.886027526536277e-12, 8.944879271730368e-13, 3.130921408127142e-13,
    -1.1270822525221733e-13, 3.8108713588528985e-16, 7.106125536922576e-15,
    -1.5230878975373303e-15, -9.464871412184462e-17, 1.218683266906788e-16,
    -3.0494735135424696e-17};

// What the value and the derivative both read.
struct Terms {
  Value squared; // x^2 (the tanh approximation only)
  Value curve;   // tanh(sqrt(2/pi) (x + 0.044715 x^3)) (the tanh approximation)
  // Phi(x): 0.5 + 0.5 curve with the tanh approximation; exact, Phi(x)
  // itself. 0.5 (1 + erf(x / sqrt(2))) cancels for negative x
  // (f32 loses every digit below x = -5.4, f64 below -8.3, f16 below -3.7,
  // where JAX's erfc-based gelu keeps them); 0.5 erfc(|x| / sqrt(2)) does
  // not.
  Value cdf;
};

// The gelu of f16 and bf16 is computed in f32 and rounded once, as each
// elementwise op of theirs is: erfc's polynomial needs f32's digits, and
// the tanh form rounded after each of its ops was off by several ulp (bf16
// gelu(-1): -0.16015625 for -0.1591796875).
template <class Ops, class Formula>
Value widened(Ops &o, Value x, Formula formula) {
  Type element = getElementTypeOrSelf(x.getType());
  if (!(element.isF16() || element.isBF16()))
    return formula(x);
  Type f32 = Float32Type::get(x.getContext());
  return o.convert(formula(o.convert(x, f32)), element);
}

// P(t) of erfc's formula above, for x's float type.
template <class Ops>
Value erfcExponent(Ops &o, Value x, Value t) {
  if (getElementTypeOrSelf(x.getType()).isF32()) {
    Value p = o.splatLike(x, kErfcPolynomial[9]);
    for (int i = 8; i >= 0; --i)
      p = o.add(o.mul(p, t), o.splatLike(x, kErfcPolynomial[i]));
    return p;
  }
  // Clenshaw's recurrence: b_k = c_k + 2 u b_(k+1) - b_(k+2), P = c_0 + u b_1 - b_2.
  Value u = o.sub(o.mulScalar(t, 2), o.splatLike(x, 1));
  Value twoU = o.mulScalar(u, 2);
  int last = static_cast<int>(std::size(kErfcChebyshev)) - 1;
  Value next = o.splatLike(x, kErfcChebyshev[last]), after;
  for (int k = last - 1; k >= 1; --k) {
    Value b = o.add(o.mul(twoU, next), o.splatLike(x, kErfcChebyshev[k]));
    if (after)
      b = o.sub(b, after);
    after = next;
    next = b;
  }
  return o.sub(o.add(o.mul(u, next), o.splatLike(x, kErfcChebyshev[0])), after);
}

template <class Ops>
Terms terms(Ops &o, Value x, bool approximate) {
  Terms t;
  if (approximate) {
    t.squared = o.mul(x, x);
    // x (k + k c x^2): one multiply fewer than k (x + c x^3).
    Value slope = o.add(o.splatLike(x, kSqrtTwoOverPi),
                        o.mulScalar(t.squared, kSqrtTwoOverPi * kCubic));
    t.curve = o.tanh(o.mul(x, slope));
    t.cdf = o.add(o.splatLike(x, 0.5), o.mulScalar(t.curve, 0.5));
  } else {
    Value one = o.splatLike(x, 1);
    // |x| as select(x < 0, -x, x), not abs: differentiated (the derivative
    // rule is written in these ops), its derivative at 0 is the x >= 0
    // branch's 1, where abs's 0 would drop Phi's density from gelu'' (0).
    Value negative = o.compare(ComparisonDirection::lt, x, o.splatLike(x, 0));
    Value magnitude = o.select(negative, o.neg(x), x);
    Value ratio = o.div(one, o.add(one, o.mulScalar(magnitude, 0.5 / std::numbers::sqrt2)));
    // 0.5 erfc(|x| / sqrt(2)) = Phi(-|x|), with one exponential. P + x (-x
    // / 2) is one fused multiply-add: x^2 / 2 is not rounded on its own (its
    // rounding would add an error of x^2 / 2 ulp to the result).
    Value polynomial = erfcExponent(o, x, ratio);
    Value exponent = o.add(polynomial, o.mul(x, o.mulScalar(x, -0.5)));
    Value lower = o.mulScalar(o.mul(ratio, o.exp(exponent)), 0.5);
    t.cdf = o.select(negative, lower, o.sub(one, lower));
  }
  return t;
}

// x Phi(x), Phi its approximation with the tanh, as JAX writes both: a
// product with x keeps x's sign where 0.5 x + 0.5 x s would round to +0
// (x = -0, and x below about -9, where s is -1).
template <class Ops>
Value value(Ops &o, Value x, bool approximate) {
  return widened(o, x, [&](Value x) { return o.mul(x, terms(o, x, approximate).cdf); });
}

// 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2) with the tanh;
// Phi(x) + x e^(-x^2 / 2) / sqrt(2 pi) without.
template <class Ops>
Value derivative(Ops &o, Value x, bool approximate) {
  return widened(o, x, [&](Value x) {
    Terms t = terms(o, x, approximate);
    if (approximate) {
      // 0.5 x (1 - t^2) = gelu(x) (1 - t): the value's product (CSE merges
      // them) and one fused multiply-subtract, which rounds once where 1 -
      // t^2 would cancel.
      Value gelu = o.mul(x, t.cdf);
      Value halfSech2 = o.sub(gelu, o.mul(gelu, t.curve));
      Value slope = o.add(o.splatLike(x, kSqrtTwoOverPi),
                          o.mulScalar(t.squared, 3 * kSqrtTwoOverPi * kCubic));
      return o.add(t.cdf, o.mul(halfSech2, slope));
    }
    Value density = o.mulScalar(o.exp(o.mulScalar(o.mul(x, x), -0.5)),
                                0.5 * std::numbers::sqrt2 * std::numbers::inv_sqrtpi);
    return o.add(t.cdf, o.mul(x, density));
  });
}

} // namespace mlir::adjit::gelu

#endif // ADJIT_DIALECT_LIB_GELUFORMULA_H
