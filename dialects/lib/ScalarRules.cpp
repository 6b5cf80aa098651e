// The scalar rule of every elementwise op (ElementwiseOpInterface): what
// one element of its result is, in arith and math ops. Unless an op says
// otherwise (widensHalfPrecision), operands arrive widened to f32 from
// f16/bf16.
#include "adjit/Dialect/ScalarRules.h"

#include "GeluFormula.h"

#include "adjit/Dialect/AdjitOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::adjit;

namespace mlir::adjit {

bool isHalfPrecision(Type type) { return type.isF16() || type.isBF16(); }

Type computeTypeOf(Type element) {
  return isHalfPrecision(element) ? Float32Type::get(element.getContext())
                                  : element;
}

Value widenHalfPrecision(OpBuilder &b, Location loc, Value v) {
  return isHalfPrecision(v.getType())
             ? b.create<arith::ExtFOp>(loc, b.getF32Type(), v).getResult()
             : v;
}

Value narrowTo(OpBuilder &b, Location loc, Value v, Type to) {
  return v.getType() == to ? v : b.create<arith::TruncFOp>(loc, to, v);
}

Value scalarConstant(OpBuilder &b, Location loc, Type type, double value) {
  if (auto f = dyn_cast<FloatType>(type))
    return b.create<arith::ConstantOp>(loc, b.getFloatAttr(f, value));
  return b.create<arith::ConstantOp>(
      loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}


} // namespace mlir::adjit

namespace {

Value negate(OpBuilder &b, Location loc, Value x) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::NegFOp>(loc, x);
  return b.create<arith::SubIOp>(loc, scalarConstant(b, loc, x.getType(), 0), x);
}


Value emitCompare(ComparisonDirection direction, OpBuilder &b, Location loc,
                  ValueRange x) {
  if (isa<FloatType>(x[0].getType())) {
    // Ordered comparisons, except ne, which is true for NaN as in C++.
    static constexpr arith::CmpFPredicate predicates[] = {
        arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE,
        arith::CmpFPredicate::OLT, arith::CmpFPredicate::OLE,
        arith::CmpFPredicate::OGT, arith::CmpFPredicate::OGE};
    return b.create<arith::CmpFOp>(
        loc, predicates[static_cast<int>(direction)], x[0], x[1]);
  }
  static constexpr arith::CmpIPredicate predicates[] = {
      arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne,
      arith::CmpIPredicate::slt, arith::CmpIPredicate::sle,
      arith::CmpIPredicate::sgt, arith::CmpIPredicate::sge};
  return b.create<arith::CmpIOp>(loc, predicates[static_cast<int>(direction)],
                                 x[0], x[1]);
}


// Round-to-odd: given `rounded` (round-to-nearest of some value, in any
// float type), `roundedWide` (the same number in the type of `residual`) and
// `residual` (the value minus it, exact), moves `rounded` one step towards
// the value when it was inexact and its last bit is even. Narrowing first to
// odd and last to nearest-even rounds exactly once (no double rounding)
// when the intermediate format has two spare bits.
Value forceOddIfInexact(OpBuilder &b, Location loc, Value rounded, Value roundedWide,
                        Value residual) {
  Type bitsType = b.getIntegerType(rounded.getType().getIntOrFloatBitWidth());
  Value zero = scalarConstant(b, loc, residual.getType(), 0);
  Value inexact = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::ONE, residual, zero);
  Value bits = b.create<arith::BitcastOp>(loc, bitsType, rounded);
  Value one = scalarConstant(b, loc, bitsType, 1);
  Value even = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                       b.create<arith::AndIOp>(loc, bits, one),
                                       scalarConstant(b, loc, bitsType, 0));
  // Bits count magnitude: step up when the value lies beyond `rounded`
  // (always from a zero, whose sign already is the value's).
  Value beyond = b.create<arith::CmpFOp>(
      loc, arith::CmpFPredicate::OGT, b.create<arith::MulFOp>(loc, residual, roundedWide), zero);
  Value fromZero =
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ, roundedWide, zero);
  Value up = b.create<arith::OrIOp>(loc, beyond, fromZero);
  Value stepped = b.create<arith::SelectOp>(loc, up, b.create<arith::AddIOp>(loc, bits, one),
                                            b.create<arith::SubIOp>(loc, bits, one));
  Value adjust = b.create<arith::AndIOp>(loc, inexact, even);
  return b.create<arith::BitcastOp>(loc, rounded.getType(),
                                    b.create<arith::SelectOp>(loc, adjust, stepped, bits));
}

Value roundToOdd(OpBuilder &b, Location loc, Value x, FloatType narrow) {
  Value r = b.create<arith::TruncFOp>(loc, narrow, x);
  Value back = b.create<arith::ExtFOp>(loc, x.getType(), r);
  return forceOddIfInexact(b, loc, r, back, b.create<arith::SubFOp>(loc, x, back));
}

// An i64 as f64 rounded to odd: x = hi * 2^32 + lo exactly, and the rounding
// error of that sum is exact too (Fast2Sum).
Value i64ToOddF64(OpBuilder &b, Location loc, Value x) {
  Type f64 = b.getF64Type(), i32 = b.getI32Type();
  Value shift = b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(32));
  Value hi = b.create<arith::TruncIOp>(loc, i32, b.create<arith::ShRSIOp>(loc, x, shift));
  Value lo = b.create<arith::AndIOp>(
      loc, x, b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(0xffffffffll)));
  Value hiPart = b.create<arith::MulFOp>(loc, b.create<arith::SIToFPOp>(loc, f64, hi),
                                         scalarConstant(b, loc, f64, 4294967296.0));
  Value loPart = b.create<arith::UIToFPOp>(loc, f64, lo);
  Value sum = b.create<arith::AddFOp>(loc, hiPart, loPart);
  Value error = b.create<arith::AddFOp>(
      loc, b.create<arith::SubFOp>(loc, hiPart, sum), loPart);
  return forceOddIfInexact(b, loc, sum, sum, error);
}

// A float narrowed to `to` with one rounding: f64 to a 16-bit format goes
// through f32 rounded to odd.
Value narrowFloat(OpBuilder &b, Location loc, Value x, FloatType to) {
  if (isHalfPrecision(to) && x.getType().isF64())
    x = roundToOdd(b, loc, x, b.getF32Type());
  return b.create<arith::TruncFOp>(loc, to, x);
}

// adjit.convert on one element; see the op description for the semantics.

} // namespace

namespace mlir::adjit {

Value convertScalar(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  if (to.isInteger(1)) {
    Value zero = scalarConstant(b, loc, from, 0);
    if (isa<FloatType>(from))
      return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, x, zero);
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, x, zero);
  }
  if (from.isInteger(1)) {
    Value asInt = b.create<arith::ExtUIOp>(
        loc, isa<FloatType>(to) ? b.getI32Type() : to, x);
    return convertScalar(b, loc, asInt, to);
  }
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat && toFloat) {
    // Half formats go through f32 both ways: arith only expands bf16
    // conversions to and from f32.
    x = widenHalfPrecision(b, loc, x);
    unsigned width = x.getType().getIntOrFloatBitWidth();
    if (x.getType() == to)
      return x;
    if (width < toFloat.getWidth())
      return b.create<arith::ExtFOp>(loc, to, x);
    return narrowFloat(b, loc, x, toFloat);
  }
  if (!fromFloat && !toFloat) {
    unsigned fromWidth = from.getIntOrFloatBitWidth(),
             toWidth = to.getIntOrFloatBitWidth();
    if (fromWidth < toWidth)
      return b.create<arith::ExtSIOp>(loc, to, x);
    return b.create<arith::TruncIOp>(loc, to, x);
  }
  if (toFloat) {
    // Integer to float with one rounding. f16 holds at most 65504, below
    // 2^24, so going through f32 is exact or overflows; bf16 needs the
    // round-to-odd route through f64.
    if (to.isBF16()) {
      Value wide = from.isInteger(64) ? i64ToOddF64(b, loc, x)
                                      : b.create<arith::SIToFPOp>(loc, b.getF64Type(), x);
      return narrowFloat(b, loc, wide, toFloat);
    }
    Type via = computeTypeOf(to);
    Value f = b.create<arith::SIToFPOp>(loc, via, x);
    return narrowTo(b, loc, f, to);
  }
  // Float to integer, saturating, NaN to 0 (fptosi alone is poison there).
  x = widenHalfPrecision(b, loc, x);
  auto intType = cast<IntegerType>(to);
  APInt maxInt = APInt::getSignedMaxValue(intType.getWidth());
  APInt minInt = APInt::getSignedMinValue(intType.getWidth());
  // -2^(w-1) and 2^(w-1) are exact in every float format.
  Value lowest = scalarConstant(b, loc, x.getType(),
                                static_cast<double>(minInt.getSExtValue()));
  Value pastMax = scalarConstant(b, loc, x.getType(), -static_cast<double>(
                                                          minInt.getSExtValue()));
  Value truncated = b.create<arith::FPToSIOp>(loc, to, x);
  Value isNan = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO, x, x);
  Value tooLow =
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, x, lowest);
  Value tooHigh =
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGE, x, pastMax);
  Value result = b.create<arith::SelectOp>(
      loc, tooHigh, b.create<arith::ConstantOp>(loc, b.getIntegerAttr(to, maxInt)),
      truncated);
  result = b.create<arith::SelectOp>(
      loc, tooLow, b.create<arith::ConstantOp>(loc, b.getIntegerAttr(to, minInt)),
      result);
  return b.create<arith::SelectOp>(loc, isNan, scalarConstant(b, loc, to, 0),
                                   result);
}


} // namespace mlir::adjit

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

Value NegOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return negate(b, loc, x[0]);
}
Value AbsOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  if (isa<FloatType>(x[0].getType()))
    return b.create<math::AbsFOp>(loc, x[0]);
  // max(x, -x): math.absi has no lowering in the libm route.
  return b.create<arith::MaxSIOp>(loc, x[0], negate(b, loc, x[0]));
}
Value ReluOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  Type t = x[0].getType();
  Value zero = scalarConstant(b, loc, t, 0);
  if (!isa<FloatType>(t))
    return b.create<arith::MaxSIOp>(loc, x[0], zero);
  // Ordered: NaN is not <= 0 and passes; -0 is, and gives +0.
  Value nonPositive = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLE, x[0], zero);
  return b.create<arith::SelectOp>(loc, nonPositive, zero, x[0]);
}
Value SignOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  Type t = x[0].getType();
  Value zero = scalarConstant(b, loc, t, 0), one = scalarConstant(b, loc, t, 1),
        minusOne = scalarConstant(b, loc, t, -1);
  if (isa<FloatType>(t)) {
    // Zeros and NaN fail both comparisons and pass through unchanged.
    Value positive =
        b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, x[0], zero);
    Value negative =
        b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, x[0], zero);
    return b.create<arith::SelectOp>(
        loc, positive, one,
        b.create<arith::SelectOp>(loc, negative, minusOne, x[0]));
  }
  Value positive =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, x[0], zero);
  Value negative =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, x[0], zero);
  return b.create<arith::SelectOp>(
      loc, positive, one, b.create<arith::SelectOp>(loc, negative, minusOne, zero));
}
Value ExpOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::ExpOp>(loc, x[0]);
}
Value Expm1Op::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::ExpM1Op>(loc, x[0]);
}
Value LogOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  if (!x[0].getType().isF32())
    return b.create<math::LogOp>(loc, x[0]);
  // The f32 polynomial reads the exponent bits and so assumes normal
  // inputs: scale subnormals up by 2^24 and subtract 24 ln 2 afterwards.
  Type f32 = x[0].getType();
  Value subnormal = b.create<arith::CmpFOp>(
      loc, arith::CmpFPredicate::OLT, b.create<math::AbsFOp>(loc, x[0]),
      scalarConstant(b, loc, f32, 1.17549435082228750797e-38));
  Value scaled = b.create<arith::SelectOp>(
      loc, subnormal, b.create<arith::MulFOp>(loc, x[0], scalarConstant(b, loc, f32, 16777216.0)),
      x[0]);
  Value log = b.create<math::LogOp>(loc, scaled);
  Value shifted = b.create<arith::SubFOp>(
      loc, log, scalarConstant(b, loc, f32, 24 * 0.69314718055994530942));
  return b.create<arith::SelectOp>(loc, subnormal, shifted, log);
}
Value Log1pOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::Log1pOp>(loc, x[0]);
}
Value SqrtOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::SqrtOp>(loc, x[0]);
}
Value RsqrtOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return b.create<arith::DivFOp>(loc, scalarConstant(b, loc, x[0].getType(), 1),
                                 b.create<math::SqrtOp>(loc, x[0]));
}
Value SinOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::SinOp>(loc, x[0]);
}
Value CosOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::CosOp>(loc, x[0]);
}
Value TanhOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::TanhOp>(loc, x[0]);
}
Value LogisticOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  // 1 / (1 + e^-x): e^-x overflows to inf for very negative x, giving 0.
  Value one = scalarConstant(b, loc, x[0].getType(), 1);
  Value e = b.create<math::ExpOp>(loc, b.create<arith::NegFOp>(loc, x[0]));
  return b.create<arith::DivFOp>(loc, one, b.create<arith::AddFOp>(loc, one, e));
}
Value ErfOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::ErfOp>(loc, x[0]);
}
// The math op of the same name; each lowers to a vector polynomial, a
// libmvec variant, a libm or a libdevice call (adjit-math-to-libm).
#define ADJIT_SCALAR_AS_MATH(OP, MATH_OP)                                      \
  Value OP::emitScalar(OpBuilder &b, Location loc, ValueRange x) {             \
    return b.create<MATH_OP>(loc, x);                                          \
  }
ADJIT_SCALAR_AS_MATH(CeilOp, math::CeilOp)
ADJIT_SCALAR_AS_MATH(RoundOp, math::RoundEvenOp)
ADJIT_SCALAR_AS_MATH(TanOp, math::TanOp)
ADJIT_SCALAR_AS_MATH(AsinOp, math::AsinOp)
ADJIT_SCALAR_AS_MATH(AcosOp, math::AcosOp)
ADJIT_SCALAR_AS_MATH(AtanOp, math::AtanOp)
ADJIT_SCALAR_AS_MATH(SinhOp, math::SinhOp)
ADJIT_SCALAR_AS_MATH(CoshOp, math::CoshOp)
ADJIT_SCALAR_AS_MATH(AsinhOp, math::AsinhOp)
ADJIT_SCALAR_AS_MATH(AcoshOp, math::AcoshOp)
ADJIT_SCALAR_AS_MATH(AtanhOp, math::AtanhOp)
ADJIT_SCALAR_AS_MATH(CbrtOp, math::CbrtOp)
ADJIT_SCALAR_AS_MATH(Atan2Op, math::Atan2Op)
#undef ADJIT_SCALAR_AS_MATH
namespace {
// The vocabulary GeluFormula.h is written in, on float scalars.
struct ScalarFloatOps {
  OpBuilder &b;
  Location loc;
  Value splatLike(Value like, double value) { return scalarConstant(b, loc, like.getType(), value); }
  Value add(Value x, Value y) { return b.create<arith::AddFOp>(loc, x, y); }
  Value mul(Value x, Value y) { return b.create<arith::MulFOp>(loc, x, y); }
  Value mulScalar(Value x, double c) { return mul(x, splatLike(x, c)); }
  Value sub(Value x, Value y) { return b.create<arith::SubFOp>(loc, x, y); }
  Value div(Value x, Value y) { return b.create<arith::DivFOp>(loc, x, y); }
  Value neg(Value x) { return b.create<arith::NegFOp>(loc, x); }
  Value exp(Value x) { return b.create<math::ExpOp>(loc, x); }
  Value tanh(Value x) { return b.create<math::TanhOp>(loc, x); }
  Value compare(ComparisonDirection d, Value x, Value y) {
    return emitCompare(d, b, loc, ValueRange{x, y});
  }
  Value select(Value p, Value x, Value y) { return b.create<arith::SelectOp>(loc, p, x, y); }
  Value convert(Value x, Type element) { return convertScalar(b, loc, x, element); }
};
} // namespace
Value GeluOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  ScalarFloatOps ops{b, loc};
  return gelu::value(ops, x[0], getApproximate());
}
Value FloorOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::FloorOp>(loc, x[0]);
}

Value IntegerPowOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  int64_t exponent = static_cast<int64_t>(getExponent());
  Value one = scalarConstant(b, loc, x[0].getType(), 1);
  Value power = powerBySquaring(x[0], exponent, one, [&](Value a, Value c) {
    return floatOrInt<arith::MulFOp, arith::MulIOp>(b, loc, ValueRange{a, c});
  });
  // Negative exponents are floats only (verified): the reciprocal, as JAX.
  return exponent < 0 ? b.create<arith::DivFOp>(loc, one, power).getResult() : power;
}

//===----------------------------------------------------------------------===//
// Binary, logical, select, compare, convert
//===----------------------------------------------------------------------===//

Value AddOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return floatOrInt<arith::AddFOp, arith::AddIOp>(b, loc, x);
}
Value SubOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return floatOrInt<arith::SubFOp, arith::SubIOp>(b, loc, x);
}
Value MulOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return floatOrInt<arith::MulFOp, arith::MulIOp>(b, loc, x);
}
namespace {
// An integer divisor made safe: the hardware traps on x / 0 and on
// INT_MIN / -1, so both divide by 1 instead, and the caller picks its
// result where `byZero` or `overflows` holds.
struct SafeDivision {
  Value byZero, overflows, divisor;
};
SafeDivision safeDivision(OpBuilder &b, Location loc, Value x, Value y) {
  unsigned bits = x.getType().getIntOrFloatBitWidth();
  auto constant = [&](const APInt &v) {
    return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(x.getType(), v)).getResult();
  };
  auto equal = [&](Value a, Value c) {
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, a, c).getResult();
  };
  Value byZero = equal(y, constant(APInt::getZero(bits)));
  Value overflows = b.create<arith::AndIOp>(
      loc, equal(x, constant(APInt::getSignedMinValue(bits))),
      equal(y, constant(APInt::getAllOnes(bits))));
  Value unsafe = b.create<arith::OrIOp>(loc, byZero, overflows);
  return {byZero, overflows,
          b.create<arith::SelectOp>(loc, unsafe, constant(APInt(bits, 1)), y)};
}
} // namespace

// Integer division is total, as in XLA: x / 0 = -1 and INT_MIN / -1 =
// INT_MIN.
Value DivOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  if (isa<FloatType>(x[0].getType()))
    return b.create<arith::DivFOp>(loc, x[0], x[1]);
  SafeDivision safe = safeDivision(b, loc, x[0], x[1]);
  Value quotient = b.create<arith::DivSIOp>(loc, x[0], safe.divisor);
  Value overflowed = b.create<arith::SelectOp>(loc, safe.overflows, x[0], quotient);
  Value minusOne = scalarConstant(b, loc, x[0].getType(), -1);
  return b.create<arith::SelectOp>(loc, safe.byZero, minusOne, overflowed);
}
// Integer remainders are total, as in XLA: x rem 0 = x and INT_MIN rem -1
// = 0 (the latter is what dividing by 1 gives).
Value RemOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  if (isa<FloatType>(x[0].getType()))
    return b.create<arith::RemFOp>(loc, x[0], x[1]);
  SafeDivision safe = safeDivision(b, loc, x[0], x[1]);
  Value remainder = b.create<arith::RemSIOp>(loc, x[0], safe.divisor);
  return b.create<arith::SelectOp>(loc, safe.byZero, x[0], remainder);
}
// Integer powers with a negative exponent, as in XLA: 1 for a base of 1,
// +-1 for -1 (by the exponent's parity), else 0 (0^-1 included).
Value PowOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  if (isa<FloatType>(x[0].getType()))
    return b.create<math::PowFOp>(loc, x[0], x[1]);
  Type type = x[0].getType();
  Value zero = scalarConstant(b, loc, type, 0), one = scalarConstant(b, loc, type, 1);
  Value minusOne = scalarConstant(b, loc, type, -1);
  Value negative = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, x[1], zero);
  // Raised to a non-negative exponent (ipowi of a negative one is left out).
  Value exponent = b.create<arith::SelectOp>(loc, negative, zero, x[1]);
  Value power = b.create<math::IPowIOp>(loc, x[0], exponent);
  Value odd = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                                      b.create<arith::AndIOp>(loc, x[1], one), zero);
  Value baseOne = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, x[0], one);
  Value baseMinusOne = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, x[0], minusOne);
  Value signOfMinusOne = b.create<arith::SelectOp>(loc, odd, minusOne, one);
  Value reciprocal = b.create<arith::SelectOp>(
      loc, baseOne, one, b.create<arith::SelectOp>(loc, baseMinusOne, signOfMinusOne, zero));
  return b.create<arith::SelectOp>(loc, negative, reciprocal, power);
}
Value MaxOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(b, loc, x);
}
Value MinOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return floatOrInt<arith::MinimumFOp, arith::MinSIOp>(b, loc, x);
}
Value AndOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return b.create<arith::AndIOp>(loc, x[0], x[1]);
}
Value OrOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return b.create<arith::OrIOp>(loc, x[0], x[1]);
}
Value NotOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return b.create<arith::XOrIOp>(loc, x[0],
                                 b.create<arith::ConstantIntOp>(loc, 1, 1));
}
Value SelectOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return b.create<arith::SelectOp>(loc, x[0], x[1], x[2]);
}

Value CompareOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return emitCompare(getDirection(), b, loc, x);
}

Value ConvertOp::emitScalar(OpBuilder &b, Location loc, ValueRange x) {
  return convertScalar(b, loc, x[0], getType().getElementType());
}
bool ConvertOp::widensHalfPrecision() { return false; }
bool SelectOp::widensHalfPrecision() { return false; }
