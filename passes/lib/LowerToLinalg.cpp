// adjit -> linalg/tensor/arith/math/scf. One scalar rule per elementwise op
// (emitScalar overloads); structural ops get one pattern each.
#include "ControlFlowToSCF.h"

#include "adjit/Dialect/AdjitOps.h"
#include "adjit/Passes/Passes.h"

#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::adjit {
#define GEN_PASS_DEF_LOWERADJITTOLINALG
#include "adjit/Passes/Passes.h.inc"
} // namespace mlir::adjit

using namespace mlir;
using namespace mlir::adjit;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

bool isHalfPrecision(Type type) { return type.isF16() || type.isBF16(); }

// Half-precision math is done in f32 and rounded once, as XLA does.
Type computeTypeOf(Type element) {
  return isHalfPrecision(element) ? Float32Type::get(element.getContext())
                                  : element;
}

Value widen(OpBuilder &b, Location loc, Value v) {
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

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return b.create<tensor::EmptyOp>(loc, type.getShape(),
                                   type.getElementType());
}

Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   Value scalar) {
  return b.create<linalg::FillOp>(loc, scalar, emptyTensor(b, loc, type))
      .getResult(0);
}

SmallVector<utils::IteratorType> parallelIterators(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

// A generic over `resultType` whose body maps the inputs' elements (read
// through `inputMaps`) to one result element.
Value mapElements(
    OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange inputs,
    ArrayRef<AffineMap> inputMaps,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(resultType.getRank()));
  auto generic = b.create<linalg::GenericOp>(
      loc, resultType, inputs, emptyTensor(b, loc, resultType), maps,
      parallelIterators(resultType.getRank()),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        nb.create<linalg::YieldOp>(nloc, body(nb, nloc, args.drop_back()));
      });
  return generic.getResult(0);
}

// Row-major reshape through collapse_shape/expand_shape (metadata only).
Value reshapeTensor(OpBuilder &b, Location loc, Value v,
                    RankedTensorType to) {
  auto from = cast<RankedTensorType>(v.getType());
  if (from == to)
    return v;
  if (from.getRank() == 0)
    return b.create<tensor::ExpandShapeOp>(loc, to, v,
                                           ArrayRef<ReassociationIndices>{});
  if (to.getRank() == 0)
    return b.create<tensor::CollapseShapeOp>(loc, to, v,
                                             ArrayRef<ReassociationIndices>{});
  auto flatType = RankedTensorType::get({from.getNumElements()},
                                        from.getElementType());
  auto allDims = [](int64_t rank) {
    ReassociationIndices group;
    for (int64_t d = 0; d < rank; ++d)
      group.push_back(d);
    return SmallVector<ReassociationIndices>{group};
  };
  Value flat = from.getRank() == 1
                   ? v
                   : b.create<tensor::CollapseShapeOp>(loc, flatType, v,
                                                       allDims(from.getRank()));
  if (to.getRank() == 1)
    return flat;
  return b.create<tensor::ExpandShapeOp>(loc, to, flat, allDims(to.getRank()));
}

Value transposeTensor(OpBuilder &b, Location loc, Value v,
                      ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> operandIndex(perm.size());
  for (auto [i, p] : llvm::enumerate(perm)) {
    shape.push_back(type.getDimSize(p));
    operandIndex[p] = b.getAffineDimExpr(i);
  }
  if (llvm::equal(shape, type.getShape()) && llvm::is_sorted(perm))
    return v;
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  AffineMap map = AffineMap::get(perm.size(), 0, operandIndex, b.getContext());
  return mapElements(b, loc, resultType, v, map,
                     [](OpBuilder &, Location, ValueRange args) {
                       return args[0];
                     });
}

Value convertTensorElements(OpBuilder &b, Location loc, Value v, Type to);

//===----------------------------------------------------------------------===//
// Scalar rules, one per elementwise op. Arguments arrive widened to the
// compute type (f32 for f16/bf16).
//===----------------------------------------------------------------------===//

Value emitScalar(NegOp, OpBuilder &b, Location loc, ValueRange x) {
  if (isa<FloatType>(x[0].getType()))
    return b.create<arith::NegFOp>(loc, x[0]);
  return b.create<arith::SubIOp>(loc, scalarConstant(b, loc, x[0].getType(), 0),
                                 x[0]);
}
Value emitScalar(AbsOp, OpBuilder &b, Location loc, ValueRange x) {
  if (isa<FloatType>(x[0].getType()))
    return b.create<math::AbsFOp>(loc, x[0]);
  // max(x, -x): math.absi has no lowering in the libm route.
  return b.create<arith::MaxSIOp>(loc, x[0], emitScalar(NegOp(), b, loc, x));
}
Value emitScalar(SignOp, OpBuilder &b, Location loc, ValueRange x) {
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
Value emitScalar(ExpOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::ExpOp>(loc, x[0]);
}
Value emitScalar(Expm1Op, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::ExpM1Op>(loc, x[0]);
}
Value emitScalar(LogOp, OpBuilder &b, Location loc, ValueRange x) {
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
Value emitScalar(Log1pOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::Log1pOp>(loc, x[0]);
}
Value emitScalar(SqrtOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::SqrtOp>(loc, x[0]);
}
Value emitScalar(RsqrtOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<arith::DivFOp>(loc, scalarConstant(b, loc, x[0].getType(), 1),
                                 b.create<math::SqrtOp>(loc, x[0]));
}
Value emitScalar(SinOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::SinOp>(loc, x[0]);
}
Value emitScalar(CosOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::CosOp>(loc, x[0]);
}
Value emitScalar(TanhOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::TanhOp>(loc, x[0]);
}
Value emitScalar(LogisticOp, OpBuilder &b, Location loc, ValueRange x) {
  // 1 / (1 + e^-x): e^-x overflows to inf for very negative x, giving 0.
  Value one = scalarConstant(b, loc, x[0].getType(), 1);
  Value e = b.create<math::ExpOp>(loc, b.create<arith::NegFOp>(loc, x[0]));
  return b.create<arith::DivFOp>(loc, one, b.create<arith::AddFOp>(loc, one, e));
}
Value emitScalar(ErfOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::ErfOp>(loc, x[0]);
}
Value emitScalar(FloorOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<math::FloorOp>(loc, x[0]);
}

template <class FloatOp, class IntOp>
Value floatOrInt(OpBuilder &b, Location loc, ValueRange x) {
  if (isa<FloatType>(x[0].getType()))
    return b.create<FloatOp>(loc, x[0], x[1]);
  return b.create<IntOp>(loc, x[0], x[1]);
}
Value emitScalar(AddOp, OpBuilder &b, Location loc, ValueRange x) {
  return floatOrInt<arith::AddFOp, arith::AddIOp>(b, loc, x);
}
Value emitScalar(SubOp, OpBuilder &b, Location loc, ValueRange x) {
  return floatOrInt<arith::SubFOp, arith::SubIOp>(b, loc, x);
}
Value emitScalar(MulOp, OpBuilder &b, Location loc, ValueRange x) {
  return floatOrInt<arith::MulFOp, arith::MulIOp>(b, loc, x);
}
// Integer division is total, as in XLA: x / 0 = -1 and INT_MIN / -1 =
// INT_MIN (the hardware traps on both). The divisor is made safe first.
Value emitScalar(DivOp, OpBuilder &b, Location loc, ValueRange x) {
  if (isa<FloatType>(x[0].getType()))
    return b.create<arith::DivFOp>(loc, x[0], x[1]);
  Type type = x[0].getType();
  auto constant = [&](const APInt &v) {
    return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(type, v)).getResult();
  };
  unsigned bits = type.getIntOrFloatBitWidth();
  Value zero = constant(APInt::getZero(bits)), one = constant(APInt(bits, 1));
  Value minusOne = constant(APInt::getAllOnes(bits));
  Value smallest = constant(APInt::getSignedMinValue(bits));
  auto equal = [&](Value a, Value c) {
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, a, c).getResult();
  };
  Value byZero = equal(x[1], zero);
  Value overflows = b.create<arith::AndIOp>(loc, equal(x[0], smallest), equal(x[1], minusOne));
  Value unsafe = b.create<arith::OrIOp>(loc, byZero, overflows);
  Value divisor = b.create<arith::SelectOp>(loc, unsafe, one, x[1]);
  Value quotient = b.create<arith::DivSIOp>(loc, x[0], divisor);
  Value overflowed = b.create<arith::SelectOp>(loc, overflows, smallest, quotient);
  return b.create<arith::SelectOp>(loc, byZero, minusOne, overflowed);
}
// Integer powers with a negative exponent, as in XLA: 1 for a base of 1,
// +-1 for -1 (by the exponent's parity), else 0 (0^-1 included).
Value emitScalar(PowOp, OpBuilder &b, Location loc, ValueRange x) {
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
Value emitScalar(MaxOp, OpBuilder &b, Location loc, ValueRange x) {
  return floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(b, loc, x);
}
Value emitScalar(MinOp, OpBuilder &b, Location loc, ValueRange x) {
  return floatOrInt<arith::MinimumFOp, arith::MinSIOp>(b, loc, x);
}
Value emitScalar(AndOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<arith::AndIOp>(loc, x[0], x[1]);
}
Value emitScalar(OrOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<arith::OrIOp>(loc, x[0], x[1]);
}
Value emitScalar(NotOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<arith::XOrIOp>(loc, x[0],
                                 b.create<arith::ConstantIntOp>(loc, 1, 1));
}
Value emitScalar(SelectOp, OpBuilder &b, Location loc, ValueRange x) {
  return b.create<arith::SelectOp>(loc, x[0], x[1], x[2]);
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
Value emitScalar(CompareOp op, OpBuilder &b, Location loc, ValueRange x) {
  return emitCompare(op.getDirection(), b, loc, x);
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
    x = widen(b, loc, x);
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
  x = widen(b, loc, x);
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

Value convertTensorElements(OpBuilder &b, Location loc, Value v, Type to) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == to)
    return v;
  return mapElements(b, loc, type.clone(to), v,
                     b.getMultiDimIdentityMap(type.getRank()),
                     [&](OpBuilder &nb, Location nloc, ValueRange args) {
                       return convertScalar(nb, nloc, args[0], to);
                     });
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

// Elementwise op -> linalg.generic with identity maps and the op's scalar rule.
template <class OpTy>
struct ElementwiseToGeneric : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Type resultElement = resultType.getElementType();
    SmallVector<AffineMap> maps(
        adaptor.getOperands().size(),
        rewriter.getMultiDimIdentityMap(resultType.getRank()));
    Value result = mapElements(
        rewriter, op.getLoc(), resultType, adaptor.getOperands(), maps,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          if constexpr (std::is_same_v<OpTy, SelectOp>) {
            return emitScalar(op, b, loc, args);
          } else {
            SmallVector<Value> wide;
            for (Value arg : args)
              wide.push_back(widen(b, loc, arg));
            Value r = emitScalar(op, b, loc, wide);
            return r.getType() == resultElement
                       ? r
                       : narrowTo(b, loc, r, resultElement);
          }
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertToGeneric : OpConversionPattern<ConvertOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, convertTensorElements(rewriter, op.getLoc(),
                                                 adaptor.getOperand(),
                                                 op.getType().getElementType()));
    return success();
  }
};

// Splats become generics yielding a scalar, which fuse into their consumers
// (and keep the sign of -0.0, which LLVM 19's translation of splat tensor
// constants drops); other constants stay dense tensors.
struct ConstantToArith : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<DenseElementsAttr>(op.getValue());
    if (value && value.isSplat()) {
      auto scalar = cast<TypedAttr>(value.getSplatValue<Attribute>());
      rewriter.replaceOp(
          op, mapElements(rewriter, op.getLoc(), op.getType(), {}, {},
                          [&](OpBuilder &b, Location loc, ValueRange) -> Value {
                            return b.create<arith::ConstantOp>(loc, scalar);
                          }));
      return success();
    }
    auto typed = dyn_cast<TypedAttr>(op.getValue());
    if (!typed)
      return rewriter.notifyMatchFailure(op, "needs a typed elements attribute");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, typed);
    return success();
  }
};

struct StopGradientToOperand : OpConversionPattern<StopGradientOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StopGradientOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getOperand());
    return success();
  }
};

struct IotaToGeneric : OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    int64_t dim = op.getDim();
    Value result = mapElements(
        rewriter, op.getLoc(), type, {}, {},
        [&](OpBuilder &b, Location loc, ValueRange) -> Value {
          Value index = b.create<linalg::IndexOp>(loc, dim);
          Value i64 = b.create<arith::IndexCastOp>(loc, b.getI64Type(), index);
          return convertScalar(b, loc, i64, element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct BroadcastToGeneric : OpConversionPattern<BroadcastInDimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastInDimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType operandType = op.getOperand().getType(),
                     resultType = op.getType();
    SmallVector<AffineExpr> operandIndex;
    for (auto [i, d] : llvm::enumerate(op.getDims())) {
      bool repeated = operandType.getDimSize(i) != resultType.getDimSize(d);
      operandIndex.push_back(repeated ? rewriter.getAffineConstantExpr(0)
                                      : rewriter.getAffineDimExpr(d));
    }
    AffineMap map = AffineMap::get(resultType.getRank(), 0, operandIndex,
                                   rewriter.getContext());
    rewriter.replaceOp(op, mapElements(rewriter, op.getLoc(), resultType,
                                       adaptor.getOperand(), map,
                                       [](OpBuilder &, Location,
                                          ValueRange args) { return args[0]; }));
    return success();
  }
};

struct ReshapeToTensor : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshapeTensor(rewriter, op.getLoc(),
                                         adaptor.getOperand(), op.getType()));
    return success();
  }
};

struct TransposeToGeneric : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, transposeTensor(rewriter, op.getLoc(),
                                           adaptor.getOperand(), op.getPerm()));
    return success();
  }
};

struct SliceToTensor : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, op.getType(), adaptor.getOperand(), ValueRange{}, ValueRange{},
        ValueRange{}, op.getStart(), op.getType().getShape(), op.getStride());
    return success();
  }
};

Value insertSlice(OpBuilder &b, Location loc, Value source, Value dest,
                  ArrayRef<int64_t> offsets, ArrayRef<int64_t> strides) {
  auto sourceType = cast<RankedTensorType>(source.getType());
  return b.create<tensor::InsertSliceOp>(loc, source, dest, ValueRange{},
                                         ValueRange{}, ValueRange{}, offsets,
                                         sourceType.getShape(), strides);
}

struct ConcatenateToTensor : OpConversionPattern<ConcatenateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatenateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    Value result = emptyTensor(rewriter, op.getLoc(), type);
    SmallVector<int64_t> offsets(type.getRank(), 0), strides(type.getRank(), 1);
    for (Value input : adaptor.getInputs()) {
      result = insertSlice(rewriter, op.getLoc(), input, result, offsets,
                           strides);
      offsets[op.getDim()] +=
          cast<RankedTensorType>(input.getType()).getDimSize(op.getDim());
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct PadToTensor : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value padding =
        rewriter.create<tensor::ExtractOp>(loc, adaptor.getPaddingValue());
    Value filled = filledTensor(rewriter, loc, op.getType(), padding);
    SmallVector<int64_t> strides;
    for (int64_t interior : op.getInterior())
      strides.push_back(interior + 1);
    rewriter.replaceOp(op, insertSlice(rewriter, loc, adaptor.getOperand(),
                                       filled, op.getLow(), strides));
    return success();
  }
};

// Clamps an integer index into [0, size) and casts it to `index`.
Value clampedIndex(OpBuilder &b, Location loc, Value index, int64_t size) {
  Type t = index.getType();
  Value clamped = b.create<arith::MaxSIOp>(loc, index,
                                           scalarConstant(b, loc, t, 0));
  clamped = b.create<arith::MinSIOp>(
      loc, clamped, scalarConstant(b, loc, t, static_cast<double>(size - 1)));
  return b.create<arith::IndexCastOp>(loc, b.getIndexType(), clamped);
}

struct GatherToGeneric : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = op.getType();
    int64_t axis = op.getAxis();
    int64_t indexRank = op.getIndices().getType().getRank();
    int64_t axisSize = op.getOperand().getType().getDimSize(axis);
    SmallVector<AffineExpr> indexDims;
    for (int64_t d = 0; d < indexRank; ++d)
      indexDims.push_back(rewriter.getAffineDimExpr(axis + d));
    AffineMap indicesMap = AffineMap::get(resultType.getRank(), 0, indexDims,
                                          rewriter.getContext());
    Value operand = adaptor.getOperand();
    Value result = mapElements(
        rewriter, op.getLoc(), resultType, adaptor.getIndices(), indicesMap,
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          SmallVector<Value> at;
          for (int64_t d = 0; d < axis; ++d)
            at.push_back(b.create<linalg::IndexOp>(loc, d));
          at.push_back(clampedIndex(b, loc, args[0], axisSize));
          for (int64_t d = axis + indexRank; d < resultType.getRank(); ++d)
            at.push_back(b.create<linalg::IndexOp>(loc, d));
          return b.create<tensor::ExtractOp>(loc, operand, at);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ScatterAddToLoops : OpConversionPattern<ScatterAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScatterAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType updatesType = op.getUpdates().getType();
    int64_t axis = op.getAxis();
    int64_t indexRank = op.getIndices().getType().getRank();
    int64_t axisSize = op.getBase().getType().getDimSize(axis);
    Value zero = rewriter.create<arith::ConstantIndexOp>(loc, 0);
    Value one = rewriter.create<arith::ConstantIndexOp>(loc, 1);
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t size : updatesType.getShape()) {
      lbs.push_back(zero);
      ubs.push_back(rewriter.create<arith::ConstantIndexOp>(loc, size));
      steps.push_back(one);
    }
    Value updates = adaptor.getUpdates(), indices = adaptor.getIndices();
    Type element = updatesType.getElementType();
    // Sequential loops: repeated indices accumulate deterministically.
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lbs, ubs, steps, adaptor.getBase(),
        [&](OpBuilder &b, Location l, ValueRange ivs,
            ValueRange acc) -> scf::ValueVector {
          Value index = b.create<tensor::ExtractOp>(
              l, indices, ivs.slice(axis, indexRank));
          SmallVector<Value> at(ivs.take_front(axis));
          at.push_back(clampedIndex(b, l, index, axisSize));
          llvm::append_range(at, ivs.drop_front(axis + indexRank));
          Value update = widen(b, l, b.create<tensor::ExtractOp>(l, updates, ivs));
          Value current = widen(b, l, b.create<tensor::ExtractOp>(l, acc[0], at));
          Value sum = floatOrInt<arith::AddFOp, arith::AddIOp>(
              b, l, ValueRange{current, update});
          sum = isa<FloatType>(element) ? narrowTo(b, l, sum, element) : sum;
          return {b.create<tensor::InsertOp>(l, sum, acc[0], at)};
        });
    rewriter.replaceOp(op, nest.results);
    return success();
  }
};

Value reductionIdentity(OpBuilder &b, Location loc, ReduceKind kind,
                        Type type) {
  if (kind == ReduceKind::sum)
    return scalarConstant(b, loc, type, 0);
  bool isMax = kind == ReduceKind::max;
  if (auto f = dyn_cast<FloatType>(type))
    return b.create<arith::ConstantOp>(
        loc, b.getFloatAttr(f, APFloat::getInf(f.getFloatSemantics(), isMax)));
  unsigned width = type.getIntOrFloatBitWidth();
  return b.create<arith::ConstantOp>(
      loc, b.getIntegerAttr(type, isMax ? APInt::getSignedMinValue(width)
                                        : APInt::getSignedMaxValue(width)));
}

Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value acc,
              Value x) {
  switch (kind) {
  case ReduceKind::sum:
    // Sums may be reassociated (as in XLA), which lets LLVM vectorize them
    // into partial sums; the order of a sum is unspecified.
    if (isa<FloatType>(acc.getType()))
      return b.create<arith::AddFOp>(loc, acc, x, arith::FastMathFlags::reassoc);
    return b.create<arith::AddIOp>(loc, acc, x);
  case ReduceKind::max:
    return floatOrInt<arith::MaximumFOp, arith::MaxSIOp>(b, loc, {acc, x});
  case ReduceKind::min:
    return floatOrInt<arith::MinimumFOp, arith::MinSIOp>(b, loc, {acc, x});
  }
  llvm_unreachable("unknown reduce kind");
}

// The map from an operand index to the reduced result index.
AffineMap droppingDims(Builder &b, int64_t rank, ArrayRef<int64_t> dropped) {
  SmallVector<AffineExpr> kept;
  for (int64_t d : otherDimensions(rank, dropped))
    kept.push_back(b.getAffineDimExpr(d));
  return AffineMap::get(rank, 0, kept, b.getContext());
}

SmallVector<utils::IteratorType> reductionIterators(int64_t rank,
                                                    ArrayRef<int64_t> reduced) {
  SmallVector<utils::IteratorType> iterators = parallelIterators(rank);
  for (int64_t d : reduced)
    iterators[d] = utils::IteratorType::reduction;
  return iterators;
}

struct ReduceToGeneric : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    int64_t rank = op.getOperand().getType().getRank();
    // Half precision accumulates in f32.
    Type accType = computeTypeOf(resultType.getElementType());
    auto accTensor = resultType.clone(accType);
    Value init = filledTensor(rewriter, loc, accTensor,
                              reductionIdentity(rewriter, loc, op.getKind(),
                                                accType));
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(rank),
                                droppingDims(rewriter, rank, op.getDims())};
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, accTensor, adaptor.getOperand(), init, maps,
        reductionIterators(rank, op.getDims()),
        [&](OpBuilder &b, Location l, ValueRange args) {
          b.create<linalg::YieldOp>(
              l, combine(b, l, op.getKind(), args[1], widen(b, l, args[0])));
        });
    rewriter.replaceOp(op, convertTensorElements(rewriter, loc,
                                                 generic.getResult(0),
                                                 resultType.getElementType()));
    return success();
  }
};

struct ArgMaxToGeneric : OpConversionPattern<ArgMaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ArgMaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType indexType = op.getType();
    int64_t rank = op.getOperand().getType().getRank(), axis = op.getAxis();
    Type valueElement = computeTypeOf(op.getOperand().getType().getElementType());
    auto valueType = indexType.clone(valueElement);
    Value bestValue = filledTensor(
        rewriter, loc, valueType,
        reductionIdentity(rewriter, loc, ReduceKind::max, valueElement));
    Value bestIndex = filledTensor(
        rewriter, loc, indexType,
        scalarConstant(rewriter, loc, indexType.getElementType(), 0));
    AffineMap reduced = droppingDims(rewriter, rank, {axis});
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(rank), reduced,
                                reduced};
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{valueType, indexType}, adaptor.getOperand(),
        ValueRange{bestValue, bestIndex}, maps,
        reductionIterators(rank, {axis}),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = widen(b, l, args[0]), best = args[1];
          Value better;
          if (isa<FloatType>(valueElement)) {
            // The first NaN wins, as in numpy; otherwise strictly greater,
            // so ties keep the first index.
            Value greater =
                b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGT, x, best);
            Value xNan =
                b.create<arith::CmpFOp>(l, arith::CmpFPredicate::UNO, x, x);
            Value bestNotNan =
                b.create<arith::CmpFOp>(l, arith::CmpFPredicate::ORD, best, best);
            better = b.create<arith::OrIOp>(
                l, greater, b.create<arith::AndIOp>(l, xNan, bestNotNan));
          } else {
            better =
                b.create<arith::CmpIOp>(l, arith::CmpIPredicate::sgt, x, best);
          }
          Value position = b.create<arith::IndexCastOp>(
              l, indexType.getElementType(), b.create<linalg::IndexOp>(l, axis));
          b.create<linalg::YieldOp>(
              l, ValueRange{b.create<arith::SelectOp>(l, better, x, best),
                            b.create<arith::SelectOp>(l, better, position,
                                                      args[2])});
        });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};

// dot_general -> one contraction generic reading both operands in place:
// loops (batch..., lhs free..., contract..., rhs free...), each operand's
// map naming the loop of each of its dimensions, so a transposed operand
// costs no copy. The result is (batch..., lhs free..., rhs free...), as
// dot_general defines it. The innermost loop runs along the rhs free
// dimension, contiguous in B and C for a plain matmul, should the generic
// stay a loop nest; contractions the runtime's GEMM serves become calls
// (adjit-select-kernels).
struct DotGeneralToContraction : OpConversionPattern<DotGeneralOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DotGeneralOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType lhsType = op.getLhs().getType(),
                     rhsType = op.getRhs().getType(), resultType = op.getType();
    Type accElement = computeTypeOf(resultType.getElementType());
    ArrayRef<int64_t> lhsBatch = op.getLhsBatch(), rhsBatch = op.getRhsBatch(),
                      lhsContract = op.getLhsContract(),
                      rhsContract = op.getRhsContract();
    SmallVector<int64_t> lhsFree =
        freeDimensions(lhsType.getRank(), lhsBatch, lhsContract);
    SmallVector<int64_t> rhsFree =
        freeDimensions(rhsType.getRank(), rhsBatch, rhsContract);
    unsigned numBatch = lhsBatch.size(), numLhsFree = lhsFree.size(),
             numContract = lhsContract.size(), numRhsFree = rhsFree.size();
    unsigned numLoops = numBatch + numLhsFree + numContract + numRhsFree;
    unsigned firstLhsFree = numBatch, firstContract = numBatch + numLhsFree,
             firstRhsFree = firstContract + numContract;

    SmallVector<AffineExpr> lhsExprs(lhsType.getRank()),
        rhsExprs(rhsType.getRank()), resultExprs;
    auto loop = [&](unsigned d) { return rewriter.getAffineDimExpr(d); };
    for (unsigned b = 0; b < numBatch; ++b) {
      lhsExprs[lhsBatch[b]] = rhsExprs[rhsBatch[b]] = loop(b);
      resultExprs.push_back(loop(b));
    }
    for (unsigned f = 0; f < numLhsFree; ++f) {
      lhsExprs[lhsFree[f]] = loop(firstLhsFree + f);
      resultExprs.push_back(loop(firstLhsFree + f));
    }
    for (unsigned c = 0; c < numContract; ++c)
      lhsExprs[lhsContract[c]] = rhsExprs[rhsContract[c]] =
          loop(firstContract + c);
    for (unsigned f = 0; f < numRhsFree; ++f) {
      rhsExprs[rhsFree[f]] = loop(firstRhsFree + f);
      resultExprs.push_back(loop(firstRhsFree + f));
    }
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineMap> maps{AffineMap::get(numLoops, 0, lhsExprs, ctx),
                                AffineMap::get(numLoops, 0, rhsExprs, ctx),
                                AffineMap::get(numLoops, 0, resultExprs, ctx)};
    SmallVector<utils::IteratorType> iterators = parallelIterators(numLoops);
    for (unsigned c = 0; c < numContract; ++c)
      iterators[firstContract + c] = utils::IteratorType::reduction;

    Value lhs = convertTensorElements(rewriter, loc, adaptor.getLhs(), accElement);
    Value rhs = convertTensorElements(rewriter, loc, adaptor.getRhs(), accElement);
    auto productType = resultType.clone(accElement);
    Value init = filledTensor(rewriter, loc, productType,
                              scalarConstant(rewriter, loc, accElement, 0));
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, productType, ValueRange{lhs, rhs}, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value product =
              floatOrInt<arith::MulFOp, arith::MulIOp>(b, l, {args[0], args[1]});
          b.create<linalg::YieldOp>(
              l, floatOrInt<arith::AddFOp, arith::AddIOp>(b, l, {args[2], product}));
        });
    rewriter.replaceOp(op, convertTensorElements(rewriter, loc, generic.getResult(0),
                                                 resultType.getElementType()));
    return success();
  }
};

struct LowerAdjitToLinalgPass
    : adjit::impl::LowerAdjitToLinalgBase<LowerAdjitToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect>();
    target.addIllegalDialect<AdjitDialect>();
    // Kept until bufferization (adjit-erase-optimization-barriers).
    target.addLegalOp<OptimizationBarrierOp>();
    RewritePatternSet patterns(context);
    patterns.add<
        ElementwiseToGeneric<NegOp>, ElementwiseToGeneric<AbsOp>,
        ElementwiseToGeneric<SignOp>, ElementwiseToGeneric<ExpOp>,
        ElementwiseToGeneric<Expm1Op>, ElementwiseToGeneric<LogOp>,
        ElementwiseToGeneric<Log1pOp>, ElementwiseToGeneric<SqrtOp>,
        ElementwiseToGeneric<RsqrtOp>, ElementwiseToGeneric<SinOp>,
        ElementwiseToGeneric<CosOp>, ElementwiseToGeneric<TanhOp>,
        ElementwiseToGeneric<LogisticOp>, ElementwiseToGeneric<ErfOp>,
        ElementwiseToGeneric<FloorOp>, ElementwiseToGeneric<AddOp>,
        ElementwiseToGeneric<SubOp>, ElementwiseToGeneric<MulOp>,
        ElementwiseToGeneric<DivOp>, ElementwiseToGeneric<PowOp>,
        ElementwiseToGeneric<MaxOp>, ElementwiseToGeneric<MinOp>,
        ElementwiseToGeneric<AndOp>, ElementwiseToGeneric<OrOp>,
        ElementwiseToGeneric<NotOp>, ElementwiseToGeneric<SelectOp>,
        ElementwiseToGeneric<CompareOp>, ConvertToGeneric, ConstantToArith,
        StopGradientToOperand,
        IotaToGeneric, BroadcastToGeneric, ReshapeToTensor, TransposeToGeneric,
        SliceToTensor, ConcatenateToTensor, PadToTensor, GatherToGeneric,
        ScatterAddToLoops, ReduceToGeneric, ArgMaxToGeneric,
        DotGeneralToContraction>(context);
    populateControlFlowToSCFPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
